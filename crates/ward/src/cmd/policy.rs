//! `ward policy explain`, `ward policy test` and `ward config show`.
//!
//! - `ward policy test --events FILE.jsonl [--profile P] [--project DIR]` replays recorded
//!   events (the `--events` / `ward audit export` format) through a fresh engine in enforce
//!   mode, with the clock set to each event's time, and prints how many would be allowed,
//!   reviewed and denied, and which. A line that is not an event is reported with its line
//!   number and skipped.
//! - `ward policy explain SESSION EVENT` rebuilds the session's policy state by replaying
//!   its earlier events, re-runs the pipeline on event number EVENT (its `seq`), and prints
//!   each filter's contribution next to what was recorded at the time.
//! - `ward config show [--profile P] [-- CMD…]` prints the merged configuration and where
//!   each value came from (with `CMD`, the profile that command would pick).

use crate::cli::Format;
use anyhow::Context;
use clap::{Args, Subcommand};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use ward_event::{Action, Decider, Event, Operation, Outcome, Verdict};
use ward_policy::{Engine, LoadRequest, ManualClock, Mode, Resolved};

#[derive(Debug, Args)]
pub struct PolicyArgs {
    #[command(subcommand)]
    pub command: PolicyCommand,
}

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Show how the policy reaches its decision on a recorded event.
    Explain {
        /// Session id (or a unique prefix).
        session: String,
        /// Event number (`seq`) in the session.
        event: u64,
        /// Audit database (default: `$XDG_STATE_HOME/ward/audit.db`).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Replay recorded events through the policy and show what would be allowed, reviewed, denied.
    Test {
        /// JSON Lines file of events (`ward exec --events`, `ward audit export`).
        #[arg(long)]
        events: PathBuf,
        /// Profile to test (default: as `ward exec` would choose, or `generic`).
        #[arg(long)]
        profile: Option<String>,
        /// Project directory the events were recorded in (default: the current directory).
        #[arg(long)]
        project: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

pub fn run(args: PolicyArgs) -> anyhow::Result<u8> {
    match args.command {
        PolicyCommand::Test { events, profile, project, format } => run_test(&events, profile, project, format),
        PolicyCommand::Explain { session, event, db, format } => run_explain(&session, event, db, format),
    }
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the merged configuration and the origin of each value.
    Show {
        /// Profile (default: as `ward exec` would choose).
        #[arg(long)]
        profile: Option<String>,
        /// Project directory (default: the current directory).
        #[arg(long)]
        project: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// The command `ward exec` would run (picks the profile as it would).
        #[arg(last = true)]
        command: Vec<String>,
    },
}

pub fn run_config(args: ConfigArgs) -> anyhow::Result<u8> {
    match args.command {
        ConfigCommand::Show { profile, project, format, command } => {
            let project = project_dir(project)?;
            let resolved = load(command, profile, project)?;
            show_config(&resolved, format)?;
            Ok(0)
        }
    }
}

/// The request `ward exec` would make, from this process's environment.
pub fn load_request(argv: Vec<String>, profile: Option<String>, project_dir: PathBuf) -> anyhow::Result<LoadRequest> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .context("HOME is not set")?;
    Ok(LoadRequest {
        argv,
        profile,
        project_dir,
        home,
        system_config: PathBuf::from("/etc/ward/config.toml"),
        user_config: crate::paths::config_dir()?.join("config.toml"),
        env: std::env::vars().filter(|(k, _)| k.starts_with("WARD_")).collect(),
        cli: ward_policy::CliOverrides::default(),
    })
}

fn load(argv: Vec<String>, profile: Option<String>, project: PathBuf) -> anyhow::Result<Resolved> {
    let req = load_request(argv, profile, project)?;
    ward_policy::load(&req).map_err(|e| anyhow::anyhow!("{e}"))
}

fn project_dir(p: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let p = match p {
        Some(p) => p,
        None => std::env::current_dir().context("cannot determine the current directory")?,
    };
    Ok(std::fs::canonicalize(&p).unwrap_or(p))
}

fn show_config(r: &Resolved, format: Format) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let values = r.show();
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "profile": r.profile,
                "profile_auto_picked": r.profile_auto_picked,
                "description": r.profile_description,
                "layers": r.layers,
                "values": values,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        Format::Text => {
            writeln!(out, "profile {}{}: {}", r.profile, if r.profile_auto_picked { " (picked from the command)" } else { "" }, r.profile_description)?;
            writeln!(out, "layers (later wins):")?;
            for l in &r.layers {
                let state = if l.applied { "applied" } else { "skipped" };
                let note = if l.note.is_empty() { String::new() } else { format!(" ({})", l.note) };
                writeln!(out, "  {state:<8} {}{note}", l.origin)?;
            }
            writeln!(out)?;
            let width = values.iter().map(|v| v.key.len()).max().unwrap_or(0).min(28);
            for v in &values {
                let value = match &v.value {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                writeln!(out, "{:<width$} = {value}  # {}", v.key, v.origin)?;
            }
        }
    }
    Ok(())
}

