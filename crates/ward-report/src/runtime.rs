//! The agent's own runtime: install and cache directories whose files are left out of the file
//! counts (and listed apart, with the rule that matched), the way the published method left out
//! "the agent's own node_modules and installation paths".
//!
//! [`RuntimeDirs`] is a plain list of named rules and is a parameter of the report, so the
//! policy crate's profiles can supply their own. Until they do, [`RuntimeDirs::builtin`] holds a
//! small table per agent. Sensitive-path detection ignores these rules.
//!
//! A rule's pattern is one of:
//! - `~/dir` — under the home directory;
//! - `/dir` — an absolute directory;
//! - `**/a/b` — any path with the components `a/b` in a row (`/usr/lib/node_modules/a/b/x.js`);
//! - a trailing `*` makes the last component a prefix (`~/.claude.json*` matches
//!   `~/.claude.json.tmp.123`).

use crate::paths::is_under;
use serde::Serialize;

/// One rule: files matching `pattern` belong to `agent`'s own runtime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeRule {
    /// Rule name shown in the report (`claude-code:install`).
    pub name: String,
    /// The agent (profile) the rule belongs to.
    pub agent: String,
    /// See the module docs.
    pub pattern: String,
}

/// A set of runtime rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeDirs {
    /// Rules, tried in order; the first match names the rule.
    pub rules: Vec<RuntimeRule>,
}

/// Agents the built-in table knows, with the markers that identify them in an exec's path or
/// arguments, and their rules `(name, pattern)`.
/// `(agent, markers, [(rule, pattern)])`.
type AgentTable = &'static [(&'static str, &'static [&'static str], &'static [(&'static str, &'static str)])];

const BUILTIN: AgentTable = &[
    (
        "claude-code",
        &["claude", "@anthropic-ai/claude-code"],
        &[
            ("claude-code:install", "**/node_modules/@anthropic-ai/claude-code"),
            ("claude-code:home", "~/.claude"),
            ("claude-code:state", "~/.claude.json*"),
            ("claude-code:local", "~/.local/share/claude"),
            ("claude-code:local-state", "~/.local/state/claude"),
            ("claude-code:cache", "~/.cache/claude"),
            ("claude-code:cache-cli", "~/.cache/claude-cli-nodejs"),
        ],
    ),
    (
        "codex",
        &["codex", "@openai/codex"],
        &[
            ("codex:install", "**/node_modules/@openai/codex"),
            ("codex:home", "~/.codex"),
        ],
    ),
    (
        "gemini",
        &["gemini", "@google/gemini-cli"],
        &[
            ("gemini:install", "**/node_modules/@google/gemini-cli"),
            ("gemini:home", "~/.gemini"),
        ],
    ),
    (
        "aider",
        &["aider", "aider-chat"],
        &[
            ("aider:install", "**/site-packages/aider"),
            ("aider:home", "~/.aider"),
            ("aider:cache", "~/.cache/aider"),
        ],
    ),
];

impl RuntimeDirs {
    /// No rules: every file counts.
    pub fn none() -> Self {
        RuntimeDirs::default()
    }

    /// The built-in rules of one agent (`claude-code`, `codex`, `gemini`, `aider`); empty for
    /// others.
    pub fn builtin(agent: &str) -> Self {
        let mut rules = Vec::new();
        for (name, _, list) in BUILTIN {
            if *name == agent {
                for (rule, pattern) in *list {
                    rules.push(RuntimeRule {
                        name: rule.to_string(),
                        agent: name.to_string(),
                        pattern: pattern.to_string(),
                    });
                }
            }
        }
        RuntimeDirs { rules }
    }

    /// Adds another set's rules.
    pub fn extend(&mut self, other: RuntimeDirs) {
        for r in other.rules {
            if !self.rules.contains(&r) {
                self.rules.push(r);
            }
        }
    }

