//! `sensitive-path`: credentials, keys, keyring and D-Bus sockets, shell start-up files and
//! other processes' memory and environment.
//!
//! - The operation's path (and a link's target) against `[[sensitive]]` globs whose
//!   `access` fits and whose `except` globs do not match; the highest-scoring entry counts.
//! - `/proc/<pid>/environ` and `/proc/<pid>/mem` of another process (a pid other than the
//!   caller's) score 100, its `cmdline` 30 (noted; `ps` reads every one, and the census
//!   filter catches a sweep).
//! - Unix sockets: the D-Bus session bus in the abstract namespace (`@/tmp/dbus-…`).
//! - Exec: every path an argument names (after `~`/`$HOME` expansion; relative paths taken
//!   from the project) and every redirection target, for the exec itself and for each
//!   simple command of a shell string: `sh -c 'true && cat ~/.ssh/id_rsa'` is caught here,
//!   naming `cat ~/.ssh/id_rsa`, before `cat` ever runs.

use crate::engine::{Compiled, Ctx, FilterResult, GlobRole, Hits};
use crate::paths::{proc_pid_file, tilde};
use crate::schema::Access;
use ward_event::{OpKind, SockAddr};

/// Score of another process's `environ` / `mem`.
pub const PROC_SECRET: i32 = 100;
/// Score of another process's `cmdline`.
pub const PROC_CMDLINE: i32 = 30;

/// The best `[[sensitive]]` entry for a path's glob matches: (index, score).
pub(crate) fn best_match(c: &Compiled, path: &[u8], matches: &[usize], access: Access) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut excepts: Option<Vec<usize>> = None;
    for &i in matches {
        let GlobRole::Sensitive(s) = c.roles[i] else { continue };
        let rule = &c.sensitive[s];
        if !crate::engine::Ctx::applies(rule.access, access) {
            continue;
        }
        let excepted = if rule.except.is_empty() {
            false
        } else {
            excepts
                .get_or_insert_with(|| c.excepts.matches(path))
                .iter()
                .any(|&j| c.except_of[j] == s)
        };
        if excepted {
            continue;
        }
        if best.is_none_or(|b| c.sensitive[b].score < rule.score) {
            best = Some(s);
        }
    }
    best
}

/// Matches a path given as text; for exec arguments.
pub(crate) fn match_text(c: &Compiled, path: &str, access: Access) -> Option<usize> {
    let m = c.globs.matches(path.as_bytes());
    best_match(c, path.as_bytes(), &m, access)
}

