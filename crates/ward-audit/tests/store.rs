//! The audit store end to end: write sessions with the `Writer`, read and verify them with the
//! `Store`, tamper with the database file, and make storage fail.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use ward_audit::{
    new_session_id, BreakReason, SessionMeta, Store, WriteSummary, Writer, WriterOptions,
};
use ward_event::{
    Actor, DecidedBy, Decision, Event, OpKind, Operation, Outcome, PathBytes, Timestamp,
};

fn event(path: impl Into<PathBytes>) -> Event {
    Event {
        session: String::new(),
        seq: 0,
        ts: Timestamp::now(),
        actor: Actor {
            pid: 4242,
            tid: 4243,
            ppid: 1,
            exe: PathBytes::from("/usr/bin/cat"),
        },
        op: Operation {
            flags: Some("O_RDONLY|O_CLOEXEC".into()),
            ..Operation::new(OpKind::FileRead, "openat").with_path(path.into())
        },
        outcome: Outcome::Ok(Some(3)),
        decision: Decision::allow(DecidedBy::AuditMode),
        hash: None,
    }
}

fn meta(id: &str) -> SessionMeta {
    SessionMeta::new(
        id.to_string(),
        Timestamp::now(),
        vec!["cat".into(), "/etc/hostname".into()],
        PathBytes::from("/tmp"),
    )
}

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("state/ward/audit.db")
}

/// A `Write` the test can read back after the writer is done.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes a session of `paths` and finishes it with exit code 0.
fn write_session(db: &Path, id: &str, paths: &[&str]) -> WriteSummary {
    let w = Writer::start(db, meta(id), None).unwrap();
    let sink = w.sink();
    for p in paths {
        sink.record(event(*p));
    }
    w.finish(Some(0), Timestamp::now()).unwrap()
}

fn numbered(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("/work/file-{i:05}")).collect()
}

#[test]
fn events_come_back_numbered_chained_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let jsonl = Shared::default();
    let id = new_session_id(Timestamp::now());
    let w = Writer::start(&db, meta(&id), Some(Box::new(jsonl.clone()))).unwrap();
    assert_eq!(w.session(), id);
    let sink = w.sink();
    // Events are numbered in the order ward saw the calls (their time stamps).
    sink.record(event("/etc/hostname"));
    let mut odd = event(PathBytes::from(b"/tmp/\xff\xfe".to_vec()));
    odd.session = "ignored: the writer sets it".into();
    odd.seq = 99;
    sink.record(odd);
    sink.record(event("/etc/passwd"));
    let summary = w.finish(Some(3), Timestamp::now()).unwrap();
    assert!(summary.is_complete(), "{summary:?}");
    assert_eq!(
        (
            summary.events,
            summary.stored,
            summary.spilled,
            summary.lost
        ),
        (3, 3, 0, 0)
    );
    assert!(summary.problem().is_none());

    let store = Store::open(&db).unwrap();
    let events = store.events(&id).unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(events.iter().all(|e| e.session == id));
    assert_eq!(
        events[1].op.path.as_ref().unwrap().as_bytes(),
        b"/tmp/\xff\xfe"
    );
    assert_eq!(summary.final_hash, events[2].hash);

    // The --events stream is exactly the stored lines, and each is Event::to_json.
    let stream = String::from_utf8(jsonl.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = stream.lines().collect();
    assert_eq!(lines.len(), 3);
    for (line, e) in lines.iter().zip(&events) {
        assert_eq!(*line, e.to_json());
    }
    let mut exported = Vec::new();
    assert_eq!(
        ward_audit::export::write_jsonl(&store, &id, &mut exported).unwrap(),
        3
    );
    assert_eq!(String::from_utf8(exported).unwrap(), stream);

    let rec = store.session(&id).unwrap().unwrap();
    assert_eq!(rec.exit_code, Some(3));
    assert_eq!(rec.event_count, 3);
    assert!(rec.end.is_some());
    assert_eq!(rec.meta.argv, meta(&id).argv);
    assert_eq!(rec.seal.unwrap().final_hash, summary.final_hash.unwrap());

    let report = store.verify(&id).unwrap();
    assert!(report.is_ok() && report.sealed, "{report}");
    assert_eq!(report.checked, 3);
    assert_eq!(report.to_string(), format!("session {id}: ok, 3 events"));
}

