//! Test helper (not installed): enters the sandbox of a plan, seals it, then execs a command
//! or runs one built-in probe and prints `result: …`.
//!
//! ```text
//! ward-sandbox-probe PLAN.json [--no-seal] -- CMD ARGS…
//! ward-sandbox-probe PLAN.json [--no-seal] --builtin NAME [ARG]
//! ```
//!
//! This is what `ward __init` does, minus the supervisor's notification filter.

use std::io::{Read, Write};
use ward_sandbox::sys::{self, probe};
use ward_sandbox::{enter, seal, SandboxPlan};

fn errno_name(r: i64) -> String {
    if r < 0 {
        ward_event::errno_name(-r as i32)
    } else {
        format!("ok({r})")
    }
}

fn builtin(name: &str, arg: Option<&str>, pid: i32) -> String {
    match name {
        #[cfg(target_arch = "x86_64")]
        "x32" => errno_name(probe::x32_getpid()),
        #[cfg(target_arch = "x86_64")]
        "int80" => errno_name(probe::int80_getpid()),
        "io_uring" => errno_name(probe::io_uring_setup()),
        "unshare" => errno_name(probe::raw_syscall(
            libc::SYS_unshare,
            libc::CLONE_NEWUSER as i64,
            0,
            0,
        )),
        "clone3" => errno_name(probe::raw_syscall(libc::SYS_clone3, 0, 0, 0)),
        "bpf" => errno_name(probe::raw_syscall(libc::SYS_bpf, 0, 0, 0)),
        "socket" => {
            let fam: i64 = arg
                .and_then(|a| a.parse().ok())
                .unwrap_or(libc::AF_PACKET as i64);
            errno_name(probe::raw_syscall(
                libc::SYS_socket,
                fam,
                libc::SOCK_DGRAM as i64,
                0,
            ))
        }
        "tiocsti" => errno_name(probe::tiocsti(0)),
        "connect" => match std::net::TcpStream::connect(arg.unwrap_or("127.0.0.1:1")) {
            Ok(_) => "connected".into(),
            Err(e) => format!(
                "error {}",
                e.raw_os_error()
                    .map(ward_event::errno_name)
                    .unwrap_or_default()
            ),
        },
        "unix" => match std::os::unix::net::UnixStream::connect(arg.unwrap_or("/nonexistent")) {
            Ok(_) => "connected".into(),
            Err(e) => format!(
                "error {}",
                e.raw_os_error()
                    .map(ward_event::errno_name)
                    .unwrap_or_default()
            ),
        },
        "loopback" => {
            let run = || -> std::io::Result<String> {
                let l = std::net::TcpListener::bind("127.0.0.1:0")?;
                let mut c = std::net::TcpStream::connect(l.local_addr()?)?;
                let (mut s, _) = l.accept()?;
                c.write_all(b"ping")?;
                let mut buf = [0u8; 4];
                s.read_exact(&mut buf)?;
                Ok(String::from_utf8_lossy(&buf).into_owned())
            };
            match run() {
                Ok(s) => format!("loopback {s}"),
                Err(e) => format!("loopback error {e}"),
            }
        }
        "kill" => {
            let target: i32 = arg.and_then(|a| a.parse().ok()).unwrap_or(1);
            match sys::kill(target, 0) {
                Ok(()) => "signalled".into(),
                Err(e) => format!(
                    "error {}",
                    ward_event::errno_name(e.raw_os_error().unwrap_or(0))
                ),
            }
        }
        "getfd" => {
            // PID:FD — what the supervisor does to take the listener fd.
            let (pid, fd) = arg.and_then(|a| a.split_once(':')).unwrap_or(("0", "0"));
            errno_name(probe::pidfd_getfd(
                pid.parse().unwrap_or(0),
                fd.parse().unwrap_or(0),
            ))
        }
        "bench" => {
            // ns per getppid, over a million calls (the wall's cost on an allowed call).
            let n = 1_000_000;
            let start = std::time::Instant::now();
            for _ in 0..n {
                probe::raw_syscall(libc::SYS_getppid, 0, 0, 0);
            }
            format!(
                "{:.0} ns per getppid",
                start.elapsed().as_nanos() as f64 / n as f64
            )
        }
        "notifier" => {
            // The supervisor's filter on top of the wall traps io_uring_setup (a backstop) and
            // bpf (an errno entry); which answer does each call get?
            let calls = [libc::SYS_io_uring_setup, libc::SYS_bpf];
            match probe::under_notifier(&calls, &calls) {
                Ok(r) => r.into_iter().map(errno_name).collect::<Vec<_>>().join(" "),
                Err(e) => format!("error {e}"),
            }
        }
        "caps" => format!(
            "caps={:#x} nnp={}",
            sys::effective_capabilities().unwrap_or(u64::MAX),
            sys::no_new_privs()
        ),
        "pid" => {
            // Print, then wait for stdin to close so the test can look at us from outside.
            println!("result: pid={pid} inner={}", sys::getpid());
            let _ = std::io::stdout().flush();
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
            "done".into()
        }
        other => format!("unknown builtin {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(plan_path) = args.first() else {
        eprintln!(
            "usage: ward-sandbox-probe PLAN.json [--no-seal] (-- CMD… | --builtin NAME [ARG])"
        );
        std::process::exit(2);
    };
    let plan: SandboxPlan = match std::fs::read(plan_path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("probe: plan {plan_path}: {e}");
            std::process::exit(2);
        }
    };
    let mut rest = &args[1..];
    let mut do_seal = true;
    if rest.first().map(String::as_str) == Some("--no-seal") {
        do_seal = false;
        rest = &rest[1..];
    }
    let entered = match enter(&plan) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("probe: {e}");
            std::process::exit(125);
        }
    };
    if do_seal {
        if let Err(e) = seal(&plan) {
            eprintln!("probe: {e}");
            std::process::exit(125);
        }
    }
    match rest.first().map(String::as_str) {
        Some("--") if rest.len() > 1 => {
            let err = probe::execvp_raw(&rest[1..]);
            eprintln!("probe: exec {}: {err}", rest[1]);
            std::process::exit(127);
        }
        Some("--builtin") if rest.len() > 1 => {
            let out = builtin(&rest[1], rest.get(2).map(String::as_str), entered.pid);
            println!("result: {out}");
        }
        _ => {
            eprintln!("probe: nothing to run");
            std::process::exit(2);
        }
    }
}
