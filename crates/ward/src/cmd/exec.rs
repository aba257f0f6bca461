//! `ward exec`: run a command under the supervisor and record every operation; and the hidden
//! `ward __init`, the first process of the supervised tree.

use crate::paths;
use anyhow::Context;
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;
use std::sync::Arc;
use ward_audit::{SessionMeta, Writer};
use ward_event::{PathBytes, Timestamp};
use ward_supervise::{Enforcement, Launch, SupervisorConfig};

/// `audit` records everything and allows everything; `enforce` acts on the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Audit,
    Enforce,
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// audit: allow and record everything; enforce: deny or hold what the policy says.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Also write every event as JSON Lines to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// The audit database (default: $XDG_STATE_HOME/ward/audit.db).
    #[arg(long, value_name = "PATH", hide = true)]
    pub db: Option<PathBuf>,
    /// Worker threads serving the tree's calls (default: one per CPU, at least 2).
    #[arg(long, hide = true, default_value_t = 0)]
    pub workers: usize,
    /// Print nothing of ward's own (no session summary).
    #[arg(short, long)]
    pub quiet: bool,
    /// The command and its arguments.
    #[arg(trailing_var_arg = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// What `ward __init` needs to know, sent by ward over the spec pipe.
#[derive(Debug, Serialize, Deserialize)]
pub struct InitSpec {
    /// The command.
    pub argv: Vec<PathBytes>,
    /// Its environment, `KEY=VALUE`.
    pub env: Vec<PathBytes>,
}

#[derive(Debug, Args)]
pub struct InitArgs {}

pub fn run(args: ExecArgs) -> anyhow::Result<u8> {
    // Before any thread exists: every thread must inherit the blocked relayed signals.
    ward_supervise::block_relayed_signals();
    // A closed `--events -` pipe must not kill ward (and with it the tree): the writer sees
    // EPIPE and reports it. `ward __init` restores the default for the command.
    ward_supervise::sys::set_signal_ignored(libc::SIGPIPE, true);
    let start = Timestamp::now();
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let argv: Vec<PathBytes> = args.command.iter().map(|a| PathBytes::from(a.clone())).collect();
    let enforcement = match args.mode.unwrap_or(ModeArg::Audit) {
        ModeArg::Audit => Enforcement::Audit,
        ModeArg::Enforce => Enforcement::Enforce,
    };

    let db = match &args.db {
        Some(p) => p.clone(),
        None => paths::audit_db()?,
    };
    let mut id = ward_audit::new_session_id(start);
    let mut meta = SessionMeta::new(id.clone(), start, argv.clone(), PathBytes::from(cwd.clone()));
    meta.mode = match enforcement {
        Enforcement::Audit => "audit".into(),
        Enforcement::Enforce => "enforce".into(),
    };
    let jsonl = reopen_events(&args.events)?;
    // Two sessions started in the same second may draw the same id: draw again.
    let mut jsonl = jsonl;
    let mut attempt = 0;
    let writer = loop {
        match Writer::start(&db, meta.clone(), jsonl.take()) {
            Ok(w) => break w,
            Err(ward_audit::AuditError::SessionExists(_)) if attempt < 8 => {
                attempt += 1;
                id = ward_audit::new_session_id(Timestamp::now());
                meta.id = id.clone();
                jsonl = reopen_events(&args.events)?;
            }
            Err(e) => return Err(e.into()),
        }
    };

    let env: Vec<PathBytes> = std::env::vars_os()
        .map(|(k, v)| {
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend(v.into_vec());
            PathBytes::from(kv)
        })
        .collect();
    let spec = InitSpec { argv, env };
    let launch = Launch {
        program: std::env::current_exe().context("cannot find ward's own executable")?,
        args: vec!["__init".into()],
        spec: serde_json::to_vec(&spec)?,
    };
    let config = SupervisorConfig {
        decider: Arc::new(ward_event::AllowAll),
        reviewer: Arc::new(ward_event::NoReviewer),
        sink: writer.sink(),
        enforcement,
        own_root: false,
        own_pid_ns: false,
        workers: args.workers,
        on_command_seen: None,
        on_command_exit: None,
    };
    let result = ward_supervise::run(launch, config);
    let end = Timestamp::now();
    let exit_code = result.as_ref().ok().map(|r| r.exit.shell_code());
    let summary = writer.finish(exit_code, end);
    let result = result?;
    let summary = summary.context("finishing the audit trail")?;
    if let Some(problem) = summary.problem() {
        eprintln!("ward: {problem}");
    }
    if !args.quiet && std::io::stderr().is_terminal() {
        eprintln!(
            "ward: session {id}: {} events, {} denied{} (ward report --last)",
            summary.events,
            result.denied,
            if result.reaped.is_empty() {
                String::new()
            } else {
                format!(", {} leftover processes ended", result.reaped.len())
            }
        );
    }
    Ok(result.exit.shell_code().clamp(0, 255) as u8)
}

/// `ward __init`: read the spec, set up, install the filter and become the command.
pub fn run_init(_args: InitArgs) -> anyhow::Result<u8> {
    let spec = match ward_supervise::child::read_spec() {
        Ok(s) => s,
        Err(e) => anyhow::bail!("ward __init is internal to ward exec ({e})"),
    };
    let spec: InitSpec = match serde_json::from_slice(&spec) {
        Ok(s) => s,
        Err(e) => {
            ward_supervise::child::report_error(&format!("bad init spec: {e}"));
            return Ok(125);
        }
    };
    let argv: Vec<Vec<u8>> = spec.argv.into_iter().map(PathBytes::into_bytes).collect();
    let env: Vec<Vec<u8>> = spec.env.into_iter().map(PathBytes::into_bytes).collect();
    let pid = std::process::id() as i32;
    let err = ward_supervise::child::install_and_exec(pid, &argv, &env);
    eprintln!("ward: cannot start the supervised command: {err}");
    Ok(125)
}

/// The `--events` destination.
fn reopen_events(events: &Option<PathBuf>) -> anyhow::Result<Option<Box<dyn std::io::Write + Send>>> {
    Ok(match events {
        None => None,
        Some(p) if p.as_os_str() == "-" => Some(Box::new(std::io::stdout())),
        Some(p) => Some(Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
    })
}
