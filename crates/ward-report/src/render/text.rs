//! Terminal text: every line fits `width` columns (long paths are shortened in the middle,
//! long sentences wrapped); ANSI colour only when asked.

use super::{exe_names, sensitive_cell, sensitive_rows, summary_rows, thousands, RenderOptions};
use crate::analyze::{Report, SessionReport};
use std::fmt::Write as _;

struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn title(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn warn(&self, s: &str) -> String {
        self.paint("33", s)
    }
    fn bad(&self, s: &str) -> String {
        self.paint("31", s)
    }
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
}

fn width_of(s: &str) -> usize {
    s.chars().count()
}

/// Shortens `s` to `max` columns by cutting the middle.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    let n = width_of(s);
    if n <= max {
        return s.to_string();
    }
    if max <= 1 {
        return "…".chars().take(max).collect();
    }
    let keep = max - 1;
    let head = keep / 2;
    let tail = keep - head;
    let chars: Vec<char> = s.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(chars[n - tail..].iter());
    out
}

/// Wraps `s` to `width` columns; continuation lines start with `indent` spaces.
fn wrap(s: &str, first_prefix: &str, indent: usize, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = first_prefix.to_string();
    let mut cur_w = width_of(first_prefix);
    let mut empty = true;
    for word in s.split(' ') {
        let w = width_of(word);
        if !empty && cur_w + 1 + w > width {
            lines.push(std::mem::take(&mut cur));
            cur = " ".repeat(indent);
            cur_w = indent;
            empty = true;
        }
        let room = width.saturating_sub(cur_w + usize::from(!empty)).max(1);
        let word = if w > room { shorten(word, room) } else { word.to_string() };
        if !empty {
            cur.push(' ');
            cur_w += 1;
        }
        cur_w += width_of(&word);
        cur.push_str(&word);
        empty = false;
    }
    lines.push(cur);
    lines
}

