//! Every kernel call of the sandbox that needs `unsafe`, each behind a small safe wrapper.
//!
//! The rest of the crate never writes `unsafe`: it calls these functions. Each `unsafe` block
//! states the invariant it relies on. Wrappers return `io::Error` built from `errno`; callers add
//! what they were doing.

pub mod fsat;
pub mod probe;

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

pub use libc::pid_t;

fn cvt(ret: libc::c_long) -> io::Result<libc::c_long> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn cvt_i(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// A path as a C string; paths with interior NUL bytes are rejected.
pub fn cpath(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))
}

fn cstr(s: &str) -> io::Result<CString> {
    CString::new(s)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "string holds a NUL byte"))
}

// ---------------------------------------------------------------------------------------------
// Identity and processes
// ---------------------------------------------------------------------------------------------

/// Effective user id.
pub fn geteuid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Effective group id.
pub fn getegid() -> u32 {
    // SAFETY: getegid has no preconditions and cannot fail.
    unsafe { libc::getegid() }
}

/// This process's id (in its own pid namespace).
pub fn getpid() -> pid_t {
    // SAFETY: getpid has no preconditions and cannot fail.
    unsafe { libc::getpid() }
}

/// Number of threads of this process, from `/proc/self/status`.
pub fn thread_count() -> io::Result<usize> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| io::Error::other("no Threads: line in /proc/self/status"))
}

/// Result of [`fork`].
pub enum Fork {
    /// In the new child.
    Child,
    /// In the parent; the child's pid.
    Parent(pid_t),
}

/// Forks a single-threaded process.
///
/// Refuses (with `EDEADLK`'s cousin, an `Other` error) when the process has more than one
/// thread: after `fork` in a multi-threaded process only async-signal-safe calls are allowed,
/// and the sandbox's setup allocates.
pub fn fork() -> io::Result<Fork> {
    let threads = thread_count()?;
    if threads != 1 {
        return Err(io::Error::other(format!(
            "the sandbox must be entered from a single-threaded process (this one has {threads} threads)"
        )));
    }
    // SAFETY: the process has exactly one thread (checked just above), so the child inherits
    // no lock held by another thread and may go on running ordinary Rust code.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(io::Error::last_os_error()),
        0 => Ok(Fork::Child),
        pid => Ok(Fork::Parent(pid)),
    }
}

/// `unshare(2)`.
pub fn unshare(flags: libc::c_int) -> io::Result<()> {
    // SAFETY: unshare only changes this process's namespaces; no memory is passed.
    cvt_i(unsafe { libc::unshare(flags) }).map(drop)
}

/// Asks the kernel to send `sig` to this process when its parent (thread) exits.
pub fn set_parent_death_signal(sig: libc::c_int) -> io::Result<()> {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number by value.
    cvt_i(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, sig as libc::c_ulong, 0, 0, 0) }).map(drop)
}

/// Ends the process at once with `code`, without running destructors or atexit handlers
/// (the right exit for forked helpers that share buffers with their parent).
pub fn exit_now(code: i32) -> ! {
    // SAFETY: _exit never returns and has no preconditions.
    unsafe { libc::_exit(code) }
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// `exit(code)`.
    Exited(i32),
    /// Killed by a signal.
    Signaled(i32),
}

impl ExitStatus {
    /// The shell's convention: the exit code, or 128 + the signal number.
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Exited(c) => c,
            ExitStatus::Signaled(s) => 128 + s,
        }
    }
}

/// `waitpid`; `Ok(None)` with `WNOHANG` when nothing changed, or when the child has no more
/// children to wait for (`ECHILD`).
pub fn waitpid(pid: pid_t, nohang: bool) -> io::Result<Option<(pid_t, ExitStatus)>> {
    loop {
        let mut status: libc::c_int = 0;
        let flags = if nohang { libc::WNOHANG } else { 0 };
        // SAFETY: `status` is a valid, writable c_int for the duration of the call.
        let r = unsafe { libc::waitpid(pid, &mut status, flags) };
        if r < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ECHILD) => return Ok(None),
                _ => return Err(e),
            }
        }
        if r == 0 {
            return Ok(None);
        }
        let st = if libc::WIFEXITED(status) {
            ExitStatus::Exited(libc::WEXITSTATUS(status))
        } else if libc::WIFSIGNALED(status) {
            ExitStatus::Signaled(libc::WTERMSIG(status))
        } else {
            // Stopped/continued are not reported without WUNTRACED/WCONTINUED.
            continue;
        };
        return Ok(Some((r, st)));
    }
}

/// `kill(2)`.
pub fn kill(pid: pid_t, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: kill takes plain integers.
    cvt_i(unsafe { libc::kill(pid, sig) }).map(drop)
}

