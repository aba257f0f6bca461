//! The engine: a compiled policy plus the session's state, implementing
//! [`ward_event::Decider`].
//!
//! [`Engine::decide`] prepares a [`Ctx`] (the operation's access, the globs its paths match,
//! the commands an exec runs) and runs the filters in a fixed order. Each filter adds
//! [`FilterHit`]s; the total score goes through the two thresholds. A filter that fails (or
//! panics) turns the decision into a deny naming it.
//!
//! Session state (taint, rate buckets, the `/proc` census, loopback ports bound in the
//! session, "allow for this session" answers) lives behind one mutex, taken only by the
//! operations that need it: a routine file read takes no lock and allocates nothing.

use crate::config::{
    append_approval, compile_glob, Approval, Limits, Mode, NetworkSettings, Resolved, Thresholds,
};
use crate::filters;
use crate::paths::expand_home_in_arg;
use crate::schema::{Access, ApprovedFile};
use crate::shell;
use crate::matcher::{PathMatcher, PathMatcherBuilder};
use globset::GlobMatcher;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;
use ward_event::{
    Action, Actor, DecidedBy, Decider, Decision, Event, FilterHit, OpKind, Operation, ReviewAnswer, SockAddr, Verdict,
};

/// The filters, in pipeline order (what `ward policy explain` lists).
pub const FILTERS: &[&str] = &[
    filters::OP_RISK,
    filters::PATH_RULE,
    filters::SENSITIVE,
    filters::CENSUS,
    filters::GIT,
    filters::COMMAND,
    filters::DESTRUCTIVE,
    filters::EGRESS,
    filters::SECRETS,
    filters::TAINT,
    filters::RATE,
];

/// A monotonic clock in nanoseconds (injectable so replays use recorded times).
pub trait Clock: Send + Sync {
    /// Nanoseconds since an arbitrary origin; never decreases.
    fn now_ns(&self) -> u64;
}

/// The real clock.
#[derive(Debug)]
pub struct SystemClock(Instant);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(Instant::now())
    }
}

impl Clock for SystemClock {
    fn now_ns(&self) -> u64 {
        self.0.elapsed().as_nanos() as u64
    }
}

/// A clock set by hand (replays set it to each event's timestamp).
#[derive(Debug, Default)]
pub struct ManualClock(pub AtomicU64);

