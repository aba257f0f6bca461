//! Import of strace logs: the published method's raw data turned into ward [`Event`]s, so one
//! set of counting rules (in [`crate::analyze`]) serves both.
//!
//! Expected input is what
//! `strace -f -e trace=openat,open,connect,execve,getdents64 -e signal=none -ttt -s 512 [-o out]`
//! writes, in any of its layouts:
//!
//! - to stderr: lines of the first process carry no prefix, the others `[pid N]`; the first
//!   process's pid is taken to be the one prefixed pid that strace never reported as
//!   `Process N attached`;
//! - `-o FILE` with `-f`: every line starts with the pid;
//! - `-ff -o out`: one file per process, `out.<pid>`, the pid taken from the file name; lines of all
//!   files are merged by time.
//!
//! `<unfinished ...>` / `<... name resumed>` pairs are joined per pid (the call's time is the
//! time it started); `+++ exited … +++` and `--- SIG… ---` lines only move the session's end.
//! A line that is neither is counted as not understood and kept (file, line number, text, why)
//! for the report; nothing in a log makes the import panic.
//!
//! # How calls become events
//!
//! | call | event |
//! | --- | --- |
//! | `openat`/`open` with `O_WRONLY`, `O_RDWR` or `O_TRUNC` | `file.write` (`file.create` with `O_CREAT\|O_EXCL`) |
//! | `openat`/`open` with `O_CREAT` only | `file.create` |
//! | other `openat`/`open` | `file.read`, flags kept (so `O_DIRECTORY` opens can be told apart) |
//! | `getdents64` on an fd not listed since `openat`/`open` returned it | `dir.list` with the directory's path |
//! | `execve` | `proc.exec` with path and argv; on success the pid's executable becomes that path |
//! | `connect` to `AF_INET`/`AF_INET6` | `net.connect` |
//! | `connect` to `AF_UNIX` | `ipc.connect` |
//!
//! A failed call becomes an event with its errno: the counts leave it out, sensitive-path
//! detection does not.
//!
//! **Relative paths.** strace prints what the program passed. A path relative to `AT_FDCWD`
//! (or `open`) is resolved against the process's working directory, which strace does not show
//! with these flags (`chdir` is not traced): it is taken to be [`StraceOptions::cwd`] (the
//! project directory) for every process. A path relative to a directory fd is resolved against
//! the path that fd was opened with, when the log shows it; otherwise it is kept as
//! `<fd N>/name`. `.` and `..` are then removed lexically, and `/proc/self` becomes
//! `/proc/<pid>` as in ward's events.
//!
//! **Symlinks.** ward records paths as the kernel resolved them; strace prints what was asked
//! for, so `/etc/ssl/certs/1e09d511.0` and the `.pem` it links to are two files to strace and
//! one to ward. With a [`StraceOptions::resolve`] function (`ward report` passes one that asks
//! this machine's filesystem, unless `--literal-paths`), absolute paths outside `/proc`, `/dev`
//! and `/sys` are resolved through it, so the counts are defined the same way as ward's.
//!
//! **Executables.** A pid's executable is the path of its last successful `execve`. A pid seen
//! before (or without) one, a forked child or a thread, takes the executable of the nearest
//! lower-numbered pid still alive with a known one (pids are handed out in increasing order,
//! so that is usually its parent or its thread-group leader); failing that, `?`.
//!
//! **Threads.** strace shows thread ids, not processes: the imported events carry the tid as
//! `pid`, so a multi-threaded program counts once per thread that made a traced call in
//! "processes" (ward's own events carry the thread-group id).

pub mod line;

use crate::paths::normalize;
use line::{parse_line, Arg, Body, Call, Line, Ret};
use std::collections::{BTreeMap, HashMap, HashSet};
use ward_event::{
    errno_from_name, Actor, DecidedBy, Decision, Event, OpKind, Operation, Outcome, PathBytes,
    SockAddr, Timestamp,
};

/// Resolves an absolute path the way the kernel would (symlinks followed), or `None` to keep it.
pub type Resolver = std::sync::Arc<dyn Fn(&[u8]) -> Option<Vec<u8>> + Send + Sync>;