/// Lays out a table: column `flex` shrinks (middle-cut) so each line fits `width`.
fn table(out: &mut String, header: &[String], rows: &[Vec<String>], flex: usize, width: usize, style: &Style) {
    // Columns whose every cell is a number (or `-`) are right-aligned.
    let numeric: Vec<bool> = (0..header.len())
        .map(|c| {
            c > 0
                && rows.iter().all(|r| {
                    r[c] == "-" || r[c].trim_end_matches('s').chars().all(|ch| ch.is_ascii_digit() || ch == ',' || ch == '.')
                })
        })
        .collect();
    let ncol = header.len();
    let mut w: Vec<usize> = (0..ncol)
        .map(|c| {
            rows.iter()
                .map(|r| width_of(&r[c]))
                .chain(std::iter::once(width_of(&header[c])))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * (w.len().saturating_sub(1));
    while total(&w) > width {
        // Shrink the flexible column first, then the widest other one.
        let over = total(&w) - width;
        let (c, floor) = if w[flex] > 12 { (flex, 12) } else {
            let c = (0..ncol).max_by_key(|&c| w[c]).unwrap_or(0);
            (c, 4)
        };
        if w[c] <= floor {
            break;
        }
        w[c] = (w[c] - over.min(w[c] - floor)).max(floor);
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let cell = shorten(cell, w[c]);
            if numeric[c] {
                let _ = write!(s, "{cell:>width$}  ", width = w[c]);
            } else if c + 1 == ncol {
                s.push_str(&cell);
            } else {
                let _ = write!(s, "{cell:<width$}  ", width = w[c]);
            }
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", style.dim(&line(header)));
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
}

/// Renders the report as terminal text.
pub fn render_text(r: &Report, opts: &RenderOptions) -> String {
    let style = Style { on: opts.color };
    let width = opts.width.max(40);
    let mut out = String::new();
    let many = r.sessions.len() > 1;

    for s in &r.sessions {
        let head = format!(
            "{} {}",
            style.title(&format!("Session {}", s.label)),
            style.dim(&format!("({})", source_words(s)))
        );
        let _ = writeln!(out, "{head}");
        if let Some(cmd) = &s.command {
            let _ = writeln!(out, "  command  {}", shorten(&cmd.join(" "), width - 11));
        }
        let _ = writeln!(out, "  project  {}", shorten(&s.project, width - 11));
        if let Some(start) = &s.start {
            let _ = writeln!(out, "  started  {}", start.get(..19).unwrap_or(start).replace('T', " "));
        }
    }
    let _ = writeln!(out);

    // Summary.
    let _ = writeln!(out, "{}", style.title("Summary"));
    let mut header = vec![String::new()];
    header.extend(r.sessions.iter().map(|s| s.label.clone()));
    let rows: Vec<Vec<String>> = summary_rows(r)
        .into_iter()
        .map(|(label, cells)| std::iter::once(label).chain(cells).collect())
        .collect();
    table(&mut out, &header, &rows, 0, width, &style);

    // Sensitive paths.
    let srows = sensitive_rows(r);
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.title("Sensitive paths"));
    if srows.is_empty() {
        let _ = writeln!(out, "  none touched");
    } else {
        let mut header = vec!["Path".to_string(), "Class".to_string()];
        let rows: Vec<Vec<String>> = if many {
            header.extend(r.sessions.iter().map(|s| s.label.clone()));
            srows
                .iter()
                .map(|(p, c, cells)| {
                    let mut row = vec![p.clone(), c.clone()];
                    row.extend(cells.iter().map(sensitive_cell));
                    row
                })
                .collect()
        } else {
            header.extend(["Opens".to_string(), "Executables".to_string()]);
            srows
                .iter()
                .map(|(p, c, cells)| {
                    vec![
                        p.clone(),
                        c.clone(),
                        sensitive_cell(&cells[0]),
                        cells[0].as_ref().map(|x| exe_names(&x.3)).unwrap_or_default(),
                    ]
                })
                .collect()
        };
        table(&mut out, &header, &rows, 0, width, &style);
    }

    for s in &r.sessions {
        session_details(&mut out, s, many, width, opts.max_items, &style);
    }
    out
}

fn source_words(s: &SessionReport) -> String {
    match s.source {
        crate::session::Source::Audit => format!("audit store, {}", s.id),
        crate::session::Source::Events => format!("events file, {}", s.id),
        crate::session::Source::Strace => "strace log".to_string(),
    }
}

fn session_details(out: &mut String, s: &SessionReport, many: bool, width: usize, max_items: usize, style: &Style) {
    let suffix = if many { format!(" — {}", s.label) } else { String::new() };
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.title(&format!("Findings{suffix}")));
    if s.findings.is_empty() {
        let _ = writeln!(out, "  nothing stands out");
    }
    for f in &s.findings {
        let text = match f.kind.as_str() {
            "nonstandard-port" => style.warn(&f.text),
            "denied" => style.bad(&f.text),
            _ => f.text.clone(),
        };
        // Wrap on the plain text, then colour each line (escape codes have no width).
        let plain = wrap(&f.text, "  • ", 4, width);
        if plain.len() == 1 && text != f.text {
            let _ = writeln!(out, "  • {text}");
        } else {
            for l in plain {
                let _ = writeln!(out, "{l}");
            }
        }
        for (i, e) in f.evidence.iter().enumerate() {
            if i == max_items {
                let _ = writeln!(out, "      … and {} more", f.evidence.len() - max_items);
                break;
            }
            let _ = writeln!(out, "      {}", shorten(e, width - 6));
        }
    }

    let active: Vec<_> = s.runtime_excluded.iter().filter(|x| x.files > 0).collect();
    if !active.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", style.title(&format!("Runtime files left out of the counts{suffix}")));
        let rows: Vec<Vec<String>> = active
            .iter()
            .map(|x| vec![x.rule.clone(), x.pattern.clone(), thousands(x.files)])
            .collect();
        table(out, &["Rule".into(), "Pattern".into(), "Files".into()], &rows, 1, width, style);
    }

    if !s.denied.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", style.bad(&style.title(&format!("Denied{suffix}"))));
        let rows: Vec<Vec<String>> = s
            .denied
            .iter()
            .take(max_items.max(50))
            .map(|d| {
                vec![
                    format!("#{}", d.seq),
                    d.kind.clone(),
                    d.target.clone(),
                    format!("{} ({})", if d.reasons.is_empty() { "-".into() } else { d.reasons.join("; ") }, d.by),
                ]
            })
            .collect();
        table(out, &["Seq".into(), "Operation".into(), "Target".into(), "Why".into()], &rows, 3, width, style);
    }

    if let Some(imp) = &s.import {
        let _ = writeln!(out);
        let files = imp.files.join(", ");
        let mut line = format!(
            "strace import: {} lines from {}",
            thousands(imp.lines),
            shorten(&files, 40)
        );
        if imp.not_understood > 0 {
            line.push_str(&format!(", {} not understood", thousands(imp.not_understood)));
        }
        if imp.unfinished > 0 {
            line.push_str(&format!(", {} calls never finished", thousands(imp.unfinished)));
        }
        if imp.truncated_strings > 0 {
            line.push_str(&format!(", {} strings truncated by strace", thousands(imp.truncated_strings)));
        }
        for l in wrap(&line, "", 2, width) {
            let _ = writeln!(out, "{}", style.dim(&l));
        }
        for p in &imp.problems {
            let l = format!("  line {}: {} — {}", p.line, p.text, p.reason);
            let _ = writeln!(out, "{}", style.dim(&shorten(&l, width)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_the_middle() {
        assert_eq!(shorten("abcdef", 10), "abcdef");
        assert_eq!(shorten("abcdefghij", 5), "ab…ij");
        assert_eq!(width_of(&shorten(&"x".repeat(300), 100)), 100);
    }

    #[test]
    fn wrap_fits() {
        let long = "word ".repeat(60) + &"y".repeat(150);
        for l in wrap(&long, "  • ", 4, 100) {
            assert!(width_of(&l) <= 100, "{l}");
        }
    }
}
