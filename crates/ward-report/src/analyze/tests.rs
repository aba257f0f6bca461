use super::*;
use crate::render::{render, Format, RenderOptions};
use ward_event::{Actor, DecidedBy, Decision, FilterHit, Operation, PathBytes, Timestamp, Verdict};

const HOME: &str = "/home/u";
const PROJECT: &str = "/home/u/work/repo/app";

fn ev(pid: i32, exe: &str, kind: OpKind, path: &str, ok: bool) -> Event {
    Event {
        session: "s".into(),
        seq: 0,
        ts: Timestamp(1_000_000_000),
        actor: Actor {
            pid,
            tid: pid,
            ppid: 1,
            exe: PathBytes::from(exe),
        },
        op: Operation::new(kind, "openat").with_path(PathBytes::from(path)),
        outcome: if ok { Outcome::Ok(Some(3)) } else { Outcome::Err(13) },
        decision: Decision::allow(DecidedBy::AuditMode),
        hash: None,
    }
}

fn session(events: Vec<Event>) -> Session {
    let mut events = events;
    for (i, e) in events.iter_mut().enumerate() {
        e.seq = i as u64 + 1;
        e.ts = Timestamp(1_000_000_000 + i as u64 * 100_000_000);
    }
    Session::from_events(None, "s".into(), PathBytes::from(PROJECT), Some(PathBytes::from(HOME)), events)
}

fn report(events: Vec<Event>) -> SessionReport {
    analyze(&session(events), &Options::default())
}

#[test]
fn counts_follow_the_documented_rules() {
    let node = "/usr/bin/node";
    let mut dir_open = ev(10, node, OpKind::FileRead, "/home/u/work/repo/app/src", true);
    dir_open.op.flags = Some("O_RDONLY|O_CLOEXEC|O_DIRECTORY".into());
    let mut rename = ev(10, node, OpKind::FileRename, "/home/u/work/repo/app/a.tmp", true);
    rename.op.path2 = Some(PathBytes::from("/home/u/work/repo/app/a.js"));
    let r = report(vec![
        ev(10, node, OpKind::FileRead, "/home/u/work/repo/app/a.js", true),
        ev(10, node, OpKind::FileRead, "/home/u/work/repo/app/a.js", true), // same file again
        ev(10, node, OpKind::FileRead, "/home/u/work/repo/app/missing", false), // failed
        ev(10, node, OpKind::FileRead, "/etc/hosts", true),
        dir_open,
        ev(10, node, OpKind::DirList, "/home/u/work/repo/app/src", true),
        ev(10, node, OpKind::DirList, "/home/u/work/repo/app/src", true), // listed again later
        ev(10, node, OpKind::FileWrite, "/home/u/work/repo/app/b.js", true),
        ev(10, node, OpKind::FileCreate, "/home/u/.cache/x/log.jsonl", true),
        rename,
        ev(11, node, OpKind::ProcExec, "/usr/bin/git", true),
        ev(12, node, OpKind::ProcExec, "/usr/bin/git", true),
        ev(13, node, OpKind::ProcExec, "/usr/local/bin/git", false),
    ]);
    let s = &r.summary;
    assert_eq!(s.files_read, 2, "a.js, /etc/hosts; the directory open is not a file");
    assert_eq!(s.files_written, 3, "b.js, a.js (rename target), log.jsonl");
    assert_eq!(s.files_in_project, 2, "a.js, b.js");
    assert_eq!(s.files_outside_project, 2, "/etc/hosts, log.jsonl");
    assert_eq!(s.dir_scans, 2);
    assert_eq!(s.subprocesses, 1);
    assert_eq!(s.processes, 4);
    assert_eq!(s.failed, 2);
    assert_eq!(r.written_outside_project.len(), 1);
    assert_eq!(r.written_outside_project[0].path, "~/.cache/x/log.jsonl");
    assert_eq!(r.executables[0].count, 2);
}

