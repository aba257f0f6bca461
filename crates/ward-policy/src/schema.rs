//! The TOML schema shared by built-in profiles and configuration files.
//!
//! A profile and a config file have the same shape; a few keys are only meaningful in one
//! of them (`[meta]` in profiles, `trust` in the user config, `profile` in config files) and
//! the loader rejects them elsewhere. Every table rejects unknown keys, so a typo is an
//! error that names its file, line and key rather than a silently ignored setting.
//!
//! ```toml
//! profile = "claude-code"        # config files: default profile
//! mode = "enforce"               # or "audit"
//! review_timeout = 120           # seconds, or "2m"
//! headless = "deny"              # what a review becomes with no reviewer: "deny" | "allow"
//! trust = ["~/src/myproject"]    # user config only: projects whose .ward.toml is loaded
//!
//! [thresholds]                   # total score >= review -> review, >= deny -> deny
//! review = 50
//! deny = 100
//!
//! [sandbox]
//! mode = "workspace-write"       # "read-only" | "landlock-only" | "off"
//! writable = ["~/.cache"]        # writable roots besides the project and /tmp
//! protected = [".git/hooks"]     # project-relative paths that stay read-only
//! secrets = ["~/.ssh"]           # paths the sandbox makes unreadable
//!
//! [network]
//! allow = ["api.anthropic.com", "*.github.com"]
//! allow_loopback = [5432]
//!
//! [limits]
//! exec_per_sec = 200
//!
//! [[runtime]]                    # the agent's own install/cache dirs (excluded from report counts)
//! name = "claude-code install"
//! path = "~/.local/share/claude/**"
//!
//! [[sensitive]]
//! path = "~/.ssh/**"
//! class = "ssh"
//! access = "read"                # "read" | "write" | "any"
//! score = 100
//! reason = "SSH keys and configuration"
//!
//! [[rules.path]]
//! path = "~/.claude/**"
//! access = "any"
//! action = "allow"               # "allow" | "review" | "deny"
//! reason = "Claude Code's own state"
//!
//! [[rules.command]]
//! prefix = ["git", "push", "--force"]
//! action = "review"
//! reason = "rewrites remote history"
//!
//! [[approved]]                   # written by "always" answers to a review
//! kind = "file.read"
//! path = "/home/me/.npmrc"
//! reason = "answered always at a review"
//! ```

use serde::Deserialize;
use toml::Spanned;

/// One parsed TOML layer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Profile metadata (profiles only).
    pub meta: Option<Meta>,
    /// Default profile (config files only).
    pub profile: Option<Spanned<String>>,
    /// `audit` or `enforce`.
    pub mode: Option<ModeName>,
    /// Seconds (integer) or a humantime string (`"2m"`).
    pub review_timeout: Option<Spanned<TimeoutValue>>,
    /// Action when a review has no reviewer.
    pub headless: Option<HeadlessName>,
    /// Projects whose `.ward.toml` is trusted (user config only).
    pub trust: Option<Vec<Spanned<String>>>,
    /// Score thresholds.
    pub thresholds: Option<ThresholdsFile>,
    /// Sandbox settings.
    pub sandbox: Option<SandboxFile>,
    /// Network allow lists.
    pub network: Option<NetworkFile>,
    /// Rate and burst limits.
    pub limits: Option<LimitsFile>,
    /// The agent's own install and cache directories.
    #[serde(default)]
    pub runtime: Vec<RuntimeFile>,
    /// Sensitive path patterns.
    #[serde(default)]
    pub sensitive: Vec<SensitiveFile>,
    /// Path and command rules.
    pub rules: Option<RulesFile>,
    /// Operations a person approved with "always".
    #[serde(default)]
    pub approved: Vec<ApprovedFile>,
}

/// `[meta]` of a profile.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Profile name (must equal the file name).
    pub name: String,
    /// One line for `ward config show`.
    #[serde(default)]
    pub description: String,
    /// A profile this one builds on (its layer goes first).
    pub extends: Option<String>,
    /// Command names that pick this profile automatically (`claude`).
    #[serde(default)]
    pub commands: Vec<String>,
    /// Package names that pick it when run through `npx`/`node`/`python -m` (`@anthropic-ai/claude-code`).
    #[serde(default)]
    pub packages: Vec<String>,
}

/// `mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeName {
    /// Record only.
    Audit,
    /// Act on verdicts.
    Enforce,
}

/// `headless`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeadlessName {
    /// Deny reviews nobody can answer.
    Deny,
    /// Allow them.
    Allow,
}

