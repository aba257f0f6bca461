//! `path-rule`: `[[rules.path]]` from the profile and config. Among the rules whose glob
//! matches and whose `access` fits, the strictest action wins (deny > review > allow); its
//! score is added (defaults: allow -100, review 50, deny 100; a rule may set `score`, and
//! rules with score 0 only document what is routine).

use crate::engine::{Ctx, FilterResult, GlobRole, Hits};
use crate::paths::tilde;

pub(crate) fn check(ctx: &Ctx<'_>, hits: &mut Hits) -> FilterResult {
    let c = ctx.c;
    let mut best: Option<usize> = None;
    for (matches, access) in [(ctx.matches, ctx.access), (ctx.matches2, ctx.access2)] {
        for &i in matches {
            let GlobRole::PathRule(r) = c.roles[i] else { continue };
            let rule = &c.path_rules[r];
            if !Ctx::applies(rule.access, access) {
                continue;
            }
            best = match best {
                Some(b) => {
                    let cur = &c.path_rules[b];
                    if (rule.action, rule.score) > (cur.action, cur.score) {
                        Some(r)
                    } else {
                        Some(b)
                    }
                }
                None => Some(r),
            };
        }
    }
    if let Some(b) = best {
        let rule = &c.path_rules[b];
        if rule.score != 0 {
            let path = ctx.path.map(String::from_utf8_lossy).unwrap_or_default();
            hits.add(
                super::PATH_RULE,
                rule.score,
                format!("{}: {} ({}; {})", rule.action_name(), rule.reason, tilde(&path, &c.home_str), rule.origin),
            );
        }
    }
    Ok(())
}

impl crate::config::PathRule {
    fn action_name(&self) -> &'static str {
        match self.action {
            crate::schema::RuleAction::Allow => "allowed by rule",
            crate::schema::RuleAction::Review => "review rule",
            crate::schema::RuleAction::Deny => "denied by rule",
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::Verdict;

    const CFG: &str = r#"
[[rules.path]]
path = "~/secret-notes/**"
action = "deny"
reason = "my notes"

[[rules.path]]
path = "~/secret-notes/public/**"
action = "allow"
reason = "public part"

[[rules.path]]
path = "/opt/data/**"
access = "write"
action = "review"
reason = "shared data"
"#;

    #[test]
    fn strictest_rule_wins_and_access_filters() {
        let e = engine_with("generic", CFG);
        let d = decide(&e, &read("/home/u/secret-notes/public/a.txt"));
        assert_eq!(score_in(&d, "path-rule"), 100, "{:?}", d.filters);
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(d.filters.iter().any(|h| h.reason.contains("my notes")));
        // write-only rule: reads pass
        assert_eq!(score_of(&e, &read("/opt/data/x"), "path-rule"), 0);
        assert_eq!(score_of(&e, &write("/opt/data/x"), "path-rule"), 50);
    }

    #[test]
    fn an_allow_rule_offsets_other_filters() {
        let e = engine_with("generic", "[[rules.path]]\npath = \"~/.npmrc\"\naccess = \"read\"\naction = \"allow\"\nreason = \"I publish from here\"\n");
        let d = decide(&e, &read("/home/u/.npmrc"));
        assert_eq!(score_in(&d, "path-rule"), -100);
        assert_eq!(d.verdict, Verdict::Allow, "{:?}", d.filters);
    }
}
