//! `process-census`: one process reading `/proc/<pid>/…` of many other processes within a
//! window (a sweep of the process table, as agents do looking for environments). More than
//! `limits.census_pids` distinct other pids in `limits.census_window_secs` scores 50 for
//! each further read. Process viewers (`ps`, `top`, `pgrep`, …) are exempt: listing
//! processes is their job (their reads of `environ` are still caught by `sensitive-path`).

use crate::engine::{Ctx, FilterResult, Hits, State};
use crate::paths::{basename, proc_pid_file};

/// Score once the census limit is passed.
pub const SWEEP: i32 = 50;

const VIEWERS: &[&[u8]] = &[b"ps", b"top", b"htop", b"btop", b"pgrep", b"pkill", b"pidof", b"procs", b"killall", b"pstree", b"w", b"fuser", b"lsof"];

pub(crate) fn check(ctx: &Ctx<'_>, st: &mut State, hits: &mut Hits) -> FilterResult {
    let Some((pid, _)) = ctx.path.and_then(proc_pid_file) else { return Ok(()) };
    if pid == ctx.actor.pid || pid == ctx.actor.tid {
        return Ok(());
    }
    if VIEWERS.contains(&basename(ctx.actor.exe.as_bytes())) {
        return Ok(());
    }
    let limits = &ctx.c.limits;
    let window_ns = u64::from(limits.census_window_secs.max(1)) * 1_000_000_000;
    let w = st.census.entry(ctx.actor.pid).or_default();
    if ctx.now_ns.saturating_sub(w.start_ns) > window_ns || w.pids.is_empty() {
        w.start_ns = ctx.now_ns;
        w.pids.clear();
    }
    w.pids.insert(pid);
    let n = w.pids.len();
    if n > limits.census_pids as usize {
        hits.add(
            super::CENSUS,
            SWEEP,
            format!(
                "process census: /proc of {n} other processes read within {}s (limit {})",
                limits.census_window_secs, limits.census_pids
            ),
        );
    }
    // Keep the map small: forget processes whose window is long over.
    if st.census.len() > 4096 {
        let now = ctx.now_ns;
        st.census.retain(|_, w| now.saturating_sub(w.start_ns) <= window_ns);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn a_sweep_trips_after_the_limit() {
        let e = engine("generic");
        let a = actor(10, "/usr/bin/node");
        for pid in 1000..1032 {
            let d = e_decide(&e, &a, &read(&format!("/proc/{pid}/stat")));
            assert_eq!(d.verdict, Verdict::Allow, "pid {pid}");
        }
        let d = e_decide(&e, &a, &read("/proc/2000/status"));
        assert_eq!(score_in(&d, "process-census"), 50);
        assert_eq!(d.verdict, Verdict::Review);
        // Re-reading the same pids does not count twice; another process has its own count.
        let b = actor(11, "/usr/bin/python3");
        assert_eq!(e_decide(&e, &b, &read("/proc/1000/stat")).verdict, Verdict::Allow);
    }

    #[test]
    fn ps_is_exempt_and_own_pid_is_not_counted() {
        let e = engine("generic");
        let ps = actor(10, "/usr/bin/ps");
        for pid in 1000..1100 {
            assert_eq!(score_in(&e_decide(&e, &ps, &read(&format!("/proc/{pid}/stat"))), "process-census"), 0);
        }
        let a = actor(20, "/usr/bin/node");
        for _ in 0..100 {
            assert_eq!(e_decide(&e, &a, &read("/proc/20/stat")).verdict, Verdict::Allow);
        }
    }
}
