//! One handler per class of trapped call: read the arguments out of the caller's memory,
//! resolve paths and addresses the way the kernel would, and say how to carry the call out.
//!
//! The rule throughout is *emulate, don't continue*: opens, path mutations, connects, binds
//! and datagram sends are performed by ward itself on the checked object (the caller's
//! buffers are read once; rewriting them afterwards changes nothing). Only exec must be
//! continued; it is verified at the process's next trapped call.

use crate::flags;
use crate::pathutil;
use crate::proctable::{PendingExec, ProcFacts};
use crate::supervisor::{Notif, Shared};
use crate::syscalls::{self, Class};
use crate::sys;
use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use ward_event::{Actor, Decision, OpKind, Operation, PathBytes, SockAddr};

/// How to answer the kernel.
pub enum Reply {
    /// Fail with this errno.
    Errno(i32),
    /// Succeed with this value.
    Value(i64),
    /// Let the kernel run the call.
    Continue,
    /// Inject this descriptor and return its number.
    InjectFd {
        /// Ours; closed after injection.
        fd: OwnedFd,
        /// `O_CLOEXEC` on the injected descriptor.
        cloexec: bool,
    },
}

/// A closure that carries the call out; it may attach a note to the event.
pub type PerformFn = Box<dyn FnOnce(&Shared) -> (Reply, Option<String>) + Send>;

/// How an allowed call is carried out.
pub enum Perform {
    /// A fixed answer.
    Reply(Reply),
    /// Carried out on the worker.
    Now(PerformFn),
    /// Carried out on a thread of its own (it may block).
    Deferred(PerformFn),
}

/// A handler's result.
pub enum Handled {
    /// Answer without an event (a send without destination, a directory read mid-scan).
    Quiet(Reply),
    /// An operation to decide, record and carry out.
    Op {
        /// Who.
        actor: Actor,
        /// What.
        op: Operation,
        /// How, if allowed.
        perform: Perform,
        /// The errno of a denial (`EACCES` for file access, `EPERM` otherwise).
        deny_errno: i32,
        /// A decision already made (ward's own protections), skipping the policy.
        decision: Option<Decision>,
    },
}

fn op_handled(actor: Actor, op: Operation, perform: Perform) -> Handled {
    let deny_errno = if op.op_kind().is_file_access() {
        libc::EACCES
    } else {
        libc::EPERM
    };
    Handled::Op {
        actor,
        op,
        perform,
        deny_errno,
        decision: None,
    }
}

fn fail(actor: Actor, op: Operation, errno: i32) -> Handled {
    op_handled(actor, op, Perform::Reply(Reply::Errno(errno)))
}

fn errno_of(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

fn cstr(bytes: &[u8]) -> Result<CString, i32> {
    CString::new(bytes.to_vec()).map_err(|_| libc::EINVAL)
}

/// Dispatches a notification.
pub fn handle(sh: &Arc<Shared>, n: &Notif) -> Handled {
    let Some(trap) = syscalls::trap_for(n.nr) else {
        // Not ours (a filter rule this version does not know): let it run.
        return Handled::Quiet(Reply::Continue);
    };
    // A process that exec'd since its last call: verify it first (this also drops the facts
    // cached from before the exec, so the actor below names the new executable).
    if let Some(pid) = sh.procs.pid_of(n.tid) {
        if let Some(h) = verify_pending_exec(sh, pid) {
            return h;
        }
    }
    let (actor, facts) = sh.procs.actor(n.tid);
    let ctx = Ctx {
        sh,
        n,
        facts: facts.as_ref(),
        actor: &actor,
        refused: std::cell::Cell::new(None),
    };
    let result = match trap.class {
        Class::Open => ctx.open(trap.name),
        Class::Dents => ctx.dents(trap.name),
        Class::Exec => ctx.exec(trap.name),
        Class::Socket => ctx.socket_op(trap.name),
        Class::SocketCreate => ctx.socket_create(),
        Class::Send => ctx.send(trap.name),
        Class::FsMutation => ctx.fs_mutation(trap.name),
        Class::Signal => ctx.signal(trap.name),
        Class::Escape => ctx.escape(trap.name, trap.reason),
    };
    // A lookup ward refused on its own authority (a magic link of a process outside the tree)
    // is recorded as ward's denial, not as the kernel's error.
    let result = match (result, ctx.refused.get()) {
        (Ok(Handled::Op { actor, op, perform: Perform::Reply(Reply::Errno(e)), deny_errno, decision: None }), Some(reason)) => {
            Ok(Handled::Op {
                actor,
                op,
                perform: Perform::Reply(Reply::Errno(e)),
                deny_errno,
                decision: Some(Decision::builtin_deny("proc-outside", reason)),
            })
        }
        (r, _) => r,
    };
    match result {
        Ok(h) => h,
        // The caller's memory could not be read (or it vanished): answer like the kernel.
        Err(errno) => Handled::Quiet(Reply::Errno(errno)),
    }
}

/// Checks that a process which exec'd since its last trapped call runs what ward checked.
fn verify_pending_exec(sh: &Arc<Shared>, pid: i32) -> Option<Handled> {
    let pending = sh.procs.take_pending_exec(pid)?;
    // Its facts (exe, uid) changed with the exec.
    sh.procs.forget_process(pid);
    let (actor, _) = sh.procs.actor(pid);
    let actor = &actor;
    let exe = format!("/proc/{}/exe", actor.pid);
    let st = std::fs::metadata(&exe).ok()?;
    use std::os::unix::fs::MetadataExt;
    let now = (st.dev(), st.ino());
    if now == pending.expected || now == pending.before {
        return None;
    }
    sh.stats
        .exec_mismatch
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let _ = sys::kill(actor.pid, libc::SIGKILL);
    let mut op = Operation::new(OpKind::ProcExec, "execve").with_path(pending.path);
    op.detail = Some(format!(
        "exec ran something other than what was checked ({}): process killed",
        PathBytes::from(std::fs::read_link(&exe).unwrap_or_default())
    ));
    let decision = Decision::builtin_deny("exec-verify", "executable swapped after the check");
    sh.record(
        ward_event::Timestamp::now(),
        actor.clone(),
        op,
        ward_event::Outcome::Err(libc::EPERM),
        decision,
    );
    Some(Handled::Quiet(Reply::Errno(libc::EPERM)))
}

struct Ctx<'a> {
    sh: &'a Arc<Shared>,
    n: &'a Notif,
    facts: Option<&'a ProcFacts>,
    actor: &'a Actor,
    /// Set when ward itself refused part of a lookup (with the reason).
    refused: std::cell::Cell<Option<&'static str>>,
}

/// Where a relative path starts.
enum Base {
    /// The tree's root (absolute paths).
    Root,
    /// A directory of ours (the caller's cwd or dirfd, reopened).
    Dir(OwnedFd),
}

impl<'a> Ctx<'a> {
    fn arg(&self, i: usize) -> u64 {
        self.n.args[i]
    }

    /// A duplicate of the caller's descriptor `fd` (pidfd cached per process; a stale one,
    /// left by a process whose pid was reused, is replaced once).
    fn dup_fd(&self, fd: i32) -> std::io::Result<OwnedFd> {
        let pidfd = self.sh.procs.pidfd(self.actor.pid, false)?;
        match sys::pidfd_getfd(pidfd.as_fd(), fd) {
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {
                let pidfd = self.sh.procs.pidfd(self.actor.pid, true)?;
                sys::pidfd_getfd(pidfd.as_fd(), fd)
            }
            r => r,
        }
    }

    fn ns_pid(&self) -> (i32, i32) {
        match self.facts {
            Some(f) => (f.status.ns_tgid, f.status.ns_tid.max(1)),
            None => (self.actor.pid, self.actor.tid),
        }
    }

    /// Reads a NUL-terminated string (at most 4096 bytes) from the caller, then checks that
    /// the notification is still live (the memory read was the caller's).
    fn read_cstring(&self, addr: u64) -> Result<Vec<u8>, i32> {
        let s = self.read_cstring_unchecked(addr)?;
        if !sys::notif_id_valid(self.sh.listener.as_fd(), self.n.id) {
            return Err(libc::ESRCH);
        }
        Ok(s)
    }

