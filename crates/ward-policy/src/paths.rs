//! Path helpers shared by the configuration and the filters: `~`/`$HOME`/`$PROJECT`
//! expansion of configured patterns, and cheap byte-level tests on resolved paths.

use std::path::{Path, PathBuf};

/// Where a configured pattern is anchored.
///
/// - `/abs/...` is absolute;
/// - `~/...`, `~` and `$HOME/...` are under the home directory;
/// - `$PROJECT/...` is under the project directory;
/// - anything else matches at any depth (`.env*` means `**/.env*`).
pub fn expand_pattern(pattern: &str, home: &Path, project: &Path) -> String {
    let home_s = home.to_string_lossy();
    let proj_s = project.to_string_lossy();
    if let Some(rest) = pattern.strip_prefix("~/") {
        format!("{}/{}", home_s.trim_end_matches('/'), rest)
    } else if pattern == "~" || pattern == "$HOME" {
        home_s.into_owned()
    } else if let Some(rest) = pattern.strip_prefix("$HOME/") {
        format!("{}/{}", home_s.trim_end_matches('/'), rest)
    } else if pattern == "$PROJECT" {
        proj_s.into_owned()
    } else if let Some(rest) = pattern.strip_prefix("$PROJECT/") {
        format!("{}/{}", proj_s.trim_end_matches('/'), rest)
    } else if pattern.starts_with('/') {
        pattern.to_string()
    } else {
        format!("**/{pattern}")
    }
}

/// Expands a configured directory (not a glob): `~`, `$HOME`, `$PROJECT`; a relative
/// directory is taken relative to the project.
pub fn expand_dir(dir: &str, home: &Path, project: &Path) -> PathBuf {
    if let Some(rest) = dir.strip_prefix("~/").or_else(|| dir.strip_prefix("$HOME/")) {
        home.join(rest)
    } else if dir == "~" || dir == "$HOME" {
        home.to_path_buf()
    } else if dir == "$PROJECT" {
        project.to_path_buf()
    } else if let Some(rest) = dir.strip_prefix("$PROJECT/") {
        project.join(rest)
    } else if dir.starts_with('/') {
        PathBuf::from(dir)
    } else {
        project.join(dir)
    }
}

/// Expands `~`, `~/…`, `$HOME`, `${HOME}` at the start of a shell argument (and after `=`
/// in `--opt=~/x`), so `cat ~/.ssh/id_rsa` is checked as the path it names.
pub fn expand_home_in_arg(arg: &str, home: &str) -> Option<String> {
    let (head, tail) = match arg.find('=') {
        Some(i) if arg.starts_with('-') => (&arg[..=i], &arg[i + 1..]),
        _ => ("", arg),
    };
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = tail.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with('/') {
                return Some(format!("{head}{home}{rest}"));
            }
        }
    }
    None
}

/// Whether `path` equals `dir` or lies below it (component-wise).
#[inline]
pub fn under(path: &[u8], dir: &[u8]) -> bool {
    ward_event::is_under(path, dir)
}

/// The last component of a path (the whole string when it has no `/`).
#[inline]
pub fn basename(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b == b'/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// `basename` for text.
pub fn basename_str(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Parses `/proc/<pid>/<rest>` (also `/proc/<pid>/task/<tid>/<rest>`): the pid and the
/// file below it. `self` and `thread-self` are not pids and yield `None`.
pub fn proc_pid_file(path: &[u8]) -> Option<(i32, &[u8])> {
    let rest = path.strip_prefix(b"/proc/")?;
    let end = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
    let pid_bytes = &rest[..end];
    if pid_bytes.is_empty() || !pid_bytes.iter().all(u8::is_ascii_digit) || pid_bytes.len() > 10 {
        return None;
    }
    let pid: i64 = std::str::from_utf8(pid_bytes).ok()?.parse().ok()?;
    let mut file = if end < rest.len() { &rest[end + 1..] } else { &b""[..] };
    if let Some(t) = file.strip_prefix(b"task/") {
        let e = t.iter().position(|&b| b == b'/').unwrap_or(t.len());
        file = if e < t.len() { &t[e + 1..] } else { &b""[..] };
    }
    i32::try_from(pid).ok().map(|p| (p, file))
}

/// Shows a path with the home directory as `~`.
pub fn tilde(path: &str, home: &str) -> String {
    if !home.is_empty() && home != "/" {
        if path == home {
            return "~".into();
        }
        if let Some(rest) = path.strip_prefix(home) {
            if rest.starts_with('/') {
                return format!("~{rest}");
            }
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_expand_by_anchor() {
        let h = Path::new("/home/u");
        let p = Path::new("/work/p");
        assert_eq!(expand_pattern("~/.ssh/**", h, p), "/home/u/.ssh/**");
        assert_eq!(expand_pattern("$HOME/.npmrc", h, p), "/home/u/.npmrc");
        assert_eq!(expand_pattern("$PROJECT/.git/hooks/**", h, p), "/work/p/.git/hooks/**");
        assert_eq!(expand_pattern("/etc/shadow", h, p), "/etc/shadow");
        assert_eq!(expand_pattern(".env*", h, p), "**/.env*");
        assert_eq!(expand_dir(".vscode", h, p), PathBuf::from("/work/p/.vscode"));
    }

    #[test]
    fn args_expand_home() {
        assert_eq!(expand_home_in_arg("~/.ssh/id_rsa", "/h").as_deref(), Some("/h/.ssh/id_rsa"));
        assert_eq!(expand_home_in_arg("$HOME/.npmrc", "/h").as_deref(), Some("/h/.npmrc"));
        assert_eq!(expand_home_in_arg("${HOME}", "/h").as_deref(), Some("/h"));
        assert_eq!(expand_home_in_arg("--file=~/.aws/x", "/h").as_deref(), Some("--file=/h/.aws/x"));
        assert_eq!(expand_home_in_arg("~user/x", "/h"), None);
        assert_eq!(expand_home_in_arg("a~", "/h"), None);
    }

    #[test]
    fn proc_paths_parse() {
        assert_eq!(proc_pid_file(b"/proc/42/environ"), Some((42, &b"environ"[..])));
        assert_eq!(proc_pid_file(b"/proc/42/task/43/mem"), Some((42, &b"mem"[..])));
        assert_eq!(proc_pid_file(b"/proc/42"), Some((42, &b""[..])));
        assert_eq!(proc_pid_file(b"/proc/self/environ"), None);
        assert_eq!(proc_pid_file(b"/proc/cpuinfo"), None);
        assert_eq!(proc_pid_file(b"/proc/99999999999999/environ"), None);
    }

    #[test]
    fn under_is_component_wise() {
        assert!(under(b"/a/b", b"/a"));
        assert!(under(b"/a", b"/a/"));
        assert!(!under(b"/ab", b"/a"));
        assert!(under(b"/x", b"/"));
        assert_eq!(basename(b"/usr/bin/git"), b"git");
        assert_eq!(tilde("/home/u/.npmrc", "/home/u"), "~/.npmrc");
    }
}
