//! The SQLite schema and how connections are opened.

use crate::AuditError;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::path::Path;
use std::time::Duration;

/// Version of the schema below, kept in `ward_meta`.
pub const SCHEMA_VERSION: u32 = 1;

/// The schema. `events.line` is the canonical record (the event's JSON line, hash included);
/// the other event columns are copies kept for queries and are checked against the line by
/// `verify`. The `sessions` seal columns are written once, when the session finishes.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ward_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
    id           TEXT PRIMARY KEY,
    start_ns     INTEGER NOT NULL,
    argv         TEXT NOT NULL,     -- JSON array, each argument as in the event format
    cwd          TEXT NOT NULL,     -- JSON, as a path in the event format
    mode         TEXT NOT NULL,
    profile      TEXT,
    sandbox      TEXT,
    uid          INTEGER NOT NULL,
    hostname     TEXT NOT NULL,
    ward_version TEXT NOT NULL,
    end_ns       INTEGER,
    exit_code    INTEGER,
    -- the seal, written by finish:
    event_count  INTEGER,           -- events the session produced (seq of the last)
    stored_count INTEGER,           -- of those, stored in this table (events 1..=stored_count)
    final_hash   TEXT,              -- hash of event event_count
    spill_path   BLOB,              -- where events stored_count+1.. went instead
    lost_count   INTEGER,           -- events neither stored nor spilled
    seal_hash    TEXT               -- SHA-256 over final_hash and this row (chain::seal_hash)
);
CREATE TABLE IF NOT EXISTS events (
    session TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    path,                           -- TEXT when UTF-8, else BLOB; NULL when the event has none
    pid     INTEGER NOT NULL,
    ok      INTEGER NOT NULL,
    line    TEXT NOT NULL           -- the event's JSON line, the canonical form
);
CREATE UNIQUE INDEX IF NOT EXISTS events_by_session ON events (session, seq);
";

/// Opens (creating if needed) the database at `path` with ward's settings and schema.
pub fn open(path: &Path, busy: Duration) -> Result<Connection, AuditError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|cause| AuditError::CreateDir {
            path: dir.to_path_buf(),
            cause,
        })?;
    }
    // Setting up a new database (page size, switch to WAL, schema) takes locks for which
    // SQLite does not always call the busy handler: a second session opening the same fresh
    // database at that moment gets SQLITE_BUSY at once. Such failures are retried, with
    // backoff, for as long as the busy timeout allows.
    let started = std::time::Instant::now();
    let mut backoff = Duration::from_millis(1);
    loop {
        match open_once(path, busy) {
            Err(AuditError::Open { cause, .. }) if is_busy(&cause) && started.elapsed() < busy => {
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_millis(50));
            }
            res => return res,
        }
    }
}

fn open_once(path: &Path, busy: Duration) -> Result<Connection, AuditError> {
    let open_err = |cause: rusqlite::Error| AuditError::Open {
        path: path.to_path_buf(),
        cause,
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(open_err)?;
    conn.busy_timeout(busy).map_err(open_err)?;
    // Only takes effect while the file is still empty (a new database): bigger pages mean
    // fewer WAL frames, hence fewer write calls, per event.
    // (Measured: 16 KiB pages cost ~10% less writer CPU per event than 4 KiB and make the
    // file ~9% smaller.)
    conn.execute_batch("PRAGMA page_size=16384")
        .map_err(open_err)?;
    // journal_mode is persistent in the file; setting it again is a cheap no-op.
    let mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(open_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(AuditError::Open {
            path: path.to_path_buf(),
            cause: rusqlite::Error::InvalidParameterName(format!(
                "cannot switch to WAL journal mode (got {mode})"
            )),
        });
    }
    // secure_delete=FAST zeroes the space that b-tree balancing frees (at no extra I/O), so
    // the file holds no stale copies of records: any altered record byte is a live one.
    conn.execute_batch(
        "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF; PRAGMA secure_delete=FAST;",
    )
    .map_err(open_err)?;
    ensure_schema(&conn).map_err(|e| match e {
        AuditError::Sqlite(cause) => open_err(cause),
        other => other,
    })?;
    Ok(conn)
}

fn ensure_schema(conn: &Connection) -> Result<(), AuditError> {
    let existing: Option<String> = conn
        .query_row(
            "SELECT value FROM ward_meta WHERE key = 'schema'",
            [],
            |r| r.get(0),
        )
        .ok();
    if existing.is_none() {
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {SCHEMA}
             INSERT OR IGNORE INTO ward_meta (key, value) VALUES ('schema', '{SCHEMA_VERSION}');
             COMMIT;"
        ))
        .inspect_err(|_| {
            let _ = conn.execute_batch("ROLLBACK");
        })?;
    }
    // Databases made before the seal hash existed (same schema version otherwise).
    let has_seal_hash = conn
        .prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'seal_hash'")?
        .exists([])?;
    if !has_seal_hash {
        match conn.execute_batch("ALTER TABLE sessions ADD COLUMN seal_hash TEXT") {
            // Another process added it meanwhile.
            Err(e) if e.to_string().contains("duplicate column") => {}
            res => res?,
        }
    }
    let version: String = conn.query_row(
        "SELECT value FROM ward_meta WHERE key = 'schema'",
        [],
        |r| r.get(0),
    )?;
    let found: u32 = version.parse().unwrap_or(u32::MAX);
    if found > SCHEMA_VERSION {
        return Err(AuditError::NewerSchema {
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    Ok(())
}

/// Whether the error means another connection holds the lock (worth retrying).
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Whether the error means the disk (or the database's size cap) is full.
pub fn is_full(e: &rusqlite::Error) -> bool {
    if e.sqlite_error_code() == Some(ErrorCode::DiskFull) {
        return true;
    }
    // SQLITE_IOERR_WRITE and friends carry the OS error only in the message.
    e.to_string().contains("No space left on device")
}
