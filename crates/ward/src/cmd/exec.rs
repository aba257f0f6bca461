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
    /// audit: allow and record everything; enforce (default): deny or hold what the policy says.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Profile to apply (default: picked from the command, else `generic`).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Sandbox: workspace-write, read-only, landlock-only or off.
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Allow connections to HOST[:PORT] for this run (repeatable).
    #[arg(long = "allow-net", value_name = "HOST[:PORT]")]
    pub allow_net: Vec<String>,
    /// Seconds a review waits for an answer before denying.
    #[arg(long, value_name = "SECS")]
    pub review_timeout: Option<u64>,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
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
    /// The sandbox to enter first, if any.
    #[serde(default)]
    pub sandbox: Option<ward_sandbox::SandboxPlan>,
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
    let project = std::fs::canonicalize(args.project.clone().unwrap_or_else(|| cwd.clone()))
        .context("cannot resolve the project directory")?;
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"));

    let request = ward_policy::LoadRequest {
        argv: args.command.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
        profile: args.profile.clone(),
        project_dir: project.clone(),
        home: home.clone(),
        system_config: PathBuf::from("/etc/ward/config.toml"),
        user_config: paths::config_dir()?.join("config.toml"),
        env: std::env::vars().filter(|(k, _)| k.starts_with("WARD_")).collect(),
        cli: ward_policy::CliOverrides {
            mode: args.mode.map(|m| match m {
                ModeArg::Audit => ward_policy::Mode::Audit,
                ModeArg::Enforce => ward_policy::Mode::Enforce,
            }),
            sandbox: args.sandbox.clone(),
            allow_net: args.allow_net.clone(),
            review_timeout: args.review_timeout.map(std::time::Duration::from_secs),
        },
    };
    let resolved = ward_policy::load(&request).map_err(|e| anyhow::anyhow!("{e}"))?;
    if resolved.profile_auto_picked && !args.quiet {
        eprintln!(
            "ward: using the {} profile for {} (--profile overrides)",
            resolved.profile,
            args.command[0].to_string_lossy()
        );
    }
    let enforcement = match resolved.mode {
        ward_policy::Mode::Audit => Enforcement::Audit,
        ward_policy::Mode::Enforce => Enforcement::Enforce,
    };
    let (plan, sandbox_name) = sandbox_plan(&resolved, &project, &home, &cwd, args.quiet)?;

    let db = match &args.db {
        Some(p) => p.clone(),
        None => paths::audit_db()?,
    };
    let mut id = ward_audit::new_session_id(start);
    let mut meta = SessionMeta::new(id.clone(), start, argv.clone(), PathBytes::from(cwd.clone()));
    meta.mode = resolved.mode.as_str().into();
    meta.profile = Some(resolved.profile.clone());
    meta.sandbox = Some(sandbox_name.clone());
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

    let sandboxed = plan.as_ref().is_some_and(|p| p.mode != ward_sandbox::SandboxMode::Off);
    let env: Vec<PathBytes> = std::env::vars_os()
        .map(|(k, v)| {
            // The sandbox has a private /tmp; a TMPDIR elsewhere would not be writable.
            let v = if sandboxed && k == "TMPDIR" { OsString::from("/tmp") } else { v };
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend(v.into_vec());
            PathBytes::from(kv)
        })
        .collect();
    let namespaced = plan.as_ref().is_some_and(|p| {
        matches!(p.mode, ward_sandbox::SandboxMode::WorkspaceWrite | ward_sandbox::SandboxMode::ReadOnly)
    });
    // Git hardening: after each of the agent's commands, planted git metadata is removed.
    let on_command_exit: Option<Box<dyn FnMut(i32) -> Vec<ward_event::Operation> + Send>> = if plan.is_some() {
        let guard = ward_sandbox::GitGuard::snapshot(&project);
        Some(Box::new(move |_pid| {
            guard
                .check_and_clean()
                .into_iter()
                .map(|c| {
                    let mut op = ward_event::Operation::new(ward_event::OpKind::GitCleanup, "ward");
                    op.path = Some(PathBytes::from(c.path));
                    op.detail = Some(format!("{:?}: {}", c.what, c.detail));
                    op
                })
                .collect()
        }))
    } else {
        None
    };
    let spec = InitSpec { argv, env, sandbox: plan };
    let launch = Launch {
        program: std::env::current_exe().context("cannot find ward's own executable")?,
        args: vec!["__init".into()],
        spec: serde_json::to_vec(&spec)?,
    };
    let config = SupervisorConfig {
        decider: Arc::new(ward_policy::Engine::new(&resolved, project.clone(), home.clone())),
        reviewer: crate::review::terminal_reviewer(resolved.review_timeout),
        sink: writer.sink(),
        enforcement,
        own_root: namespaced,
        own_pid_ns: namespaced,
        workers: args.workers,
        on_command_seen: None,
        on_command_exit,
        sensitive_paths: resolved.sandbox.secrets.clone(),
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
    // ward blocks almost every signal and the mask survives exec: the sandbox's init and
    // monitor, and the command, start with none blocked.
    ward_supervise::sys::unblock_all_signals();
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
    let mut pid = std::process::id() as i32;
    if let Some(plan) = &spec.sandbox {
        // Namespaces, mounts, Landlock; returns in the process that becomes the command.
        match ward_sandbox::enter(plan).and_then(|entered| {
            ward_sandbox::seal(plan)?;
            Ok(entered)
        }) {
            Ok(entered) => pid = entered.pid,
            Err(e) => {
                ward_supervise::child::report_error(&format!("sandbox: {e}"));
                return Ok(125);
            }
        }
    }
    let err = ward_supervise::child::install_and_exec(pid, &argv, &env);
    eprintln!("ward: cannot start the supervised command: {err}");
    Ok(125)
}

