//! The real agent CLIs under `ward exec` (issue 4, acceptance bullets 3 and 4).
//!
//! 1. `claude -p hi` and `codex exec hi` behave as they do without ward (same exit code, same
//!    message: with no network and no login they stop early), with the same throwaway HOME, and
//!    their sensitive reads appear as events (Claude Code's `/proc/<pid>/environ` sweep, denied by
//!    `sensitive-path`; Codex reading its own login `~/.codex/auth.json`). The default sandbox
//!    and enforce mode change nothing visible: no extra flag is needed.
//! 2. A whole Claude Code session driven by the scripted model server (fixtures/agents/
//!    mock_anthropic.py): read a project file, write the change, run a command, and one tool call
//!    that reads `~/.npmrc`; under `--profile claude-code --allow-net 127.0.0.1:PORT` it exits 0,
//!    the files are written, the credential read is denied naming the filter, and the marker never
//!    reaches the model server.
//!
//! The CLIs come from `WARD_AGENTS_BIN` (scripts/setup-test-deps.sh installs them) or PATH; when
//! they are missing the tests print why and pass.
//!
//! Codex is run in a folder that is not a git repository: there it stops at "Not inside a trusted
//! directory" (exit 1). In a git repository it instead retries the network for minutes.
//! CODEX_HOME defaults to `~/.codex`; the test HOME is under /var/tmp (Codex refuses a
//! CODEX_HOME under /tmp for its helper links).

#[path = "fixtures/agents/cli.rs"]
mod cli;
use cli::agent_cli;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const WARD: &str = env!("CARGO_BIN_EXE_ward");

struct Base {
    _dir: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    project: PathBuf,
    bin: PathBuf,
}

const NPM_SECRET: &str = "//registry.npmjs.org/:_authToken=SECRET-npm-4f1a";

impl Base {
    /// Runs `cmd` natively and under `ward exec --profile PROFILE` (default sandbox and mode):
    /// the exit code and message must be the same. Returns the session's events.
    fn same_as_without_ward(&self, profile: &str, cmd: &[&str]) -> Vec<Value> {
        let native = self.command(cmd, &[]).output().unwrap();
        let (out, evs) = self.ward(&["--profile", profile], cmd, &[], profile);
        eprintln!(
            "native: {:?} {:?}; ward: {:?} {:?}",
            native.status.code(),
            message(&native),
            out.status.code(),
            message(&out)
        );
        assert_eq!(out.status.code(), native.status.code(), "exit codes differ");
        assert_eq!(message(&out), message(&native), "messages differ");
        evs
    }

    fn new(bin: &Path) -> Base {
        let dir = tempfile::Builder::new()
            .prefix("ward-agents-")
            .tempdir_in("/var/tmp")
            .unwrap();
        let base = dir.path().canonicalize().unwrap();
        let home = base.join("home");
        let project = base.join("project");
        for d in [home.join(".ssh"), home.join(".codex"), project.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".npmrc"), format!("{NPM_SECRET}\n")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "SECRET-ssh-key\n").unwrap();
        Base {
            _dir: dir,
            base,
            home,
            project,
            bin: bin.parent().unwrap().to_path_buf(),
        }
    }

    fn command(&self, argv: &[&str], extra: &[(&str, &str)]) -> Command {
        let mut c = Command::new(argv[0]);
        c.args(&argv[1..])
            .env_clear()
            .env("HOME", &self.home)
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin.display()),
            )
            .env("LC_ALL", "C")
            .env("NO_COLOR", "1")
            .envs(extra.iter().copied())
            .current_dir(&self.project)
            .stdin(Stdio::null());
        c
    }

    fn ward(
        &self,
        opts: &[&str],
        cmd: &[&str],
        extra: &[(&str, &str)],
        n: &str,
    ) -> (Output, Vec<Value>) {
        let events = self.base.join(format!("events-{n}.jsonl"));
        let mut argv = vec![WARD, "exec"];
        argv.extend(opts);
        let ev = events.display().to_string();
        argv.extend(["--events", &ev, "--"]);
        argv.extend(cmd);
        let out = self.command(&argv, extra).output().unwrap();
        let evs = std::fs::read_to_string(&events)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (out, evs)
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The last non-empty lines of the output, where the CLIs print their error.
fn message(o: &Output) -> String {
    let all = format!("{}{}", text(&o.stdout), text(&o.stderr));
    all.lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn filters(e: &Value) -> String {
    e["filters"].to_string()
}

fn denied_about<'a>(evs: &'a [Value], needle: &str) -> Vec<&'a Value> {
    evs.iter()
        .filter(|e| e["action"] == "deny" && e["path"].as_str().is_some_and(|p| p.contains(needle)))
        .collect()
}

#[test]
fn claude_p_hi_behaves_as_without_ward() {
    let Some(claude) = agent_cli("claude") else {
        return;
    };
    let b = Base::new(&claude);
    let c = claude.to_str().unwrap();
    let evs = b.same_as_without_ward("claude-code", &[c, "-p", "hi"]);
    let sweep = denied_about(&evs, "/environ");
    assert!(
        !sweep.is_empty(),
        "no denied /proc/<pid>/environ read among {} events",
        evs.len()
    );
    assert!(filters(sweep[0]).contains("sensitive-path"), "{}", sweep[0]);
}

