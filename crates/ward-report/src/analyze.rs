//! The counting rules: one [`Session`] in, one [`SessionReport`] out. Pure and deterministic.
//!
//! Every number is defined here once, for ward's own events and imported strace logs alike:
//!
//! | number | definition |
//! | --- | --- |
//! | files read | distinct paths of successful `file.read` events, leaving out opens with `O_DIRECTORY` (a directory opened to be listed is a directory scan, not a file) |
//! | files written | distinct paths of successful `file.write` and `file.create` events (not `mkdir`), `file.link` names and `file.rename` destinations |
//! | files in / outside the project | the union of both sets, split by whether the path is under the project directory |
//! | directory scans | successful `dir.list` events (one per directory listing: the first `getdents64` on a freshly opened fd), not made unique |
//! | subprocesses | distinct paths of successful `proc.exec` events, the session's own command included |
//! | processes | distinct `pid`s among all events (from an strace log: task ids, threads included — `-f` prints thread ids and the published flags do not trace `clone`) |
//! | connections | successful `net.connect` and `ipc.connect` events to an IP or unix address; a non-blocking connect's `EINPROGRESS` counts as success |
//!
//! Failed calls are left out of all counts. Files matching a runtime rule ([`RuntimeDirs`]) are
//! left out of the file counts and listed apart, unless `include_runtime`. Sensitive paths and
//! findings look at every event, failed or not, runtime or not.

use crate::paths::{display, is_under, proc_file, ProcTarget};
use crate::runtime::RuntimeDirs;
use crate::sensitive::{classify, Class};
use crate::session::{Session, Source};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use ward_event::{Action, Event, OpKind, Outcome, SockAddr};

/// Version of the JSON report schema, written as `report_version`.
pub const REPORT_VERSION: u32 = 1;

/// What the report is asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// Runtime rules; `None` means the built-in rules of the agents detected in the session
    /// (from its profile name and the programs it ran).
    pub runtime: Option<RuntimeDirs>,
    /// Count runtime files like any other.
    pub include_runtime: bool,
    /// Distinct other PIDs whose `/proc/<pid>/stat|status|cmdline` must be read to call it a census.
    pub census_min_pids: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime: None,
            include_runtime: false,
            census_min_pids: 3,
        }
    }
}

/// Reports of one or more sessions, rendered side by side.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// [`REPORT_VERSION`].
    pub report_version: u32,
    /// One per session, in the order asked for.
    pub sessions: Vec<SessionReport>,
}

impl Report {
    /// Analyses each session.
    pub fn build(sessions: &[Session], opts: &Options) -> Report {
        Report {
            report_version: REPORT_VERSION,
            sessions: sessions.iter().map(|s| analyze(s, opts)).collect(),
        }
    }
}

/// Everything the report says about one session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionReport {
    /// Session id (`strace:raw.log` for imports).
    pub id: String,
    /// Column header.
    pub label: String,
    /// `audit`, `events` or `strace`.
    pub source: Source,
    /// The project directory (`~` for home).
    pub project: String,
    /// The home directory used for `~`.
    pub home: Option<String>,
    /// The command the session ran.
    pub command: Option<Vec<String>>,
    /// Start, RFC 3339.
    pub start: Option<String>,
    /// End, RFC 3339.
    pub end: Option<String>,
    /// Seconds from start to end.
    pub duration_secs: Option<f64>,
    /// The counts.
    pub summary: Summary,
    /// Sensitive paths touched, most opened first.
    pub sensitive: Vec<SensitivePath>,
    /// One line each, with evidence.
    pub findings: Vec<Finding>,
    /// `/proc/<pid>/environ` of other processes.
    pub environ_sweep: EnvironSweep,
    /// `/proc/<pid>/stat|status|cmdline` of other processes.
    pub proc_census: ProcCensus,
    /// Git metadata read in directories above the project.
    pub git_above_project: Vec<PathOpens>,
    /// Files written outside the project (runtime ones included, marked).
    pub written_outside_project: Vec<WrittenFile>,
    /// Connection destinations.
    pub network: Vec<Destination>,
    /// Programs run, with how many times.
    pub executables: Vec<ExecCount>,
    /// Runtime rules in force and the files each left out.
    pub runtime_excluded: Vec<RuntimeExclusion>,
    /// Operations ward denied.
    pub denied: Vec<Denied>,
    /// Import statistics (strace only).
    pub import: Option<ImportStats>,
}