    /// The agents whose markers appear in a program path or argument (`/usr/bin/claude`,
    /// `node …/@openai/codex/bin/codex.js`): the basename must equal a marker, or the text must
    /// contain a scoped package marker.
    pub fn detect_agents(words: &[&[u8]]) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (name, markers, _) in BUILTIN {
            let hit = words.iter().any(|w| {
                let base = w.rsplit(|&b| b == b'/').next().unwrap_or(w);
                markers.iter().any(|m| {
                    if m.contains('/') {
                        w.windows(m.len()).any(|x| x == m.as_bytes())
                    } else {
                        base == m.as_bytes()
                    }
                })
            });
            if hit {
                out.push(*name);
            }
        }
        out
    }

    /// The first rule `path` falls under.
    pub fn matching(&self, path: &[u8], home: Option<&[u8]>) -> Option<&RuntimeRule> {
        self.matching_index(path, home).map(|i| &self.rules[i])
    }

    /// The index of the first rule `path` falls under.
    pub fn matching_index(&self, path: &[u8], home: Option<&[u8]>) -> Option<usize> {
        self.rules.iter().position(|r| matches(&r.pattern, path, home))
    }
}

fn matches(pattern: &str, path: &[u8], home: Option<&[u8]>) -> bool {
    if let Some(stem) = pattern.strip_suffix('*') {
        // `dir/name*`: a path whose component at that depth starts with `name`, or below it.
        let Some(slash) = stem.rfind('/') else { return false };
        let (dir, name) = (&stem[..slash], &stem[slash + 1..]);
        let dir_pat = if dir.is_empty() { "/".to_string() } else { dir.to_string() };
        let Some(dir_full) = expand(&dir_pat, home) else { return false };
        let dir_full = if dir_full == b"/" { Vec::new() } else { dir_full };
        if !path.starts_with(&dir_full) || path.get(dir_full.len()) != Some(&b'/') {
            return false;
        }
        let rest = &path[dir_full.len() + 1..];
        let first = rest.split(|&b| b == b'/').next().unwrap_or(b"");
        return first.starts_with(name.as_bytes());
    }
    if let Some(rest) = pattern.strip_prefix("~/") {
        let Some(home) = home else { return false };
        let mut full = home.strip_suffix(b"/").unwrap_or(home).to_vec();
        full.push(b'/');
        full.extend_from_slice(rest.as_bytes());
        return is_under(path, &full);
    }
    if let Some(rest) = pattern.strip_prefix("**/") {
        let needle = format!("/{rest}");
        let n = needle.as_bytes();
        let mut i = 0;
        while i + n.len() <= path.len() {
            if &path[i..i + n.len()] == n && (i + n.len() == path.len() || path[i + n.len()] == b'/') {
                return true;
            }
            i += 1;
        }
        return false;
    }
    is_under(path, pattern.as_bytes())
}

/// `~/x` with the home directory, `/x` as is; `None` for `~` without a home.
fn expand(pattern: &str, home: Option<&[u8]>) -> Option<Vec<u8>> {
    if pattern == "~" {
        return home.map(|h| h.strip_suffix(b"/").unwrap_or(h).to_vec());
    }
    if let Some(rest) = pattern.strip_prefix("~/") {
        let mut full = home?.strip_suffix(b"/").unwrap_or(home?).to_vec();
        full.push(b'/');
        full.extend_from_slice(rest.as_bytes());
        return Some(full);
    }
    Some(pattern.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let r = RuntimeDirs::builtin("claude-code");
        let home = Some(&b"/home/u"[..]);
        let m = |p: &str| r.matching(p.as_bytes(), home).map(|r| r.name.as_str());
        assert_eq!(
            m("/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"),
            Some("claude-code:install")
        );
        assert_eq!(m("/usr/lib/node_modules/@anthropic-ai/claude-code-x/cli.js"), None);
        assert_eq!(m("/home/u/.claude/settings.json"), Some("claude-code:home"));
        assert_eq!(m("/home/u/.claude.json"), Some("claude-code:state"));
        assert_eq!(m("/home/u/.claude.json.tmp.1.ab"), Some("claude-code:state"));
        assert_eq!(m("/home/u/.claude.jso"), None);
        assert_eq!(m("/home/u/.claudex"), None);
        assert_eq!(m("/home/u/project/x"), None);
        assert!(RuntimeDirs::builtin("generic").rules.is_empty());
    }

    #[test]
    fn detects_agents_from_exec() {
        assert_eq!(RuntimeDirs::detect_agents(&[b"/usr/local/bin/claude"]), vec!["claude-code"]);
        assert_eq!(
            RuntimeDirs::detect_agents(&[b"/usr/bin/node", b"/usr/lib/node_modules/@openai/codex/bin/codex.js"]),
            vec!["codex"]
        );
        assert!(RuntimeDirs::detect_agents(&[b"/usr/bin/claudette"]).is_empty());
    }
}
