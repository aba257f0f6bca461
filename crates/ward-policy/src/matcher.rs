//! A glob set with cheap prefilters, for the hot path (`decide` runs for every open).
//!
//! `globset` answers "which of these globs match this path", but patterns it can't reduce
//! to a literal, prefix, suffix or extension run as one regex set over every path, which
//! costs about a microsecond. Most paths an agent touches (`/usr/…`, the project) can't
//! match most patterns, and that is decidable from literals:
//!
//! - an *anchored* pattern (`/home/u/.cargo/credentials*`) needs the path to start with its
//!   literal prefix; prefixes are indexed by their directory, so a path is checked with one
//!   hash lookup per ancestor directory, and the anchored set runs only when one fits;
//! - an *anywhere* pattern (`**/.env.*`, `**/*.pem`) needs its longest literal piece
//!   somewhere in the path; the anywhere set runs only when one is present.
//!
//! The prefilters only skip sets that cannot match, so results equal a plain `GlobSet`'s.

use crate::config::compile_glob;
use globset::{Candidate, GlobSet, GlobSetBuilder};
use std::collections::HashMap;
use std::path::Path;

const META: &[u8] = b"*?[{\\";

/// Globs with prefilters; `matches_into` yields the indices patterns were added with.
#[derive(Debug, Clone)]
pub struct PathMatcher {
    anchored: GlobSet,
    anchored_ids: Vec<usize>,
    /// Directory of a literal prefix → the rest of the prefixes in that directory.
    prefixes: HashMap<Vec<u8>, Vec<Vec<u8>>>,
    anywhere: GlobSet,
    anywhere_ids: Vec<usize>,
    /// Literal pieces one of which must occur for an anywhere pattern to match; `None`
    /// when some pattern has none (the set always runs).
    needles: Option<Vec<Vec<u8>>>,
}

/// Builds a [`PathMatcher`].
#[derive(Default)]
pub struct PathMatcherBuilder {
    patterns: Vec<(String, usize)>,
}

impl PathMatcherBuilder {
    /// Adds a pattern under `id`.
    pub fn add(&mut self, pattern: &str, id: usize) -> Result<(), globset::Error> {
        compile_glob(pattern)?;
        self.patterns.push((pattern.to_string(), id));
        Ok(())
    }

    /// Compiles.
    pub fn build(self) -> Result<PathMatcher, globset::Error> {
        let mut anchored = GlobSetBuilder::new();
        let mut anywhere = GlobSetBuilder::new();
        let mut m = PathMatcher::empty();
        for (p, id) in &self.patterns {
            let g = compile_glob(p)?;
            let bytes = p.as_bytes();
            if bytes.starts_with(b"/") {
                let lit_end = bytes.iter().position(|b| META.contains(b)).unwrap_or(bytes.len());
                let lit = &bytes[..lit_end];
                let slash = lit.iter().rposition(|&b| b == b'/').unwrap_or(0);
                m.prefixes.entry(lit[..slash].to_vec()).or_default().push(lit[slash + 1..].to_vec());
                anchored.add(g);
                m.anchored_ids.push(*id);
            } else {
                let needle = longest_literal(bytes);
                match (&mut m.needles, needle) {
                    (Some(n), Some(lit)) => n.push(lit),
                    (n, _) => *n = None,
                }
                anywhere.add(g);
                m.anywhere_ids.push(*id);
            }
        }
        m.anchored = anchored.build()?;
        m.anywhere = anywhere.build()?;
        Ok(m)
    }
}

/// The longest run of literal bytes in a pattern (at least 2 bytes), not counting `/`.
fn longest_literal(p: &[u8]) -> Option<Vec<u8>> {
    let mut best: &[u8] = &[];
    for piece in p.split(|b| META.contains(b) || *b == b'/') {
        if piece.len() > best.len() {
            best = piece;
        }
    }
    (best.len() >= 2).then(|| best.to_vec())
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    if needle.len() > hay.len() {
        return false;
    }
    let first = needle[0];
    let last = hay.len() - needle.len();
    let mut i = 0;
    while i <= last {
        match hay[i..=last].iter().position(|&b| b == first) {
            None => return false,
            Some(off) => {
                let at = i + off;
                if &hay[at..at + needle.len()] == needle {
                    return true;
                }
                i = at + 1;
            }
        }
    }
    false
}

