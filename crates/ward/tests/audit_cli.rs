//! `ward sessions`, `ward audit verify` and `ward audit export` against audit databases made
//! with the `ward_audit::Writer` API, in a fresh `XDG_STATE_HOME` per test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use ward_audit::{SessionMeta, Writer};
use ward_event::{
    Actor, DecidedBy, Decision, Event, OpKind, Operation, Outcome, PathBytes, Timestamp,
};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Env {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("state/ward/audit.db")
    }

    fn ward(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ward"))
            .args(args)
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .env("HOME", self.dir.path())
            .env_remove("NO_COLOR")
            .output()
            .unwrap()
    }

    /// Records a finished session of file reads of `paths`, started at `start` (seconds).
    fn session(&self, id: &str, start: u64, argv: &[&str], paths: &[PathBytes], exit: Option<i32>) {
        let mut meta = SessionMeta::new(
            id.into(),
            Timestamp(start * 1_000_000_000),
            argv.iter().map(|a| PathBytes::from(*a)).collect(),
            PathBytes::from("/home/u/project"),
        );
        meta.profile = Some("generic".into());
        let w = Writer::start(&self.db(), meta, None).unwrap();
        let sink = w.sink();
        for p in paths {
            sink.record(read(p.clone()));
        }
        match exit {
            Some(code) => {
                let s = w
                    .finish(Some(code), Timestamp((start + 75) * 1_000_000_000))
                    .unwrap();
                assert!(s.is_complete(), "{s:?}");
            }
            None => drop(w), // unsealed, as if ward was killed
        }
    }
}

fn read(path: PathBytes) -> Event {
    Event {
        session: String::new(),
        seq: 0,
        ts: Timestamp(1_764_430_000_000_000_000),
        actor: Actor {
            pid: 7,
            tid: 7,
            ppid: 1,
            exe: PathBytes::from("/usr/bin/cat"),
        },
        op: Operation::new(OpKind::FileRead, "openat").with_path(path),
        outcome: Outcome::Err(2),
        decision: Decision::allow(DecidedBy::AuditMode),
        hash: None,
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[track_caller]
fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
}

fn paths(n: usize) -> Vec<PathBytes> {
    (1..=n)
        .map(|i| PathBytes::from(format!("/home/u/project/src/f{i}.rs")))
        .collect()
}

// 2025-11-29 15:20:00 UTC
const T0: u64 = 1_764_429_600;

#[test]
fn sessions_lists_a_table_and_json() {
    let env = Env::new();
    let long: Vec<&str> = std::iter::once("claude")
        .chain(std::iter::repeat_n("--verbose-flag", 12))
        .collect();
    env.session(
        "20251129-152000-aaaa",
        T0,
        &["sh", "-c", "cat /etc/hostname; exit 3"],
        &paths(3),
        Some(3),
    );
    env.session("20251129-153000-bbbb", T0 + 600, &long, &paths(1), None);

    let out = env.ward(&["sessions"]);
    assert_exit(&out, 0);
    let table = text(&out.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("ID "), "{table}");
    assert!(
        lines[0].contains("DURATION") && lines[0].contains("EXIT") && lines[0].contains("EVENTS"),
        "{table}"
    );
    assert!(
        lines[1].starts_with("20251129-152000-aaaa  2025-11-29 15:20 "),
        "{table}"
    );
    assert!(lines[1].contains("1m15s"), "{table}");
    assert!(
        lines[1].contains("sh -c 'cat /etc/hostname; exit 3'"),
        "{table}"
    );
    let cols: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        &cols[4..6],
        ["3", "3"],
        "exit code then event count: {table}"
    );
    assert!(lines[2].starts_with("20251129-153000-bbbb"), "{table}");
    assert!(lines[2].ends_with('…'), "long commands are cut: {table}");
    assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");

    let out = env.ward(&["sessions", "--format", "json"]);
    assert_exit(&out, 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], "20251129-152000-aaaa");
    assert_eq!(list[0]["start"], "2025-11-29T15:20:00.000000000Z");
    assert_eq!(list[0]["duration_secs"], 75.0);
    assert_eq!(list[0]["exit_code"], 3);
    assert_eq!(list[0]["events"], 3);
    assert_eq!(list[0]["sealed"], true);
    assert_eq!(list[0]["argv"][2], "cat /etc/hostname; exit 3");
    assert_eq!(list[0]["profile"], "generic");
    assert_eq!(list[1]["exit_code"], serde_json::Value::Null);
    assert_eq!(list[1]["sealed"], false);
    assert_eq!(list[1]["events"], 1);
}

#[test]
fn sessions_without_a_database_says_so_and_creates_nothing() {
    let env = Env::new();
    let out = env.ward(&["sessions"]);
    assert_exit(&out, 0);
    assert!(
        text(&out.stdout).contains("no sessions recorded yet"),
        "{}",
        text(&out.stdout)
    );
    assert!(!env.db().exists());
    let out = env.ward(&["sessions", "--format", "json"]);
    assert_eq!(text(&out.stdout).trim(), "[]");
    let out = env.ward(&["audit", "verify"]);
    assert_exit(&out, 125);
    assert!(
        text(&out.stderr).contains("no audit database"),
        "{}",
        text(&out.stderr)
    );
}

