//! What ward knows about the processes of the tree: thread → process, parent, executable,
//! credentials, and the exec it must verify.
//!
//! Facts are read from `/proc/TID/status` the first time a thread makes a trapped call and
//! cached; an exec invalidates the process's entry. Parsing is pure and tested from text.

use std::collections::HashMap;
use std::sync::Mutex;
use ward_event::{Actor, PathBytes};

/// Parsed fields of `/proc/TID/status`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// Thread group id (the process id).
    pub tgid: i32,
    /// Parent process id.
    pub ppid: i32,
    /// Filesystem uid.
    pub fsuid: u32,
    /// Filesystem gid.
    pub fsgid: u32,
    /// Supplementary groups.
    pub groups: Vec<u32>,
    /// File creation mask.
    pub umask: u32,
    /// Process id in the innermost pid namespace.
    pub ns_tgid: i32,
    /// Thread id in the innermost pid namespace.
    pub ns_tid: i32,
    /// Number of threads.
    pub threads: u32,
}

/// Parses the text of `/proc/TID/status`.
pub fn parse_status(text: &str) -> Option<Status> {
    let mut s = Status::default();
    let mut seen_tgid = false;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let last = |v: &str| v.split_whitespace().last().and_then(|x| x.parse::<i32>().ok());
        match key {
            "Tgid" => {
                s.tgid = value.parse().ok()?;
                seen_tgid = true;
            }
            "PPid" => s.ppid = value.parse().ok()?,
            "Umask" => s.umask = u32::from_str_radix(value, 8).ok()?,
            "Uid" => s.fsuid = value.split_whitespace().nth(3)?.parse().ok()?,
            "Gid" => s.fsgid = value.split_whitespace().nth(3)?.parse().ok()?,
            "Groups" => {
                s.groups = value
                    .split_whitespace()
                    .filter_map(|g| g.parse().ok())
                    .collect()
            }
            "NStgid" => s.ns_tgid = last(value)?,
            "NSpid" => s.ns_tid = last(value)?,
            "Threads" => s.threads = value.parse().ok()?,
            _ => {}
        }
    }
    if !seen_tgid {
        return None;
    }
    if s.ns_tgid == 0 {
        s.ns_tgid = s.tgid;
    }
    Some(s)
}

/// An exec ward let through and must verify at the process's next trapped call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingExec {
    /// (dev, inode) of what ward checked, or of the script's interpreter.
    pub expected: (u64, u64),
    /// (dev, inode) of the executable before the exec (a failed exec leaves it in place).
    pub before: (u64, u64),
    /// The checked path, for the event if verification fails.
    pub path: PathBytes,
}

/// Cached facts about one process.
#[derive(Debug, Clone)]
pub struct ProcFacts {
    /// `/proc/PID/status` fields.
    pub status: Status,
    /// Executable.
    pub exe: PathBytes,
}

#[derive(Default)]
struct Inner {
    /// thread id → process id
    threads: HashMap<i32, i32>,
    /// process id → facts
    procs: HashMap<i32, ProcFacts>,
    /// process id → exec to verify
    pending: HashMap<i32, PendingExec>,
    /// process id → pidfd (for pidfd_getfd), opened on first use
    pidfds: HashMap<i32, std::sync::Arc<std::os::fd::OwnedFd>>,
}

/// The process table, shared by the worker threads.
#[derive(Default)]
pub struct ProcTable {
    inner: Mutex<Inner>,
}

/// The process and thread ids of a `/proc/TID/status` at every pid-namespace level, from the
/// reader's namespace inwards (`NStgid`, `NSpid`).
pub fn parse_ns_ids(text: &str) -> Option<(Vec<i32>, Vec<i32>)> {
    let ids = |key: &str| -> Option<Vec<i32>> {
        let line = text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?;
        line.split_whitespace().map(|x| x.parse().ok()).collect()
    };
    let (tgids, tids) = (ids("NStgid")?, ids("NSpid")?);
    (tgids.len() == tids.len() && !tgids.is_empty()).then_some((tgids, tids))
}

/// The start time (clock ticks after boot, field 22) in the text of a `/proc/PID/stat`.
pub fn parse_start_time(stat: &str) -> Option<u64> {
    // The command name (field 2) may hold anything, ')' included: fields follow the last ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Reads a thread's status and its process's executable.
pub fn read_facts(tid: i32) -> Option<ProcFacts> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let status = parse_status(&text)?;
    let exe = std::fs::read_link(format!("/proc/{}/exe", status.tgid))
        .map(PathBytes::from)
        .unwrap_or_default();
    Some(ProcFacts { status, exe })
}

