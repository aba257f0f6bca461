//! The parent side of a session: spawn `ward __init`, take its seccomp listener, serve the
//! tree until its root process exits, end whatever outlives it, and report how it ended.

use crate::supervisor::{self, Enforcement, Shared, Stats};
use crate::sys;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use ward_event::{Actor, Decider, Decision, EventSink, OpKind, Operation, Outcome, PathBytes, Reviewer, Timestamp};


/// The process-directed signals ward relays to the tree; blocked in every ward thread and read
/// from a signalfd by the main thread.
pub const RELAYED_SIGNALS: [i32; 9] = [
    libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGHUP, libc::SIGUSR1, libc::SIGUSR2,
    libc::SIGCHLD, libc::SIGWINCH, libc::SIGCONT,
];

/// Job-control stops: the tree stops, then ward stops itself so the shell sees the job stop.
pub const STOP_SIGNALS: [i32; 3] = [libc::SIGTSTP, libc::SIGTTIN, libc::SIGTTOU];

/// Blocks every signal that can be blocked, except the synchronous fault signals and the
/// workers' wake signal. Call it first thing, before any thread (the audit writer, workers)
/// is started, so every thread inherits the mask: the tree shares ward's process group, and a
/// `kill(0, SIGALRM)` from it (or a Ctrl-C meant for it) must not end ward. The main thread
/// reads the signals it acts on from a signalfd.
pub fn block_relayed_signals() {
    let keep = [
        libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGTRAP, libc::SIGSYS,
        libc::SIGABRT, libc::SIGKILL, libc::SIGSTOP, wake_signal(),
    ];
    let all: Vec<i32> = (1..=libc::SIGRTMAX()).filter(|s| !keep.contains(s)).collect();
    let _ = sys::block_signals(&all);
}

/// Signal used to wake worker threads blocked in the kernel at shutdown.
fn wake_signal() -> i32 {
    libc::SIGRTMIN() + 3
}

/// What to start: ward's own binary in its `__init` role, and the spec bytes it reads.
pub struct Launch {
    /// Program to run (ward's own executable).
    pub program: PathBuf,
    /// Its arguments (e.g. `["__init"]`).
    pub args: Vec<OsString>,
    /// Opaque bytes the child reads with [`crate::child::read_spec`].
    pub spec: Vec<u8>,
}

/// How to supervise.
pub struct SupervisorConfig {
    /// The policy.
    pub decider: Arc<dyn Decider>,
    /// Who answers reviews.
    pub reviewer: Arc<dyn Reviewer>,
    /// Where events go.
    pub sink: Arc<dyn EventSink>,
    /// Audit or enforce.
    pub enforcement: Enforcement,
    /// The tree runs in its own root (sandbox).
    pub own_root: bool,
    /// The tree runs in its own pid namespace (sandbox).
    pub own_pid_ns: bool,
    /// Worker threads (0: one per CPU, at least 2).
    pub workers: usize,
    /// Called (on a worker thread, before the command runs) when a direct child of the root
    /// process execs — a new "command" of the agent.
    pub on_command_seen: Option<Box<dyn Fn(i32) + Send + Sync>>,
    /// Called on the main thread when a direct child of the root process has exited; returns
    /// events to record (git hardening).
    pub on_command_exit: Option<Box<dyn FnMut(i32) -> Vec<Operation> + Send>>,
    /// Sensitive files and directories: their files' inodes are refused under any other name
    /// (hard links), see [`sensitive_inodes`].
    pub sensitive_paths: Vec<PathBuf>,
}

/// The (dev, inode) of every regular file at or under `paths` (bounded walk, symlinks not
/// followed): a hard link to one of them, anywhere, is refused like the file itself.
pub fn sensitive_inodes(paths: &[PathBuf]) -> std::collections::HashSet<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = std::collections::HashSet::new();
    let mut stack: Vec<(PathBuf, u32)> = paths.iter().map(|p| (p.clone(), 0)).collect();
    let mut budget = 20_000;
    while let Some((p, depth)) = stack.pop() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let Ok(m) = std::fs::symlink_metadata(&p) else { continue };
        if m.is_file() {
            out.insert((m.dev(), m.ino()));
        } else if m.is_dir() && depth < 4 {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.flatten().map(|e| (e.path(), depth + 1)));
            }
        }
    }
    out
}

