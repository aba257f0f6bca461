//! ward's audit trail: a tamper-evident record of every operation of every session.
//!
//! # How the pieces fit
//!
//! - [`Writer`] is the write side of one session. The supervisor's worker threads hand finished
//!   events to its [`EventSink`](ward_event::EventSink) ([`Writer::sink`]); a bounded channel
//!   carries them to one dedicated writer thread, which numbers them (`seq` 1, 2, … in arrival
//!   order, no gaps), chains them ([`chain`]), stores them in SQLite in batched transactions and,
//!   when asked, copies each line to a JSON Lines stream (`ward exec --events`).
//!   [`Writer::finish`] flushes, writes the session's *seal* and returns a [`WriteSummary`].
//! - [`Store`] is the read side: list sessions, read a session's events, [`Store::verify`] the
//!   chain, and [`export`] them as JSON Lines or CSV.
//!
//! # The store
//!
//! One SQLite database, by default `$XDG_STATE_HOME/ward/audit.db`, in WAL mode with
//! `synchronous=NORMAL` (a commit costs no fsync; a power cut may lose the last moments of a
//! session but never corrupts earlier ones). Several sessions may write to it at once: each
//! batch is one `BEGIN IMMEDIATE` transaction, and a writer that finds the database locked
//! retries with backoff. Two tables:
//!
//! - `sessions`: one row per session, its [`SessionMeta`], and once finished the end time, exit
//!   code and seal (`event_count`, `stored_count`, `final_hash`, `spill_path`, `lost_count`,
//!   `seal_hash`).
//! - `events`: one row per event, keyed by `(session, seq)`. The column `line` holds the event's
//!   JSON line exactly as `ward exec --events` writes it (the format is documented in
//!   `ward-event`); it is the canonical record. `kind`, `path`, `pid` and `ok` are copies for
//!   queries, and `verify` checks that they agree with the line.
//!
//! # The chain and the seal
//!
//! Each event's `hash` is SHA-256 over the previous event's hash and the event's own line
//! without the `hash` field; event 1 chains to a genesis value derived from the session id
//! (details and the exact byte rule in [`chain`]). Changing, inserting, reordering or removing
//! an event breaks the chain at that event. Removing the *last* events leaves a shorter but
//! valid chain, so when a session finishes ward writes a seal: the number of events, the
//! final hash, and a seal hash over the final hash and the session record (command, times,
//! exit code, counts), so that editing what the session row says is detected too.
//! [`Store::verify`] recomputes the chain, compares it with the seal, and names the first
//! event that does not match ([`VerifyReport`]).
//!
//! What the chain does not do: someone who can write the database and recompute SHA-256 can
//! rewrite a whole session and its seal consistently, or delete a session outright (there is
//! no chain across sessions). Keep a copy of the final hash ([`WriteSummary::final_hash`],
//! `ward sessions --format json`) somewhere else to detect that too.
//!
//! # When storing fails
//!
//! Nothing is dropped silently. A locked database is retried with exponential backoff for up to
//! [`WriterOptions::busy_timeout`]; meanwhile the channel fills and the supervised program is
//! slowed down (backpressure), not the trail. A full disk (`SQLITE_FULL`, `ENOSPC`, or the
//! optional size cap [`WriterOptions::max_db_pages`]) or any error that persists switches the
//! session to *spilling*: that batch and every later event of the session are written, still
//! numbered and chained, as JSON Lines to `<db dir>/spill/ward-spill-<session>.jsonl`, or to
//! `$TMPDIR/ward-spill-<session>.jsonl` if that fails too. Events already committed stay where
//! they are. The [`WriteSummary`] says how many events were stored, spilled (and where) or lost,
//! and the seal records it, so `verify` continues the chain through the spill file and
//! [`Store::events`] and the exports read the spilled events back (while the file is there).
//!
//! # Cost
//!
//! `record` moves a boxed event into the queue: no serialisation, no I/O, no lock beyond the
//! channel's. The writer thread spends about 6 µs of CPU per event (serialise, hash, insert;
//! measured by the ignored `bench_writer_throughput` test on a busy 2-vCPU machine), so one
//! core keeps up with well over 100 000 events/s. Memory is bounded by the queue
//! ([`WriterOptions::channel_capacity`]) and one batch: a few MB.