#[test]
fn the_chain_follows_the_documented_rule() {
    // Recompute event 1's and 2's hash from the stored JSON alone, as an outside tool would.
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    write_session(&db, "20261129-100000-aaaa", &["/a", "/b"]);
    let store = Store::open(&db).unwrap();
    let mut prev: Vec<u8> = Sha256::new()
        .chain_update(b"ward-audit chain v1\0")
        .chain_update(b"20261129-100000-aaaa")
        .finalize()
        .to_vec();
    for e in store.events("20261129-100000-aaaa").unwrap() {
        let unhashed = Event {
            hash: None,
            ..e.clone()
        }
        .to_json();
        let h = Sha256::new()
            .chain_update(&prev)
            .chain_update(unhashed.as_bytes())
            .finalize();
        assert_eq!(e.hash.as_deref(), Some(hex::encode(h).as_str()));
        prev = h.to_vec();
    }
}

#[test]
fn sessions_are_listed_oldest_first_and_found_by_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    write_session(&db, "20261129-100000-aaaa", &["/a"]);
    write_session(&db, "20261129-110000-bbbb", &["/b", "/c"]);
    write_session(&db, "20261129-110000-bbbc", &[]);
    let store = Store::open(&db).unwrap();
    let ids: Vec<String> = store
        .sessions()
        .unwrap()
        .into_iter()
        .map(|s| s.meta.id)
        .collect();
    // meta(..) stamps "now" as the start, so the order is the order of writing.
    assert_eq!(
        ids,
        [
            "20261129-100000-aaaa",
            "20261129-110000-bbbb",
            "20261129-110000-bbbc"
        ]
    );
    assert_eq!(
        store.last_session().unwrap().unwrap().meta.id,
        "20261129-110000-bbbc"
    );
    assert_eq!(
        store.session("20261129-10").unwrap().unwrap().event_count,
        1
    );
    assert!(store.session("nope").unwrap().is_none());
    let err = store.session("20261129-110000-bbb").unwrap_err();
    assert!(
        matches!(err, ward_audit::AuditError::AmbiguousSession { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("20261129-110000-bbbb"), "{err}");
    assert!(matches!(
        store.events("zzz"),
        Err(ward_audit::AuditError::NoSuchSession(_))
    ));
    // An empty session verifies too.
    assert!(store.verify("20261129-110000-bbbc").unwrap().is_ok());
}

/// Finds every offset of `marker` in the file.
fn offsets(file: &Path, marker: &[u8]) -> Vec<usize> {
    let bytes = std::fs::read(file).unwrap();
    bytes
        .windows(marker.len())
        .enumerate()
        .filter(|(_, w)| *w == marker)
        .map(|(i, _)| i)
        .collect()
}

fn flip_byte(file: &Path, offset: usize) {
    let mut bytes = std::fs::read(file).unwrap();
    bytes[offset] ^= 0x01;
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn a_flipped_byte_in_the_file_names_the_altered_event() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut paths = numbered(400);
    paths[216] = "/work/MARKER-unique-217".into();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    write_session(&db, "20261129-120000-cafe", &refs);
    // All connections are closed: SQLite has checkpointed the WAL into the main file.
    let found = offsets(&db, b"MARKER-unique-217");
    // Once in the event line, once in the indexed path column; no stale copy in unused page
    // space (secure_delete), so any byte of it that changes belongs to a live record.
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(Store::open(&db)
        .unwrap()
        .verify("20261129-120000-cafe")
        .unwrap()
        .is_ok());

    let pristine = std::fs::read(&db).unwrap();
    let mut reasons = Vec::new();
    for off in found {
        std::fs::write(&db, &pristine).unwrap();
        flip_byte(&db, off + 3);
        let report = Store::open(&db)
            .unwrap()
            .verify("20261129-120000-cafe")
            .unwrap();
        let broken = report.broken.clone().expect("tampering must be detected");
        assert_eq!(broken.seq, 217, "{report}");
        assert!(
            report
                .to_string()
                .starts_with("session 20261129-120000-cafe: broken at event 217: "),
            "{report}"
        );
        reasons.push(broken.reason);
    }
    reasons.sort_by_key(|r| format!("{r:?}"));
    assert_eq!(
        reasons,
        [
            BreakReason::ColumnMismatch("path"),
            BreakReason::HashMismatch
        ]
    );
}

#[test]
fn removed_or_added_events_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let paths = numbered(10);
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let id = "20261129-130000-0001";
    write_session(&db, id, &refs);
    let conn = rusqlite::Connection::open(&db).unwrap();

    // The last event: only the seal can tell.
    conn.execute("DELETE FROM events WHERE session = ?1 AND seq = 10", [id])
        .unwrap();
    let report = Store::open(&db).unwrap().verify(id).unwrap();
    let broken = report.broken.expect("a truncated tail must be detected");
    assert_eq!(
        (broken.seq, broken.reason),
        (10, BreakReason::Missing { next: None })
    );

    // One in the middle: a gap.
    conn.execute("DELETE FROM events WHERE session = ?1 AND seq = 4", [id])
        .unwrap();
    let broken = Store::open(&db)
        .unwrap()
        .verify(id)
        .unwrap()
        .broken
        .unwrap();
    assert_eq!(
        (broken.seq, broken.reason),
        (4, BreakReason::Missing { next: Some(5) })
    );

    // Tail removed and the seal lowered to match: the final hash still disagrees.
    let dir2 = tempfile::tempdir().unwrap();
    let db2 = db_in(&dir2);
    write_session(&db2, id, &refs);
    let conn2 = rusqlite::Connection::open(&db2).unwrap();
    conn2
        .execute("DELETE FROM events WHERE seq = 10", [])
        .unwrap();
    conn2
        .execute("UPDATE sessions SET event_count = 9, stored_count = 9", [])
        .unwrap();
    let broken = Store::open(&db2)
        .unwrap()
        .verify(id)
        .unwrap()
        .broken
        .unwrap();
    assert_eq!((broken.seq, broken.reason), (9, BreakReason::SealMismatch));

    // An event appended after the seal.
    let dir3 = tempfile::tempdir().unwrap();
    let db3 = db_in(&dir3);
    write_session(&db3, id, &refs);
    let conn3 = rusqlite::Connection::open(&db3).unwrap();
    conn3
        .execute(
            "INSERT INTO events SELECT session, 11, kind, path, pid, ok, line FROM events WHERE seq = 10",
            [],
        )
        .unwrap();
    let broken = Store::open(&db3)
        .unwrap()
        .verify(id)
        .unwrap()
        .broken
        .unwrap();
    assert_eq!(broken.seq, 11);
}

