//! Rendering a [`Report`] as text (a terminal of 100 columns, colour optional), Markdown (pastes
//! into a GitHub issue as is) or JSON (see the crate docs for the schema).
//!
//! Text and Markdown share the table contents built here; only the layout differs. Several
//! sessions render side by side: one column per session in the summary and sensitive-path
//! tables, then each session's findings in turn.

mod markdown;
mod text;

use crate::analyze::{Report, SessionReport};

pub use markdown::render_markdown;
pub use text::render_text;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Terminal text.
    #[default]
    Text,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// JSON, one object.
    Json,
}

/// How to render.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Format.
    pub format: Format,
    /// ANSI colour (text only).
    pub color: bool,
    /// Terminal width for text (tables are fitted to it).
    pub width: usize,
    /// Most items listed per finding before "… and N more" (text and Markdown; JSON lists all).
    pub max_items: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            format: Format::Text,
            color: false,
            width: 100,
            max_items: 15,
        }
    }
}

/// Renders a report.
pub fn render(report: &Report, opts: &RenderOptions) -> String {
    match opts.format {
        Format::Text => render_text(report, opts),
        Format::Markdown => render_markdown(report, opts),
        Format::Json => render_json(report),
    }
}

/// The JSON document (pretty-printed, with a final newline).
pub fn render_json(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds for people: `17.9s`, `4m 02s`.
pub fn duration(secs: Option<f64>) -> String {
    match secs {
        None => "-".into(),
        Some(s) if s < 60.0 => format!("{s:.1}s"),
        Some(s) => {
            let total = s.round() as u64;
            if total < 3600 {
                format!("{}m {:02}s", total / 60, total % 60)
            } else {
                format!("{}h {:02}m", total / 3600, (total % 3600) / 60)
            }
        }
    }
}

/// The summary table: row label, one cell per session.
pub(crate) fn summary_rows(r: &Report) -> Vec<(String, Vec<String>)> {
    let col = |f: &dyn Fn(&SessionReport) -> String| r.sessions.iter().map(f).collect::<Vec<_>>();
    let mut rows = vec![
        ("Task duration".to_string(), col(&|s| duration(s.duration_secs))),
        ("Files read (unique)".into(), col(&|s| thousands(s.summary.files_read))),
        ("Files written".into(), col(&|s| thousands(s.summary.files_written))),
        ("Files in the project".into(), col(&|s| thousands(s.summary.files_in_project))),
        ("Files outside the project".into(), col(&|s| thousands(s.summary.files_outside_project))),
        ("Directory scans".into(), col(&|s| thousands(s.summary.dir_scans))),
        ("Unique subprocesses spawned".into(), col(&|s| thousands(s.summary.subprocesses))),
        ("Processes".into(), col(&|s| thousands(s.summary.processes))),
        ("Connections".into(), col(&|s| thousands(s.summary.connections))),
        ("Runtime files left out".into(), col(&|s| thousands(s.summary.runtime_files))),
        ("Failed calls (left out)".into(), col(&|s| thousands(s.summary.failed))),
    ];
    if r.sessions.iter().any(|s| s.summary.denied > 0) {
        rows.push(("Denied by ward".into(), col(&|s| thousands(s.summary.denied))));
    }
    rows
}

/// One sensitive-path row across sessions: path, class, and per session `(opens, succeeded,
/// targets, executables)`.
pub(crate) type SensitiveCells = (String, String, Vec<Option<(u64, u64, u64, Vec<String>)>>);

pub(crate) fn sensitive_rows(r: &Report) -> Vec<SensitiveCells> {
    let mut rows: Vec<SensitiveCells> = Vec::new();
    for (i, s) in r.sessions.iter().enumerate() {
        for p in &s.sensitive {
            let idx = match rows.iter().position(|(path, class, _)| *path == p.path && *class == p.class_label) {
                Some(idx) => idx,
                None => {
                    rows.push((p.path.clone(), p.class_label.clone(), vec![None; r.sessions.len()]));
                    rows.len() - 1
                }
            };
            rows[idx].2[i] = Some((p.opens, p.succeeded, p.targets, p.executables.clone()));
        }
    }
    rows.sort_by_key(|(path, _, cells)| {
        let total: u64 = cells.iter().flatten().map(|c| c.0).sum();
        (std::cmp::Reverse(total), path.clone())
    });
    rows
}

/// A sensitive cell: `x49` or `x752 (256 ok)` when some failed; `-` when untouched.
pub(crate) fn sensitive_cell(c: &Option<(u64, u64, u64, Vec<String>)>) -> String {
    match c {
        None => "-".into(),
        Some((opens, ok, targets, _)) => {
            let mut s = format!("x{}", thousands(*opens));
            if ok != opens {
                s.push_str(&format!(" ({} ok)", thousands(*ok)));
            }
            if *targets > 1 {
                s.push_str(&format!(", {} PIDs", thousands(*targets)));
            }
            s
        }
    }
}

pub(crate) fn exe_names(exes: &[String]) -> String {
    let mut v: Vec<&str> = exes.iter().map(|e| e.rsplit('/').next().unwrap_or(e)).collect();
    v.sort();
    v.dedup();
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(2779), "2,779");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(duration(Some(17.94)), "17.9s");
        assert_eq!(duration(Some(122.0)), "2m 02s");
        assert_eq!(duration(None), "-");
    }
}
