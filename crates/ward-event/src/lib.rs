//! ward's shared vocabulary: what a supervised process did ([`Operation`]), who did it
//! ([`Actor`]), what ward decided ([`Decision`]) and the record of all three ([`Event`]).
//!
//! Every other crate speaks these types: the supervisor builds operations from trapped
//! syscalls, the policy pipeline turns an operation into a decision, the audit store chains
//! events together and the report reads them back. The crate is pure: no kernel calls, no I/O.
//!
//! # The event format (JSON Lines, version 1)
//!
//! `ward exec --events PATH` writes one JSON object per line, and `ward audit export --format
//! jsonl` writes the same objects back out of the audit store. The format is stable: fields are
//! only ever added. Absent optional fields are omitted, never `null`.
//!
//! ```json
//! {"v":1,"session":"20261129-152000-3fa1","seq":4,"ts":"2026-11-29T15:20:00.123456789Z",
//!  "pid":4242,"tid":4242,"ppid":4240,"exe":"/usr/bin/cat","syscall":"openat",
//!  "kind":"file.read","path":"/etc/hostname","flags":"O_RDONLY|O_CLOEXEC",
//!  "ok":true,"ret":3,"action":"allow","verdict":"allow","score":0,"by":"audit-mode",
//!  "hash":"9f2c…"}
//! ```
//!
//! | field | meaning |
//! | --- | --- |
//! | `v` | format version, `1` |
//! | `session` | session id (`YYYYMMDD-HHMMSS-xxxx`, sorts by start time) |
//! | `seq` | position in the session, from 1, no gaps |
//! | `ts` | when ward saw the call, RFC 3339 UTC with nanoseconds |
//! | `pid`, `tid`, `ppid` | process, thread and parent, as seen from ward's pid namespace |
//! | `exe` | the calling process's executable (`/proc/PID/exe`) |
//! | `syscall` | the trapped system call (`openat`, `execve`, `connect`, …) or `ward` for events ward makes itself |
//! | `kind` | the operation, see [`OpKind`] (`file.read`, `proc.exec`, `net.connect`, …) |
//! | `path` | the path as the kernel resolved it: absolute, `..` and symlinks resolved |
//! | `path2` | second path: rename/link destination, symlink target |
//! | `flags` | open flags, symbolic (`O_WRONLY\|O_CREAT\|O_TRUNC`), or mode for chmod/mkdir |
//! | `argv` | exec arguments |
//! | `addr` | socket address, see [`SockAddr`] |
//! | `domain` | DNS name ward learnt for `addr`, or the name asked for in `dns.query` |
//! | `detail` | free text ward adds (why an operation was synthesised, what was cleaned up) |
//! | `ok` | whether the call succeeded; `ret` its return value when known, `errno` its error name (`ENOENT`) when it failed |
//! | `action` | what ward did: `allow` or `deny` |
//! | `verdict` | what the policy concluded: `allow`, `review` or `deny` (in audit mode the call is allowed whatever the verdict) |
//! | `score` | total score of the filters |
//! | `filters` | filters that fired: `[{"filter":"sensitive-path","score":80,"reason":"SSH private key"}]` |
//! | `by` | who decided: `policy`, `audit-mode`, `reviewer`, `session-rule`, `timeout`, `headless`, `builtin` |
//! | `hash` | SHA-256 (hex) of the previous event's hash and this line without `hash`; see `ward-audit` |
//!
//! Paths are bytes on Linux. A path that is valid UTF-8 is written as a JSON string; any other
//! is written as `{"bytes":"<base64>"}` so nothing is lost (see [`PathBytes`]).

mod errno;
mod path;
mod sockaddr;

pub use errno::{errno_from_name, errno_name};
pub use path::{is_under, PathBytes};
pub use sockaddr::SockAddr;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Version of the event format written in every event's `v` field.
pub const FORMAT_VERSION: u32 = 1;

