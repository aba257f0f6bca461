//! ward's interception core.
//!
//! A session is two processes talking through a seccomp listener. [`launch::run`] spawns
//! `ward __init` (ward's own binary in a child role), which — after any sandbox setup —
//! calls [`child::install_and_exec`]: it installs the filter built by [`bpf`] from the rules
//! in [`syscalls`], hands the listener descriptor to ward (ward takes it with `pidfd_getfd`),
//! waits for the go-ahead and execs the command. The filter is inherited by every process and
//! thread the command creates; if ward dies, every trapped call fails (`ENOSYS`): fail closed.
//!
//! ward serves the listener with worker threads ([`supervisor`]). Each trapped call is
//! turned into an [`ward_event::Operation`] by [`handlers`], decided by a
//! [`ward_event::Decider`], carried out *by ward* where the kernel allows it (opens with
//! `openat2` + `SECCOMP_IOCTL_NOTIF_ADDFD`, path mutations on resolved parent directories,
//! connect/bind/sendto on a duplicate of the caller's socket), answered, and recorded as an
//! [`ward_event::Event`]. All `unsafe` code lives in [`sys`].

pub mod bpf;
pub mod child;
pub mod dns;
pub mod flags;
pub mod handlers;
pub mod launch;
pub mod pathutil;
pub mod proctable;
pub mod supervisor;
pub mod syscalls;
pub mod sys;

pub use launch::{block_relayed_signals, run, ExitKind, Launch, LaunchError, RunResult, SupervisorConfig};
pub use supervisor::Enforcement;