/// Turns the resolved sandbox settings into a plan for `ward __init`, checking what this
/// machine supports (an explicit mode it cannot provide is an error with the fix).
fn sandbox_plan(
    resolved: &ward_policy::Resolved,
    project: &std::path::Path,
    home: &std::path::Path,
    cwd: &std::path::Path,
    quiet: bool,
) -> anyhow::Result<(Option<ward_sandbox::SandboxPlan>, String)> {
    let settings = &resolved.sandbox;
    let requested = ward_sandbox::SandboxMode::parse(settings.mode.as_str())
        .ok_or_else(|| anyhow::anyhow!("unknown sandbox mode {}", settings.mode.as_str()))?;
    if requested == ward_sandbox::SandboxMode::Off {
        return Ok((None, "off".into()));
    }
    let support = ward_sandbox::check();
    let explicit = resolved.origins.get("sandbox.mode").is_some_and(|o| !matches!(o, ward_policy::Origin::Default | ward_policy::Origin::Profile(_)));
    // A mode the user asked for explicitly must hold or fail with the reason; the default
    // (workspace-write) falls back to landlock-only where namespaces are unavailable.
    let (mode, warning) = if !explicit && requested == ward_sandbox::SandboxMode::WorkspaceWrite {
        support.resolve_mode(None)
    } else {
        support.resolve_mode(Some(requested))
    }
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let (Some(w), false) = (warning, quiet) {
        eprintln!("ward: {w}");
    }
    let net = &settings.network;
    let network = if net.mode == ward_policy::NetworkMode::Off && net.allow_loopback.is_empty() && net.allow_net.is_empty() {
        ward_sandbox::NetPlan::Off
    } else {
        ward_sandbox::NetPlan::Host
    };
    // The invoking user's ids.
    let (uid, gid) = {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata("/proc/self").context("reading /proc/self")?;
        (m.uid(), m.gid())
    };
    // Sockets that reach outside (docker, the session bus, agents) are masked like secrets.
    let mut secrets = settings.secrets.clone();
    for s in ward_sandbox::default_sockets(uid) {
        if !secrets.contains(&s) {
            secrets.push(s);
        }
    }
    let plan = ward_sandbox::SandboxPlan {
        mode,
        project: project.to_path_buf(),
        home: home.to_path_buf(),
        writable: settings.writable.clone(),
        protected: settings.protected.clone(),
        secrets,
        network,
        allow_netlink_route: false,
        uid,
        gid,
        cwd: Some(cwd.to_path_buf()),
        supervised: true,
    };
    Ok((Some(plan), mode.as_str().to_string()))
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