pub mod chain;
mod db;
pub mod export;
mod store;
mod writer;

pub use store::{BreakReason, Broken, Seal, Store, VerifyReport};
pub use writer::{WriteSummary, Writer, WriterOptions};

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::PathBuf;
use ward_event::{PathBytes, Timestamp};

/// Everything that can go wrong in the audit store.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The directory of the database could not be created.
    #[error("cannot create the audit directory {}: {cause}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// The database could not be opened (unreadable, not a database, corrupt).
    #[error("cannot open the audit database {}: {cause}", path.display())]
    Open {
        /// The database file.
        path: PathBuf,
        /// Why.
        cause: rusqlite::Error,
    },
    /// The database was created by a newer ward.
    #[error("the audit database has schema version {found}; this ward understands up to {known}: upgrade ward")]
    NewerSchema {
        /// Version found.
        found: String,
        /// Newest version this code knows.
        known: u32,
    },
    /// No session has this id or id prefix.
    #[error("no session {0:?} in the audit database (`ward sessions` lists them)")]
    NoSuchSession(String),
    /// Several sessions start with this prefix.
    #[error("session {prefix:?} is ambiguous: it matches {}", candidates.join(", "))]
    AmbiguousSession {
        /// What was asked for.
        prefix: String,
        /// The sessions it matches.
        candidates: Vec<String>,
    },
    /// `Writer::start` with an id that is already in the database.
    #[error("session {0} already exists in the audit database")]
    SessionExists(String),
    /// A stored event could not be read back.
    #[error("event {seq} of session {session} is unreadable: {reason} (`ward audit verify` checks the whole session)")]
    BadEvent {
        /// Session id.
        session: String,
        /// Sequence number.
        seq: u64,
        /// Why.
        reason: String,
    },
    /// The writer thread died.
    #[error("the audit writer thread failed: {0}")]
    WriterThread(String),
    /// Any other SQLite error.
    #[error("audit database error: {0}")]
    Sqlite(rusqlite::Error),
    /// An I/O error outside SQLite (spill files, exports).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

// Not `#[from]`: the message already holds the cause, and a source would print it twice in
// error chains (`ward: …: file is not a database: file is not a database`).
impl From<rusqlite::Error> for AuditError {
    fn from(e: rusqlite::Error) -> Self {
        AuditError::Sqlite(e)
    }
}

/// A new session id, `YYYYMMDD-HHMMSS-xxxx`: the UTC start time and 4 random hex digits, so ids
/// sort by start time.
pub fn new_session_id(now: Timestamp) -> String {
    // "2026-11-29T15:20:00.123456789Z"
    let t = now.to_rfc3339();
    let digits: String = t.chars().take(19).filter(char::is_ascii_digit).collect();
    let (date, time) = digits.split_at(digits.len().min(8));
    let mut h = RandomState::new().build_hasher();
    h.write_u64(now.0);
    h.write_u32(std::process::id());
    format!("{date}-{time}-{:04x}", h.finish() & 0xffff)
}

/// What is known about a session when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMeta {
    /// Session id, see [`new_session_id`].
    pub id: String,
    /// When it started.
    pub start: Timestamp,
    /// The supervised command and its arguments.
    pub argv: Vec<PathBytes>,
    /// The directory it ran in.
    pub cwd: PathBytes,
    /// `audit` or `enforce`.
    pub mode: String,
    /// The active profile.
    pub profile: Option<String>,
    /// The sandbox mode, if any.
    pub sandbox: Option<String>,
    /// The user who ran ward.
    pub uid: u32,
    /// This machine's host name.
    pub hostname: String,
    /// The version of ward that recorded it.
    pub ward_version: String,
}

