//! Kernel probes: small forked children that try a feature and report which step failed
//! (for `check`), and raw system calls the tests use to attack the wall.
//!
//! The forked children of the probes may be made from a multi-threaded process (the
//! supervisor), so between `fork` and `_exit` they make only raw system calls on data
//! prepared before the fork: no allocation, no locks.

use std::io;
use std::os::fd::AsRawFd;

/// Which step of a probe failed, and with which errno. Step 0 means success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeResult {
    /// 0 = everything worked; otherwise the 1-based index of the failed step.
    pub step: u32,
    /// errno of the failed step.
    pub errno: i32,
}

/// Runs `child` in a forked child that reports through a pipe. `child` must only make raw
/// system calls (see the module docs) and return the result to report.
fn run_probe(child: &dyn Fn() -> ProbeResult) -> io::Result<ProbeResult> {
    let (r, w) = super::pipe()?;
    // SAFETY: the child only runs `child`, which by this function's contract makes raw system
    // calls on memory prepared before the fork, writes 8 bytes to the pipe and calls _exit;
    // it touches no lock another thread could have held.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let res = child();
        let buf = [res.step, res.errno as u32];
        // SAFETY: `buf` is 8 readable bytes; the write end is open in the child.
        unsafe { libc::write(w.as_raw_fd(), buf.as_ptr().cast(), 8) };
        // SAFETY: _exit never returns.
        unsafe { libc::_exit(0) };
    }
    drop(w);
    let mut buf = [0u32; 2];
    // SAFETY: `buf` is 8 writable bytes.
    let n = unsafe { libc::read(r.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
    let _ = super::waitpid(pid, false);
    if n != 8 {
        return Err(io::Error::other("probe child died without reporting"));
    }
    Ok(ProbeResult {
        step: buf[0],
        errno: buf[1] as i32,
    })
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Steps of [`user_namespaces`], in order.
pub const USERNS_STEPS: [&str; 6] = [
    "unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID|CLONE_NEWNET)",
    "write /proc/self/setgroups",
    "write /proc/self/uid_map",
    "write /proc/self/gid_map",
    "make / private in the new mount namespace",
    "mount a tmpfs in the new mount namespace",
];

/// Tries what the sandbox does first: new user, mount, pid and network namespaces, the id
/// maps, and a mount inside. Reports the first step that failed.
pub fn user_namespaces() -> io::Result<ProbeResult> {
    let uid = super::geteuid();
    let gid = super::getegid();
    let uid_map = format!("{uid} {uid} 1\n");
    let gid_map = format!("{gid} {gid} 1\n");
    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWNET;
    run_probe(&|| {
        let fail = |step| ProbeResult {
            step,
            errno: errno(),
        };
        // SAFETY: raw system calls on strings and buffers prepared before the fork.
        unsafe {
            if libc::unshare(flags) != 0 {
                return fail(1);
            }
            let writes: [(&std::ffi::CStr, &[u8]); 3] = [
                (c"/proc/self/setgroups", b"deny"),
                (c"/proc/self/uid_map", uid_map.as_bytes()),
                (c"/proc/self/gid_map", gid_map.as_bytes()),
            ];
            for (i, (path, data)) in writes.iter().enumerate() {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0
                    || libc::write(fd, data.as_ptr().cast(), data.len()) != data.len() as isize
                {
                    return fail(2 + i as u32);
                }
                libc::close(fd);
            }
            if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return fail(5);
            }
            if libc::mount(
                c"tmpfs".as_ptr(),
                c"/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                std::ptr::null(),
            ) != 0
            {
                return fail(6);
            }
        }
        ProbeResult { step: 0, errno: 0 }
    })
}

/// `SECCOMP_IOCTL_NOTIF_SET_FLAGS`, `SECCOMP_IOW(4, __u64)` (not in older headers).
pub const SECCOMP_IOCTL_NOTIF_SET_FLAGS: libc::c_ulong = 0x4008_2104;
/// `SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP`.
pub const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;

/// Steps of [`user_notification`], in order.
pub const NOTIF_STEPS: [&str; 3] = [
    "prctl(PR_SET_NO_NEW_PRIVS)",
    "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER)",
    "ioctl(SECCOMP_IOCTL_NOTIF_SET_FLAGS, SYNC_WAKE_UP)",
];

/// Installs an allow-all filter with a notification listener in a child and sets the
/// sync-wake-up flag on it.
pub fn user_notification() -> io::Result<ProbeResult> {
    let allow = [libc::sock_filter {
        code: (libc::BPF_RET | libc::BPF_K) as u16,
        jt: 0,
        jf: 0,
        k: libc::SECCOMP_RET_ALLOW,
    }];
    let prog = libc::sock_fprog {
        len: 1,
        filter: allow.as_ptr() as *mut libc::sock_filter,
    };
    run_probe(&|| {
        let fail = |step| ProbeResult {
            step,
            errno: errno(),
        };
        // SAFETY: raw system calls on `prog` and `allow`, prepared before the fork.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return fail(1);
            }
            let fd = libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
                &prog as *const libc::sock_fprog,
            );
            if fd < 0 {
                return fail(2);
            }
            let flags: u64 = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
            if libc::ioctl(fd as libc::c_int, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) != 0 {
                return fail(3);
            }
        }
        ProbeResult { step: 0, errno: 0 }
    })
}