/// How to read a log.
#[derive(Clone, Default)]
pub struct StraceOptions {
    /// Working directory assumed for every process (relative paths are resolved against it).
    pub cwd: Option<PathBytes>,
    /// Session id given to the events (default `strace`).
    pub session: Option<String>,
    /// Symlink resolution for absolute paths outside `/proc`, `/dev` and `/sys` (ward's events
    /// carry resolved paths; a log read on the machine it was recorded on can be resolved the
    /// same way). `None` keeps the paths as strace printed them.
    pub resolve: Option<Resolver>,
}

impl std::fmt::Debug for StraceOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StraceOptions")
            .field("cwd", &self.cwd)
            .field("session", &self.session)
            .field("resolve", &self.resolve.is_some())
            .finish()
    }
}

/// One input file: its name (for messages), the pid its name carries (`out.<pid>` of `-ff`)
/// and its text.
#[derive(Debug, Clone)]
pub struct StraceInput<'a> {
    /// File name, for messages.
    pub name: String,
    /// Pid of a `-ff` per-process file.
    pub pid: Option<i32>,
    /// Contents.
    pub text: &'a [u8],
}

/// A line the importer did not understand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LineProblem {
    /// File name.
    pub file: String,
    /// Line number, from 1.
    pub line: usize,
    /// The line (cut to 200 bytes).
    pub text: String,
    /// Why.
    pub reason: String,
}

/// The result of an import.
#[derive(Debug, Clone, Default)]
pub struct StraceLog {
    /// Events, in log order.
    pub events: Vec<Event>,
    /// Time of the first line with a time.
    pub start: Option<Timestamp>,
    /// Time of the last line with a time.
    pub end: Option<Timestamp>,
    /// Lines read.
    pub lines: usize,
    /// Lines not understood (all of them are counted; the first [`MAX_PROBLEMS`] are kept).
    pub problem_count: usize,
    /// The first lines not understood.
    pub problems: Vec<LineProblem>,
    /// Calls that were started (`<unfinished ...>`) and never resumed.
    pub unfinished: usize,
    /// Strings strace cut short (`"..."...`); their paths are prefixes.
    pub truncated_strings: usize,
    /// The first process.
    pub root_pid: Option<i32>,
    /// Argv of the first successful exec.
    pub root_argv: Option<Vec<PathBytes>>,
}

/// How many not-understood lines are kept verbatim.
pub const MAX_PROBLEMS: usize = 20;

/// The pid given to unprefixed lines when the log never names the first process.
const UNKNOWN_ROOT: i32 = 0;

/// The pid in a `-ff` file name (`out.1234` → 1234).
pub fn pid_from_file_name(name: &str) -> Option<i32> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let (_, ext) = base.rsplit_once('.')?;
    if ext.is_empty() || !ext.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    ext.parse().ok()
}

struct Parsed {
    file: usize,
    lineno: usize,
    line: Line,
}