/// The errno a denied operation would have failed with.
fn denied_outcome(op: &Operation) -> Outcome {
    Outcome::Err(if op.op_kind().is_file_access() { 13 } else { 1 })
}

/// How a replay learns outcomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Learn {
    /// From what would happen under the new decision (`policy test`: a read the policy now
    /// denies does not taint the session).
    Hypothetical,
    /// From what happened (`policy explain`: the state the session really had).
    AsRecorded,
}

/// Replays `events` through `engine` (decide, then observe), calling `each` with every event
/// and its new decision.
fn replay<'a>(
    engine: &Engine,
    clock: &ManualClock,
    events: impl IntoIterator<Item = &'a Event>,
    learn: Learn,
    mut each: impl FnMut(&Event, &ward_event::Decision),
) {
    for ev in events {
        clock.set(ev.ts.0);
        let d = engine.decide(&ev.actor, &ev.op);
        if learn == Learn::AsRecorded {
            engine.observe(ev);
        } else {
            let mut seen = ev.clone();
            if d.action == Action::Deny {
                seen.outcome = denied_outcome(&ev.op);
            }
            seen.decision = d.clone();
            engine.observe(&seen);
        }
        each(ev, &d);
    }
}

fn engine_for(r: &Resolved, clock: Arc<ManualClock>) -> Engine {
    let mut e = Engine::with_clock(r, r.project_dir.clone(), r.home.clone(), Box::new(clock));
    e.set_mode(Mode::Enforce);
    e
}

fn what(op: &Operation) -> String {
    let mut s = String::new();
    if let Some(argv) = &op.argv {
        s = argv.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
    } else if let Some(p) = &op.path {
        s = p.to_string_lossy();
        if let Some(p2) = &op.path2 {
            s.push_str(" -> ");
            s.push_str(&p2.to_string_lossy());
        }
    } else if let Some(a) = &op.addr {
        s = a.to_string();
    }
    if let Some(d) = &op.domain {
        s.push_str(&format!(" ({d})"));
    }
    s
}

fn run_test(path: &PathBuf, profile: Option<String>, project: Option<PathBuf>, format: Format) -> anyhow::Result<u8> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut events = Vec::new();
    let mut errors: Vec<(usize, String)> = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                errors.push((i + 1, e.to_string()));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match Event::from_json(&line) {
            Ok(ev) => events.push(ev),
            Err(e) => errors.push((i + 1, e.to_string())),
        }
    }
    let project = project_dir(project)?;
    let resolved = load(Vec::new(), profile, project)?;
    let clock = Arc::new(ManualClock::default());
    let engine = engine_for(&resolved, clock.clone());
    let (mut allow, mut review, mut deny) = (0u64, 0u64, 0u64);
    let mut flagged = Vec::new();
    replay(&engine, &clock, &events, Learn::Hypothetical, |ev, d| {
        match d.verdict {
            Verdict::Allow => allow += 1,
            Verdict::Review => review += 1,
            Verdict::Deny => deny += 1,
        }
        if d.verdict != Verdict::Allow {
            flagged.push((ev.clone(), d.clone()));
        }
    });
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "profile": resolved.profile,
                "events": events.len(),
                "allow": allow,
                "review": review,
                "deny": deny,
                "bad_lines": errors.iter().map(|(l, m)| serde_json::json!({"line": l, "error": m})).collect::<Vec<_>>(),
                "flagged": flagged.iter().map(|(ev, d)| serde_json::json!({
                    "session": ev.session,
                    "seq": ev.seq,
                    "pid": ev.actor.pid,
                    "exe": ev.actor.exe,
                    "kind": ev.op.op_kind(),
                    "what": what(&ev.op),
                    "verdict": d.verdict,
                    "score": d.score,
                    "filters": d.filters,
                    "recorded_verdict": ev.decision.verdict,
                })).collect::<Vec<_>>(),
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        Format::Text => {
            writeln!(
                out,
                "{} events replayed under profile {} (enforce): {allow} allowed, {review} reviewed, {deny} denied",
                events.len(),
                resolved.profile
            )?;
            for (line, msg) in &errors {
                writeln!(out, "line {line}: skipped: {msg}")?;
            }
            if !flagged.is_empty() {
                writeln!(out)?;
            }
            for (ev, d) in &flagged {
                writeln!(
                    out,
                    "{:>6} {:<6} {:<11} {} [{}]",
                    ev.seq,
                    d.verdict.as_str(),
                    ev.op.op_kind().as_str(),
                    what(&ev.op),
                    ev.actor.exe
                )?;
                for h in &d.filters {
                    writeln!(out, "       {:+4} {}: {}", h.score, h.filter, h.reason)?;
                }
            }
        }
    }
    Ok(0)
}