/// How the root process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// Exited with a code.
    Code(i32),
    /// Killed by a signal.
    Signal(i32),
}

impl ExitKind {
    /// The shell convention: the code, or 128 + signal.
    pub fn shell_code(self) -> i32 {
        match self {
            ExitKind::Code(c) => c,
            ExitKind::Signal(s) => 128 + s,
        }
    }
}

/// The result of a session.
#[derive(Debug)]
pub struct RunResult {
    /// How the root process ended.
    pub exit: ExitKind,
    /// Processes ward ended because they outlived the root.
    pub reaped: Vec<i32>,
    /// Notifications served.
    pub notifications: u64,
    /// Events recorded.
    pub events: u64,
    /// Calls denied.
    pub denied: u64,
}

/// Errors starting a session.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The child could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// What.
        program: String,
        /// Why.
        source: io::Error,
    },
    /// The child reported a setup failure.
    #[error("{0}")]
    Setup(String),
    /// A kernel facility failed.
    #[error("{what}: {source}")]
    Kernel {
        /// What was being done.
        what: &'static str,
        /// Why.
        source: io::Error,
    },
}

fn kernel(what: &'static str) -> impl FnOnce(io::Error) -> LaunchError {
    move |source| LaunchError::Kernel { what, source }
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    sys::pipe_cloexec()
}