#[test]
fn an_edited_session_record_is_detected() {
    let id = "20261129-131500-0009";
    let edits = [
        "UPDATE sessions SET exit_code = 0",
        "UPDATE sessions SET argv = '[\"true\"]'",
        "UPDATE sessions SET end_ns = end_ns + 1",
        "UPDATE sessions SET start_ns = start_ns - 1",
        "UPDATE sessions SET cwd = '\"/\"'",
        "UPDATE sessions SET end_ns = NULL",
    ];
    for edit in edits {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir);
        let w = Writer::start(&db, meta(id), None).unwrap();
        w.sink().record(event("/a"));
        w.finish(Some(2), Timestamp::now()).unwrap();
        assert!(Store::open(&db).unwrap().verify(id).unwrap().is_ok());
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute(edit, [])
            .unwrap();
        let report = Store::open(&db).unwrap().verify(id).unwrap();
        let broken = report
            .broken
            .clone()
            .unwrap_or_else(|| panic!("{edit}: not detected"));
        assert_eq!(
            (broken.seq, broken.reason),
            (0, BreakReason::SessionAltered),
            "{edit}"
        );
        assert!(
            report
                .to_string()
                .starts_with(&format!("session {id}: broken: the session record")),
            "{report}"
        );
    }
}

#[test]
fn a_database_without_the_seal_hash_column_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    write_session(&db, "20261129-131600-000a", &["/a"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("ALTER TABLE sessions DROP COLUMN seal_hash")
        .unwrap();
    drop(conn);
    // Old sessions verify without it; new ones get it.
    assert!(Store::open(&db)
        .unwrap()
        .verify("20261129-131600-000a")
        .unwrap()
        .is_ok());
    write_session(&db, "20261129-131600-000b", &["/b"]);
    let store = Store::open(&db).unwrap();
    assert!(store
        .session("20261129-131600-000b")
        .unwrap()
        .unwrap()
        .seal
        .unwrap()
        .seal_hash
        .is_some());
    assert!(store.verify("20261129-131600-000b").unwrap().is_ok());
}

#[test]
fn garbage_in_a_line_is_reported_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let id = "20261129-140000-0002";
    write_session(&db, id, &["/a", "/b", "/c"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE events SET line = '{not json' WHERE seq = 2", [])
        .unwrap();
    let store = Store::open(&db).unwrap();
    let broken = store.verify(id).unwrap().broken.unwrap();
    assert_eq!(broken.seq, 2);
    assert!(matches!(broken.reason, BreakReason::BadJson(_)), "{broken}");
    let err = store.events(id).unwrap_err();
    assert!(err.to_string().contains("event 2"), "{err}");
}

#[test]
fn an_unfinished_session_is_stored_but_unsealed() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let id = "20261129-150000-0003";
    {
        let w = Writer::start(&db, meta(id), None).unwrap();
        w.sink().record(event("/a"));
        w.sink().record(event("/b"));
        // dropped without finish, as when ward is stopped mid-session
    }
    let store = Store::open(&db).unwrap();
    let rec = store.session(id).unwrap().unwrap();
    assert_eq!((rec.event_count, rec.end, rec.seal), (2, None, None));
    let report = store.verify(id).unwrap();
    assert!(report.is_ok() && !report.sealed, "{report}");
    assert!(report.to_string().contains("not sealed"), "{report}");
}

#[test]
fn a_database_held_locked_for_a_while_is_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    Store::open(&db).unwrap();
    let w = Writer::start(&db, meta("20261129-160000-0004"), None).unwrap();
    let locker = rusqlite::Connection::open(&db).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let sink = w.sink();
    for p in numbered(500) {
        sink.record(event(p));
    }
    std::thread::sleep(Duration::from_millis(400));
    locker.execute_batch("COMMIT").unwrap();
    let summary = w.finish(Some(0), Timestamp::now()).unwrap();
    assert!(summary.busy_retries > 0, "{summary:?}");
    assert!(summary.is_complete(), "{summary:?}");
    assert_eq!(summary.stored, 500);
    assert!(Store::open(&db)
        .unwrap()
        .verify("20261129-160000-0004")
        .unwrap()
        .is_ok());
}