/// The summary table's numbers (see the module docs for definitions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Distinct files read.
    pub files_read: u64,
    /// Distinct files written.
    pub files_written: u64,
    /// Distinct files touched under the project.
    pub files_in_project: u64,
    /// Distinct files touched elsewhere.
    pub files_outside_project: u64,
    /// Directory listings.
    pub dir_scans: u64,
    /// Distinct executables run.
    pub subprocesses: u64,
    /// Distinct pids.
    pub processes: u64,
    /// Successful connections.
    pub connections: u64,
    /// All events.
    pub events: u64,
    /// Events of calls that failed.
    pub failed: u64,
    /// Events ward denied.
    pub denied: u64,
    /// Distinct files left out as the agent's runtime.
    pub runtime_files: u64,
}

/// One row of the sensitive-path table.
#[derive(Debug, Clone, Serialize)]
pub struct SensitivePath {
    /// Path, `~` for home; `/proc/<pid>/environ` stands for all other processes' environ files.
    pub path: String,
    /// Class.
    pub class: Class,
    /// Class in words.
    pub class_label: String,
    /// Open (or connect) attempts.
    pub opens: u64,
    /// Of which succeeded.
    pub succeeded: u64,
    /// Distinct PIDs (for `/proc/<pid>/environ`), else 1.
    pub targets: u64,
    /// Executables that made the calls.
    pub executables: Vec<String>,
}

/// A finding: one line of text and the evidence behind it.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `environ-sweep`, `proc-census`, `git-above-project`, `written-outside-project`,
    /// `network`, `nonstandard-port`, `executables`, `denied`.
    pub kind: String,
    /// The line.
    pub text: String,
    /// Supporting items (paths, destinations), one per line.
    pub evidence: Vec<String>,
}

/// `/proc/<pid>/environ` reads of other processes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EnvironSweep {
    /// Open attempts.
    pub attempted: u64,
    /// Of which succeeded.
    pub succeeded: u64,
    /// Distinct PIDs attempted.
    pub distinct_pids: u64,
    /// Distinct PIDs read.
    pub succeeded_pids: u64,
    /// Reads of the process's own environ (`/proc/self/environ` or its own pid), not counted above.
    pub own: u64,
    /// Executables that did it.
    pub executables: Vec<String>,
}

/// Process-table census.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProcCensus {
    /// Distinct other PIDs whose stat/status/cmdline was opened.
    pub distinct_pids: u64,
    /// Open attempts per file name (`stat`, `status`, `cmdline`).
    pub opens: BTreeMap<String, u64>,
    /// Successful opens.
    pub succeeded: u64,
    /// Executables that did it.
    pub executables: Vec<String>,
    /// Whether it reached `census_min_pids`.
    pub is_census: bool,
}

/// A path with attempt and success counts.
#[derive(Debug, Clone, Serialize)]
pub struct PathOpens {
    /// Path (`~` for home).
    pub path: String,
    /// Attempts.
    pub opens: u64,
    /// Successes.
    pub succeeded: u64,
    /// Executables.
    pub executables: Vec<String>,
}

/// A file written outside the project.
#[derive(Debug, Clone, Serialize)]
pub struct WrittenFile {
    /// Path (`~` for home).
    pub path: String,
    /// The runtime rule it matches, if any.
    pub runtime_rule: Option<String>,
    /// Executables.
    pub executables: Vec<String>,
}

/// A connection destination.
#[derive(Debug, Clone, Serialize)]
pub struct Destination {
    /// `ip:port`, `[ip6]:port`, `unix:/path`.
    pub address: String,
    /// IP, when inet.
    pub ip: Option<String>,
    /// Port, when inet.
    pub port: Option<u16>,
    /// Domain, when ward learnt one from DNS.
    pub domain: Option<String>,
    /// `inet`, `inet6`, `unix`.
    pub family: String,
    /// Attempts.
    pub attempts: u64,
    /// Successes (`EINPROGRESS` included).
    pub succeeded: u64,
    /// Loopback address.
    pub loopback: bool,
    /// Why it stands out (`non-standard port 65535 …`).
    pub flag: Option<String>,
    /// Executables.
    pub executables: Vec<String>,
}

