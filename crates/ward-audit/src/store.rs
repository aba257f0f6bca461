//! The read side: sessions, events, and verification of the chain.

use crate::chain::{self, Hash};
use crate::{db, AuditError, SessionMeta, SessionRecord};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Row};
use std::fmt;
use std::io::BufRead;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::Duration;
use ward_event::{Event, PathBytes, Timestamp};

/// The seal written when a session finishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    /// Events the session produced.
    pub event_count: u64,
    /// Of those, stored in the database (events `1..=stored_count`).
    pub stored_count: u64,
    /// Hash of the last event (of the genesis value for a session without events).
    pub final_hash: String,
    /// Where events `stored_count+1..` were spilled.
    pub spill_path: Option<PathBuf>,
    /// Events that were neither stored nor spilled.
    pub lost_count: u64,
    /// SHA-256 over the final hash and the session record (see the crate docs); `None` in
    /// databases written before it existed.
    pub seal_hash: Option<String>,
}

/// The result of [`Store::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Session id.
    pub session: String,
    /// Events whose chain link was checked and found good (in the database and spill file).
    pub checked: u64,
    /// Of those, events read from the spill file.
    pub checked_in_spill: u64,
    /// Whether the session has a seal. An unsealed session is still running or ward was
    /// stopped before finishing it; its chain is checked, but removal of its last events
    /// cannot be detected.
    pub sealed: bool,
    /// The first problem, if any.
    pub broken: Option<Broken>,
}

