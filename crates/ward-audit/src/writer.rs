//! The write side: one dedicated thread per session numbers, chains and stores events.

use crate::chain::{self, Hash};
use crate::{db, AuditError, SessionMeta};
use crossbeam_channel::{Receiver, TryRecvError, Sender, TrySendError};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{params, Connection};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use ward_event::{Event, EventSink, Timestamp};

/// Tuning of a [`Writer`]. The defaults suit `ward exec`.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    /// Events the channel holds before `record` blocks (backpressure). Each queued event takes
    /// roughly 0.5–1 KB, so the default 8192 bounds the queue to a few MB.
    pub channel_capacity: usize,
    /// Events per transaction at most.
    pub batch_size: usize,
    /// How long the first event of a batch may wait for others before the batch is committed.
    pub batch_interval: Duration,
    /// How long a batch keeps retrying a locked database before it is spilled.
    pub busy_timeout: Duration,
    /// Cap on the database size, in pages (SQLite's `max_page_count`); reaching it is handled
    /// like a full disk. `None`: no cap.
    pub max_db_pages: Option<u64>,
    /// First place to spill events that cannot be stored; default `<db dir>/spill`. The
    /// system temporary directory is always tried after it.
    pub spill_dir: Option<PathBuf>,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            channel_capacity: 8192,
            batch_size: 2048,
            batch_interval: Duration::from_millis(5),
            busy_timeout: Duration::from_secs(30),
            max_db_pages: None,
            spill_dir: None,
        }
    }
}

/// What a finished [`Writer`] did with the session's events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteSummary {
    /// Session id.
    pub session: String,
    /// Events the session produced (the last `seq`).
    pub events: u64,
    /// Of those, committed to the database (events `1..=stored`).
    pub stored: u64,
    /// Events that could not be stored and were written to [`spill_path`](Self::spill_path).
    pub spilled: u64,
    /// The JSON Lines file holding the spilled events.
    pub spill_path: Option<PathBuf>,
    /// Events that could be neither stored nor spilled (they may still be in `--events`).
    pub lost: u64,
    /// Hash of the last event: keep it elsewhere to detect a rewritten session.
    pub final_hash: Option<String>,
    /// Whether the seal (count and final hash) was written to the database.
    pub sealed: bool,
    /// Times a locked database was retried.
    pub busy_retries: u64,
    /// Times a supervisor thread had to wait because the queue was full.
    pub backpressure_waits: u64,
    /// The storage errors met, first ones first (at most a few).
    pub errors: Vec<String>,
    /// Why the `--events` stream stopped, if it did.
    pub jsonl_error: Option<String>,
}

impl WriteSummary {
    /// Whether every event is in the database and the session is sealed.
    pub fn is_complete(&self) -> bool {
        self.stored == self.events && self.sealed && self.errors.is_empty()
    }

    /// What a person should be told, if anything went wrong: one paragraph, no trailing newline.
    pub fn problem(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.spilled > 0 || self.lost > 0 {
            let mut s = format!(
                "audit trail: {} of {} events could not be stored in the database",
                self.events - self.stored,
                self.events
            );
            if let (Some(path), true) = (&self.spill_path, self.spilled > 0) {
                s.push_str(&format!(
                    "; {} were saved to {}",
                    self.spilled,
                    path.display()
                ));
            }
            if self.lost > 0 {
                s.push_str(&format!("; {} were lost", self.lost));
            }
            if let Some(e) = self.errors.first() {
                s.push_str(&format!(" (cause: {e})"));
            }
            parts.push(s);
        } else if let Some(e) = self.errors.first() {
            parts.push(format!("audit trail: {e}"));
        }
        if !self.sealed {
            parts.push(
                "audit trail: the session could not be sealed, so `ward audit verify` cannot \
                 detect removal of its last events"
                    .to_string(),
            );
        }
        if let Some(e) = &self.jsonl_error {
            parts.push(format!("event stream: stopped after an error: {e}"));
        }
        (!parts.is_empty()).then(|| parts.join("\n"))
    }
}

enum Msg {
    Event(Box<Event>),
    Finish {
        exit_code: Option<i32>,
        end: Timestamp,
    },
    Stop,
}

struct Sink {
    tx: Sender<Msg>,
    waits: Arc<AtomicU64>,
    warned: AtomicBool,
}