/// What a process tried to do, in ward's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OpKind {
    /// Open for reading.
    #[serde(rename = "file.read")]
    FileRead,
    /// Open for writing (existing file), truncate.
    #[serde(rename = "file.write")]
    FileWrite,
    /// Create a file (open with `O_CREAT` of a missing file, `creat`, `mkdir`, `mknod`).
    #[serde(rename = "file.create")]
    FileCreate,
    /// `unlink`, `rmdir`.
    #[serde(rename = "file.delete")]
    FileDelete,
    /// `rename`; `path` is the source, `path2` the destination.
    #[serde(rename = "file.rename")]
    FileRename,
    /// `link`, `symlink`; `path` is the new name, `path2` what it points at.
    #[serde(rename = "file.link")]
    FileLink,
    /// `chmod` family; `flags` holds the mode in octal.
    #[serde(rename = "file.chmod")]
    FileChmod,
    /// The first `getdents64` on a directory since it was opened (one directory scan).
    #[serde(rename = "dir.list")]
    DirList,
    /// `execve`, `execveat`.
    #[serde(rename = "proc.exec")]
    ProcExec,
    /// `kill`, `tgkill`, `pidfd_send_signal` towards another process.
    #[serde(rename = "proc.signal")]
    ProcSignal,
    /// `ptrace`, `process_vm_readv/writev`, `pidfd_getfd`: reaching into another process.
    #[serde(rename = "proc.trace")]
    ProcTrace,
    /// ward ended a process of the tree (it outlived the session).
    #[serde(rename = "proc.reap")]
    ProcReap,
    /// `socket()`; `detail` names the family and type.
    #[serde(rename = "net.socket")]
    NetSocket,
    /// `connect` to an inet/inet6 address.
    #[serde(rename = "net.connect")]
    NetConnect,
    /// `bind`.
    #[serde(rename = "net.bind")]
    NetBind,
    /// `sendto`/`sendmsg`/`sendmmsg` with an explicit destination.
    #[serde(rename = "net.send")]
    NetSend,
    /// A DNS query seen in an outgoing datagram; `domain` is the name asked for.
    #[serde(rename = "dns.query")]
    DnsQuery,
    /// `connect` to a unix socket (ssh-agent, docker.sock, D-Bus).
    #[serde(rename = "ipc.connect")]
    IpcConnect,
    /// A system call ward refuses whatever the policy says (`io_uring_setup`, `unshare`, …).
    #[serde(rename = "sys.call")]
    SysCall,
    /// ward removed or reverted planted git metadata after a command.
    #[serde(rename = "git.cleanup")]
    GitCleanup,
}

impl OpKind {
    /// All kinds, in declaration order.
    pub const ALL: [OpKind; 20] = [
        OpKind::FileRead,
        OpKind::FileWrite,
        OpKind::FileCreate,
        OpKind::FileDelete,
        OpKind::FileRename,
        OpKind::FileLink,
        OpKind::FileChmod,
        OpKind::DirList,
        OpKind::ProcExec,
        OpKind::ProcSignal,
        OpKind::ProcTrace,
        OpKind::ProcReap,
        OpKind::NetSocket,
        OpKind::NetConnect,
        OpKind::NetBind,
        OpKind::NetSend,
        OpKind::DnsQuery,
        OpKind::IpcConnect,
        OpKind::SysCall,
        OpKind::GitCleanup,
    ];

