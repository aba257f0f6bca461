//! Git hardening: after each command, find git metadata the command planted in the project
//! and remove or revert it, so the *next* `git` the user runs outside the sandbox does not run
//! the agent's code.
//!
//! The threats (each has run code through git in the wild):
//!
//! - a **fake bare repository**: any folder holding `HEAD`, `objects/` and `refs/` is a
//!   repository to git; with `core.fsmonitor = evil` in its `config`, `git status` run inside
//!   it runs `evil`. New ones are removed whole.
//! - a **changed `.git/config`** gaining a key that runs a program (`core.fsmonitor`,
//!   `core.hooksPath`, `core.sshCommand`, `core.pager`, `*.editor`, `filter.*`,
//!   `diff.*.textconv`, `credential.helper`, `include.path`, … see [`is_code_running_key`]):
//!   reverted to the content it had before the session (or, for a repository created in the
//!   session, such as `git init`/`git clone`, stripped of those keys).
//! - **new hooks** under `hooks/` (not `*.sample`): removed.
//! - a new **`.git` file** (`gitdir: …`) pointing anywhere but the project's own
//!   `.git/worktrees` or `.git/modules`: removed.
//!
//! What the user had before the session is never touched: [`GitGuard::snapshot`] records
//! every repository, config and hook that exists, and only differences are acted on.
//!
//! The walk is bounded ([`WalkLimits`]) and skips bulky generated folders (`node_modules`,
//! virtualenvs, caches, cargo `target` dirs) and the insides of repositories. All changes go
//! through [`crate::sys::fsat`]: paths are resolved beneath the project without following
//! symlinks, so a folder swapped for a symlink between the check and the removal can never
//! make ward delete or overwrite anything outside the project.

use crate::sys::fsat;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

/// What was cleaned up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CleanupKind {
    /// A repository planted in the project (bare, or its admin dir) was removed.
    FakeRepoRemoved,
    /// A `.git` file pointing outside the project's repository was removed.
    GitFileRemoved,
    /// A config that existed before was restored to its earlier content.
    ConfigReverted,
    /// Code-running keys were removed from a config created in the session.
    ConfigKeysRemoved,
    /// A new hook was removed.
    HookRemoved,
}

impl CleanupKind {
    /// Kebab-case name (`fake-repo-removed`), as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            CleanupKind::FakeRepoRemoved => "fake-repo-removed",
            CleanupKind::GitFileRemoved => "git-file-removed",
            CleanupKind::ConfigReverted => "config-reverted",
            CleanupKind::ConfigKeysRemoved => "config-keys-removed",
            CleanupKind::HookRemoved => "hook-removed",
        }
    }
}

impl std::fmt::Display for CleanupKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One action of [`GitGuard::check_and_clean`]; the supervisor records it as a
/// `git.cleanup` event (`path` = `path`, `detail` = `what: detail`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Cleanup {
    /// Absolute path of what was removed or rewritten.
    pub path: PathBuf,
    /// What was done.
    pub what: CleanupKind,
    /// Why, in words (the keys found, the hook's name, a failure to clean).
    pub detail: String,
}

/// Bounds of the project walk.
#[derive(Debug, Clone, Copy)]
pub struct WalkLimits {
    /// Directory entries looked at, at most.
    pub max_entries: usize,
    /// Depth below the project, at most.
    pub max_depth: usize,
}

impl Default for WalkLimits {
    fn default() -> Self {
        WalkLimits {
            max_entries: 500_000,
            max_depth: 40,
        }
    }
}

/// Folders not walked: bulky, generated, and not where a person runs `git`.
const SKIPPED_DIRS: [&str; 8] = [
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".gradle",
];

#[derive(Debug, Clone, PartialEq, Eq)]
struct RepoState {
    config: Option<Vec<u8>>,
    hooks: BTreeSet<OsString>,
}

/// What the walk found.
#[derive(Debug, Default)]
struct Scan {
    /// Git directories (relative to the project): `.git` dirs and bare repositories.
    repos: BTreeSet<PathBuf>,
    /// `.git` files (relative).
    gitfiles: BTreeSet<PathBuf>,
    /// Whether a limit cut the walk short.
    truncated: bool,
    /// Entries looked at.
    entries: usize,
}