/// Runs a session to its end.
pub fn run(launch: Launch, cfg: SupervisorConfig) -> Result<RunResult, LaunchError> {
    let ward_pid = std::process::id() as i32;
    // Orphans of the tree (double-forked daemons) re-parent to ward, so they can be found and
    // ended when the session ends.
    let _ = sys::set_child_subreaper();
    // Same-user processes may not ptrace ward or read its memory.
    let _ = sys::set_non_dumpable();

    let (p2c_read, p2c_write) = pipe().map_err(kernel("pipe"))?;
    let (c2p_read, c2p_write) = pipe().map_err(kernel("pipe"))?;
    let mut cmd = Command::new(&launch.program);
    cmd.args(&launch.args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    let (r, w) = (p2c_read.as_raw_fd(), c2p_write.as_raw_fd());
    sys::set_child_setup(&mut cmd, r, w, ward_pid);
    let mut child = cmd.spawn().map_err(|source| LaunchError::Spawn {
        program: launch.program.display().to_string(),
        source,
    })?;
    drop(p2c_read);
    drop(c2p_write);
    let root_init_pid = child.id() as i32;

    let mut to_child = std::fs::File::from(p2c_write);
    let _ = to_child.write_all(&(launch.spec.len() as u64).to_le_bytes());
    let _ = to_child.write_all(&launch.spec);
    let _ = to_child.flush();

    let mut line = String::new();
    let mut from_child = BufReader::new(std::fs::File::from(c2p_read));
    let _ = from_child.read_line(&mut line);
    let line = line.trim_end().to_string();
    let Some(rest) = line.strip_prefix("ready ") else {
        let status = child.wait().ok();
        let msg = line.strip_prefix("error ").map(str::to_string).unwrap_or_else(|| {
            format!(
                "the supervised process ended before it was ready ({})",
                status.map(|s| s.to_string()).unwrap_or_default()
            )
        });
        return Err(LaunchError::Setup(msg));
    };
    let mut parts = rest.split_whitespace().map(|s| s.parse::<i32>());
    let (Some(Ok(tree_pid)), Some(Ok(listener_fd))) = (parts.next(), parts.next()) else {
        let _ = child.kill();
        return Err(LaunchError::Setup(format!("bad handshake {line:?}")));
    };
    let pidfd = sys::pidfd_open(tree_pid).map_err(kernel("pidfd_open"))?;
    let listener = sys::pidfd_getfd(pidfd.as_fd(), listener_fd).map_err(kernel("taking the seccomp listener (pidfd_getfd)"))?;
    let _ = sys::notif_set_sync_wakeup(listener.as_fd());
    let root = if cfg.own_root {
        let c = std::ffi::CString::new(format!("/proc/{tree_pid}/root")).map_err(|_| LaunchError::Setup("bad pid".into()))?;
        sys::openat(libc::AT_FDCWD, &c, libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY, 0).map_err(kernel("opening the tree's root"))?
    } else {
        sys::openat(libc::AT_FDCWD, c"/", libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY, 0).map_err(kernel("opening /"))?
    };
    let ward_pgrp = sys::getpgrp();

    // Signals: workers block everything but the wake signal; the main thread reads the
    // process-directed signals from a signalfd.
    sys::install_interrupt_handler(wake_signal()).map_err(kernel("sigaction"))?;
    let watched: Vec<i32> = RELAYED_SIGNALS.iter().chain(STOP_SIGNALS.iter()).copied().collect();
    let sigfd = sys::block_into_signalfd(&watched).map_err(kernel("signalfd"))?;

    let shared = Arc::new(Shared {
        listener,
        decider: cfg.decider,
        reviewer: cfg.reviewer,
        sink: cfg.sink,
        enforcement: cfg.enforcement,
        procs: Default::default(),
        root,
        own_root: cfg.own_root,
        roots_vary: AtomicBool::new(false),
        own_pid_ns: cfg.own_pid_ns,
        ward_pid,
        ward_pgrp,
        root_pid: tree_pid,
        stats: Stats::default(),
        stopping: AtomicBool::new(false),
        dns: Mutex::new(Default::default()),
        on_command_seen: cfg.on_command_seen,
        sensitive_inodes: sensitive_inodes(&cfg.sensitive_paths),
        commands: Mutex::new(Vec::new()),
        command_exit_hook: cfg.on_command_exit.map(Mutex::new),
    });
    let workers = if cfg.workers == 0 {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).max(2)
    } else {
        cfg.workers
    };
    let mut handles = Vec::new();
    for i in 0..workers {
        let sh = Arc::clone(&shared);
        let h = std::thread::Builder::new()
            .name(format!("ward-worker-{i}"))
            .spawn(move || supervisor::worker_loop(sh))
            .map_err(kernel("spawning a worker thread"))?;
        handles.push(h);
    }
    // Go.
    let _ = to_child.write_all(b"g");
    drop(to_child);

    let exit = wait_for_root(&shared, root_init_pid, &sigfd);
    let reaped = end_leftovers(&shared, ward_pid);
    // The tree is gone: stop the workers.
    shared.stopping.store(true, Ordering::Release);
    for h in &handles {
        use std::os::unix::thread::JoinHandleExt;
        sys::interrupt_thread(h.as_pthread_t(), wake_signal());
    }
    // Keep poking each worker until it notices (it may have been between checks), but never
    // wait on one for long: the tree is gone, and a worker still busy (a call that blocks in
    // the kernel) must not keep the session from ending.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    for h in handles {
        while !h.is_finished() && std::time::Instant::now() < deadline {
            use std::os::unix::thread::JoinHandleExt;
            sys::interrupt_thread(h.as_pthread_t(), wake_signal());
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if h.is_finished() {
            let _ = h.join();
        }
    }
    drop(child);
    Ok(RunResult {
        exit,
        reaped,
        notifications: shared.stats.notifications.load(Ordering::Relaxed),
        events: shared.stats.events.load(Ordering::Relaxed),
        denied: shared.stats.denied.load(Ordering::Relaxed),
    })
}

fn decode_status(status: i32) -> ExitKind {
    if libc::WIFSIGNALED(status) {
        ExitKind::Signal(libc::WTERMSIG(status))
    } else {
        ExitKind::Code(libc::WEXITSTATUS(status))
    }
}