/// A raw system call with up to three arguments; returns `-errno` on failure like the kernel.
pub fn raw_syscall(nr: libc::c_long, a: libc::c_long, b: libc::c_long, c: libc::c_long) -> i64 {
    // SAFETY: the caller (a test probe) chooses calls whose pointer arguments are null or
    // valid; the kernel validates everything else.
    let r = unsafe { libc::syscall(nr, a, b, c) };
    if r < 0 {
        -(errno() as i64)
    } else {
        r as i64
    }
}

/// `getpid` through the x32 ABI (system call number with bit 30 set).
#[cfg(target_arch = "x86_64")]
pub fn x32_getpid() -> i64 {
    raw_syscall(0x4000_0000 | libc::SYS_getpid, 0, 0, 0)
}

/// `getpid` through the 32-bit `int 0x80` gate (i386 number 20).
#[cfg(target_arch = "x86_64")]
pub fn int80_getpid() -> i64 {
    let ret: i64;
    // SAFETY: `int 0x80` with eax = 20 (i386 getpid) takes no memory arguments; the kernel
    // may clobber r8-r11 on this path, so they are declared clobbered.
    unsafe {
        std::arch::asm!(
            "int 0x80",
            inlateout("rax") 20i64 => ret,
            out("r8") _, out("r9") _, out("r10") _, out("r11") _,
            options(nostack)
        );
    }
    ret
}

/// `io_uring_setup(1, &params)`: returns the ring fd or `-errno`.
pub fn io_uring_setup() -> i64 {
    let mut params = [0u8; 120];
    // SAFETY: io_uring_params is 120 bytes; the buffer is writable and zeroed as required.
    let r = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1, params.as_mut_ptr()) };
    if r < 0 {
        -(errno() as i64)
    } else {
        // SAFETY: the ring fd is ours; close it.
        unsafe { libc::close(r as libc::c_int) };
        r as i64
    }
}

/// `ioctl(fd, TIOCSTI, &c)`: pushes a byte into a terminal's input.
pub fn tiocsti(fd: libc::c_int) -> i64 {
    let c: u8 = b'#';
    // SAFETY: TIOCSTI reads one byte from the pointer, which is valid.
    let r = unsafe { libc::ioctl(fd, libc::TIOCSTI, &c as *const u8) };
    if r < 0 {
        -(errno() as i64)
    } else {
        r as i64
    }
}

