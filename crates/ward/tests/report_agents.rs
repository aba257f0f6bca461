//! The real Claude Code CLI at startup (it stops at "Not logged in" without credentials or
//! network), once under strace and once under `ward exec`: the `/proc/<pid>/environ` sweep and
//! the git subprocesses must agree within 5%.
//!
//! Ignored by default (it needs the CLI): install it with
//! `npm install --prefix DIR @anthropic-ai/claude-code` and run
//! `WARD_AGENTS_BIN=DIR/node_modules/.bin cargo test -p ward --test report_agents -- --ignored`.
//! The sweep visits every process on the machine, so a machine whose process table changes a
//! lot between the two runs (parallel builds) can move the numbers by itself.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const WARD: &str = env!("CARGO_BIN_EXE_ward");

fn find(bin: &str) -> Option<PathBuf> {
    let dirs = std::env::var_os("WARD_AGENTS_BIN")
        .into_iter()
        .chain(std::env::var_os("PATH"))
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    dirs.map(|d| d.join(bin)).find(|p| p.exists())
}

fn run(tool: &[&str], cmd: &Path, project: &Path, home: &Path) {
    let _ = std::fs::remove_dir_all(home);
    std::fs::create_dir_all(home).unwrap();
    let path = format!(
        "{}:{}",
        cmd.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new(tool[0])
        .args(&tool[1..])
        .arg(cmd)
        .args(["-p", "say hi"])
        .current_dir(project)
        .env("HOME", home)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // The CLI exits non-zero at "Not logged in": only the trace matters.
    let _ = status;
}

/// Within 5%, or within a few processes: the environ sweep reads every process on the machine,
/// and the two runs differ by their own supervising processes (ward and its init vs strace)
/// and by whatever else started or ended between them.
fn close(a: u64, b: u64) -> bool {
    let (lo, hi) = (a.min(b) as f64, a.max(b) as f64);
    hi - lo <= (hi * 0.05).max(6.0)
}

#[test]
#[ignore = "needs the claude CLI (WARD_AGENTS_BIN) and strace"]
fn claude_startup_matches_strace_within_5_percent() {
    let Some(claude) = find("claude") else {
        eprintln!("SKIPPED: claude not found (set WARD_AGENTS_BIN)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let project = base.join("proj");
    let home = base.join("home");
    std::fs::create_dir_all(&project).unwrap();
    let _ = Command::new("git").args(["init", "-q"]).current_dir(&project).status();
    let log = base.join("claude.log");
    let events = base.join("claude.jsonl");
    let db = base.join("audit.db");
    run(
        &[
            "strace", "-f", "-e", "trace=openat,open,connect,execve,getdents64", "-e", "signal=none", "-ttt", "-s", "512",
            "-o", log.to_str().unwrap(), "--",
        ],
        &claude,
        &project,
        &home,
    );
    run(
        &[WARD, "exec", "--quiet", "--mode", "audit", "--sandbox", "off", "--db", db.to_str().unwrap(), "--events", events.to_str().unwrap(), "--"],
        &claude,
        &project,
        &home,
    );
    let out = Command::new(WARD)
        .args(["report", "--format", "json", "--strace"])
        .arg(&log)
        .arg("--events")
        .arg(&events)
        .arg("--project")
        .arg(&project)
        .arg("--home")
        .arg(&home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Sessions: events files first, then strace logs.
    let (ward, strace) = (&v["sessions"][0], &v["sessions"][1]);
    let n = |s: &Value, path: &[&str]| path.iter().fold(s, |v, k| &v[*k]).as_u64().unwrap_or(0);
    let git = |s: &Value| {
        s["executables"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["path"].as_str().unwrap().ends_with("/git"))
            .map(|e| e["count"].as_u64().unwrap())
            .sum::<u64>()
    };
    let rows = [
        ("environ attempted", n(ward, &["environ_sweep", "attempted"]), n(strace, &["environ_sweep", "attempted"])),
        ("environ PIDs", n(ward, &["environ_sweep", "distinct_pids"]), n(strace, &["environ_sweep", "distinct_pids"])),
        ("git execs", git(ward), git(strace)),
    ];
    for (what, w, s) in rows {
        eprintln!("{what}: ward {w}, strace {s}");
        assert!(close(w, s), "{what}: ward {w} vs strace {s}");
    }
    assert!(rows[0].1 > 0, "no environ sweep seen: has the CLI changed?");
}
