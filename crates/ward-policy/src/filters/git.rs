//! `git-metadata`: git's files outside and inside the project.
//!
//! - Reading `.git/…` of a repository *above* the project (an enclosing repository) scores 40:
//!   noted in the event and the report, not held (git itself does it when the project is a
//!   subdirectory). Writing there scores 100.
//! - Inside the project: writing a hook (`.git/hooks/*`, except git's inert `*.sample`
//!   files) scores 100; writing `.git/config` scores 100 unless git itself writes it (through
//!   its lock file), which scores 40 and is noted (`git init`, `git remote add`). Everything
//!   else under `.git` (objects, refs, index, logs, `config.lock` by git) is routine, so
//!   `git add`/`commit` work.

use crate::engine::{Ctx, FilterResult, Hits};
use crate::filters::is_git;
use crate::paths::{basename, tilde, under};
use crate::schema::Access;

/// Score of reading an enclosing repository's metadata.
pub const PARENT_READ: i32 = 40;
/// Score of git writing its own config.
pub const GIT_WRITES_CONFIG: i32 = 40;

/// Splits `/a/b/.git/x` into (`/a/b`, `x`).
fn split_git(p: &[u8]) -> Option<(&[u8], &[u8])> {
    let idx = p.windows(6).position(|w| w == b"/.git/").map(|i| (i, i + 6)).or_else(|| {
        p.ends_with(b"/.git").then(|| (p.len() - 5, p.len()))
    })?;
    Some((&p[..idx.0], &p[idx.1.min(p.len())..]))
}

pub(crate) fn check(ctx: &Ctx<'_>, hits: &mut Hits) -> FilterResult {
    let c = ctx.c;
    let name = super::GIT;
    for (path, access) in [(ctx.path, ctx.access), (ctx.path2, ctx.access2)] {
        let Some(p) = path else { continue };
        let Some((root, inner)) = split_git(p) else { continue };
        let shown = || tilde(&String::from_utf8_lossy(p), &c.home_str);
        let project = c.project.as_slice();
        let above = root.len() < project.len() && under(project, if root.is_empty() { b"/" } else { root });
        if above {
            if access == Access::Write {
                hits.add(name, 100, format!("writes the git metadata of a repository above the project ({})", shown()));
            } else {
                hits.add(name, PARENT_READ, format!("reads the git metadata of a repository above the project ({})", shown()));
            }
            return Ok(());
        }
        if access != Access::Write || !under(root, project) {
            continue;
        }
        if let Some(hook) = inner.strip_prefix(b"hooks/") {
            if !hook.is_empty() && !basename(hook).ends_with(b".sample") {
                hits.add(name, 100, format!("plants a git hook ({}): it would run on the next git command", shown()));
                return Ok(());
            }
        }
        if inner == b"config" || inner == b"config.lock" {
            if is_git(ctx.actor.exe.as_bytes()) {
                hits.add(name, GIT_WRITES_CONFIG, format!("git changes the repository's config ({})", shown()));
                return Ok(());
            } else {
                hits.add(
                    name,
                    100,
                    format!("writes .git/config directly ({}): settings like core.fsmonitor run programs", shown()),
                );
                return Ok(());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn git_work_in_the_project_is_routine() {
        let e = engine("generic");
        let git = actor(5, "/usr/bin/git");
        for op in [
            write("/work/proj/.git/index.lock"),
            rename("/work/proj/.git/index.lock", "/work/proj/.git/index"),
            create("/work/proj/.git/objects/ab/cdef"),
            write("/work/proj/.git/refs/heads/main.lock"),
            write("/work/proj/.git/logs/HEAD"),
            read("/work/proj/.git/hooks/pre-commit"),
            read("/work/proj/.git/config"),
            create("/work/proj/.git/hooks/pre-commit.sample"),
        ] {
            let d = e_decide(&e, &git, &op);
            assert_eq!(d.verdict, Verdict::Allow, "{op:?}: {:?}", d.filters);
        }
        let d = e_decide(&e, &git, &rename("/work/proj/.git/config.lock", "/work/proj/.git/config"));
        assert_eq!(d.verdict, Verdict::Allow);
        assert_eq!(score_in(&d, "git-metadata"), 40);
    }

    #[test]
    fn hooks_and_config_planted_by_others_are_denied() {
        let e = engine("generic");
        let sh = actor(5, "/usr/bin/bash");
        assert_eq!(e_decide(&e, &sh, &write("/work/proj/.git/hooks/pre-commit")).verdict, Verdict::Deny);
        assert_eq!(e_decide(&e, &sh, &write("/work/proj/.git/config")).verdict, Verdict::Deny);
        let git = actor(6, "/usr/bin/git");
        assert_eq!(e_decide(&e, &git, &create("/work/proj/.git/hooks/post-checkout")).verdict, Verdict::Deny);
    }

    #[test]
    fn enclosing_repositories_are_noted() {
        let e = engine("generic");
        let d = decide(&e, &read("/work/.git/config"));
        assert_eq!(score_in(&d, "git-metadata"), 40);
        assert_eq!(d.verdict, Verdict::Allow);
        assert_eq!(score_of(&e, &read("/.git/HEAD"), "git-metadata"), 40);
        assert_eq!(decide(&e, &write("/work/.git/config")).verdict, Verdict::Deny);
        // A sibling repository is not "above".
        assert_eq!(score_of(&e, &read("/work/other/.git/config"), "git-metadata"), 0);
    }
}
