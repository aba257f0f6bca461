//! The notification loop: worker threads receive the tree's trapped calls, turn each into an
//! operation, ask the [`Decider`], carry the call out (or refuse it), answer the kernel and
//! hand the finished [`Event`] to the [`EventSink`].
//!
//! Reviews never block a worker: a call the policy wants reviewed is parked on its own thread
//! (only the calling thread of the tree waits) while the workers go on serving everyone else.

use crate::handlers::{self, Handled, Perform, Reply};
use crate::proctable::ProcTable;
use crate::sys;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use ward_event::{
    Action, Actor, DecidedBy, Decider, Decision, Event, EventSink, Operation, Outcome, Reviewer,
    Timestamp, Verdict,
};

/// How the supervisor treats the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    /// Allow everything (record what the policy would have said).
    Audit,
    /// Act on decisions.
    Enforce,
}

/// Counters for the session summary.
#[derive(Debug, Default)]
pub struct Stats {
    /// Notifications served.
    pub notifications: AtomicU64,
    /// Events recorded.
    pub events: AtomicU64,
    /// Calls denied.
    pub denied: AtomicU64,
    /// Processes killed because an exec did not run what was checked.
    pub exec_mismatch: AtomicU64,
}

/// State shared by the workers.
pub struct Shared {
    /// The seccomp listener.
    pub listener: OwnedFd,
    /// The policy.
    pub decider: Arc<dyn Decider>,
    /// Who answers reviews.
    pub reviewer: Arc<dyn Reviewer>,
    /// Where events go.
    pub sink: Arc<dyn EventSink>,
    /// Audit or enforce.
    pub enforcement: Enforcement,
    /// Process facts.
    pub procs: ProcTable,
    /// The tree's root directory as ward opens it (`/` or the sandbox's root).
    pub root: OwnedFd,
    /// Whether the tree has its own root (sandbox) so paths are resolved textually in it.
    pub own_root: bool,
    /// Set once a process of the tree may have left the tree's root or mount namespace (a
    /// chroot, pivot_root, setns, or unshare/clone with namespace flags was let through, as
    /// audit mode does): from then on absolute paths are resolved from each caller's own
    /// `/proc/TID/root`, which is its root in its own mount namespace, instead of [`root`].
    ///
    /// [`root`]: Shared::root
    pub roots_vary: AtomicBool,
    /// Whether the tree has its own pid namespace (signals cannot leave it).
    pub own_pid_ns: bool,
    /// ward's pid.
    pub ward_pid: i32,
    /// ward's process group.
    pub ward_pgrp: i32,
    /// The root process of the tree (after its exec: the agent).
    pub root_pid: i32,
    /// Counters.
    pub stats: Stats,
    /// Set when the session is over.
    pub stopping: AtomicBool,
    /// Addresses learnt from DNS: ip → name.
    pub dns: Mutex<std::collections::HashMap<std::net::IpAddr, String>>,
    /// Called when a direct child of the root process execs (a new command of the agent).
    pub on_command_seen: Option<Box<dyn Fn(i32) + Send + Sync>>,
    /// (dev, inode) of the sensitive files: a hard link elsewhere is still the secret.
    pub sensitive_inodes: std::collections::HashSet<(u64, u64)>,
    /// The agent's running commands: pid and pidfd (readable once it exits).
    pub commands: Mutex<Vec<(i32, OwnedFd)>>,
    /// Called when one of the agent's commands has ended; returns operations to record.
    pub command_exit_hook: Option<Mutex<Box<dyn FnMut(i32) -> Vec<Operation> + Send>>>,
}

/// One received notification.
#[derive(Debug, Clone, Copy)]
pub struct Notif {
    /// Kernel id.
    pub id: u64,
    /// Calling thread (in ward's pid namespace).
    pub tid: i32,
    /// Syscall number.
    pub nr: i32,
    /// Arguments.
    pub args: [u64; 6],
    /// When ward received it.
    pub ts: Timestamp,
}