impl EventSink for Sink {
    fn record(&self, event: Event) {
        let msg = Msg::Event(Box::new(event));
        let msg = match self.tx.try_send(msg) {
            Ok(()) => return,
            Err(TrySendError::Full(msg)) => msg,
            Err(TrySendError::Disconnected(_)) => return self.late(),
        };
        self.waits.fetch_add(1, Ordering::Relaxed);
        if self.tx.send(msg).is_err() {
            self.late();
        }
    }
}

impl Sink {
    fn late(&self) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            eprintln!(
                "ward: audit: an event arrived after its session was finished; it was not recorded"
            );
        }
    }
}

/// The write side of one session's audit trail. See the crate docs.
pub struct Writer {
    session: String,
    tx: Sender<Msg>,
    sink: Arc<Sink>,
    thread: Option<JoinHandle<WriteSummary>>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl Writer {
    /// Opens (creating if needed) the database at `db`, records the session's start and starts
    /// the writer thread. `jsonl` receives every event's JSON line too (`ward exec --events`).
    pub fn start(
        db: &Path,
        meta: SessionMeta,
        jsonl: Option<Box<dyn Write + Send>>,
    ) -> Result<Writer, AuditError> {
        Writer::start_with(db, meta, jsonl, WriterOptions::default())
    }

    /// [`Writer::start`] with explicit options.
    pub fn start_with(
        db: &Path,
        meta: SessionMeta,
        jsonl: Option<Box<dyn Write + Send>>,
        opts: WriterOptions,
    ) -> Result<Writer, AuditError> {
        let conn = db::open(db, opts.busy_timeout)?;
        insert_session(&conn, &meta)?;
        // From here on, lock waits go through the writer's own retry loop, which counts them.
        conn.busy_timeout(Duration::from_millis(20))?;
        if let Some(pages) = opts.max_db_pages {
            let _: i64 =
                conn.query_row(&format!("PRAGMA max_page_count={pages}"), [], |r| r.get(0))?;
        }
        let (tx, rx) = crossbeam_channel::bounded(opts.channel_capacity.max(1));
        let waits = Arc::new(AtomicU64::new(0));
        let spill_dirs = {
            let first = opts
                .spill_dir
                .clone()
                .unwrap_or_else(|| db.parent().unwrap_or(Path::new(".")).join("spill"));
            vec![first, std::env::temp_dir()]
        };
        let state = State {
            conn,
            meta: meta.clone(),
            session: meta.id.clone(),
            prev: chain::genesis(&meta.id),
            seq: 0,
            stored: 0,
            spilled: 0,
            lost: 0,
            busy_retries: 0,
            errors: Vec::new(),
            batch: Vec::with_capacity(opts.batch_size),
            staged: Vec::with_capacity(opts.batch_size),
            mode: Mode::Database,
            spill: None,
            spill_dirs,
            spill_path: None,
            jsonl: jsonl.map(|w| BufWriter::with_capacity(64 * 1024, w)),
            jsonl_error: None,
            waits: waits.clone(),
            opts,
        };
        let thread = std::thread::Builder::new()
            .name("ward-audit".into())
            .spawn(move || state.run(rx))?;
        Ok(Writer {
            session: meta.id,
            sink: Arc::new(Sink {
                tx: tx.clone(),
                waits,
                warned: AtomicBool::new(false),
            }),
            tx,
            thread: Some(thread),
        })
    }

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The sink the supervisor records events into. Cheap to clone and to call from many
    /// threads; `record` only queues the event, and blocks only while the queue is full.
    pub fn sink(&self) -> Arc<dyn EventSink> {
        self.sink.clone()
    }

    /// Stores every event recorded so far, seals the session with its end time and exit
    /// code, and says what happened to the events. Call it after the supervisor has stopped
    /// recording: events recorded afterwards are not stored (a warning is printed once).
    pub fn finish(
        mut self,
        exit_code: Option<i32>,
        end: Timestamp,
    ) -> Result<WriteSummary, AuditError> {
        let _ = self.tx.send(Msg::Finish { exit_code, end });
        self.join()
    }

    fn join(&mut self) -> Result<WriteSummary, AuditError> {
        let thread = self
            .thread
            .take()
            .ok_or_else(|| AuditError::WriterThread("already finished".into()))?;
        thread.join().map_err(|p| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panicked".into());
            AuditError::WriterThread(msg)
        })
    }
}

