//! GitHub-flavoured Markdown: tables and bullet lists that paste into an issue as they are.

use super::{exe_names, sensitive_cell, sensitive_rows, summary_rows, thousands, RenderOptions};
use crate::analyze::Report;
use std::fmt::Write as _;

/// Escapes a table cell: `|` and newlines would break the row; backticks would break code spans.
fn cell(s: &str) -> String {
    s.replace('\\', "\\\\").replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Running text (a list item): Markdown's special characters escaped, so `/proc/<pid>/…` is not
/// taken for an HTML tag nor `__x__` for emphasis.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '*' | '_' | '[' | ']' | '`' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A path or address in a code span (with a `|` escaped, which GitHub honours in tables).
fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ").replace('|', "\\|");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// Renders the report as Markdown.
pub fn render_markdown(r: &Report, opts: &RenderOptions) -> String {
    let mut out = String::new();
    let many = r.sessions.len() > 1;
    let _ = writeln!(out, "### ward report\n");
    for s in &r.sessions {
        let mut line = format!("- **{}**", cell(&s.label));
        if let Some(cmd) = &s.command {
            line.push_str(&format!(": {}", code(&cmd.join(" "))));
        }
        line.push_str(&format!(" in {}", code(&s.project)));
        if let Some(start) = &s.start {
            line.push_str(&format!(", {}", start.get(..19).unwrap_or(start).replace('T', " ")));
        }
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out);

    let mut header = vec![String::new()];
    header.extend(r.sessions.iter().map(|s| cell(&s.label)));
    row(&mut out, &header);
    row(&mut out, &vec!["---".to_string(); header.len()]);
    for (label, cells) in summary_rows(r) {
        let mut c = vec![label];
        c.extend(cells);
        row(&mut out, &c);
    }

    let srows = sensitive_rows(r);
    let _ = writeln!(out, "\n#### Sensitive paths\n");
    if srows.is_empty() {
        let _ = writeln!(out, "None touched.");
    } else {
        let mut header = vec!["Path".to_string(), "Class".to_string()];
        if many {
            header.extend(r.sessions.iter().map(|s| cell(&s.label)));
        } else {
            header.extend(["Opens".to_string(), "Executables".to_string()]);
        }
        row(&mut out, &header);
        row(&mut out, &vec!["---".to_string(); header.len()]);
        for (p, c, cells) in &srows {
            let mut line = vec![code(p), cell(c)];
            if many {
                line.extend(cells.iter().map(sensitive_cell));
            } else {
                line.push(sensitive_cell(&cells[0]));
                line.push(cell(&cells[0].as_ref().map(|x| exe_names(&x.3)).unwrap_or_default()));
            }
            row(&mut out, &line);
        }
    }

    for s in &r.sessions {
        let suffix = if many { format!(" — {}", cell(&s.label)) } else { String::new() };
        let _ = writeln!(out, "\n#### Findings{suffix}\n");
        if s.findings.is_empty() {
            let _ = writeln!(out, "Nothing stands out.");
        }
        for f in &s.findings {
            let _ = writeln!(out, "- {}", text(&f.text));
            for (i, e) in f.evidence.iter().enumerate() {
                if i == opts.max_items {
                    let _ = writeln!(out, "  - … and {} more", f.evidence.len() - opts.max_items);
                    break;
                }
                let _ = writeln!(out, "  - {}", code(e));
            }
        }
        if s.runtime_excluded.iter().any(|x| x.files > 0) {
            let _ = writeln!(out, "\n<details><summary>Runtime files left out of the counts{suffix}</summary>\n");
            row(&mut out, &["Rule".into(), "Pattern".into(), "Files".into()]);
            row(&mut out, &["---".into(), "---".into(), "---:".into()]);
            for x in s.runtime_excluded.iter().filter(|x| x.files > 0) {
                row(&mut out, &[code(&x.rule), code(&x.pattern), thousands(x.files)]);
            }
            let _ = writeln!(out, "\n</details>");
        }
        if !s.denied.is_empty() {
            let _ = writeln!(out, "\n#### Denied{suffix}\n");
            row(&mut out, &["Seq".into(), "Operation".into(), "Target".into(), "Why".into()]);
            row(&mut out, &vec!["---".to_string(); 4]);
            for d in &s.denied {
                row(
                    &mut out,
                    &[
                        d.seq.to_string(),
                        code(&d.kind),
                        code(&d.target),
                        cell(&format!("{} ({})", d.reasons.join("; "), d.by)),
                    ],
                );
            }
        }
        if let Some(imp) = &s.import {
            let _ = writeln!(
                out,
                "\n_strace import: {} lines, {} not understood._",
                thousands(imp.lines),
                thousands(imp.not_understood)
            );
            for p in &imp.problems {
                let _ = writeln!(out, "- line {}: {} ({})", p.line, code(&p.text), text(&p.reason));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_text_is_escaped_for_github() {
        assert_eq!(text("/proc/<pid>/environ of __x__ *y*"), "/proc/&lt;pid&gt;/environ of \\_\\_x\\_\\_ \\*y\\*");
        assert_eq!(cell("a|b"), "a\\|b");
        assert_eq!(code("a`b"), "`` a`b ``");
    }
}
