//! ward's sandbox: the walls around a supervised tree that hold even if the supervisor were
//! wrong, and the git hardening that runs after every command.
//!
//! # How the pieces fit
//!
//! ward (the multi-threaded supervisor) spawns `ward __init`, a fresh single-threaded
//! re-exec of itself. There the supervisor's code calls:
//!
//! 1. [`enter`] with a [`SandboxPlan`]. For [`SandboxMode::WorkspaceWrite`] and
//!    [`SandboxMode::ReadOnly`] it builds, bubblewrap-style but natively:
//!
//!    ```text
//!    ward (supervisor)
//!     └─ P1  `ward __init`: unshare(user, mount, pid, ipc, uts [, net]); uid/gid maps;
//!         │  stays as a monitor: forwards signals sent to it, exits with C's status
//!         └─ C   pid 1 of the new pid namespace: forwards signals, reaps, exits with the
//!             │  command's status (128+N if killed); when it exits the kernel kills the rest
//!             └─ D  the command-to-be: read-only root, writable project/tmp/extra roots,
//!                   protected paths re-bound read-only, secrets masked, fresh /proc, minimal
//!                   /dev, pivot_root, Landlock; `enter` RETURNS HERE with D's pid as seen
//!                   from ward's pid namespace
//!    ```
//!
//!    P1 and C never return from `enter`. [`SandboxMode::LandlockOnly`] applies Landlock in
//!    the calling process and returns its own pid; [`SandboxMode::Off`] returns at once.
//! 2. [`seal`], in the returned process, right before the supervisor's notification filter:
//!    `no_new_privs`, no capabilities (kept in [`SandboxMode::Off`]), and the static seccomp
//!    wall of [`wall`]. With `plan.supervised` (the default) the wall lets exactly one
//!    `seccomp(NEW_LISTENER)` kind of call through: the supervisor's own, which must follow.
//!
//! Then the supervisor's code installs its user-notification filter and execs the command.
//!
//! ```no_run
//! # fn install_notify_filter_and_exec(_pid: i32) {}
//! # let plan: ward_sandbox::SandboxPlan = unimplemented!();
//! // In `ward __init` (single-threaded), `plan` received from ward:
//! let entered = ward_sandbox::enter(&plan).and_then(|e| ward_sandbox::seal(&plan).map(|()| e));
//! match entered {
//!     // D (or P1 itself for landlock-only/off): ward does pidfd_open(entered.pid) +
//!     // pidfd_getfd to take the listener; it reads files through /proc/<pid>/root.
//!     Ok(entered) => install_notify_filter_and_exec(entered.pid),
//!     Err(e) => { eprintln!("ward: {e}"); std::process::exit(125) }
//! }
//! ```
//!
//! Facts the caller relies on:
//!
//! - the exit status of P1 (the process ward spawned) is the command's: its code, or 128+N
//!   when a signal N killed it; 125 if the sandbox machinery itself failed after forking;
//! - a signal *sent* to P1 (`kill`) is passed on to C and from there to the command; signals
//!   from the terminal are not (the command is in the same process group and gets them
//!   directly, so Ctrl-C arrives once);
//! - C dies with P1 (`PR_SET_PDEATHSIG`), and everything in the pid namespace dies with C; for
//!   P1 to die with ward, spawn `ward __init` with `PR_SET_PDEATHSIG` from a thread that lives
//!   as long as the session;
//! - P1 and C hold none of the caller's descriptors (stdin/stdout point at `/dev/null`, only
//!   stderr is kept), so a pipe whose EOF ward waits for closes when the command closes it;
//! - only D's view has the sandbox: inside, `/tmp` is private (sockets there, such as
//!   `SSH_AUTH_SOCK` under `/tmp/ssh-*`, are not reachable; point `TMPDIR` at `/tmp`), and
//!   everything outside the writable roots is read-only;
//! - opening through `/proc/<pid>/root` sees the masks: to serve a read of a secret a person
//!   approved, ward must open the path from its own root, not the tree's;
//! - [`default_sockets`] lists unix sockets worth masking like secrets (container engines, the
//!   session bus, keyrings, agents): add them to `plan.secrets`.
//!
//! # Which wall stops what
//!
//! - **Mounts** are the wall for opens: ward's supervisor performs open-family calls itself
//!   through `/proc/<pid>/root`, so the mount layout (read-only binds, masked secrets) applies
//!   to them, while the target's Landlock domain does not (ward's thread is not in it).
//! - **Landlock** is the second wall for what the target does itself (exec, stat-like calls,
//!   anything the supervisor does not emulate). It grants read and execute everywhere except
//!   the secret paths, and write only in the writable roots (see [`layout`]).
//! - **The static seccomp wall** ([`wall`]) kills foreign-arch and x32 calls and refuses
//!   system calls ward never needs to see; for calls the supervisor traps itself it uses
//!   `SECCOMP_RET_TRACE`, which yields to the supervisor's `USER_NOTIF`.
//! - **Namespaces**: a pid namespace (nothing outside can be seen or signalled), a network
//!   namespace when the network is off (loopback inside works, nothing outside is reachable),
//!   IPC and UTS namespaces.
//!
//! Known limits, by design: a protected or secret path that does not exist when the session
//! starts cannot be bound over (no stub files are ever created in the user's tree); those are
//! the supervisor's policy to judge, and [`git::GitGuard`] cleans up planted git metadata after
//! each command. Secrets *inside* a writable root are masked by the mount layer only (Landlock
//! cannot exclude part of a tree where new files may appear).
//!
//! # Git hardening
//!
//! [`git::GitGuard`] snapshots the project's git metadata before the session and, after each
//! command, removes planted bare repositories and new hooks and reverts `.git/config` changes
//! that add code-running keys. It never touches what the user had before.
//!
//! # Support
//!
//! [`check`] reports which walls this machine supports and why not, for `ward sandbox check`
//! and for choosing the mode.

mod enter;
pub mod git;
mod landlock_rules;
pub mod layout;
mod mounts;
mod plan;
pub mod support;
#[doc(hidden)]
pub mod sys;
pub mod wall;

pub use enter::{enter, seal, Entered};
pub use git::{Cleanup, CleanupKind, GitGuard};
pub use plan::{
    default_protected, default_secrets, default_sockets, git_dirs_outside, NetPlan, SandboxMode,
    SandboxPlan,
};
pub use support::{check, SupportReport};

/// Why the sandbox could not be set up. Every message says what failed and, where the user
/// can do something about it, what to do.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// User namespaces are unavailable or restricted.
    #[error("cannot create the sandbox's namespaces: {reason}\n{fix}")]
    Namespaces {
        /// What the kernel refused.
        reason: String,
        /// How to fix it (sysctl, AppArmor) and the fallback.
        fix: String,
    },
    /// A setup step failed.
    #[error("sandbox setup failed: {what}: {source}")]
    Setup {
        /// The step.
        what: String,
        /// The kernel's answer.
        #[source]
        source: std::io::Error,
    },
    /// Landlock could not be applied.
    #[error("Landlock: {0}")]
    Landlock(String),
    /// The static seccomp wall could not be built or installed.
    #[error("seccomp wall: {0}")]
    Wall(String),
    /// The plan itself is unusable (a relative path, a missing project).
    #[error("invalid sandbox plan: {0}")]
    Plan(String),
}

impl SandboxError {
    pub(crate) fn setup(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> SandboxError {
        let what = what.into();
        move |source| SandboxError::Setup { what, source }
    }
}