fn run_explain(session: &str, seq: u64, db: Option<PathBuf>, format: Format) -> anyhow::Result<u8> {
    let db = match db {
        Some(p) => p,
        None => crate::paths::audit_db()?,
    };
    let store = ward_audit::Store::open(&db).with_context(|| format!("cannot open the audit store {}", db.display()))?;
    let id = store.resolve(session)?;
    let record = store.session(&id)?.with_context(|| format!("no session {id}"))?;
    let events = store.events(&id)?;
    let target = events
        .iter()
        .find(|e| e.seq == seq)
        .with_context(|| format!("session {id} has no event {seq} (it has {})", events.len()))?
        .clone();
    let project = PathBuf::from(record.meta.cwd.to_string_lossy());
    let resolved = load(
        record.meta.argv.iter().map(|a| a.to_string_lossy()).collect(),
        record.meta.profile.clone(),
        project,
    )?;
    let clock = Arc::new(ManualClock::default());
    let engine = engine_for(&resolved, clock.clone());
    replay(&engine, &clock, events.iter().filter(|e| e.seq < seq), Learn::AsRecorded, |_, _| {});
    clock.set(target.ts.0);
    let (d, parts) = engine.explain(&target.actor, &target.op);
    let th = resolved.thresholds;
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "session": id,
                "seq": seq,
                "profile": resolved.profile,
                "kind": target.op.op_kind(),
                "what": what(&target.op),
                "pid": target.actor.pid,
                "exe": target.actor.exe,
                "now": {"verdict": d.verdict, "score": d.score, "filters": parts, "thresholds": th},
                "recorded": target.decision,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        Format::Text => {
            writeln!(out, "session {id}, event {seq}: {} {}", target.op.op_kind(), what(&target.op))?;
            writeln!(out, "process {} (pid {}, parent {})", target.actor.exe, target.actor.pid, target.actor.ppid)?;
            writeln!(out, "profile {} (state rebuilt from {} earlier events)", resolved.profile, events.iter().filter(|e| e.seq < seq).count())?;
            writeln!(out)?;
            for p in &parts {
                if p.reasons.is_empty() {
                    writeln!(out, "  {:<16} {:>4}", p.filter, 0)?;
                } else {
                    for (i, r) in p.reasons.iter().enumerate() {
                        let name = if i == 0 { p.filter } else { "" };
                        writeln!(out, "  {:<16} {:>+4}  {r}", name, if i == 0 { p.score } else { 0 })?;
                    }
                }
            }
            writeln!(
                out,
                "  {:<16} {:>4}  -> {} (review at {}, deny at {})",
                "total",
                d.score,
                d.verdict.as_str(),
                th.review,
                th.deny
            )?;
            writeln!(out)?;
            let rec = &target.decision;
            writeln!(
                out,
                "recorded: {} (verdict {}, score {}, by {})",
                match rec.action {
                    Action::Allow => "allowed",
                    Action::Deny => "denied",
                },
                rec.verdict.as_str(),
                rec.score,
                serde_json::to_value(rec.by)?.as_str().unwrap_or("?")
            )?;
            for h in &rec.filters {
                writeln!(out, "  {:<16} {:>+4}  {}", h.filter, h.score, h.reason)?;
            }
            let outcome = match target.outcome {
                Outcome::Ok(_) => "succeeded".to_string(),
                Outcome::Err(e) => format!("failed ({})", ward_event::errno_name(e)),
            };
            writeln!(out, "  the call {outcome}")?;
        }
    }
    Ok(0)
}
