//! [`enter`] and [`seal`]: the process structure of a sandboxed tree (see the crate docs).

use crate::plan::Resolved;
use crate::sys::{self, Fork};
use crate::NetPlan;
use crate::{landlock_rules, mounts, wall, SandboxError, SandboxMode, SandboxPlan};
use std::path::Path;

/// Where [`enter`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entered {
    /// This process's pid as seen from ward's (the initial) pid namespace: what the
    /// supervisor passes to `pidfd_open` to take the listener fd.
    pub pid: i32,
    /// Whether the process is inside new namespaces (false for `landlock-only` and `off`).
    pub namespaced: bool,
    /// The Landlock ABI applied, if any.
    pub landlock_abi: Option<i32>,
}

/// Signals that P1 and C pass on to their child when a process sent them (not when the
/// terminal did: the command, in the same process group, gets those directly).
const FORWARDED: [libc::c_int; 6] = [
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Exit code of P1/C when the sandbox machinery itself fails after forking.
const EXIT_SETUP_FAILED: i32 = 125;

/// Builds the sandbox of `plan` around the calling process. Must be called from a
/// single-threaded process (`ward __init`) before the notification filter is installed.
///
/// Returns in the process that goes on to install the notify filter and exec the command,
/// with that process's pid as seen from the initial pid namespace. The processes created on
/// the way (P1 the monitor, C the pid-namespace init) never return: they exit with the
/// command's status. An `Err` may be returned in any of them before it forked; the caller
/// prints it and exits.
pub fn enter(plan: &SandboxPlan) -> Result<Entered, SandboxError> {
    let res = Resolved::from_plan(plan)?;
    match plan.mode {
        SandboxMode::Off => Ok(Entered {
            pid: sys::getpid(),
            namespaced: false,
            landlock_abi: None,
        }),
        SandboxMode::LandlockOnly => {
            let abi = landlock_rules::apply(&res, true)?;
            Ok(Entered {
                pid: sys::getpid(),
                namespaced: false,
                landlock_abi: abi,
            })
        }
        SandboxMode::WorkspaceWrite | SandboxMode::ReadOnly => enter_namespaces(&res),
    }
}

fn enter_namespaces(res: &Resolved) -> Result<Entered, SandboxError> {
    let threads = sys::thread_count().map_err(SandboxError::setup("count threads"))?;
    if threads != 1 {
        return Err(SandboxError::Plan(format!(
            "enter must run in a single-threaded process (this one has {threads} threads)"
        )));
    }
    let uid = sys::geteuid();
    let gid = sys::getegid();
    let mut flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS;
    if res.network == NetPlan::Off {
        flags |= libc::CLONE_NEWNET;
    }
    sys::unshare(flags).map_err(|e| crate::support::namespace_error(&e))?;
    write_id_maps(uid, gid)?;
    if res.network == NetPlan::Off {
        sys::loopback_up().map_err(SandboxError::setup(
            "bring up loopback in the new network namespace",
        ))?;
    }

    // P1 → C. Signals are blocked before the fork so none is lost between the fork and the
    // signalfd; C keeps them blocked for its own signalfd, D unblocks them.
    let mut blocked = FORWARDED.to_vec();
    blocked.push(libc::SIGCHLD);
    sys::block_signals(&blocked).map_err(SandboxError::setup("block signals"))?;
    let (alive_r, alive_w) = sys::pipe().map_err(SandboxError::setup("pipe"))?;
    match sys::fork().map_err(SandboxError::setup("fork the pid-namespace init"))? {
        Fork::Parent(c) => {
            drop(alive_r);
            // P1 keeps `alive_w` open until it dies: C watches for the hang-up.
            monitor(c, &blocked, alive_w)
        }
        Fork::Child => {}
    }
    // C: pid 1 of the new pid namespace.
    drop(alive_w);
    if sys::set_parent_death_signal(libc::SIGKILL).is_err()
        || sys::pipe_hung_up(std::os::fd::AsFd::as_fd(&alive_r))
    {
        sys::exit_now(EXIT_SETUP_FAILED);
    }
    match sys::fork() {
        Ok(Fork::Parent(d)) => init(d, &blocked),
        Ok(Fork::Child) => {}
        Err(e) => {
            eprintln!("ward: sandbox: fork the command: {e}");
            sys::exit_now(EXIT_SETUP_FAILED);
        }
    }
    // D: the command-to-be. Learn our pid in ward's namespace while /proc is still the
    // parent namespace's procfs.
    drop(alive_r);
    let pid = sys::pid_from_proc_self().map_err(SandboxError::setup("read /proc/self"))?;
    sys::set_parent_death_signal(libc::SIGKILL).map_err(SandboxError::setup("PR_SET_PDEATHSIG"))?;
    // The command starts with default dispositions for what we touched, and for SIGPIPE
    // (Rust programs ignore it, and an ignored signal survives exec: `yes | head` would
    // then spin on EPIPE instead of dying).
    let mut reset = blocked.clone();
    reset.push(libc::SIGPIPE);
    sys::reset_signals(&reset).map_err(SandboxError::setup("reset signals"))?;
    mounts::build(res)?;
    let abi = landlock_rules::apply(res, false)?;
    let cwd = if res.cwd.is_dir() {
        res.cwd.as_path()
    } else {
        res.project.as_path()
    };
    if sys::chdir(cwd).is_err() {
        sys::chdir(Path::new("/")).map_err(SandboxError::setup("chdir"))?;
    }
    Ok(Entered {
        pid,
        namespaced: true,
        landlock_abi: abi,
    })
}

/// Maps the caller's own uid and gid to themselves (root: 0 → 0), so files keep their
/// owners inside. One line of one's own id is what an unprivileged process may write.
fn write_id_maps(uid: u32, gid: u32) -> Result<(), SandboxError> {
    let w = |file: &str, data: String| {
        std::fs::write(file, data).map_err(SandboxError::setup(format!("write {file}")))
    };
    w("/proc/self/setgroups", "deny".into())?;
    w("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    w("/proc/self/gid_map", format!("{gid} {gid} 1\n"))?;
    Ok(())
}

/// Whether a received signal came from a process (to be forwarded) rather than the terminal.
fn from_a_process(code: i32) -> bool {
    code != sys::SI_KERNEL
}

/// P1: waits for C, forwards signals sent to P1, exits with C's status.
fn monitor(c: sys::pid_t, blocked: &[libc::c_int], alive: std::os::fd::OwnedFd) -> ! {
    use std::os::fd::AsRawFd;
    let Ok(sfd) = sys::SignalFd::new(blocked) else {
        let _ = sys::kill(c, libc::SIGKILL);
        sys::exit_now(EXIT_SETUP_FAILED);
    };
    // Hold none of the caller's pipes: someone may wait for their EOF. `alive` is leaked on
    // purpose: it must stay open until this process dies.
    let _ = sys::detach_descriptors(&[sfd.raw(), alive.as_raw_fd()]);
    std::mem::forget(alive);
    loop {
        if let Ok(Some((_, st))) = sys::waitpid(c, true) {
            sys::exit_now(st.code());
        }
        match sfd.read() {
            Ok(r) if r.signo == libc::SIGCHLD => {}
            Ok(r) if from_a_process(r.code) => {
                let _ = sys::kill(c, r.signo);
            }
            Ok(_) => {}
            Err(_) => {
                // Cannot happen with a valid signalfd; fall back to a blocking wait.
                match sys::waitpid(c, false) {
                    Ok(Some((_, st))) => sys::exit_now(st.code()),
                    _ => sys::exit_now(EXIT_SETUP_FAILED),
                }
            }
        }
    }
}

/// C, pid 1 of the namespace: forwards signals to the command, reaps every orphan, and
/// exits with the command's status as soon as the command ends (the kernel then kills
/// whatever is left in the namespace).
fn init(d: sys::pid_t, blocked: &[libc::c_int]) -> ! {
    let Ok(sfd) = sys::SignalFd::new(blocked) else {
        let _ = sys::kill(d, libc::SIGKILL);
        sys::exit_now(EXIT_SETUP_FAILED);
    };
    let _ = sys::detach_descriptors(&[sfd.raw()]);
    loop {
        while let Ok(Some((pid, st))) = sys::waitpid(-1, true) {
            if pid == d {
                sys::exit_now(st.code());
            }
        }
        match sfd.read() {
            Ok(r) if r.signo == libc::SIGCHLD => {}
            Ok(r) if from_a_process(r.code) => {
                let _ = sys::kill(d, r.signo);
            }
            Ok(_) => {}
            Err(_) => sys::exit_now(EXIT_SETUP_FAILED),
        }
    }
}

/// The second part, in the process [`enter`] returned in, right before the supervisor's
/// notification filter: sets `no_new_privs`, drops every capability (not in
/// [`SandboxMode::Off`]) and installs the static seccomp wall ([`crate::wall`]).
pub fn seal(plan: &SandboxPlan) -> Result<(), SandboxError> {
    let program = wall::compile(&wall::WallOptions::from_plan(plan))?;
    sys::set_no_new_privs().map_err(SandboxError::setup("set no_new_privs"))?;
    if plan.mode != SandboxMode::Off {
        sys::drop_all_capabilities().map_err(SandboxError::setup("drop capabilities"))?;
    }
    sys::install_seccomp(&program, 0)
        .map_err(|e| SandboxError::Wall(format!("install the filter: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_signals_are_not_forwarded_but_sent_ones_are() {
        // Terminal keys arrive as SI_KERNEL at every process of the foreground group; the
        // command gets its own copy, so P1 and C must not add theirs.
        assert!(!from_a_process(sys::SI_KERNEL));
        assert!(from_a_process(0)); // SI_USER: kill(2)
        assert!(from_a_process(-6)); // SI_TKILL: tgkill(2)
        assert!(from_a_process(-1)); // SI_QUEUE: sigqueue(3)
    }
}
