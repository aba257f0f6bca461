//! `op-risk`: the risk of the operation's kind.
//!
//! - Writes (write, create, delete, rename, link, chmod) outside the project, `/tmp` and the
//!   profile's writable roots score 50 (review), unless a path rule allows them.
//! - Writes to the project's protected paths (`sandbox.protected`: `.ward.toml`, `.vscode`,
//!   shell rc files …) score 100; `.git/…` is left to the `git-metadata` filter.
//! - Reaching into another process (`proc.trace`) scores 100.
//! - Everything else scores 0: reads are judged by the sensitive-path filter.

use crate::engine::{Ctx, FilterResult, GlobRole, Hits};
use crate::paths::{tilde, under};
use crate::schema::{Access, RuleAction};
use ward_event::OpKind;

/// Score of a write outside the writable roots.
pub const OUTSIDE_WRITE: i32 = 50;

pub(crate) fn check(ctx: &Ctx<'_>, hits: &mut Hits) -> FilterResult {
    let name = super::OP_RISK;
    match ctx.kind {
        OpKind::ProcTrace => {
            hits.add(name, 100, "reaches into another process's memory");
            return Ok(());
        }
        k if k.is_file_mutation() => {}
        _ => return Ok(()),
    }
    let paths = [(ctx.path, ctx.matches, ctx.access), (ctx.path2, ctx.matches2, ctx.access2)];
    for (path, matches, access) in paths {
        let Some(p) = path else { continue };
        if access != Access::Write {
            continue;
        }
        let c = ctx.c;
        let git_dir = under(p, &[c.project.as_slice(), b"/.git"].concat());
        if !git_dir {
            if let Some(prot) = c.protected.iter().find(|pr| under(p, pr)) {
                hits.add(
                    name,
                    100,
                    format!("writes a protected path in the project ({})", String::from_utf8_lossy(prot)),
                );
                return Ok(());
            }
        }
        let writable = c.writable.iter().any(|w| under(p, w));
        let allowed_by_rule = matches.iter().any(|&i| match c.roles[i] {
            GlobRole::PathRule(r) => {
                let rule = &c.path_rules[r];
                rule.action == RuleAction::Allow && Ctx::applies(rule.access, Access::Write)
            }
            _ => false,
        });
        if !writable && !allowed_by_rule {
            let shown = tilde(&String::from_utf8_lossy(p), &c.home_str);
            hits.add(
                name,
                OUTSIDE_WRITE,
                format!("{} outside the project and writable roots ({shown})", ctx.kind.as_str()),
            );
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn writes_inside_project_and_tmp_are_routine() {
        let e = engine("generic");
        assert_eq!(score_of(&e, &write("/work/proj/src/main.rs"), "op-risk"), 0);
        assert_eq!(score_of(&e, &write("/tmp/cc1234.o"), "op-risk"), 0);
        assert_eq!(score_of(&e, &write("/home/u/.cache/pip/x"), "op-risk"), 0);
        assert_eq!(score_of(&e, &write("/dev/null"), "op-risk"), 0);
    }

    #[test]
    fn writes_elsewhere_are_reviewed() {
        let e = engine("generic");
        let d = decide(&e, &write("/home/u/notes.txt"));
        assert_eq!(score_in(&d, "op-risk"), 50);
        assert_eq!(d.verdict, Verdict::Review);
        assert!(d.filters[0].reason.contains("~/notes.txt"), "{:?}", d.filters);
        // A rename out of the project is a write outside.
        assert_eq!(score_of(&e, &rename("/work/proj/a", "/home/u/a"), "op-risk"), 50);
    }

    #[test]
    fn protected_paths_in_the_project_are_denied() {
        let e = engine("generic");
        assert_eq!(score_of(&e, &write("/work/proj/.ward.toml"), "op-risk"), 100);
        assert_eq!(score_of(&e, &write("/work/proj/.vscode/tasks.json"), "op-risk"), 100);
        assert_eq!(score_of(&e, &write("/work/proj/.bashrc"), "op-risk"), 100);
        // .git is the git filter's business
        assert_eq!(score_of(&e, &write("/work/proj/.git/index"), "op-risk"), 0);
    }

    #[test]
    fn agent_state_is_writable_under_its_profile() {
        let e = engine("claude-code");
        assert_eq!(score_of(&e, &write("/home/u/.claude.json.tmp.123"), "op-risk"), 0);
        assert_eq!(score_of(&e, &write("/home/u/.claude/todos/x.json"), "op-risk"), 0);
        let g = engine("generic");
        assert_eq!(score_of(&g, &write("/home/u/.claude.json"), "op-risk"), 50);
    }
}
