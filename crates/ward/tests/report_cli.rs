//! `ward report` and `ward demo` from the command line: formats, width, colour, side by side,
//! malformed logs, the audit store, and the demo scenario end to end.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const WARD: &str = env!("CARGO_BIN_EXE_ward");

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ward-report/tests/fixtures").join(name)
}

fn ward(args: &[&str]) -> Output {
    Command::new(WARD)
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "ward failed ({}): {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn basic() -> String {
    fixture("basic.log").to_string_lossy().into_owned()
}

const PROJECT: &str = "/tmp/wr-fx/proj";
const HOME: &str = "/tmp/wr-fx/home";

#[test]
fn strace_text_fits_100_columns_without_colour_off_a_tty() {
    let out = stdout(&ward(&["report", "--strace", &basic(), "--project", PROJECT, "--home", HOME]));
    for l in out.lines() {
        assert!(l.chars().count() <= 100, "too wide: {l}");
    }
    assert!(!out.contains('\x1b'), "colour without a TTY");
    let row = out.lines().find(|l| l.starts_with("Files read (unique)")).unwrap();
    assert!(row.trim_end().ends_with(" 12"), "{row}");
    assert!(out.contains("~/.npmrc"), "{out}");
    assert!(out.contains("/tmp/wr-fx/.git/config"), "{out}");

    let colored = stdout(&ward(&["report", "--strace", &basic(), "--color", "always"]));
    assert!(colored.contains("\x1b["));
    let never = Command::new(WARD)
        .args(["report", "--strace", &basic(), "--color", "auto"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&never.stdout).contains('\x1b'));
}

#[test]
fn strace_markdown_and_json() {
    let md = stdout(&ward(&[
        "report", "--strace", &basic(), "--project", PROJECT, "--home", HOME, "--format", "markdown",
    ]));
    assert!(md.starts_with("### ward report"), "{md}");
    assert!(md.contains("| Files read (unique) | 12 |"), "{md}");
    assert!(md.contains("| `~/.npmrc` | package registry token | x1 | cat |"), "{md}");

    let json: Value = serde_json::from_str(&stdout(&ward(&[
        "report", "--strace", &basic(), "--project", PROJECT, "--home", HOME, "--format", "json",
    ])))
    .unwrap();
    let s = &json["sessions"][0];
    assert_eq!(json["report_version"], 1);
    assert_eq!(s["source"], "strace");
    assert_eq!(s["summary"]["files_read"], 12);
    assert_eq!(s["summary"]["dir_scans"], 2);
    assert_eq!(s["import"]["not_understood"], 0);
    assert_eq!(s["environ_sweep"]["attempted"], 1);
    assert_eq!(s["environ_sweep"]["succeeded"], 0);
}

