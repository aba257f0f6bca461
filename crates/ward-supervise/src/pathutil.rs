//! Pure path arithmetic used by the emulation: joining, splitting off the last component,
//! lexical normalisation for events about paths that do not exist, and mapping `/proc/self`
//! and friends to the calling process (ward resolving `/proc/self` itself would mean *ward*).

/// Joins `rel` onto `base` (`rel` absolute → `rel`).
pub fn join(base: &[u8], rel: &[u8]) -> Vec<u8> {
    if rel.starts_with(b"/") || base.is_empty() {
        return rel.to_vec();
    }
    let mut out = base.to_vec();
    if !out.ends_with(b"/") {
        out.push(b'/');
    }
    out.extend_from_slice(rel);
    out
}

/// Lexically normalises an absolute path: collapses `//`, `.`, and `..` (used only to record a
/// path that could not be resolved, e.g. a missing file).
pub fn normalize(path: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::new();
    for comp in path.split(|&b| b == b'/') {
        match comp {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    for p in &parts {
        out.push(b'/');
        out.extend_from_slice(p);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

/// Splits a path into its directory part and last component: `a/b/c` → (`a/b`, `c`),
/// `c` → (`.`, `c`), `/c` → (`/`, `c`), `a/b/` → (`a`, `b`). `None` for an empty path or `/`.
pub fn split_last(path: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut end = path.len();
    while end > 1 && path[end - 1] == b'/' {
        end -= 1;
    }
    let trimmed = &path[..end];
    if trimmed.is_empty() || trimmed == b"/" {
        return None;
    }
    match trimmed.iter().rposition(|&b| b == b'/') {
        None => Some((b".".to_vec(), trimmed.to_vec())),
        Some(0) => Some((b"/".to_vec(), trimmed[1..].to_vec())),
        Some(i) => Some((trimmed[..i].to_vec(), trimmed[i + 1..].to_vec())),
    }
}

/// Rewrites an absolute path that names the caller through `/proc/self`, `/proc/thread-self`,
/// `/dev/fd`, `/dev/stdin|stdout|stderr` into `/proc/PID/…` for the given (namespace-relative)
/// process and thread ids. `None` if the path does not start with one of those.
pub fn rewrite_self(path: &[u8], pid: i32, tid: i32) -> Option<Vec<u8>> {
    let table: [(&[u8], String); 6] = [
        (b"/proc/self", format!("/proc/{pid}")),
        (b"/proc/thread-self", format!("/proc/{pid}/task/{tid}")),
        (b"/dev/fd", format!("/proc/{pid}/fd")),
        (b"/dev/stdin", format!("/proc/{pid}/fd/0")),
        (b"/dev/stdout", format!("/proc/{pid}/fd/1")),
        (b"/dev/stderr", format!("/proc/{pid}/fd/2")),
    ];
    // Tolerate repeated slashes at the start ("//proc/self").
    let start = path.iter().position(|&b| b != b'/').unwrap_or(path.len());
    if start == 0 {
        return None;
    }
    let p = &path[start - 1..];
    for (prefix, replacement) in table {
        if p.starts_with(prefix) && (p.len() == prefix.len() || p[prefix.len()] == b'/') {
            let mut out = replacement.into_bytes();
            out.extend_from_slice(&p[prefix.len()..]);
            return Some(out);
        }
    }
    None
}

/// `self/…` or `thread-self/…` looked up in a procfs root directory (`openat(proc_fd,
/// "self/status")`), made the caller's own entry: `PID/…` or `PID/task/TID/…`.
pub fn rewrite_self_in_proc(rel: &[u8], pid: i32, tid: i32) -> Option<Vec<u8>> {
    let end = rel.iter().position(|&b| b == b'/').unwrap_or(rel.len());
    let mut out = match &rel[..end] {
        b"self" => format!("{pid}").into_bytes(),
        b"thread-self" => format!("{pid}/task/{tid}").into_bytes(),
        _ => return None,
    };
    out.extend_from_slice(&rel[end..]);
    Some(out)
}

/// A `/proc/PID/…` path whose resolution goes through a magic link (`fd/N`, `cwd`, `root`,
/// `exe`, `ns/X`, `map_files/X`, also under `task/TID/`): the prefix up to and including the
/// magic component, the pid, whether it is `root` (the rest resolves inside it), and the rest.
#[derive(Debug, PartialEq, Eq)]
pub struct MagicPath {
    /// `/proc/PID/fd/3`, `/proc/PID/cwd`, …
    pub prefix: Vec<u8>,
    /// The process id in the path.
    pub pid: i32,
    /// The magic component is `root`.
    pub is_root: bool,
    /// What follows the magic component (no leading slash), possibly empty.
    pub rest: Vec<u8>,
}

/// Recognises a magic-link path (see [`MagicPath`]); the path must be absolute and normalised
/// enough that `/proc` is its first component.
pub fn magic_path(path: &[u8]) -> Option<MagicPath> {
    let comps: Vec<&[u8]> = path
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
        .collect();
    if comps.len() < 3 || comps[0] != b"proc" {
        return None;
    }
    let pid: i32 = std::str::from_utf8(comps[1]).ok()?.parse().ok()?;
    let mut i = 2;
    if comps.get(i) == Some(&&b"task"[..]) {
        std::str::from_utf8(comps.get(i + 1)?).ok()?.parse::<i32>().ok()?;
        i += 2;
    }
    let magic = *comps.get(i)?;
    let take = match magic {
        b"cwd" | b"root" | b"exe" => 1,
        b"fd" | b"ns" | b"map_files" => {
            comps.get(i + 1)?;
            2
        }
        _ => return None,
    };
    let end = i + take;
    let mut prefix = Vec::new();
    for c in &comps[..end] {
        prefix.push(b'/');
        prefix.extend_from_slice(c);
    }
    let rest = comps[end..].join(&b'/');
    Some(MagicPath {
        prefix,
        pid,
        is_root: magic == b"root",
        rest,
    })
}

/// If `path` is `/proc/N/…` or `/proc/N`, the number `N`.
pub fn proc_pid(path: &[u8]) -> Option<i32> {
    let rest = path.strip_prefix(b"/proc/")?;
    let end = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// Decodes the first 24 bytes of a `struct open_how` (openat2) as `(flags, mode, resolve)`,
/// native-endian. `None` when fewer than 24 bytes are given. Bytes past the first 24 (a larger
/// struct from a newer ABI) are not looked at.
pub fn parse_open_how(bytes: &[u8]) -> Option<(u64, u64, u64)> {
    let word = |i: usize| -> Option<u64> { Some(u64::from_ne_bytes(bytes.get(i * 8..i * 8 + 8)?.try_into().ok()?)) };
    Some((word(0)?, word(1)?, word(2)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_normalizes() {
        assert_eq!(join(b"/a/b", b"c"), b"/a/b/c");
        assert_eq!(join(b"/a/b/", b"c"), b"/a/b/c");
        assert_eq!(join(b"/a", b"/x"), b"/x");
        assert_eq!(normalize(b"/a//b/./c/../d"), b"/a/b/d");
        assert_eq!(normalize(b"/../../x"), b"/x");
        assert_eq!(normalize(b"/"), b"/");
    }

    #[test]
    fn splits_last_component() {
        let s = |p: &[u8]| split_last(p).map(|(a, b)| (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap()));
        assert_eq!(s(b"a/b/c"), Some(("a/b".into(), "c".into())));
        assert_eq!(s(b"c"), Some((".".into(), "c".into())));
        assert_eq!(s(b"/c"), Some(("/".into(), "c".into())));
        assert_eq!(s(b"a/b//"), Some(("a".into(), "b".into())));
        assert_eq!(s(b"/"), None);
        assert_eq!(s(b""), None);
    }

    #[test]
    fn rewrites_self_references() {
        assert_eq!(rewrite_self(b"/proc/self/environ", 7, 9).unwrap(), b"/proc/7/environ");
        assert_eq!(rewrite_self(b"/proc/self", 7, 9).unwrap(), b"/proc/7");
        assert_eq!(rewrite_self(b"/proc/thread-self/comm", 7, 9).unwrap(), b"/proc/7/task/9/comm");
        assert_eq!(rewrite_self(b"/dev/fd/3", 7, 9).unwrap(), b"/proc/7/fd/3");
        assert_eq!(rewrite_self(b"/dev/stdin", 7, 9).unwrap(), b"/proc/7/fd/0");
        assert_eq!(rewrite_self(b"//proc/self/maps", 7, 9).unwrap(), b"/proc/7/maps");
        assert_eq!(rewrite_self(b"/proc/selfish", 7, 9), None);
        assert_eq!(rewrite_self(b"proc/self", 7, 9), None);
        assert_eq!(rewrite_self(b"/etc/passwd", 7, 9), None);
    }

    #[test]
    fn recognises_magic_links() {
        let m = magic_path(b"/proc/12/fd/3").unwrap();
        assert_eq!((m.prefix.as_slice(), m.pid, m.is_root, m.rest.as_slice()), (&b"/proc/12/fd/3"[..], 12, false, &b""[..]));
        let m = magic_path(b"/proc/12/root/etc/passwd").unwrap();
        assert_eq!((m.prefix.as_slice(), m.is_root, m.rest.as_slice()), (&b"/proc/12/root"[..], true, &b"etc/passwd"[..]));
        let m = magic_path(b"/proc/12/task/13/cwd/x").unwrap();
        assert_eq!((m.prefix.as_slice(), m.rest.as_slice()), (&b"/proc/12/task/13/cwd"[..], &b"x"[..]));
        assert_eq!(magic_path(b"/proc/12/environ"), None);
        assert_eq!(magic_path(b"/proc/12/fd"), None);
        assert_eq!(magic_path(b"/proc/self/fd/1"), None);
        assert_eq!(proc_pid(b"/proc/55/environ"), Some(55));
        assert_eq!(proc_pid(b"/proc/55"), Some(55));
        assert_eq!(proc_pid(b"/proc/sys/x"), None);
    }

    #[test]
    fn parses_open_how() {
        let mut how = Vec::new();
        for w in [0o100101u64, 0o644, 0x08] {
            how.extend_from_slice(&w.to_ne_bytes());
        }
        assert_eq!(parse_open_how(&how), Some((0o100101, 0o644, 0x08)));
        how.extend_from_slice(&[0xff; 8]);
        assert_eq!(parse_open_how(&how), Some((0o100101, 0o644, 0x08)));
        for len in 0..24 {
            assert_eq!(parse_open_how(&how[..len]), None);
        }
    }

    #[test]
    fn self_relative_to_a_proc_directory_becomes_the_callers_pid() {
        assert_eq!(rewrite_self_in_proc(b"self/mountinfo", 7, 9).unwrap(), b"7/mountinfo");
        assert_eq!(rewrite_self_in_proc(b"self", 7, 9).unwrap(), b"7");
        assert_eq!(rewrite_self_in_proc(b"thread-self/stat", 7, 9).unwrap(), b"7/task/9/stat");
        assert_eq!(rewrite_self_in_proc(b"selfish/x", 7, 9), None);
        assert_eq!(rewrite_self_in_proc(b"1/self", 7, 9), None);
    }
}
