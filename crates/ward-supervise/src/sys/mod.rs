//! Kernel-facing code. Every `unsafe` block of the crate lives under this module, each with a
//! `// SAFETY:` comment stating the invariant it relies on. Functions here are thin, typed
//! wrappers; the logic that decides what to call lives in the safe modules above.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// Restores the default `SIGPIPE` disposition (Rust ignores it), so a closed stdout ends ward
/// quietly the way it ends other Unix tools, and children inherit the default.
pub fn restore_default_sigpipe() {
    // SAFETY: installing SIG_DFL for SIGPIPE has no memory-safety preconditions; it is done
    // once at start-up before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn cvt(ret: libc::c_long) -> io::Result<libc::c_long> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn cvt_int(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Wraps a freshly returned descriptor.
fn owned(fd: libc::c_long) -> OwnedFd {
    // SAFETY: callers pass a descriptor the kernel just returned to us and that nothing else
    // owns, so transferring ownership to an OwnedFd is sound.
    unsafe { OwnedFd::from_raw_fd(fd as RawFd) }
}

// ---------------------------------------------------------------------------------------------
// seccomp

/// Flag of `SECCOMP_IOCTL_NOTIF_SET_FLAGS`: wake the supervisor on the target's CPU (Linux 6.6;
/// Debian 12's headers predate it).
pub const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;

/// Sets `no_new_privs` on the calling thread (required to install a filter without
/// `CAP_SYS_ADMIN`).
pub fn set_no_new_privs() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only; no memory is passed.
    cvt_int(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }).map(drop)
}

/// Installs a seccomp filter on the calling thread with `SECCOMP_FILTER_FLAG_NEW_LISTENER` and
/// returns the listener.
pub fn install_notify_filter(prog: &[libc::sock_filter]) -> io::Result<OwnedFd> {
    let fprog = libc::sock_fprog {
        len: u16::try_from(prog.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "BPF program too long"))?,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: `fprog` points at `prog`, which outlives the call; the kernel copies the program.
    let fd = cvt(unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const libc::sock_fprog,
        )
    })?;
    Ok(owned(fd))
}

/// A zeroed notification buffer.
pub fn empty_notif() -> libc::seccomp_notif {
    // SAFETY: seccomp_notif is plain old data; all-zero is a valid value (and the kernel
    // requires the buffer zeroed before SECCOMP_IOCTL_NOTIF_RECV).
    unsafe { std::mem::zeroed() }
}

/// Blocks until a notification arrives (`EINTR` when a signal interrupts the wait).
pub fn notif_recv(listener: BorrowedFd<'_>, notif: &mut libc::seccomp_notif) -> io::Result<()> {
    *notif = empty_notif();
    // SAFETY: `notif` is a valid, zeroed seccomp_notif the kernel fills in.
    cvt_int(unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_RECV as _,
            notif as *mut libc::seccomp_notif,
        )
    })
    .map(drop)
}

/// Answers a notification: `error` (positive errno) or `val`, or continue the call.
pub fn notif_send(
    listener: BorrowedFd<'_>,
    id: u64,
    val: i64,
    error: i32,
    continue_call: bool,
) -> io::Result<()> {
    let mut resp = libc::seccomp_notif_resp {
        id,
        val,
        error: -error,
        flags: if continue_call {
            libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32
        } else {
            0
        },
    };
    // SAFETY: `resp` is a valid seccomp_notif_resp for the duration of the call.
    cvt_int(unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND as _,
            &mut resp as *mut libc::seccomp_notif_resp,
        )
    })
    .map(drop)
}

/// Whether notification `id` is still pending (its task has not died or been interrupted).
pub fn notif_id_valid(listener: BorrowedFd<'_>, id: u64) -> bool {
    let mut id = id;
    // SAFETY: passes a pointer to a live u64, as SECCOMP_IOCTL_NOTIF_ID_VALID expects.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID as _,
            &mut id as *mut u64,
        ) == 0
    }
}