#[test]
fn ff_files_are_one_session_and_logs_sit_side_by_side() {
    let mut args: Vec<String> = vec!["report".into(), "--strace".into(), basic()];
    let mut ff: Vec<String> = std::fs::read_dir(fixture("ff"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    ff.sort();
    args.extend(ff);
    args.extend(["--project", PROJECT, "--format", "json"].map(String::from));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let json: Value = serde_json::from_str(&stdout(&ward(&refs))).unwrap();
    let sessions = json["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[1]["label"], "out");
    assert_eq!(sessions[0]["summary"], sessions[1]["summary"].clone().as_object().map(|o| {
        let mut o = o.clone();
        o.insert("events".into(), sessions[0]["summary"]["events"].clone());
        Value::Object(o)
    }).unwrap());

    let text = stdout(&ward(&refs[..refs.len() - 2]));
    let header = text.lines().find(|l| l.contains("basic.log") && l.contains("out") && !l.contains("Session")).unwrap();
    assert!(header.trim_start().starts_with("basic.log"), "{header}");
}

#[test]
fn malformed_lines_are_counted_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("bad.log");
    std::fs::write(
        &log,
        "1 1.0 openat(AT_FDCWD, \"/etc/hosts\", O_RDONLY) = 3\nnot strace at all\n1 1.1 openat(AT_FDCWD, \"/x\", O_RD\n",
    )
    .unwrap();
    let out = stdout(&ward(&["report", "--strace", log.to_str().unwrap()]));
    assert!(out.contains("2 not understood"), "{out}");
    assert!(out.contains("line 2: not strace at all"), "{out}");
    assert!(out.contains("line 3:"), "{out}");
}

#[test]
fn a_missing_store_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let o = ward(&["report", "--db", db.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ward exec") && err.contains("--strace"), "{err}");
}

/// Whether `ward exec` works on this machine (seccomp user notification).
fn exec_works(db: &str) -> bool {
    let o = Command::new(WARD)
        .args(["exec", "--quiet", "--db", db, "--", "/bin/true"])
        .output()
        .unwrap();
    if !o.status.success() {
        eprintln!("SKIPPED: ward exec does not work here: {}", String::from_utf8_lossy(&o.stderr));
    }
    o.status.success()
}

#[test]
fn audit_store_sessions_report_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().canonicalize().unwrap();
    let db = dir_path.join("audit.db");
    let db = db.to_str().unwrap();
    if !exec_works(db) {
        return;
    }
    let file = dir_path.join("hello.txt");
    std::fs::write(&file, "hi\n").unwrap();
    let o = Command::new(WARD)
        .args(["exec", "--quiet", "--db", db, "--", "/bin/cat"])
        .arg(&file)
        .current_dir(&dir_path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let json: Value = serde_json::from_str(&stdout(&ward(&["report", "--db", db, "--last", "--format", "json"]))).unwrap();
    let s = &json["sessions"][0];
    assert_eq!(s["source"], "audit");
    assert_eq!(s["command"][0], "/bin/cat");
    assert_eq!(s["project"], dir_path.to_str().unwrap());
    assert!(s["summary"]["files_in_project"].as_u64().unwrap() >= 1, "{s:#}");

    // Both sessions by id (the /bin/true one and the last one), side by side.
    let all: Value = serde_json::from_str(&stdout(&ward(&[
        "report",
        "--db",
        db,
        s["id"].as_str().unwrap(),
        "--last",
        "--format",
        "json",
    ])))
    .unwrap();
    assert_eq!(all["sessions"].as_array().unwrap().len(), 2);
    let o = ward(&["report", "--db", db, "no-such-session"]);
    assert!(!o.status.success());
}

#[test]
fn demo_shows_the_agent_like_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    if !exec_works(dir.path().join("probe.db").to_str().unwrap()) {
        return;
    }
    let o = ward(&["demo", "--format", "json"]);
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["sessions"][0]["label"], "audit");
    assert_eq!(json["sessions"][1]["label"], "enforce");
    // Enforce mode stops the planted token from being read.
    let enforce = &json["sessions"][1];
    let npmrc = enforce["sensitive"].as_array().unwrap().iter().find(|p| p["path"] == "~/.npmrc");
    if let Some(p) = npmrc {
        assert_eq!(p["succeeded"], 0, "{enforce:#}");
        assert!(enforce["summary"]["denied"].as_u64().unwrap() >= 1, "{enforce:#}");
    }
    let s = &json["sessions"][0];
    assert!(s["environ_sweep"]["attempted"].as_u64().unwrap() >= 1, "{s:#}");
    assert!(s["proc_census"]["distinct_pids"].as_u64().unwrap() >= 1, "{s:#}");
    let sensitive: Vec<&str> = s["sensitive"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert!(sensitive.contains(&"~/.npmrc"), "{sensitive:?}");
    let git: Vec<&str> = s["git_above_project"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["succeeded"].as_u64().unwrap() > 0)
        .map(|g| g["path"].as_str().unwrap())
        .collect();
    assert!(git.iter().any(|p| p.ends_with("/workspace/.git/config")), "{git:?}");
    let written: Vec<&str> = s["written_outside_project"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    assert!(written.contains(&"~/.cache/demo-agent/logs/session.jsonl"), "{written:?}");
    assert_eq!(s["summary"]["connections"], 1, "{s:#}");
    assert!(s["network"][0]["loopback"].as_bool().unwrap());
    // The throwaway directories are gone.
    let stderr = String::from_utf8_lossy(&o.stderr);
    let base = stderr.split("throwaway home (").nth(1).and_then(|r| r.split(')').next()).unwrap();
    assert!(!std::path::Path::new(base).exists(), "{base} left behind");
}