impl Drop for Writer {
    /// Without `finish`, the events queued so far are still stored, but the session is left
    /// unsealed (as if ward had been killed).
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.tx.send(Msg::Stop);
            let _ = self.join();
        }
    }
}

fn insert_session(conn: &Connection, m: &SessionMeta) -> Result<(), AuditError> {
    let argv = serde_json::to_string(&m.argv).unwrap_or_else(|_| "[]".into());
    let cwd = serde_json::to_string(&m.cwd).unwrap_or_else(|_| "\"\"".into());
    let res = conn.execute(
        "INSERT INTO sessions (id, start_ns, argv, cwd, mode, profile, sandbox, uid, hostname, ward_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            m.id,
            m.start.0 as i64,
            argv,
            cwd,
            m.mode,
            m.profile,
            m.sandbox,
            m.uid,
            m.hostname,
            m.ward_version
        ],
    );
    match res {
        Ok(_) => Ok(()),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
            Err(AuditError::SessionExists(m.id.clone()))
        }
        Err(e) => Err(e.into()),
    }
}

/// One event, ready to store.
struct Row {
    seq: u64,
    kind: &'static str,
    path: Option<Vec<u8>>,
    pid: i32,
    ok: bool,
    line: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Batches go to the database.
    Database,
    /// The database failed for good: batches go to the spill file.
    Spill,
    /// The spill file failed too: events are counted as lost.
    Lost,
}

const MAX_ERRORS: usize = 4;

struct State {
    conn: Connection,
    meta: SessionMeta,
    session: String,
    prev: Hash,
    seq: u64,
    stored: u64,
    spilled: u64,
    lost: u64,
    busy_retries: u64,
    errors: Vec<String>,
    batch: Vec<Row>,
    staged: Vec<Event>,
    mode: Mode,
    spill: Option<BufWriter<File>>,
    spill_dirs: Vec<PathBuf>,
    spill_path: Option<PathBuf>,
    jsonl: Option<BufWriter<Box<dyn Write + Send>>>,
    jsonl_error: Option<String>,
    waits: Arc<AtomicU64>,
    opts: WriterOptions,
}