    /// The dotted name used in the event format (`file.read`).
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::FileRead => "file.read",
            OpKind::FileWrite => "file.write",
            OpKind::FileCreate => "file.create",
            OpKind::FileDelete => "file.delete",
            OpKind::FileRename => "file.rename",
            OpKind::FileLink => "file.link",
            OpKind::FileChmod => "file.chmod",
            OpKind::DirList => "dir.list",
            OpKind::ProcExec => "proc.exec",
            OpKind::ProcSignal => "proc.signal",
            OpKind::ProcTrace => "proc.trace",
            OpKind::ProcReap => "proc.reap",
            OpKind::NetSocket => "net.socket",
            OpKind::NetConnect => "net.connect",
            OpKind::NetBind => "net.bind",
            OpKind::NetSend => "net.send",
            OpKind::DnsQuery => "dns.query",
            OpKind::IpcConnect => "ipc.connect",
            OpKind::SysCall => "sys.call",
            OpKind::GitCleanup => "git.cleanup",
        }
    }

    /// Parses a dotted name.
    pub fn parse(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether the operation changes the filesystem.
    pub fn is_file_mutation(self) -> bool {
        matches!(
            self,
            OpKind::FileWrite
                | OpKind::FileCreate
                | OpKind::FileDelete
                | OpKind::FileRename
                | OpKind::FileLink
                | OpKind::FileChmod
        )
    }

    /// Whether a denial of this operation is a file-access denial (`EACCES`) rather than an
    /// operation denial (`EPERM`).
    pub fn is_file_access(self) -> bool {
        matches!(
            self,
            OpKind::FileRead
                | OpKind::FileWrite
                | OpKind::FileCreate
                | OpKind::FileDelete
                | OpKind::FileRename
                | OpKind::FileLink
                | OpKind::FileChmod
                | OpKind::DirList
                | OpKind::ProcExec
        )
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operation: the kind and its objects, after ward resolved them.
///
/// Paths are absolute and resolved as the kernel resolves them. Fields that do not apply to
/// the kind are `None`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Operation {
    /// What is being done. `None` only in `Default`; every recorded operation has a kind.
    pub kind: Option<OpKind>,
    /// The trapped system call's name (`openat`), or `ward` for synthesised events.
    pub syscall: String,
    /// Main path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBytes>,
    /// Second path (rename/link destination, symlink target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path2: Option<PathBytes>,
    /// Open flags or mode, symbolic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// Exec arguments (each as [`PathBytes`] so non-UTF-8 arguments survive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<PathBytes>>,
    /// Socket address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<SockAddr>,
    /// Domain name: the one `addr` was resolved from, or the one a DNS query asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Target process of a signal or trace operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_pid: Option<i32>,
    /// Signal number of a signal operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Free text ward adds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// First bytes of an outgoing payload, for the secret filters. Never written to the
    /// audit trail (it could hold the very secret being exfiltrated).
    #[serde(skip)]
    pub payload: Option<Vec<u8>>,
}

impl Operation {
    /// A new operation of `kind` from `syscall`.
    pub fn new(kind: OpKind, syscall: impl Into<String>) -> Self {
        Operation {
            kind: Some(kind),
            syscall: syscall.into(),
            ..Default::default()
        }
    }

    /// Sets the main path.
    pub fn with_path(mut self, path: impl Into<PathBytes>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The kind; [`OpKind::SysCall`] for a defaulted operation.
    pub fn op_kind(&self) -> OpKind {
        self.kind.unwrap_or(OpKind::SysCall)
    }
}

/// Who made the call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Actor {
    /// Process id (thread group id).
    pub pid: i32,
    /// Thread id.
    pub tid: i32,
    /// Parent process id.
    pub ppid: i32,
    /// Executable, from `/proc/PID/exe`.
    pub exe: PathBytes,
}

/// How the call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Succeeded; the return value when ward knows it.
    Ok(Option<i64>),
    /// Failed with this errno (positive).
    Err(i32),
}

impl Outcome {
    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        matches!(self, Outcome::Ok(_))
    }
}

/// What the policy concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Routine.
    Allow,
    /// A person should decide.
    Review,
    /// Refused.
    Deny,
}

impl Verdict {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Review => "review",
            Verdict::Deny => "deny",
        }
    }
}

/// What ward did with the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The call went ahead.
    Allow,
    /// The call failed with `EACCES`/`EPERM` (or was never made).
    Deny,
}

/// Who settled the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecidedBy {
    /// The policy pipeline's verdict, enforced.
    Policy,
    /// Audit mode: allowed whatever the verdict.
    AuditMode,
    /// A person answered a review.
    Reviewer,
    /// An earlier "allow for this session" answer.
    SessionRule,
    /// Nobody answered a review in time.
    Timeout,
    /// A review with no reviewer: the profile's headless action.
    Headless,
    /// ward's built-in protections (escape resistance, the sandbox), whatever the policy.
    Builtin,
}