impl Shared {
    /// Answers a notification with a [`Reply`]; returns the call's outcome as the tree sees it.
    pub fn respond(&self, id: u64, reply: Reply) -> Outcome {
        let fd = self.listener.as_fd();
        match reply {
            Reply::Errno(e) => {
                let _ = sys::notif_send(fd, id, 0, e, false);
                Outcome::Err(e)
            }
            Reply::Value(v) => {
                let _ = sys::notif_send(fd, id, v, 0, false);
                Outcome::Ok(Some(v))
            }
            Reply::Continue => {
                let _ = sys::notif_send(fd, id, 0, 0, true);
                Outcome::Ok(None)
            }
            Reply::InjectFd { fd: src, cloexec } => {
                match sys::notif_addfd(fd, id, src.as_fd(), cloexec, true) {
                    Ok(n) => Outcome::Ok(Some(n as i64)),
                    Err(e) => {
                        let errno = e.raw_os_error().unwrap_or(libc::EIO);
                        // ENOENT: the caller was interrupted or died; nothing to answer.
                        if errno != libc::ENOENT {
                            let _ = sys::notif_send(fd, id, 0, errno, false);
                        }
                        Outcome::Err(errno)
                    }
                }
            }
        }
    }

    /// Records a finished operation.
    pub fn record(&self, ts: Timestamp, actor: Actor, op: Operation, outcome: Outcome, decision: Decision) {
        if decision.action == Action::Deny {
            self.stats.denied.fetch_add(1, Ordering::Relaxed);
        }
        let event = Event {
            session: String::new(),
            seq: 0,
            ts,
            actor,
            op,
            outcome,
            decision,
            hash: None,
        };
        self.decider.observe(&event);
        self.stats.events.fetch_add(1, Ordering::Relaxed);
        self.sink.record(event);
    }

    /// Registers a new command of the agent (a direct child of the root that exec'd), after
    /// settling the commands that ended before it: their clean-up runs before it starts.
    pub fn command_started(&self, pid: i32) {
        self.reap_commands();
        if self.command_exit_hook.is_none() {
            return;
        }
        let mut cmds = self.commands.lock().unwrap_or_else(|p| p.into_inner());
        if cmds.iter().any(|(p, _)| *p == pid) {
            return;
        }
        if let Ok(fd) = sys::pidfd_open(pid) {
            cmds.push((pid, fd));
        }
    }

    /// Raw pidfds of the running commands (for the main loop's poll).
    pub fn command_pidfds(&self) -> Vec<i32> {
        use std::os::fd::AsRawFd;
        let cmds = self.commands.lock().unwrap_or_else(|p| p.into_inner());
        cmds.iter().map(|(_, fd)| fd.as_raw_fd()).collect()
    }

    /// Runs the exit hook for every command that has ended.
    pub fn reap_commands(&self) {
        let Some(hook) = &self.command_exit_hook else {
            return;
        };
        let mut cmds = self.commands.lock().unwrap_or_else(|p| p.into_inner());
        let mut ended = Vec::new();
        cmds.retain(|(pid, fd)| {
            let gone = sys::poll_readable(&[fd.as_fd()], 0).map(|r| !r.is_empty()).unwrap_or(true);
            if gone {
                ended.push(*pid);
            }
            !gone
        });
        let mut hook = hook.lock().unwrap_or_else(|p| p.into_inner());
        for pid in ended {
            for op in hook(pid) {
                self.record(
                    Timestamp::now(),
                    Actor { pid: self.ward_pid, tid: self.ward_pid, ppid: 0, exe: ward_event::PathBytes::from("ward") },
                    op,
                    Outcome::Ok(None),
                    Decision::allow(DecidedBy::Builtin),
                );
            }
        }
        drop(cmds);
    }

    /// The decision for an operation ward refuses on its own authority (escape attempts).
    pub fn builtin(&self, filter: &str, reason: &str) -> Decision {
        let mut d = Decision::builtin_deny(filter, reason);
        if self.enforcement == Enforcement::Audit {
            d.action = Action::Allow;
            d.by = DecidedBy::AuditMode;
        }
        d
    }

    fn decide(&self, actor: &Actor, op: &Operation) -> Decision {
        // A decider that panics must not take a worker down: the call is denied.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.decider.decide(actor, op))) {
            Ok(d) => d,
            Err(_) => {
                let mut d = Decision::builtin_deny("policy-error", "the policy failed on this operation");
                if self.enforcement == Enforcement::Audit {
                    d.action = Action::Allow;
                    d.by = DecidedBy::AuditMode;
                }
                d
            }
        }
    }
}