/// The project's git metadata as it was before the session; see the module docs.
#[derive(Debug, Clone)]
pub struct GitGuard {
    project: PathBuf,
    repos: BTreeMap<PathBuf, RepoState>,
    /// Git dirs outside the project that it uses (worktree, parent repository): absolute.
    outside: BTreeMap<PathBuf, RepoState>,
    gitfiles: BTreeSet<PathBuf>,
    limits: WalkLimits,
}

fn is_git_dir(path: &Path) -> bool {
    path.join("HEAD").is_file() && path.join("objects").is_dir() && path.join("refs").is_dir()
}

fn scan(project: &Path, limits: WalkLimits) -> Scan {
    let mut out = Scan::default();
    let mut stack: Vec<(PathBuf, usize)> = vec![(PathBuf::new(), 0)];
    while let Some((rel, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(project.join(&rel)) else {
            continue;
        };
        let mut has = (false, false, false); // HEAD, objects, refs
        let mut subdirs = Vec::new();
        for e in rd.flatten() {
            out.entries += 1;
            if out.entries > limits.max_entries {
                out.truncated = true;
                return out;
            }
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name();
            match name.to_str() {
                Some("HEAD") if ft.is_file() => has.0 = true,
                Some("objects") if ft.is_dir() => has.1 = true,
                Some("refs") if ft.is_dir() => has.2 = true,
                Some(".git") if ft.is_file() => {
                    out.gitfiles.insert(rel.join(&name));
                }
                _ => {}
            }
            if ft.is_dir() {
                subdirs.push(name);
            }
        }
        if !rel.as_os_str().is_empty() && has == (true, true, true) {
            // A repository: recorded, its insides not walked.
            out.repos.insert(rel);
            continue;
        }
        if depth >= limits.max_depth {
            out.truncated |= !subdirs.is_empty();
            continue;
        }
        for name in subdirs {
            let n = name.to_string_lossy();
            if SKIPPED_DIRS.contains(&n.as_ref()) {
                continue;
            }
            let child = rel.join(&name);
            if n == "target" && project.join(&child).join("CACHEDIR.TAG").exists() {
                continue;
            }
            if n == ".git" {
                if is_git_dir(&project.join(&child)) {
                    out.repos.insert(child);
                }
                continue;
            }
            stack.push((child, depth + 1));
        }
    }
    out
}

fn hooks_of(git_dir: &Path) -> BTreeSet<OsString> {
    std::fs::read_dir(git_dir.join("hooks"))
        .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

fn repo_state(git_dir: &Path) -> RepoState {
    RepoState {
        config: std::fs::read(git_dir.join("config")).ok(),
        hooks: hooks_of(git_dir),
    }
}

impl GitGuard {
    /// Records the project's git metadata (call before the session starts).
    pub fn snapshot(project: &Path) -> GitGuard {
        GitGuard::snapshot_with(project, WalkLimits::default())
    }

    /// [`GitGuard::snapshot`] with explicit walk limits.
    pub fn snapshot_with(project: &Path, limits: WalkLimits) -> GitGuard {
        let project = project
            .canonicalize()
            .unwrap_or_else(|_| project.to_path_buf());
        let s = scan(&project, limits);
        let repos = s
            .repos
            .iter()
            .map(|r| (r.clone(), repo_state(&project.join(r))))
            .collect();
        let outside = crate::plan::git_dirs_outside(&project)
            .into_iter()
            .map(|g| {
                let st = repo_state(&g);
                (g, st)
            })
            .collect();
        GitGuard {
            project,
            repos,
            outside,
            gitfiles: s.gitfiles,
            limits,
        }
    }

    /// The project this guard watches (canonical).
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// Finds planted git metadata and removes or reverts it; one [`Cleanup`] per action (a
    /// failed action is reported with the failure in `detail`).
    pub fn check_and_clean(&self) -> Vec<Cleanup> {
        let mut out = Vec::new();
        let Ok(root) = fsat::open_dir(&self.project) else {
            return out;
        };
        for (dir, before) in &self.outside {
            if let Ok(root) = fsat::open_dir(dir) {
                check_config(
                    dir,
                    &root,
                    Path::new(""),
                    before.config.as_deref(),
                    &mut out,
                );
                check_hooks(dir, &root, Path::new(""), &before.hooks, &mut out);
            }
        }
        let s = scan(&self.project, self.limits);
        for rel in &s.repos {
            let abs = self.project.join(rel);
            match self.repos.get(rel) {
                Some(before) => {
                    self.check_config(&root, rel, before.config.as_deref(), &mut out);
                    self.check_hooks(&root, rel, &before.hooks, &mut out);
                }
                None if rel.file_name() == Some(OsStr::new(".git")) => {
                    // A repository made in the session (`git init`, `git clone`): keep it,
                    // but without code-running config or hooks.
                    self.check_config(&root, rel, None, &mut out);
                    self.check_hooks(&root, rel, &BTreeSet::new(), &mut out);
                }
                None => {
                    let keys = std::fs::read(abs.join("config"))
                        .map(|c| code_running_keys(&c))
                        .unwrap_or_default();
                    let detail = if keys.is_empty() {
                        "a bare repository planted in the project".to_string()
                    } else {
                        format!(
                            "a bare repository planted in the project, its config sets {}",
                            keys.join(", ")
                        )
                    };
                    out.push(act(
                        abs,
                        CleanupKind::FakeRepoRemoved,
                        detail,
                        remove_beneath(&root, rel),
                    ));
                }
            }
        }
        for rel in s.gitfiles.difference(&self.gitfiles) {
            let abs = self.project.join(rel);
            let target = std::fs::read_to_string(&abs).unwrap_or_default();
            let target = target
                .trim()
                .strip_prefix("gitdir:")
                .map(str::trim)
                .unwrap_or("")
                .to_string();
            let dir = abs.parent().unwrap_or(&self.project).join(&target);
            let own = self.project.join(".git");
            let allowed = std::fs::canonicalize(&dir)
                .map(|d| d.starts_with(own.join("worktrees")) || d.starts_with(own.join("modules")))
                .unwrap_or(false);
            if !allowed {
                let detail =
                    format!("a .git file pointing at {target:?}, outside the project's repository");
                out.push(act(
                    abs,
                    CleanupKind::GitFileRemoved,
                    detail,
                    remove_beneath(&root, rel),
                ));
            }
        }
        out
    }

    fn check_config(
        &self,
        root: &OwnedFd,
        rel: &Path,
        before: Option<&[u8]>,
        out: &mut Vec<Cleanup>,
    ) {
        check_config(&self.project, root, rel, before, out)
    }

    fn check_hooks(
        &self,
        root: &OwnedFd,
        rel: &Path,
        before: &BTreeSet<OsString>,
        out: &mut Vec<Cleanup>,
    ) {
        check_hooks(&self.project, root, rel, before, out)
    }
}

/// Reverts or strips `base/rel/config` if it gained code-running keys since `before`.
fn check_config(
    base: &Path,
    root: &OwnedFd,
    rel: &Path,
    before: Option<&[u8]>,
    out: &mut Vec<Cleanup>,
) {
    {
        let cfg_rel = rel.join("config");
        let abs = base.join(&cfg_rel);
        let Ok(now) = std::fs::read(&abs) else {
            return;
        };
        if Some(now.as_slice()) == before {
            return;
        }
        let old_keys: BTreeSet<String> = before
            .map(code_running_keys)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let new_keys: Vec<String> = code_running_keys(&now)
            .into_iter()
            .filter(|k| !old_keys.contains(k))
            .collect();
        if new_keys.is_empty() {
            return;
        }
        let (what, content) = match before {
            Some(b) => (CleanupKind::ConfigReverted, b.to_vec()),
            None => (
                CleanupKind::ConfigKeysRemoved,
                strip_code_running_keys(&now),
            ),
        };
        let detail = format!("config gained {}", new_keys.join(", "));
        out.push(act(
            abs,
            what,
            detail,
            replace_beneath(root, &cfg_rel, &content),
        ));
    }
}

/// Removes hooks in `base/rel/hooks` that `before` does not list (samples excepted).
fn check_hooks(
    base: &Path,
    root: &OwnedFd,
    rel: &Path,
    before: &BTreeSet<OsString>,
    out: &mut Vec<Cleanup>,
) {
    {
        let hooks = hooks_of(&base.join(rel));
        for name in hooks.difference(before) {
            if name.to_string_lossy().ends_with(".sample") {
                continue;
            }
            let hook_rel = rel.join("hooks").join(name);
            let detail = format!("new hook {}", name.to_string_lossy());
            out.push(act(
                base.join(&hook_rel),
                CleanupKind::HookRemoved,
                detail,
                remove_beneath(root, &hook_rel),
            ));
        }
    }
}

fn act(path: PathBuf, what: CleanupKind, detail: String, result: std::io::Result<()>) -> Cleanup {
    let detail = match result {
        Ok(()) => detail,
        Err(e) => format!("{detail}; cleaning it up FAILED: {e}"),
    };
    Cleanup { path, what, detail }
}

fn parent_beneath(root: &OwnedFd, rel: &Path) -> std::io::Result<(OwnedFd, OsString)> {
    let name = rel
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no file name"))?
        .to_os_string();
    let parent = rel
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let fd = fsat::open_beneath(root.as_fd(), parent, libc::O_RDONLY | libc::O_DIRECTORY, 0)?;
    Ok((fd, name))
}

fn remove_beneath(root: &OwnedFd, rel: &Path) -> std::io::Result<()> {
    let (dir, name) = parent_beneath(root, rel)?;
    fsat::remove_tree_at(dir.as_fd(), &name)
}

fn replace_beneath(root: &OwnedFd, rel: &Path, content: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let (dir, name) = parent_beneath(root, rel)?;
    let tmp = OsString::from(format!(".ward-restore-{}", std::process::id()));
    let _ = fsat::unlink_at(dir.as_fd(), &tmp);
    let fd = fsat::open_beneath(
        dir.as_fd(),
        Path::new(&tmp),
        libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
        0o644,
    )?;
    let mut f = std::fs::File::from(fd);
    f.write_all(content)?;
    f.sync_all()?;
    fsat::rename_at(dir.as_fd(), &tmp, &name)
}

// ---------------------------------------------------------------------------------------------
// Config scanning (pure)
// ---------------------------------------------------------------------------------------------

/// Whether a config key (`section`, optional subsection, `key`; section and key in any case)
/// makes git run a program or read another config.
pub fn is_code_running_key(section: &str, sub: Option<&str>, key: &str, value: &str) -> bool {
    let section = section.to_ascii_lowercase();
    let key = key.to_ascii_lowercase();
    match (section.as_str(), sub.is_some(), key.as_str()) {
        (_, _, "editor") => true,
        (
            "core",
            false,
            "fsmonitor"
            | "hookspath"
            | "sshcommand"
            | "pager"
            | "askpass"
            | "gitproxy"
            | "alternaterefscommand",
        ) => true,
        ("filter", true, "clean" | "smudge" | "process") => true,
        ("diff", true, "textconv" | "command") => true,
        ("diff", false, "external") => true,
        ("merge", true, "driver") => true,
        ("credential", _, "helper") => true,
        ("include", false, "path") | ("includeif", true, "path") => true,
        ("uploadpack", false, "packobjectshook") => true,
        ("gpg", _, "program") => true,
        ("pager", _, _) => true,
        ("alias", _, _) => value.trim_start().starts_with('!'),
        ("remote", true, "uploadpack" | "receivepack" | "vcs") => true,
        ("protocol", true, "allow") => {
            sub.is_some_and(|s| s.eq_ignore_ascii_case("ext"))
                && !value.trim().eq_ignore_ascii_case("never")
        }
        ("difftool" | "mergetool" | "browser" | "man", true, "cmd" | "path") => true,
        ("ssh", false, "variant") => false,
        ("sendemail", _, "smtpserver" | "tocmd" | "cccmd") => true,
        _ => false,
    }
}

/// One logical config line.
struct ConfigLine {
    /// Byte range of the physical lines it spans.
    start: usize,
    end: usize,
    /// Section header, if the line opens one: byte length of the header text (up to `]`).
    header_len: Option<usize>,
    /// The key on this line, in the section in force.
    key: Option<(String, Option<String>, String, String)>,
    /// Text this parser does not understand (git might): treated as suspicious.
    unparsed: Option<String>,
}

fn parse_header(s: &str) -> Option<(usize, String, Option<String>)> {
    let t = s.trim_start();
    let lead = s.len() - t.len();
    let rest = t.strip_prefix('[')?;
    let close = rest.find(']')?;
    let inner = &rest[..close];
    let (section, sub) = match inner.find('"') {
        Some(q) => {
            let sub = inner[q + 1..]
                .trim_end()
                .trim_end_matches('"')
                .replace("\\\"", "\"")
                .replace("\\\\", "\\");
            (inner[..q].trim().to_string(), Some(sub))
        }
        None => match inner.split_once('.') {
            Some((a, b)) => (a.trim().to_string(), Some(b.trim().to_string())),
            None => (inner.trim().to_string(), None),
        },
    };
    Some((lead + 1 + close + 1, section, sub))
}

fn parse_key(s: &str) -> Option<(String, String)> {
    let t = s.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
        return None;
    }
    let (k, v) = match t.split_once('=') {
        Some((k, v)) => (k.trim(), v.trim()),
        None => (t, "true"),
    };
    if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    Some((k.to_string(), v.to_string()))
}

fn parse_config(text: &str) -> Vec<ConfigLine> {
    let mut out = Vec::new();
    let mut section: Option<(String, Option<String>)> = None;
    let mut pos = 0;
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        let start = pos;
        // Join continuation lines (a backslash before the newline).
        let mut end = pos;
        loop {
            let nl = text[end..].find('\n').map_or(text.len(), |i| end + i);
            let line = &text[end..nl];
            end = (nl + 1).min(text.len());
            if !(line.trim_end_matches('\r').ends_with('\\') && nl < text.len()) {
                break;
            }
        }
        let logical = text[start..end].replace("\\\n", "");
        let mut header_len = None;
        let mut body = logical.as_str();
        if let Some((len, s, sub)) = parse_header(&logical) {
            section = Some((s, sub));
            header_len = Some(len);
            body = &logical[len.min(logical.len())..];
        }
        let key = match (&section, parse_key(body)) {
            (Some((s, sub)), Some((k, v))) => Some((s.clone(), sub.clone(), k, v)),
            _ => None,
        };
        let t = body.trim();
        let unparsed =
            (key.is_none() && !t.is_empty() && !t.starts_with('#') && !t.starts_with(';'))
                .then(|| t.chars().take(60).collect());
        out.push(ConfigLine {
            start,
            end,
            header_len,
            key,
            unparsed,
        });
        pos = end;
    }
    out
}

