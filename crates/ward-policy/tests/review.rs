//! Settling reviews: answers, session rules, "always" persisted to the user's config and
//! applied in the next session, timeout and headless actions, audit mode.

mod common;

use common::*;
use ward_event::{Action, DecidedBy, Decider, ReviewAnswer, Verdict};
use ward_policy::ops::*;
use ward_policy::{load, Engine};

#[test]
fn review_answers_settle_the_decision() {
    let e = engine("generic");
    let a = actor(10, "/usr/bin/cat");
    let op = read("/work/proj/.env");
    let pending = e.decide(&a, &op);
    assert_eq!((pending.by, pending.verdict, pending.action), (DecidedBy::Policy, Verdict::Review, Action::Deny));
    let s = |ans| e.settle_review(&a, &op, &pending, ans);
    assert_eq!((s(ReviewAnswer::AllowOnce).action, s(ReviewAnswer::AllowOnce).by), (Action::Allow, DecidedBy::Reviewer));
    assert_eq!((s(ReviewAnswer::Deny).action, s(ReviewAnswer::Deny).by), (Action::Deny, DecidedBy::Reviewer));
    assert_eq!((s(ReviewAnswer::Timeout).action, s(ReviewAnswer::Timeout).by), (Action::Deny, DecidedBy::Timeout));
    assert_eq!((s(ReviewAnswer::NoReviewer).action, s(ReviewAnswer::NoReviewer).by), (Action::Deny, DecidedBy::Headless));
    // Allow once leaves no trace.
    assert_eq!(e.decide(&a, &op).verdict, Verdict::Review);
    // Allow for the session: the same operation is allowed by the session rule from now on.
    let d = e.settle_review(&a, &op, &pending, ReviewAnswer::AllowSession);
    assert_eq!(d.action, Action::Allow);
    let again = e.decide(&actor(11, "/usr/bin/head"), &op);
    assert_eq!((again.action, again.by), (Action::Allow, DecidedBy::SessionRule));
    // Another file is still reviewed.
    assert_eq!(e.decide(&a, &read("/work/proj/app/.env")).verdict, Verdict::Review);
}

#[test]
fn headless_allow_when_configured() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(Some("generic"), dir.path());
    write_file(&req.user_config, "headless = \"allow\"\n");
    let e = Engine::new(&load(&req).unwrap(), PROJECT.into(), HOME.into());
    let a = actor(10, "/usr/bin/cat");
    let op = read("/work/proj/.env");
    let d = e.settle_review(&a, &op, &e.decide(&a, &op), ReviewAnswer::NoReviewer);
    assert_eq!((d.action, d.by), (Action::Allow, DecidedBy::Headless));
}

#[test]
fn always_is_written_to_the_user_config_and_applies_next_session() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(Some("generic"), dir.path());
    write_file(&req.user_config, "# my settings\nreview_timeout = 60");
    let a = actor(10, "/usr/bin/node");
    let ops = [read("/work/proj/.env"), exec(&["sudo", "apt-get", "install", "-y", "jq"]), connect("127.0.0.1:5432", None)];
    {
        let e = Engine::new(&load(&req).unwrap(), PROJECT.into(), HOME.into());
        for op in &ops {
            let pending = e.decide(&a, op);
            assert_eq!(pending.verdict, Verdict::Review, "{op:?}: {:?}", pending.filters);
            let d = e.settle_review(&a, op, &pending, ReviewAnswer::AllowAlways);
            assert_eq!(d.action, Action::Allow);
            assert!(d.filters.iter().all(|h| h.filter != "review"), "{:?}", d.filters);
        }
    }
    let text = std::fs::read_to_string(&req.user_config).unwrap();
    assert!(text.starts_with("# my settings\nreview_timeout = 60\n"), "{text}");
    assert_eq!(text.matches("[[approved]]").count(), 3, "{text}");
    // Next session: loaded from the file, allowed without a review.
    let r = load(&req).unwrap();
    assert_eq!(r.approved.len(), 3);
    let e = Engine::new(&r, PROJECT.into(), HOME.into());
    for op in &ops {
        let d = e.decide(&a, op);
        assert_eq!((d.action, d.verdict), (Action::Allow, Verdict::Allow), "{op:?}");
        assert_eq!(d.filters[0].filter, "approved");
    }
    // Only that exact operation.
    assert_eq!(e.decide(&a, &exec(&["sudo", "rm", "x"])).verdict, Verdict::Review);
    assert_eq!(e.decide(&a, &connect("127.0.0.1:5433", None)).verdict, Verdict::Review);
}

#[test]
fn audit_mode_records_the_verdict_and_allows() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(Some("generic"), dir.path());
    req.cli.mode = Some(ward_policy::Mode::Audit);
    let e = Engine::new(&load(&req).unwrap(), PROJECT.into(), HOME.into());
    let d = e.decide(&actor(1, "/usr/bin/cat"), &read("/home/u/.ssh/id_rsa"));
    assert_eq!((d.action, d.verdict, d.by), (Action::Allow, Verdict::Deny, DecidedBy::AuditMode));
    assert!(d.filters.iter().any(|h| h.filter == "sensitive-path"));
}

#[test]
fn same_operation_same_state_same_decision() {
    let a = engine("claude-code");
    let b = engine("claude-code");
    let who = actor(5, "/usr/bin/node");
    for op in [read("/home/u/.npmrc"), exec(&["bash", "-lc", "git status && curl x | sh"]), connect("1.2.3.4:443", Some("api.anthropic.com")), write("/etc/passwd")] {
        assert_eq!(a.decide(&who, &op), b.decide(&who, &op));
    }
}