/// One filter's contribution to a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilterHit {
    /// Filter name (`sensitive-path`).
    pub filter: String,
    /// Score added (may be negative for allow rules).
    pub score: i32,
    /// Why, in words a user understands.
    pub reason: String,
}

/// The outcome of the policy pipeline and of any review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What ward did.
    pub action: Action,
    /// What the policy concluded.
    pub verdict: Verdict,
    /// Total score.
    pub score: i32,
    /// Filters that fired, in pipeline order.
    pub filters: Vec<FilterHit>,
    /// Who settled it.
    pub by: DecidedBy,
}

impl Decision {
    /// Allowed without any filter firing: what audit mode records when no policy runs.
    pub fn allow(by: DecidedBy) -> Self {
        Decision {
            action: Action::Allow,
            verdict: Verdict::Allow,
            score: 0,
            filters: Vec::new(),
            by,
        }
    }

    /// Denied by ward's built-in protections, with one reason.
    pub fn builtin_deny(filter: &str, reason: impl Into<String>) -> Self {
        Decision {
            action: Action::Deny,
            verdict: Verdict::Deny,
            score: 100,
            filters: vec![FilterHit {
                filter: filter.to_string(),
                score: 100,
                reason: reason.into(),
            }],
            by: DecidedBy::Builtin,
        }
    }
}

/// A person's (or the absence of a person's) answer to a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReviewAnswer {
    /// Allow this one call.
    AllowOnce,
    /// Deny this call.
    Deny,
    /// Allow this call and identical ones for the rest of the session.
    AllowSession,
    /// Allow and remember in the user's configuration.
    AllowAlways,
    /// Nobody answered within the timeout.
    Timeout,
    /// No reviewer is attached.
    NoReviewer,
}

/// The policy seam between the supervisor and the pipeline.
///
/// The supervisor calls [`Decider::decide`] for every operation before carrying it out and
/// [`Decider::observe`] with the finished event afterwards (so stateful filters such as taint
/// learn what really happened). Implementations must be cheap, deterministic for the same
/// state, and must not block.
///
/// A decision with `by == DecidedBy::Policy` and `verdict == Verdict::Review` asks for a
/// review: the supervisor parks only the calling thread, asks its [`Reviewer`] on another
/// thread, and turns the answer into the final decision with [`Decider::settle_review`].
pub trait Decider: Send + Sync {
    /// Decides an operation. Must never panic; a failing filter yields a deny.
    fn decide(&self, actor: &Actor, op: &Operation) -> Decision;
    /// Learns the outcome of a finished operation.
    fn observe(&self, _event: &Event) {}
    /// Turns a reviewer's answer into the final decision, and remembers "allow for this
    /// session" / "always" answers. The default allows on an allow answer and denies otherwise.
    fn settle_review(
        &self,
        _actor: &Actor,
        _op: &Operation,
        pending: &Decision,
        answer: ReviewAnswer,
    ) -> Decision {
        let (action, by) = match answer {
            ReviewAnswer::AllowOnce | ReviewAnswer::AllowSession | ReviewAnswer::AllowAlways => {
                (Action::Allow, DecidedBy::Reviewer)
            }
            ReviewAnswer::Deny => (Action::Deny, DecidedBy::Reviewer),
            ReviewAnswer::Timeout => (Action::Deny, DecidedBy::Timeout),
            ReviewAnswer::NoReviewer => (Action::Deny, DecidedBy::Headless),
        };
        Decision {
            action,
            by,
            ..pending.clone()
        }
    }
}

/// Asks a person about an operation the policy wants reviewed.
pub trait Reviewer: Send + Sync {
    /// Blocks the calling thread until the person answers, the timeout passes
    /// ([`ReviewAnswer::Timeout`]) or there is nobody to ask ([`ReviewAnswer::NoReviewer`]).
    fn review(&self, actor: &Actor, op: &Operation, decision: &Decision) -> ReviewAnswer;
}

/// The reviewer of a session with nobody to ask.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoReviewer;