/// `pidfd_getfd(pidfd_open(pid), fd)`: duplicates another process's descriptor, as the
/// supervisor does with the notification listener. Returns the new fd or `-errno`.
pub fn pidfd_getfd(pid: libc::pid_t, fd: libc::c_int) -> i64 {
    let pidfd = raw_syscall(libc::SYS_pidfd_open, pid as libc::c_long, 0, 0);
    if pidfd < 0 {
        return pidfd;
    }
    let r = raw_syscall(
        libc::SYS_pidfd_getfd,
        pidfd as libc::c_long,
        fd as libc::c_long,
        0,
    );
    // SAFETY: both descriptors (when valid) are ours and closed once.
    unsafe {
        libc::close(pidfd as libc::c_int);
        if r >= 0 {
            libc::close(r as libc::c_int);
        }
    }
    r
}

/// Installs a user-notification filter on top of whatever is installed (as the supervisor
/// does after `seal`) that traps `trapped`, answers every notification from a thread with
/// `-ENOTUNIQ` (a sentinel none of these calls returns on its own), then makes each call of
/// `calls` and returns the raw results. Shows which filter's answer wins.
pub fn under_notifier(trapped: &[libc::c_long], calls: &[libc::c_long]) -> io::Result<Vec<i64>> {
    let arch = crate::wall::native_audit_arch();
    let mut prog = vec![
        libc::sock_filter {
            code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16,
            jt: 0,
            jf: 0,
            k: 4,
        },
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 1,
            jf: 0,
            k: arch,
        },
        libc::sock_filter {
            code: (libc::BPF_RET | libc::BPF_K) as u16,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ALLOW,
        },
        libc::sock_filter {
            code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16,
            jt: 0,
            jf: 0,
            k: 0,
        },
    ];
    for &nr in trapped {
        prog.push(libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: nr as u32,
        });
        prog.push(libc::sock_filter {
            code: (libc::BPF_RET | libc::BPF_K) as u16,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_USER_NOTIF,
        });
    }
    prog.push(libc::sock_filter {
        code: (libc::BPF_RET | libc::BPF_K) as u16,
        jt: 0,
        jf: 0,
        k: libc::SECCOMP_RET_ALLOW,
    });
    super::set_no_new_privs()?;
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_mut_ptr(),
    };
    // SAFETY: `fprog` points at `prog`, alive for the call; the kernel copies the program.
    let listener = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const libc::sock_fprog,
        )
    };
    if listener < 0 {
        return Err(io::Error::last_os_error());
    }
    let listener = listener as libc::c_int;
    std::thread::spawn(move || loop {
        // SAFETY: seccomp_notif is plain data; all-zero is the required input.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: `req` is a writable seccomp_notif, as NOTIF_RECV expects.
        if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) } != 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return;
        }
        let mut resp = libc::seccomp_notif_resp {
            id: req.id,
            val: 0,
            error: -libc::ENOTUNIQ,
            flags: 0,
        };
        // SAFETY: `resp` is a valid seccomp_notif_resp for the request just received.
        unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
    });
    Ok(calls.iter().map(|&nr| raw_syscall(nr, 0, 0, 0)).collect())
}

/// `execvp` without any of std's preparation (std resets SIGPIPE and more), the way ward's
/// own child execs the command. Returns only on failure.
pub fn execvp_raw(argv: &[String]) -> io::Error {
    let cargs: Vec<std::ffi::CString> = match argv
        .iter()
        .map(|a| std::ffi::CString::new(a.as_bytes()))
        .collect()
    {
        Ok(v) => v,
        Err(_) => return io::Error::new(io::ErrorKind::InvalidInput, "argument holds a NUL byte"),
    };
    if cargs.is_empty() {
        return io::Error::new(io::ErrorKind::InvalidInput, "no command");
    }
    let mut ptrs: Vec<*const libc::c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: `ptrs` is a NULL-terminated array of NUL-terminated strings that outlive the call.
    unsafe { libc::execvp(ptrs[0], ptrs.as_ptr()) };
    io::Error::last_os_error()
}
