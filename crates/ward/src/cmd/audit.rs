//! `ward sessions`, `ward audit verify` and `ward audit export`: the audit store from the
//! command line. The store, the chain and the export formats live in `ward-audit`; this module
//! finds the database, prints and picks exit codes.

use crate::cli::Format;
use crate::paths;
use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use ward_audit::{AuditError, SessionRecord, Store, VerifyReport};

/// `--db`: shared by every subcommand here.
#[derive(Debug, Args)]
pub struct DbArg {
    /// The audit database (default: $XDG_STATE_HOME/ward/audit.db).
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,
}

impl DbArg {
    fn path(&self) -> anyhow::Result<PathBuf> {
        match &self.db {
            Some(p) => Ok(p.clone()),
            None => paths::audit_db(),
        }
    }
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Output format: an aligned table, or a JSON array with every stored field.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(subcommand)]
    pub command: AuditCommand,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check the hash chain of sessions; exit 1 if any is broken, naming the first bad event.
    Verify(VerifyArgs),
    /// Write a session's events as JSON Lines or CSV.
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Session id or unique prefix (default: every session).
    #[arg(value_name = "SESSION")]
    pub session: Option<String>,
    /// Output format: one line per session, or a JSON array.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ExportFormat {
    /// The stored event lines, byte for byte (the `ward exec --events` format).
    #[default]
    Jsonl,
    /// A header and one row per event; non-UTF-8 paths as `b64:<base64>` (see ward-audit's
    /// `export` docs).
    Csv,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Session id or unique prefix.
    #[arg(value_name = "SESSION")]
    pub session: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: ExportFormat,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `ward sessions`.
pub fn run_sessions(args: SessionsArgs) -> anyhow::Result<u8> {
    let db = args.db.path()?;
    let sessions = if db_exists(&db)? {
        open(&db)?.sessions().map_err(|e| audit_err(e, &db))?
    } else {
        Vec::new()
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match args.format {
        Format::Json => {
            let list: Vec<_> = sessions.iter().map(session_json).collect();
            serde_json::to_writer_pretty(&mut out, &list)?;
            writeln!(out)?;
        }
        Format::Text if sessions.is_empty() => {
            writeln!(
                out,
                "no sessions recorded yet (audit database: {})",
                db.display()
            )?;
        }
        Format::Text => write_table(&mut out, &sessions)?,
    }
    out.flush()?;
    Ok(0)
}

/// `ward audit …`.
pub fn run(args: AuditArgs) -> anyhow::Result<u8> {
    let db = args.db.path()?;
    match args.command {
        AuditCommand::Verify(v) => verify(&db, v),
        AuditCommand::Export(e) => export(&db, e),
    }
}

fn verify(db: &Path, args: VerifyArgs) -> anyhow::Result<u8> {
    if !db_exists(db)? {
        anyhow::bail!(
            "no audit database at {} (no session was recorded yet)",
            db.display()
        );
    }
    let store = open(db)?;
    let ids: Vec<String> = match &args.session {
        Some(s) => vec![store.resolve(s).map_err(|e| audit_err(e, db))?],
        None => store
            .sessions()
            .map_err(|e| audit_err(e, db))?
            .into_iter()
            .map(|s| s.meta.id)
            .collect(),
    };
    let mut reports = Vec::with_capacity(ids.len());
    for id in &ids {
        reports.push(store.verify(id).map_err(|e| audit_err(e, db))?);
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match args.format {
        Format::Json => {
            let list: Vec<_> = reports.iter().map(verify_json).collect();
            serde_json::to_writer_pretty(&mut out, &list)?;
            writeln!(out)?;
        }
        Format::Text if reports.is_empty() => writeln!(out, "no sessions to verify")?,
        Format::Text => {
            for r in &reports {
                writeln!(out, "{r}")?;
            }
        }
    }
    out.flush()?;
    Ok(if reports.iter().all(VerifyReport::is_ok) {
        0
    } else {
        1
    })
}

fn export(db: &Path, args: ExportArgs) -> anyhow::Result<u8> {
    if !db_exists(db)? {
        anyhow::bail!(
            "no audit database at {} (no session was recorded yet)",
            db.display()
        );
    }
    let store = open(db)?;
    // Resolve first, so a bad id leaves no empty output file behind.
    let id = store.resolve(&args.session).map_err(|e| audit_err(e, db))?;
    let write = |out: &mut dyn Write| -> Result<u64, AuditError> {
        match args.format {
            ExportFormat::Jsonl => ward_audit::export::write_jsonl(&store, &id, out),
            ExportFormat::Csv => ward_audit::export::write_csv(&store, &id, out),
        }
    };
    match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let mut out = BufWriter::new(file);
            let res =
                write(&mut out).and_then(|n| out.flush().map(|()| n).map_err(AuditError::from));
            if let Err(e) = res {
                let _ = std::fs::remove_file(path);
                return Err(audit_err(e, db))
                    .with_context(|| format!("writing {}", path.display()));
            }
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            write(&mut out).map_err(|e| audit_err(e, db))?;
            out.flush()?;
        }
    }
    Ok(0)
}