impl ManualClock {
    /// Sets the time.
    pub fn set(&self, ns: u64) {
        self.0.store(ns, Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now_ns(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl<T: Clock + ?Sized> Clock for std::sync::Arc<T> {
    fn now_ns(&self) -> u64 {
        (**self).now_ns()
    }
}

/// What a glob in the combined set stands for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum GlobRole {
    /// `sensitive[i]`.
    Sensitive(usize),
    /// `path_rules[i]`.
    PathRule(usize),
}

/// A compiled command rule.
pub(crate) struct CompiledCommandRule {
    pub rule: crate::config::CommandRule,
    pub matchers: Vec<GlobMatcher>,
}

/// The immutable, compiled policy.
pub(crate) struct Compiled {
    pub profile: String,
    pub home_str: String,
    pub project: Vec<u8>,
    pub project_str: String,
    pub writable: Vec<Vec<u8>>,
    pub protected: Vec<Vec<u8>>,
    pub thresholds: Thresholds,
    pub limits: Limits,
    pub headless: Verdict,
    pub network: NetworkSettings,
    /// Sensitive and path-rule globs; ids index `roles`.
    pub globs: PathMatcher,
    pub roles: Vec<GlobRole>,
    /// `except` globs of sensitive entries; ids index `except_of`.
    pub excepts: PathMatcher,
    pub except_of: Vec<usize>,
    pub sensitive: Vec<crate::config::SensitiveRule>,
    pub path_rules: Vec<crate::config::PathRule>,
    pub commands: Vec<CompiledCommandRule>,
    pub approved: Vec<Approval>,
    pub user_config: PathBuf,
    /// Set when the policy failed to compile: every decision is a deny naming it.
    pub broken: Option<String>,
}

/// A token bucket.
#[derive(Debug, Clone)]
pub(crate) struct Bucket {
    tokens: f64,
    last_ns: u64,
    started: bool,
}

impl Bucket {
    pub(crate) fn new() -> Bucket {
        Bucket { tokens: 0.0, last_ns: 0, started: false }
    }

    /// Takes one token; `false` when the bucket is empty (the limit is exceeded).
    pub fn take(&mut self, now_ns: u64, per_sec: u32, burst: u32) -> bool {
        let cap = f64::from(burst.max(1));
        if !self.started {
            self.started = true;
            self.tokens = cap;
            self.last_ns = now_ns;
        }
        let dt = now_ns.saturating_sub(self.last_ns) as f64 / 1e9;
        self.last_ns = self.last_ns.max(now_ns);
        self.tokens = (self.tokens + dt * f64::from(per_sec)).min(cap);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The census of one process.
#[derive(Debug, Default, Clone)]
pub(crate) struct CensusWindow {
    pub start_ns: u64,
    pub pids: HashSet<i32>,
}

/// Session state.
#[derive(Default)]
pub(crate) struct State {
    /// The sensitive file whose successful read tainted the session.
    pub taint: Option<String>,
    pub exec_bucket: Option<Bucket>,
    pub connect_bucket: Option<Bucket>,
    pub delete_bucket: Option<Bucket>,
    pub census: HashMap<i32, CensusWindow>,
    pub bound_ports: HashSet<u16>,
    pub bound_ephemeral: bool,
    pub session_rules: HashSet<(OpKind, Vec<u8>)>,
}

impl State {
    pub(crate) fn bucket(slot: &mut Option<Bucket>) -> &mut Bucket {
        slot.get_or_insert_with(Bucket::new)
    }
}

/// One command an exec runs: the exec's own argv, or a simple command from its shell string.
#[derive(Debug, Clone)]
pub(crate) struct Cmd {
    /// The words, wrappers (`env`, `sudo`, `timeout`, …) removed.
    pub argv: Vec<String>,
    /// The words as written, wrappers included (`sudo rm …`).
    pub raw: Vec<String>,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub stdin_from_download: bool,
    /// `Some(text)` for a command found in a shell string.
    pub in_shell: Option<String>,
}

impl Cmd {
    pub fn name(&self) -> &str {
        self.argv.first().map(|a| crate::paths::basename_str(a)).unwrap_or("")
    }

    /// Prefixes a reason with the command when it came from a shell string.
    pub fn reason(&self, reason: &str) -> String {
        match &self.in_shell {
            Some(text) => format!("`{text}` (in a shell string): {reason}"),
            None => reason.to_string(),
        }
    }

    /// Arguments that name paths, expanded (`~`, `$HOME`; relative to the project).
    pub fn path_args<'a>(&'a self, c: &'a Compiled) -> impl Iterator<Item = (String, Access)> + 'a {
        // Commands that write their (last) operands rather than read them.
        let name = self.name();
        let all_written = matches!(name, "tee" | "touch" | "mkdir" | "truncate");
        let last_written = matches!(name, "cp" | "mv" | "install" | "ln" | "rsync");
        let last = self.argv.iter().rposition(|a| !a.starts_with('-')).unwrap_or(0);
        let args = self.argv.iter().enumerate().skip(1).map(move |(i, a)| {
            let written = all_written || (last_written && i == last);
            (a, if written { Access::Write } else { Access::Read })
        });
        let reads = self.reads.iter().map(|a| (a, Access::Read));
        let writes = self.writes.iter().map(|a| (a, Access::Write));
        args.chain(reads).chain(writes).filter_map(move |(a, acc)| {
            let a = a.as_str();
            if a.starts_with('-') && !a.contains('=') {
                return None;
            }
            let a = match a.split_once('=') {
                Some((k, v)) if k.starts_with('-') => v,
                _ => a,
            };
            let expanded = expand_home_in_arg(a, &c.home_str);
            let p = expanded.as_deref().unwrap_or(a);
            if p.is_empty() || p.contains("://") {
                return None;
            }
            if p.starts_with('/') {
                Some((normalize(p), acc))
            } else if p.contains('/') || p.starts_with('.') || acc == Access::Write {
                Some((normalize(&format!("{}/{}", c.project_str.trim_end_matches('/'), p)), acc))
            } else {
                None
            }
        })
    }
}

/// Lexical normalisation: removes `.` and resolves `..`.
pub(crate) fn normalize(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for comp in p.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Wrappers that run their argument as a command.
const WRAPPERS: &[&str] = &["env", "sudo", "doas", "nohup", "nice", "ionice", "timeout", "stdbuf", "command", "exec", "time", "xargs", "setsid", "chrt", "taskset", "unbuffer", "builtin"];

/// Strips wrappers: `sudo -u x env A=1 timeout 5 curl …` → `curl …`.
pub(crate) fn unwrap(argv: &[String]) -> &[String] {
    let mut a = argv;
    for _ in 0..8 {
        let Some(first) = a.first() else { return a };
        let name = crate::paths::basename_str(first);
        if !WRAPPERS.contains(&name) {
            return a;
        }
        let mut i = 1;
        while i < a.len() {
            let w = a[i].as_str();
            let takes_value = match name {
                "sudo" | "doas" => matches!(w, "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"),
                "nice" => w == "-n",
                "ionice" => matches!(w, "-c" | "-n" | "-p"),
                "timeout" => matches!(w, "-s" | "-k" | "--signal" | "--kill-after"),
                "xargs" => matches!(w, "-I" | "-n" | "-P" | "-L" | "-d" | "-E" | "-s" | "-a"),
                "env" => matches!(w, "-u" | "-C" | "-S"),
                "taskset" | "chrt" => false,
                _ => false,
            };
            if w.starts_with('-') {
                i += if takes_value { 2 } else { 1 };
                continue;
            }
            if name == "env" && w.contains('=') {
                i += 1;
                continue;
            }
            if name == "timeout" && w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
                continue;
            }
            if (name == "taskset" || name == "chrt") && w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
                continue;
            }
            break;
        }
        if i >= a.len() {
            return a;
        }
        a = &a[i..];
    }
    a
}

/// The commands an exec runs, and whether its shell string failed to parse.
pub(crate) fn exec_commands(op: &Operation) -> (Vec<Cmd>, Option<String>) {
    let Some(argv) = &op.argv else { return (Vec::new(), None) };
    let argv: Vec<String> = argv.iter().map(|a| a.to_string_lossy()).collect();
    let mut out = vec![Cmd {
        argv: unwrap(&argv).to_vec(),
        raw: argv.clone(),
        reads: Vec::new(),
        writes: Vec::new(),
        stdin_from_download: false,
        in_shell: None,
    }];
    let mut error = None;
    // The script of `sh -c` (also behind wrappers: `env X=1 bash -lc …`).
    if let Some(script) = shell::shell_script(unwrap(&argv)) {
        match shell::split(script) {
            Ok(sp) => {
                for c in sp.commands {
                    if c.argv.is_empty() && c.reads.is_empty() && c.writes.is_empty() {
                        continue;
                    }
                    let text = c.display();
                    out.push(Cmd {
                        argv: unwrap(&c.argv).to_vec(),
                        raw: c.argv.clone(),
                        reads: c.reads,
                        writes: c.writes,
                        stdin_from_download: c.stdin_from_download,
                        in_shell: Some(text),
                    });
                }
            }
            Err(e) => error = Some(e),
        }
    }
    (out, error)
}

/// Everything the filters look at for one operation.
pub(crate) struct Ctx<'a> {
    pub c: &'a Compiled,
    pub actor: &'a Actor,
    pub op: &'a Operation,
    pub kind: OpKind,
    pub path: Option<&'a [u8]>,
    pub path2: Option<&'a [u8]>,
    /// Glob indices matched by `path` (and `path2`).
    pub matches: &'a [usize],
    pub matches2: &'a [usize],
    /// Access of the main path.
    pub access: Access,
    /// Access of the second path (rename destination: write; link target: read).
    pub access2: Access,
    /// For exec: the commands it runs.
    pub cmds: &'a [Cmd],
    pub shell_error: Option<&'a str>,
    pub now_ns: u64,
}

impl Ctx<'_> {
    /// Whether a rule of `access` applies to an operation of `op_access`.
    pub fn applies(rule: Access, op_access: Access) -> bool {
        rule == Access::Any || rule == op_access
    }
}

/// Filter hits of one decision.
#[derive(Default)]
pub(crate) struct Hits(pub Vec<FilterHit>);

impl Hits {
    pub fn add(&mut self, filter: &str, score: i32, reason: impl Into<String>) {
        self.0.push(FilterHit { filter: filter.to_string(), score, reason: reason.into() });
    }
}

/// What a filter returns: `Err` is a failure, which denies.
pub(crate) type FilterResult = Result<(), String>;

thread_local! {
    static MATCH_BUF: RefCell<(Vec<usize>, Vec<usize>, Vec<usize>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// The policy engine of one session.
pub struct Engine {
    c: Compiled,
    mode: Mode,
    state: Mutex<State>,
    has_session_rules: AtomicBool,
    clock: Box<dyn Clock>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("profile", &self.c.profile).field("mode", &self.mode).finish()
    }
}

/// One filter's share of a decision, for `ward policy explain`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FilterContribution {
    /// The filter.
    pub filter: &'static str,
    /// Its total score.
    pub score: i32,
    /// Its reasons (empty when it did not fire).
    pub reasons: Vec<String>,
}

impl Engine {
    /// Compiles the policy for a session in `project_dir` with `home`.
    pub fn new(resolved: &Resolved, project_dir: PathBuf, home: PathBuf) -> Engine {
        Engine::with_clock(resolved, project_dir, home, Box::new(SystemClock::default()))
    }

    /// Like [`Engine::new`] with a given clock.
    pub fn with_clock(resolved: &Resolved, project_dir: PathBuf, home: PathBuf, clock: Box<dyn Clock>) -> Engine {
        Engine {
            c: compile(resolved, &project_dir, &home),
            mode: resolved.mode,
            state: Mutex::new(State::default()),
            has_session_rules: AtomicBool::new(false),
            clock,
        }
    }

    /// The mode decisions are made in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Changes the mode (replays run in enforce mode whatever the config says).
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs the pipeline: the verdict with each filter's hits, before mode and review.
    fn evaluate(&self, actor: &Actor, op: &Operation) -> (Verdict, i32, Vec<FilterHit>) {
        if let Some(err) = &self.c.broken {
            let hit = FilterHit { filter: "policy".into(), score: self.c.thresholds.deny, reason: err.clone() };
            return (Verdict::Deny, hit.score, vec![hit]);
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.pipeline(actor, op)));
        match result {
            Ok(r) => r,
            Err(_) => {
                let hit = FilterHit {
                    filter: "policy".into(),
                    score: self.c.thresholds.deny,
                    reason: "a filter panicked; denied to be safe".into(),
                };
                (Verdict::Deny, hit.score, vec![hit])
            }
        }
    }

    fn pipeline(&self, actor: &Actor, op: &Operation) -> (Verdict, i32, Vec<FilterHit>) {
        let kind = op.op_kind();
        let path = op.path.as_ref().map(|p| p.as_bytes()).or_else(|| match (&op.addr, kind) {
            (Some(SockAddr::Unix { path }), _) => Some(path.as_bytes()),
            _ => None,
        });
        let path2 = op.path2.as_ref().map(|p| p.as_bytes());
        let (access, access2) = match kind {
            OpKind::FileWrite | OpKind::FileCreate | OpKind::FileDelete | OpKind::FileChmod => (Access::Write, Access::Write),
            OpKind::FileRename => (Access::Write, Access::Write),
            OpKind::FileLink => (Access::Write, Access::Read),
            _ => (Access::Read, Access::Read),
        };
        let (cmds, shell_error) = if kind == OpKind::ProcExec { exec_commands(op) } else { (Vec::new(), None) };
        MATCH_BUF.with(|buf| {
            let mut buf = buf.borrow_mut();
            let (m1, m2, scratch) = &mut *buf;
            m1.clear();
            m2.clear();
            if let Some(p) = path {
                self.c.globs.matches_into(p, m1, scratch);
            }
            if let Some(p) = path2 {
                self.c.globs.matches_into(p, m2, scratch);
            }
            let ctx = Ctx {
                c: &self.c,
                actor,
                op,
                kind,
                path,
                path2,
                matches: m1,
                matches2: m2,
                access,
                access2,
                cmds: &cmds,
                shell_error: shell_error.as_deref(),
                now_ns: 0,
            };
            self.run_filters(ctx)
        })
    }

    fn run_filters(&self, mut ctx: Ctx<'_>) -> (Verdict, i32, Vec<FilterHit>) {
        let mut hits = Hits::default();
        let mut failed = false;
        let mut run = |name: &str, r: FilterResult, hits: &mut Hits| {
            if let Err(e) = r {
                failed = true;
                hits.add(name, self.c.thresholds.deny, format!("filter failed: {e}"));
            }
        };
        run(filters::OP_RISK, filters::op_risk::check(&ctx, &mut hits), &mut hits);
        run(filters::PATH_RULE, filters::path_rule::check(&ctx, &mut hits), &mut hits);
        run(filters::SENSITIVE, filters::sensitive::check(&ctx, &mut hits), &mut hits);
        run(filters::GIT, filters::git::check(&ctx, &mut hits), &mut hits);
        run(filters::COMMAND, filters::command::check(&ctx, &mut hits), &mut hits);
        run(filters::DESTRUCTIVE, filters::destructive::check(&ctx, &mut hits), &mut hits);
        run(filters::SECRETS, filters::secrets::check(&ctx, &mut hits), &mut hits);
        // Stateful filters take the session lock, and only for the kinds they look at.
        if filters::needs_state(&ctx) {
            ctx.now_ns = self.clock.now_ns();
            let mut st = self.lock();
            run(filters::CENSUS, filters::census::check(&ctx, &mut st, &mut hits), &mut hits);
            run(filters::EGRESS, filters::egress::check(&ctx, &mut st, &mut hits), &mut hits);
            run(filters::TAINT, filters::taint::check(&ctx, &mut st, &mut hits), &mut hits);
            run(filters::RATE, filters::rate::check(&ctx, &mut st, &mut hits), &mut hits);
        }
        // Pipeline order for the record.
        hits.0.sort_by_key(|h| FILTERS.iter().position(|f| *f == h.filter).unwrap_or(usize::MAX));
        let score: i32 = hits.0.iter().map(|h| h.score).sum();
        let verdict = if failed { Verdict::Deny } else { self.c.thresholds.verdict(score) };
        (verdict, score, hits.0)
    }

    /// Each filter's contribution to the decision on `op` in the current state, for
    /// `ward policy explain`. Like `decide`, it updates the session state.
    pub fn explain(&self, actor: &Actor, op: &Operation) -> (Decision, Vec<FilterContribution>) {
        let d = self.decide(actor, op);
        let mut out: Vec<FilterContribution> = FILTERS
            .iter()
            .map(|f| FilterContribution { filter: f, score: 0, reasons: Vec::new() })
            .collect();
        for h in &d.filters {
            if let Some(c) = out.iter_mut().find(|c| c.filter == h.filter) {
                c.score += h.score;
                c.reasons.push(h.reason.clone());
            } else {
                out.push(FilterContribution { filter: "other", score: h.score, reasons: vec![format!("{}: {}", h.filter, h.reason)] });
            }
        }
        (d, out)
    }

    fn approved(&self, op: &Operation) -> Option<&Approval> {
        if self.c.approved.is_empty() {
            return None;
        }
        let kind = op.op_kind();
        self.c.approved.iter().find(|a| a.kind == Some(kind) && approval_matches(&a.entry, op))
    }
}

/// The key an "allow for this session" answer is remembered under.
fn session_key(op: &Operation) -> Option<(OpKind, Vec<u8>)> {
    let kind = op.op_kind();
    let mut key = Vec::new();
    if let Some(argv) = &op.argv {
        for a in argv {
            key.extend_from_slice(a.as_bytes());
            key.push(0);
        }
    } else if let Some(p) = &op.path {
        key.extend_from_slice(p.as_bytes());
        if let Some(p2) = &op.path2 {
            key.push(0);
            key.extend_from_slice(p2.as_bytes());
        }
    } else if let Some(a) = &op.addr {
        key.extend_from_slice(a.to_string().as_bytes());
        if let Some(d) = &op.domain {
            key.push(0);
            key.extend_from_slice(d.as_bytes());
        }
    } else if let Some(d) = &op.domain {
        key.extend_from_slice(d.as_bytes());
    } else {
        return None;
    }
    Some((kind, key))
}

fn approval_for(op: &Operation) -> Option<ApprovedFile> {
    let kind = op.op_kind();
    let mut e = ApprovedFile {
        kind: kind.as_str().to_string(),
        path: None,
        argv: None,
        host: None,
        port: None,
        reason: format!("answered \"always\" at a review ({})", ward_event::Timestamp::now().to_rfc3339()),
    };
    if let Some(argv) = &op.argv {
        e.argv = Some(argv.iter().map(|a| a.to_string_lossy()).collect());
    } else if let Some(p) = &op.path {
        e.path = Some(p.as_str()?.to_string());
    } else if let Some(addr) = &op.addr {
        let sa = addr.socket_addr()?;
        e.host = Some(op.domain.clone().unwrap_or_else(|| sa.ip().to_string()));
        e.port = Some(sa.port());
    } else if let Some(d) = &op.domain {
        e.host = Some(d.clone());
    } else {
        return None;
    }
    Some(e)
}

fn approval_matches(a: &ApprovedFile, op: &Operation) -> bool {
    if let Some(argv) = &a.argv {
        return op.argv.as_ref().is_some_and(|o| {
            o.len() == argv.len() && o.iter().zip(argv).all(|(x, y)| x.as_bytes() == y.as_bytes())
        });
    }
    if let Some(p) = &a.path {
        return op.path.as_ref().is_some_and(|o| o.as_bytes() == p.as_bytes());
    }
    if let Some(h) = &a.host {
        let host_ok = op.domain.as_deref().is_some_and(|d| d.eq_ignore_ascii_case(h))
            || op.addr.as_ref().and_then(|x| x.socket_addr()).is_some_and(|sa| sa.ip().to_string() == *h);
        let port_ok = match a.port {
            Some(p) => op.addr.as_ref().and_then(|x| x.socket_addr()).is_some_and(|sa| sa.port() == p),
            None => true,
        };
        return host_ok && port_ok;
    }
    false
}

impl Decider for Engine {
    fn decide(&self, actor: &Actor, op: &Operation) -> Decision {
        if op.op_kind() == OpKind::SysCall || op.kind.is_none() {
            // ward's built-in walls decide these; the policy has nothing to add.
            return Decision::allow(if self.mode == Mode::Audit { DecidedBy::AuditMode } else { DecidedBy::Policy });
        }
        if let Some(a) = self.approved(op) {
            return Decision {
                action: Action::Allow,
                verdict: Verdict::Allow,
                score: 0,
                filters: vec![FilterHit {
                    filter: "approved".into(),
                    score: 0,
                    reason: format!("{} ({})", a.entry.reason, a.origin),
                }],
                by: if self.mode == Mode::Audit { DecidedBy::AuditMode } else { DecidedBy::Policy },
            };
        }
        if self.has_session_rules.load(Ordering::Relaxed) {
            if let Some(key) = session_key(op) {
                if self.lock().session_rules.contains(&key) {
                    return Decision {
                        action: Action::Allow,
                        verdict: Verdict::Allow,
                        score: 0,
                        filters: Vec::new(),
                        by: DecidedBy::SessionRule,
                    };
                }
            }
        }
        let (verdict, score, filters) = self.evaluate(actor, op);
        let (action, by) = match (self.mode, verdict) {
            (Mode::Audit, _) => (Action::Allow, DecidedBy::AuditMode),
            (Mode::Enforce, Verdict::Allow) => (Action::Allow, DecidedBy::Policy),
            // A review holds the call; the supervisor asks and calls settle_review.
            (Mode::Enforce, Verdict::Review) => (Action::Deny, DecidedBy::Policy),
            (Mode::Enforce, Verdict::Deny) => (Action::Deny, DecidedBy::Policy),
        };
        Decision { action, verdict, score, filters, by }
    }