impl SessionMeta {
    /// Metadata for a session run by this process: mode `audit`, no profile or sandbox, the
    /// current uid and host name and this crate's version (ward's workspace version). Override
    /// fields as needed.
    pub fn new(id: String, start: Timestamp, argv: Vec<PathBytes>, cwd: PathBytes) -> Self {
        use std::os::unix::fs::MetadataExt;
        let uid = std::fs::metadata("/proc/self")
            .map(|m| m.uid())
            .unwrap_or(u32::MAX);
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default();
        SessionMeta {
            id,
            start,
            argv,
            cwd,
            mode: "audit".into(),
            profile: None,
            sandbox: None,
            uid,
            hostname,
            ward_version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// The command as one line for people: arguments joined by spaces, an argument quoted when
    /// it is empty or holds whitespace or quotes, invalid UTF-8 shown as U+FFFD.
    pub fn command_line(&self) -> String {
        let mut out = String::new();
        for (i, arg) in self.argv.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let a = arg.to_string_lossy();
            if a.is_empty()
                || a.chars()
                    .any(|c| c.is_whitespace() || c == '\'' || c == '"')
            {
                out.push('\'');
                out.push_str(&a.replace('\'', "'\\''"));
                out.push('\'');
            } else {
                out.push_str(&a);
            }
        }
        out
    }
}

/// A session as stored: its metadata and, once finished, how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// What was known at the start.
    pub meta: SessionMeta,
    /// When it ended; `None` while running, or if ward stopped before finishing it.
    pub end: Option<Timestamp>,
    /// The supervised command's exit code (128+N for a signal).
    pub exit_code: Option<i32>,
    /// Events of the session: the sealed count once finished, otherwise the events stored so far.
    pub event_count: u64,
    /// The seal, once the session finished.
    pub seal: Option<Seal>,
}

/// The session record as the seal hash covers it: a JSON array of the metadata, end time,
/// exit code and the seal's counts and spill path, in this order.
pub(crate) fn seal_record(
    meta: &SessionMeta,
    end: Timestamp,
    exit_code: Option<i32>,
    counts: (u64, u64, u64),
    spill_path: Option<&[u8]>,
) -> String {
    let (events, stored, lost) = counts;
    serde_json::to_string(&(
        (&meta.id, meta.start.0, &meta.argv, &meta.cwd, &meta.mode),
        (
            &meta.profile,
            &meta.sandbox,
            meta.uid,
            &meta.hostname,
            &meta.ward_version,
        ),
        (
            end.0,
            exit_code,
            events,
            stored,
            lost,
            spill_path.map(PathBytes::from),
        ),
    ))
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_have_the_documented_shape_and_sort_by_time() {
        let a = new_session_id(Timestamp(1_764_429_600_123_456_789));
        assert!(a.starts_with("20251129-152000-"), "{a}");
        assert_eq!(a.len(), 20);
        assert!(a[16..].bytes().all(|b| b.is_ascii_hexdigit()), "{a}");
        let b = new_session_id(Timestamp(1_764_429_601_000_000_000));
        assert!(a[..15] < b[..15]);
        let many: std::collections::HashSet<_> = (0..50)
            .map(|_| new_session_id(Timestamp(1_764_429_600_000_000_000)))
            .collect();
        assert!(many.len() > 40, "suffixes should be random");
    }

    #[test]
    fn command_line_quotes_what_needs_it() {
        let mut m = SessionMeta::new("x".into(), Timestamp(0), vec![], PathBytes::from("/"));
        m.argv = vec!["sh".into(), "-c".into(), "echo 'hi'".into(), "".into()];
        assert_eq!(m.command_line(), r#"sh -c 'echo '\''hi'\''' ''"#);
        assert!(!m.hostname.is_empty());
    }
}