#[test]
fn a_database_locked_for_too_long_spills_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let id = "20261129-170000-0005";
    let opts = WriterOptions {
        busy_timeout: Duration::from_millis(200),
        batch_size: 50,
        ..WriterOptions::default()
    };
    let w = Writer::start_with(&db, meta(id), None, opts).unwrap();
    let sink = w.sink();
    for p in numbered(100) {
        sink.record(event(p));
    }
    // Let the first batches in, then lock the database for good.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while Store::open(&db)
        .unwrap()
        .session(id)
        .unwrap()
        .unwrap()
        .event_count
        < 100
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the first events were never stored"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let locker = rusqlite::Connection::open(&db).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    for p in numbered(100) {
        sink.record(event(p));
    }
    let summary = w.finish(Some(0), Timestamp::now()).unwrap();
    locker.execute_batch("COMMIT").unwrap();
    assert_eq!(summary.stored, 100, "{summary:?}");
    assert_eq!(summary.spilled, 100, "{summary:?}");
    assert_eq!(summary.lost, 0);
    assert!(!summary.sealed, "the seal could not be written either");
    let spill = summary.spill_path.clone().unwrap();
    assert_eq!(
        spill,
        dir.path()
            .join("state/ward/spill/ward-spill-20261129-170000-0005.jsonl")
    );
    let text = summary.problem().unwrap();
    assert!(
        text.contains("100 of 200 events could not be stored"),
        "{text}"
    );
    assert!(text.contains(&spill.display().to_string()), "{text}");
    assert!(text.contains("locked"), "{text}");
    let spilled = std::fs::read_to_string(&spill).unwrap();
    assert_eq!(spilled.lines().count(), 100);
    assert!(spilled.lines().next().unwrap().contains("\"seq\":101"));
    // What was committed is intact.
    let store = Store::open(&db).unwrap();
    assert_eq!(store.events(id).unwrap().len(), 100);
    assert!(store.verify(id).unwrap().is_ok());
}