/// The code-running keys a config sets, as `section[.sub].key=value` (lower-case section and
/// key), and any line this parser does not understand (`unparsed: …`): git's syntax has corners
/// an attacker could hide a key in, so what cannot be read counts as suspicious.
pub fn code_running_keys(config: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(config);
    let lines = parse_config(&text);
    let unparsed: Vec<String> = lines
        .iter()
        .filter_map(|l| l.unparsed.as_ref())
        .map(|u| format!("unparsed: {u}"))
        .collect();
    let mut keys: Vec<String> = lines
        .into_iter()
        .filter_map(|l| l.key)
        .filter(|(s, sub, k, v)| is_code_running_key(s, sub.as_deref(), k, v))
        .map(|(s, sub, k, v)| {
            let name = match sub {
                Some(sub) => format!(
                    "{}.{}.{}",
                    s.to_ascii_lowercase(),
                    sub,
                    k.to_ascii_lowercase()
                ),
                None => format!("{}.{}", s.to_ascii_lowercase(), k.to_ascii_lowercase()),
            };
            format!("{name}={v}")
        })
        .collect();
    keys.extend(unparsed);
    keys.dedup();
    keys
}

/// The config without its code-running keys (everything else byte for byte).
pub fn strip_code_running_keys(config: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(config);
    let mut out = String::new();
    for l in parse_config(&text) {
        let raw = &text[l.start..l.end];
        let bad = l.unparsed.is_some()
            || l.key
                .as_ref()
                .is_some_and(|(s, sub, k, v)| is_code_running_key(s, sub.as_deref(), k, v));
        match (bad, l.header_len) {
            (false, _) => out.push_str(raw),
            (true, Some(len)) => {
                out.push_str(raw[..len.min(raw.len())].trim_end());
                out.push('\n');
            }
            (true, None) => {}
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn code_running_keys_are_found_in_every_spelling() {
        let cfg = b"[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch /tmp/pwned\"\n\
[CORE] HooksPath = /tmp/h\n[filter \"lfs\"]\n\tclean = evil %f\n[diff \"pdf\"]\n\ttextconv = evil\n\
[credential]\n\thelper = store\n[include]\n\tpath = ../x\n[alias]\n\tst = status\n\tx = !sh -c evil\n\
[core.subsect]\n\tnothing = 1\n[user]\n\tname = A\n";
        let keys = code_running_keys(cfg);
        assert_eq!(
            keys,
            vec![
                "core.fsmonitor=\"touch /tmp/pwned\"",
                "core.hookspath=/tmp/h",
                "filter.lfs.clean=evil %f",
                "diff.pdf.textconv=evil",
                "credential.helper=store",
                "include.path=../x",
                "alias.x=!sh -c evil",
            ]
        );
    }

    #[test]
    fn what_the_parser_cannot_read_counts_as_suspicious() {
        let keys = code_running_keys(
            b"[core]\n\tbare = false\n\t\"fsmonitor\" = evil\n[broken\n# comment\n; other\n\n",
        );
        assert_eq!(
            keys,
            vec!["unparsed: \"fsmonitor\" = evil", "unparsed: [broken"]
        );
        let stripped = strip_code_running_keys(b"[core]\n\tbare = false\n\t\"fsmonitor\" = evil\n");
        assert_eq!(
            String::from_utf8(stripped).unwrap(),
            "[core]\n\tbare = false\n"
        );
        // Real configs git writes parse cleanly.
        assert!(code_running_keys(b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n").is_empty());
    }

    #[test]
    fn stripping_keeps_everything_else_byte_for_byte() {
        let cfg = b"[core]\n\tbare = false\n\tfsmonitor = evil \\\n  continued\n[core] pager = less\n[user]\n\tname = A\n";
        let stripped = strip_code_running_keys(cfg);
        assert_eq!(
            String::from_utf8(stripped).unwrap(),
            "[core]\n\tbare = false\n[core]\n[user]\n\tname = A\n"
        );
    }

    fn run(cmd: &str, dir: &Path) {
        let ok = std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "{cmd}");
    }

    fn fake_bare(dir: &Path) {
        fs::create_dir_all(dir.join("objects")).unwrap();
        fs::create_dir_all(dir.join("refs/heads")).unwrap();
        fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(
            dir.join("config"),
            "[core]\n\tbare = true\n\tfsmonitor = touch pwned\n",
        )
        .unwrap();
    }

    #[test]
    fn planted_metadata_is_removed_and_the_users_is_kept() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        run(
            "git init -q . && git init -q --bare mine.git && mkdir -p a && echo x > a/f",
            p,
        );
        // The user's own hook and config keys predate the session: never touched.
        fs::write(p.join(".git/hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        run("git config core.pager less", p);
        fake_bare(&p.join("users-fixture"));
        let guard = GitGuard::snapshot(p);
        assert!(guard.check_and_clean().is_empty());

        // The session plants things.
        fake_bare(&p.join("a/deep/evil"));
        fs::write(p.join(".git/hooks/post-checkout"), "#!/bin/sh\nevil\n").unwrap();
        fs::write(p.join(".git/hooks/post-merge.sample"), "sample").unwrap();
        let orig_cfg = fs::read(p.join(".git/config")).unwrap();
        run(
            "git config core.fsmonitor 'touch pwned' && git config user.name Agent",
            p,
        );
        run(
            "git init -q sub && git -C sub config core.sshCommand evil",
            p,
        );
        fs::write(p.join("a/.git"), "gitdir: ../a/deep/evil\n").unwrap();
        // And legitimate things.
        run("git worktree add -q wt", p);
        fs::write(p.join("a/g"), "y").unwrap();

        let mut got: Vec<(String, CleanupKind)> = guard
            .check_and_clean()
            .into_iter()
            .map(|c| {
                assert!(!c.detail.contains("FAILED"), "{c:?}");
                (
                    c.path
                        .strip_prefix(guard.project())
                        .unwrap()
                        .display()
                        .to_string(),
                    c.what,
                )
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                (".git/config".into(), CleanupKind::ConfigReverted),
                (".git/hooks/post-checkout".into(), CleanupKind::HookRemoved),
                ("a/.git".into(), CleanupKind::GitFileRemoved),
                ("a/deep/evil".into(), CleanupKind::FakeRepoRemoved),
                ("sub/.git/config".into(), CleanupKind::ConfigKeysRemoved),
            ]
        );
        assert!(!p.join("a/deep/evil").exists() && p.join("a/deep").exists());
        assert_eq!(fs::read(p.join(".git/config")).unwrap(), orig_cfg);
        assert!(p.join(".git/hooks/pre-commit").exists() && p.join("users-fixture/HEAD").exists());
        assert!(
            p.join("mine.git/HEAD").exists()
                && p.join("wt/.git").exists()
                && p.join("a/g").exists()
        );
        assert!(code_running_keys(&fs::read(p.join("sub/.git/config")).unwrap()).is_empty());
        // Idempotent.
        assert!(guard.check_and_clean().is_empty());
    }

    #[test]
    fn the_repository_of_a_worktree_project_is_guarded_too() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        run("git init -q repo && git -C repo -c user.name=a -c user.email=a@b commit -q --allow-empty -m i && git -C repo worktree add -q ../wt", p);
        let guard = GitGuard::snapshot(&p.join("wt"));
        fs::write(p.join("repo/.git/hooks/post-checkout"), "evil").unwrap();
        run("git -C repo config core.fsmonitor evil", p);
        let mut got: Vec<CleanupKind> = guard
            .check_and_clean()
            .into_iter()
            .map(|c| c.what)
            .collect();
        got.sort();
        assert_eq!(
            got,
            vec![CleanupKind::ConfigReverted, CleanupKind::HookRemoved]
        );
        assert!(!p.join("repo/.git/hooks/post-checkout").exists());
    }

    #[test]
    fn a_symlink_swapped_in_never_leads_outside() {
        let t = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let p = t.path();
        fake_bare(&outside.path().join("victim"));
        let guard = GitGuard::snapshot(p);
        // A planted repository whose parent is then a symlink to a folder outside.
        fs::create_dir(p.join("x")).unwrap();
        fake_bare(&p.join("x/evil"));
        let s = scan(&guard.project, guard.limits);
        assert!(s.repos.contains(Path::new("x/evil")));
        fs::rename(p.join("x"), p.join("x.old")).unwrap();
        std::os::unix::fs::symlink(outside.path(), p.join("x")).unwrap();
        fs::rename(outside.path().join("victim"), outside.path().join("evil")).unwrap();
        let root = fsat::open_dir(&guard.project).unwrap();
        assert!(remove_beneath(&root, Path::new("x/evil")).is_err());
        assert!(outside.path().join("evil/HEAD").exists());
    }

    #[test]
    fn thousands_of_files_are_checked_quickly() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        run("git init -q .", p);
        for d in 0..200 {
            let dir = p.join(format!("src/m{d}/inner"));
            fs::create_dir_all(&dir).unwrap();
            for f in 0..25 {
                fs::write(dir.join(format!("f{f}.rs")), "").unwrap();
            }
        }
        let guard = GitGuard::snapshot(p);
        let start = std::time::Instant::now();
        let n = 5;
        for _ in 0..n {
            assert!(guard.check_and_clean().is_empty());
        }
        let each = start.elapsed() / n;
        eprintln!("git guard: check_and_clean over 5000 files / 400 dirs took {each:?}");
        assert!(each < std::time::Duration::from_millis(500), "{each:?}");
    }
}