    /// [`Ctx::read_cstring`] without the liveness check: the caller checks once after all its
    /// reads.
    fn read_cstring_unchecked(&self, addr: u64) -> Result<Vec<u8>, i32> {
        if addr == 0 {
            return Err(libc::EFAULT);
        }
        let mut out = Vec::with_capacity(256);
        let mut addr = addr;
        let mut chunk = [0u8; 4096];
        while out.len() <= 4096 {
            let page_left = 4096 - (addr % 4096) as usize;
            let want = page_left.min(chunk.len());
            let got = sys::read_process_memory(self.n.tid, addr, &mut chunk[..want])
                .map_err(|e| if errno_of(&e) == libc::ESRCH { libc::ESRCH } else { libc::EFAULT })?;
            if got == 0 {
                return Err(libc::EFAULT);
            }
            if let Some(nul) = chunk[..got].iter().position(|&b| b == 0) {
                out.extend_from_slice(&chunk[..nul]);
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..got]);
            addr += got as u64;
        }
        Err(libc::ENAMETOOLONG)
    }

    fn read_bytes(&self, addr: u64, len: usize) -> Result<Vec<u8>, i32> {
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let got = sys::read_process_memory(self.n.tid, addr + done as u64, &mut buf[done..])
                .map_err(|_| libc::EFAULT)?;
            if got == 0 {
                return Err(libc::EFAULT);
            }
            done += got;
        }
        Ok(buf)
    }

    fn read_u64(&self, addr: u64) -> Result<u64, i32> {
        let b = self.read_bytes(addr, 8)?;
        Ok(u64::from_ne_bytes(b.try_into().map_err(|_| libc::EFAULT)?))
    }

    // ---------------------------------------------------------------------------------------
    // path resolution

    /// The directory a relative path starts from, reopened by ward.
    fn base_for(&self, dirfd: i32, path: &[u8]) -> Result<Base, i32> {
        if path.starts_with(b"/") {
            return Ok(Base::Root);
        }
        let link = if dirfd == libc::AT_FDCWD {
            format!("/proc/{}/cwd", self.n.tid)
        } else if dirfd < 0 {
            return Err(libc::EBADF);
        } else {
            format!("/proc/{}/fd/{}", self.n.tid, dirfd)
        };
        let c = cstr(link.as_bytes())?;
        match sys::openat(libc::AT_FDCWD, &c, libc::O_PATH | libc::O_CLOEXEC, 0) {
            Ok(fd) => Ok(Base::Dir(fd)),
            Err(e) if errno_of(&e) == libc::ENOENT && dirfd != libc::AT_FDCWD => Err(libc::EBADF),
            Err(e) => Err(errno_of(&e)),
        }
    }

    /// The caller's root directory, in its own mount namespace (after a chroot or an unshare
    /// of its mounts it is not the tree's).
    fn caller_root(&self) -> Result<OwnedFd, i32> {
        let c = cstr(format!("/proc/{}/root", self.n.tid).as_bytes())?;
        sys::openat(libc::AT_FDCWD, &c, libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY, 0).map_err(|e| errno_of(&e))
    }

    /// The caller's `dirfd` (or cwd) reopened by ward, whatever the path.
    fn dirfd_base(&self, dirfd: i32) -> Result<Base, i32> {
        self.base_for(dirfd, b"relative")
    }

    /// The absolute path a relative path would have (for events about missing files).
    fn textual_abs(&self, dirfd: i32, path: &[u8]) -> Vec<u8> {
        if path.starts_with(b"/") {
            return pathutil::normalize(path);
        }
        let link = if dirfd == libc::AT_FDCWD {
            format!("/proc/{}/cwd", self.n.tid)
        } else {
            format!("/proc/{}/fd/{}", self.n.tid, dirfd)
        };
        let base = std::fs::read_link(link)
            .map(|p| PathBytes::from(p).into_bytes())
            .unwrap_or_default();
        pathutil::normalize(&pathutil::join(&base, path))
    }

    /// `openat2` of `path` from `base` with ward's resolution rules.
    fn open_from(&self, base: &Base, path: &[u8], flags: u64, mode: u64, resolve: u64) -> Result<OwnedFd, i32> {
        let c = cstr(if path.is_empty() { b"." } else { path })?;
        let (dir, extra) = match base {
            Base::Root => {
                let rel = path.trim_ascii_start_slashes();
                let c2 = cstr(if rel.is_empty() { b"." } else { rel })?;
                let own_root;
                let root = if self.sh.roots_vary.load(Ordering::Acquire) {
                    own_root = self.caller_root()?;
                    own_root.as_fd()
                } else {
                    self.sh.root.as_fd()
                };
                return sys::openat2(
                    root,
                    &c2,
                    flags | libc::O_CLOEXEC as u64,
                    mode,
                    resolve | libc::RESOLVE_NO_MAGICLINKS | libc::RESOLVE_IN_ROOT,
                )
                .map_err(|e| errno_of(&e));
            }
            Base::Dir(fd) => (fd.as_fd(), 0),
        };
        sys::openat2(
            dir,
            &c,
            flags | libc::O_CLOEXEC as u64,
            mode,
            resolve | libc::RESOLVE_NO_MAGICLINKS | extra,
        )
        .map_err(|e| errno_of(&e))
    }

    /// Resolves `path` (relative to `dirfd`) to an `O_PATH` descriptor of the object it names,
    /// handling `/proc/self` and magic links. Returns the descriptor and its resolved path.
    fn probe(&self, dirfd: i32, path: &[u8], follow: bool, extra_flags: u64, resolve: u64) -> Result<(OwnedFd, Vec<u8>), i32> {
        let o_flags = libc::O_PATH as u64 | extra_flags | if follow { 0 } else { libc::O_NOFOLLOW as u64 };
        self.probe_with(dirfd, path, o_flags, resolve)
    }

    /// The absolute path of the caller's cwd (`AT_FDCWD`) or directory descriptor, when it has
    /// one (not deleted, not a pipe or socket).
    fn dir_path(&self, dirfd: i32) -> Option<Vec<u8>> {
        let link = if dirfd == libc::AT_FDCWD {
            format!("/proc/{}/cwd", self.n.tid)
        } else if dirfd >= 0 {
            format!("/proc/{}/fd/{}", self.n.tid, dirfd)
        } else {
            return None;
        };
        let p = PathBytes::from(std::fs::read_link(link).ok()?).into_bytes();
        (p.starts_with(b"/") && !p.ends_with(b" (deleted)")).then_some(p)
    }

    /// Opens `path` (relative to `dirfd`) with `o_flags` the way the kernel would resolve it
    /// for the caller, and returns the descriptor with its resolved absolute path.
    ///
    /// Fast path: the path is made absolute textually (from the caller's cwd or dirfd) and
    /// opened with `RESOLVE_NO_SYMLINKS` inside the tree's root; if no symlink is on the way,
    /// the resolved path is the lexical one. Otherwise the general path follows symlinks,
    /// reads the result back from the descriptor, maps `/proc/self` and follows magic links
    /// of the tree's own processes.
    fn probe_with(&self, dirfd: i32, path: &[u8], o_flags: u64, resolve: u64) -> Result<(OwnedFd, Vec<u8>), i32> {
        let (pid_ns, tid_ns) = self.ns_pid();
        if resolve & (libc::RESOLVE_BENEATH | libc::RESOLVE_IN_ROOT) != 0 {
            // The caller scopes the lookup to its dirfd (openat2): resolve from that directory
            // with the caller's own flags, absolute paths included.
            let base = self.dirfd_base(dirfd)?;
            let fd = self.open_from(&base, path, o_flags, 0, resolve)?;
            let resolved = fd_path(fd.as_fd());
            return Ok((fd, resolved));
        }
        let mut abs = if path.starts_with(b"/") {
            Some(path.to_vec())
        } else if self.sh.roots_vary.load(Ordering::Acquire) {
            // The cwd's path as ward reads it may be outside the caller's root: no textual join.
            None
        } else {
            self.dir_path(dirfd).map(|d| pathutil::join(&d, path))
        };
        if let Some(a) = abs.as_mut() {
            if let Some(p) = pathutil::rewrite_self(a, pid_ns, tid_ns) {
                *a = p;
            }
            match self.open_from(&Base::Root, a, o_flags, 0, resolve | libc::RESOLVE_NO_SYMLINKS) {
                Ok(fd) => return Ok((fd, pathutil::normalize(a))),
                Err(libc::ELOOP) => {}
                Err(e) => return Err(e),
            }
        }
        let mut path = abs.unwrap_or_else(|| path.to_vec());
        if let Some(p) = self.self_in_proc_dir(dirfd, &path) {
            path = p;
        }
        for _attempt in 0..2 {
            let base = self.base_for(dirfd, &path)?;
            match self.open_from(&base, &path, o_flags, 0, resolve) {
                Ok(fd) => {
                    let resolved = fd_path(fd.as_fd());
                    // A symlink into /proc/self resolved as *ward*: map it back to the caller.
                    if let Some(pid) = pathutil::proc_pid(&resolved) {
                        if self.is_ward_pid(pid) {
                            let rest = &resolved[format!("/proc/{pid}").len()..];
                            path = format!("/proc/{pid_ns}").into_bytes();
                            path.extend_from_slice(rest);
                            continue;
                        }
                    }
                    return Ok((fd, resolved));
                }
                Err(libc::ELOOP) => {
                    let abs = self.textual_abs(dirfd, &path);
                    if let Some(m) = pathutil::magic_path(&abs) {
                        return self.probe_magic(&m, o_flags, resolve);
                    }
                    return Err(libc::ELOOP);
                }
                Err(e) => return Err(e),
            }
        }
        Err(libc::ELOOP)
    }

    /// A relative `self/…` (or `thread-self/…`) whose base is a procfs root directory, as the
    /// caller's own entry. Without it the lookup would land in ward's `/proc/PID`, and the
    /// caller's procfs need not be at `/proc` of its root (bwrap opens it before pivot_root).
    ///
    /// That procfs may belong to any of the caller's pid namespaces (bwrap opens the host's,
    /// then forks into a new one): the caller's ids at each level are tried, innermost first,
    /// and the entry whose start time is the caller's is the caller.
    fn self_in_proc_dir(&self, dirfd: i32, path: &[u8]) -> Option<Vec<u8>> {
        const PROC_ROOT_INO: u64 = 1;
        pathutil::rewrite_self_in_proc(path, 0, 0)?;
        let Ok(Base::Dir(dir)) = self.base_for(dirfd, path) else { return None };
        let on_proc_root = sys::fstat(dir.as_fd()).is_ok_and(|st| st.st_ino == PROC_ROOT_INO)
            && sys::filesystem_type(dir.as_fd()).is_ok_and(|t| t == libc::PROC_SUPER_MAGIC as i64);
        if !on_proc_root {
            return None;
        }
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.n.tid)).ok()?;
        let (tgids, tids) = crate::proctable::parse_ns_ids(&status)?;
        let start = |stat: Option<String>| stat.as_deref().and_then(crate::proctable::parse_start_time);
        let own_start = start(std::fs::read_to_string(format!("/proc/{}/task/{}/stat", tgids[0], tids[0])).ok())?;
        for (&pid, &tid) in tgids.iter().zip(&tids).rev() {
            let candidate = pathutil::rewrite_self_in_proc(path, pid, tid)?;
            let stat = format!("{pid}/task/{tid}/stat");
            let stat = cstr(stat.as_bytes())
                .ok()
                .and_then(|c| sys::openat(dir.as_raw_fd(), &c, libc::O_RDONLY | libc::O_CLOEXEC, 0).ok())
                .and_then(|fd| std::io::read_to_string(std::fs::File::from(fd)).ok());
            if start(stat) == Some(own_start) {
                return Some(candidate);
            }
        }
        None
    }

    /// The caller's umask now (`umask()` is not trapped, so it is read when a call creates
    /// something, never cached).
    fn current_umask(&self) -> u32 {
        std::fs::read_to_string(format!("/proc/{}/status", self.n.tid))
            .ok()
            .and_then(|t| crate::proctable::parse_status(&t))
            .map(|s| s.umask)
            .unwrap_or(0o022)
    }

    fn is_ward_pid(&self, pid: i32) -> bool {
        if self.sh.own_pid_ns {
            return false;
        }
        pid == self.sh.ward_pid
            || std::path::Path::new(&format!("/proc/{}/task/{}", self.sh.ward_pid, pid)).exists()
    }

    /// Follows a magic link (`/proc/PID/fd/N`, `cwd`, `root`, …) of a process of the tree the
    /// way the kernel would for the caller, then resolves the rest from there.
    fn probe_magic(&self, m: &pathutil::MagicPath, o_flags: u64, resolve: u64) -> Result<(OwnedFd, Vec<u8>), i32> {
        // Only the tree's own processes: ward must not lend its privileges to reach others.
        if !self.sh.own_pid_ns && !crate::proctable::descends_from(m.pid, self.sh.root_pid) {
            self.refused.set(Some("magic links of processes outside the tree are not followed for it"));
            return Err(libc::EACCES);
        }
        let prefix = if self.sh.own_root {
            m.prefix.trim_ascii_start_slashes().to_vec()
        } else {
            m.prefix.clone()
        };
        let c = cstr(&prefix)?;
        let dirfd = if self.sh.own_root {
            self.sh.root.as_raw_fd()
        } else {
            libc::AT_FDCWD
        };
        if m.rest.is_empty() {
            // The magic link itself: open what it points at with the caller's flags (the
            // kernel re-opens the file, as it would for the caller).
            let fd = sys::openat(dirfd, &c, o_flags as i32 | libc::O_CLOEXEC, 0).map_err(|e| errno_of(&e))?;
            let resolved = fd_path(fd.as_fd());
            return Ok((fd, resolved));
        }
        let fd = sys::openat(dirfd, &c, libc::O_PATH | libc::O_CLOEXEC, 0).map_err(|e| errno_of(&e))?;
        let c = cstr(&m.rest)?;
        let res = resolve | libc::RESOLVE_NO_MAGICLINKS | if m.is_root { libc::RESOLVE_IN_ROOT } else { 0 };
        let fd = sys::openat2(fd.as_fd(), &c, o_flags | libc::O_CLOEXEC as u64, 0, res).map_err(|e| errno_of(&e))?;
        let resolved = fd_path(fd.as_fd());
        Ok((fd, resolved))
    }

    /// Resolves the parent directory of `path` and returns it with the last component.
    fn probe_parent(&self, dirfd: i32, path: &[u8]) -> Result<(OwnedFd, Vec<u8>, Vec<u8>), i32> {
        let Some((dir, last)) = pathutil::split_last(path) else {
            return Err(if path.is_empty() { libc::ENOENT } else { libc::EBUSY });
        };
        let (fd, resolved_dir) = self.probe(dirfd, &dir, true, libc::O_DIRECTORY as u64, 0)?;
        let resolved = pathutil::join(&resolved_dir, &last);
        Ok((fd, last, resolved))
    }

    // ---------------------------------------------------------------------------------------
    // opens

    fn open(&self, name: &str) -> Result<Handled, i32> {
        let (dirfd, path_addr, flags, mode, resolve) = match name {
            "open" => (libc::AT_FDCWD, self.arg(0), self.arg(1), self.arg(2), 0),
            "creat" => (
                libc::AT_FDCWD,
                self.arg(0),
                (libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC) as u64,
                self.arg(1),
                0,
            ),
            "openat" => (self.arg(0) as i32, self.arg(1), self.arg(2), self.arg(3), 0),
            _ => {
                // openat2: struct open_how {flags, mode, resolve}
                let size = self.arg(3) as usize;
                if size < 24 {
                    return Err(libc::EINVAL);
                }
                let how = self.read_bytes(self.arg(2), 24)?;
                let (flags, mode, resolve) = pathutil::parse_open_how(&how).ok_or(libc::EFAULT)?;
                (self.arg(0) as i32, self.arg(1), flags, mode, resolve)
            }
        };
        let path = self.read_cstring(path_addr)?;
        Ok(self.open_path(name, dirfd, path, flags, mode & 0o7777, resolve))
    }

    fn open_path(&self, name: &str, dirfd: i32, path: Vec<u8>, flags: u64, mode: u64, resolve: u64) -> Handled {
        let actor = self.actor.clone();
        let fl = flags as i32;
        let creating = fl & libc::O_CREAT != 0;
        let tmpfile = fl & libc::O_TMPFILE == libc::O_TMPFILE;
        let kind = if flags::is_write(flags) {
            OpKind::FileWrite
        } else {
            OpKind::FileRead
        };
        let mut op = Operation::new(kind, name);
        op.flags = Some(flags::open_flags(flags));
        if path.is_empty() {
            op.path = Some(PathBytes::from(self.textual_abs(dirfd, b".")));
            return fail(actor, op, libc::ENOENT);
        }
        let follow = fl & libc::O_NOFOLLOW == 0;
        let dir_flag = (fl & libc::O_DIRECTORY) as u64;
        if tmpfile {
            // O_TMPFILE names the directory the unnamed file goes in.
            return self.open_tmpfile(actor, op, dirfd, path, flags, mode, resolve);
        }
        if !creating && fl & (libc::O_TRUNC | libc::O_PATH) == 0 {
            // Opening an existing file without O_CREAT/O_TRUNC changes nothing: open it for
            // real (non-blocking, so a FIFO cannot stall the worker), then check what was
            // opened; a denial just closes it.
            let nonblock = fl & libc::O_NONBLOCK != 0;
            let oflags = (fl | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC) as u64;
            match self.probe_with(dirfd, &path, oflags, resolve) {
                Ok((fd, resolved)) => {
                    op.path = Some(PathBytes::from(resolved.clone()));
                    if let Some(h) = self.protect_ward(&actor, &op, &resolved) {
                        return h;
                    }
                    if !resolved.starts_with(b"/") {
                        // `/dev/stdout` or `/proc/self/fd/N` naming one of the caller's own pipes
                        // or sockets (`pipe:[N]`): a re-open of what it already holds, not a file.
                        op.detail = Some("re-opens a descriptor the process already holds".into());
                        let cloexec = fl & libc::O_CLOEXEC != 0;
                        if !nonblock {
                            let _ = sys::set_status_flags(fd.as_fd(), fl & !libc::O_NONBLOCK);
                        }
                        return Handled::Op {
                            actor,
                            op,
                            perform: Perform::Reply(Reply::InjectFd { fd, cloexec }),
                            deny_errno: libc::EACCES,
                            decision: Some(Decision::allow(ward_event::DecidedBy::Builtin)),
                        };
                    }
                    let st = sys::fstat(fd.as_fd()).ok();
                    let inode_decision = st.as_ref().and_then(|st| self.protect_inode(st));
                    let fifo = !nonblock
                        && fl & libc::O_ACCMODE == libc::O_RDONLY
                        && st.is_some_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFIFO);
                    let cloexec = fl & libc::O_CLOEXEC != 0;
                    if !fifo {
                        if !nonblock {
                            // Back to the flags the caller asked for (O_NONBLOCK off).
                            let _ = sys::set_status_flags(fd.as_fd(), fl & !libc::O_NONBLOCK);
                        }
                        let mut h = op_handled(actor, op, Perform::Reply(Reply::InjectFd { fd, cloexec }));
                        if let (Handled::Op { decision, .. }, Some(d)) = (&mut h, inode_decision) {
                            *decision = Some(d);
                        }
                        return h;
                    }
                    // The read end of a FIFO: a blocking open returns once a writer comes. Hold
                    // the (non-blocking) read end on a thread until a writer shows up — it
                    // writes (POLLIN) or comes and goes (POLLHUP) — then hand it over blocking.
                    let wait = move |_: &Shared| -> (Reply, Option<String>) {
                        let _ = sys::poll_readable(&[fd.as_fd()], -1);
                        let _ = sys::set_status_flags(fd.as_fd(), fl & !libc::O_NONBLOCK);
                        (Reply::InjectFd { fd, cloexec }, None)
                    };
                    return op_handled(actor, op, Perform::Deferred(Box::new(wait)));
                }
                // A FIFO's write end without a reader: the general path opens it blocking.
                Err(libc::ENXIO) if !nonblock => {}
                Err(e) => {
                    op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                    return fail(actor, op, e);
                }
            }
        }
        match self.probe(dirfd, &path, follow, dir_flag, resolve) {
            Ok((probe, resolved)) => {
                op.path = Some(PathBytes::from(resolved.clone()));
                let st = match sys::fstat(probe.as_fd()) {
                    Ok(st) => st,
                    Err(e) => return fail(actor, op, errno_of(&e)),
                };
                let ftype = st.st_mode & libc::S_IFMT;
                if creating && fl & libc::O_EXCL != 0 {
                    return fail(actor, op, libc::EEXIST);
                }
                if ftype == libc::S_IFLNK && fl & libc::O_PATH == 0 {
                    return fail(actor, op, libc::ELOOP);
                }
                if ftype == libc::S_IFDIR && (fl & libc::O_ACCMODE != libc::O_RDONLY || creating) {
                    return fail(actor, op, libc::EISDIR);
                }
                if let Some(h) = self.protect_ward(&actor, &op, &resolved) {
                    return h;
                }
                let own_descriptor = !resolved.starts_with(b"/");
                if own_descriptor {
                    op.detail = Some("re-opens a descriptor the process already holds".into());
                }
                if let Some(d) = self.protect_inode(&st) {
                    // Refused in enforce mode; in audit mode the open goes ahead, recorded.
                    if d.action == ward_event::Action::Deny {
                        return Handled::Op {
                            actor,
                            op,
                            perform: Perform::Reply(Reply::Errno(libc::EACCES)),
                            deny_errno: libc::EACCES,
                            decision: Some(d),
                        };
                    }
                }
                let cloexec = fl & libc::O_CLOEXEC != 0;
                if fl & libc::O_PATH != 0 {
                    // The kernel cannot inject O_PATH descriptors (ADDFD takes only real files),
                    // so the call is continued once checked. An O_PATH descriptor gives no
                    // access to content: reading through it takes another (trapped) open.
                    drop(probe);
                    return op_handled(actor, op, Perform::Reply(Reply::Continue));
                }
                let reopen_flags = (fl & !(libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_DIRECTORY))
                    | libc::O_CLOEXEC
                    | libc::O_NOCTTY;
                let reopen = move |_: &Shared| -> (Reply, Option<String>) {
                    let link = format!("/proc/self/fd/{}", probe.as_raw_fd());
                    let Ok(c) = CString::new(link) else {
                        return (Reply::Errno(libc::EINVAL), None);
                    };
                    match sys::openat(libc::AT_FDCWD, &c, reopen_flags, 0) {
                        Ok(fd) => (Reply::InjectFd { fd, cloexec }, None),
                        Err(e) => (Reply::Errno(errno_of(&e)), None),
                    }
                };
                let blocking_fifo = ftype == libc::S_IFIFO && fl & libc::O_NONBLOCK == 0;
                let perform = if blocking_fifo {
                    Perform::Deferred(Box::new(reopen))
                } else {
                    Perform::Now(Box::new(reopen))
                };
                let mut h = op_handled(actor, op, perform);
                if let (true, Handled::Op { decision, .. }) = (own_descriptor, &mut h) {
                    // `/dev/stdout` naming the caller's own pipe (`pipe:[N]`) is not a file.
                    *decision = Some(Decision::allow(ward_event::DecidedBy::Builtin));
                }
                h
            }
            Err(libc::ENOENT) if creating => self.open_create(actor, op, dirfd, path, flags, mode, resolve, 0),
            Err(e) => {
                op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                fail(actor, op, e)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn open_create(
        &self,
        actor: Actor,
        mut op: Operation,
        dirfd: i32,
        path: Vec<u8>,
        flags: u64,
        mode: u64,
        resolve: u64,
        depth: u32,
    ) -> Handled {
        let fl = flags as i32;
        if path.ends_with(b"/") {
            op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
            return fail(actor, op, libc::EISDIR);
        }
        let (dir, last, resolved) = match self.probe_parent(dirfd, &path) {
            Ok(x) => x,
            Err(e) => {
                op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                return fail(actor, op, e);
            }
        };
        // A dangling symlink as the last component: O_CREAT follows it (unless O_EXCL or
        // O_NOFOLLOW), so resolve where it points and create there.
        if let Ok(c) = cstr(&last) {
            if let Ok(st) = sys::fstatat(dir.as_fd(), &c, true) {
                if st.st_mode & libc::S_IFMT == libc::S_IFLNK {
                    op.path = Some(PathBytes::from(resolved.clone()));
                    if fl & libc::O_EXCL != 0 {
                        return fail(actor, op, libc::EEXIST);
                    }
                    if fl & libc::O_NOFOLLOW != 0 {
                        return fail(actor, op, libc::ELOOP);
                    }
                    if depth >= 8 {
                        return fail(actor, op, libc::ELOOP);
                    }
                    let target = sys::readlinkat(dir.as_fd(), &c).unwrap_or_default();
                    let dir_path = pathutil::split_last(&resolved).map(|(d, _)| d).unwrap_or_default();
                    let next = if target.starts_with(b"/") {
                        target
                    } else {
                        pathutil::join(&dir_path, &target)
                    };
                    return self.open_create(actor, op, libc::AT_FDCWD, next, flags, mode, resolve, depth + 1);
                }
            }
        }
        op.kind = Some(OpKind::FileCreate);
        op.path = Some(PathBytes::from(resolved.clone()));
        if let Some(h) = self.protect_ward(&actor, &op, &resolved) {
            return h;
        }
        let cloexec = fl & libc::O_CLOEXEC != 0;
        let umask = self.current_umask();
        let perform = move |_: &Shared| -> (Reply, Option<String>) {
            let Ok(c) = CString::new(last) else {
                return (Reply::Errno(libc::EINVAL), None);
            };
            let old = sys::set_umask(umask);
            let r = sys::openat2(
                dir.as_fd(),
                &c,
                (fl | libc::O_CLOEXEC | libc::O_NOCTTY) as u64 & !(libc::O_NOFOLLOW as u64),
                mode,
                resolve | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_BENEATH,
            );
            sys::set_umask(old);
            match r {
                Ok(fd) => (Reply::InjectFd { fd, cloexec }, None),
                Err(e) => (Reply::Errno(errno_of(&e)), None),
            }
        };
        op_handled(actor, op, Perform::Now(Box::new(perform)))
    }

    #[allow(clippy::too_many_arguments)]
    fn open_tmpfile(&self, actor: Actor, mut op: Operation, dirfd: i32, path: Vec<u8>, flags: u64, mode: u64, resolve: u64) -> Handled {
        op.kind = Some(OpKind::FileCreate);
        match self.probe(dirfd, &path, true, libc::O_DIRECTORY as u64, resolve) {
            Ok((dir, resolved)) => {
                op.path = Some(PathBytes::from(resolved));
                let fl = flags as i32;
                let cloexec = fl & libc::O_CLOEXEC != 0;
                let umask = self.current_umask();
                let perform = move |_: &Shared| -> (Reply, Option<String>) {
                    let old = sys::set_umask(umask);
                    let r = sys::openat2(dir.as_fd(), c".", (fl | libc::O_CLOEXEC) as u64, mode, 0);
                    sys::set_umask(old);
                    match r {
                        Ok(fd) => (Reply::InjectFd { fd, cloexec }, None),
                        Err(e) => (Reply::Errno(errno_of(&e)), None),
                    }
                };
                op_handled(actor, op, Perform::Now(Box::new(perform)))
            }
            Err(e) => {
                op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                fail(actor, op, e)
            }
        }
    }

    /// A file with more than one name whose inode is a sensitive file's: the secret under
    /// another name (a hard link planted in the workspace).
    fn protect_inode(&self, st: &libc::stat) -> Option<Decision> {
        if st.st_nlink < 2
            || st.st_mode & libc::S_IFMT != libc::S_IFREG
            || !self.sh.sensitive_inodes.contains(&(st.st_dev, st.st_ino))
        {
            return None;
        }
        Some(self.sh.builtin("sensitive-inode", "a hard link to a sensitive file"))
    }

    /// ward's own `/proc` entries are out of the tree's reach.
    fn protect_ward(&self, actor: &Actor, op: &Operation, resolved: &[u8]) -> Option<Handled> {
        let pid = pathutil::proc_pid(resolved)?;
        if !self.is_ward_pid(pid) {
            return None;
        }
        let decision = self.sh.builtin("ward-self", "the supervisor's /proc entries are out of the tree's reach");
        let perform = Perform::Reply(Reply::Errno(libc::EACCES));
        Some(Handled::Op {
            actor: actor.clone(),
            op: op.clone(),
            perform,
            deny_errno: libc::EACCES,
            decision: Some(Decision {
                action: ward_event::Action::Deny,
                ..decision
            }),
        })
    }

    // ---------------------------------------------------------------------------------------
    // directory listings

    fn dents(&self, name: &str) -> Result<Handled, i32> {
        let fd = self.arg(0) as i32;
        let dup = match self.dup_fd(fd) {
            Ok(d) => d,
            Err(e) => {
                let errno = errno_of(&e);
                return Ok(if errno == libc::EBADF {
                    Handled::Quiet(Reply::Errno(libc::EBADF))
                } else {
                    Handled::Quiet(Reply::Continue)
                });
            }
        };
        // One event per scan: the first read of a directory since it was opened (offset 0).
        if sys::file_offset(dup.as_fd()).unwrap_or(1) != 0 {
            return Ok(Handled::Quiet(Reply::Continue));
        }
        let st = sys::fstat(dup.as_fd()).map_err(|e| errno_of(&e))?;
        let mut op = Operation::new(OpKind::DirList, name);
        op.path = Some(PathBytes::from(fd_path(dup.as_fd())));
        if st.st_mode & libc::S_IFMT != libc::S_IFDIR {
            return Ok(fail(self.actor.clone(), op, libc::ENOTDIR));
        }
        Ok(op_handled(self.actor.clone(), op, Perform::Reply(Reply::Continue)))
    }

    // ---------------------------------------------------------------------------------------
    // exec

    fn read_argv(&self, addr: u64) -> Result<Vec<PathBytes>, i32> {
        let mut argv = Vec::new();
        if addr == 0 {
            return Ok(argv);
        }
        // The pointer array, read up to the end of each page at once (one read, not one per
        // pointer), then the strings; the notification's liveness is checked once at the end.
        const MAX_ARGS: usize = 4096;
        let mut pointers = Vec::new();
        let mut at = addr;
        'array: while pointers.len() < MAX_ARGS {
            let to_page_end = (4096 - (at % 4096) as usize) / 8 * 8;
            let chunk = self.read_bytes(at, to_page_end.max(8))?;
            for p in chunk.chunks_exact(8) {
                let p = u64::from_ne_bytes(p.try_into().map_err(|_| libc::EFAULT)?);
                if p == 0 || pointers.len() == MAX_ARGS {
                    break 'array;
                }
                pointers.push(p);
            }
            at += chunk.len() as u64;
        }
        let mut total = 0usize;
        for p in pointers {
            let s = self.read_cstring_unchecked(p)?;
            total += s.len();
            argv.push(PathBytes::from(s));
            if total > 256 * 1024 {
                break;
            }
        }
        if !sys::notif_id_valid(self.sh.listener.as_fd(), self.n.id) {
            return Err(libc::ESRCH);
        }
        Ok(argv)
    }

    fn exec(&self, name: &str) -> Result<Handled, i32> {
        let (dirfd, path_addr, argv_addr, flags) = if name == "execve" {
            (libc::AT_FDCWD, self.arg(0), self.arg(1), 0)
        } else {
            (self.arg(0) as i32, self.arg(1), self.arg(2), self.arg(4) as i32)
        };
        let path = self.read_cstring(path_addr)?;
        let argv = self.read_argv(argv_addr)?;
        let actor = self.actor.clone();
        let mut op = Operation::new(OpKind::ProcExec, name);
        op.argv = Some(argv);
        let empty_path = path.is_empty() && flags & libc::AT_EMPTY_PATH != 0;
        let probed = if empty_path {
            // execveat(fd, "", AT_EMPTY_PATH): the descriptor itself (e.g. a memfd).
            let link = format!("/proc/{}/fd/{}", self.n.tid, dirfd);
            cstr(link.as_bytes()).and_then(|c| {
                sys::openat(libc::AT_FDCWD, &c, libc::O_PATH | libc::O_CLOEXEC, 0)
                    .map(|fd| {
                        let p = fd_path(fd.as_fd());
                        (fd, p)
                    })
                    .map_err(|e| errno_of(&e))
            })
        } else if path.is_empty() {
            Err(libc::ENOENT)
        } else {
            self.probe(dirfd, &path, flags & libc::AT_SYMLINK_NOFOLLOW == 0, 0, 0)
        };
        let (probe, resolved) = match probed {
            Ok(x) => x,
            Err(e) => {
                op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                return Ok(fail(actor, op, e));
            }
        };
        op.path = Some(PathBytes::from(resolved.clone()));
        let st = match sys::fstat(probe.as_fd()) {
            Ok(st) => st,
            Err(e) => return Ok(fail(actor, op, errno_of(&e))),
        };
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Ok(fail(actor, op, libc::EACCES));
        }
        if let Err(e) = sys::faccess_fd(probe.as_fd(), libc::X_OK) {
            return Ok(fail(actor, op, errno_of(&e)));
        }
        let expected = interpreter_identity(probe.as_fd()).unwrap_or((st.st_dev, st.st_ino));
        let before = std::fs::metadata(format!("/proc/{}/exe", actor.pid))
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                (m.dev(), m.ino())
            })
            .unwrap_or((0, 0));
        let pid = actor.pid;
        let ppid = actor.ppid;
        let pending = PendingExec {
            expected,
            before,
            path: PathBytes::from(resolved),
        };
        let perform = move |sh: &Shared| -> (Reply, Option<String>) {
            sh.procs.set_pending_exec(pid, pending);
            if ppid == sh.root_pid {
                sh.command_started(pid);
                if let Some(hook) = &sh.on_command_seen {
                    hook(pid);
                }
            }
            (Reply::Continue, None)
        };
        Ok(op_handled(actor, op, Perform::Now(Box::new(perform))))
    }

    // ---------------------------------------------------------------------------------------
    // sockets

    fn socket_op(&self, name: &str) -> Result<Handled, i32> {
        let fd = self.arg(0) as i32;
        let len = (self.arg(2) as usize).min(128);
        let raw = self.read_bytes(self.arg(1), len)?;
        let addr = SockAddr::decode(&raw);
        let actor = self.actor.clone();
        let (kind, is_connect) = match (name, addr.is_unix()) {
            ("connect", true) => (OpKind::IpcConnect, true),
            ("connect", false) => (OpKind::NetConnect, true),
            _ => (OpKind::NetBind, false),
        };
        let mut op = Operation::new(kind, name);
        if let SockAddr::Unix { path } = &addr {
            op.path = Some(PathBytes::from(self.textual_abs(libc::AT_FDCWD, path.as_bytes())));
        }
        if let Some(sa) = addr.socket_addr() {
            if let Ok(map) = self.sh.dns.lock() {
                op.domain = map.get(&sa.ip()).cloned();
            }
        }
        op.addr = Some(addr);
        let dup = match self.dup_fd(fd) {
            Ok(d) => d,
            Err(e) => return Ok(fail(actor, op, errno_of(&e))),
        };
        let blocking = sys::fd_status_flags(dup.as_fd()).map(|f| f & libc::O_NONBLOCK == 0).unwrap_or(true);
        let perform = move |_: &Shared| -> (Reply, Option<String>) {
            let r = if is_connect {
                sys::connect_raw(dup.as_fd(), &raw)
            } else {
                sys::bind_raw(dup.as_fd(), &raw)
            };
            match r {
                Ok(()) => (Reply::Value(0), None),
                Err(e) => (Reply::Errno(errno_of(&e)), None),
            }
        };
        let perform = if is_connect && blocking {
            Perform::Deferred(Box::new(perform))
        } else {
            Perform::Now(Box::new(perform))
        };
        Ok(op_handled(actor, op, perform))
    }

    fn socket_create(&self) -> Result<Handled, i32> {
        let family = self.arg(0) as i32;
        let ty = self.arg(1) as i32 & 0xf;
        let proto = self.arg(2) as i32;
        let mut op = Operation::new(OpKind::NetSocket, "socket");
        op.detail = Some(format!("{} {} {proto}", family_name(family), type_name(ty)));
        let actor = self.actor.clone();
        if matches!(family, libc::AF_PACKET) || (ty == libc::SOCK_RAW && family != libc::AF_NETLINK) {
            let decision = self.sh.builtin("raw-socket", "raw and packet sockets bypass ward's view of the network");
            let perform = Perform::Reply(Reply::Continue);
            return Ok(Handled::Op {
                actor,
                op,
                perform,
                deny_errno: libc::EPERM,
                decision: Some(decision),
            });
        }
        Ok(op_handled(actor, op, Perform::Reply(Reply::Continue)))
    }

    /// First bytes of the data a `struct msghdr` at `addr` points at (its first iovec).
    fn msghdr_preview(&self, hdr: &[u8]) -> Result<Vec<u8>, i32> {
        let w = |i: usize| u64::from_ne_bytes(hdr[i..i + 8].try_into().unwrap_or([0; 8]));
        let (iov, iovlen) = (w(16), w(24));
        if iov == 0 || iovlen == 0 {
            return Ok(Vec::new());
        }
        let base = self.read_u64(iov)?;
        let len = (self.read_u64(iov + 8)? as usize).min(512);
        self.read_bytes(base, len)
    }

    /// The peer of the caller's socket `fd` (for sends on connected sockets).
    fn socket_peer(&self, fd: i32) -> Option<Vec<u8>> {
        let dup = self.dup_fd(fd).ok()?;
        sys::getpeername_raw(dup.as_fd()).ok()
    }

    fn send(&self, name: &str) -> Result<Handled, i32> {
        let fd = self.arg(0) as i32;
        let (dest, payload_preview, data_for_emulation, flags) = match name {
            "sendto" => {
                let len = (self.arg(5) as usize).min(128);
                let dest = self.read_bytes(self.arg(4), len)?;
                let dlen = self.arg(2) as usize;
                let data = if dlen <= 65536 { Some(self.read_bytes(self.arg(1), dlen)?) } else { None };
                let preview = data.as_ref().map(|d| d[..d.len().min(512)].to_vec());
                (dest, preview, data, self.arg(3) as i32)
            }
            "sendmsg" => {
                // struct msghdr { name, namelen, iov, iovlen, control, controllen, flags }
                let hdr = self.read_bytes(self.arg(1), 56)?;
                let w = |i: usize| u64::from_ne_bytes(hdr[i..i + 8].try_into().unwrap_or([0; 8]));
                let (name_ptr, namelen) = (w(0), w(8) & 0xffff_ffff);
                if name_ptr == 0 || namelen == 0 {
                    // A connected socket: only a DNS query is of interest (the resolver's
                    // queries are how ward learns which name an address belongs to).
                    return self.connected_dns_query(name, fd, &hdr);
                }
                let dest = self.read_bytes(name_ptr, (namelen as usize).min(128))?;
                let (iov, iovlen, controllen) = (w(16), w(24), w(40));
                let mut data = Vec::new();
                let mut emulate = controllen == 0 && iovlen <= 64;
                for i in 0..iovlen.min(64) {
                    let base = self.read_u64(iov + i * 16)?;
                    let len = self.read_u64(iov + i * 16 + 8)? as usize;
                    if data.len() + len > 65536 {
                        emulate = false;
                        break;
                    }
                    data.extend(self.read_bytes(base, len)?);
                }
                let preview = Some(data[..data.len().min(512)].to_vec());
                (dest, preview, if emulate { Some(data) } else { None }, self.arg(2) as i32)
            }
            _ => {
                // sendmmsg: the first message's destination and data; the call is continued.
                let hdr = self.read_bytes(self.arg(1), 56)?;
                let w = |i: usize| u64::from_ne_bytes(hdr[i..i + 8].try_into().unwrap_or([0; 8]));
                let (name_ptr, namelen) = (w(0), w(8) & 0xffff_ffff);
                if name_ptr == 0 || namelen == 0 {
                    return self.connected_dns_query(name, fd, &hdr);
                }
                let dest = self.read_bytes(name_ptr, (namelen as usize).min(128))?;
                let preview = self.msghdr_preview(&hdr).ok();
                (dest, preview, None, 0)
            }
        };
        let addr = SockAddr::decode(&dest);
        let actor = self.actor.clone();
        let query = payload_preview.as_deref().and_then(dns_query_name);
        let mut op = Operation::new(if query.is_some() { OpKind::DnsQuery } else { OpKind::NetSend }, name);
        if query.is_some() {
            op.domain = query.clone();
        } else if let Some(sa) = addr.socket_addr() {
            if let Ok(map) = self.sh.dns.lock() {
                op.domain = map.get(&sa.ip()).cloned();
            }
        }
        op.payload = payload_preview;
        op.addr = Some(addr.clone());
        let learn = query.zip(addr.socket_addr());
        let Some(data) = data_for_emulation else {
            return Ok(op_handled(actor, op, dns_then(learn, Reply::Continue)));
        };
        let dup = match self.dup_fd(fd) {
            Ok(d) => d,
            Err(e) => return Ok(fail(actor, op, errno_of(&e))),
        };
        let send = move |sh: &Shared| -> (Reply, Option<String>) {
            if let Some((qname, server)) = &learn {
                crate::dns::learn(sh, qname, *server);
            }
            match sys::sendto_raw(dup.as_fd(), &data, flags | libc::MSG_DONTWAIT, &dest) {
                Ok(n) => (Reply::Value(n as i64), None),
                Err(e) if errno_of(&e) == libc::EAGAIN && flags & libc::MSG_DONTWAIT == 0 => {
                    // A full socket buffer: let the kernel block in the caller.
                    (Reply::Continue, Some("sent by the kernel after a full queue".into()))
                }
                Err(e) => (Reply::Errno(errno_of(&e)), None),
            }
        };
        let perform = if learn_is_some(&op) { Perform::Deferred(Box::new(send)) } else { Perform::Now(Box::new(send)) };
        Ok(op_handled(actor, op, perform))
    }

    /// A send without destination on a connected socket: a DNS query to the socket's peer is
    /// recorded (and learnt from); anything else goes ahead unrecorded.
    fn connected_dns_query(&self, name: &str, fd: i32, hdr: &[u8]) -> Result<Handled, i32> {
        let preview = self.msghdr_preview(hdr).unwrap_or_default();
        let Some(qname) = dns_query_name(&preview) else {
            return Ok(Handled::Quiet(Reply::Continue));
        };
        let Some(peer) = self.socket_peer(fd) else {
            return Ok(Handled::Quiet(Reply::Continue));
        };
        let addr = SockAddr::decode(&peer);
        let mut op = Operation::new(OpKind::DnsQuery, name);
        op.domain = Some(qname.clone());
        op.payload = Some(preview);
        let learn = addr.socket_addr().map(|sa| (qname, sa));
        op.addr = Some(addr);
        Ok(op_handled(self.actor.clone(), op, dns_then(learn, Reply::Continue)))
    }

    // ---------------------------------------------------------------------------------------
    // path mutations

    fn fs_mutation(&self, name: &str) -> Result<Handled, i32> {
        let actor = self.actor.clone();
        let a = |i| self.arg(i);
        match name {
            "unlink" | "rmdir" | "unlinkat" => {
                let (dirfd, p, flags) = match name {
                    "unlink" => (libc::AT_FDCWD, a(0), 0),
                    "rmdir" => (libc::AT_FDCWD, a(0), libc::AT_REMOVEDIR),
                    _ => (a(0) as i32, a(1), a(2) as i32),
                };
                let path = self.read_cstring(p)?;
                let mut op = Operation::new(OpKind::FileDelete, name);
                Ok(match self.probe_parent(dirfd, &path) {
                    Ok((dir, last, resolved)) => {
                        op.path = Some(PathBytes::from(resolved));
                        op_handled(actor, op, now(move |_| {
                            let r = cstr(&last).and_then(|c| sys::unlinkat(dir.as_fd(), &c, flags).map_err(|e| errno_of(&e)));
                            zero_or(r)
                        }))
                    }
                    Err(e) => {
                        op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                        fail(actor, op, e)
                    }
                })
            }
            "mkdir" | "mkdirat" | "mknod" | "mknodat" => {
                let (dirfd, p, mode, dev) = match name {
                    "mkdir" => (libc::AT_FDCWD, a(0), a(1) as u32, None),
                    "mkdirat" => (a(0) as i32, a(1), a(2) as u32, None),
                    "mknod" => (libc::AT_FDCWD, a(0), a(1) as u32, Some(a(2))),
                    _ => (a(0) as i32, a(1), a(2) as u32, Some(a(3))),
                };
                let path = self.read_cstring(p)?;
                let mut op = Operation::new(OpKind::FileCreate, name);
                op.flags = Some(format!("{:#o}", mode & 0o7777));
                let umask = self.current_umask();
                Ok(match self.probe_parent(dirfd, &path) {
                    Ok((dir, last, resolved)) => {
                        op.path = Some(PathBytes::from(resolved));
                        op_handled(actor, op, now(move |_| {
                            let old = sys::set_umask(umask);
                            let r = cstr(&last).and_then(|c| {
                                match dev {
                                    None => sys::mkdirat(dir.as_fd(), &c, mode),
                                    Some(d) => sys::mknodat(dir.as_fd(), &c, mode, d),
                                }
                                .map_err(|e| errno_of(&e))
                            });
                            sys::set_umask(old);
                            zero_or(r)
                        }))
                    }
                    Err(e) => {
                        op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                        fail(actor, op, e)
                    }
                })
            }
            "rename" | "renameat" | "renameat2" | "link" | "linkat" => {
                let (od, o, nd, nw, flags) = match name {
                    "rename" | "link" => (libc::AT_FDCWD, a(0), libc::AT_FDCWD, a(1), 0),
                    _ => (a(0) as i32, a(1), a(2) as i32, a(3), a(4) as u32),
                };
                let old = self.read_cstring(o)?;
                let new = self.read_cstring(nw)?;
                let is_link = name.starts_with("link");
                let mut op = Operation::new(if is_link { OpKind::FileLink } else { OpKind::FileRename }, name);
                let follow = is_link && flags as i32 & libc::AT_SYMLINK_FOLLOW != 0;
                let src = if follow {
                    self.probe(od, &old, true, 0, 0).map(|(fd, p)| (fd, Vec::new(), p))
                } else {
                    self.probe_parent(od, &old)
                };
                let (sdir, slast, sresolved) = match src {
                    Ok(x) => x,
                    Err(e) => {
                        op.path = Some(PathBytes::from(self.textual_abs(od, &old)));
                        op.path2 = Some(PathBytes::from(self.textual_abs(nd, &new)));
                        return Ok(fail(actor, op, e));
                    }
                };
                let (ddir, dlast, dresolved) = match self.probe_parent(nd, &new) {
                    Ok(x) => x,
                    Err(e) => {
                        op.path = Some(PathBytes::from(sresolved));
                        op.path2 = Some(PathBytes::from(self.textual_abs(nd, &new)));
                        return Ok(fail(actor, op, e));
                    }
                };
                if is_link {
                    // path = the new name; path2 = what it points at.
                    op.path = Some(PathBytes::from(dresolved));
                    op.path2 = Some(PathBytes::from(sresolved));
                } else {
                    op.path = Some(PathBytes::from(sresolved));
                    op.path2 = Some(PathBytes::from(dresolved));
                }
                Ok(op_handled(actor, op, now(move |_| {
                    let r = (|| -> Result<(), i32> {
                        let dc = cstr(&dlast)?;
                        if is_link {
                            if follow {
                                let link = CString::new(format!("/proc/self/fd/{}", sdir.as_raw_fd())).map_err(|_| libc::EINVAL)?;
                                sys::linkat(sys::borrow_raw(libc::AT_FDCWD), &link, ddir.as_fd(), &dc, libc::AT_SYMLINK_FOLLOW)
                            } else {
                                sys::linkat(sdir.as_fd(), &cstr(&slast)?, ddir.as_fd(), &dc, 0)
                            }
                        } else {
                            sys::renameat2(sdir.as_fd(), &cstr(&slast)?, ddir.as_fd(), &dc, flags)
                        }
                        .map_err(|e| errno_of(&e))
                    })();
                    zero_or(r)
                })))
            }
            "symlink" | "symlinkat" => {
                let (target_p, dirfd, p) = match name {
                    "symlink" => (a(0), libc::AT_FDCWD, a(1)),
                    _ => (a(0), a(1) as i32, a(2)),
                };
                let target = self.read_cstring(target_p)?;
                let path = self.read_cstring(p)?;
                let mut op = Operation::new(OpKind::FileLink, name);
                op.path2 = Some(PathBytes::from(target.clone()));
                Ok(match self.probe_parent(dirfd, &path) {
                    Ok((dir, last, resolved)) => {
                        op.path = Some(PathBytes::from(resolved));
                        op_handled(actor, op, now(move |_| {
                            let r = (|| sys::symlinkat(&cstr(&target)?, dir.as_fd(), &cstr(&last)?).map_err(|e| errno_of(&e)))();
                            zero_or(r)
                        }))
                    }
                    Err(e) => {
                        op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                        fail(actor, op, e)
                    }
                })
            }
            "chmod" | "fchmodat" | "fchmodat2" | "truncate" => {
                let (dirfd, p, val, flags) = match name {
                    "chmod" => (libc::AT_FDCWD, a(0), a(1), 0),
                    "truncate" => (libc::AT_FDCWD, a(0), a(1), 0),
                    "fchmodat" => (a(0) as i32, a(1), a(2), 0),
                    _ => (a(0) as i32, a(1), a(2), a(3) as i32),
                };
                let path = self.read_cstring(p)?;
                let is_trunc = name == "truncate";
                let mut op = Operation::new(if is_trunc { OpKind::FileWrite } else { OpKind::FileChmod }, name);
                op.flags = Some(if is_trunc { format!("length={}", val as i64) } else { format!("{:#o}", val & 0o7777) });
                let follow = flags & libc::AT_SYMLINK_NOFOLLOW == 0;
                Ok(match self.probe(dirfd, &path, follow, 0, 0) {
                    Ok((fd, resolved)) => {
                        op.path = Some(PathBytes::from(resolved));
                        if !follow {
                            if let Ok(st) = sys::fstat(fd.as_fd()) {
                                if st.st_mode & libc::S_IFMT == libc::S_IFLNK {
                                    return Ok(fail(actor, op, libc::EOPNOTSUPP));
                                }
                            }
                        }
                        op_handled(actor, op, now(move |_| {
                            let r = (|| {
                                let link = CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd())).map_err(|_| libc::EINVAL)?;
                                if is_trunc {
                                    sys::truncate(&link, val as i64)
                                } else {
                                    sys::chmod(&link, (val & 0o7777) as u32)
                                }
                                .map_err(|e| errno_of(&e))
                            })();
                            zero_or(r)
                        }))
                    }
                    Err(e) => {
                        op.path = Some(PathBytes::from(self.textual_abs(dirfd, &path)));
                        fail(actor, op, e)
                    }
                })
            }
            _ => Ok(Handled::Quiet(Reply::Continue)),
        }
    }

    // ---------------------------------------------------------------------------------------
    // signals

    fn signal(&self, name: &str) -> Result<Handled, i32> {
        let a = |i| self.arg(i);
        let (target, sig) = match name {
            "kill" => (a(0) as i32, a(1) as i32),
            "tkill" => (a(0) as i32, a(1) as i32),
            "tgkill" => (a(0) as i32, a(2) as i32),
            "rt_sigqueueinfo" => (a(0) as i32, a(1) as i32),
            "rt_tgsigqueueinfo" => (a(0) as i32, a(2) as i32),
            // Setting limits of another process is as good as a signal to it; reading them is not.
            "prlimit64" => (a(0) as i32, if a(2) != 0 { -1 } else { 0 }),
            // fcntl(F_SETOWN, pid) / (F_SETOWN_EX, {type, pid}); ioctl(FIOSETOWN|SIOCSPGRP, &pid):
            // the owner receives the descriptor's SIGIO, or any signal chosen with F_SETSIG.
            "fcntl" if a(1) == 8 => (a(2) as i32, -1),
            "fcntl" => {
                let ex = self.read_bytes(a(2), 8)?;
                let ty = i32::from_ne_bytes(ex[0..4].try_into().unwrap_or([0; 4]));
                let pid = i32::from_ne_bytes(ex[4..8].try_into().unwrap_or([0; 4]));
                // F_OWNER_PGRP = 2: a process group.
                (if ty == 2 { -pid } else { pid }, -1)
            }
            "ioctl" => {
                let pid = i32::from_ne_bytes(self.read_bytes(a(2), 4)?.try_into().unwrap_or([0; 4]));
                (pid, -1)
            }
            _ => {
                // pidfd_send_signal(pidfd, sig, …): the target's pid from the pidfd's fdinfo.
                let info = std::fs::read_to_string(format!("/proc/{}/fdinfo/{}", self.n.tid, a(0) as i32)).unwrap_or_default();
                let pid = info
                    .lines()
                    .find_map(|l| l.strip_prefix("Pid:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                (pid, a(1) as i32)
            }
        };
        let actor = self.actor.clone();
        let mut op = Operation::new(OpKind::ProcSignal, name);
        op.target_pid = Some(target);
        op.signal = Some(sig);
        if self.sh.own_pid_ns || sig == 0 {
            // The kernel keeps a pid namespace's signals inside it; signal 0 only probes. A pid
            // that does not exist in the tree's namespace fails as the kernel would fail it, so
            // the event says so.
            let missing = self.sh.own_pid_ns
                && target > 0
                && CString::new(format!("proc/{target}"))
                    .ok()
                    .map(|c| sys::openat(self.sh.root.as_raw_fd(), &c, libc::O_PATH | libc::O_CLOEXEC, 0).is_err())
                    .unwrap_or(false);
            return Ok(Handled::Op {
                actor,
                op,
                perform: Perform::Reply(if missing { Reply::Errno(libc::ESRCH) } else { Reply::Continue }),
                deny_errno: libc::EPERM,
                decision: Some(Decision::allow(ward_event::DecidedBy::Builtin)),
            });
        }
        let reaches_ward = match target {
            -1 => true,
            0 => unsafe_free_getpgid(actor.pid) == self.sh.ward_pgrp,
            t if t < 0 => -t == self.sh.ward_pgrp,
            t => self.is_ward_pid(t),
        };
        let outside = target > 0
            && !self.is_ward_pid(target)
            && !crate::proctable::descends_from(target, self.sh.root_pid)
            && !crate::proctable::descends_from(target, self.sh.ward_pid);
        // The tree shares ward's process group: a group signal reaches ward too. ward blocks
        // every signal it can, so only SIGKILL and SIGSTOP (which nothing can block) and the
        // "every process" and "ward itself" targets are refused.
        let unblockable = matches!(sig, libc::SIGKILL | libc::SIGSTOP | -1);
        // F_SETOWN/FIOSETOWN with 0 clears the owner.
        let clears_owner = matches!(name, "fcntl" | "ioctl") && target == 0;
        let decision = if clears_owner {
            Decision::allow(ward_event::DecidedBy::Builtin)
        } else if target == -1 || (reaches_ward && (target > 0 || unblockable)) {
            // Protecting the supervisor is not a policy verdict: refused in audit mode too
            // (a dead supervisor records nothing more).
            Decision::builtin_deny("signal-scope", if target == -1 {
                "a signal to every process would reach ward and the rest of the system"
            } else {
                "ward cannot be signalled from inside the tree"
            })
        } else if outside {
            self.sh.builtin("signal-scope", "signals may only reach processes of the supervised tree")
        } else {
            Decision::allow(ward_event::DecidedBy::Builtin)
        };
        Ok(Handled::Op {
            actor,
            op,
            perform: Perform::Reply(Reply::Continue),
            deny_errno: libc::EPERM,
            decision: Some(decision),
        })
    }

    // ---------------------------------------------------------------------------------------
    // escapes

    fn escape(&self, name: &str, reason: &str) -> Result<Handled, i32> {
        let actor = self.actor.clone();
        if name == "clone3" {
            // Never carried out (its flags would be re-read after the check): ENOSYS, which
            // makes libc use clone. Only a request for new namespaces is worth an event.
            let flags = self.read_u64(self.arg(0)).unwrap_or(0);
            if flags & crate::syscalls::NAMESPACE_FLAGS as u64 == 0 {
                return Ok(Handled::Quiet(Reply::Errno(libc::ENOSYS)));
            }
            let mut op = Operation::new(OpKind::SysCall, name);
            op.detail = Some(format!("clone3 with namespace flags {flags:#x}: {reason}"));
            return Ok(Handled::Op {
                actor,
                op,
                perform: Perform::Reply(Reply::Errno(libc::ENOSYS)),
                deny_errno: libc::EPERM,
                decision: Some(self.sh.builtin("escape", "a child in new namespaces could remap paths")),
            });
        }
        let kind = match name {
            "ptrace" | "process_vm_readv" | "process_vm_writev" | "pidfd_getfd" => OpKind::ProcTrace,
            _ => OpKind::SysCall,
        };
        let mut op = Operation::new(kind, name);
        op.detail = Some(reason.to_string());
        if kind == OpKind::ProcTrace {
            let target = match name {
                "ptrace" => self.arg(1) as i32,
                "pidfd_getfd" => 0,
                _ => self.arg(0) as i32,
            };
            if target > 0 {
                op.target_pid = Some(target);
            }
        }
        if name == "open_by_handle_at" || name == "name_to_handle_at" {
            op.path = Some(PathBytes::from(self.textual_abs(self.arg(0) as i32, b".")));
        }
        if matches!(name, "chroot" | "pivot_root" | "setns" | "unshare" | "clone") {
            // Should it be let through, paths of this process (and its children) may no longer
            // resolve from the tree's root: set before the call can go on.
            self.sh.roots_vary.store(true, Ordering::Release);
        }
        let decision = self.sh.builtin("escape", reason);
        let errno = if name.starts_with("io_uring") { libc::ENOSYS } else { libc::EPERM };
        Ok(Handled::Op {
            actor,
            op,
            perform: Perform::Reply(Reply::Continue),
            deny_errno: errno,
            decision: Some(decision),
        })
    }
}

/// Learns what `name` resolves to at `server` (ward's own lookup, on a thread of its own so
/// no worker waits on the network), then answers with `reply`.
fn dns_then(learn: Option<(String, std::net::SocketAddr)>, reply: Reply) -> Perform {
    match learn {
        None => Perform::Reply(reply),
        Some((name, server)) => Perform::Deferred(Box::new(move |sh: &Shared| {
            crate::dns::learn(sh, &name, server);
            (reply, None)
        })),
    }
}

fn learn_is_some(op: &Operation) -> bool {
    op.op_kind() == OpKind::DnsQuery
}

fn now(f: impl FnOnce(&Shared) -> (Reply, Option<String>) + Send + 'static) -> Perform {
    Perform::Now(Box::new(f))
}

fn zero_or(r: Result<(), i32>) -> (Reply, Option<String>) {
    match r {
        Ok(()) => (Reply::Value(0), None),
        Err(e) => (Reply::Errno(e), None),
    }
}

/// The path of one of ward's descriptors (`/proc/self/fd/N`).
fn fd_path(fd: BorrowedFd<'_>) -> Vec<u8> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map(|p| PathBytes::from(p).into_bytes())
        .unwrap_or_default()
}

/// For a `#!` script, the (dev, inode) of its interpreter (what `/proc/PID/exe` will show).
fn interpreter_identity(fd: BorrowedFd<'_>) -> Option<(u64, u64)> {
    let link = CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
    let f = sys::openat(libc::AT_FDCWD, &link, libc::O_RDONLY | libc::O_CLOEXEC, 0).ok()?;
    let mut buf = [0u8; 256];
    use std::io::Read;
    let mut file = std::fs::File::from(f);
    let n = file.read(&mut buf).ok()?;
    let head = &buf[..n];
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|&b| b == b'\n').next()?;
    let interp = line
        .split(|&b| b == b' ' || b == b'\t')
        .find(|s| !s.is_empty())?;
    let meta = std::fs::metadata(std::path::Path::new(std::ffi::OsStr::from_bytes(interp))).ok()?;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    // The interpreter may itself be a script (rare): then /proc/PID/exe is its interpreter;
    // nested interpreters are not followed and verification is skipped by using (0, 0).
    Some((meta.dev(), meta.ino()))
}