pub(crate) fn check(ctx: &Ctx<'_>, hits: &mut Hits) -> FilterResult {
    let c = ctx.c;
    let name = super::SENSITIVE;
    // Other processes' /proc entries.
    if matches!(ctx.kind, OpKind::FileRead | OpKind::FileWrite | OpKind::DirList) {
        if let Some((pid, file)) = ctx.path.and_then(proc_pid_file) {
            if pid != ctx.actor.pid && pid != ctx.actor.tid {
                let score = match file {
                    b"environ" | b"mem" => PROC_SECRET,
                    b"cmdline" => PROC_CMDLINE,
                    _ => 0,
                };
                if score > 0 {
                    let what = if file == b"cmdline" { "command line" } else if file == b"mem" { "memory" } else { "environment (its secrets)" };
                    hits.add(name, score, format!("another process's {what}: /proc/{pid}/{}", String::from_utf8_lossy(file)));
                    return Ok(());
                }
            }
        }
    }
    // Abstract D-Bus addresses.
    if let Some(SockAddr::UnixAbstract { name: n }) = &ctx.op.addr {
        let n = n.as_bytes();
        if n.starts_with(b"/tmp/dbus-") || n.windows(4).any(|w| w == b"dbus") {
            hits.add(name, 100, format!("the D-Bus session bus (@{})", String::from_utf8_lossy(n)));
            return Ok(());
        }
    }
    let mut best: Option<(i32, String)> = None;
    let mut consider = |score: i32, reason: String| {
        if best.as_ref().is_none_or(|(s, _)| *s < score) {
            best = Some((score, reason));
        }
    };
    for (path, matches, access) in [(ctx.path, ctx.matches, ctx.access), (ctx.path2, ctx.matches2, ctx.access2)] {
        let Some(p) = path else { continue };
        if let Some(s) = best_match(c, p, matches, access) {
            let rule = &c.sensitive[s];
            let shown = tilde(&String::from_utf8_lossy(p), &c.home_str);
            let verb = if access == Access::Write { "write to" } else { "read of" };
            consider(rule.score, format!("{verb} {} ({shown})", rule.reason));
        }
    }
    // Paths named by an exec's commands.
    for cmd in ctx.cmds {
        for (p, access) in cmd.path_args(c) {
            if let Some(s) = match_text(c, &p, access) {
                let rule = &c.sensitive[s];
                let shown = tilde(&p, &c.home_str);
                consider(rule.score, cmd.reason(&format!("names {} ({shown})", rule.reason)));
            }
        }
    }
    if let Some((score, reason)) = best {
        hits.add(name, score, reason);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn credentials_are_denied_with_the_filter_named() {
        let e = engine("generic");
        for p in [
            "/home/u/.ssh/id_rsa",
            "/home/u/.ssh/config",
            "/home/u/.npmrc",
            "/home/u/.aws/credentials",
            "/home/u/.config/gcloud/application_default_credentials.json",
            "/home/u/.kube/config",
            "/home/u/.pypirc",
            "/home/u/.cargo/credentials.toml",
            "/home/u/.docker/config.json",
            "/home/u/.netrc",
            "/home/u/.git-credentials",
            "/etc/shadow",
        ] {
            let d = decide(&e, &read(p));
            assert_eq!(d.verdict, Verdict::Deny, "{p}: {:?}", d.filters);
            assert!(d.filters.iter().any(|h| h.filter == "sensitive-path"), "{p}");
        }
    }

    #[test]
    fn dotenv_is_reviewed_but_examples_are_not() {
        let e = engine("generic");
        assert_eq!(score_of(&e, &read("/work/proj/.env"), "sensitive-path"), 60);
        assert_eq!(score_of(&e, &read("/work/proj/app/.env.production"), "sensitive-path"), 60);
        assert_eq!(score_of(&e, &read("/work/proj/.env.example"), "sensitive-path"), 0);
    }

    #[test]
    fn shell_rc_reads_are_routine_writes_are_not() {
        let e = engine("generic");
        assert_eq!(score_of(&e, &read("/home/u/.bashrc"), "sensitive-path"), 0);
        assert_eq!(score_of(&e, &read("/home/u/.profile"), "sensitive-path"), 0);
        assert_eq!(score_of(&e, &write("/home/u/.bashrc"), "sensitive-path"), 100);
        assert_eq!(score_of(&e, &write("/home/u/.ssh/authorized_keys"), "sensitive-path"), 100);
    }

    #[test]
    fn other_processes_proc_files() {
        let e = engine("generic");
        let me = actor(100, "/usr/bin/cat");
        let d = e_decide(&e, &me, &read("/proc/200/environ"));
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(d.filters[0].reason.contains("/proc/200/environ"));
        assert_eq!(e_decide(&e, &me, &read("/proc/100/environ")).verdict, Verdict::Allow);
        assert_eq!(e_decide(&e, &me, &read("/proc/self/environ")).verdict, Verdict::Allow);
        assert_eq!(e_decide(&e, &me, &read("/proc/200/task/201/mem")).verdict, Verdict::Deny);
        assert_eq!(score_in(&e_decide(&e, &me, &read("/proc/200/cmdline")), "sensitive-path"), 30);
        assert_eq!(score_in(&e_decide(&e, &me, &read("/proc/200/stat")), "sensitive-path"), 0);
    }

    #[test]
    fn keyring_and_dbus_sockets() {
        let e = engine("generic");
        assert_eq!(decide(&e, &ipc("/run/user/1000/bus")).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &ipc_abstract("/tmp/dbus-AbCdEf")).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &ipc("/tmp/ssh-XXXX1234/agent.4242")).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &ipc("/run/systemd/journal/socket")).verdict, Verdict::Allow);
    }

    #[test]
    fn exec_arguments_naming_secrets() {
        let e = engine("generic");
        let d = decide(&e, &exec(&["sh", "-c", "true && cat ~/.ssh/id_rsa"]));
        assert_eq!(d.verdict, Verdict::Deny);
        let hit = d.filters.iter().find(|h| h.filter == "sensitive-path").expect("hit");
        assert!(hit.reason.contains("`cat ~/.ssh/id_rsa`"), "{}", hit.reason);
        // The exec of cat itself, with the path the shell expanded.
        let d = decide(&e, &exec(&["cat", "/home/u/.ssh/id_rsa"]));
        assert_eq!(d.verdict, Verdict::Deny);
        // $HOME forms and redirections.
        assert_eq!(decide(&e, &exec(&["bash", "-lc", "cat \"$HOME/.aws/credentials\""])).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &exec(&["sh", "-c", "wc -c < ~/.npmrc"])).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &exec(&["sh", "-c", "echo evil >> ~/.bashrc"])).verdict, Verdict::Deny);
        // Relative to the project.
        assert_eq!(score_of(&e, &exec(&["cat", ".env"]), "sensitive-path"), 60);
        // Plain work is untouched.
        assert_eq!(decide(&e, &exec(&["sh", "-c", "cat ~/.bashrc | grep PATH"])).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &exec(&["ls", "-la", "/home/u"])).verdict, Verdict::Allow);
    }
}