/// Installs `src` into the target's descriptor table and returns its number there; with
/// `send`, atomically answers the notification with it (`SECCOMP_ADDFD_FLAG_SEND`).
pub fn notif_addfd(
    listener: BorrowedFd<'_>,
    id: u64,
    src: BorrowedFd<'_>,
    cloexec: bool,
    send: bool,
) -> io::Result<i32> {
    let mut addfd = libc::seccomp_notif_addfd {
        id,
        flags: if send { libc::SECCOMP_ADDFD_FLAG_SEND as u32 } else { 0 },
        srcfd: src.as_raw_fd() as u32,
        newfd: 0,
        newfd_flags: if cloexec { libc::O_CLOEXEC as u32 } else { 0 },
    };
    // SAFETY: `addfd` is a valid seccomp_notif_addfd; `src` is a live descriptor of ours.
    cvt_int(unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ADDFD as _,
            &mut addfd as *mut libc::seccomp_notif_addfd,
        )
    })
}

/// Turns on synchronous wake-up for the listener (best effort: older kernels refuse it).
pub fn notif_set_sync_wakeup(listener: BorrowedFd<'_>) -> io::Result<()> {
    // _IOW('!', 4, __u64)
    let request = libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS;
    // SAFETY: this ioctl takes the flags by value in the argument register.
    cvt_int(unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            request as _,
            SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
        )
    })
    .map(drop)
}

// ---------------------------------------------------------------------------------------------
// processes

/// `pidfd_open(pid, 0)`.
pub fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: integer arguments only.
    cvt(unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) }).map(owned)
}

/// `pidfd_getfd(pidfd, fd, 0)`: a duplicate of another process's descriptor.
pub fn pidfd_getfd(pidfd: BorrowedFd<'_>, fd: i32) -> io::Result<OwnedFd> {
    // SAFETY: integer arguments only.
    cvt(unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) }).map(owned)
}

/// `pidfd_send_signal(pidfd, sig, NULL, 0)`.
pub fn pidfd_kill(pidfd: BorrowedFd<'_>, sig: i32) -> io::Result<()> {
    // SAFETY: integer arguments and a NULL siginfo pointer, which the call allows.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            sig,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    })
    .map(drop)
}

/// `kill(pid, sig)`.
pub fn kill(pid: i32, sig: i32) -> io::Result<()> {
    // SAFETY: integer arguments only.
    cvt_int(unsafe { libc::kill(pid, sig) }).map(drop)
}

/// Reads `buf.len()` bytes (or fewer, at an unmapped page) at `addr` in process `pid`.
pub fn read_process_memory(pid: i32, addr: u64, buf: &mut [u8]) -> io::Result<usize> {
    if buf.is_empty() {
        return Ok(0);
    }
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as usize as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: `local` describes `buf`, which we own mutably for the call; `remote` describes
    // memory of another process, which the kernel validates.
    let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Writes `buf` at `addr` in process `pid`.
pub fn write_process_memory(pid: i32, addr: u64, buf: &[u8]) -> io::Result<usize> {
    if buf.is_empty() {
        return Ok(0);
    }
    let local = libc::iovec {
        iov_base: buf.as_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as usize as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: `local` describes `buf`, which outlives the call and is only read; the kernel
    // validates the remote range.
    let n = unsafe { libc::process_vm_writev(pid, &local, 1, &remote, 1, 0) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Sets the signal sent to the calling process when its parent thread dies.
pub fn set_parent_death_signal(sig: i32) -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    cvt_int(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, sig as libc::c_ulong, 0, 0, 0) })
        .map(drop)
}

/// Makes the calling process a child subreaper: orphaned descendants are re-parented to it.
pub fn set_child_subreaper() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    cvt_int(unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }).map(drop)
}

/// Marks the process non-dumpable: processes of the same user can no longer ptrace it or open
/// its `/proc/PID/mem`.
pub fn set_non_dumpable() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    cvt_int(unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) }).map(drop)
}

/// Gives the calling thread its own filesystem attributes (cwd, root, umask), so a worker can
/// set the umask of the process it acts for without affecting other threads.
pub fn unshare_fs_attributes() -> io::Result<()> {
    // SAFETY: integer argument only.
    cvt_int(unsafe { libc::unshare(libc::CLONE_FS) }).map(drop)
}