/// `review_timeout`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum TimeoutValue {
    /// Whole seconds.
    Secs(u64),
    /// `"90s"`, `"2m"`.
    Text(String),
}

/// `[thresholds]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdsFile {
    /// Score at which an operation is reviewed.
    pub review: Option<Spanned<i32>>,
    /// Score at which it is denied.
    pub deny: Option<Spanned<i32>>,
}

/// `[sandbox]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxFile {
    /// Sandbox mode.
    pub mode: Option<SandboxModeName>,
    /// Extra writable roots.
    #[serde(default)]
    pub writable: Vec<Spanned<String>>,
    /// Protected paths inside the project.
    #[serde(default)]
    pub protected: Vec<Spanned<String>>,
    /// Secret paths (unreadable in the sandbox).
    #[serde(default)]
    pub secrets: Vec<Spanned<String>>,
}

/// `sandbox.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxModeName {
    /// See [`crate::SandboxMode::WorkspaceWrite`].
    WorkspaceWrite,
    /// See [`crate::SandboxMode::ReadOnly`].
    ReadOnly,
    /// See [`crate::SandboxMode::LandlockOnly`].
    LandlockOnly,
    /// See [`crate::SandboxMode::Off`].
    Off,
}

/// `[network]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkFile {
    /// Allowed domains (`*.github.com`), IPs, optionally `:PORT`.
    #[serde(default)]
    pub allow: Vec<Spanned<String>>,
    /// Loopback ports outside the tree that may be reached.
    #[serde(default)]
    pub allow_loopback: Vec<u16>,
}

/// `[limits]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsFile {
    /// Sustained execs per second.
    pub exec_per_sec: Option<u32>,
    /// Execs allowed in a burst above the sustained rate.
    pub exec_burst: Option<u32>,
    /// Sustained outgoing connections per second.
    pub connect_per_sec: Option<u32>,
    /// Connections allowed in a burst.
    pub connect_burst: Option<u32>,
    /// Sustained deletions per second.
    pub delete_per_sec: Option<u32>,
    /// Deletions allowed in a burst.
    pub delete_burst: Option<u32>,
    /// Distinct other pids whose `/proc/<pid>/…` one process may read within the window.
    pub census_pids: Option<u32>,
    /// The census window, seconds.
    pub census_window_secs: Option<u32>,
}

/// `[[runtime]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeFile {
    /// Rule name shown by the report.
    pub name: String,
    /// Directory or glob.
    pub path: Spanned<String>,
}

/// Which accesses a path rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// Reads, directory listings, exec.
    Read,
    /// Writes, creation, deletion, rename, link, chmod.
    Write,
    /// Both.
    #[default]
    Any,
}

/// `[[sensitive]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitiveFile {
    /// Glob.
    pub path: Spanned<String>,
    /// Class shown in reports (`ssh`, `cloud`, `package-registry`, `shell-rc`, …).
    pub class: String,
    /// Which accesses count.
    #[serde(default)]
    pub access: Access,
    /// Score added.
    pub score: i32,
    /// Why it matters.
    pub reason: String,
    /// Globs that are exempt (`.env.example`).
    #[serde(default)]
    pub except: Vec<Spanned<String>>,
}

/// `[rules]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// Path rules.
    #[serde(default)]
    pub path: Vec<PathRuleFile>,
    /// Command rules.
    #[serde(default)]
    pub command: Vec<CommandRuleFile>,
}

/// A rule's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleAction {
    /// Routine.
    Allow,
    /// Ask a person.
    Review,
    /// Refuse.
    Deny,
}

/// `[[rules.path]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathRuleFile {
    /// Glob.
    pub path: Spanned<String>,
    /// Which accesses it applies to.
    #[serde(default)]
    pub access: Access,
    /// What to do.
    pub action: RuleAction,
    /// Score added (default: allow -100, review 50, deny 100).
    pub score: Option<i32>,
    /// Why.
    pub reason: String,
}

/// `[[rules.command]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRuleFile {
    /// The command name then leading arguments; each element is a glob on one argument.
    pub prefix: Spanned<Vec<String>>,
    /// What to do.
    pub action: RuleAction,
    /// Score added (default: allow 0, review 50, deny 100).
    pub score: Option<i32>,
    /// Why.
    pub reason: String,
}

/// `[[approved]]`: an operation a person allowed with "always".
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ApprovedFile {
    /// Operation kind (`file.read`, `proc.exec`, `net.connect`, …).
    pub kind: String,
    /// Exact path, for file operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Exact argv, for exec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// Host (domain or IP), for network operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Port, for network operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// When and why.
    #[serde(default)]
    pub reason: String,
}