impl State {
    fn run(mut self, rx: Receiver<Msg>) -> WriteSummary {
        let mut seal = None;
        // Wait for the first event of a batch, then gather more until the batch is full or
        // the interval has passed.
        'outer: while let Ok(first) = rx.recv() {
            match first {
                Msg::Event(e) => self.push(*e),
                Msg::Finish { exit_code, end } => {
                    seal = Some((exit_code, end));
                    break;
                }
                Msg::Stop => break,
            }
            // Gather the rest of the batch by polling, not by blocking in recv: a receiver
            // blocked in recv makes every send a futex wake-up of this thread, paid by the
            // supervisor while a traced call waits. Sleeping between drains costs nothing
            // per event.
            let deadline = Instant::now() + self.opts.batch_interval;
            'batch: loop {
                loop {
                    match rx.try_recv() {
                        Ok(Msg::Event(e)) => {
                            self.push(*e);
                            if self.staged.len() + self.batch.len() >= self.opts.batch_size {
                                break 'batch;
                            }
                        }
                        Ok(Msg::Finish { exit_code, end }) => {
                            seal = Some((exit_code, end));
                            break 'outer;
                        }
                        Ok(Msg::Stop) | Err(TryRecvError::Disconnected) => break 'outer,
                        Err(TryRecvError::Empty) => break,
                    }
                }
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                std::thread::sleep((deadline - now).min(Duration::from_millis(1)));
            }
            self.flush();
        }
        // Events that raced with finish are part of the session too.
        while let Ok(Msg::Event(e)) = rx.try_recv() {
            self.push(*e);
            if self.staged.len() + self.batch.len() >= self.opts.batch_size {
                self.flush();
            }
        }
        self.flush();
        let sealed = match seal {
            Some((exit_code, end)) => self.seal(exit_code, end),
            None => false,
        };
        if let Some(spill) = self.spill.as_mut() {
            let _ = spill.flush();
        }
        WriteSummary {
            session: self.session,
            events: self.seq,
            stored: self.stored,
            spilled: self.spilled,
            spill_path: self.spill_path,
            lost: self.lost,
            final_hash: Some(hex::encode(self.prev)),
            sealed,
            busy_retries: self.busy_retries,
            backpressure_waits: self.waits.load(Ordering::Relaxed),
            errors: self.errors,
            jsonl_error: self.jsonl_error,
        }
    }

    /// Numbers and chains one event and queues it for the next batch.
    /// Takes an event; it is numbered and chained when its batch is flushed, in the order the
    /// supervisor received the calls (events of one batch are sorted by time: workers finish
    /// out of order, one thread's calls never do).
    fn push(&mut self, event: Event) {
        self.staged.push(event);
    }

    fn number_staged(&mut self) {
        let mut staged = std::mem::take(&mut self.staged);
        staged.sort_by_key(|e| e.ts);
        for e in staged.drain(..) {
            self.number(e);
        }
        self.staged = staged;
    }

    fn number(&mut self, mut event: Event) {
        self.seq += 1;
        event.session.clone_from(&self.session);
        event.seq = self.seq;
        event.hash = None;
        let unhashed = event.to_json_unhashed();
        self.prev = chain::link(&self.prev, unhashed.as_bytes());
        let mut hex = [0u8; 64];
        // 64 bytes is exactly twice the digest: encoding cannot fail.
        let _ = hex::encode_to_slice(self.prev, &mut hex);
        let hex = std::str::from_utf8(&hex).unwrap_or_default();
        let line = chain::with_hash(unhashed, hex);
        if let Some(out) = self.jsonl.as_mut() {
            let res = out
                .write_all(line.as_bytes())
                .and_then(|()| out.write_all(b"\n"));
            if let Err(e) = res {
                self.jsonl_error = Some(e.to_string());
                self.jsonl = None;
            }
        }
        self.batch.push(Row {
            seq: self.seq,
            kind: event.op.op_kind().as_str(),
            path: event.op.path.map(|p| p.into_bytes()),
            pid: event.actor.pid,
            ok: event.outcome.is_ok(),
            line,
        });
    }

    fn note_error(&mut self, e: String) {
        if self.errors.len() < MAX_ERRORS && !self.errors.contains(&e) {
            self.errors.push(e);
        }
    }

    /// Stores the batch: in the database, else in the spill file, else counts it as lost.
    fn flush(&mut self) {
        self.number_staged();
        if self.batch.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.batch);
        if self.mode == Mode::Database {
            match self.commit(&batch) {
                Ok(()) => self.stored += batch.len() as u64,
                Err(e) => {
                    self.note_error(e);
                    self.mode = Mode::Spill;
                }
            }
        }
        if self.mode == Mode::Spill {
            if self.spill_batch(&batch) {
                self.spilled += batch.len() as u64;
            } else {
                self.mode = Mode::Lost;
            }
        }
        if self.mode == Mode::Lost {
            self.lost += batch.len() as u64;
        }
        if let Some(out) = self.jsonl.as_mut() {
            if let Err(e) = out.flush() {
                self.jsonl_error = Some(e.to_string());
                self.jsonl = None;
            }
        }
        self.batch = batch;
        self.batch.clear();
    }

    /// Runs `op` in one `BEGIN IMMEDIATE` transaction, retrying a locked database with
    /// exponential backoff up to the busy timeout and any other error once.
    fn with_retry(
        &mut self,
        what: &str,
        op: impl Fn(&Connection) -> rusqlite::Result<()>,
    ) -> Result<(), String> {
        let started = Instant::now();
        let mut delay = Duration::from_millis(1);
        let mut retried_other = false;
        loop {
            let res = self
                .conn
                .execute_batch("BEGIN IMMEDIATE")
                .and_then(|()| op(&self.conn).and_then(|()| self.conn.execute_batch("COMMIT")));
            let err = match res {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            if !self.conn.is_autocommit() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            if db::is_busy(&err) {
                if started.elapsed() < self.opts.busy_timeout {
                    self.busy_retries += 1;
                    std::thread::sleep(delay);
                    delay = (delay * 2).min(Duration::from_millis(200));
                    continue;
                }
                return Err(format!(
                    "{what}: the database stayed locked by another process for {:.1?}",
                    started.elapsed()
                ));
            }
            if db::is_full(&err) {
                return Err(format!("{what}: the disk is full ({err})"));
            }
            if !retried_other {
                retried_other = true;
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            return Err(format!("{what}: {err}"));
        }
    }

    fn commit(&mut self, batch: &[Row]) -> Result<(), String> {
        let session = self.session.clone();
        self.with_retry("storing events", |conn| {
            let mut stmt = conn.prepare_cached(
                "INSERT INTO events (session, seq, kind, path, pid, ok, line)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for row in batch {
                let path = row.path.as_deref().map(path_value);
                stmt.execute(params![
                    session,
                    row.seq as i64,
                    row.kind,
                    path,
                    row.pid,
                    row.ok,
                    row.line
                ])?;
            }
            Ok(())
        })
    }

    /// Appends the batch to the spill file, moving on to the next spill directory when one
    /// fails. Returns false when no place could take it.
    fn spill_batch(&mut self, batch: &[Row]) -> bool {
        loop {
            if self.spill.is_none() && !self.open_next_spill() {
                return false;
            }
            let Some(out) = self.spill.as_mut() else {
                return false;
            };
            let mut res = Ok(());
            for row in batch {
                res = out
                    .write_all(row.line.as_bytes())
                    .and_then(|()| out.write_all(b"\n"));
                if res.is_err() {
                    break;
                }
            }
            let res = res.and_then(|()| out.flush());
            match res {
                Ok(()) => return true,
                Err(e) => {
                    let path = self.spill_path.take().unwrap_or_default();
                    self.note_error(format!("spilling to {}: {e}", path.display()));
                    self.spill = None;
                    // A partly written file would hold a broken chain; earlier batches in it
                    // were already counted, so keep it only if it held any.
                    if self.spilled == 0 {
                        let _ = std::fs::remove_file(&path);
                    } else {
                        // Events spilled there stay there; the rest is lost rather than split
                        // over two files.
                        self.spill_path = Some(path);
                        return false;
                    }
                }
            }
        }
    }

    fn open_next_spill(&mut self) -> bool {
        while !self.spill_dirs.is_empty() {
            let dir = self.spill_dirs.remove(0);
            let path = dir.join(format!("ward-spill-{}.jsonl", self.session));
            let opened = std::fs::create_dir_all(&dir).and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
            });
            match opened {
                Ok(f) => {
                    self.spill = Some(BufWriter::with_capacity(64 * 1024, f));
                    self.spill_path = Some(path);
                    return true;
                }
                Err(e) => self.note_error(format!("spilling to {}: {e}", path.display())),
            }
        }
        false
    }

    /// Writes end time, exit code and the seal. Returns whether it was stored.
    fn seal(&mut self, exit_code: Option<i32>, end: Timestamp) -> bool {
        let session = self.session.clone();
        let (events, stored, lost) = (self.seq, self.stored, self.lost);
        let hash = hex::encode(self.prev);
        let spill = self
            .spill_path
            .as_ref()
            .map(|p| p.as_os_str().as_bytes().to_vec());
        let record = crate::seal_record(
            &self.meta,
            end,
            exit_code,
            (events, stored, lost),
            spill.as_deref(),
        );
        let seal_hash = chain::seal_hash(&self.prev, &record);
        let res = self.with_retry("sealing the session", |conn| {
            conn.execute(
                "UPDATE sessions SET end_ns = ?2, exit_code = ?3, event_count = ?4, stored_count = ?5,
                     final_hash = ?6, spill_path = ?7, lost_count = ?8, seal_hash = ?9 WHERE id = ?1",
                params![
                    session,
                    end.0 as i64,
                    exit_code,
                    events as i64,
                    stored as i64,
                    hash,
                    spill,
                    lost as i64,
                    seal_hash
                ],
            )?;
            Ok(())
        });
        match res {
            Ok(()) => true,
            Err(e) => {
                self.note_error(e);
                false
            }
        }
    }
}

/// The `path` column's value: text when UTF-8, else a blob.
fn path_value(p: &[u8]) -> ToSqlOutput<'_> {
    match std::str::from_utf8(p) {
        Ok(_) => ToSqlOutput::Borrowed(ValueRef::Text(p)),
        Err(_) => ToSqlOutput::Borrowed(ValueRef::Blob(p)),
    }
}