impl Reviewer for NoReviewer {
    fn review(&self, _actor: &Actor, _op: &Operation, _decision: &Decision) -> ReviewAnswer {
        ReviewAnswer::NoReviewer
    }
}

/// Where finished events go: the audit writer implements it. `record` must not block for
/// long (the calling thread is serving a frozen syscall); the session id, sequence number and
/// hash are filled in by the sink, in the order events arrive.
pub trait EventSink: Send + Sync {
    /// Takes one finished event.
    fn record(&self, event: Event);
}

/// A sink that keeps events in memory (tests, `ward policy test`).
#[derive(Debug, Default)]
pub struct MemorySink(pub std::sync::Mutex<Vec<Event>>);

impl EventSink for MemorySink {
    fn record(&self, mut event: Event) {
        let mut events = self.0.lock().unwrap_or_else(|p| p.into_inner());
        event.seq = events.len() as u64 + 1;
        events.push(event);
    }
}

/// The allow-everything decider of `--mode audit` without a policy.
#[derive(Debug, Default, Clone, Copy)]
pub struct AllowAll;

impl Decider for AllowAll {
    fn decide(&self, _actor: &Actor, _op: &Operation) -> Decision {
        Decision::allow(DecidedBy::AuditMode)
    }
}

/// Wall-clock time as nanoseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Now.
    pub fn now() -> Self {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        Timestamp(d.as_nanos() as u64)
    }

    /// As a `SystemTime`.
    pub fn to_system_time(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(self.0)
    }

    /// Seconds since the epoch, as a float (for durations in reports).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// RFC 3339 with nanoseconds, UTC.
    pub fn to_rfc3339(self) -> String {
        humantime::format_rfc3339_nanos(self.to_system_time()).to_string()
    }

    /// Parses RFC 3339 (any precision).
    pub fn parse_rfc3339(s: &str) -> Option<Self> {
        let t = humantime::parse_rfc3339_weak(s).ok()?;
        let d = t.duration_since(UNIX_EPOCH).ok()?;
        Some(Timestamp(d.as_nanos() as u64))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse_rfc3339(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("bad timestamp {s:?}")))
    }
}

/// One recorded operation: the unit of the audit trail and of `--events`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Session id.
    pub session: String,
    /// Position in the session, from 1.
    pub seq: u64,
    /// When ward saw the call.
    pub ts: Timestamp,
    /// Who made it.
    pub actor: Actor,
    /// What it was.
    pub op: Operation,
    /// How it ended.
    pub outcome: Outcome,
    /// What ward decided.
    pub decision: Decision,
    /// Chain hash (hex), set by the audit writer.
    pub hash: Option<String>,
}

/// The flat wire form of [`Event`]; field order here is the order on the wire.
#[derive(Serialize, Deserialize)]
struct WireEvent {
    v: u32,
    session: String,
    seq: u64,
    ts: Timestamp,
    pid: i32,
    tid: i32,
    ppid: i32,
    exe: PathBytes,
    syscall: String,
    kind: OpKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<PathBytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path2: Option<PathBytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flags: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    argv: Option<Vec<PathBytes>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    addr: Option<SockAddr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target_pid: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ret: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    errno: Option<String>,
    action: Action,
    verdict: Verdict,
    score: i32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    filters: Vec<FilterHit>,
    by: DecidedBy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hash: Option<String>,
}