#[test]
fn runtime_files_are_left_out_of_counts_but_not_of_sensitive_paths() {
    let claude = "/usr/bin/node";
    let mut exec = ev(10, claude, OpKind::ProcExec, "/usr/local/bin/claude", true);
    exec.op.argv = Some(vec![PathBytes::from("claude")]);
    let events = vec![
        exec,
        ev(10, claude, OpKind::FileRead, "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", true),
        ev(10, claude, OpKind::FileRead, "/home/u/.claude/settings.json", true),
        ev(10, claude, OpKind::FileRead, "/home/u/.claude/.npmrc", true),
        ev(10, claude, OpKind::FileWrite, "/home/u/.cache/claude-cli-nodejs/mcp-logs/x.jsonl", true),
        ev(10, claude, OpKind::FileRead, "/home/u/work/repo/app/a.js", true),
    ];
    let r = analyze(&session(events.clone()), &Options::default());
    assert_eq!(r.summary.files_read, 1);
    assert_eq!(r.summary.files_written, 0);
    assert_eq!(r.summary.runtime_files, 4);
    let by_rule: Vec<(&str, u64)> = r
        .runtime_excluded
        .iter()
        .filter(|x| x.files > 0)
        .map(|x| (x.rule.as_str(), x.files))
        .collect();
    assert_eq!(
        by_rule,
        vec![("claude-code:install", 1), ("claude-code:home", 2), ("claude-code:cache-cli", 1)]
    );
    assert!(r.sensitive.iter().any(|p| p.path == "~/.claude/.npmrc"), "{:?}", r.sensitive);
    // The log written outside the project is a finding even though it is runtime.
    assert_eq!(
        r.written_outside_project[0].runtime_rule.as_deref(),
        Some("claude-code:cache-cli")
    );

    let all = analyze(
        &session(events),
        &Options {
            include_runtime: true,
            ..Options::default()
        },
    );
    assert_eq!(all.summary.files_read, 4);
    assert_eq!(all.summary.files_written, 1);
    assert_eq!(all.summary.runtime_files, 0);
}

#[test]
fn environ_sweep_and_census() {
    let node = "/usr/bin/node";
    let mut events = Vec::new();
    for pid in 1..=20 {
        events.push(ev(500, node, OpKind::FileRead, &format!("/proc/{pid}/environ"), pid > 12));
        events.push(ev(500, node, OpKind::FileRead, &format!("/proc/{pid}/stat"), true));
        events.push(ev(500, node, OpKind::FileRead, &format!("/proc/{pid}/cmdline"), true));
    }
    events.push(ev(500, node, OpKind::FileRead, "/proc/500/environ", true));
    events.push(ev(500, node, OpKind::FileRead, "/proc/self/environ", true));
    events.push(ev(500, node, OpKind::FileRead, "/proc/500/stat", true));
    let r = report(events);
    let e = &r.environ_sweep;
    assert_eq!((e.attempted, e.succeeded, e.distinct_pids, e.succeeded_pids, e.own), (20, 8, 20, 8, 2));
    assert_eq!(r.proc_census.distinct_pids, 20);
    assert!(r.proc_census.is_census);
    let row = r.sensitive.iter().find(|p| p.class == Class::OtherProcessEnv).unwrap();
    assert_eq!((row.opens, row.succeeded, row.targets), (20, 8, 20));
    let text: Vec<&str> = r.findings.iter().map(|f| f.text.as_str()).collect();
    assert!(text[0].contains("of 20 other processes") && text[0].contains("8 succeeded"), "{text:?}");
    assert!(text[1].contains("process table"), "{text:?}");
}

#[test]
fn git_metadata_above_the_project() {
    let git = "/usr/bin/git";
    let r = report(vec![
        ev(7, git, OpKind::FileRead, "/home/u/work/repo/.git/HEAD", true),
        ev(7, git, OpKind::FileRead, "/home/u/work/repo/.git/config", true),
        ev(7, git, OpKind::FileRead, "/home/u/work/.git/HEAD", false),
        ev(7, git, OpKind::FileRead, "/home/u/work/repo/app/.git/HEAD", true), // the project's own
    ]);
    let ok: Vec<&str> = r
        .git_above_project
        .iter()
        .filter(|g| g.succeeded > 0)
        .map(|g| g.path.as_str())
        .collect();
    assert_eq!(ok, vec!["~/work/repo/.git/HEAD", "~/work/repo/.git/config"]);
    assert!(r.findings.iter().any(|f| f.kind == "git-above-project" && f.evidence.len() == 2));
}