/// Imports one session's log files.
pub fn import(inputs: &[StraceInput<'_>], opts: &StraceOptions) -> StraceLog {
    let mut log = StraceLog::default();
    let mut parsed: Vec<Parsed> = Vec::new();
    let mut attached: HashSet<i32> = HashSet::new();
    let mut prefixed_order: Vec<i32> = Vec::new();
    let mut prefixed_seen: HashSet<i32> = HashSet::new();

    for (fi, input) in inputs.iter().enumerate() {
        // Split on '\n' only; a final line without newline is still a line (maybe truncated).
        for (li, raw) in input.text.split(|&b| b == b'\n').enumerate() {
            if raw.is_empty() {
                // Empty lines (including the one after the final newline) carry nothing.
                continue;
            }
            log.lines += 1;
            let text = String::from_utf8_lossy(raw);
            match parse_line(&text) {
                Ok(mut line) => {
                    if line.pid.is_none() {
                        line.pid = input.pid;
                    }
                    if let Body::Note { attached: Some(p) } = line.body {
                        attached.insert(p);
                    }
                    if input.pid.is_none() {
                        if let Some(p) = line.pid {
                            if prefixed_seen.insert(p) {
                                prefixed_order.push(p);
                            }
                        }
                    }
                    parsed.push(Parsed {
                        file: fi,
                        lineno: li + 1,
                        line,
                    });
                }
                Err(e) => problem(&mut log, &input.name, li + 1, &text, &e.0),
            }
        }
    }

    // The first process: from -ff file names, the earliest file's pid; otherwise the first
    // prefixed pid strace never said it attached to.
    let any_unprefixed = parsed.iter().any(|p| {
        p.line.pid.is_none() && !matches!(p.line.body, Body::Note { .. } | Body::Blank)
    });
    let root = if any_unprefixed {
        prefixed_order
            .iter()
            .copied()
            .find(|p| !attached.contains(p))
            .unwrap_or(UNKNOWN_ROOT)
    } else {
        UNKNOWN_ROOT
    };

    if inputs.len() > 1 {
        // Merge per-process files by time; lines without time keep their file order.
        parsed.sort_by_key(|p| (p.line.ts.unwrap_or(0), p.file, p.lineno));
    }

    let mut st = State {
        resolver: opts.resolve.clone(),
        cwd: opts.cwd.clone(),
        session: opts.session.clone().unwrap_or_else(|| "strace".into()),
        procs: BTreeMap::new(),
        pending: HashMap::new(),
        seq: 0,
    };
    for p in parsed {
        let pid = p.line.pid.unwrap_or(root);
        if let Some(ts) = p.line.ts {
            let t = Timestamp(ts);
            if log.start.is_none_or(|s| t < s) {
                log.start = Some(t);
            }
            if log.end.is_none_or(|e| t > e) {
                log.end = Some(t);
            }
        }
        let ts = Timestamp(p.line.ts.unwrap_or(0));
        let name = &inputs[p.file].name;
        match p.line.body {
            Body::Blank | Body::Signal | Body::Note { .. } => {}
            Body::Exit(_) => {
                st.proc(pid).alive = false;
            }
            Body::Call(call) => st.call(&mut log, pid, ts, call),
            Body::Unfinished { name: sys, text } => {
                if st.pending.insert((p.file, pid), (ts, sys, text)).is_some() {
                    log.unfinished += 1;
                }
            }
            Body::Resumed { name: sys, rest } => match st.pending.remove(&(p.file, pid)) {
                Some((start, psys, text)) if psys == sys => {
                    let joined = format!("{text}{rest}");
                    match line::parse_call(&joined) {
                        Ok(call) => st.call(&mut log, pid, start, call),
                        Err(e) => problem(&mut log, name, p.lineno, &joined, &e.0),
                    }
                }
                Some(_) => {
                    log.unfinished += 1;
                    problem(
                    &mut log,
                    name,
                    p.lineno,
                    &format!("<... {sys} resumed>{rest}"),
                    "resumes a different call than the one left unfinished",
                    )
                }
                None => problem(
                    &mut log,
                    name,
                    p.lineno,
                    &format!("<... {sys} resumed>{rest}"),
                    "resumes a call that was never started",
                ),
            },
        }
    }
    log.unfinished += st.pending.len();
    log.problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    log.root_pid = log.events.first().map(|e| e.actor.pid).or(Some(root)).filter(|&p| p != UNKNOWN_ROOT);
    log
}

fn problem(log: &mut StraceLog, file: &str, line: usize, text: &str, reason: &str) {
    log.problem_count += 1;
    if log.problems.len() < MAX_PROBLEMS {
        let mut t = text.to_string();
        if t.len() > 200 {
            let mut cut = 200;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.truncate(cut);
            t.push('…');
        }
        log.problems.push(LineProblem {
            file: file.to_string(),
            line,
            text: t,
            reason: reason.to_string(),
        });
    }
}

#[derive(Default)]
struct Proc {
    exe: Option<PathBytes>,
    alive: bool,
    /// fd → (path it was opened with, whether it has been listed since).
    fds: HashMap<i64, (PathBytes, bool)>,
    /// The pid whose executable and fd table this one was assumed to share.
    parent: Option<i32>,
}

struct State {
    resolver: Option<Resolver>,
    cwd: Option<PathBytes>,
    session: String,
    procs: BTreeMap<i32, Proc>,
    pending: HashMap<(usize, i32), (Timestamp, String, String)>,
    seq: u64,
}

impl State {
    fn proc(&mut self, pid: i32) -> &mut Proc {
        if !self.procs.contains_key(&pid) {
            // A new pid: guess its parent (nearest lower live pid with a known executable).
            let parent = self
                .procs
                .range(..pid)
                .rev()
                .find(|(_, p)| p.alive && p.exe.is_some())
                .map(|(&k, _)| k);
            let exe = parent.and_then(|k| self.procs[&k].exe.clone());
            self.procs.insert(
                pid,
                Proc {
                    exe,
                    alive: true,
                    fds: HashMap::new(),
                    parent,
                },
            );
        }
        self.procs.get_mut(&pid).expect("inserted above")
    }

    fn resolve(&mut self, pid: i32, dirfd: Option<&Arg>, path: &[u8]) -> PathBytes {
        let p = self.resolve_lexically(pid, dirfd, path);
        let b = p.as_bytes();
        // `/proc/self` is the caller: say which process, as ward does.
        for (prefix, with_task) in [(&b"/proc/thread-self"[..], true), (&b"/proc/self"[..], false)] {
            if crate::paths::is_under(b, prefix) {
                let mut out = format!("/proc/{pid}").into_bytes();
                if with_task {
                    out.extend_from_slice(format!("/task/{pid}").as_bytes());
                }
                out.extend_from_slice(&b[prefix.len()..]);
                return PathBytes::from(out);
            }
        }
        match &self.resolver {
            Some(r)
                if b.starts_with(b"/")
                    && ![&b"/proc"[..], b"/dev", b"/sys"].iter().any(|d| crate::paths::is_under(b, d)) =>
            {
                r(b).map(PathBytes::from).unwrap_or(p)
            }
            _ => p,
        }
    }

    fn resolve_lexically(&mut self, pid: i32, dirfd: Option<&Arg>, path: &[u8]) -> PathBytes {
        if path.starts_with(b"/") {
            return PathBytes::from(normalize(path));
        }
        let base: Option<Vec<u8>> = match dirfd.and_then(|a| a.word()) {
            None | Some("AT_FDCWD") => self.cwd.as_ref().map(|c| c.as_bytes().to_vec()),
            Some(w) => match line::Arg::Word(w.to_string()).int() {
                Some(fd) => self.fd_path(pid, fd).map(|p| p.into_bytes()).or_else(|| {
                    Some(format!("<fd {fd}>").into_bytes())
                }),
                None => None,
            },
        };
        match base {
            Some(mut b) => {
                if path.is_empty() {
                    return PathBytes::from(normalize(&b));
                }
                b.push(b'/');
                b.extend_from_slice(path);
                if b.starts_with(b"/") {
                    PathBytes::from(normalize(&b))
                } else {
                    PathBytes::from(b)
                }
            }
            None => PathBytes::from(path.to_vec()),
        }
    }

    fn fd_path(&mut self, pid: i32, fd: i64) -> Option<PathBytes> {
        let mut cur = Some(pid);
        for _ in 0..4 {
            let p = self.procs.get(&cur?)?;
            if let Some((path, _)) = p.fds.get(&fd) {
                return Some(path.clone());
            }
            cur = p.parent;
        }
        None
    }

    fn event(&mut self, log: &mut StraceLog, pid: i32, ts: Timestamp, op: Operation, outcome: Outcome) {
        let exe = self
            .proc(pid)
            .exe
            .clone()
            .unwrap_or_else(|| PathBytes::from("?"));
        self.seq += 1;
        log.events.push(Event {
            session: self.session.clone(),
            seq: self.seq,
            ts,
            actor: Actor {
                pid,
                tid: pid,
                ppid: 0,
                exe,
            },
            op,
            outcome,
            decision: Decision::allow(DecidedBy::AuditMode),
            hash: None,
        });
    }

    fn call(&mut self, log: &mut StraceLog, pid: i32, ts: Timestamp, call: Call) {
        self.proc(pid);
        let outcome = match &call.ret {
            Ret::Ok(v) => Outcome::Ok(Some(*v)),
            Ret::Err(name) => Outcome::Err(errno_from_name(name).unwrap_or(5)),
            Ret::Unknown => Outcome::Ok(None),
        };
        let str_arg = |a: Option<&Arg>| -> Option<(Vec<u8>, bool)> {
            match a? {
                Arg::Str { bytes, truncated } => Some((bytes.clone(), *truncated)),
                _ => None,
            }
        };
        match call.name.as_str() {
            "openat" | "open" => {
                let (dirfd, path_i, flags_i) = if call.name == "open" { (None, 0, 1) } else { (call.args.first(), 1, 2) };
                let Some((raw, truncated)) = str_arg(call.args.get(path_i)) else {
                    return;
                };
                if truncated {
                    log.truncated_strings += 1;
                }
                let flags = call.args.get(flags_i).and_then(|a| a.word()).unwrap_or("O_RDONLY").to_string();
                let path = self.resolve(pid, dirfd, &raw);
                let mut op = Operation::new(open_kind(&flags), call.name.clone()).with_path(path.clone());
                op.flags = Some(flags);
                if let Ret::Ok(fd) = call.ret {
                    self.proc(pid).fds.insert(fd, (path, false));
                }
                self.event(log, pid, ts, op, outcome);
            }
            "getdents64" | "getdents" => {
                let Some(fd) = call.args.first().and_then(|a| a.int()) else {
                    return;
                };
                // Find the fd in this pid, else in the pid it was assumed to share a table with.
                let mut owner = Some(pid);
                let mut found = None;
                for _ in 0..4 {
                    let Some(o) = owner else { break };
                    let Some(p) = self.procs.get(&o) else { break };
                    if p.fds.contains_key(&fd) {
                        found = Some(o);
                        break;
                    }
                    owner = p.parent;
                }
                let path = match found {
                    Some(o) => {
                        let entry = self.procs.get_mut(&o).and_then(|p| p.fds.get_mut(&fd)).expect("found above");
                        if entry.1 {
                            return; // already listed since it was opened
                        }
                        entry.1 = true;
                        Some(entry.0.clone())
                    }
                    None => {
                        // Opened before the trace began (or by an untraced call): the first
                        // listing seen is the one counted; remember it so later reads are not.
                        self.proc(pid).fds.insert(fd, (PathBytes::from(format!("<fd {fd}>")), true));
                        None
                    }
                };
                let mut op = Operation::new(OpKind::DirList, call.name.clone());
                op.path = path;
                self.event(log, pid, ts, op, outcome);
            }
            "execve" | "execveat" => {
                let (dirfd, path_i, argv_i) = if call.name == "execveat" { (call.args.first(), 1, 2) } else { (None, 0, 1) };
                let Some((raw, truncated)) = str_arg(call.args.get(path_i)) else {
                    return;
                };
                if truncated {
                    log.truncated_strings += 1;
                }
                let path = self.resolve(pid, dirfd, &raw);
                let argv = match call.args.get(argv_i) {
                    Some(Arg::Array { items, .. }) => Some(
                        items
                            .iter()
                            .filter_map(|a| match a {
                                Arg::Str { bytes, .. } => Some(PathBytes::from(bytes.clone())),
                                _ => None,
                            })
                            .collect::<Vec<_>>(),
                    ),
                    _ => None,
                };
                let mut op = Operation::new(OpKind::ProcExec, call.name.clone()).with_path(path.clone());
                op.argv = argv.clone();
                if self.proc(pid).exe.is_none() {
                    // The first process: say what it is running.
                    self.proc(pid).exe = Some(path.clone());
                }
                self.event(log, pid, ts, op, outcome);
                if outcome.is_ok() {
                    let p = self.proc(pid);
                    p.exe = Some(path);
                    p.fds.clear();
                    p.parent = None;
                    if log.root_argv.is_none() {
                        log.root_argv = argv;
                    }
                }
            }
            "connect" => {
                let Some(addr) = call.args.get(1).map(sockaddr) else {
                    return;
                };
                let kind = if addr.is_unix() { OpKind::IpcConnect } else { OpKind::NetConnect };
                let mut op = Operation::new(kind, "connect");
                op.addr = Some(addr);
                self.event(log, pid, ts, op, outcome);
            }
            _ => {}
        }
    }
}

/// The operation an open with these symbolic flags is.
pub fn open_kind(flags: &str) -> OpKind {
    let has = |f: &str| flags.split('|').any(|x| x.trim() == f);
    if has("O_CREAT") && has("O_EXCL") {
        OpKind::FileCreate
    } else if has("O_WRONLY") || has("O_RDWR") || has("O_TRUNC") {
        OpKind::FileWrite
    } else if has("O_CREAT") {
        OpKind::FileCreate
    } else {
        OpKind::FileRead
    }
}

/// Decodes strace's rendering of a `struct sockaddr`.
pub fn sockaddr(arg: &Arg) -> SockAddr {
    let fam = arg.field("sa_family").and_then(|a| a.word()).unwrap_or("");
    let port = |key: &str| -> Option<u16> {
        match arg.field(key)? {
            Arg::Call(f, args) if f == "htons" => args.first()?.int().and_then(|v| u16::try_from(v).ok()),
            a => a.int().and_then(|v| u16::try_from(v).ok()),
        }
    };
    let invalid = |why: &str| SockAddr::Invalid { reason: why.to_string() };
    match fam {
        "AF_INET" => {
            let ip = match arg.field("sin_addr") {
                Some(Arg::Call(f, args)) if f == "inet_addr" => match args.first() {
                    Some(Arg::Str { bytes, .. }) => std::str::from_utf8(bytes).ok().and_then(|s| s.parse().ok()),
                    _ => None,
                },
                _ => None,
            };
            match (ip, port("sin_port")) {
                (Some(ip), Some(port)) => SockAddr::Inet { ip, port },
                _ => invalid("unreadable AF_INET address"),
            }
        }
        "AF_INET6" => {
            // `inet_pton(AF_INET6, "::1", &sin6_addr)` is a positional member.
            let ip = match arg {
                Arg::Struct(fields) => fields.iter().find_map(|(_, v)| match v {
                    Arg::Call(f, args) if f == "inet_pton" => match args.get(1) {
                        Some(Arg::Str { bytes, .. }) => std::str::from_utf8(bytes).ok().and_then(|s| s.parse().ok()),
                        _ => None,
                    },
                    _ => None,
                }),
                _ => None,
            };
            let scope_id = arg
                .field("sin6_scope_id")
                .and_then(|a| a.int())
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(0);
            match (ip, port("sin6_port")) {
                (Some(ip), Some(port)) => SockAddr::Inet6 { ip, port, scope_id },
                _ => invalid("unreadable AF_INET6 address"),
            }
        }
        "AF_UNIX" | "AF_LOCAL" => match arg.field("sun_path") {
            Some(Arg::Str { bytes, .. }) if bytes.first() == Some(&0) => SockAddr::UnixAbstract {
                name: PathBytes::from(bytes[1..].to_vec()),
            },
            Some(Arg::Str { bytes, .. }) => SockAddr::Unix {
                path: PathBytes::from(bytes.clone()),
            },
            _ => SockAddr::UnixUnnamed,
        },
        "AF_NETLINK" => SockAddr::Netlink {
            pid: arg.field("nl_pid").and_then(|a| a.int()).unwrap_or(0) as u32,
            groups: arg.field("nl_groups").and_then(|a| a.int()).unwrap_or(0) as u32,
        },
        "AF_UNSPEC" => SockAddr::Other { af: 0 },
        "" => invalid("no address family"),
        other => SockAddr::Other {
            af: af_number(other),
        },
    }
}

fn af_number(name: &str) -> u16 {
    match name {
        "AF_PACKET" => 17,
        "AF_BLUETOOTH" => 31,
        "AF_VSOCK" => 40,
        _ => u16::MAX,
    }
}

/// The fuzz target's body (shared by `fuzz/` under cargo-fuzz and the stable-Rust mutation loop
/// in `tests/fuzz_loop.rs`): imports `data` as one log and, split at its first `\0`, as two `-ff`
/// files, then analyses and renders the result in every format. Panics only if an invariant
/// breaks: every non-empty line is either understood or counted as not understood.
#[doc(hidden)]
pub fn fuzz_one(data: &[u8]) {
    let opts = StraceOptions {
        cwd: Some(PathBytes::from("/p")),
        ..Default::default()
    };
    let one = [StraceInput {
        name: "fuzz.log".into(),
        pid: None,
        text: data,
    }];
    let log = import(&one, &opts);
    let lines = data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
    assert_eq!(log.lines, lines);
    assert!(log.problem_count <= lines);
    assert!(log.problems.len() <= MAX_PROBLEMS.min(log.problem_count));
    assert!(log.events.len() <= lines);
    for line in data.split(|&b| b == b'\n') {
        let _ = line::parse_line(&String::from_utf8_lossy(line));
    }
    let (a, b) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[..0]),
    };
    let two = [
        StraceInput {
            name: "out.100".into(),
            pid: Some(100),
            text: a,
        },
        StraceInput {
            name: "out.101".into(),
            pid: Some(101),
            text: b,
        },
    ];
    let split = import(&two, &opts);
    let session = crate::Session {
        events: split.events,
        ..crate::Session::from_strace("fuzz".into(), &one, PathBytes::from("/p"), Some(PathBytes::from("/h")))
    };
    let report = crate::Report::build(&[session], &crate::Options::default());
    for format in [crate::Format::Text, crate::Format::Markdown, crate::Format::Json] {
        let out = crate::render(
            &report,
            &crate::RenderOptions {
                format,
                ..Default::default()
            },
        );
        if format == crate::Format::Text {
            for l in out.lines() {
                assert!(l.chars().count() <= 100, "text line wider than 100 columns: {l:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests;
