//! `rate`: token buckets on execs, outgoing connections (beyond loopback) and deletions, per
//! session. Past the sustained rate plus the burst (`[limits]`), each further operation
//! scores 50 until the bucket refills. The defaults (200 execs/s with a burst of 2000, 50
//! connects/s with 500, 1000 deletions/s with 20000) leave builds and test suites alone and
//! catch runaway loops and mass exfiltration.

use crate::engine::{Ctx, FilterResult, Hits, State};
use ward_event::OpKind;

/// Score past a limit.
pub const OVER: i32 = 50;

pub(crate) fn check(ctx: &Ctx<'_>, st: &mut State, hits: &mut Hits) -> FilterResult {
    let l = &ctx.c.limits;
    let now = ctx.now_ns;
    let (slot, per_sec, burst, what) = match ctx.kind {
        OpKind::ProcExec => (&mut st.exec_bucket, l.exec_per_sec, l.exec_burst, "execs"),
        OpKind::FileDelete => (&mut st.delete_bucket, l.delete_per_sec, l.delete_burst, "deletions"),
        OpKind::NetConnect | OpKind::NetSend => {
            let loopback = ctx.op.addr.as_ref().is_none_or(|a| a.is_loopback() || a.is_unix());
            if loopback {
                return Ok(());
            }
            (&mut st.connect_bucket, l.connect_per_sec, l.connect_burst, "connections")
        }
        _ => return Ok(()),
    };
    if !State::bucket(slot).take(now, per_sec, burst) {
        hits.add(super::RATE, OVER, format!("more than {per_sec} {what} per second after a burst of {burst}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::engine::Bucket;
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn bucket_refills_over_time() {
        let mut b = Bucket::new();
        for _ in 0..10 {
            assert!(b.take(0, 5, 10));
        }
        assert!(!b.take(0, 5, 10));
        assert!(b.take(1_000_000_000, 5, 10));
    }

    #[test]
    fn two_hundred_fork_execs_do_not_trip_and_a_runaway_loop_does() {
        let e = engine("generic");
        for i in 0..200 {
            let d = decide(&e, &exec(&["true", &i.to_string()]));
            assert_eq!(d.verdict, Verdict::Allow);
        }
        let e = engine_with("generic", "[limits]\nexec_per_sec = 1\nexec_burst = 5\n");
        let verdicts: Vec<_> = (0..7).map(|_| decide(&e, &exec(&["true"])).verdict).collect();
        assert_eq!(verdicts[..5], [Verdict::Allow; 5]);
        assert_eq!(verdicts[6], Verdict::Review);
    }
}