#[test]
fn a_full_database_spills_and_verify_follows_the_spill_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let id = "20261129-180000-0006";
    Store::open(&db).unwrap();
    let pages: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    let opts = WriterOptions {
        // Room for the session row and a few dozen events, not for 2000.
        max_db_pages: Some(pages as u64 + 8),
        batch_size: 20,
        spill_dir: Some(dir.path().join("spill-here")),
        ..WriterOptions::default()
    };
    let w = Writer::start_with(&db, meta(id), None, opts).unwrap();
    let sink = w.sink();
    for p in numbered(2000) {
        sink.record(event(p));
    }
    let summary = w.finish(Some(1), Timestamp::now()).unwrap();
    assert!(summary.stored > 0 && summary.stored < 2000, "{summary:?}");
    assert_eq!(summary.stored + summary.spilled, 2000, "{summary:?}");
    assert_eq!(summary.lost, 0);
    assert!(summary.errors[0].contains("full"), "{summary:?}");
    assert_eq!(
        summary.spill_path.as_deref(),
        Some(
            dir.path()
                .join("spill-here/ward-spill-20261129-180000-0006.jsonl")
                .as_path()
        )
    );
    assert!(summary.problem().unwrap().contains("disk is full"));
    // The cap leaves room for the seal: a session row update needs no new page.
    assert!(summary.sealed, "{summary:?}");

    let store = Store::open(&db).unwrap();
    let events = store.events(id).unwrap();
    // Spilled events are read back from the spill file the seal names.
    assert_eq!(events.len(), 2000);
    assert!(events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64 + 1));
    let mut exported = Vec::new();
    ward_audit::export::write_jsonl(&store, id, &mut exported).unwrap();
    assert_eq!(exported.iter().filter(|b| **b == b'\n').count(), 2000);
    let report = store.verify(id).unwrap();
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.checked, 2000);
    assert_eq!(report.checked_in_spill, summary.spilled);
    // A spilled event altered: named by its seq.
    let spill = summary.spill_path.unwrap();
    let text = std::fs::read_to_string(&spill).unwrap();
    let first_spilled = summary.stored + 1;
    let target = format!("file-{:05}", first_spilled + 2);
    std::fs::write(&spill, text.replacen(&target, "file-XXXXX", 1)).unwrap();
    let broken = store.verify(id).unwrap().broken.unwrap();
    assert_eq!(
        (broken.seq, broken.reason),
        (first_spilled + 2, BreakReason::HashMismatch)
    );
    // A spill file that is gone: verify says so; the stored events are still readable.
    std::fs::remove_file(&spill).unwrap();
    let broken = store.verify(id).unwrap().broken.unwrap();
    assert_eq!(broken.seq, first_spilled);
    assert!(
        matches!(broken.reason, BreakReason::NotStored(_)),
        "{broken}"
    );
    assert_eq!(store.events(id).unwrap().len() as u64, summary.stored);
}

