//! `ward policy test` and `ward config show` from the command line.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use ward_event::{Actor, DecidedBy, Decision, Event, OpKind, Operation, Outcome, PathBytes, Timestamp};

const WARD: &str = env!("CARGO_BIN_EXE_ward");

fn ward(dir: &Path, args: &[&str]) -> Output {
    Command::new(WARD)
        .args(args)
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env_remove("WARD_PROFILE")
        .env_remove("WARD_MODE")
        .output()
        .unwrap()
}

fn event(seq: u64, home: &Path, op: Operation) -> String {
    let _ = home;
    Event {
        session: "20261129-152000-3fa1".into(),
        seq,
        ts: Timestamp(1_764_429_600_000_000_000 + seq * 1_000_000),
        actor: Actor { pid: 10, tid: 10, ppid: 1, exe: PathBytes::from("/usr/bin/cat") },
        op,
        outcome: Outcome::Ok(Some(3)),
        decision: Decision::allow(DecidedBy::AuditMode),
        hash: None,
    }
    .to_json()
}

#[test]
fn policy_test_replays_events_and_reports_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let p = |s: &Path, rel: &str| s.join(rel).to_string_lossy().into_owned();
    let exec = Operation {
        argv: Some(["sh", "-c", "true && cat ~/.ssh/id_rsa"].iter().map(|a| PathBytes::from(*a)).collect()),
        ..Operation::new(OpKind::ProcExec, "execve").with_path("/bin/sh")
    };
    let lines = [
        event(1, &home, Operation::new(OpKind::FileRead, "openat").with_path(p(&project, "src/main.rs"))),
        event(2, &home, Operation::new(OpKind::FileRead, "openat").with_path(p(&home, ".npmrc"))),
        "{ this is not an event".to_string(),
        event(3, &home, exec),
        event(4, &home, Operation::new(OpKind::FileRead, "openat").with_path(p(&project, ".env"))),
    ];
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = ward(
        dir.path(),
        &["policy", "test", "--events", file.to_str().unwrap(), "--profile", "generic", "--project", project.to_str().unwrap(), "--format", "json"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["events"], 4);
    assert_eq!(v["allow"], 1);
    assert_eq!(v["review"], 1);
    assert_eq!(v["deny"], 2);
    assert_eq!(v["bad_lines"][0]["line"], 3);
    let flagged = v["flagged"].as_array().unwrap();
    let sh = flagged.iter().find(|f| f["seq"] == 3).unwrap();
    let reasons = sh["filters"].to_string();
    assert!(reasons.contains("`cat ~/.ssh/id_rsa`"), "{reasons}");

    let text = ward(dir.path(), &["policy", "test", "--events", file.to_str().unwrap(), "--project", project.to_str().unwrap()]);
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("4 events replayed under profile generic (enforce): 1 allowed, 1 reviewed, 2 denied"), "{s}");
    assert!(s.contains("line 3: skipped"), "{s}");
}

#[test]
fn config_show_prints_values_with_origins_and_errors_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    let cfg = dir.path().join("config/ward/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "review_timeout = 30\n").unwrap();
    let out = ward(dir.path(), &["config", "show", "--project", project.to_str().unwrap(), "--format", "json", "--", "codex", "exec", "hi"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["profile"], "codex");
    assert_eq!(v["profile_auto_picked"], true);
    let values = v["values"].as_array().unwrap();
    let rt = values.iter().find(|x| x["key"] == "review_timeout").unwrap();
    assert_eq!(rt["value"], "30s");
    assert_eq!(rt["origin"], cfg.to_string_lossy().as_ref());
    let text = ward(dir.path(), &["config", "show", "--project", project.to_str().unwrap()]);
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("profile generic"), "{s}");
    assert!(s.contains("# profile generic"), "{s}");

    std::fs::write(&cfg, "review_timeout = 30\n[sandbox]\nmdoe = \"off\"\n").unwrap();
    let bad = ward(dir.path(), &["config", "show", "--project", project.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(125));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("config.toml:3:") && err.contains("sandbox.mdoe"), "{err}");
}

#[test]
fn policy_explain_rebuilds_the_state_and_shows_each_filter() {
    use ward_audit::{SessionMeta, Writer};
    use ward_event::{FilterHit, SockAddr, Verdict};
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let db = dir.path().join("state/ward/audit.db");
    let start = Timestamp(1_764_429_600_000_000_000);
    let id = "20261129-152000-beef".to_string();
    let mut meta = SessionMeta::new(id.clone(), start, vec![PathBytes::from("node"), PathBytes::from("agent.js")], PathBytes::from(project.clone()));
    meta.profile = Some("generic".into());
    let w = Writer::start(&db, meta, None).unwrap();
    let sink = w.sink();
    let actor = Actor { pid: 10, tid: 10, ppid: 1, exe: PathBytes::from("/usr/bin/node") };
    // 1: a sensitive read that succeeded (audit mode recorded it with its verdict).
    let mut d1 = Decision::allow(DecidedBy::AuditMode);
    d1.verdict = Verdict::Deny;
    d1.score = 100;
    d1.filters = vec![FilterHit { filter: "sensitive-path".into(), score: 100, reason: "npm token".into() }];
    sink.record(Event {
        session: id.clone(),
        seq: 0,
        ts: Timestamp(start.0 + 1_000),
        actor: actor.clone(),
        op: Operation::new(OpKind::FileRead, "openat").with_path(home.join(".npmrc")),
        outcome: Outcome::Ok(Some(3)),
        decision: d1,
        hash: None,
    });
    // 2: a connection out afterwards.
    sink.record(Event {
        session: id.clone(),
        seq: 0,
        ts: Timestamp(start.0 + 2_000),
        actor: actor.clone(),
        op: Operation {
            addr: Some(SockAddr::Inet { ip: "203.0.113.9".parse().unwrap(), port: 443 }),
            domain: Some("exfil.example".into()),
            ..Operation::new(OpKind::NetConnect, "connect")
        },
        outcome: Outcome::Ok(Some(0)),
        decision: Decision::allow(DecidedBy::AuditMode),
        hash: None,
    });
    w.finish(Some(0), Timestamp(start.0 + 3_000)).unwrap();

    let out = ward(dir.path(), &["policy", "explain", "20261129-152000-be", "2", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["now"]["verdict"], "deny");
    let filters = v["now"]["filters"].as_array().unwrap();
    let get = |name: &str| filters.iter().find(|f| f["filter"] == name).unwrap().clone();
    assert_eq!(get("egress")["score"], 100);
    assert_eq!(get("taint")["score"], 60, "state rebuilt: the earlier read tainted the session");
    assert!(get("taint")["reasons"].to_string().contains(".npmrc"));
    assert_eq!(get("secrets")["score"], 0);
    assert_eq!(v["recorded"]["by"], "audit-mode");

    let text = ward(dir.path(), &["policy", "explain", &id, "2"]);
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("taint") && s.contains("-> deny") && s.contains("recorded: allowed"), "{s}");
    let missing = ward(dir.path(), &["policy", "explain", &id, "9"]);
    assert!(!missing.status.success());
}