/// Sets the umask of the calling thread (after `unshare_fs_attributes`) and returns the old one.
pub fn set_umask(mask: u32) -> u32 {
    // SAFETY: umask cannot fail and touches no memory.
    unsafe { libc::umask(mask as libc::mode_t) as u32 }
}

/// Waits for any child: `Ok(Some((pid, raw status)))`, `Ok(None)` when there are none left.
pub fn wait_any(nohang: bool) -> io::Result<Option<(i32, i32)>> {
    let mut status = 0;
    // SAFETY: `status` is a valid out-pointer for the call.
    let pid = unsafe {
        libc::waitpid(
            -1,
            &mut status,
            libc::__WALL | if nohang { libc::WNOHANG } else { 0 },
        )
    };
    if pid < 0 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::ECHILD) {
            return Ok(None);
        }
        return Err(err);
    }
    if pid == 0 {
        return Ok(None);
    }
    Ok(Some((pid, status)))
}

/// Interrupts a blocked system call in thread `thread` by sending it `sig` (which must have a
/// handler installed without `SA_RESTART`).
pub fn interrupt_thread(thread: libc::pthread_t, sig: i32) {
    // SAFETY: `thread` is a pthread id of a thread we created and have not joined yet.
    unsafe {
        libc::pthread_kill(thread, sig);
    }
}

extern "C" fn noop_handler(_: libc::c_int) {}

/// Installs a do-nothing handler for `sig` without `SA_RESTART`, so the signal interrupts
/// blocking calls (used to wake worker threads at shutdown).
pub fn install_interrupt_handler(sig: i32) -> io::Result<()> {
    // SAFETY: sigaction is zero-initialisable plain data.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = noop_handler as *const () as usize;
    sa.sa_flags = 0;
    // SAFETY: `sa` is valid; the handler is async-signal-safe (does nothing).
    cvt_int(unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) }).map(drop)
}

/// Sets `sig` to be ignored (or restored to default).
pub fn set_signal_ignored(sig: i32, ignored: bool) {
    // SAFETY: installing SIG_IGN/SIG_DFL has no memory preconditions.
    unsafe {
        libc::signal(sig, if ignored { libc::SIG_IGN } else { libc::SIG_DFL });
    }
}

/// Blocks `signals` in the calling thread (inherited by threads it starts later).
pub fn block_signals(signals: &[i32]) -> io::Result<()> {
    // SAFETY: sigset_t is plain data initialised by sigemptyset before use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t for all of these calls; NULL old set is allowed.
    unsafe {
        libc::sigemptyset(&mut set);
        for &s in signals {
            libc::sigaddset(&mut set, s);
        }
        cvt_int(libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut())).map(drop)
    }
}

/// Blocks `signals` in the calling thread and returns a signalfd reading them.
pub fn block_into_signalfd(signals: &[i32]) -> io::Result<OwnedFd> {
    // SAFETY: sigset_t is plain data initialised by sigemptyset before use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t for all of these calls.
    unsafe {
        libc::sigemptyset(&mut set);
        for &s in signals {
            libc::sigaddset(&mut set, s);
        }
    }
    // SAFETY: `set` is initialised; a NULL old-set pointer is allowed.
    cvt_int(unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) })?;
    // SAFETY: `set` is initialised.
    let fd = cvt_int(unsafe { libc::signalfd(-1, &set, libc::SFD_CLOEXEC) })?;
    Ok(owned(fd as libc::c_long))
}

