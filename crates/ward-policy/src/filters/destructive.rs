//! `destructive`: commands and writes that destroy what is outside the project.
//!
//! - `rm` with `-r` of a target outside the project and `/tmp` (or `/`, `~`, `*` at the top)
//!   scores 100; `find … -delete` outside likewise.
//! - `mkfs*`, `wipefs`, `fdisk`/`sfdisk`/`parted`, `mkswap`, `dd of=/dev/…`, `shred /dev/…`
//!   score 100; opening a block device for writing scores 100.
//! - `git push --force` (`-f`, `--force-with-lease`, `+refspec`) scores 50 (review).
//! - `chmod -R`/`chown -R` outside the project score 50.
//!
//! Relative targets are taken from the project directory (the exec's working directory is
//! not part of the operation); `rm -rf ../..` is therefore outside.

use crate::engine::{normalize, Cmd, Ctx, FilterResult, Hits};
use crate::paths::{expand_home_in_arg, under};
use ward_event::OpKind;

/// Score of destroying data outside the project.
pub const DESTROY: i32 = 100;
/// Score of a forced push.
pub const FORCE_PUSH: i32 = 50;

const BLOCK_DEVICES: &[&str] = &["sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "md", "loop", "mapper/", "disk/"];

fn is_block_device(p: &str) -> bool {
    p.strip_prefix("/dev/").is_some_and(|d| BLOCK_DEVICES.iter().any(|b| d.starts_with(b)))
}

/// Where a target of `cmd` points, absolute.
fn target(ctx: &Ctx<'_>, arg: &str) -> String {
    let c = ctx.c;
    let a = expand_home_in_arg(arg, &c.home_str).unwrap_or_else(|| arg.to_string());
    if a.starts_with('/') {
        normalize(&a)
    } else {
        normalize(&format!("{}/{}", c.project_str, a))
    }
}

fn outside(ctx: &Ctx<'_>, abs: &str) -> bool {
    let p = abs.as_bytes();
    !(under(p, &ctx.c.project) && p != ctx.c.project.as_slice() || under(p, b"/tmp") && p != b"/tmp")
}

fn check_cmd(ctx: &Ctx<'_>, cmd: &Cmd) -> Option<(i32, String)> {
    let name = cmd.name();
    let args = &cmd.argv[1.min(cmd.argv.len())..];
    let operands = || args.iter().filter(|a| !a.starts_with('-'));
    match name {
        "rm" => {
            let recursive = args.iter().any(|a| {
                a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && (a.contains('r') || a.contains('R')))
            });
            if !recursive {
                return None;
            }
            for t in operands() {
                let abs = target(ctx, t);
                if outside(ctx, &abs) || t == "*" && ctx.c.project.is_empty() {
                    return Some((DESTROY, cmd.reason(&format!("deletes a tree outside the project ({abs})"))));
                }
            }
            None
        }
        "find" if args.iter().any(|a| a == "-delete") => {
            let start = args.iter().take_while(|a| !a.starts_with('-')).next().map(String::as_str).unwrap_or(".");
            let abs = target(ctx, start);
            outside(ctx, &abs).then(|| (DESTROY, cmd.reason(&format!("deletes files outside the project ({abs})"))))
        }
        n if n.starts_with("mkfs") || matches!(n, "mke2fs" | "wipefs" | "fdisk" | "sfdisk" | "parted" | "mkswap" | "sgdisk") => {
            Some((DESTROY, cmd.reason("formats or partitions a disk")))
        }
        "dd" => args
            .iter()
            .find_map(|a| a.strip_prefix("of="))
            .filter(|of| of.starts_with("/dev/") && !matches!(*of, "/dev/null" | "/dev/stdout" | "/dev/stderr"))
            .map(|of| (DESTROY, cmd.reason(&format!("writes raw data to a device ({of})")))),
        "shred" => operands()
            .find(|a| a.starts_with("/dev/"))
            .map(|a| (DESTROY, cmd.reason(&format!("overwrites a device ({a})")))),
        "git" => {
            let sub = args.iter().position(|a| a == "push")?;
            let rest = &args[sub + 1..];
            let forced = rest.iter().any(|a| {
                a == "--force" || a == "-f" || a.starts_with("--force-with-lease") || a == "--mirror" || a == "--delete"
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
                    || (a.starts_with('+') && a.len() > 1)
            });
            forced.then(|| (FORCE_PUSH, cmd.reason("forced push: rewrites or deletes the remote's history")))
        }
        "chmod" | "chown" | "chgrp" => {
            let recursive = args.iter().any(|a| a == "-R" || a == "--recursive");
            if !recursive {
                return None;
            }
            operands().skip(1).map(|t| target(ctx, t)).find(|abs| outside(ctx, abs)).map(|abs| {
                (FORCE_PUSH, cmd.reason(&format!("changes permissions of a tree outside the project ({abs})")))
            })
        }
        _ => None,
    }
}