/// An executable and how often it was run.
#[derive(Debug, Clone, Serialize)]
pub struct ExecCount {
    /// Path.
    pub path: String,
    /// Successful execs.
    pub count: u64,
}

/// Files one runtime rule left out.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeExclusion {
    /// Rule name.
    pub rule: String,
    /// Its pattern.
    pub pattern: String,
    /// Distinct files left out.
    pub files: u64,
    /// A few of them.
    pub examples: Vec<String>,
}

/// A denied operation.
#[derive(Debug, Clone, Serialize)]
pub struct Denied {
    /// Event sequence number.
    pub seq: u64,
    /// Operation kind.
    pub kind: String,
    /// Path or address.
    pub target: String,
    /// Executable.
    pub executable: String,
    /// Filter reasons (`sensitive-path: SSH private key`).
    pub reasons: Vec<String>,
    /// Who decided (`policy`, `reviewer`, `timeout`, …).
    pub by: String,
}

/// How an imported log read.
#[derive(Debug, Clone, Serialize)]
pub struct ImportStats {
    /// Files read.
    pub files: Vec<String>,
    /// Lines read.
    pub lines: u64,
    /// Lines not understood.
    pub not_understood: u64,
    /// Calls started and never finished.
    pub unfinished: u64,
    /// Strings strace truncated.
    pub truncated_strings: u64,
    /// The first lines not understood.
    pub problems: Vec<crate::strace::LineProblem>,
}

fn success_counts(e: &Event) -> bool {
    match e.outcome {
        Outcome::Ok(_) => true,
        // A non-blocking connect in progress is a connection being made.
        Outcome::Err(errno) => {
            matches!(e.op.op_kind(), OpKind::NetConnect | OpKind::IpcConnect) && errno == EINPROGRESS
        }
    }
}

const EINPROGRESS: i32 = 115;

fn has_flag(flags: Option<&str>, flag: &str) -> bool {
    flags.is_some_and(|f| f.split('|').any(|x| x.trim() == flag))
}

/// Ports that are standard for the traffic an agent makes.
const STANDARD_PORTS: &[u16] = &[80, 443, 53, 853, 22, 9418];

