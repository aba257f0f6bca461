//! Exports of a session's events: JSON Lines (the stored lines, byte for byte) and CSV.
//!
//! # CSV
//!
//! A header row, then one row per event, with the columns of [`CSV_COLUMNS`] (the flat fields
//! of the event format). Fields are quoted as RFC 4180 says: a field holding a comma, a double
//! quote, CR or LF is enclosed in double quotes with inner quotes doubled. Absent values are
//! empty. Paths (`exe`, `path`, `path2`) are written as text when they are UTF-8; a path that is
//! not UTF-8 — or whose text itself starts with `b64:` — is written as `b64:` followed by the
//! standard base64 of its bytes. `argv` and `filters` hold the JSON of the event format (an
//! array); `addr` holds the address as text (`1.2.3.4:443`, `[::1]:80`, `unix:/run/x.sock`),
//! or its JSON when it holds a non-UTF-8 unix path.
//!
//! Values are data, written as recorded: a path the supervised program chose may start with
//! `=`, `+`, `-` or `@`, which spreadsheet programs read as a formula. Import the file as text
//! rather than opening it directly when the session is untrusted.

use crate::{AuditError, Store};
use base64::Engine as _;
use std::io::Write;
use ward_event::{Event, Outcome, PathBytes, SockAddr};

/// The CSV header, in column order.
pub const CSV_COLUMNS: [&str; 27] = [
    "session",
    "seq",
    "ts",
    "pid",
    "tid",
    "ppid",
    "exe",
    "syscall",
    "kind",
    "path",
    "path2",
    "flags",
    "argv",
    "addr",
    "domain",
    "target_pid",
    "signal",
    "detail",
    "ok",
    "ret",
    "errno",
    "action",
    "verdict",
    "score",
    "filters",
    "by",
    "hash",
];

/// Writes the session's stored lines, one per line. Returns the number of events.
pub fn write_jsonl(store: &Store, session: &str, out: &mut dyn Write) -> Result<u64, AuditError> {
    let mut n = 0;
    store.for_each_line(session, |_, line| {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        n += 1;
        Ok(())
    })?;
    out.flush()?;
    Ok(n)
}

/// Writes the session's events as CSV (see the module docs). Returns the number of events.
pub fn write_csv(store: &Store, session: &str, out: &mut dyn Write) -> Result<u64, AuditError> {
    write_row(out, CSV_COLUMNS.iter().map(|c| c.to_string()))?;
    let mut n = 0;
    store.for_each_event(session, |e| {
        write_row(out, csv_fields(&e))?;
        n += 1;
        Ok(())
    })?;
    out.flush()?;
    Ok(n)
}

/// The CSV fields of one event, in [`CSV_COLUMNS`] order.
pub fn csv_fields(e: &Event) -> Vec<String> {
    let opt = |v: Option<String>| v.unwrap_or_default();
    let (ok, ret, errno) = match e.outcome {
        Outcome::Ok(ret) => ("true", ret.map(|r| r.to_string()), None),
        Outcome::Err(n) => ("false", None, Some(ward_event::errno_name(n))),
    };
    vec![
        e.session.clone(),
        e.seq.to_string(),
        e.ts.to_rfc3339(),
        e.actor.pid.to_string(),
        e.actor.tid.to_string(),
        e.actor.ppid.to_string(),
        csv_path(&e.actor.exe),
        e.op.syscall.clone(),
        e.op.op_kind().as_str().to_string(),
        opt(e.op.path.as_ref().map(csv_path)),
        opt(e.op.path2.as_ref().map(csv_path)),
        opt(e.op.flags.clone()),
        opt(e.op.argv.as_ref().map(json)),
        opt(e.op.addr.as_ref().map(csv_addr)),
        opt(e.op.domain.clone()),
        opt(e.op.target_pid.map(|p| p.to_string())),
        opt(e.op.signal.map(|s| s.to_string())),
        opt(e.op.detail.clone()),
        ok.to_string(),
        opt(ret),
        opt(errno),
        json(&e.decision.action).trim_matches('"').to_string(),
        e.decision.verdict.as_str().to_string(),
        e.decision.score.to_string(),
        if e.decision.filters.is_empty() {
            String::new()
        } else {
            json(&e.decision.filters)
        },
        json(&e.decision.by).trim_matches('"').to_string(),
        opt(e.hash.clone()),
    ]
}

/// Any event part as JSON (plain data cannot fail to serialise).
fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A path for CSV: its text, or `b64:` + base64 when it is not UTF-8 or its text starts with
/// `b64:`.
pub fn csv_path(p: &PathBytes) -> String {
    match p.as_str() {
        Some(s) if !s.starts_with("b64:") => s.to_string(),
        _ => format!(
            "b64:{}",
            base64::engine::general_purpose::STANDARD.encode(p.as_bytes())
        ),
    }
}

fn csv_addr(a: &SockAddr) -> String {
    let lossless = match a {
        SockAddr::Unix { path } => path.as_str().is_some(),
        SockAddr::UnixAbstract { name } => name.as_str().is_some(),
        _ => true,
    };
    if lossless {
        a.to_string()
    } else {
        serde_json::to_string(a).unwrap_or_default()
    }
}

fn write_row(out: &mut dyn Write, fields: impl IntoIterator<Item = String>) -> std::io::Result<()> {
    let mut line = String::new();
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        if f.contains([',', '"', '\n', '\r']) {
            line.push('"');
            line.push_str(&f.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(&f);
        }
    }
    line.push_str("\r\n");
    out.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_are_not_plain_text_get_a_b64_prefix() {
        assert_eq!(csv_path(&PathBytes::from("/a,b")), "/a,b");
        assert_eq!(csv_path(&PathBytes::from(vec![b'/', 0xff])), "b64:L/8=");
        assert_eq!(csv_path(&PathBytes::from("b64:x")), "b64:YjY0Ong=");
    }

    #[test]
    fn rows_are_quoted_as_rfc4180_says() {
        let mut out = Vec::new();
        write_row(
            &mut out,
            [
                "a".into(),
                "b,c".into(),
                "say \"hi\"".into(),
                "x\ny".into(),
                String::new(),
            ],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a,\"b,c\",\"say \"\"hi\"\"\",\"x\ny\",\r\n"
        );
    }
}