pub(crate) fn check(ctx: &Ctx<'_>, hits: &mut Hits) -> FilterResult {
    let name = super::DESTRUCTIVE;
    if matches!(ctx.kind, OpKind::FileWrite | OpKind::FileCreate) {
        if let Some(p) = ctx.path.map(String::from_utf8_lossy) {
            if is_block_device(&p) {
                hits.add(name, DESTROY, format!("writes to a block device ({p})"));
                return Ok(());
            }
        }
    }
    let mut best: Option<(i32, String)> = None;
    for cmd in ctx.cmds {
        if let Some((s, r)) = check_cmd(ctx, cmd) {
            if best.as_ref().is_none_or(|(b, _)| *b < s) {
                best = Some((s, r));
            }
        }
    }
    if let Some((s, r)) = best {
        hits.add(name, s, r);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn rm_rf_outside_the_project() {
        let e = engine("generic");
        for argv in [
            &["rm", "-rf", "/"][..],
            &["rm", "-rf", "~"],
            &["rm", "-r", "-f", "/home/u/photos"],
            &["rm", "--recursive", "/etc"],
            &["rm", "-rf", "../.."],
            &["sudo", "rm", "-rf", "/var/lib"],
        ] {
            let d = decide(&e, &exec(argv));
            assert_eq!(score_in(&d, "destructive"), 100, "{argv:?}: {:?}", d.filters);
        }
        let d = decide(&e, &exec(&["sh", "-c", "cd /work/proj && rm -rf $HOME"]));
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(d.filters.iter().any(|h| h.reason.contains("`rm -rf ${HOME}`")), "{:?}", d.filters);
    }

    #[test]
    fn rm_rf_inside_the_project_or_tmp_is_routine() {
        let e = engine("generic");
        for argv in [
            &["rm", "-rf", "target"][..],
            &["rm", "-rf", "/work/proj/build"],
            &["rm", "-rf", "/tmp/tmp.abc"],
            &["rm", "-f", "/home/u/x"],
        ] {
            assert_eq!(score_of(&e, &exec(argv), "destructive"), 0, "{argv:?}");
        }
    }

    #[test]
    fn disks_and_devices() {
        let e = engine("generic");
        assert_eq!(decide(&e, &exec(&["mkfs.ext4", "/dev/sdb1"])).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &exec(&["dd", "if=/dev/zero", "of=/dev/nvme0n1"])).verdict, Verdict::Deny);
        assert_eq!(score_of(&e, &exec(&["dd", "if=/dev/zero", "of=/dev/null"]), "destructive"), 0);
        assert_eq!(decide(&e, &write("/dev/sda")).verdict, Verdict::Deny);
    }

    #[test]
    fn forced_push_is_reviewed() {
        let e = engine("generic");
        assert_eq!(decide(&e, &exec(&["git", "push", "--force", "origin", "main"])).verdict, Verdict::Review);
        assert_eq!(decide(&e, &exec(&["git", "push", "origin", "+main"])).verdict, Verdict::Review);
        assert_eq!(decide(&e, &exec(&["git", "-C", "x", "push", "-f"])).verdict, Verdict::Review);
        assert_eq!(score_of(&e, &exec(&["git", "push", "origin", "main"]), "destructive"), 0);
    }
}