    fn observe(&self, event: &Event) {
        if filters::taint::observe_needs_state(&self.c, event) {
            let mut st = self.lock();
            filters::taint::observe(&self.c, &mut st, event);
        }
    }

    fn settle_review(&self, _actor: &Actor, op: &Operation, pending: &Decision, answer: ReviewAnswer) -> Decision {
        let mut d = pending.clone();
        let remember = |this: &Engine| {
            if let Some(key) = session_key(op) {
                this.lock().session_rules.insert(key);
                this.has_session_rules.store(true, Ordering::Relaxed);
            }
        };
        match answer {
            ReviewAnswer::AllowOnce => {
                d.action = Action::Allow;
                d.by = DecidedBy::Reviewer;
            }
            ReviewAnswer::Deny => {
                d.action = Action::Deny;
                d.by = DecidedBy::Reviewer;
            }
            ReviewAnswer::AllowSession => {
                remember(self);
                d.action = Action::Allow;
                d.by = DecidedBy::Reviewer;
            }
            ReviewAnswer::AllowAlways => {
                remember(self);
                d.action = Action::Allow;
                d.by = DecidedBy::Reviewer;
                match approval_for(op) {
                    Some(entry) => {
                        if let Err(e) = append_approval(&self.c.user_config, &entry) {
                            d.filters.push(FilterHit {
                                filter: "review".into(),
                                score: 0,
                                reason: format!(
                                    "could not save the \"always\" answer to {}: {e}; allowed for this session",
                                    self.c.user_config.display()
                                ),
                            });
                        }
                    }
                    None => d.filters.push(FilterHit {
                        filter: "review".into(),
                        score: 0,
                        reason: "this operation can't be saved as an \"always\" rule (non-UTF-8 path); allowed for this session".into(),
                    }),
                }
            }
            ReviewAnswer::Timeout => {
                d.action = Action::Deny;
                d.by = DecidedBy::Timeout;
            }
            ReviewAnswer::NoReviewer => {
                d.action = if self.c.headless == Verdict::Allow { Action::Allow } else { Action::Deny };
                d.by = DecidedBy::Headless;
            }
        }
        d
    }
}

/// Compiles a resolved configuration.
fn compile(r: &Resolved, project: &Path, home: &Path) -> Compiled {
    use std::os::unix::ffi::OsStrExt;
    let mut b = PathMatcherBuilder::default();
    let mut eb = PathMatcherBuilder::default();
    let mut roles = Vec::new();
    let mut except_of = Vec::new();
    let mut broken = None;
    // Patterns in Resolved were expanded against its own home/project; re-anchor them when
    // the engine is made for another (tests, replays) by plain prefix replacement.
    let rehome = |p: &str| -> String {
        let rh = r.home.to_string_lossy();
        let rp = r.project_dir.to_string_lossy();
        if r.project_dir != project && !rp.is_empty() && p.starts_with(rp.as_ref()) {
            format!("{}{}", project.to_string_lossy(), &p[rp.len()..])
        } else if r.home != home && !rh.is_empty() && p.starts_with(rh.as_ref()) {
            format!("{}{}", home.to_string_lossy(), &p[rh.len()..])
        } else {
            p.to_string()
        }
    };
    let mut sensitive = r.sensitive.clone();
    for (i, s) in sensitive.iter_mut().enumerate() {
        s.pattern = rehome(&s.pattern);
        if let Err(e) = b.add(&s.pattern, roles.len()) {
            broken = Some(format!("bad glob {:?}: {e}", s.pattern));
        }
        roles.push(GlobRole::Sensitive(i));
        for e in s.except.iter_mut() {
            *e = rehome(e);
            if let Err(err) = eb.add(e, except_of.len()) {
                broken = Some(format!("bad glob {e:?}: {err}"));
            }
            except_of.push(i);
        }
    }
    let mut path_rules = r.path_rules.clone();
    for (i, pr) in path_rules.iter_mut().enumerate() {
        pr.pattern = rehome(&pr.pattern);
        if let Err(e) = b.add(&pr.pattern, roles.len()) {
            broken = Some(format!("bad glob {:?}: {e}", pr.pattern));
        }
        roles.push(GlobRole::PathRule(i));
    }
    let (globs, excepts) = match (b.build(), eb.build()) {
        (Ok(g), Ok(e)) => (g, e),
        (Err(e), _) | (_, Err(e)) => {
            broken = Some(format!("globs failed to compile: {e}"));
            (PathMatcher::empty(), PathMatcher::empty())
        }
    };
    let mut commands = Vec::new();
    for rule in &r.command_rules {
        let mut matchers = Vec::new();
        for el in &rule.prefix {
            match compile_glob(el) {
                Ok(g) => matchers.push(g.compile_matcher()),
                Err(e) => broken = Some(format!("bad command pattern {el:?}: {e}")),
            }
        }
        commands.push(CompiledCommandRule { rule: rule.clone(), matchers });
    }
    let bytes = |p: &Path| p.as_os_str().as_bytes().to_vec();
    let writable = r.sandbox.writable.iter().map(|w| bytes(Path::new(&rehome(&w.to_string_lossy())))).collect();
    let protected = r.sandbox.protected.iter().map(|w| bytes(Path::new(&rehome(&w.to_string_lossy())))).collect();
    Compiled {
        profile: r.profile.clone(),
        home_str: home.to_string_lossy().into_owned(),
        project: bytes(project),
        project_str: project.to_string_lossy().into_owned(),
        writable,
        protected,
        thresholds: r.thresholds,
        limits: r.limits,
        headless: r.headless,
        network: r.sandbox.network.clone(),
        globs,
        roles,
        excepts,
        except_of,
        sensitive,
        path_rules,
        commands,
        approved: r.approved.clone(),
        user_config: r.user_config.clone(),
        broken,
    }
}