impl VerifyReport {
    /// Whether no problem was found.
    pub fn is_ok(&self) -> bool {
        self.broken.is_none()
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.broken {
            Some(b) => write!(f, "session {}: {b}", self.session),
            None => {
                write!(f, "session {}: ok, {} events", self.session, self.checked)?;
                if self.checked_in_spill > 0 {
                    write!(f, " ({} of them in the spill file)", self.checked_in_spill)?;
                }
                if !self.sealed {
                    f.write_str(
                        " (not sealed: still running, or ward stopped before finishing it)",
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// The first broken event of a session and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// Sequence number of the first event that does not check out; 0 when the events check
    /// out but the session record does not ([`BreakReason::SessionAltered`]).
    pub seq: u64,
    /// Why.
    pub reason: BreakReason,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.seq == 0 {
            write!(f, "broken: {}", self.reason)
        } else {
            write!(f, "broken at event {}: {}", self.seq, self.reason)
        }
    }
}

/// Why an event does not check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakReason {
    /// The stored hash is not the hash of the previous event and this line: the event (or the
    /// one before it) was altered.
    HashMismatch,
    /// The line is not a readable event, or has no well-formed `hash` field.
    BadJson(String),
    /// The line names another session or sequence number than where it is stored.
    Misplaced,
    /// An indexed column disagrees with the event line.
    ColumnMismatch(&'static str),
    /// The event is missing: the next one stored is `next` (or none).
    Missing {
        /// The next stored sequence number.
        next: Option<u64>,
    },
    /// More events are stored than the seal says the session had.
    AfterSeal {
        /// Events in the seal.
        sealed: u64,
    },
    /// The chain is intact but does not end in the sealed final hash.
    SealMismatch,
    /// The event was not stored in the database and could not be checked elsewhere.
    NotStored(String),
    /// The events check out, but the session record (command, times, exit code, counts) is not
    /// what was sealed.
    SessionAltered,
}

impl fmt::Display for BreakReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakReason::HashMismatch => f.write_str("hash mismatch (the event was altered)"),
            BreakReason::BadJson(why) => write!(f, "unreadable event line: {why}"),
            BreakReason::Misplaced => f.write_str("the event line names another session or position"),
            BreakReason::ColumnMismatch(col) => {
                write!(f, "the stored {col} column disagrees with the event line (altered)")
            }
            BreakReason::Missing { next: Some(n) } => {
                write!(f, "missing (the next stored event is {n})")
            }
            BreakReason::Missing { next: None } => {
                f.write_str("missing (the seal counts more events than are stored)")
            }
            BreakReason::AfterSeal { sealed } => {
                write!(f, "stored after the seal, which counts {sealed} events")
            }
            BreakReason::SealMismatch => {
                f.write_str("the chain does not end in the sealed final hash (events were rewritten)")
            }
            BreakReason::NotStored(why) => write!(f, "not in the database: {why}"),
            BreakReason::SessionAltered => f.write_str(
                "the session record (command, times, exit code or counts) differs from what was sealed",
            ),
        }
    }
}

/// The read side of the audit database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

const SESSION_COLUMNS: &str =
    "id, start_ns, argv, cwd, mode, profile, sandbox, uid, hostname, ward_version,
    end_ns, exit_code, event_count, stored_count, final_hash, spill_path, lost_count,
    seal_hash, (SELECT max(seq) FROM events WHERE events.session = sessions.id)";

impl Store {
    /// Opens the database at `path`, creating its directory and schema if missing.
    pub fn open(path: &Path) -> Result<Store, AuditError> {
        let conn = db::open(path, Duration::from_secs(10))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// All sessions, oldest first.
    pub fn sessions(&self) -> Result<Vec<SessionRecord>, AuditError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {SESSION_COLUMNS} FROM sessions ORDER BY start_ns, id"
        ))?;
        let rows = stmt.query_map([], session_from_row)?;
        let mut out = Vec::new();
        for r in rows {
            out.push(r??);
        }
        Ok(out)
    }

    /// The session with this id, or the only one whose id starts with it.
    pub fn session(&self, id: &str) -> Result<Option<SessionRecord>, AuditError> {
        match self.resolve(id) {
            Ok(full) => self.session_exact(&full),
            Err(AuditError::NoSuchSession(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The session that started last.
    pub fn last_session(&self) -> Result<Option<SessionRecord>, AuditError> {
        let rec = self
            .conn
            .query_row(
                &format!("SELECT {SESSION_COLUMNS} FROM sessions ORDER BY start_ns DESC, id DESC LIMIT 1"),
                [],
                session_from_row,
            )
            .optional()?;
        rec.transpose()
    }

    fn session_exact(&self, id: &str) -> Result<Option<SessionRecord>, AuditError> {
        let rec = self
            .conn
            .query_row(
                &format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"),
                [id],
                session_from_row,
            )
            .optional()?;
        rec.transpose()
    }

    /// The full id of the session `id` names (itself, or a unique prefix).
    pub fn resolve(&self, id: &str) -> Result<String, AuditError> {
        let exact: Option<String> = self
            .conn
            .query_row("SELECT id FROM sessions WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        if let Some(full) = exact {
            return Ok(full);
        }
        if id.is_empty() {
            return Err(AuditError::NoSuchSession(id.into()));
        }
        let mut stmt = self.conn.prepare(
            "SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT 6",
        )?;
        let candidates: Vec<String> = stmt
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        match candidates.len() {
            0 => Err(AuditError::NoSuchSession(id.into())),
            1 => Ok(candidates.into_iter().next().unwrap_or_default()),
            _ => Err(AuditError::AmbiguousSession {
                prefix: id.into(),
                candidates,
            }),
        }
    }

    /// The session's events, in `seq` order (spilled ones included, see [`Store::for_each_line`]).
    pub fn events(&self, id: &str) -> Result<Vec<Event>, AuditError> {
        let mut out = Vec::new();
        self.for_each_event(id, |e| {
            out.push(e);
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `f` with each event of the session in `seq` order, without holding them all in
    /// memory. Stops at the first error, `f`'s or an unreadable event's.
    pub fn for_each_event(
        &self,
        id: &str,
        mut f: impl FnMut(Event) -> Result<(), AuditError>,
    ) -> Result<(), AuditError> {
        let full = self.resolve(id)?;
        self.for_each_line(&full, |seq, line| {
            let event = Event::from_json(line).map_err(|e| AuditError::BadEvent {
                session: full.clone(),
                seq,
                reason: e.to_string(),
            })?;
            f(event)
        })
    }

    /// Calls `f` with each stored line (the canonical JSON, hash included) in `seq` order,
    /// followed by the session's spilled events when its seal names a readable spill file.
    pub fn for_each_line(
        &self,
        id: &str,
        mut f: impl FnMut(u64, &str) -> Result<(), AuditError>,
    ) -> Result<(), AuditError> {
        let full = self.resolve(id)?;
        let mut stmt = self
            .conn
            .prepare("SELECT seq, line FROM events WHERE session = ?1 ORDER BY seq")?;
        let mut rows = stmt.query([&full])?;
        while let Some(row) = rows.next()? {
            let seq: i64 = row.get(0)?;
            let line = match row.get_ref(1)? {
                ValueRef::Text(t) | ValueRef::Blob(t) => {
                    std::str::from_utf8(t).map_err(|e| AuditError::BadEvent {
                        session: full.clone(),
                        seq: seq as u64,
                        reason: format!("not UTF-8: {e}"),
                    })?
                }
                _ => {
                    return Err(AuditError::BadEvent {
                        session: full.clone(),
                        seq: seq as u64,
                        reason: "no event line".into(),
                    })
                }
            };
            f(seq as u64, line)?;
        }
        drop(rows);
        // Events that could not be stored and were spilled (see the crate docs) follow.
        let Some(seal) = self.session_exact(&full)?.and_then(|r| r.seal) else {
            return Ok(());
        };
        let (Some(path), true) = (&seal.spill_path, seal.stored_count < seal.event_count) else {
            return Ok(());
        };
        // A spill file that is gone or unreadable leaves the stored events; `verify` and
        // `ward sessions` flag the session.
        let Ok(file) = std::fs::File::open(path) else {
            return Ok(());
        };
        let mut seq = seal.stored_count;
        for line in std::io::BufReader::new(file).lines() {
            seq += 1;
            if seq > seal.event_count {
                break;
            }
            let line = line.map_err(|e| AuditError::BadEvent {
                session: full.clone(),
                seq,
                reason: format!("in the spill file {}: {e}", path.display()),
            })?;
            f(seq, &line)?;
        }
        Ok(())
    }

    /// Recomputes the session's chain and compares it with the seal. Problems with the events
    /// are reported in the [`VerifyReport`]; an `Err` means the check could not run at all.
    pub fn verify(&self, id: &str) -> Result<VerifyReport, AuditError> {
        let full = self.resolve(id)?;
        let rec = self
            .session_exact(&full)?
            .ok_or_else(|| AuditError::NoSuchSession(id.into()))?;
        let mut report = VerifyReport {
            session: full.clone(),
            checked: 0,
            checked_in_spill: 0,
            sealed: rec.seal.is_some(),
            broken: None,
        };
        let mut chain = Chain::new(&full);

        let mut stmt = self.conn.prepare(
            "SELECT seq, kind, path, pid, ok, line FROM events WHERE session = ?1 ORDER BY seq",
        )?;
        let mut rows = stmt.query([&full])?;
        while let Some(row) = rows.next()? {
            let seq = row.get::<_, i64>(0)? as u64;
            let res = if seq != chain.next_seq {
                Err(BreakReason::Missing { next: Some(seq) })
            } else {
                check_row(row).and_then(|(line, columns)| chain.check(&line, Some(columns)))
            };
            if let Err(reason) = res {
                report.broken = Some(Broken {
                    seq: chain.next_seq,
                    reason,
                });
                return Ok(report);
            }
            report.checked += 1;
        }
        let stored = report.checked;

        let Some(seal) = rec.seal else {
            return Ok(report);
        };
        let broken = |seq, reason| Some(Broken { seq, reason });
        if stored > seal.stored_count {
            report.broken = broken(
                seal.stored_count + 1,
                BreakReason::AfterSeal {
                    sealed: seal.stored_count,
                },
            );
            return Ok(report);
        }
        if stored < seal.stored_count {
            report.broken = broken(stored + 1, BreakReason::Missing { next: None });
            return Ok(report);
        }
        if seal.event_count > seal.stored_count {
            // Continue the chain through the spill file.
            match verify_spill(&mut chain, &seal) {
                Ok(n) => {
                    report.checked += n;
                    report.checked_in_spill = n;
                }
                Err((n, reason)) => {
                    report.checked += n;
                    report.checked_in_spill = n;
                    report.broken = broken(chain.next_seq, reason);
                    return Ok(report);
                }
            }
        }
        if hex::encode(chain.prev) != seal.final_hash {
            report.broken = broken(seal.event_count.max(1), BreakReason::SealMismatch);
            return Ok(report);
        }
        if let Some(sealed) = &seal.seal_hash {
            let record = crate::seal_record(
                &rec.meta,
                rec.end.unwrap_or_default(),
                rec.exit_code,
                (seal.event_count, seal.stored_count, seal.lost_count),
                seal.spill_path.as_ref().map(|p| p.as_os_str().as_bytes()),
            );
            if rec.end.is_none() || &chain::seal_hash(&chain.prev, &record) != sealed {
                report.broken = broken(0, BreakReason::SessionAltered);
            }
        }
        Ok(report)
    }
}

/// The running state of a chain check.
struct Chain {
    session: String,
    prev: Hash,
    next_seq: u64,
}

/// Indexed columns of a stored event: kind, path bytes, pid, ok.
type Columns = (String, Option<Vec<u8>>, i64, bool);

impl Chain {
    fn new(session: &str) -> Self {
        Chain {
            session: session.to_string(),
            prev: chain::genesis(session),
            next_seq: 1,
        }
    }

    /// Checks the next event's line (and its indexed columns when stored in the database).
    fn check(&mut self, line: &str, columns: Option<Columns>) -> Result<(), BreakReason> {
        let (unhashed, hex) = chain::split_hash(line)
            .ok_or_else(|| BreakReason::BadJson("no well-formed \"hash\" at the end".into()))?;
        // The line itself first: an altered line is a hash mismatch whatever else it breaks.
        let h = chain::link(&self.prev, unhashed.as_bytes());
        if hex::encode(h) != hex {
            return Err(BreakReason::HashMismatch);
        }
        let event = Event::from_json(line).map_err(|e| BreakReason::BadJson(e.to_string()))?;
        if event.session != self.session || event.seq != self.next_seq {
            return Err(BreakReason::Misplaced);
        }
        if let Some((kind, path, pid, ok)) = columns {
            if kind != event.op.op_kind().as_str() {
                return Err(BreakReason::ColumnMismatch("kind"));
            }
            if path.as_deref() != event.op.path.as_ref().map(PathBytes::as_bytes) {
                return Err(BreakReason::ColumnMismatch("path"));
            }
            if pid != i64::from(event.actor.pid) {
                return Err(BreakReason::ColumnMismatch("pid"));
            }
            if ok != event.outcome.is_ok() {
                return Err(BreakReason::ColumnMismatch("ok"));
            }
        }
        self.prev = h;
        self.next_seq += 1;
        Ok(())
    }
}

fn check_row(row: &Row<'_>) -> Result<(String, Columns), BreakReason> {
    let bad = |what: &str| BreakReason::BadJson(format!("unreadable {what} column"));
    let kind: String = row.get(1).map_err(|_| bad("kind"))?;
    let path = match row.get_ref(2).map_err(|_| bad("path"))? {
        ValueRef::Null => None,
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(t.to_vec()),
        _ => return Err(BreakReason::ColumnMismatch("path")),
    };
    let pid: i64 = row.get(3).map_err(|_| bad("pid"))?;
    let ok: bool = row.get(4).map_err(|_| bad("ok"))?;
    let line = match row.get_ref(5).map_err(|_| bad("line"))? {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8(t.to_vec())
            .map_err(|_| BreakReason::BadJson("the line is not UTF-8".into()))?,
        _ => return Err(BreakReason::BadJson("no event line".into())),
    };
    Ok((line, (kind, path, pid, ok)))
}

/// Checks the spilled events `stored_count+1..=event_count`; returns how many checked out, and
/// on failure the reason for the next one.
fn verify_spill(chain: &mut Chain, seal: &Seal) -> Result<u64, (u64, BreakReason)> {
    let Some(path) = &seal.spill_path else {
        return Err((
            0,
            BreakReason::NotStored(format!(
                "{} events were lost",
                seal.event_count - seal.stored_count
            )),
        ));
    };
    let file = std::fs::File::open(path).map_err(|e| {
        (
            0,
            BreakReason::NotStored(format!(
                "spilled to {}, which cannot be read: {e}",
                path.display()
            )),
        )
    })?;
    let mut n = 0;
    for line in std::io::BufReader::new(file).lines() {
        if chain.next_seq > seal.event_count {
            break;
        }
        let line = line.map_err(|e| {
            (
                n,
                BreakReason::BadJson(format!("in the spill file {}: {e}", path.display())),
            )
        })?;
        chain.check(&line, None).map_err(|r| (n, r))?;
        n += 1;
    }
    if chain.next_seq <= seal.event_count {
        let why = if seal.lost_count > 0 {
            format!(
                "{} events were lost (neither stored nor spilled)",
                seal.lost_count
            )
        } else {
            format!("the spill file {} ends early", path.display())
        };
        return Err((n, BreakReason::NotStored(why)));
    }
    Ok(n)
}

fn session_from_row(r: &Row<'_>) -> rusqlite::Result<Result<SessionRecord, AuditError>> {
    let id: String = r.get(0)?;
    let argv_json: String = r.get(2)?;
    let cwd_json: String = r.get(3)?;
    let bad = |what: &str, e: serde_json::Error| AuditError::BadEvent {
        session: id.clone(),
        seq: 0,
        reason: format!("unreadable session {what}: {e}"),
    };
    let argv: Vec<PathBytes> = match serde_json::from_str(&argv_json) {
        Ok(a) => a,
        Err(e) => return Ok(Err(bad("argv", e))),
    };
    let cwd: PathBytes = match serde_json::from_str(&cwd_json) {
        Ok(c) => c,
        Err(e) => return Ok(Err(bad("cwd", e))),
    };
    let meta = SessionMeta {
        id: id.clone(),
        start: Timestamp(r.get::<_, i64>(1)? as u64),
        argv,
        cwd,
        mode: r.get(4)?,
        profile: r.get(5)?,
        sandbox: r.get(6)?,
        uid: r.get(7)?,
        hostname: r.get(8)?,
        ward_version: r.get(9)?,
    };
    let end: Option<i64> = r.get(10)?;
    let exit_code: Option<i32> = r.get(11)?;
    let event_count: Option<i64> = r.get(12)?;
    let stored_count: Option<i64> = r.get(13)?;
    let final_hash: Option<String> = r.get(14)?;
    let spill_path: Option<Vec<u8>> = r.get(15)?;
    let lost_count: Option<i64> = r.get(16)?;
    let seal_hash: Option<String> = r.get(17)?;
    let max_seq: Option<i64> = r.get(18)?;
    let seal = match (event_count, final_hash) {
        (Some(count), Some(hash)) => Some(Seal {
            event_count: count as u64,
            stored_count: stored_count.unwrap_or(count) as u64,
            final_hash: hash,
            spill_path: spill_path.map(|p| PathBuf::from(std::ffi::OsString::from_vec(p))),
            lost_count: lost_count.unwrap_or(0) as u64,
            seal_hash,
        }),
        _ => None,
    };
    Ok(Ok(SessionRecord {
        meta,
        end: end.map(|e| Timestamp(e as u64)),
        exit_code,
        event_count: seal
            .as_ref()
            .map_or(max_seq.unwrap_or(0) as u64, |s| s.event_count),
        seal,
    }))
}
