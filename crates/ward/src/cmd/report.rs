//! `ward report`: what a session touched, as tables; `ward demo`: a scripted agent run under
//! ward in a throwaway home, then its report; and the hidden `ward __demo-agent`, the scripted
//! agent itself (and the deterministic workload of the report's acceptance test).
//!
//! The tables, counting rules and the strace import live in `ward-report`; this module only
//! finds the sessions (audit store, events files, strace logs) and prints.

use crate::cli::ColorChoice;
use crate::paths;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use ward_event::{Event, PathBytes};
use ward_report::session::group_strace_files;
use ward_report::strace::{pid_from_file_name, StraceInput};
use ward_report::{Format, Options, RenderOptions, Report, RuntimeDirs, Session, Source};

/// Output format of `ward report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ReportFormat {
    /// Tables for a terminal (100 columns).
    #[default]
    Text,
    /// GitHub-flavoured Markdown, to paste into an issue.
    #[value(alias = "md")]
    Markdown,
    /// One JSON object (schema in the ward-report crate docs).
    Json,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Sessions to report, by id or unique id prefix, side by side (default: the last one).
    #[arg(value_name = "SESSION")]
    pub sessions: Vec<String>,
    /// Report the last session (also with other sessions or logs).
    #[arg(long)]
    pub last: bool,
    /// Import strace logs instead (`strace -f -e trace=openat,open,connect,execve,getdents64
    /// -e signal=none -ttt -s 512 -o FILE`). Per-process files of `-ff` (`out.<pid>`) form one
    /// session; other files are sessions of their own.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub strace: Vec<PathBuf>,
    /// Read events files written by `ward exec --events FILE` (each one a session).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub events: Vec<PathBuf>,
    /// The project directory (default: the directory the session started in; for strace logs
    /// and events files, the current directory). Relative paths in strace logs are resolved
    /// against it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The home directory shown as `~` (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Leave this agent's runtime files out of the counts (default: the session's profile and
    /// the agents detected among the programs run). `none` leaves nothing out.
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// Count the agent's own runtime files like any other.
    #[arg(long)]
    pub include_runtime: bool,
    /// Keep strace's paths as printed. By default absolute paths are resolved through symlinks
    /// on this machine, the way ward records them, so both count the same files.
    #[arg(long)]
    pub literal_paths: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: ReportFormat,
    /// When to colour text output (`NO_COLOR` is honoured).
    #[arg(long, value_enum, default_value_t)]
    pub color: ColorChoice,
    /// The audit database (default: $XDG_STATE_HOME/ward/audit.db).
    #[arg(long, value_name = "PATH", hide = true)]
    pub db: Option<PathBuf>,
}

pub fn run(args: ReportArgs) -> anyhow::Result<u8> {
    let home = args
        .home
        .clone()
        .or_else(|| std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from))
        .map(PathBytes::from);
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let project_arg = args.project.as_ref().map(|p| absolute(p, &cwd));
    let mut sessions = Vec::new();

    let use_store = args.last || !args.sessions.is_empty() || (args.strace.is_empty() && args.events.is_empty());
    if use_store {
        sessions.extend(load_audit_sessions(&args, project_arg.as_deref(), home.as_ref())?);
    }
    for path in &args.events {
        let events = read_events_file(path)?;
        let project = PathBytes::from(project_arg.clone().unwrap_or_else(|| cwd.clone()));
        let label = file_label(path);
        sessions.push(Session::from_events(None, label, project, home.clone(), events));
    }
    if !args.strace.is_empty() {
        let names: Vec<String> = args.strace.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let texts: Vec<Vec<u8>> = args
            .strace
            .iter()
            .map(|p| std::fs::read(p).with_context(|| format!("cannot read {}", p.display())))
            .collect::<anyhow::Result<_>>()?;
        for (key, idx) in group_strace_files(&names) {
            let inputs: Vec<StraceInput<'_>> = idx
                .iter()
                .map(|&i| StraceInput {
                    name: names[i].clone(),
                    // Only -ff files (`out.<pid>`, grouped under `out`) take pids from their names.
                    pid: if key != names[i] { pid_from_file_name(&names[i]) } else { None },
                    text: &texts[i],
                })
                .collect();
            let project = PathBytes::from(project_arg.clone().unwrap_or_else(|| cwd.clone()));
            let label = key.rsplit('/').next().unwrap_or(&key).to_string();
            let resolve = (!args.literal_paths).then(symlink_resolver);
            sessions.push(Session::from_strace_with(label, &inputs, project, home.clone(), resolve));
        }
    }
    if sessions.is_empty() {
        bail!("nothing to report");
    }

    let options = Options {
        runtime: match args.agent.as_deref() {
            None => None,
            Some("none") => Some(RuntimeDirs::none()),
            Some(agent) => Some(RuntimeDirs::builtin(agent)),
        },
        include_runtime: args.include_runtime,
        ..Options::default()
    };
    print_report(&sessions, &options, args.format, args.color)?;
    Ok(0)
}