/// Whether the database file exists; an unreadable directory is an error, not "no".
fn db_exists(db: &Path) -> anyhow::Result<bool> {
    db.try_exists()
        .with_context(|| format!("cannot access the audit database {}", db.display()))
}

fn open(db: &Path) -> anyhow::Result<Store> {
    Store::open(db).map_err(|e| audit_err(e, db))
}

/// Keeps I/O errors as `io::Error` in the chain (so a closed stdout is recognised as a broken
/// pipe) and names the database in the others.
fn audit_err(e: AuditError, db: &Path) -> anyhow::Error {
    match e {
        AuditError::Io(io) => io.into(),
        e @ (AuditError::Open { .. } | AuditError::CreateDir { .. }) => e.into(),
        e => anyhow::Error::new(e).context(format!("audit database {}", db.display())),
    }
}

fn session_json(s: &SessionRecord) -> serde_json::Value {
    let m = &s.meta;
    json!({
        "id": m.id,
        "start": m.start.to_rfc3339(),
        "end": s.end.map(|e| e.to_rfc3339()),
        "duration_secs": s.end.map(|e| e.as_secs_f64() - m.start.as_secs_f64()),
        "command": m.command_line(),
        "argv": m.argv,
        "cwd": m.cwd,
        "mode": m.mode,
        "profile": m.profile,
        "sandbox": m.sandbox,
        "uid": m.uid,
        "hostname": m.hostname,
        "ward_version": m.ward_version,
        "exit_code": s.exit_code,
        "events": s.event_count,
        "sealed": s.seal.is_some(),
        "final_hash": s.seal.as_ref().map(|x| &x.final_hash),
        "stored": s.seal.as_ref().map(|x| x.stored_count),
        "spill_path": s.seal.as_ref().and_then(|x| x.spill_path.as_ref()).map(|p| p.display().to_string()),
        "lost": s.seal.as_ref().map(|x| x.lost_count),
    })
}

fn verify_json(r: &VerifyReport) -> serde_json::Value {
    json!({
        "session": r.session,
        "ok": r.is_ok(),
        "events": r.checked,
        "events_in_spill": r.checked_in_spill,
        "sealed": r.sealed,
        "broken": r.broken.as_ref().map(|b| json!({"seq": b.seq, "reason": b.reason.to_string()})),
        "message": r.to_string(),
    })
}

/// Width of the table: fits a 100-column terminal.
const TABLE_WIDTH: usize = 100;

fn write_table(out: &mut dyn Write, sessions: &[SessionRecord]) -> std::io::Result<()> {
    let head = format!(
        "{:<20}  {:<16}  {:>8}  {:>4}  {:>8}  ",
        "ID", "START (UTC)", "DURATION", "EXIT", "EVENTS"
    );
    let room = TABLE_WIDTH - head.chars().count();
    writeln!(out, "{head}COMMAND")?;
    for s in sessions {
        let start = s.meta.start.to_rfc3339();
        let start = start.get(..16).unwrap_or(&start).replace('T', " ");
        let duration = s
            .end
            .map(|e| human_duration(e.as_secs_f64() - s.meta.start.as_secs_f64()))
            .unwrap_or_else(|| "-".into());
        let exit = s
            .exit_code
            .map(|c| c.to_string())
            .unwrap_or_else(|| "-".into());
        let mut events = s.event_count.to_string();
        if s.seal
            .as_ref()
            .is_some_and(|x| x.stored_count < x.event_count)
        {
            events.push('*');
        }
        writeln!(
            out,
            "{:<20}  {:<16}  {:>8}  {:>4}  {:>8}  {}",
            s.meta.id,
            start,
            duration,
            exit,
            events,
            truncate(&s.meta.command_line(), room)
        )?;
    }
    if sessions.iter().any(|s| {
        s.seal
            .as_ref()
            .is_some_and(|x| x.stored_count < x.event_count)
    }) {
        writeln!(
            out,
            "* some events could not be stored in the database (`ward audit verify` says where)"
        )?;
    }
    if sessions.iter().any(|s| s.seal.is_none()) {
        writeln!(
            out,
            "- still running, or ward stopped before finishing the session"
        )?;
    }
    Ok(())
}

fn truncate(s: &str, width: usize) -> String {
    // Control characters would break the table (and could fake lines).
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if clean.chars().count() <= width {
        return clean;
    }
    let mut t: String = clean.chars().take(width.saturating_sub(1)).collect();
    t.push('…');
    t
}

fn human_duration(secs: f64) -> String {
    let secs = secs.max(0.0);
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else if secs < 3600.0 {
        let s = secs as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        let s = secs as u64;
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(human_duration(1.234), "1.2s");
        assert_eq!(human_duration(125.0), "2m05s");
        assert_eq!(human_duration(7322.0), "2h02m");
        assert_eq!(human_duration(-1.0), "0.0s");
    }

    #[test]
    fn long_commands_are_cut_to_fit() {
        assert_eq!(truncate("abc", 5), "abc");
        assert_eq!(truncate("abcdefgh", 5), "abcd…");
        assert_eq!(truncate("a\nb", 5), "a?b");
    }
}