#[test]
fn when_the_spill_directory_fails_too_events_go_to_the_temp_dir() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let id = new_session_id(Timestamp::now());
    Store::open(&db).unwrap();
    let pages: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    let not_a_dir = dir.path().join("file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let opts = WriterOptions {
        max_db_pages: Some(pages as u64 + 2),
        spill_dir: Some(not_a_dir.join("spill")),
        ..WriterOptions::default()
    };
    let w = Writer::start_with(&db, meta(&id), None, opts).unwrap();
    for p in numbered(300) {
        w.sink().record(event(p));
    }
    let summary = w.finish(Some(0), Timestamp::now()).unwrap();
    let spill = summary.spill_path.clone().expect("spilled somewhere");
    let _cleanup = scopeguard(spill.clone());
    assert_eq!(
        spill,
        std::env::temp_dir().join(format!("ward-spill-{id}.jsonl"))
    );
    assert_eq!(summary.stored + summary.spilled, 300, "{summary:?}");
    assert!(
        summary
            .errors
            .iter()
            .any(|e| e.contains(&not_a_dir.display().to_string())),
        "{summary:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&spill).unwrap().lines().count() as u64,
        summary.spilled
    );
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn scopeguard(p: PathBuf) -> RemoveOnDrop {
    RemoveOnDrop(p)
}