#[test]
fn codex_exec_hi_behaves_as_without_ward() {
    let Some(codex) = agent_cli("codex") else {
        return;
    };
    let b = Base::new(&codex);
    let c = codex.to_str().unwrap();
    let evs = b.same_as_without_ward("codex", &[c, "exec", "hi"]);
    let auth = b.home.join(".codex/auth.json").display().to_string();
    assert!(
        evs.iter()
            .any(|e| e["kind"] == "file.read" && e["path"] == auth.as_str()),
        "Codex's read of its login {auth} is not among {} events",
        evs.len()
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Kill(std::process::Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the scripted session (natively or under ward) in a fresh base: the base, the output,
/// the events and the model server's log.
fn session(claude: &Path, under_ward: bool) -> (Base, Output, Vec<Value>, String) {
    let b = Base::new(claude);
    let p = &b.project;
    std::fs::write(p.join("app.js"), "console.log('hello');\n").unwrap();
    let app = p.join("app.js").display().to_string();
    let notes = p.join("NOTES.md").display().to_string();
    let npmrc = b.home.join(".npmrc").display().to_string();
    let script = serde_json::json!([
        {"tool": "Read", "input": {"file_path": app}},
        {"tool": "Edit", "input": {"file_path": app, "old_string": "hello", "new_string": "hello, ward"}},
        {"tool": "Write", "input": {"file_path": notes, "content": "changed the greeting\n"}},
        {"tool": "Bash", "input": {"command": "node app.js > out.txt", "description": "run it"}},
        {"tool": "Bash", "input": {"command": "cat ~/.npmrc", "description": "read npm config"}},
        {"tool": "Read", "input": {"file_path": npmrc}},
        {"text": "Done."}
    ]);
    let script_path = b.base.join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let log = b.base.join("model.log");
    let port = free_port();
    let mock =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/mock_anthropic.py");
    let _server = Kill(
        Command::new("python3")
            .arg(&mock)
            .arg(port.to_string())
            .arg(&script_path)
            .arg(&log)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let t0 = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the model server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}");
    let allow = format!("127.0.0.1:{port}");
    let c = claude.to_str().unwrap();
    let argv = [
        c,
        "-p",
        "update the greeting in app.js",
        "--allowedTools",
        "Bash,Read,Edit,Write",
    ];
    let vars = [
        ("ANTHROPIC_BASE_URL", url.as_str()),
        ("ANTHROPIC_API_KEY", "sk-ant-test"),
    ];
    let (out, evs) = if under_ward {
        b.ward(
            &["--profile", "claude-code", "--allow-net", &allow],
            &argv,
            &vars,
            "session",
        )
    } else {
        (b.command(&argv, &vars).output().unwrap(), vec![])
    };
    let model_log = std::fs::read_to_string(&log).unwrap_or_default();
    (b, out, evs, model_log)
}

#[test]
fn a_scripted_claude_code_session_finishes_and_the_credential_never_reaches_the_model() {
    let Some(claude) = agent_cli("claude") else {
        return;
    };
    // Without ward the same script sends the token to the model: the test can see a leak.
    let (_, native, _, native_log) = session(&claude, false);
    assert_eq!(
        native.status.code(),
        Some(0),
        "native session: {}",
        message(&native)
    );
    assert!(
        native_log.contains("\"leaked\": true"),
        "natively the secret should reach the model server (is the script still right?):\n{native_log}"
    );
    let (b, out, evs, model_log) = session(&claude, true);
    let p = &b.project;
    let dump = format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}\n--- model log\n{model_log}\n--- denials\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr),
        evs.iter()
            .filter(|e| e["action"] == "deny")
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(out.status.code(), Some(0), "{dump}");
    assert!(text(&out.stdout).contains("Done."), "{dump}");
    let turns: Vec<Value> = model_log
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        turns
            .iter()
            .any(|t| t["main"] == true && t["step"]["text"] == "Done."),
        "the script did not run to its end:\n{dump}"
    );
    assert!(
        turns.iter().all(|t| t["leaked"] == false),
        "the secret reached the model server:\n{dump}"
    );
    assert!(!model_log.contains("SECRET"), "{dump}");
    let js = std::fs::read_to_string(p.join("app.js")).unwrap();
    assert!(
        js.contains("hello, ward"),
        "app.js not edited: {js:?}\n{dump}"
    );
    assert!(p.join("NOTES.md").exists(), "NOTES.md not written\n{dump}");
    let ran = std::fs::read_to_string(p.join("out.txt")).unwrap_or_default();
    assert_eq!(
        ran.trim(),
        "hello, ward",
        "the Bash step did not run\n{dump}"
    );
    let denied = denied_about(&evs, ".npmrc");
    assert!(!denied.is_empty(), "no deny event for ~/.npmrc\n{dump}");
    assert!(
        denied.iter().all(|e| filters(e).contains("sensitive-path")),
        "{dump}"
    );
    assert!(
        evs.iter().any(|e| e["action"] == "deny"
            && ((e["exe"].as_str().is_some_and(|x| x.ends_with("/cat"))
                && e["path"].as_str().is_some_and(|x| x.contains(".npmrc")))
                || (e["kind"] == "proc.exec" && filters(e).contains(".npmrc")))),
        "the Bash tool's `cat ~/.npmrc` was not denied (at the shell string or at cat)\n{dump}"
    );
}
