//! Built-in profiles (`profiles/*.toml` at the repository root, embedded at build time) and
//! the automatic choice of a profile from the command being run.
//!
//! A profile says what is routine for one agent: its state and cache directories, its API
//! hosts, its usual subprocesses, and which of its directories are its own runtime (left out
//! of the report's file counts). Agent profiles `extends = "generic"`, so the sensitive-path
//! list and the development toolchain rules live in one place.

use crate::paths::basename_str;
use crate::schema::ConfigFile;

/// A built-in profile's TOML text, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("generic", include_str!("../../../profiles/generic.toml")),
    ("claude-code", include_str!("../../../profiles/claude-code.toml")),
    ("codex", include_str!("../../../profiles/codex.toml")),
    ("gemini", include_str!("../../../profiles/gemini.toml")),
    ("aider", include_str!("../../../profiles/aider.toml")),
];

/// The profile used when nothing else picks one.
pub const DEFAULT_PROFILE: &str = "generic";

/// The TOML text of a built-in profile.
pub fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Names of the built-in profiles.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// Launchers that run the program named by their first non-option argument.
const LAUNCHERS: &[&str] = &[
    "node", "nodejs", "npx", "bunx", "bun", "deno", "pnpx", "yarn", "pnpm", "python", "python3",
    "uvx", "uv", "pipx", "env", "exec",
];

/// Picks a profile for `argv` among `profiles` (name, parsed file): by the command's base
/// name (`claude`), or through a launcher (`node …/claude`, `npx @openai/codex`,
/// `python -m aider`, `node …/node_modules/@anthropic-ai/claude-code/cli.js`).
pub fn pick_for_argv<'a>(argv: &[String], profiles: &'a [(String, ConfigFile)]) -> Option<&'a str> {
    let mut candidates: Vec<&str> = Vec::new();
    let mut i = 0;
    // Walk through launchers: `npx -y @openai/codex`, `uv tool run aider`, `env X=1 claude`.
    while i < argv.len() && candidates.len() < 8 {
        let word = argv[i].as_str();
        candidates.push(word);
        let base = basename_str(word);
        let is_launcher = LAUNCHERS.contains(&base)
            || base.starts_with("python3.")
            || matches!(base, "run" | "dlx" | "tool" | "x");
        if !is_launcher {
            break;
        }
        i += 1;
        // Skip options and `VAR=value`; `-m module` names the module next.
        while i < argv.len() {
            let a = argv[i].as_str();
            if a == "-m" {
                i += 1;
                break;
            }
            if a.starts_with('-') || (a.contains('=') && !a.starts_with('/')) {
                i += 1;
                continue;
            }
            break;
        }
    }
    for cand in candidates {
        let base = basename_str(cand);
        // `@scope/pkg@1.2.3` → `@scope/pkg`
        let pkg = match cand.rfind('@') {
            Some(at) if at > 0 => &cand[..at],
            _ => cand,
        };
        for (name, file) in profiles {
            let Some(meta) = &file.meta else { continue };
            if meta.commands.iter().any(|c| c == base || c == cand) {
                return Some(name);
            }
            if meta.packages.iter().any(|p| {
                p == pkg || p == cand || cand.contains(&format!("node_modules/{p}/")) || cand.contains(&format!("/{p}/"))
            }) {
                return Some(name);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<(String, ConfigFile)> {
        BUILTIN
            .iter()
            .map(|(n, t)| (n.to_string(), toml::from_str(t).expect(n)))
            .collect()
    }

    fn pick(argv: &[&str]) -> Option<String> {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        pick_for_argv(&argv, &all()).map(str::to_string)
    }

    #[test]
    fn every_builtin_profile_parses_and_names_itself() {
        for (name, file) in all() {
            let meta = file.meta.as_ref().expect("profiles have [meta]");
            assert_eq!(meta.name, name);
        }
    }

    #[test]
    fn picks_by_command_and_through_launchers() {
        assert_eq!(pick(&["claude", "-p", "hi"]).as_deref(), Some("claude-code"));
        assert_eq!(pick(&["/usr/local/bin/claude"]).as_deref(), Some("claude-code"));
        assert_eq!(
            pick(&["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "-p", "x"]).as_deref(),
            Some("claude-code")
        );
        assert_eq!(pick(&["node", "/home/u/.local/bin/claude"]).as_deref(), Some("claude-code"));
        assert_eq!(pick(&["npx", "-y", "@anthropic-ai/claude-code@latest"]).as_deref(), Some("claude-code"));
        assert_eq!(pick(&["codex", "exec", "hi"]).as_deref(), Some("codex"));
        assert_eq!(pick(&["npx", "@openai/codex"]).as_deref(), Some("codex"));
        assert_eq!(pick(&["gemini"]).as_deref(), Some("gemini"));
        assert_eq!(pick(&["npx", "@google/gemini-cli"]).as_deref(), Some("gemini"));
        assert_eq!(pick(&["aider", "--model", "x"]).as_deref(), Some("aider"));
        assert_eq!(pick(&["python3", "-m", "aider"]).as_deref(), Some("aider"));
        assert_eq!(pick(&["env", "FOO=1", "codex"]).as_deref(), Some("codex"));
        assert_eq!(pick(&["cargo", "build"]), None);
        assert_eq!(pick(&["node", "server.js"]), None);
        assert_eq!(pick(&[]), None);
    }
}