/// Serves notifications until the session stops.
pub fn worker_loop(sh: Arc<Shared>) {
    let _ = sys::unshare_fs_attributes();
    let mut raw = sys::empty_notif();
    loop {
        if sh.stopping.load(Ordering::Acquire) {
            return;
        }
        match sys::notif_recv(sh.listener.as_fd(), &mut raw) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(_) => {
                // Once the last process using the filter is gone the listener hangs up and
                // every receive fails at once: nothing more can come, so stop rather than spin.
                // (ENOENT without a hang-up: the caller died between wake-up and receive.)
                if sys::hung_up(sh.listener.as_fd()) {
                    return;
                }
                std::thread::yield_now();
                continue;
            }
        }
        sh.stats.notifications.fetch_add(1, Ordering::Relaxed);
        let n = Notif {
            id: raw.id,
            tid: raw.pid as i32,
            nr: raw.data.nr,
            args: raw.data.args,
            ts: Timestamp::now(),
        };
        serve(&sh, n);
    }
}

fn serve(sh: &Arc<Shared>, n: Notif) {
    let handled = handlers::handle(sh, &n);
    match handled {
        Handled::Quiet(reply) => {
            sh.respond(n.id, reply);
        }
        Handled::Op {
            actor,
            op,
            perform,
            deny_errno,
            decision,
        } => {
            let decision = match decision {
                Some(d) => d,
                None => sh.decide(&actor, &op),
            };
            if decision.by == DecidedBy::Policy && decision.verdict == Verdict::Review {
                let sh2 = Arc::clone(sh);
                let spawned = std::thread::Builder::new()
                    .name("ward-review".into())
                    .spawn(move || {
                        let answer = sh2.reviewer.review(&actor, &op, &decision);
                        let settled = sh2.decider.settle_review(&actor, &op, &decision, answer);
                        finish(&sh2, n, actor, op, perform, deny_errno, settled);
                    });
                if spawned.is_err() {
                    // Could not park the call: fail closed.
                    let _ = sys::notif_send(sh.listener.as_fd(), n.id, 0, deny_errno, false);
                }
            } else {
                finish(sh, n, actor, op, perform, deny_errno, decision);
            }
        }
    }
}

/// Carries out (or refuses) a decided call, answers the kernel and records the event.
pub fn finish(
    sh: &Arc<Shared>,
    n: Notif,
    actor: Actor,
    mut op: Operation,
    perform: Perform,
    deny_errno: i32,
    decision: Decision,
) {
    // The event is recorded before the answer wherever the outcome is known beforehand, so
    // one thread's events reach the audit trail in the order it made the calls.
    let reply = if decision.action == Action::Deny {
        drop(perform);
        Reply::Errno(deny_errno)
    } else {
        match perform {
            Perform::Reply(reply) => reply,
            Perform::Now(f) => {
                let (reply, note) = f(sh);
                if let Some(note) = note {
                    op.detail = Some(note);
                }
                reply
            }
            Perform::Deferred(f) => {
                // A call that may block (FIFO open, blocking connect): its own thread.
                let sh2 = Arc::clone(sh);
                let spawned = std::thread::Builder::new()
                    .name("ward-blocking".into())
                    .spawn(move || {
                        let mut op = op;
                        let (reply, note) = f(&sh2);
                        if let Some(note) = note {
                            op.detail = Some(note);
                        }
                        answer_and_record(&sh2, n, actor, op, reply, decision);
                    });
                if spawned.is_err() {
                    let _ = sys::notif_send(sh.listener.as_fd(), n.id, 0, libc::EAGAIN, false);
                }
                return;
            }
        }
    };
    answer_and_record(sh, n, actor, op, reply, decision);
}

fn answer_and_record(sh: &Shared, n: Notif, actor: Actor, op: Operation, reply: Reply, decision: Decision) {
    match reply {
        Reply::InjectFd { .. } => {
            // Installing the descriptor and answering is one ioctl (ADDFD_FLAG_SEND); the
            // event follows it. The audit writer orders each batch by the time ward received
            // the calls, so one thread's events keep their order.
            let outcome = sh.respond(n.id, reply);
            sh.record(n.ts, actor, op, outcome, decision);
        }
        Reply::Errno(e) => {
            sh.record(n.ts, actor, op, Outcome::Err(e), decision);
            sh.respond(n.id, reply);
        }
        Reply::Value(v) => {
            sh.record(n.ts, actor, op, Outcome::Ok(Some(v)), decision);
            sh.respond(n.id, reply);
        }
        Reply::Continue => {
            sh.record(n.ts, actor, op, Outcome::Ok(None), decision);
            sh.respond(n.id, reply);
        }
    }
}