/// Analyses one session.
pub fn analyze(s: &Session, opts: &Options) -> SessionReport {
    let home = s.home.as_ref().map(|h| h.as_bytes());
    let project = s.project.as_bytes();
    let disp = |p: &[u8]| display(p, home);

    // Runtime rules: given, or detected from the profile and the programs run.
    let runtime = match &opts.runtime {
        Some(r) => r.clone(),
        None => {
            let mut words: Vec<&[u8]> = Vec::new();
            if let Some(cmd) = &s.command {
                words.extend(cmd.iter().map(|a| a.as_bytes()));
            }
            for e in &s.events {
                if e.op.op_kind() == OpKind::ProcExec && e.outcome.is_ok() {
                    if let Some(p) = &e.op.path {
                        words.push(p.as_bytes());
                    }
                    if let Some(argv) = &e.op.argv {
                        words.extend(argv.iter().take(3).map(|a| a.as_bytes()));
                    }
                }
            }
            let mut agents = RuntimeDirs::detect_agents(&words);
            if let Some(p) = &s.profile {
                agents.insert(0, p.as_str());
            }
            let mut r = RuntimeDirs::none();
            for a in agents {
                r.extend(RuntimeDirs::builtin(a));
            }
            r
        }
    };

    let mut read: BTreeSet<&[u8]> = BTreeSet::new();
    let mut written: BTreeSet<&[u8]> = BTreeSet::new();
    let mut written_all: BTreeMap<&[u8], BTreeSet<String>> = BTreeMap::new();
    let mut excluded: BTreeMap<usize, BTreeSet<&[u8]>> = BTreeMap::new();
    let mut sum = Summary::default();
    let mut pids = BTreeSet::new();
    let mut execs: BTreeMap<&[u8], u64> = BTreeMap::new();
    let mut sens: BTreeMap<(String, Class), SensitiveTally> = BTreeMap::new();
    let mut env = EnvironSweep::default();
    let mut env_pids = BTreeSet::new();
    let mut env_ok_pids = BTreeSet::new();
    let mut env_exes = BTreeSet::new();
    let mut census = ProcCensus::default();
    let mut census_pids = BTreeSet::new();
    let mut census_exes = BTreeSet::new();
    let mut git: BTreeMap<&[u8], (u64, u64, BTreeSet<String>)> = BTreeMap::new();
    let mut dests: BTreeMap<String, Destination> = BTreeMap::new();
    let mut denied = Vec::new();

    for e in &s.events {
        sum.events += 1;
        pids.insert(e.actor.pid);
        let kind = e.op.op_kind();
        let ok = success_counts(e);
        if !e.outcome.is_ok() {
            sum.failed += 1;
        }
        let exe = e.actor.exe.to_string_lossy();
        let path = e.op.path.as_ref().map(|p| p.as_bytes());

        if e.decision.action == Action::Deny {
            sum.denied += 1;
            let target = match (&e.op.path, &e.op.addr) {
                (Some(p), _) => disp(p.as_bytes()),
                (None, Some(a)) => a.to_string(),
                _ => e.op.detail.clone().unwrap_or_default(),
            };
            denied.push(Denied {
                seq: e.seq,
                kind: kind.as_str().to_string(),
                target,
                executable: exe.clone(),
                reasons: e
                    .decision
                    .filters
                    .iter()
                    .map(|f| format!("{}: {}", f.filter, f.reason))
                    .collect(),
                by: serde_json::to_value(e.decision.by)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
            });
        }

        // Files.
        let file_target: Option<&[u8]> = match kind {
            OpKind::FileRead if !has_flag(e.op.flags.as_deref(), "O_DIRECTORY") => path,
            // A directory made is not a file written.
            OpKind::FileCreate if e.op.syscall.starts_with("mkdir") => None,
            OpKind::FileWrite | OpKind::FileCreate | OpKind::FileLink => path,
            OpKind::FileRename => e.op.path2.as_ref().map(|p| p.as_bytes()),
            _ => None,
        };
        if let (true, Some(p)) = (ok, file_target) {
            let is_write = kind != OpKind::FileRead;
            if is_write && !is_under(p, project) && !p.starts_with(b"/dev/") {
                written_all.entry(p).or_default().insert(exe.clone());
            }
            let rule = if opts.include_runtime {
                None
            } else {
                runtime.matching_index(p, home)
            };
            match rule {
                Some(i) => {
                    excluded.entry(i).or_default().insert(p);
                }
                None if is_write => {
                    written.insert(p);
                }
                None => {
                    read.insert(p);
                }
            }
        }

        match kind {
            OpKind::DirList if ok => sum.dir_scans += 1,
            OpKind::ProcExec if ok => {
                if let Some(p) = path {
                    *execs.entry(p).or_default() += 1;
                }
            }
            OpKind::NetConnect | OpKind::IpcConnect => {
                if let Some(addr) = &e.op.addr {
                    let countable = addr.socket_addr().is_some() || addr.is_unix();
                    if countable && ok {
                        sum.connections += 1;
                    }
                    if countable {
                        let key = addr.to_string();
                        let d = dests.entry(key.clone()).or_insert_with(|| destination(addr, key));
                        d.attempts += 1;
                        if ok {
                            d.succeeded += 1;
                        }
                        if d.domain.is_none() {
                            d.domain = e.op.domain.clone();
                        }
                        if !d.executables.contains(&exe) {
                            d.executables.push(exe.clone());
                        }
                    }
                }
            }
            _ => {}
        }

        // Sensitive paths, /proc, git: every attempt, runtime or not.
        let sens_path: Option<&[u8]> = match kind {
            OpKind::FileRead
            | OpKind::FileWrite
            | OpKind::FileCreate
            | OpKind::FileDelete
            | OpKind::FileRename
            | OpKind::FileLink
            | OpKind::FileChmod => path,
            OpKind::IpcConnect => match &e.op.addr {
                Some(SockAddr::Unix { path }) => Some(path.as_bytes()),
                _ => None,
            },
            _ => None,
        };
        let Some(sp) = sens_path else { continue };
        let succeeded = e.outcome.is_ok();
        if let Some(class) = classify(sp, home, e.actor.pid) {
            let key = if class == Class::OtherProcessEnv {
                "/proc/<pid>/environ".to_string()
            } else {
                disp(sp)
            };
            let row = sens.entry((key, class)).or_default();
            row.0 += 1;
            if succeeded {
                row.1 += 1;
            }
            if let Some((ProcTarget::Pid(p), _)) = proc_file(sp) {
                row.2.insert(p);
            }
            row.3.insert(exe.clone());
        }
        if let Some((target, file)) = proc_file(sp) {
            let other = match target {
                ProcTarget::Pid(p) if p != e.actor.pid => Some(p),
                _ => None,
            };
            match (file, other) {
                (b"environ", Some(p)) => {
                    env.attempted += 1;
                    env_pids.insert(p);
                    if succeeded {
                        env.succeeded += 1;
                        env_ok_pids.insert(p);
                    }
                    env_exes.insert(exe.clone());
                }
                (b"environ", None) => env.own += 1,
                (b"stat" | b"status" | b"cmdline", Some(p)) => {
                    census_pids.insert(p);
                    *census
                        .opens
                        .entry(String::from_utf8_lossy(file).into_owned())
                        .or_default() += 1;
                    if succeeded {
                        census.succeeded += 1;
                    }
                    census_exes.insert(exe.clone());
                }
                _ => {}
            }
        }
        if let Some(repo) = git_dir_owner(sp) {
            if repo != project && is_under(project, repo) {
                let g = git.entry(sp).or_default();
                g.0 += 1;
                if succeeded {
                    g.1 += 1;
                }
                g.2.insert(exe.clone());
            }
        }
    }

    // Summary.
    sum.files_read = read.len() as u64;
    sum.files_written = written.len() as u64;
    let touched: BTreeSet<&[u8]> = read.union(&written).copied().collect();
    sum.files_in_project = touched.iter().filter(|p| is_under(p, project)).count() as u64;
    sum.files_outside_project = touched.len() as u64 - sum.files_in_project;
    sum.subprocesses = execs.len() as u64;
    sum.processes = pids.len() as u64;
    let runtime_excluded: Vec<RuntimeExclusion> = runtime
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let files = excluded.get(&i);
            RuntimeExclusion {
                rule: r.name.clone(),
                pattern: r.pattern.clone(),
                files: files.map_or(0, |f| f.len() as u64),
                examples: files
                    .map(|f| f.iter().take(3).map(|p| disp(p)).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    sum.runtime_files = excluded.values().map(|f| f.len() as u64).sum();

    // Tables and findings.
    let mut sensitive: Vec<SensitivePath> = sens
        .into_iter()
        .map(|((path, class), (opens, succeeded, targets, exes))| SensitivePath {
            path,
            class,
            class_label: class.label().to_string(),
            opens,
            succeeded,
            targets: targets.len().max(1) as u64,
            executables: exes.into_iter().collect(),
        })
        .collect();
    sensitive.sort_by(|a, b| b.opens.cmp(&a.opens).then(a.path.cmp(&b.path)));

    env.distinct_pids = env_pids.len() as u64;
    env.succeeded_pids = env_ok_pids.len() as u64;
    env.executables = env_exes.into_iter().collect();
    census.distinct_pids = census_pids.len() as u64;
    census.executables = census_exes.into_iter().collect();
    census.is_census = census.distinct_pids as usize >= opts.census_min_pids.max(1);

    let git_above: Vec<PathOpens> = git
        .into_iter()
        .map(|(p, (opens, succeeded, exes))| PathOpens {
            path: disp(p),
            opens,
            succeeded,
            executables: exes.into_iter().collect(),
        })
        .collect();
    let written_outside: Vec<WrittenFile> = written_all
        .into_iter()
        .map(|(p, exes)| WrittenFile {
            path: disp(p),
            runtime_rule: runtime.matching(p, home).map(|r| r.name.clone()),
            executables: exes.into_iter().collect(),
        })
        .collect();
    let mut network: Vec<Destination> = dests.into_values().collect();
    network.sort_by(|a, b| b.attempts.cmp(&a.attempts).then(a.address.cmp(&b.address)));
    let mut executables: Vec<ExecCount> = execs
        .into_iter()
        .map(|(p, count)| ExecCount {
            path: disp(p),
            count,
        })
        .collect();
    executables.sort_by(|a, b| b.count.cmp(&a.count).then(a.path.cmp(&b.path)));

    let findings = findings(&env, &census, &git_above, &written_outside, &network, &executables, &denied);

    SessionReport {
        id: s.id.clone(),
        label: s.label.clone(),
        source: s.source,
        project: disp(project),
        home: s.home.as_ref().map(|h| h.to_string_lossy()),
        command: s
            .command
            .as_ref()
            .map(|c| c.iter().map(|a| a.to_string_lossy()).collect()),
        start: s.start.map(|t| t.to_rfc3339()),
        end: s.end.map(|t| t.to_rfc3339()),
        duration_secs: match (s.start, s.end) {
            (Some(a), Some(b)) if b >= a => Some((b.0 - a.0) as f64 / 1e9),
            _ => None,
        },
        summary: sum,
        sensitive,
        findings,
        environ_sweep: env,
        proc_census: census,
        git_above_project: git_above,
        written_outside_project: written_outside,
        network,
        executables,
        runtime_excluded,
        denied,
        import: s.import.clone(),
    }
}

/// Opens, successes, target PIDs and executables of one sensitive path.
type SensitiveTally = (u64, u64, BTreeSet<i32>, BTreeSet<String>);

/// For a path inside a `.git` directory, the directory holding that `.git`.
fn git_dir_owner(path: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    while i + 5 <= path.len() {
        if &path[i..i + 5] == b"/.git" && (i + 5 == path.len() || path[i + 5] == b'/') {
            return Some(if i == 0 { b"/" } else { &path[..i] });
        }
        i += 1;
    }
    None
}

fn destination(addr: &SockAddr, address: String) -> Destination {
    let sa = addr.socket_addr();
    let family = match addr {
        SockAddr::Inet { .. } => "inet",
        SockAddr::Inet6 { .. } => "inet6",
        _ => "unix",
    };
    let loopback = addr.is_loopback();
    let flag = match sa {
        Some(a) if !loopback && !STANDARD_PORTS.contains(&a.port()) => Some(format!(
            "non-standard port {} for an outside destination (HTTPS is 443)",
            a.port()
        )),
        _ => None,
    };
    Destination {
        address,
        ip: sa.map(|a| a.ip().to_string()),
        port: sa.map(|a| a.port()),
        domain: None,
        family: family.to_string(),
        attempts: 0,
        succeeded: 0,
        loopback,
        flag,
        executables: Vec::new(),
    }
}

fn names(exes: &[String]) -> String {
    let mut v: Vec<&str> = exes.iter().map(|e| e.rsplit('/').next().unwrap_or(e)).collect();
    v.dedup();
    if v.len() > 4 {
        let n = v.len() - 4;
        v.truncate(4);
        return format!("{} and {n} more", v.join(", "));
    }
    v.join(", ")
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", crate::render::thousands(n), if n == 1 { one } else { many })
}

fn findings(
    env: &EnvironSweep,
    census: &ProcCensus,
    git: &[PathOpens],
    written: &[WrittenFile],
    network: &[Destination],
    execs: &[ExecCount],
    denied: &[Denied],
) -> Vec<Finding> {
    let mut out = Vec::new();
    if env.attempted > 0 {
        out.push(Finding {
            kind: "environ-sweep".into(),
            text: format!(
                "opened /proc/<pid>/environ of {}: {}, {} succeeded ({}); by {}",
                plural(env.distinct_pids, "other process", "other processes"),
                plural(env.attempted, "attempt", "attempts"),
                crate::render::thousands(env.succeeded),
                plural(env.succeeded_pids, "PID", "PIDs"),
                names(&env.executables)
            ),
            evidence: Vec::new(),
        });
    }
    if census.is_census {
        let files: Vec<String> = census.opens.iter().map(|(f, n)| format!("{f} ×{n}")).collect();
        out.push(Finding {
            kind: "proc-census".into(),
            text: format!(
                "read the process table: /proc/<pid>/stat|status|cmdline of {} other PIDs ({}), {} succeeded; by {}",
                crate::render::thousands(census.distinct_pids),
                files.join(", "),
                crate::render::thousands(census.succeeded),
                names(&census.executables)
            ),
            evidence: Vec::new(),
        });
    }
    let git_ok: Vec<&PathOpens> = git.iter().filter(|g| g.succeeded > 0).collect();
    if !git_ok.is_empty() {
        let mut exes: Vec<String> = git_ok.iter().flat_map(|g| g.executables.clone()).collect();
        exes.sort();
        exes.dedup();
        out.push(Finding {
            kind: "git-above-project".into(),
            text: format!(
                "read git metadata of a repository above the project ({}); by {}",
                plural(git_ok.len() as u64, "file", "files"),
                names(&exes)
            ),
            evidence: git_ok.iter().map(|g| format!("{} ×{}", g.path, g.succeeded)).collect(),
        });
    }
    if !written.is_empty() {
        let runtime = written.iter().filter(|w| w.runtime_rule.is_some()).count();
        out.push(Finding {
            kind: "written-outside-project".into(),
            text: format!(
                "wrote {} outside the project{}",
                plural(written.len() as u64, "file", "files"),
                if runtime > 0 { format!(" ({runtime} in the agent's runtime dirs)") } else { String::new() }
            ),
            evidence: written
                .iter()
                .map(|w| match &w.runtime_rule {
                    Some(r) => format!("{} (runtime: {r})", w.path),
                    None => w.path.clone(),
                })
                .collect(),
        });
    }
    if !network.is_empty() {
        out.push(Finding {
            kind: "network".into(),
            text: format!(
                "connection attempts to {}, {} of them reached",
                plural(network.len() as u64, "destination", "destinations"),
                network.iter().filter(|d| d.succeeded > 0).count()
            ),
            evidence: network
                .iter()
                .map(|d| {
                    let mut s = d.address.clone();
                    if let Some(dom) = &d.domain {
                        s.push_str(&format!(" ({dom})"));
                    }
                    if d.loopback {
                        s.push_str(" loopback");
                    }
                    s.push_str(&format!(
                        ", {} of {} succeeded, by {}",
                        d.succeeded,
                        d.attempts,
                        names(&d.executables)
                    ));
                    if let Some(f) = &d.flag {
                        s.push_str(&format!(" — {f}"));
                    }
                    s
                })
                .collect(),
        });
        for d in network.iter().filter(|d| d.flag.is_some() && d.succeeded > 0) {
            out.push(Finding {
                kind: "nonstandard-port".into(),
                text: format!(
                    "connected to {}{} on {}; by {}",
                    d.address,
                    d.domain.as_ref().map(|x| format!(" ({x})")).unwrap_or_default(),
                    d.flag.as_deref().unwrap_or(""),
                    names(&d.executables)
                ),
                evidence: Vec::new(),
            });
        }
    }
    if !execs.is_empty() {
        let total: u64 = execs.iter().map(|e| e.count).sum();
        out.push(Finding {
            kind: "executables".into(),
            text: format!(
                "ran {} ({})",
                plural(execs.len() as u64, "distinct executable", "distinct executables"),
                plural(total, "exec", "execs")
            ),
            evidence: execs.iter().map(|e| format!("{} ×{}", e.path, e.count)).collect(),
        });
    }
    if !denied.is_empty() {
        out.push(Finding {
            kind: "denied".into(),
            text: format!("ward denied {}", plural(denied.len() as u64, "operation", "operations")),
            evidence: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests;