/// A pipe with both ends close-on-exec.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    cvt_i(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Whether the write end of the pipe whose read end is `fd` has been closed everywhere
/// (`POLLHUP` without waiting).
pub fn pipe_hung_up(fd: BorrowedFd<'_>) -> bool {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd; timeout 0 means no waiting.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    r > 0 && (p.revents & libc::POLLHUP) != 0
}

/// Points stdin and stdout at `/dev/null` and closes every descriptor above 2 except `keep`,
/// so a helper process does not hold the caller's pipes open (an EOF someone waits for).
pub fn detach_descriptors(keep: &[RawFd]) -> io::Result<()> {
    // SAFETY: the path is a NUL-terminated literal.
    let null = cvt_i(unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) })?;
    for target in [0, 1] {
        // SAFETY: dup2 onto a standard descriptor; `null` is open.
        cvt_i(unsafe { libc::dup2(null, target) })?;
    }
    let mut keep: Vec<RawFd> = keep.iter().copied().filter(|&fd| fd > 2).collect();
    keep.sort_unstable();
    let mut from: u32 = 3;
    for fd in keep.into_iter().chain(std::iter::once(RawFd::MAX)) {
        let fd = fd as u32;
        if fd > from {
            // SAFETY: close_range only closes descriptors in [from, fd-1]; none of them is
            // used by Rust objects still alive in this process except those listed in `keep`
            // (the caller's contract), and `null` (closed on purpose).
            cvt(unsafe { libc::syscall(libc::SYS_close_range, from, fd - 1, 0) })?;
        }
        from = fd.saturating_add(1);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Signals
// ---------------------------------------------------------------------------------------------

fn sigset(signals: &[libc::c_int]) -> libc::sigset_t {
    // SAFETY: sigset_t is a plain bit array; all-zero is a valid (empty) value that
    // sigemptyset/sigaddset then fill.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t owned by this frame.
    unsafe { libc::sigemptyset(&mut set) };
    for &s in signals {
        // SAFETY: as above; invalid numbers make sigaddset fail harmlessly.
        unsafe { libc::sigaddset(&mut set, s) };
    }
    set
}

/// Blocks `signals` for this thread (inherited by children made after the call).
pub fn block_signals(signals: &[libc::c_int]) -> io::Result<()> {
    let set = sigset(signals);
    // SAFETY: `set` is a valid sigset_t; the old mask is not asked for.
    let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// Unblocks every signal and resets the dispositions of `signals` to the default, so the
/// command starts with a clean signal state.
pub fn reset_signals(signals: &[libc::c_int]) -> io::Result<()> {
    for &s in signals {
        // SAFETY: SIG_DFL is always a valid disposition; errors (e.g. for SIGKILL) are ignored.
        unsafe { libc::signal(s, libc::SIG_DFL) };
    }
    let set = sigset(&[]);
    // SAFETY: an empty set with SIG_SETMASK unblocks everything.
    let r = unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// A signalfd for a set of (already blocked) signals.
pub struct SignalFd(OwnedFd);

/// One received signal.
#[derive(Debug, Clone, Copy)]
pub struct Received {
    /// Signal number.
    pub signo: i32,
    /// `si_code`: `SI_USER` (0) from `kill`, `SI_KERNEL` (0x80) from the terminal, …
    pub code: i32,
}

/// `si_code` of signals the kernel generates itself (terminal keys, among others).
pub const SI_KERNEL: i32 = 0x80;

impl SignalFd {
    /// Creates a signalfd for `signals`; they must be blocked already.
    pub fn new(signals: &[libc::c_int]) -> io::Result<SignalFd> {
        let set = sigset(signals);
        // SAFETY: `set` is a valid sigset_t; -1 asks for a new descriptor.
        let fd = cvt_i(unsafe { libc::signalfd(-1, &set, libc::SFD_CLOEXEC) })?;
        // SAFETY: signalfd returned a new descriptor that nothing else owns.
        Ok(SignalFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// The descriptor number.
    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }

    /// Waits for the next signal.
    pub fn read(&self) -> io::Result<Received> {
        loop {
            // SAFETY: signalfd_siginfo is plain data; all-zero is valid.
            let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<libc::signalfd_siginfo>();
            // SAFETY: `info` is writable for `size` bytes.
            let n = unsafe {
                libc::read(
                    self.0.as_raw_fd(),
                    (&mut info as *mut libc::signalfd_siginfo).cast(),
                    size,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            if n as usize != size {
                return Err(io::Error::other("short read from signalfd"));
            }
            return Ok(Received {
                signo: info.ssi_signo as i32,
                code: info.ssi_code,
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mounts
// ---------------------------------------------------------------------------------------------

/// `open_tree` flag: make a detached copy.
pub const OPEN_TREE_CLONE: u32 = 1;
/// `move_mount` flag: the source is the descriptor itself.
const MOVE_MOUNT_F_EMPTY_PATH: u32 = 0x4;
/// `mount_setattr` attributes.
pub const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// No set-user-id.
pub const MOUNT_ATTR_NOSUID: u64 = 0x2;
/// No device files.
pub const MOUNT_ATTR_NODEV: u64 = 0x4;
/// No execution.
pub const MOUNT_ATTR_NOEXEC: u64 = 0x8;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// `mount(2)` with the classic API.
pub fn mount(
    source: Option<&str>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let source = source.map(cstr).transpose()?;
    let fstype = fstype.map(cstr).transpose()?;
    let data = data.map(cstr).transpose()?;
    let target = cpath(target)?;
    let p = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    // SAFETY: every pointer is either null or a NUL-terminated string that outlives the call.
    cvt_i(unsafe {
        libc::mount(
            p(&source),
            target.as_ptr(),
            p(&fstype),
            flags,
            p(&data).cast(),
        )
    })
    .map(drop)
}

/// A detached copy of the mount tree at `path` (`open_tree(OPEN_TREE_CLONE)`), recursive.
pub fn clone_tree(path: &Path, recursive: bool) -> io::Result<OwnedFd> {
    let c = cpath(path)?;
    let mut flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as u32;
    if recursive {
        flags |= libc::AT_RECURSIVE as u32;
    }
    // SAFETY: `c` is NUL-terminated and outlives the call; open_tree returns a new fd.
    let fd = cvt(unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, c.as_ptr(), flags) })?;
    // SAFETY: the descriptor is new and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// A new copy of an already detached tree.
pub fn clone_detached(fd: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as u32 | libc::AT_EMPTY_PATH as u32;
    // SAFETY: the empty string is a valid NUL-terminated path; `fd` is open for the call.
    let fd =
        cvt(unsafe { libc::syscall(libc::SYS_open_tree, fd.as_raw_fd(), c"".as_ptr(), flags) })?;
    // SAFETY: the descriptor is new and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Sets mount attributes on the mount (tree) behind `fd`.
pub fn mount_setattr(fd: BorrowedFd<'_>, recursive: bool, set: u64, clear: u64) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let mut flags = libc::AT_EMPTY_PATH as u32;
    if recursive {
        flags |= libc::AT_RECURSIVE as u32;
    }
    // SAFETY: `attr` is a valid mount_attr of the size passed; the path is an empty C string.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            fd.as_raw_fd(),
            c"".as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    })
    .map(drop)
}

/// Attaches the detached mount behind `fd` at `target`.
pub fn move_mount_to(fd: BorrowedFd<'_>, target: &Path) -> io::Result<()> {
    let t = cpath(target)?;
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    })
    .map(drop)
}

/// `pivot_root(".", ".")` then detaches the old root: the current directory becomes `/`.
pub fn pivot_to_cwd() -> io::Result<()> {
    // SAFETY: both arguments are the NUL-terminated string ".".
    cvt(unsafe { libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) })?;
    // SAFETY: "." is a valid path; MNT_DETACH lazily unmounts the old root stacked on top.
    cvt_i(unsafe { libc::umount2(c".".as_ptr(), libc::MNT_DETACH) })?;
    Ok(())
}

/// Brings the loopback interface up (in a fresh network namespace it starts down).
pub fn loopback_up() -> io::Result<()> {
    // SAFETY: socket takes integers and returns a new descriptor.
    let s =
        cvt_i(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: the descriptor is new and owned by nobody else.
    let s = unsafe { OwnedFd::from_raw_fd(s) };
    // SAFETY: ifreq is plain data; all-zero is a valid value.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (i, b) in b"lo".iter().enumerate() {
        req.ifr_name[i] = *b as libc::c_char;
    }
    // SAFETY: `req` is a valid ifreq naming "lo"; SIOCGIFFLAGS fills ifru_flags.
    cvt_i(unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) })?;
    // SAFETY: reading the union member SIOCGIFFLAGS just wrote.
    let flags = unsafe { req.ifr_ifru.ifru_flags };
    req.ifr_ifru.ifru_flags = flags | (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    // SAFETY: `req` is a valid ifreq with the new flags.
    cvt_i(unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCSIFFLAGS, &req) })?;
    Ok(())
}

/// `chdir(2)`.
pub fn chdir(path: &Path) -> io::Result<()> {
    std::env::set_current_dir(path)
}

// ---------------------------------------------------------------------------------------------
// Privileges and seccomp
// ---------------------------------------------------------------------------------------------

/// Sets `no_new_privs`: exec can no longer gain privileges (set-user-id, file capabilities).
pub fn set_no_new_privs() -> io::Result<()> {
    // SAFETY: PR_SET_NO_NEW_PRIVS takes integers only.
    cvt_i(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }).map(drop)
}

/// Whether `no_new_privs` is set.
pub fn no_new_privs() -> bool {
    // SAFETY: PR_GET_NO_NEW_PRIVS takes integers only.
    unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 }
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
const SECBIT_NO_SETUID_FIXUP: libc::c_ulong = 1 << 2;
const SECBIT_NO_SETUID_FIXUP_LOCKED: libc::c_ulong = 1 << 3;
const SECBIT_KEEP_CAPS_LOCKED: libc::c_ulong = 1 << 5;
const SECBIT_NO_CAP_AMBIENT_RAISE: libc::c_ulong = 1 << 6;
const SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED: libc::c_ulong = 1 << 7;

/// Drops every capability: the bounding set, the ambient set, and the effective, permitted
/// and inheritable sets; locks the securebits that would give uid 0 its capabilities back
/// on exec (when this process is allowed to).
pub fn drop_all_capabilities() -> io::Result<()> {
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(63);
    // Securebits need CAP_SETPCAP, which we may not have (then the bounding set alone keeps
    // exec from granting anything).
    let bits = SECBIT_NOROOT
        | SECBIT_NOROOT_LOCKED
        | SECBIT_NO_SETUID_FIXUP
        | SECBIT_NO_SETUID_FIXUP_LOCKED
        | SECBIT_KEEP_CAPS_LOCKED
        | SECBIT_NO_CAP_AMBIENT_RAISE
        | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    // SAFETY: PR_SET_SECUREBITS takes integers only; failure is tolerated (see above).
    let _ = unsafe { libc::prctl(libc::PR_SET_SECUREBITS, bits, 0, 0, 0) };
    for cap in 0..=last {
        // SAFETY: PR_CAPBSET_DROP takes integers only.
        let r = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
        if r < 0 {
            let e = io::Error::last_os_error();
            // EINVAL: a capability this kernel does not know; EPERM: no CAP_SETPCAP, in which
            // case the set was never ours to widen either.
            if !matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::EPERM)) {
                return Err(e);
            }
        }
    }
    // SAFETY: PR_CAP_AMBIENT_CLEAR_ALL takes integers only.
    let _ = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    };
    let hdr = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    // SAFETY: `hdr` and the two-element `data` array are the layout capset expects for
    // version 3; both outlive the call.
    cvt(unsafe { libc::syscall(libc::SYS_capset, &hdr as *const CapHeader, data.as_ptr()) })?;
    Ok(())
}