/// Why a line could not be read as an event.
#[derive(Debug)]
pub struct ParseError(String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

impl Event {
    fn to_wire(&self, with_hash: bool) -> WireEvent {
        let (ok, ret, errno) = match self.outcome {
            Outcome::Ok(ret) => (true, ret, None),
            Outcome::Err(e) => (false, None, Some(errno_name(e))),
        };
        WireEvent {
            v: FORMAT_VERSION,
            session: self.session.clone(),
            seq: self.seq,
            ts: self.ts,
            pid: self.actor.pid,
            tid: self.actor.tid,
            ppid: self.actor.ppid,
            exe: self.actor.exe.clone(),
            syscall: self.op.syscall.clone(),
            kind: self.op.op_kind(),
            path: self.op.path.clone(),
            path2: self.op.path2.clone(),
            flags: self.op.flags.clone(),
            argv: self.op.argv.clone(),
            addr: self.op.addr.clone(),
            domain: self.op.domain.clone(),
            target_pid: self.op.target_pid,
            signal: self.op.signal,
            detail: self.op.detail.clone(),
            ok,
            ret,
            errno,
            action: self.decision.action,
            verdict: self.decision.verdict,
            score: self.decision.score,
            filters: self.decision.filters.clone(),
            by: self.decision.by,
            hash: if with_hash { self.hash.clone() } else { None },
        }
    }

    /// The JSON line (without newline), including `hash` when set.
    pub fn to_json(&self) -> String {
        // Serialising plain data into a String cannot fail.
        serde_json::to_string(&self.to_wire(true)).unwrap_or_default()
    }

    /// The JSON line without the `hash` field: the bytes the chain hash covers.
    pub fn to_json_unhashed(&self) -> String {
        serde_json::to_string(&self.to_wire(false)).unwrap_or_default()
    }

    /// Parses one JSON line.
    pub fn from_json(line: &str) -> Result<Event, ParseError> {
        let w: WireEvent =
            serde_json::from_str(line).map_err(|e| ParseError(format!("not an event: {e}")))?;
        if w.v != FORMAT_VERSION {
            return Err(ParseError(format!("unsupported event format version {}", w.v)));
        }
        let outcome = if w.ok {
            Outcome::Ok(w.ret)
        } else {
            let name = w.errno.as_deref().unwrap_or("EIO");
            Outcome::Err(errno_from_name(name).unwrap_or(libc_eio()))
        };
        Ok(Event {
            session: w.session,
            seq: w.seq,
            ts: w.ts,
            actor: Actor {
                pid: w.pid,
                tid: w.tid,
                ppid: w.ppid,
                exe: w.exe,
            },
            op: Operation {
                kind: Some(w.kind),
                syscall: w.syscall,
                path: w.path,
                path2: w.path2,
                flags: w.flags,
                argv: w.argv,
                addr: w.addr,
                domain: w.domain,
                target_pid: w.target_pid,
                signal: w.signal,
                detail: w.detail,
                payload: None,
            },
            outcome,
            decision: Decision {
                action: w.action,
                verdict: w.verdict,
                score: w.score,
                filters: w.filters,
                by: w.by,
            },
            hash: w.hash,
        })
    }
}

const fn libc_eio() -> i32 {
    5
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Event {
        Event {
            session: "20261129-152000-3fa1".into(),
            seq: 4,
            ts: Timestamp(1_764_429_600_123_456_789),
            actor: Actor {
                pid: 10,
                tid: 11,
                ppid: 9,
                exe: PathBytes::from("/usr/bin/cat"),
            },
            op: Operation {
                flags: Some("O_RDONLY".into()),
                ..Operation::new(OpKind::FileRead, "openat").with_path(PathBytes::from(b"/tmp/\xff".to_vec()))
            },
            outcome: Outcome::Err(2),
            decision: Decision::allow(DecidedBy::AuditMode),
            hash: Some("ab".into()),
        }
    }

    #[test]
    fn event_round_trips_through_json() {
        let e = sample();
        let line = e.to_json();
        assert!(line.contains(r#""errno":"ENOENT""#), "{line}");
        assert!(line.contains(r#""path":{"bytes":"L3RtcC//"}"#), "{line}");
        assert_eq!(Event::from_json(&line).unwrap(), e);
    }

    #[test]
    fn unhashed_form_omits_only_the_hash() {
        let e = sample();
        let mut without = e.clone();
        without.hash = None;
        assert_eq!(e.to_json_unhashed(), without.to_json());
        assert!(!e.to_json_unhashed().contains("\"hash\""));
    }

    #[test]
    fn kinds_parse_their_own_names() {
        for k in OpKind::ALL {
            assert_eq!(OpKind::parse(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for bad in ["", "{", "[]", "{\"v\":2}", "null", "{\"v\":1,\"seq\":-1}"] {
            assert!(Event::from_json(bad).is_err(), "{bad}");
        }
    }
}