/// Unblocks all signals in the calling thread (used before exec in the child).
pub fn unblock_all_signals() {
    // SAFETY: sigset_t initialised by sigemptyset; NULL old set allowed.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Reads one `signalfd_siginfo` (signal number and sender pid).
pub fn read_signalfd(fd: BorrowedFd<'_>) -> io::Result<(i32, i32)> {
    // SAFETY: signalfd_siginfo is plain data.
    let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::signalfd_siginfo>();
    // SAFETY: `info` is a writable buffer of exactly `size` bytes.
    let n = unsafe {
        libc::read(
            fd.as_raw_fd(),
            (&mut info as *mut libc::signalfd_siginfo).cast(),
            size,
        )
    };
    if n != size as isize {
        return Err(io::Error::last_os_error());
    }
    Ok((info.ssi_signo as i32, info.ssi_pid as i32))
}

/// Whether `fd` reports `POLLHUP` now (for a seccomp listener: no process uses its filter any
/// more, so no notification can ever come).
pub fn hung_up(fd: BorrowedFd<'_>) -> bool {
    let mut pfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: `pfd` is one valid pollfd; a zero timeout never blocks.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    n > 0 && pfd.revents & libc::POLLHUP != 0
}

/// `poll` on a set of descriptors for readability; returns the indices that are ready.
pub fn poll_readable(fds: &[BorrowedFd<'_>], timeout_ms: i32) -> io::Result<Vec<usize>> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|fd| libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `pfds` is a valid array of pollfd of the given length.
    let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pfds
        .iter()
        .enumerate()
        .filter(|(_, p)| p.revents != 0)
        .map(|(i, _)| i)
        .collect())
}

// ---------------------------------------------------------------------------------------------
// files

/// `openat2(dirfd, path, {flags, mode, resolve})`.
pub fn openat2(
    dirfd: BorrowedFd<'_>,
    path: &CStr,
    flags: u64,
    mode: u64,
    resolve: u64,
) -> io::Result<OwnedFd> {
    // SAFETY: open_how is plain data; zero then fill the three fields.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags;
    how.mode = mode;
    how.resolve = resolve;
    // SAFETY: `path` is NUL-terminated and `how` is valid for the stated size.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dirfd.as_raw_fd(),
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    })
    .map(owned)
}

/// `openat(dirfd, path, flags, mode)` (follows magic links: only for ward's own paths).
pub fn openat(dirfd: RawFd, path: &CStr, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    // SAFETY: `path` is NUL-terminated; integer arguments otherwise.
    cvt_int(unsafe { libc::openat(dirfd, path.as_ptr(), flags, mode) })
        .map(|fd| owned(fd as libc::c_long))
}

/// `fstat(fd)`.
pub fn fstat(fd: BorrowedFd<'_>) -> io::Result<libc::stat> {
    // SAFETY: stat is plain data, filled by the kernel.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer.
    cvt_int(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    Ok(st)
}

/// The filesystem type (`f_type` of `fstatfs`) of the file `fd` is on.
pub fn filesystem_type(fd: BorrowedFd<'_>) -> io::Result<i64> {
    // SAFETY: statfs is plain data, filled by the kernel.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer for the duration of the call.
    cvt_int(unsafe { libc::fstatfs(fd.as_raw_fd(), &mut st) })?;
    Ok(st.f_type as i64)
}

/// `fstatat(dirfd, path, AT_SYMLINK_NOFOLLOW?)`.
pub fn fstatat(dirfd: BorrowedFd<'_>, path: &CStr, nofollow: bool) -> io::Result<libc::stat> {
    // SAFETY: stat is plain data, filled by the kernel.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let flags = if nofollow { libc::AT_SYMLINK_NOFOLLOW } else { 0 } | libc::AT_EMPTY_PATH;
    // SAFETY: `path` is NUL-terminated; `st` is a valid out-pointer.
    cvt_int(unsafe { libc::fstatat(dirfd.as_raw_fd(), path.as_ptr(), &mut st, flags) })?;
    Ok(st)
}

/// `lseek(fd, 0, SEEK_CUR)`: the shared file offset.
pub fn file_offset(fd: BorrowedFd<'_>) -> io::Result<i64> {
    // SAFETY: integer arguments only.
    let off = unsafe { libc::lseek(fd.as_raw_fd(), 0, libc::SEEK_CUR) };
    if off < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(off)
    }
}