/// The effective capability mask of this process (for tests and `check`).
pub fn effective_capabilities() -> io::Result<u64> {
    let hdr = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: `hdr` and the two-element writable `data` array are what capget expects.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_capget,
            &hdr as *const CapHeader,
            data.as_mut_ptr(),
        )
    })?;
    Ok(u64::from(data[0].effective) | (u64::from(data[1].effective) << 32))
}

/// Installs a seccomp BPF program for this thread and its future children
/// (`no_new_privs` or `CAP_SYS_ADMIN` required). Returns the listener fd when `flags`
/// asks for one.
pub fn install_seccomp(
    program: &[seccompiler::sock_filter],
    flags: libc::c_ulong,
) -> io::Result<libc::c_long> {
    let len = u16::try_from(program.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "seccomp program too long"))?;
    let prog = libc::sock_fprog {
        len,
        filter: program.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: seccompiler's sock_filter has the kernel's layout (u16, u8, u8, u32);
    // `prog` points at `program`, which outlives the call; the kernel copies it.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            &prog as *const libc::sock_fprog,
        )
    })
}

/// `seccomp(SECCOMP_GET_ACTION_AVAIL)`: whether the kernel knows a filter return action.
pub fn seccomp_action_available(action: u32) -> bool {
    // SAFETY: the action is read from a valid u32 that outlives the call.
    unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_GET_ACTION_AVAIL,
            0,
            &action as *const u32,
        ) == 0
    }
}

/// The Landlock ABI version, or the errno that says why there is none.
pub fn landlock_abi() -> Result<i32, i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: with the VERSION flag, a null attribute pointer and size 0 are required.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::ENOSYS))
    } else {
        Ok(r as i32)
    }
}

/// `readlink("/proc/self")` parsed: this process's pid in the pid namespace of the procfs
/// mounted at `/proc` (before a new one is mounted, the namespace we came from).
pub fn pid_from_proc_self() -> io::Result<pid_t> {
    let link = std::fs::read_link("/proc/self")?;
    let s: &OsStr = link.as_os_str();
    std::str::from_utf8(s.as_bytes())
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("unexpected /proc/self link {link:?}")))
}

/// `uname -r`.
pub fn kernel_release() -> String {
    // SAFETY: utsname is plain data; all-zero is valid.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is writable and uname fills it.
    if unsafe { libc::uname(&mut u) } != 0 {
        return String::new();
    }
    // SAFETY: uname NUL-terminates `release`.
    unsafe { CStr::from_ptr(u.release.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}