/// Waits for the root process, forwarding signals, reaping orphans and running the
/// per-command hook when one of the agent's commands ends. `init_pid` is ward's direct child
/// (`ward __init`); its exit status is the session's.
fn wait_for_root(sh: &Arc<Shared>, init_pid: i32, sigfd: &OwnedFd) -> ExitKind {
    loop {
        // Reap whatever has exited (the root, orphans re-parented to ward).
        loop {
            match sys::wait_any(true) {
                Ok(Some((pid, status))) => {
                    if pid == init_pid {
                        sh.reap_commands();
                        return decode_status(status);
                    }
                    sh.procs.forget_process(pid);
                }
                Ok(None) | Err(_) => break,
            }
        }
        sh.reap_commands();
        let command_fds = sh.command_pidfds();
        let mut fds: Vec<std::os::fd::BorrowedFd<'_>> = vec![sigfd.as_fd()];
        fds.extend(command_fds.iter().map(|f| sys::borrow_raw(*f)));
        match sys::poll_readable(&fds, 250) {
            Ok(ready) if ready.contains(&0) => {
                if let Ok((sig, sender)) = sys::read_signalfd(sigfd.as_fd()) {
                    forward_signal(sh, init_pid, sig, sender);
                }
            }
            _ => {}
        }
    }
}

fn forward_signal(sh: &Arc<Shared>, init_pid: i32, sig: i32, sender: i32) {
    match sig {
        libc::SIGCHLD | libc::SIGWINCH => {}
        // Terminal-generated (sender 0) job-control signals reach the tree directly: it shares
        // ward's process group.
        libc::SIGINT | libc::SIGQUIT if sender == 0 => {}
        libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU => {
            if sender > 0 && crate::proctable::descends_from(sender, sh.ward_pid) && sender != sh.ward_pid {
                return;
            }
            // The terminal stopped the tree (or someone asked ward to stop): stop with it, so
            // the shell's job control sees the job stopped; `fg` continues both.
            if sender != 0 {
                let _ = sys::kill(init_pid, sig);
            }
            let _ = sys::kill(sh.ward_pid, libc::SIGSTOP);
        }
        _ => {
            // Signals from inside the tree (kill(0, …)) are not forwarded back into it.
            if sender > 0 && crate::proctable::descends_from(sender, sh.ward_pid) && sender != sh.ward_pid {
                return;
            }
            let _ = sys::kill(init_pid, sig);
        }
    }
}

/// Ends every process left in the tree after its root exited; returns their pids.
fn end_leftovers(sh: &Arc<Shared>, ward_pid: i32) -> Vec<i32> {
    let mut reaped = Vec::new();
    for _round in 0..50 {
        let left = descendants(ward_pid);
        if left.is_empty() {
            break;
        }
        for pid in left {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).map(PathBytes::from).unwrap_or_default();
            let ppid = crate::proctable::read_facts(pid).map(|f| f.status.ppid).unwrap_or(0);
            if sys::kill(pid, libc::SIGKILL).is_ok() && !reaped.contains(&pid) {
                reaped.push(pid);
                let mut op = Operation::new(OpKind::ProcReap, "ward");
                op.target_pid = Some(pid);
                op.path = Some(exe.clone());
                op.detail = Some("outlived the session's root process; ended by ward".into());
                sh.record(
                    Timestamp::now(),
                    Actor { pid, tid: pid, ppid, exe },
                    op,
                    Outcome::Ok(None),
                    Decision::allow(ward_event::DecidedBy::Builtin),
                );
            }
        }
        while let Ok(Some(_)) = sys::wait_any(false) {}
    }
    reaped
}

/// All processes descending from `ancestor` (excluding it), from `/proc/*/task/*/children`.
fn descendants(ancestor: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let mut stack = vec![ancestor];
    while let Some(p) = stack.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let Ok(text) = std::fs::read_to_string(t.path().join("children")) else {
                continue;
            };
            for c in text.split_whitespace().filter_map(|c| c.parse::<i32>().ok()) {
                if !out.contains(&c) {
                    out.push(c);
                    stack.push(c);
                }
            }
        }
    }
    out
}