/// A real full disk: a 1 MiB tmpfs holds the database, in a private mount namespace. Runs
/// `tmpfs_child` (below) in a child process; needs root and `unshare`, and says so when skipped.
#[test]
fn a_real_full_disk_is_reported_and_spilled() {
    let is_root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let has_unshare = std::process::Command::new("unshare")
        .arg("--help")
        .output()
        .is_ok();
    if !is_root || !has_unshare {
        eprintln!("skipped: a tmpfs full disk needs root and unshare(1); the max_page_count test covers the logic");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("tiny");
    std::fs::create_dir(&mnt).unwrap();
    let out = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(r#"mount -t tmpfs -o size=1m tmpfs "$1" && exec "$2" --exact tmpfs_child --ignored --nocapture --test-threads=1"#)
        .arg("sh")
        .arg(&mnt)
        .arg(std::env::current_exe().unwrap())
        .env("WARD_AUDIT_TMPFS", &mnt)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("mount:") || stderr.contains("unshare:") {
        eprintln!("skipped: cannot mount a tmpfs here: {stderr}");
        return;
    }
    assert!(
        out.status.success() && stdout.contains("TMPFS-CHILD-OK"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
#[ignore = "run by a_real_full_disk_is_reported_and_spilled inside a tmpfs"]
fn tmpfs_child() {
    let Some(mnt) = std::env::var_os("WARD_AUDIT_TMPFS") else {
        return;
    };
    let db = Path::new(&mnt).join("audit.db");
    let id = new_session_id(Timestamp::now());
    let w = Writer::start_with(
        &db,
        meta(&id),
        None,
        WriterOptions {
            batch_size: 100,
            ..Default::default()
        },
    )
    .unwrap();
    for p in numbered(10000) {
        w.sink().record(event(p));
    }
    let summary = w.finish(Some(0), Timestamp::now()).unwrap();
    println!("{summary:?}");
    let spill = summary.spill_path.clone().expect("spilled");
    let _cleanup = RemoveOnDrop(spill.clone());
    assert!(summary.stored > 0 && summary.stored < 10000, "{summary:?}");
    assert_eq!(summary.stored + summary.spilled, 10000, "{summary:?}");
    assert_eq!(summary.lost, 0);
    // The spill directory next to the database is on the full disk too.
    assert!(spill.starts_with(std::env::temp_dir()), "{summary:?}");
    let problem = summary.problem().unwrap();
    assert!(problem.contains("full"), "{problem}");
    assert!(problem.contains(&spill.display().to_string()), "{problem}");
    // What was committed is intact and readable.
    let store = Store::open(&db).unwrap();
    let expected = if summary.sealed {
        10000
    } else {
        summary.stored
    };
    assert_eq!(store.events(&id).unwrap().len() as u64, expected);
    let report = store.verify(&id).unwrap();
    assert!(report.is_ok(), "{report}");
    println!("TMPFS-CHILD-OK");
}

#[test]
fn two_sessions_can_write_the_same_database_at_once() {
    // Four, in fact, released together onto a database that does not exist yet: each one's
    // setup (WAL switch, schema) meets the others' locks.
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let ids = ["20261129-190000-000a", "20261129-190000-000b", "20261129-190000-000c", "20261129-190000-000d"];
    let start = std::sync::Arc::new(std::sync::Barrier::new(ids.len()));
    let threads: Vec<_> = ids
        .iter()
        .map(|id| {
            let db = db.clone();
            let id = id.to_string();
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                let w = Writer::start_with(
                    &db,
                    meta(&id),
                    None,
                    WriterOptions {
                        batch_size: 64,
                        ..Default::default()
                    },
                )
                .unwrap();
                let sink = w.sink();
                for p in numbered(5000) {
                    sink.record(event(p));
                }
                w.finish(Some(0), Timestamp::now()).unwrap()
            })
        })
        .collect();
    for t in threads {
        let s = t.join().unwrap();
        assert!(s.is_complete(), "{s:?}");
        assert_eq!(s.stored, 5000);
    }
    let store = Store::open(&db).unwrap();
    for id in ids {
        let r = store.verify(id).unwrap();
        assert!(r.is_ok() && r.checked == 5000, "{r}");
    }
}

/// Two `ward exec` at once are two processes: run `process_writer_child` twice, concurrently.
#[test]
fn two_processes_can_write_the_same_database_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    Store::open(&db).unwrap();
    let ids = ["20261129-191500-00pa", "20261129-191500-00pb"];
    let children: Vec<_> = ids
        .iter()
        .map(|id| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "process_writer_child",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("WARD_AUDIT_CHILD_DB", &db)
                .env("WARD_AUDIT_CHILD_ID", id)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        eprintln!(
            "{}",
            stdout
                .lines()
                .find(|l| l.contains("busy retries"))
                .unwrap_or("")
        );
        assert!(
            out.status.success() && stdout.contains("CHILD-WRITER-OK"),
            "stdout:\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let store = Store::open(&db).unwrap();
    for id in ids {
        let r = store.verify(id).unwrap();
        assert!(r.is_ok() && r.sealed && r.checked == 10000, "{r}");
    }
}

#[test]
#[ignore = "run by two_processes_can_write_the_same_database_at_once"]
fn process_writer_child() {
    let (Some(db), Some(id)) = (
        std::env::var_os("WARD_AUDIT_CHILD_DB"),
        std::env::var("WARD_AUDIT_CHILD_ID").ok(),
    ) else {
        return;
    };
    let opts = WriterOptions {
        batch_size: 50,
        ..Default::default()
    };
    let w = Writer::start_with(Path::new(&db), meta(&id), None, opts).unwrap();
    let sink = w.sink();
    for p in numbered(10000) {
        sink.record(event(p));
    }
    let summary = w.finish(Some(0), Timestamp::now()).unwrap();
    assert!(summary.is_complete(), "{summary:?}");
    println!("busy retries: {}", summary.busy_retries);
    println!("CHILD-WRITER-OK");
}

#[test]
fn a_tiny_queue_slows_senders_down_but_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let id = "20261129-200000-0007";
    let opts = WriterOptions {
        channel_capacity: 4,
        ..Default::default()
    };
    let w = Writer::start_with(&db, meta(id), None, opts).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let sink = w.sink();
            std::thread::spawn(move || {
                for i in 0..2000 {
                    sink.record(event(format!("/t{t}/{i}")));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let summary = w.finish(None, Timestamp::now()).unwrap();
    assert_eq!((summary.events, summary.stored), (8000, 8000));
    assert!(summary.backpressure_waits > 0, "{summary:?}");
    let store = Store::open(&db).unwrap();
    let events = store.events(id).unwrap();
    assert!(events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64 + 1));
    // Each thread's events keep their order.
    let t0: Vec<String> = events
        .iter()
        .filter_map(|e| e.op.path.as_ref().map(|p| p.to_string_lossy()))
        .filter(|p| p.starts_with("/t0/"))
        .collect();
    assert_eq!(
        t0,
        (0..2000).map(|i| format!("/t0/{i}")).collect::<Vec<_>>()
    );
    assert!(store.verify(id).unwrap().is_ok());
}

#[test]
fn bad_database_files_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![0x42u8; 8192]).unwrap();
    let err = Store::open(&garbage).unwrap_err();
    assert!(err.to_string().contains("garbage.db"), "{err}");
    let err = Writer::start(&garbage, meta("x"), None).unwrap_err();
    assert!(err.to_string().contains("garbage.db"), "{err}");

    let as_dir = dir.path().join("adir");
    std::fs::create_dir(&as_dir).unwrap();
    assert!(Store::open(&as_dir).is_err());

    let db = db_in(&dir);
    write_session(&db, "20261129-210000-0008", &[]);
    let err = Writer::start(&db, meta("20261129-210000-0008"), None).unwrap_err();
    assert!(
        matches!(err, ward_audit::AuditError::SessionExists(_)),
        "{err}"
    );
}

fn cpu_seconds() -> f64 {
    // utime + stime of the whole process, in clock ticks (100 Hz on Linux).
    stat_cpu(&std::fs::read_to_string("/proc/self/stat").unwrap())
}

fn stat_cpu(stat: &str) -> f64 {
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    (fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap()) / 100.0
}

/// Throughput of the writer: two threads record events as fast as they can build them (as the
/// supervisor's workers would), with `--events` going to a file too.
/// `cargo test --release -p ward-audit --test store -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_writer_throughput() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let n = 500_000u64;
    let jsonl = std::fs::File::create(dir.path().join("events.jsonl")).unwrap();
    let id = new_session_id(Timestamp::now());
    let (start, cpu) = (std::time::Instant::now(), cpu_seconds());
    let jsonl: Option<Box<dyn Write + Send>> = if std::env::var_os("BENCH_NO_JSONL").is_some() {
        None
    } else {
        Some(Box::new(jsonl))
    };
    let w = Writer::start(&db, meta(&id), jsonl).unwrap();
    let threads: Vec<_> = (0..2u64)
        .map(|t| {
            let sink = w.sink();
            std::thread::spawn(move || {
                for i in 0..n / 2 {
                    sink.record(event(format!(
                        "/usr/share/doc/package-{t}{i}/changelog.Debian.gz"
                    )));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // The writer thread's own CPU time (at most one queue's worth of events is still to go).
    let writer_cpu = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| t.ok())
        .find(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "ward-audit")
        })
        .map(|t| stat_cpu(&std::fs::read_to_string(t.path().join("stat")).unwrap()))
        .unwrap_or(0.0);
    let summary = w.finish(Some(0), Timestamp::now()).unwrap();
    let (secs, cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    assert_eq!(summary.stored, n);
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("")
        .to_string();
    let size = std::fs::metadata(&db).unwrap().len();
    println!(
        "writer: {n} events in {secs:.2}s = {:.0} events/s; CPU per event: {:.1} µs in the writer thread, {:.1} µs in all threads; backpressure waits {}; db {:.0} B/event; {hwm}",
        n as f64 / secs,
        writer_cpu * 1e6 / n as f64,
        cpu * 1e6 / n as f64,
        summary.backpressure_waits,
        size as f64 / n as f64
    );
    let start = std::time::Instant::now();
    let report = Store::open(&db).unwrap().verify(&id).unwrap();
    assert!(report.is_ok());
    println!(
        "verify: {:.0} events/s",
        n as f64 / start.elapsed().as_secs_f64()
    );
}