impl PathMatcher {
    /// An empty matcher.
    pub fn empty() -> PathMatcher {
        PathMatcher {
            anchored: GlobSet::empty(),
            anchored_ids: Vec::new(),
            prefixes: HashMap::new(),
            anywhere: GlobSet::empty(),
            anywhere_ids: Vec::new(),
            needles: Some(Vec::new()),
        }
    }

    fn anchored_may_match(&self, path: &[u8]) -> bool {
        if self.prefixes.is_empty() {
            return false;
        }
        for (i, &b) in path.iter().enumerate() {
            if b != b'/' {
                continue;
            }
            if let Some(tails) = self.prefixes.get(&path[..i]) {
                let rest = &path[i + 1..];
                if tails.iter().any(|t| rest.starts_with(t)) {
                    return true;
                }
            }
        }
        false
    }

    fn anywhere_may_match(&self, path: &[u8]) -> bool {
        match &self.needles {
            None => !self.anywhere_ids.is_empty(),
            Some(n) => n.iter().any(|needle| contains(path, needle)),
        }
    }

    /// Clears `out` and fills it with the ids of the patterns `path` matches.
    pub fn matches_into(&self, path: &[u8], out: &mut Vec<usize>, scratch: &mut Vec<usize>) {
        out.clear();
        let a = self.anchored_may_match(path);
        let w = self.anywhere_may_match(path);
        if !a && !w {
            return;
        }
        let cand = Candidate::new(bytes_path(path));
        if a {
            self.anchored.matches_candidate_into(&cand, scratch);
            out.extend(scratch.iter().map(|&i| self.anchored_ids[i]));
        }
        if w {
            self.anywhere.matches_candidate_into(&cand, scratch);
            out.extend(scratch.iter().map(|&i| self.anywhere_ids[i]));
        }
    }

    /// The ids `path` matches (allocating; for cold paths).
    pub fn matches(&self, path: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        self.matches_into(path, &mut out, &mut Vec::new());
        out
    }
}

fn bytes_path(b: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefilters_never_change_the_answer() {
        let patterns = [
            "/home/u/.ssh/**",
            "/home/u/.ssh/id_*",
            "/home/u/.npmrc",
            "/home/u/.cargo/credentials*",
            "/run/user/*/bus",
            "/dev/{null,zero}",
            "/tmp/ssh-*/agent.*",
            "**/.env",
            "**/.env.*",
            "**/*.pem",
            "**/node_modules/**",
            "/",
        ];
        let mut b = PathMatcherBuilder::default();
        let mut plain = GlobSetBuilder::new();
        for (i, p) in patterns.iter().enumerate() {
            b.add(p, i).unwrap();
            plain.add(compile_glob(p).unwrap());
        }
        let m = b.build().unwrap();
        let plain = plain.build().unwrap();
        for path in [
            "/home/u/.ssh/id_rsa", "/home/u/.ssh", "/home/u/.sshx", "/home/u/.npmrc", "/home/u/.npmrc2",
            "/home/u/.cargo/credentials.toml", "/home/u/.cargo/registry/x", "/run/user/1000/bus", "/run/user/1000/x",
            "/dev/null", "/dev/nullx", "/tmp/ssh-abc/agent.12", "/work/p/.env", "/work/p/.env.local", "/work/p/.envrc",
            "/etc/ssl/a.pem", "/work/p/node_modules/x/y.js", "/usr/lib/libc.so.6", "/", "/usr",
        ] {
            let mut want = plain.matches(path);
            let mut got = m.matches(path.as_bytes());
            want.sort();
            got.sort();
            assert_eq!(got, want, "{path}");
        }
    }

    #[test]
    fn literals_and_search() {
        assert_eq!(longest_literal(b"**/.env.*").as_deref(), Some(&b".env."[..]));
        assert_eq!(longest_literal(b"**/*.pem").as_deref(), Some(&b".pem"[..]));
        assert_eq!(longest_literal(b"**/*"), None);
        assert!(contains(b"/a/.env.local", b".env."));
        assert!(!contains(b"/a/.envrc", b".env."));
        assert!(contains(b"abc", b"abc"));
        assert!(!contains(b"ab", b"abc"));
    }
}
