//! The child side of a session: the code `ward __init` runs after any sandbox setup, to put
//! itself under ward's filter and become the command.
//!
//! Protocol over two inherited descriptors (ward sets them up when it spawns `ward __init`):
//! fd 3 is read by the child (ward's spec, then the go-ahead byte), fd 4 is written by it
//! (`ready PID FD` or `error MESSAGE`). Between installing the filter and the go-ahead, the
//! child makes no trapped call: nobody would answer it yet.

use crate::bpf;
use crate::sys;
use crate::syscalls;
use std::ffi::CString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};

/// Descriptor the child reads from.
pub const SPEC_FD: i32 = 3;
/// Descriptor the child writes to.
pub const REPORT_FD: i32 = 4;

fn reader() -> std::mem::ManuallyDrop<std::fs::File> {
    // SAFETY: fd 3 is the read end ward installed for this process; ManuallyDrop keeps this
    // temporary File from closing it.
    std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(SPEC_FD) })
}

fn writer() -> std::mem::ManuallyDrop<std::fs::File> {
    // SAFETY: fd 4 is the write end ward installed for this process; ManuallyDrop keeps this
    // temporary File from closing it.
    std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(REPORT_FD) })
}

/// Reads the spec ward sent (length-prefixed).
pub fn read_spec() -> io::Result<Vec<u8>> {
    let mut r = reader();
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len) as usize;
    if len > 64 << 20 {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "spec too large"));
    }
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

/// Tells ward that setup failed (it prints the message and exits with 125).
pub fn report_error(message: &str) {
    let mut w = writer();
    let _ = writeln!(w, "error {}", message.replace('\n', " "));
}

/// Installs the notify filter, hands the listener to ward, waits for the go-ahead and execs
/// `argv` (searching `PATH`). `pid` is this process's pid as ward sees it. Returns only on
/// failure (the error is reported to ward too).
pub fn install_and_exec(pid: i32, argv: &[Vec<u8>], env: &[Vec<u8>]) -> io::Error {
    match try_install_and_exec(pid, argv, env) {
        Ok(never) => match never {},
        Err(e) => {
            report_error(&e.to_string());
            e
        }
    }
}

enum Never {}

fn try_install_and_exec(pid: i32, argv: &[Vec<u8>], env: &[Vec<u8>]) -> io::Result<Never> {
    let cargv: Vec<CString> = argv
        .iter()
        .map(|a| CString::new(a.clone()))
        .collect::<Result<_, _>>()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "argument contains a NUL byte"))?;
    let cenv: Vec<CString> = env
        .iter()
        .map(|a| CString::new(a.clone()))
        .collect::<Result<_, _>>()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "environment contains a NUL byte"))?;
    if cargv.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    }
    let prog: Vec<libc::sock_filter> = bpf::build(&syscalls::notify_rules())
        .map_err(|e| io::Error::other(e.to_string()))?
        .into_iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect();
    // Without CAP_SYS_ADMIN the kernel requires no_new_privs to install a filter.
    if sys::geteuid() != 0 {
        sys::set_no_new_privs()?;
    }
    let listener = sys::install_notify_filter(&prog)?;
    {
        let mut w = writer();
        writeln!(w, "ready {pid} {}", listener.as_raw_fd())?;
        w.flush()?;
    }
    let mut go = [0u8; 1];
    let n = reader().read(&mut go)?;
    if n != 1 {
        return Err(io::Error::other("ward went away before the start"));
    }
    // The tree must never hold the listener: it could answer its own calls.
    drop(listener);
    sys::close_raw(SPEC_FD);
    sys::close_raw(REPORT_FD);
    sys::unblock_all_signals();
    let args: Vec<&std::ffi::CStr> = cargv.iter().map(|c| c.as_c_str()).collect();
    let envs: Vec<&std::ffi::CStr> = cenv.iter().map(|c| c.as_c_str()).collect();
    // The exec is the first trapped call: ward records it as the session's root exec.
    let err = sys::execvpe(args[0], &args, &envs);
    // Reporting is no longer possible (fds closed); print for the user.
    let _ = writeln!(
        io::stderr(),
        "ward: cannot run {}: {err}",
        String::from_utf8_lossy(&argv[0])
    );
    std::process::exit(if err.kind() == io::ErrorKind::NotFound { 127 } else { 126 });
}