fn unsafe_free_getpgid(pid: i32) -> i32 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            after.split_whitespace().nth(2)?.parse().ok()
        })
        .unwrap_or(0)
}

fn family_name(f: i32) -> String {
    match f {
        libc::AF_UNIX => "AF_UNIX".into(),
        libc::AF_INET => "AF_INET".into(),
        libc::AF_INET6 => "AF_INET6".into(),
        libc::AF_NETLINK => "AF_NETLINK".into(),
        libc::AF_PACKET => "AF_PACKET".into(),
        other => format!("AF_{other}"),
    }
}

fn type_name(t: i32) -> String {
    match t {
        libc::SOCK_STREAM => "SOCK_STREAM".into(),
        libc::SOCK_DGRAM => "SOCK_DGRAM".into(),
        libc::SOCK_RAW => "SOCK_RAW".into(),
        libc::SOCK_SEQPACKET => "SOCK_SEQPACKET".into(),
        other => format!("SOCK_{other}"),
    }
}

/// The name asked for in a DNS query message, if `payload` is one.
pub fn dns_query_name(payload: &[u8]) -> Option<String> {
    crate::dns::query_name(payload)
}

trait TrimSlashes {
    fn trim_ascii_start_slashes(&self) -> &[u8];
}

impl TrimSlashes for [u8] {
    fn trim_ascii_start_slashes(&self) -> &[u8] {
        let start = self.iter().position(|&b| b != b'/').unwrap_or(self.len());
        &self[start..]
    }
}

impl TrimSlashes for Vec<u8> {
    fn trim_ascii_start_slashes(&self) -> &[u8] {
        self.as_slice().trim_ascii_start_slashes()
    }
}