/// `readlinkat(dirfd, path)`.
pub fn readlinkat(dirfd: BorrowedFd<'_>, path: &CStr) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; 4096];
    // SAFETY: `buf` is writable for its length; `path` is NUL-terminated.
    let n = unsafe {
        libc::readlinkat(
            dirfd.as_raw_fd(),
            path.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    buf.truncate(n as usize);
    Ok(buf)
}

/// `unlinkat(dirfd, name, flags)`.
pub fn unlinkat(dirfd: BorrowedFd<'_>, name: &CStr, flags: i32) -> io::Result<()> {
    // SAFETY: `name` is NUL-terminated.
    cvt_int(unsafe { libc::unlinkat(dirfd.as_raw_fd(), name.as_ptr(), flags) }).map(drop)
}

/// `mkdirat(dirfd, name, mode)`.
pub fn mkdirat(dirfd: BorrowedFd<'_>, name: &CStr, mode: u32) -> io::Result<()> {
    // SAFETY: `name` is NUL-terminated.
    cvt_int(unsafe { libc::mkdirat(dirfd.as_raw_fd(), name.as_ptr(), mode as libc::mode_t) })
        .map(drop)
}

/// `mknodat(dirfd, name, mode, dev)`.
pub fn mknodat(dirfd: BorrowedFd<'_>, name: &CStr, mode: u32, dev: u64) -> io::Result<()> {
    // SAFETY: `name` is NUL-terminated.
    cvt_int(unsafe {
        libc::mknodat(
            dirfd.as_raw_fd(),
            name.as_ptr(),
            mode as libc::mode_t,
            dev as libc::dev_t,
        )
    })
    .map(drop)
}

/// `renameat2(olddir, old, newdir, new, flags)`.
pub fn renameat2(
    olddir: BorrowedFd<'_>,
    old: &CStr,
    newdir: BorrowedFd<'_>,
    new: &CStr,
    flags: u32,
) -> io::Result<()> {
    // SAFETY: both names are NUL-terminated.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            olddir.as_raw_fd(),
            old.as_ptr(),
            newdir.as_raw_fd(),
            new.as_ptr(),
            flags,
        )
    })
    .map(drop)
}

/// `linkat(olddir, old, newdir, new, flags)`.
pub fn linkat(
    olddir: BorrowedFd<'_>,
    old: &CStr,
    newdir: BorrowedFd<'_>,
    new: &CStr,
    flags: i32,
) -> io::Result<()> {
    // SAFETY: both names are NUL-terminated.
    cvt_int(unsafe {
        libc::linkat(
            olddir.as_raw_fd(),
            old.as_ptr(),
            newdir.as_raw_fd(),
            new.as_ptr(),
            flags,
        )
    })
    .map(drop)
}

/// `symlinkat(target, dir, name)`.
pub fn symlinkat(target: &CStr, dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
    // SAFETY: both strings are NUL-terminated.
    cvt_int(unsafe { libc::symlinkat(target.as_ptr(), dir.as_raw_fd(), name.as_ptr()) })
        .map(drop)
}

/// `chmod(path, mode)` on a path of ward's own (e.g. `/proc/self/fd/N`).
pub fn chmod(path: &CStr, mode: u32) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated.
    cvt_int(unsafe { libc::chmod(path.as_ptr(), mode as libc::mode_t) }).map(drop)
}

/// `truncate(path, len)` on a path of ward's own.
pub fn truncate(path: &CStr, len: i64) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated.
    cvt_int(unsafe { libc::truncate(path.as_ptr(), len) }).map(drop)
}

/// `faccessat(dirfd, path, mode, AT_EACCESS | AT_EMPTY_PATH)`.
pub fn faccess_fd(fd: BorrowedFd<'_>, mode: i32) -> io::Result<()> {
    // SAFETY: the empty path is a valid NUL-terminated string.
    cvt(unsafe {
        libc::syscall(
            libc::SYS_faccessat2,
            fd.as_raw_fd(),
            c"".as_ptr(),
            mode,
            libc::AT_EACCESS | libc::AT_EMPTY_PATH,
        )
    })
    .map(drop)
}