/// Alters every copy of `marker` that sits in an event line (followed by `"`), so the live
/// record changes whatever stale copies the database file also holds.
fn flip_in_lines(file: &Path, marker: &[u8]) {
    let mut bytes = std::fs::read(file).unwrap();
    let hits: Vec<usize> = bytes
        .windows(marker.len() + 1)
        .enumerate()
        .filter(|(_, w)| w.starts_with(marker) && w[marker.len()] == b'"')
        .map(|(i, _)| i)
        .collect();
    assert!(
        !hits.is_empty(),
        "marker not found in an event line of the database file"
    );
    for i in hits {
        bytes[i + 1] ^= 0x20;
    }
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn verify_passes_untouched_sessions_and_names_the_altered_event() {
    let env = Env::new();
    let mut p = paths(30);
    p[16] = PathBytes::from("/home/u/project/MARKER-seventeen");
    env.session("20251129-152000-aaaa", T0, &["true"], &paths(5), Some(0));
    env.session("20251129-153000-bbbb", T0 + 600, &["make"], &p, Some(0));

    let out = env.ward(&["audit", "verify"]);
    assert_exit(&out, 0);
    assert_eq!(
        text(&out.stdout),
        "session 20251129-152000-aaaa: ok, 5 events\nsession 20251129-153000-bbbb: ok, 30 events\n"
    );

    flip_in_lines(&env.db(), b"MARKER-seventeen");
    let out = env.ward(&["audit", "verify"]);
    assert_exit(&out, 1);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("session 20251129-152000-aaaa: ok, 5 events"),
        "{stdout}"
    );
    assert!(
        stdout.contains("session 20251129-153000-bbbb: broken at event 17: hash mismatch"),
        "{stdout}"
    );

    // One session by prefix, and as JSON.
    let out = env.ward(&["audit", "verify", "20251129-1530", "--format", "json"]);
    assert_exit(&out, 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["ok"], false);
    assert_eq!(v[0]["broken"]["seq"], 17);
    let out = env.ward(&["audit", "verify", "20251129-1520"]);
    assert_exit(&out, 0);
}

#[test]
fn export_writes_jsonl_and_csv() {
    let env = Env::new();
    let odd = PathBytes::from(b"/tmp/\xff\xfeodd".to_vec());
    let comma = PathBytes::from("/tmp/a,b \"quoted\"");
    env.session(
        "20251129-152000-aaaa",
        T0,
        &["cat"],
        &[PathBytes::from("/etc/hostname"), odd, comma],
        Some(0),
    );

    let out = env.ward(&[
        "audit",
        "export",
        "20251129-152000-aaaa",
        "--format",
        "jsonl",
    ]);
    assert_exit(&out, 0);
    let jsonl = text(&out.stdout);
    let events: Vec<Event> = jsonl
        .lines()
        .map(|l| Event::from_json(l).unwrap())
        .collect();
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[0].op.path.as_ref().unwrap().as_bytes(),
        b"/etc/hostname"
    );
    assert!(jsonl.lines().all(|l| l.contains("\"hash\":\"")));

    let file = env.dir.path().join("out.csv");
    let out = env.ward(&[
        "audit",
        "export",
        "20251129",
        "--format",
        "csv",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_exit(&out, 0);
    assert!(out.stdout.is_empty());
    let csv = std::fs::read_to_string(&file).unwrap();
    let rows: Vec<&str> = csv.split("\r\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(
        rows[0].starts_with("session,seq,ts,pid,tid,ppid,exe,syscall,kind,path,"),
        "{csv}"
    );
    assert!(rows[1].starts_with("20251129-152000-aaaa,1,2025-11-29T15:26:40.000000000Z,7,7,1,/usr/bin/cat,openat,file.read,/etc/hostname,"), "{}", rows[1]);
    assert!(
        rows[1].contains(",false,,ENOENT,allow,allow,0,,audit-mode,"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].contains(",file.read,b64:L3RtcC///m9kZA==,"),
        "{}",
        rows[2]
    );
    assert!(
        rows[3].contains(",file.read,\"/tmp/a,b \"\"quoted\"\"\","),
        "{}",
        rows[3]
    );
}

#[test]
fn bad_input_gets_a_clear_error() {
    let env = Env::new();
    env.session("20251129-152000-aaaa", T0, &["true"], &paths(1), Some(0));
    env.session(
        "20251129-152000-aaab",
        T0 + 1,
        &["true"],
        &paths(1),
        Some(0),
    );

    let out = env.ward(&["audit", "export", "nope"]);
    assert_exit(&out, 125);
    assert!(
        text(&out.stderr).contains("no session \"nope\""),
        "{}",
        text(&out.stderr)
    );

    let out = env.ward(&["audit", "verify", "20251129-152000-aaa"]);
    assert_exit(&out, 125);
    assert!(
        text(&out.stderr).contains("ambiguous"),
        "{}",
        text(&out.stderr)
    );

    let file = env.dir.path().join("never.csv");
    let out = env.ward(&[
        "audit",
        "export",
        "nope",
        "--format",
        "csv",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_exit(&out, 125);
    assert!(!file.exists(), "no output file for a bad session");

    let garbage = env.dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![7u8; 4096]).unwrap();
    for args in [
        vec!["sessions", "--db"],
        vec!["audit", "verify", "--db"],
        vec!["audit", "export", "x", "--db"],
    ] {
        let mut args = args.clone();
        args.push(garbage.to_str().unwrap());
        let out = env.ward(&args);
        assert_exit(&out, 125);
        let err = text(&out.stderr);
        assert!(
            err.contains("cannot open the audit database") && err.contains("garbage.db"),
            "{args:?}: {err}"
        );
    }
}