impl ProcTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Facts about thread `tid`, from the cache or `/proc`.
    pub fn facts(&self, tid: i32) -> Option<ProcFacts> {
        {
            let inner = self.lock();
            if let Some(pid) = inner.threads.get(&tid) {
                if let Some(f) = inner.procs.get(pid) {
                    return Some(f.clone());
                }
            }
        }
        let facts = read_facts(tid)?;
        let mut inner = self.lock();
        inner.threads.insert(tid, facts.status.tgid);
        inner.procs.insert(facts.status.tgid, facts.clone());
        Some(facts)
    }

    /// The process a cached thread belongs to (without reading `/proc`).
    pub fn pid_of(&self, tid: i32) -> Option<i32> {
        let inner = self.lock();
        if inner.pending.is_empty() {
            return None;
        }
        inner.threads.get(&tid).copied().or(Some(tid))
    }

    /// The actor for thread `tid` (a placeholder with only the tid when `/proc` is gone).
    pub fn actor(&self, tid: i32) -> (Actor, Option<ProcFacts>) {
        match self.facts(tid) {
            Some(f) => (
                Actor {
                    pid: f.status.tgid,
                    tid,
                    ppid: f.status.ppid,
                    exe: f.exe.clone(),
                },
                Some(f),
            ),
            None => (
                Actor {
                    pid: tid,
                    tid,
                    ppid: 0,
                    exe: PathBytes::default(),
                },
                None,
            ),
        }
    }

    /// A pidfd of process `pid`, cached (`fresh` forces a new one: the cached one may belong
    /// to an earlier process with the same number).
    pub fn pidfd(&self, pid: i32, fresh: bool) -> std::io::Result<std::sync::Arc<std::os::fd::OwnedFd>> {
        if !fresh {
            if let Some(fd) = self.lock().pidfds.get(&pid) {
                return Ok(fd.clone());
            }
        }
        let fd = std::sync::Arc::new(crate::sys::pidfd_open(pid)?);
        let mut inner = self.lock();
        if inner.pidfds.len() >= 256 {
            // Bounded: drop the pidfds of processes that have exited (readable), and all of
            // them if that is not enough — they are only a cache.
            use std::os::fd::AsFd;
            inner.pidfds.retain(|_, f| {
                crate::sys::poll_readable(&[f.as_fd()], 0).map(|r| r.is_empty()).unwrap_or(false)
            });
            if inner.pidfds.len() >= 256 {
                inner.pidfds.clear();
            }
        }
        inner.pidfds.insert(pid, fd.clone());
        Ok(fd)
    }

    /// Forgets process `pid` (it exec'd or exited): the next call re-reads `/proc`.
    pub fn forget_process(&self, pid: i32) {
        let mut inner = self.lock();
        inner.procs.remove(&pid);
        inner.threads.retain(|_, p| *p != pid);
    }

    /// Re-reads a process's parent (after its parent exited).
    pub fn refresh_children_of(&self, parent: i32) {
        let mut inner = self.lock();
        let stale: Vec<i32> = inner
            .procs
            .iter()
            .filter(|(_, f)| f.status.ppid == parent)
            .map(|(p, _)| *p)
            .collect();
        for p in stale {
            inner.procs.remove(&p);
            inner.threads.retain(|_, x| *x != p);
        }
    }

    /// Records an exec to verify.
    pub fn set_pending_exec(&self, pid: i32, pending: PendingExec) {
        self.lock().pending.insert(pid, pending);
    }

    /// Takes the exec to verify for `pid`, if any.
    pub fn take_pending_exec(&self, pid: i32) -> Option<PendingExec> {
        let mut inner = self.lock();
        if inner.pending.is_empty() {
            return None;
        }
        inner.pending.remove(&pid)
    }

    /// Number of processes cached.
    pub fn len(&self) -> usize {
        self.lock().procs.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `pid` descends from `ancestor` (or is it), following `PPid` in `/proc`.
pub fn descends_from(pid: i32, ancestor: i32) -> bool {
    let mut cur = pid;
    for _ in 0..4096 {
        if cur == ancestor {
            return true;
        }
        if cur <= 1 {
            return false;
        }
        let Ok(text) = std::fs::read_to_string(format!("/proc/{cur}/status")) else {
            return false;
        };
        match parse_status(&text) {
            Some(s) => cur = s.ppid,
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\nNgid:\t0\nPid:\t4243\nPPid:\t4200\nTracerPid:\t0\nUid:\t1000\t1000\t1000\t1001\nGid:\t100\t100\t100\t102\nFDSize:\t64\nGroups:\t24 27 100 \nNStgid:\t4242\t7\nNSpid:\t4243\t8\nThreads:\t2\n";

    #[test]
    fn parses_status() {
        let s = parse_status(SAMPLE).unwrap();
        assert_eq!(
            s,
            Status {
                tgid: 4242,
                ppid: 4200,
                fsuid: 1001,
                fsgid: 102,
                groups: vec![24, 27, 100],
                umask: 0o022,
                ns_tgid: 7,
                ns_tid: 8,
                threads: 2,
            }
        );
    }

    #[test]
    fn garbage_status_is_none() {
        assert!(parse_status("").is_none());
        assert!(parse_status("Tgid:\tx\n").is_none());
    }

    #[test]
    fn own_process_is_readable_and_descends_from_itself() {
        let me = std::process::id() as i32;
        let f = read_facts(me).unwrap();
        assert_eq!(f.status.tgid, me);
        assert!(descends_from(me, me));
        assert!(descends_from(me, f.status.ppid));
        assert!(!descends_from(1, me));
    }

    #[test]
    fn namespace_ids_and_start_time() {
        assert_eq!(parse_ns_ids(SAMPLE), Some((vec![4242, 7], vec![4243, 8])));
        assert_eq!(parse_ns_ids("NStgid:\t5\n"), None);
        let stat = "4242 (a) b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(parse_start_time(stat), Some(987654));
        assert_eq!(parse_start_time("4242 (x"), None);
    }
}