/// Sets the file status flags of an open file description (`F_SETFL`: only `O_APPEND`,
/// `O_ASYNC`, `O_DIRECT`, `O_NOATIME` and `O_NONBLOCK` are affected).
pub fn set_status_flags(fd: BorrowedFd<'_>, flags: i32) -> io::Result<()> {
    // SAFETY: integer arguments only.
    cvt_int(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags) }).map(drop)
}

/// Reads a file descriptor's status flags (`F_GETFL`).
pub fn fd_status_flags(fd: BorrowedFd<'_>) -> io::Result<i32> {
    // SAFETY: integer arguments only.
    cvt_int(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) })
}

// ---------------------------------------------------------------------------------------------
// sockets

/// `connect(fd, addr)` with raw sockaddr bytes.
pub fn connect_raw(fd: BorrowedFd<'_>, addr: &[u8]) -> io::Result<()> {
    // SAFETY: `addr` is readable for its length, which is passed as the address length.
    cvt_int(unsafe {
        libc::connect(
            fd.as_raw_fd(),
            addr.as_ptr().cast(),
            addr.len() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// `bind(fd, addr)` with raw sockaddr bytes.
pub fn bind_raw(fd: BorrowedFd<'_>, addr: &[u8]) -> io::Result<()> {
    // SAFETY: `addr` is readable for its length, which is passed as the address length.
    cvt_int(unsafe {
        libc::bind(
            fd.as_raw_fd(),
            addr.as_ptr().cast(),
            addr.len() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// `sendto(fd, data, flags, addr)` with raw sockaddr bytes.
pub fn sendto_raw(fd: BorrowedFd<'_>, data: &[u8], flags: i32, addr: &[u8]) -> io::Result<usize> {
    // SAFETY: both buffers are readable for the lengths passed.
    let n = unsafe {
        libc::sendto(
            fd.as_raw_fd(),
            data.as_ptr().cast(),
            data.len(),
            flags,
            addr.as_ptr().cast(),
            addr.len() as libc::socklen_t,
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// `getpeername(fd)` as raw sockaddr bytes.
pub fn getpeername_raw(fd: BorrowedFd<'_>) -> io::Result<Vec<u8>> {
    let mut buf = [0u8; 128];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: `buf` is writable for `len` bytes; the kernel writes at most that and updates len.
    cvt_int(unsafe { libc::getpeername(fd.as_raw_fd(), buf.as_mut_ptr().cast(), &mut len) })?;
    Ok(buf[..(len as usize).min(buf.len())].to_vec())
}

/// `getsockopt(fd, SOL_SOCKET, opt)` for an integer option.
pub fn socket_int_option(fd: BorrowedFd<'_>, opt: i32) -> io::Result<i32> {
    let mut val: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `val`/`len` are valid out-pointers of the right size.
    cvt_int(unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            opt,
            (&mut val as *mut libc::c_int).cast(),
            &mut len,
        )
    })?;
    Ok(val)
}

// ---------------------------------------------------------------------------------------------
// credentials

/// Effective uid of ward.
pub fn geteuid() -> u32 {
    // SAFETY: cannot fail.
    unsafe { libc::geteuid() }
}

/// Sets the calling thread's filesystem uid and gid (raw syscalls: per-thread, unlike glibc's
/// process-wide set*id wrappers). Returns the previous values.
pub fn set_thread_fs_ids(uid: u32, gid: u32) -> (u32, u32) {
    // SAFETY: setfsuid/setfsgid take integers and only affect the calling thread.
    unsafe {
        let old_gid = libc::syscall(libc::SYS_setfsgid, gid) as u32;
        let old_uid = libc::syscall(libc::SYS_setfsuid, uid) as u32;
        (old_uid, old_gid)
    }
}

/// Sets the calling thread's supplementary groups (raw syscall: per-thread).
pub fn set_thread_groups(groups: &[u32]) -> io::Result<()> {
    // SAFETY: `groups` is readable for its length.
    cvt(unsafe { libc::syscall(libc::SYS_setgroups, groups.len(), groups.as_ptr()) }).map(drop)
}

// ---------------------------------------------------------------------------------------------
// the child side

/// Closes every descriptor from `from` upwards except those in `keep` (best effort).
pub fn close_fds_from(from: i32, keep: &[i32]) {
    let mut fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    fds.sort_unstable();
    for fd in fds {
        if fd >= from && !keep.contains(&fd) {
            // SAFETY: closing a descriptor number; ownership of these inherited descriptors is
            // not held by any Rust object in the single-threaded init process.
            unsafe {
                libc::close(fd);
            }
        }
    }
}

/// Closes a raw descriptor that no Rust object owns.
pub fn close_raw(fd: RawFd) {
    // SAFETY: the caller passes a descriptor number it owns and no object wraps.
    unsafe {
        libc::close(fd);
    }
}

/// `execve(path, argv, envp)`; returns only on failure.
pub fn execve(path: &CStr, argv: &[&CStr], envp: &[&CStr]) -> io::Error {
    let mut a: Vec<*const libc::c_char> = argv.iter().map(|s| s.as_ptr()).collect();
    a.push(std::ptr::null());
    let mut e: Vec<*const libc::c_char> = envp.iter().map(|s| s.as_ptr()).collect();
    e.push(std::ptr::null());
    // SAFETY: all pointers are to NUL-terminated strings that outlive the call; both arrays
    // are NULL-terminated.
    unsafe {
        libc::execve(path.as_ptr(), a.as_ptr(), e.as_ptr());
    }
    io::Error::last_os_error()
}

/// `execvpe`: searches `PATH` like a shell.
pub fn execvpe(file: &CStr, argv: &[&CStr], envp: &[&CStr]) -> io::Error {
    let mut a: Vec<*const libc::c_char> = argv.iter().map(|s| s.as_ptr()).collect();
    a.push(std::ptr::null());
    let mut e: Vec<*const libc::c_char> = envp.iter().map(|s| s.as_ptr()).collect();
    e.push(std::ptr::null());
    // SAFETY: all pointers are to NUL-terminated strings that outlive the call; both arrays
    // are NULL-terminated.
    unsafe {
        libc::execvpe(file.as_ptr(), a.as_ptr(), e.as_ptr());
    }
    io::Error::last_os_error()
}

/// Borrows a raw descriptor for the duration of a call.
///
/// The caller guarantees `fd` stays open while the borrow is used.
pub fn borrow_raw(fd: RawFd) -> BorrowedFd<'static> {
    // SAFETY: callers only pass descriptors that stay open for the borrow's use (standard
    // streams, AT_FDCWD-like sentinels are never passed here).
    unsafe { BorrowedFd::borrow_raw(fd) }
}

/// A pipe with both ends close-on-exec.
pub fn pipe_cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0i32; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe2 to fill.
    cvt_int(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok((owned(fds[0] as libc::c_long), owned(fds[1] as libc::c_long)))
}

/// Process group of ward.
pub fn getpgrp() -> i32 {
    // SAFETY: cannot fail.
    unsafe { libc::getpgrp() }
}

/// Arranges for the spawned `ward __init` to find ward's pipes at fds 3 (read) and 4 (write)
/// and to die with ward.
pub fn set_child_setup(cmd: &mut std::process::Command, read: RawFd, write: RawFd, ward_pid: i32) {
    use std::os::unix::process::CommandExt;
    let setup = move || -> io::Result<()> {
        // Only async-signal-safe calls between fork and exec: dup2, prctl, getppid, kill.
        // SAFETY: integer arguments only; `read`/`write` are open in the forked child.
        unsafe {
            if libc::dup2(read, crate::child::SPEC_FD) < 0 || libc::dup2(write, crate::child::REPORT_FD) < 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) < 0 {
                return Err(io::Error::last_os_error());
            }
            // ward died between fork and prctl: don't live on unsupervised.
            if libc::getppid() != ward_pid {
                libc::_exit(125);
            }
        }
        Ok(())
    };
    // SAFETY: the closure above only performs async-signal-safe system calls and allocates
    // nothing, as required between fork and exec in a multi-threaded parent.
    unsafe {
        cmd.pre_exec(setup);
    }
}
