//! Builders for actors and operations, for tests and replays: `read("/etc/hostname")`,
//! `exec(&["git", "status"])`, `connect("1.2.3.4:443", Some("example.com"))`.

use std::net::SocketAddr;
use ward_event::{Actor, OpKind, Operation, PathBytes, SockAddr};

/// A process `pid` running `exe` (parent 1, thread = pid).
pub fn actor(pid: i32, exe: &str) -> Actor {
    Actor { pid, tid: pid, ppid: 1, exe: PathBytes::from(exe) }
}

fn file(kind: OpKind, syscall: &str, path: &str) -> Operation {
    Operation::new(kind, syscall).with_path(path)
}

/// `openat(O_RDONLY)`.
pub fn read(path: &str) -> Operation {
    Operation { flags: Some("O_RDONLY|O_CLOEXEC".into()), ..file(OpKind::FileRead, "openat", path) }
}

/// `openat(O_WRONLY|O_TRUNC)`.
pub fn write(path: &str) -> Operation {
    Operation { flags: Some("O_WRONLY|O_TRUNC".into()), ..file(OpKind::FileWrite, "openat", path) }
}

/// `openat(O_CREAT)` / `mkdir`.
pub fn create(path: &str) -> Operation {
    Operation { flags: Some("O_WRONLY|O_CREAT|O_EXCL".into()), ..file(OpKind::FileCreate, "openat", path) }
}

/// `unlink`.
pub fn delete(path: &str) -> Operation {
    file(OpKind::FileDelete, "unlinkat", path)
}

/// `rename(from, to)`.
pub fn rename(from: &str, to: &str) -> Operation {
    Operation { path2: Some(PathBytes::from(to)), ..file(OpKind::FileRename, "renameat2", from) }
}

/// `chmod`.
pub fn chmod(path: &str, mode: &str) -> Operation {
    Operation { flags: Some(mode.into()), ..file(OpKind::FileChmod, "fchmodat", path) }
}

/// A directory scan.
pub fn list(path: &str) -> Operation {
    file(OpKind::DirList, "getdents64", path)
}

/// `execve(argv[0], argv)`; the path is argv[0] as given.
pub fn exec(argv: &[&str]) -> Operation {
    Operation {
        argv: Some(argv.iter().map(|a| PathBytes::from(*a)).collect()),
        ..file(OpKind::ProcExec, "execve", argv.first().copied().unwrap_or(""))
    }
}

/// An inet address from `ip:port` or `[v6]:port`.
pub fn inet(addr: &str) -> SockAddr {
    match addr.parse::<SocketAddr>() {
        Ok(SocketAddr::V4(a)) => SockAddr::Inet { ip: *a.ip(), port: a.port() },
        Ok(SocketAddr::V6(a)) => SockAddr::Inet6 { ip: *a.ip(), port: a.port(), scope_id: 0 },
        Err(e) => SockAddr::Invalid { reason: format!("{addr}: {e}") },
    }
}

/// `connect` to `addr`, which DNS said was `domain`.
pub fn connect(addr: &str, domain: Option<&str>) -> Operation {
    Operation {
        addr: Some(inet(addr)),
        domain: domain.map(String::from),
        ..Operation::new(OpKind::NetConnect, "connect")
    }
}

/// `sendto` with a payload.
pub fn send(addr: &str, domain: Option<&str>, payload: &[u8]) -> Operation {
    Operation {
        addr: Some(inet(addr)),
        domain: domain.map(String::from),
        payload: Some(payload.to_vec()),
        ..Operation::new(OpKind::NetSend, "sendto")
    }
}

/// `bind`.
pub fn bind(addr: &str) -> Operation {
    Operation { addr: Some(inet(addr)), ..Operation::new(OpKind::NetBind, "bind") }
}

/// A DNS query for `domain`.
pub fn dns(domain: &str) -> Operation {
    Operation { domain: Some(domain.into()), ..Operation::new(OpKind::DnsQuery, "sendto") }
}

/// `connect` to a unix socket at `path`.
pub fn ipc(path: &str) -> Operation {
    Operation {
        addr: Some(SockAddr::Unix { path: PathBytes::from(path) }),
        ..file(OpKind::IpcConnect, "connect", path)
    }
}

/// `connect` to an abstract unix socket.
pub fn ipc_abstract(name: &str) -> Operation {
    Operation {
        addr: Some(SockAddr::UnixAbstract { name: PathBytes::from(name) }),
        ..Operation::new(OpKind::IpcConnect, "connect")
    }
}