fn print_report(sessions: &[Session], options: &Options, format: ReportFormat, color: ColorChoice) -> anyhow::Result<()> {
    let report = Report::build(sessions, options);
    let render = RenderOptions {
        format: match format {
            ReportFormat::Text => Format::Text,
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Json => Format::Json,
        },
        color: format == ReportFormat::Text && color.enabled(),
        ..RenderOptions::default()
    };
    let out = ward_report::render(&report, &render);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Resolves symlinks the way the kernel does for an open: the whole path when it exists,
/// otherwise its directory (a failed open of a missing file names a file in a real directory).
/// Results are cached; a path that cannot be resolved is kept.
fn symlink_resolver() -> ward_report::strace::Resolver {
    use std::collections::HashMap;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::sync::Mutex;
    let cache: Mutex<HashMap<Vec<u8>, Option<Vec<u8>>>> = Mutex::new(HashMap::new());
    std::sync::Arc::new(move |p: &[u8]| {
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.get(p) {
            return hit.clone();
        }
        let path = Path::new(std::ffi::OsStr::from_bytes(p));
        let resolved = std::fs::canonicalize(path).ok().or_else(|| {
            let parent = std::fs::canonicalize(path.parent()?).ok()?;
            Some(parent.join(path.file_name()?))
        });
        let out = resolved.map(|r| r.into_os_string().into_vec());
        cache.insert(p.to_vec(), out.clone());
        out
    })
}

fn absolute(p: &Path, cwd: &Path) -> PathBuf {
    let joined = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    PathBuf::from(OsString::from_vec(ward_report::paths::normalize(joined.as_os_str().as_bytes())))
}

fn file_label(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.to_string_lossy().into_owned())
}

/// Reads a JSON Lines events file; a line that is not an event is an error naming the line.
pub fn read_events_file(path: &Path) -> anyhow::Result<Vec<Event>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let e = Event::from_json(line).map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?;
        events.push(e);
    }
    Ok(events)
}

