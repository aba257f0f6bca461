//! Path helpers: lexical normalisation, `~` for the home directory, `/proc/<pid>/…` parsing.

/// Removes `.`, empty components and `..` (lexically) from an absolute path. Relative input is
/// returned with the same treatment, leading `..` kept.
pub fn normalize(path: &[u8]) -> Vec<u8> {
    let absolute = path.starts_with(b"/");
    let mut parts: Vec<&[u8]> = Vec::new();
    for comp in path.split(|&b| b == b'/') {
        match comp {
            b"" | b"." => {}
            b".." => {
                if parts.last().is_some_and(|p| *p != b"..") {
                    parts.pop();
                } else if !absolute {
                    parts.push(comp);
                }
            }
            c => parts.push(c),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    if absolute {
        out.push(b'/');
    }
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(p);
    }
    if out.is_empty() {
        out.push(b'.');
    }
    out
}

/// Whether `path` is `dir` or below it (whole components).
pub fn is_under(path: &[u8], dir: &[u8]) -> bool {
    ward_event::is_under(path, dir)
}

/// The path for people: `home` replaced by `~`, invalid UTF-8 replaced.
pub fn display(path: &[u8], home: Option<&[u8]>) -> String {
    if let Some(h) = home.filter(|h| h.len() > 1) {
        let h = h.strip_suffix(b"/").unwrap_or(h);
        if is_under(path, h) {
            let rest = &path[h.len()..];
            return format!("~{}", String::from_utf8_lossy(rest));
        }
    }
    String::from_utf8_lossy(path).into_owned()
}

/// What a `/proc` path is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcTarget {
    /// `/proc/<pid>/…` (or `/proc/<pid>/task/<tid>/…`).
    Pid(i32),
    /// `/proc/self/…`, `/proc/thread-self/…`.
    OwnProcess,
}

/// Splits `/proc/<pid>/<file>` (also `/proc/<pid>/task/<tid>/<file>`) into the process and the
/// file name; `None` for other paths.
pub fn proc_file(path: &[u8]) -> Option<(ProcTarget, &[u8])> {
    let rest = path.strip_prefix(b"/proc/")?;
    let mut it = rest.splitn(2, |&b| b == b'/');
    let who = it.next()?;
    let mut file = it.next()?;
    let target = match who {
        b"self" | b"thread-self" => ProcTarget::OwnProcess,
        w if !w.is_empty() && w.len() <= 10 && w.iter().all(u8::is_ascii_digit) => {
            ProcTarget::Pid(std::str::from_utf8(w).ok()?.parse().ok()?)
        }
        _ => return None,
    };
    if let Some(t) = file.strip_prefix(b"task/") {
        let slash = t.iter().position(|&b| b == b'/')?;
        file = &t[slash + 1..];
    }
    if file.is_empty() || file.contains(&b'/') {
        return None;
    }
    Some((target, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(normalize(b"/a/./b//c/../d"), b"/a/b/d");
        assert_eq!(normalize(b"/../x"), b"/x");
        assert_eq!(normalize(b"a/../../b"), b"../b");
        assert_eq!(normalize(b"/"), b"/");
    }

    #[test]
    fn home_is_tilde() {
        assert_eq!(display(b"/home/u/.npmrc", Some(b"/home/u")), "~/.npmrc");
        assert_eq!(display(b"/home/uu/.npmrc", Some(b"/home/u")), "/home/uu/.npmrc");
        assert_eq!(display(b"/home/u", Some(b"/home/u/")), "~");
    }

    #[test]
    fn proc_paths() {
        assert_eq!(proc_file(b"/proc/12/environ"), Some((ProcTarget::Pid(12), &b"environ"[..])));
        assert_eq!(proc_file(b"/proc/12/task/13/stat"), Some((ProcTarget::Pid(12), &b"stat"[..])));
        assert_eq!(proc_file(b"/proc/self/environ"), Some((ProcTarget::OwnProcess, &b"environ"[..])));
        assert_eq!(proc_file(b"/proc/sys/kernel/x"), None);
        assert_eq!(proc_file(b"/proc/12/fd/3"), None);
        assert_eq!(proc_file(b"/proc/12"), None);
    }
}