#[test]
fn denied_operations_are_listed_with_reasons() {
    let mut e = ev(7, "/usr/bin/cat", OpKind::FileRead, "/home/u/.ssh/id_ed25519", false);
    e.decision = Decision {
        action: Action::Deny,
        verdict: Verdict::Deny,
        score: 90,
        filters: vec![FilterHit {
            filter: "sensitive-path".into(),
            score: 90,
            reason: "SSH private key".into(),
        }],
        by: DecidedBy::Policy,
    };
    let r = report(vec![e]);
    assert_eq!(r.summary.denied, 1);
    assert_eq!(r.denied[0].target, "~/.ssh/id_ed25519");
    assert_eq!(r.denied[0].reasons, vec!["sensitive-path: SSH private key"]);
    assert_eq!(r.denied[0].by, "policy");
    let text = render(
        &Report {
            report_version: 1,
            sessions: vec![r],
        },
        &RenderOptions::default(),
    );
    assert!(text.contains("Denied") && text.contains("SSH private key"), "{text}");
}

#[test]
fn two_sessions_render_side_by_side() {
    let a = session(vec![
        ev(1, "/usr/bin/git", OpKind::FileRead, "/home/u/.gitconfig", true),
        ev(1, "/usr/bin/git", OpKind::FileRead, "/home/u/.gitconfig", true),
    ]);
    let mut b = session(vec![ev(2, "/usr/bin/npm", OpKind::FileRead, "/home/u/.npmrc", true)]);
    b.label = "second".into();
    let report = Report::build(&[a, b], &Options::default());
    let text = render(&report, &RenderOptions::default());
    let header = text.lines().find(|l| l.contains("Path") && l.contains("Class")).unwrap();
    assert!(header.contains(" s ") && header.contains("second"), "{text}");
    let gitconfig = text.lines().find(|l| l.starts_with("~/.gitconfig")).unwrap();
    assert!(gitconfig.contains("x2") && gitconfig.trim_end().ends_with('-'), "{gitconfig}");
    let md = render(
        &report,
        &RenderOptions {
            format: Format::Markdown,
            ..Default::default()
        },
    );
    assert!(md.contains("|  | s | second |"), "{md}");
    assert!(md.contains("| Files read (unique) | 1 | 1 |"), "{md}");
    println!("{text}");
    for l in text.lines() {
        assert!(l.chars().count() <= 100, "too wide: {l}");
    }
}

#[test]
fn text_fits_100_columns_with_long_paths() {
    let long = format!("/home/u/{}/file", "very-long-directory-name/".repeat(20));
    let mut w = ev(3, "/usr/bin/python3", OpKind::FileWrite, &long, true);
    w.op.flags = Some("O_WRONLY".into());
    let r = Report::build(
        &[session(vec![
            w,
            ev(3, "/usr/bin/python3", OpKind::FileRead, &format!("{long}/.npmrc"), true),
        ])],
        &Options::default(),
    );
    let text = render(&r, &RenderOptions::default());
    for l in text.lines() {
        assert!(l.chars().count() <= 100, "too wide ({}): {l}", l.chars().count());
    }
    assert!(!text.contains('\x1b'), "no colour unless asked");
    let colored = render(&r, &RenderOptions { color: true, ..Default::default() });
    assert!(colored.contains("\x1b[1m"));
}

#[test]
fn json_has_the_documented_fields() {
    let r = Report::build(
        &[session(vec![ev(1, "/bin/cat", OpKind::FileRead, "/etc/passwd", true)])],
        &Options::default(),
    );
    let v: serde_json::Value = serde_json::from_str(&render(
        &r,
        &RenderOptions {
            format: Format::Json,
            ..Default::default()
        },
    ))
    .unwrap();
    assert_eq!(v["report_version"], 1);
    let s = &v["sessions"][0];
    for key in [
        "id", "label", "source", "project", "home", "command", "start", "end", "duration_secs", "summary",
        "sensitive", "findings", "environ_sweep", "proc_census", "git_above_project",
        "written_outside_project", "network", "executables", "runtime_excluded", "denied", "import",
    ] {
        assert!(s.get(key).is_some(), "missing {key}");
    }
    for key in [
        "files_read", "files_written", "files_in_project", "files_outside_project", "dir_scans",
        "subprocesses", "processes", "connections", "events", "failed", "denied", "runtime_files",
    ] {
        assert!(s["summary"][key].is_u64(), "summary.{key}");
    }
    assert_eq!(s["sensitive"][0]["class"], "system-accounts");
    assert_eq!(s["source"], "events");
}