fn load_audit_sessions(args: &ReportArgs, project: Option<&Path>, home: Option<&PathBytes>) -> anyhow::Result<Vec<Session>> {
    let db = match &args.db {
        Some(p) => p.clone(),
        None => paths::audit_db()?,
    };
    if !db.exists() {
        bail!(
            "no sessions recorded yet ({} does not exist): run `ward exec -- CMD` or `ward demo`, \
             or import a log with `ward report --strace FILE`",
            db.display()
        );
    }
    let store = ward_audit::Store::open(&db).with_context(|| format!("cannot open the audit store {}", db.display()))?;
    let mut records = Vec::new();
    for id in &args.sessions {
        match store.session(id)? {
            Some(r) => records.push(r),
            None => bail!("no session {id:?} (see `ward sessions`)"),
        }
    }
    if args.last || args.sessions.is_empty() {
        match store.last_session()? {
            Some(r) => records.push(r),
            None => bail!("no sessions recorded yet: run `ward exec -- CMD` or `ward demo`"),
        }
    }
    let mut out = Vec::new();
    for r in records {
        let events = store.events(&r.meta.id)?;
        let project = project
            .map(PathBytes::from)
            .unwrap_or_else(|| r.meta.cwd.clone());
        out.push(Session {
            id: r.meta.id.clone(),
            label: r.meta.id.clone(),
            source: Source::Audit,
            project,
            home: home.cloned(),
            start: Some(r.meta.start),
            end: r.end.or_else(|| events.last().map(|e| e.ts)),
            command: Some(r.meta.argv.clone()),
            profile: r.meta.profile.clone(),
            events,
            import: None,
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// ward demo

/// Which runs the demo makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum DemoMode {
    /// Audit (what the agent does) and enforce (what ward stops), side by side.
    #[default]
    Both,
    /// Audit mode only: everything allowed and recorded.
    Audit,
    /// Enforce mode only: the profile's denials applied.
    Enforce,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t)]
    pub format: ReportFormat,
    /// When to colour text output (`NO_COLOR` is honoured).
    #[arg(long, value_enum, default_value_t)]
    pub color: ColorChoice,
    /// Run the scenario in audit mode, enforce mode, or both (one column each).
    #[arg(long, value_enum, default_value_t)]
    pub mode: DemoMode,
    /// Keep the throwaway home and project (their path is printed) instead of deleting them.
    #[arg(long)]
    pub keep: bool,
}

/// A directory removed on drop unless kept.
struct Scratch {
    path: PathBuf,
    keep: bool,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

pub fn run_demo(args: DemoArgs) -> anyhow::Result<u8> {
    let base = std::env::temp_dir().join(format!(
        "ward-demo-{}-{}",
        std::process::id(),
        ward_event::Timestamp::now().0 % 1_000_000_000
    ));
    std::fs::create_dir_all(&base).with_context(|| format!("cannot create {}", base.display()))?;
    let scratch = Scratch {
        path: base.clone(),
        keep: args.keep,
    };
    let modes: &[&str] = match args.mode {
        DemoMode::Both => &["audit", "enforce"],
        DemoMode::Audit => &["audit"],
        DemoMode::Enforce => &["enforce"],
    };
    eprintln!(
        "ward demo: running a scripted agent under `ward exec --mode {}` in a throwaway home ({}); \
         nothing of yours is read or changed.",
        modes.join("` and `--mode "),
        base.display()
    );
    let mut sessions = Vec::new();
    let mut ok = true;
    for mode in modes {
        let (session, success) = demo_run(&base.join(mode), mode)?;
        sessions.push(session);
        ok &= success;
    }
    print_report(&sessions, &Options::default(), args.format, args.color)?;
    if args.keep {
        eprintln!("ward demo: kept {}", scratch.path.display());
    }
    Ok(if ok { 0 } else { 1 })
}

/// One run of the scenario in a fresh world under `ward exec --mode MODE`.
fn demo_run(base: &Path, mode: &str) -> anyhow::Result<(Session, bool)> {
    std::fs::create_dir_all(base).with_context(|| format!("cannot create {}", base.display()))?;
    let world = DemoWorld::create(base)?;
    let exe = std::env::current_exe().context("cannot find ward's own executable")?;
    let events = base.join("events.jsonl");
    let mut cmd = std::process::Command::new(&exe);
    cmd.args(["exec", "--quiet", "--mode", mode]);
    if mode == "audit" {
        // The audit column shows what the agent does on an ordinary machine: no sandbox hiding
        // other processes. The enforce column runs with the profile's default sandbox.
        cmd.args(["--sandbox", "off"]);
    }
    let status = cmd
        .arg("--db")
        .arg(base.join("state/ward/audit.db"))
        .arg("--events")
        .arg(&events)
        .arg("--")
        .arg(&exe)
        .arg("__demo-agent")
        .current_dir(&world.project)
        .env("HOME", &world.home)
        .env("XDG_STATE_HOME", base.join("state"))
        .env("XDG_CONFIG_HOME", world.home.join(".config"))
        .env("XDG_CACHE_HOME", world.home.join(".cache"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::null())
        .status()
        .context("cannot start `ward exec`")?;
    if !events.exists() {
        bail!("`ward exec` did not run the scenario (exit status {status}); is `ward exec` supported here?");
    }
    let recorded = read_events_file(&events)?;
    let session = Session::from_events(
        None,
        mode.to_string(),
        PathBytes::from(world.project.clone()),
        Some(PathBytes::from(world.home.clone())),
        recorded,
    );
    Ok((session, status.success()))
}

/// The throwaway world of the demo: a home with a planted `~/.npmrc` and `~/.gitconfig`, and a
/// project that is a subdirectory of a git repository.
struct DemoWorld {
    home: PathBuf,
    project: PathBuf,
}

impl DemoWorld {
    fn create(base: &Path) -> anyhow::Result<DemoWorld> {
        let home = base.join("home");
        let repo = base.join("workspace");
        let project = repo.join("app");
        for d in [home.join(".cache"), home.join(".config"), project.join("src")] {
            std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        let write = |p: PathBuf, s: &str| std::fs::write(&p, s).with_context(|| format!("cannot write {}", p.display()));
        write(
            home.join(".npmrc"),
            "//registry.npmjs.org/:_authToken=npm_DEMO0000000000000000000000000000000000\n",
        )?;
        write(home.join(".gitconfig"), "[user]\n\tname = Demo User\n\temail = demo@example.invalid\n")?;
        write(
            project.join("package.json"),
            "{\n  \"name\": \"users-service\",\n  \"version\": \"1.0.0\",\n  \"main\": \"src/index.js\"\n}\n",
        )?;
        write(
            project.join("src/index.js"),
            "app.post('/users', (req, res) => {\n  res.status(201).json(req.body);\n});\n",
        )?;
        // The parent repository: real git when available, else the files git would create.
        let git_ok = std::process::Command::new("git")
            .args(["init", "-q", "-b", "main"])
            .arg(&repo)
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !git_ok {
            std::fs::create_dir_all(repo.join(".git/refs/heads"))?;
            std::fs::create_dir_all(repo.join(".git/objects"))?;
            write(repo.join(".git/HEAD"), "ref: refs/heads/main\n")?;
        }
        let config = repo.join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap_or_default();
        text.push_str("[remote \"origin\"]\n\turl = https://demo:ghp_DEMO000000000000@example.invalid/org/workspace.git\n");
        write(config, &text)?;
        Ok(DemoWorld { home, project })
    }
}

// ---------------------------------------------------------------------------------------------
// ward __demo-agent

#[derive(Debug, Args)]
pub struct DemoAgentArgs {
    /// Run the deterministic workload of the report's acceptance test in DIR instead of the
    /// agent scenario: read every file of DIR/in, list DIR/in and its subdirectories, write
    /// DIR/out/N for each file read, run each program of --run, connect to --port.
    #[arg(long, value_name = "DIR")]
    pub workload: Option<PathBuf>,
    /// Loopback port to connect to (workload).
    #[arg(long)]
    pub port: Option<u16>,
    /// Programs to run (workload), absolute paths, each run once without arguments.
    #[arg(long = "run", value_name = "PROGRAM")]
    pub run: Vec<PathBuf>,
}

pub fn run_demo_agent(args: DemoAgentArgs) -> anyhow::Result<u8> {
    match &args.workload {
        Some(dir) => workload(dir, args.port, &args.run),
        None => scenario(),
    }
}

/// The acceptance-test workload: a fixed pattern of reads, writes, listings, execs and one
/// connection, with nothing that depends on the machine (no /proc sweeps, no PATH search).
fn workload(dir: &Path, port: Option<u16>, run: &[PathBuf]) -> anyhow::Result<u8> {
    let input = dir.join("in");
    let mut dirs = vec![input.clone()];
    let mut files = Vec::new();
    while let Some(d) = dirs.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&d)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
        entries.sort();
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let out = dir.join("out");
    for (i, f) in files.iter().enumerate() {
        let data = std::fs::read(f)?;
        std::fs::write(out.join(format!("{i}.txt")), &data)?;
    }
    // A missing file: a failed open, left out of the counts.
    let _ = std::fs::read(dir.join("missing"));
    for prog in run {
        let _ = std::process::Command::new(prog)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    if let Some(port) = port {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
        let _ = s.write_all(b"hello\n");
    }
    Ok(0)
}

/// The demo scenario: what traced coding agents were seen doing at startup.
fn scenario() -> anyhow::Result<u8> {
    let home = PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?);
    let project = std::env::current_dir()?;

    // 1. Inherit "the shell's environment" the way some agents do: every /proc/<pid>/environ.
    // 2. A census of the process table: stat and cmdline of every pid.
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    for pid in &pids {
        let _ = std::fs::read(format!("/proc/{pid}/environ"));
    }
    for pid in &pids {
        let _ = std::fs::read(format!("/proc/{pid}/stat"));
        let _ = std::fs::read(format!("/proc/{pid}/cmdline"));
    }

    // 3. Configuration it did not need: the npm token, the global git config.
    let _ = std::fs::read(home.join(".npmrc"));
    let _ = std::fs::read(home.join(".gitconfig"));

    // 4. The repository above the project: walk up to the nearest .git, read HEAD and config.
    let mut dir = project.parent().map(Path::to_path_buf);
    while let Some(d) = dir {
        if d.join(".git").is_dir() {
            let _ = std::fs::read(d.join(".git/HEAD"));
            let _ = std::fs::read(d.join(".git/config"));
            break;
        }
        dir = d.parent().map(Path::to_path_buf);
    }

    // 5. The task itself: look around the project, edit one file.
    let mut stack = vec![project.clone()];
    while let Some(d) = stack.pop() {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let _ = std::fs::read(&p);
                }
            }
        }
    }
    let index = project.join("src/index.js");
    let mut code = std::fs::read_to_string(&index).unwrap_or_default();
    code = code.replace(
        "app.post('/users', (req, res) => {\n",
        "app.post('/users', (req, res) => {\n  if (!req.body.name) return res.status(400).json({ error: 'name is required' });\n",
    );
    std::fs::write(&index, code)?;

    // 6. Git, the way agents check the state of the tree.
    for git_args in [&["status", "--short"][..], &["log", "-1", "--oneline"][..]] {
        let _ = std::process::Command::new("git")
            .args(git_args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }

    // 7. A log of its own outside the project.
    let logs = home.join(".cache/demo-agent/logs");
    std::fs::create_dir_all(&logs)?;
    std::fs::write(logs.join("session.jsonl"), "{\"event\":\"start\"}\n")?;

    // 8. The network: a loopback listener of its own, and a connection to it.
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    let port = listener.local_addr()?.port();
    let server = std::thread::spawn(move || {
        if let Ok((mut c, _)) = listener.accept() {
            let mut buf = [0u8; 64];
            let _ = std::io::Read::read(&mut c, &mut buf);
        }
    });
    if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
        let _ = s.write_all(b"POST /v1/messages\n");
    }
    let _ = server.join();
    Ok(0)
}
