//! Configuration: layers, merging, origins and errors.
//!
//! Layers, later wins: the built-in profile (and the profiles it `extends`) <
//! `/etc/ward/config.toml` < `$XDG_CONFIG_HOME/ward/config.toml` < `.ward.toml` in the project
//! (only when the user config's `trust` list names the project directory or a directory
//! above it) < `WARD_*` environment variables < command-line flags.
//!
//! Scalars (`mode`, `review_timeout`, `sandbox.mode`, thresholds, limits) are replaced by a
//! later layer. Lists (`sandbox.writable`, `network.allow`, `[[sensitive]]`, `[[rules.*]]`,
//! `[[runtime]]`, `[[approved]]`) accumulate: a later layer adds to them and cannot silently
//! drop a protection set by an earlier one. Every value remembers its [`Origin`], which
//! `ward config show` prints.
//!
//! The profile is chosen before merging, first match wins: `--profile`, `WARD_PROFILE`,
//! the profile picked from the command (`claude` → `claude-code`, also through `node`,
//! `npx`, `python -m`), `profile = …` in the project, user and system config (in that
//! order), then `generic`.
//!
//! Unknown keys and bad values are [`ConfigError::Invalid`] naming file, line, column and key.
//! User-defined profiles may live in `$XDG_CONFIG_HOME/ward/profiles/NAME.toml`; they shadow
//! built-in ones of the same name.

use crate::paths::{expand_dir, expand_pattern};
use crate::profiles;
use crate::schema::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use ward_event::{OpKind, Verdict};

/// Whether ward acts on verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Record everything, allow everything; verdicts are computed and recorded.
    Audit,
    /// Deny what the policy denies, hold what it wants reviewed.
    #[default]
    Enforce,
}

impl Mode {
    /// Parses `audit` / `enforce`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "audit" => Some(Mode::Audit),
            "enforce" => Some(Mode::Enforce),
            _ => None,
        }
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Audit => "audit",
            Mode::Enforce => "enforce",
        }
    }
}

/// Values given on ward's command line.
#[derive(Debug, Clone, Default)]
pub struct CliOverrides {
    /// `--mode`.
    pub mode: Option<Mode>,
    /// `--sandbox` (checked here: `workspace-write`, `read-only`, `landlock-only`, `off`).
    pub sandbox: Option<String>,
    /// `--allow-net HOST[:PORT]`, repeatable.
    pub allow_net: Vec<String>,
    /// `--review-timeout`.
    pub review_timeout: Option<Duration>,
}

/// Everything [`load`] needs; the binary fills it from the environment.
#[derive(Debug, Clone, Default)]
pub struct LoadRequest {
    /// The supervised command, to pick the profile automatically.
    pub argv: Vec<String>,
    /// `--profile`.
    pub profile: Option<String>,
    /// The project directory (absolute).
    pub project_dir: PathBuf,
    /// The home directory (absolute).
    pub home: PathBuf,
    /// `/etc/ward/config.toml`.
    pub system_config: PathBuf,
    /// `$XDG_CONFIG_HOME/ward/config.toml`.
    pub user_config: PathBuf,
    /// `WARD_*` environment variables (others are ignored).
    pub env: Vec<(String, String)>,
    /// Command-line overrides.
    pub cli: CliOverrides,
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", content = "name", rename_all = "kebab-case")]
pub enum Origin {
    /// ward's built-in default.
    Default,
    /// A profile (built-in or user-defined).
    Profile(String),
    /// A configuration file.
    File(PathBuf),
    /// An environment variable.
    Env(String),
    /// A command-line flag.
    Cli(String),
    /// A reviewer's answer in this session.
    Session,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::Profile(p) => write!(f, "profile {p}"),
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Env(v) => write!(f, "env {v}"),
            Origin::Cli(flag) => write!(f, "{flag}"),
            Origin::Session => f.write_str("review answer"),
        }
    }
}

/// Why the configuration could not be loaded. Every variant names where the problem is.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A bad key or value in a TOML file.
    #[error("{file}:{line}:{column}: {key}: {message}")]
    Invalid {
        /// The file (or `profile NAME`).
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Dotted key (`sandbox.mode`).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A file exists but can't be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// No such profile.
    #[error("{origin}: unknown profile {name:?} (known: {known})")]
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// Where it was asked for.
        origin: String,
        /// Built-in and user profiles.
        known: String,
    },
    /// A bad `WARD_*` variable.
    #[error("environment variable {var}: {message}")]
    Env {
        /// The variable.
        var: String,
        /// What is wrong.
        message: String,
    },
    /// A bad command-line value.
    #[error("{flag}: {message}")]
    Cli {
        /// The flag.
        flag: String,
        /// What is wrong.
        message: String,
    },
}

/// Score thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Thresholds {
    /// Total score at or above which an operation is reviewed.
    pub review: i32,
    /// Total score at or above which it is denied.
    pub deny: i32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds { review: 50, deny: 100 }
    }
}

impl Thresholds {
    /// The verdict for a total score.
    pub fn verdict(&self, score: i32) -> Verdict {
        if score >= self.deny {
            Verdict::Deny
        } else if score >= self.review {
            Verdict::Review
        } else {
            Verdict::Allow
        }
    }
}

/// Rate and burst limits (token buckets) and the process-census limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Sustained execs per second.
    pub exec_per_sec: u32,
    /// Burst of execs above the sustained rate.
    pub exec_burst: u32,
    /// Sustained outgoing connections per second (loopback and unix sockets not counted).
    pub connect_per_sec: u32,
    /// Burst of connections.
    pub connect_burst: u32,
    /// Sustained deletions per second.
    pub delete_per_sec: u32,
    /// Burst of deletions.
    pub delete_burst: u32,
    /// Distinct other pids one process may read `/proc/<pid>/…` of within the window.
    pub census_pids: u32,
    /// Census window in seconds.
    pub census_window_secs: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            exec_per_sec: 200,
            exec_burst: 2000,
            connect_per_sec: 50,
            connect_burst: 500,
            delete_per_sec: 1000,
            delete_burst: 20000,
            census_pids: 32,
            census_window_secs: 10,
        }
    }
}

/// The sandbox mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Read-only system, writable project, `/tmp` and the profile's writable roots.
    #[default]
    WorkspaceWrite,
    /// Nothing writable but a private `/tmp`.
    ReadOnly,
    /// Landlock and seccomp walls without namespaces (where user namespaces are unavailable).
    LandlockOnly,
    /// No sandbox; the supervisor's policy only.
    Off,
}

impl SandboxMode {
    /// Parses a mode name.
    pub fn parse(s: &str) -> Option<SandboxMode> {
        match s {
            "workspace-write" => Some(SandboxMode::WorkspaceWrite),
            "read-only" => Some(SandboxMode::ReadOnly),
            "landlock-only" => Some(SandboxMode::LandlockOnly),
            "off" => Some(SandboxMode::Off),
            _ => None,
        }
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::LandlockOnly => "landlock-only",
            SandboxMode::Off => "off",
        }
    }
}

/// Whether the tree may reach the network beyond loopback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkMode {
    /// No destination outside loopback (a network namespace of its own).
    Off,
    /// Only the domains and addresses in the allow lists.
    Allow,
}

/// One `--allow-net HOST[:PORT]` (or `network.allow` entry): a domain pattern or an IP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NetTarget {
    /// `api.example.com`, `*.github.com`, `127.0.0.1`, `::1`.
    pub host: String,
    /// Port, or any.
    pub port: Option<u16>,
    /// Where it came from.
    pub origin: Origin,
}

impl NetTarget {
    /// Parses `HOST`, `HOST:PORT`, `[V6]:PORT`, `V6`.
    pub fn parse(s: &str, origin: Origin) -> Result<NetTarget, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty host".into());
        }
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, after) = rest.split_once(']').ok_or("missing ] in IPv6 address")?;
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p.parse::<u16>().map_err(|_| format!("bad port {p:?}"))?),
                None if after.is_empty() => None,
                None => return Err(format!("unexpected {after:?} after ]")),
            };
            (h.to_string(), port)
        } else if s.matches(':').count() == 1 {
            let (h, p) = s.split_once(':').unwrap_or((s, ""));
            let port = p.parse::<u16>().map_err(|_| format!("bad port {p:?}"))?;
            (h.to_string(), Some(port))
        } else {
            (s.to_string(), None)
        };
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '*' | ':' | '_'))
        {
            return Err(format!("bad host {host:?}"));
        }
        Ok(NetTarget {
            host: host.to_ascii_lowercase(),
            port,
            origin,
        })
    }

    /// Whether this target names `host` (a domain or IP text) and `port`.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        if let Some(p) = self.port {
            if p != port {
                return false;
            }
        }
        host_matches(&self.host, host)
    }

    /// Whether the host is a loopback IP or `localhost`.
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

/// Whether a host pattern names `host`: exact (case-insensitive), or `*.github.com`, which
/// matches one or more labels below the domain (`api.github.com`, `a.b.github.com`) but not
/// `github.com` itself — list the bare domain separately when it is meant too.
pub fn host_matches(pattern: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.');
    if let Some(suffix) = pattern.strip_prefix("*.") {
        host.len() > suffix.len() + 1
            && host[host.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
            && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
    } else {
        pattern.eq_ignore_ascii_case(host)
    }
}

/// Network settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NetworkSettings {
    /// `Off` when nothing beyond loopback is allowed.
    pub mode: NetworkMode,
    /// `network.allow` entries from the profile and config.
    pub allow: Vec<NetTarget>,
    /// Loopback ports outside the tree that may be reached (`allow_loopback`, and the ports of
    /// loopback `--allow-net` entries).
    pub allow_loopback: Vec<u16>,
    /// `--allow-net` / `WARD_ALLOW_NET` entries for this run.
    pub allow_net: Vec<NetTarget>,
}

impl NetworkSettings {
    /// Whether a connection to `host` (domain or IP text) on `port` is allowed by a list.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        self.allow.iter().chain(&self.allow_net).any(|t| t.matches(host, port))
    }

    /// Whether a domain is in an allow list (any port).
    pub fn allows_domain(&self, domain: &str) -> bool {
        self.allow
            .iter()
            .chain(&self.allow_net)
            .any(|t| host_matches(&t.host, domain))
    }
}

/// What the sandbox (issue 6) enforces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxSettings {
    /// The mode.
    pub mode: SandboxMode,
    /// Absolute writable roots: the project (except in `read-only`), `/tmp`, and the
    /// profile's. Paths that do not exist are kept (the sandbox skips them).
    pub writable: Vec<PathBuf>,
    /// Absolute paths inside the project that stay read-only.
    pub protected: Vec<PathBuf>,
    /// Absolute paths that are unreadable.
    pub secrets: Vec<PathBuf>,
    /// Network.
    pub network: NetworkSettings,
}

/// A directory of the agent's own installation or cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeDir {
    /// The rule's name (`claude-code install (npm global)`).
    pub rule: String,
    /// Absolute glob (`/home/u/.claude/**`).
    pub pattern: String,
    /// Where it came from.
    pub origin: Origin,
}

/// A `[[sensitive]]` entry, expanded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SensitiveRule {
    /// Absolute glob.
    pub pattern: String,
    /// Class.
    pub class: String,
    /// Which accesses count.
    pub access: Access,
    /// Score.
    pub score: i32,
    /// Why.
    pub reason: String,
    /// Exempt globs.
    pub except: Vec<String>,
    /// Where it came from.
    pub origin: Origin,
}

/// A `[[rules.path]]` entry, expanded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathRule {
    /// Absolute glob.
    pub pattern: String,
    /// Which accesses it applies to.
    pub access: Access,
    /// Action.
    pub action: RuleAction,
    /// Score.
    pub score: i32,
    /// Why.
    pub reason: String,
    /// Where it came from.
    pub origin: Origin,
}

/// A `[[rules.command]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandRule {
    /// Command name, then argument globs.
    pub prefix: Vec<String>,
    /// Action.
    pub action: RuleAction,
    /// Score.
    pub score: i32,
    /// Why.
    pub reason: String,
    /// Where it came from.
    pub origin: Origin,
}

/// An `[[approved]]` entry: an exact operation a person allowed with "always".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Approval {
    /// The entry.
    pub entry: ApprovedFile,
    /// Parsed kind.
    #[serde(skip)]
    pub kind: Option<OpKind>,
    /// Where it came from.
    pub origin: Origin,
}

/// A configuration layer that was considered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerInfo {
    /// The layer.
    pub origin: Origin,
    /// Whether it was applied (a missing file or an untrusted `.ward.toml` is not).
    pub applied: bool,
    /// Why not, or a note.
    pub note: String,
}

/// The merged configuration of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    /// The active profile.
    pub profile: String,
    /// Whether it was picked from the command.
    pub profile_auto_picked: bool,
    /// The profile's description.
    pub profile_description: String,
    /// Audit or enforce.
    pub mode: Mode,
    /// How long a review waits.
    pub review_timeout: Duration,
    /// What a review becomes without a reviewer (`Deny` unless configured).
    pub headless: Verdict,
    /// Score thresholds.
    pub thresholds: Thresholds,
    /// Rate, burst and census limits.
    pub limits: Limits,
    /// Sandbox settings.
    pub sandbox: SandboxSettings,
    /// The agent's own runtime directories.
    pub runtime_dirs: Vec<RuntimeDir>,
    /// Sensitive paths.
    pub sensitive: Vec<SensitiveRule>,
    /// Path rules.
    pub path_rules: Vec<PathRule>,
    /// Command rules.
    pub command_rules: Vec<CommandRule>,
    /// Approved operations.
    pub approved: Vec<Approval>,
    /// Trusted project directories.
    pub trust: Vec<PathBuf>,
    /// The project directory.
    pub project_dir: PathBuf,
    /// The home directory.
    pub home: PathBuf,
    /// The user config file ("always" answers are appended to it).
    pub user_config: PathBuf,
    /// Layers considered, in order.
    pub layers: Vec<LayerInfo>,
    /// Origin of each scalar value, by dotted key.
    pub origins: BTreeMap<String, Origin>,
}

/// One line of `ward config show`.
#[derive(Debug, Clone, Serialize)]
pub struct ShownValue {
    /// Dotted key.
    pub key: String,
    /// The value.
    pub value: serde_json::Value,
    /// Where it came from.
    pub origin: String,
}

impl Resolved {
    /// Every merged value with its origin, in a stable order, for `ward config show`.
    pub fn show(&self) -> Vec<ShownValue> {
        use serde_json::json;
        let mut out = Vec::new();
        let o = |k: &str| self.origins.get(k).map(|o| o.to_string()).unwrap_or_else(|| "default".into());
        let mut push = |key: &str, value: serde_json::Value, origin: String| {
            out.push(ShownValue { key: key.into(), value, origin })
        };
        push("profile", json!(self.profile), o("profile"));
        push("mode", json!(self.mode.as_str()), o("mode"));
        push("review_timeout", json!(format!("{}s", self.review_timeout.as_secs())), o("review_timeout"));
        push("headless", json!(self.headless.as_str()), o("headless"));
        push("thresholds.review", json!(self.thresholds.review), o("thresholds.review"));
        push("thresholds.deny", json!(self.thresholds.deny), o("thresholds.deny"));
        push("sandbox.mode", json!(self.sandbox.mode.as_str()), o("sandbox.mode"));
        for (k, v) in serde_json::to_value(self.limits)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default()
        {
            let key = format!("limits.{k}");
            let origin = o(&key);
            push(&key, v, origin);
        }
        for (i, w) in self.sandbox.writable.iter().enumerate() {
            let key = format!("sandbox.writable[{i}]");
            let origin = o(&key);
            push(&key, json!(w), origin);
        }
        for (i, w) in self.sandbox.protected.iter().enumerate() {
            let key = format!("sandbox.protected[{i}]");
            let origin = o(&key);
            push(&key, json!(w), origin);
        }
        for (i, w) in self.sandbox.secrets.iter().enumerate() {
            let key = format!("sandbox.secrets[{i}]");
            let origin = o(&key);
            push(&key, json!(w), origin);
        }
        push("network.mode", json!(self.sandbox.network.mode), o("network.mode"));
        for (i, t) in self.sandbox.network.allow.iter().enumerate() {
            push(&format!("network.allow[{i}]"), json!(fmt_target(t)), t.origin.to_string());
        }
        for (i, t) in self.sandbox.network.allow_net.iter().enumerate() {
            push(&format!("network.allow_net[{i}]"), json!(fmt_target(t)), t.origin.to_string());
        }
        for (i, p) in self.sandbox.network.allow_loopback.iter().enumerate() {
            let key = format!("network.allow_loopback[{i}]");
            let origin = o(&key);
            push(&key, json!(p), origin);
        }
        for (i, t) in self.trust.iter().enumerate() {
            let key = format!("trust[{i}]");
            let origin = o(&key);
            push(&key, json!(t), origin);
        }
        for (i, r) in self.runtime_dirs.iter().enumerate() {
            push(&format!("runtime[{i}]"), json!({"name": r.rule, "path": r.pattern}), r.origin.to_string());
        }
        for (i, r) in self.sensitive.iter().enumerate() {
            push(
                &format!("sensitive[{i}]"),
                json!({"path": r.pattern, "class": r.class, "access": r.access, "score": r.score, "reason": r.reason}),
                r.origin.to_string(),
            );
        }
        for (i, r) in self.path_rules.iter().enumerate() {
            push(
                &format!("rules.path[{i}]"),
                json!({"path": r.pattern, "access": r.access, "action": r.action, "score": r.score, "reason": r.reason}),
                r.origin.to_string(),
            );
        }
        for (i, r) in self.command_rules.iter().enumerate() {
            push(
                &format!("rules.command[{i}]"),
                json!({"prefix": r.prefix, "action": r.action, "score": r.score, "reason": r.reason}),
                r.origin.to_string(),
            );
        }
        for (i, a) in self.approved.iter().enumerate() {
            push(&format!("approved[{i}]"), json!(a.entry), a.origin.to_string());
        }
        out
    }

    /// The runtime rule that covers `path`, if any (for the report).
    pub fn runtime_matcher(&self) -> RuntimeMatcher {
        RuntimeMatcher::new(&self.runtime_dirs)
    }
}

fn fmt_target(t: &NetTarget) -> String {
    match t.port {
        Some(p) if t.host.contains(':') => format!("[{}]:{p}", t.host),
        Some(p) => format!("{}:{p}", t.host),
        None => t.host.clone(),
    }
}

/// Matches paths against the runtime directories (compiled once).
#[derive(Debug, Clone)]
pub struct RuntimeMatcher {
    set: globset::GlobSet,
    rules: Vec<String>,
}

impl RuntimeMatcher {
    /// Compiles the runtime globs (invalid ones were rejected by [`load`]; any left are skipped).
    pub fn new(dirs: &[RuntimeDir]) -> RuntimeMatcher {
        let mut b = globset::GlobSetBuilder::new();
        let mut rules = Vec::new();
        for d in dirs {
            if let Ok(g) = compile_glob(&d.pattern) {
                b.add(g);
                rules.push(d.rule.clone());
            }
        }
        RuntimeMatcher {
            set: b.build().unwrap_or_else(|_| globset::GlobSet::empty()),
            rules,
        }
    }

    /// The name of the first runtime rule covering `path`.
    pub fn rule_for(&self, path: &Path) -> Option<&str> {
        self.set
            .matches(path)
            .into_iter()
            .min()
            .map(|i| self.rules[i].as_str())
    }
}

/// Compiles a glob the way ward means it: `*` stays within one component, `**` crosses them.
/// A pattern naming a directory (`~/.ssh`) also covers what is below it only if it ends in
/// `/**`; write both when you mean both.
pub fn compile_glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

// ---------------------------------------------------------------------------------------
// Loading.

/// A parsed layer with what is needed to report errors in it.
struct Layer {
    origin: Origin,
    /// File name (or `profile NAME`) for error messages.
    name: String,
    text: String,
    file: ConfigFile,
}

impl Layer {
    fn err_at(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> ConfigError {
        invalid_at(&self.name, &self.text, Some(span), message.into())
    }
}

/// Builds an [`ConfigError::Invalid`] from a byte span of `text`.
fn invalid_at(name: &str, text: &str, span: Option<std::ops::Range<usize>>, message: String) -> ConfigError {
    let start = span.map(|s| s.start.min(text.len())).unwrap_or(0);
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before[line_start..].chars().count() + 1;
    let key = key_at(text, line);
    ConfigError::Invalid {
        file: name.to_string(),
        line,
        column,
        key,
        message,
    }
}

/// The dotted key defined on (or, for multi-line values, above) 1-based `line`.
fn key_at(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut key = String::new();
    let mut idx = line.saturating_sub(1).min(lines.len().saturating_sub(1));
    // The key on this line or the nearest line above that assigns one.
    loop {
        let l = lines.get(idx).copied().unwrap_or("").trim();
        if l.starts_with('[') {
            // The error is on a table header itself.
            return l.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
        if let Some((k, _)) = l.split_once('=') {
            if !l.starts_with('#') && !k.trim().is_empty() && !k.contains('"') || k.trim().starts_with('"') {
                key = k.trim().trim_matches('"').to_string();
                break;
            }
        }
        if idx == 0 {
            break;
        }
        idx -= 1;
    }
    // The table the key is in.
    let mut table = String::new();
    for l in lines[..idx.min(lines.len())].iter().rev() {
        let l = l.trim();
        if l.starts_with('[') && !l.starts_with("[ ") || l.starts_with("[[") {
            table = l
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            break;
        }
    }
    match (table.is_empty(), key.is_empty()) {
        (true, _) => key,
        (false, true) => table,
        (false, false) => format!("{table}.{key}"),
    }
}

fn parse_layer(origin: Origin, name: String, text: String) -> Result<Layer, ConfigError> {
    match toml::from_str::<ConfigFile>(&text) {
        Ok(file) => Ok(Layer { origin, name, text, file }),
        Err(e) => Err(invalid_at(&name, &text, e.span(), e.message().trim().to_string())),
    }
}

/// Reads a config file; `None` when it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(None),
        Err(e) => Err(ConfigError::Io {
            file: path.display().to_string(),
            source: e,
        }),
    }
}

/// Loads a profile by name (user profiles dir first, then built-in), with its `extends` chain,
/// base first.
fn load_profile(name: &str, profiles_dir: Option<&Path>, origin_desc: &str) -> Result<Vec<Layer>, ConfigError> {
    let mut chain = Vec::new();
    let mut next = Some(name.to_string());
    while let Some(n) = next.take() {
        if chain.len() > 8 || chain.iter().any(|l: &Layer| l.origin == Origin::Profile(n.clone())) {
            return Err(ConfigError::UnknownProfile {
                name: n,
                origin: origin_desc.into(),
                known: "(profiles extend each other in a loop)".into(),
            });
        }
        let user_file = profiles_dir.map(|d| d.join(format!("{n}.toml")));
        let user_text = match &user_file {
            Some(f) if valid_profile_name(&n) => read_optional(f)?,
            _ => None,
        };
        let (text, file_name) = match (user_text, profiles::builtin_text(&n)) {
            (Some(t), _) => (t, user_file.map(|f| f.display().to_string()).unwrap_or_default()),
            (None, Some(t)) => (t.to_string(), format!("profiles/{n}.toml")),
            (None, None) => {
                return Err(ConfigError::UnknownProfile {
                    name: n,
                    origin: origin_desc.into(),
                    known: known_profiles(profiles_dir).join(", "),
                })
            }
        };
        let layer = parse_layer(Origin::Profile(n.clone()), file_name, text)?;
        if let Some(p) = &layer.file.profile {
            return Err(layer.err_at(p.span(), "`profile` chooses a profile in a config file; a profile can't set it (use [meta] extends)"));
        }
        if let Some(t) = &layer.file.trust {
            let span = t.first().map(|s| s.span()).unwrap_or(0..0);
            return Err(layer.err_at(span, "`trust` belongs in the user config, not in a profile"));
        }
        next = layer.file.meta.as_ref().and_then(|m| m.extends.clone());
        chain.push(layer);
    }
    chain.reverse();
    Ok(chain)
}

fn valid_profile_name(n: &str) -> bool {
    !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Built-in profile names plus the user's.
pub fn known_profiles(profiles_dir: Option<&Path>) -> Vec<String> {
    let mut names: Vec<String> = profiles::builtin_names().into_iter().map(String::from).collect();
    if let Some(dir) = profiles_dir {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "toml") {
                    if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
                        if !names.iter().any(|n| n == stem) {
                            names.push(stem.to_string());
                        }
                    }
                }
            }
        }
    }
    names
}

/// The `[meta]` of every profile (built-in and user), for the automatic pick.
///
/// Only `[meta]` decides the pick, and parsing every profile in full with its `extends` chain
/// cost several milliseconds of each `ward exec`: the table is cut out of the text and parsed
/// alone (the whole file when that fails). The picked profile is then loaded and checked in
/// full like any other.
fn all_profiles(profiles_dir: Option<&Path>) -> Vec<(String, ConfigFile)> {
    #[derive(serde::Deserialize)]
    struct MetaOnly {
        meta: Option<crate::schema::Meta>,
    }
    let mut out = Vec::new();
    for name in known_profiles(profiles_dir) {
        let user_text = profiles_dir
            .filter(|_| valid_profile_name(&name))
            .and_then(|d| std::fs::read_to_string(d.join(format!("{name}.toml"))).ok());
        let Some(text) = user_text.or_else(|| profiles::builtin_text(&name).map(str::to_string)) else {
            continue;
        };
        let meta = meta_table(&text)
            .and_then(|t| toml::from_str::<MetaOnly>(t).ok())
            .or_else(|| toml::from_str::<MetaOnly>(&text).ok())
            .and_then(|m| m.meta);
        if let Some(meta) = meta {
            out.push((name, ConfigFile { meta: Some(meta), ..Default::default() }));
        }
    }
    out
}

/// The text of the `[meta]` table of a TOML document: from its header to the next line that
/// starts a table, or `None` when there is no such header.
fn meta_table(text: &str) -> Option<&str> {
    let mut pos = 0;
    let mut begin = None;
    for line in text.split_inclusive('\n') {
        match begin {
            None if line.trim() == "[meta]" => begin = Some(pos),
            Some(b) if line.starts_with('[') => return text.get(b..pos),
            _ => {}
        }
        pos += line.len();
    }
    begin.and_then(|b| text.get(b..))
}

/// Loads and merges the configuration for one run.
pub fn load(req: &LoadRequest) -> Result<Resolved, ConfigError> {
    let profiles_dir = req.user_config.parent().map(|d| d.join("profiles"));
    let profiles_dir = profiles_dir.as_deref();
    let mut layers_info = Vec::new();

    // 1. The config files.
    let mut file_layers: Vec<Layer> = Vec::new();
    for path in [&req.system_config, &req.user_config] {
        match read_optional(path)? {
            Some(text) => {
                let layer = parse_layer(Origin::File(path.clone()), path.display().to_string(), text)?;
                if layer.file.meta.is_some() {
                    return Err(layer.err_at(find_span(&layer.text, "[meta]"), "[meta] belongs in a profile file, not in a config file"));
                }
                layers_info.push(LayerInfo { origin: layer.origin.clone(), applied: true, note: String::new() });
                file_layers.push(layer);
            }
            None => layers_info.push(LayerInfo {
                origin: Origin::File(path.clone()),
                applied: false,
                note: "not present".into(),
            }),
        }
    }
    let trust: Vec<(PathBuf, Origin)> = file_layers
        .iter()
        .flat_map(|l| {
            l.file
                .trust
                .iter()
                .flatten()
                .map(|t| (expand_dir(t.get_ref(), &req.home, &req.project_dir), l.origin.clone()))
        })
        .collect();
    let project_file = req.project_dir.join(".ward.toml");
    if let Some(text) = read_optional(&project_file)? {
        let trusted = trust.iter().any(|(t, _)| req.project_dir.starts_with(t));
        if trusted {
            let layer = parse_layer(Origin::File(project_file.clone()), project_file.display().to_string(), text)?;
            if let Some(t) = &layer.file.trust {
                let span = t.first().map(|s| s.span()).unwrap_or(0..0);
                return Err(layer.err_at(span, "a project can't trust itself: `trust` belongs in the user config"));
            }
            if layer.file.meta.is_some() {
                return Err(layer.err_at(find_span(&layer.text, "[meta]"), "[meta] belongs in a profile file, not in a config file"));
            }
            layers_info.push(LayerInfo { origin: layer.origin.clone(), applied: true, note: "trusted".into() });
            file_layers.push(layer);
        } else {
            layers_info.push(LayerInfo {
                origin: Origin::File(project_file.clone()),
                applied: false,
                note: format!(
                    "ignored: the project is not trusted; add trust = [{:?}] to {}",
                    req.project_dir.display().to_string(),
                    req.user_config.display()
                ),
            });
        }
    }

    // 2. The profile.
    let env_get = |k: &str| req.env.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let mut auto = false;
    let (profile, profile_origin) = if let Some(p) = &req.profile {
        (p.clone(), Origin::Cli("--profile".into()))
    } else if let Some(p) = env_get("WARD_PROFILE").filter(|p| !p.is_empty()) {
        (p.to_string(), Origin::Env("WARD_PROFILE".into()))
    } else if let Some(p) = profiles::pick_for_argv(&req.argv, &all_profiles(profiles_dir)) {
        auto = true;
        (
            p.to_string(),
            Origin::Cli(format!("picked from the command `{}`", req.argv.first().map(String::as_str).unwrap_or(""))),
        )
    } else if let Some((p, o)) = file_layers
        .iter()
        .rev()
        .find_map(|l| l.file.profile.as_ref().map(|p| (p.get_ref().clone(), l.origin.clone())))
    {
        (p, o)
    } else {
        (profiles::DEFAULT_PROFILE.to_string(), Origin::Default)
    };
    let profile_layers = load_profile(&profile, profiles_dir, &profile_origin.to_string())?;
    let profile_description = profile_layers
        .last()
        .and_then(|l| l.file.meta.as_ref())
        .map(|m| m.description.clone())
        .unwrap_or_default();

    // 3. Merge.
    let mut m = Merger::new(req);
    m.origins.insert("profile".into(), profile_origin);
    for layer in profile_layers.iter().chain(file_layers.iter()) {
        m.apply(layer)?;
    }
    m.apply_env(req)?;
    m.apply_cli(req)?;
    m.finish(req, profile, auto, profile_description, layers_info, trust)
}

fn find_span(text: &str, needle: &str) -> std::ops::Range<usize> {
    text.find(needle).map(|i| i..i + needle.len()).unwrap_or(0..0)
}

fn timeout_from(v: &TimeoutValue) -> Result<Duration, String> {
    match v {
        TimeoutValue::Secs(s) => Ok(Duration::from_secs(*s)),
        TimeoutValue::Text(t) => parse_duration(t),
    }
}

/// Parses `120`, `90s`, `2m`, `1m30s`.
pub fn parse_duration(t: &str) -> Result<Duration, String> {
    let t = t.trim();
    if let Ok(s) = t.parse::<u64>() {
        return Ok(Duration::from_secs(s));
    }
    humantime::parse_duration(t).map_err(|e| format!("bad duration {t:?}: {e} (write 120, \"90s\" or \"2m\")"))
}

struct Merger {
    mode: Mode,
    review_timeout: Duration,
    headless: Verdict,
    thresholds: Thresholds,
    limits: Limits,
    sandbox_mode: SandboxMode,
    writable: Vec<(PathBuf, Origin)>,
    protected: Vec<(PathBuf, Origin)>,
    secrets: Vec<(PathBuf, Origin)>,
    allow: Vec<NetTarget>,
    allow_loopback: Vec<(u16, Origin)>,
    allow_net: Vec<NetTarget>,
    runtime: Vec<RuntimeDir>,
    sensitive: Vec<SensitiveRule>,
    path_rules: Vec<PathRule>,
    command_rules: Vec<CommandRule>,
    approved: Vec<Approval>,
    origins: BTreeMap<String, Origin>,
    home: PathBuf,
    project: PathBuf,
}

impl Merger {
    fn new(req: &LoadRequest) -> Merger {
        Merger {
            mode: Mode::Enforce,
            review_timeout: Duration::from_secs(120),
            headless: Verdict::Deny,
            thresholds: Thresholds::default(),
            limits: Limits::default(),
            sandbox_mode: SandboxMode::WorkspaceWrite,
            writable: Vec::new(),
            protected: Vec::new(),
            secrets: Vec::new(),
            allow: Vec::new(),
            allow_loopback: Vec::new(),
            allow_net: Vec::new(),
            runtime: Vec::new(),
            sensitive: Vec::new(),
            path_rules: Vec::new(),
            command_rules: Vec::new(),
            approved: Vec::new(),
            origins: BTreeMap::new(),
            home: req.home.clone(),
            project: req.project_dir.clone(),
        }
    }

    fn set_origin(&mut self, key: &str, origin: &Origin) {
        self.origins.insert(key.to_string(), origin.clone());
    }

    fn glob(&self, layer: &Layer, s: &toml::Spanned<String>) -> Result<String, ConfigError> {
        let pattern = expand_pattern(s.get_ref(), &self.home, &self.project);
        compile_glob(&pattern).map_err(|e| layer.err_at(s.span(), format!("bad glob {:?}: {}", s.get_ref(), e.kind())))?;
        Ok(pattern)
    }

    fn apply(&mut self, layer: &Layer) -> Result<(), ConfigError> {
        let f = &layer.file;
        let o = &layer.origin;
        if let Some(mode) = f.mode {
            self.mode = match mode {
                ModeName::Audit => Mode::Audit,
                ModeName::Enforce => Mode::Enforce,
            };
            self.set_origin("mode", o);
        }
        if let Some(t) = &f.review_timeout {
            self.review_timeout = timeout_from(t.get_ref()).map_err(|e| layer.err_at(t.span(), e))?;
            self.set_origin("review_timeout", o);
        }
        if let Some(h) = f.headless {
            self.headless = match h {
                HeadlessName::Deny => Verdict::Deny,
                HeadlessName::Allow => Verdict::Allow,
            };
            self.set_origin("headless", o);
        }
        if let Some(t) = &f.thresholds {
            if let Some(r) = &t.review {
                self.thresholds.review = *r.get_ref();
                self.set_origin("thresholds.review", o);
            }
            if let Some(d) = &t.deny {
                self.thresholds.deny = *d.get_ref();
                self.set_origin("thresholds.deny", o);
            }
            if self.thresholds.review > self.thresholds.deny || self.thresholds.review <= 0 {
                let span = t.review.as_ref().or(t.deny.as_ref()).map(|s| s.span()).unwrap_or(0..0);
                return Err(layer.err_at(
                    span,
                    format!(
                        "thresholds must satisfy 0 < review <= deny (review = {}, deny = {})",
                        self.thresholds.review, self.thresholds.deny
                    ),
                ));
            }
        }
        if let Some(l) = &f.limits {
            macro_rules! lim {
                ($($field:ident),*) => {$(
                    if let Some(v) = l.$field {
                        self.limits.$field = v;
                        self.set_origin(concat!("limits.", stringify!($field)), o);
                    }
                )*};
            }
            lim!(exec_per_sec, exec_burst, connect_per_sec, connect_burst, delete_per_sec, delete_burst, census_pids, census_window_secs);
        }
        if let Some(s) = &f.sandbox {
            if let Some(m) = s.mode {
                self.sandbox_mode = match m {
                    SandboxModeName::WorkspaceWrite => SandboxMode::WorkspaceWrite,
                    SandboxModeName::ReadOnly => SandboxMode::ReadOnly,
                    SandboxModeName::LandlockOnly => SandboxMode::LandlockOnly,
                    SandboxModeName::Off => SandboxMode::Off,
                };
                self.set_origin("sandbox.mode", o);
            }
            for (list, items) in [(0, &s.writable), (1, &s.protected), (2, &s.secrets)] {
                for it in items {
                    if it.get_ref().contains(['*', '?', '[']) {
                        return Err(layer.err_at(it.span(), "sandbox paths are directories or files, not globs"));
                    }
                    let p = expand_dir(it.get_ref(), &self.home, &self.project);
                    let target = match list {
                        0 => &mut self.writable,
                        1 => &mut self.protected,
                        _ => &mut self.secrets,
                    };
                    if !target.iter().any(|(q, _)| *q == p) {
                        target.push((p, o.clone()));
                    }
                }
            }
        }
        if let Some(n) = &f.network {
            for a in &n.allow {
                let t = NetTarget::parse(a.get_ref(), o.clone()).map_err(|e| layer.err_at(a.span(), e))?;
                if !self.allow.iter().any(|x| x.host == t.host && x.port == t.port) {
                    self.allow.push(t);
                }
            }
            for p in &n.allow_loopback {
                if !self.allow_loopback.iter().any(|(q, _)| q == p) {
                    self.allow_loopback.push((*p, o.clone()));
                }
            }
        }
        for r in &f.runtime {
            let pattern = self.glob(layer, &r.path)?;
            self.runtime.push(RuntimeDir { rule: r.name.clone(), pattern, origin: o.clone() });
        }
        for s in &f.sensitive {
            let pattern = self.glob(layer, &s.path)?;
            let mut except = Vec::new();
            for e in &s.except {
                except.push(self.glob(layer, e)?);
            }
            self.sensitive.push(SensitiveRule {
                pattern,
                class: s.class.clone(),
                access: s.access,
                score: s.score,
                reason: s.reason.clone(),
                except,
                origin: o.clone(),
            });
        }
        if let Some(rules) = &f.rules {
            for r in &rules.path {
                let pattern = self.glob(layer, &r.path)?;
                let score = r.score.unwrap_or(match r.action {
                    RuleAction::Allow => -100,
                    RuleAction::Review => 50,
                    RuleAction::Deny => 100,
                });
                self.path_rules.push(PathRule {
                    pattern,
                    access: r.access,
                    action: r.action,
                    score,
                    reason: r.reason.clone(),
                    origin: o.clone(),
                });
            }
            for r in &rules.command {
                let prefix = r.prefix.get_ref();
                if prefix.is_empty() {
                    return Err(layer.err_at(r.prefix.span(), "prefix needs at least the command name"));
                }
                for el in prefix {
                    compile_glob(el).map_err(|e| layer.err_at(r.prefix.span(), format!("bad pattern {el:?}: {}", e.kind())))?;
                }
                let score = r.score.unwrap_or(match r.action {
                    RuleAction::Allow => 0,
                    RuleAction::Review => 50,
                    RuleAction::Deny => 100,
                });
                self.command_rules.push(CommandRule {
                    prefix: prefix.clone(),
                    action: r.action,
                    score,
                    reason: r.reason.clone(),
                    origin: o.clone(),
                });
            }
        }
        for a in &f.approved {
            let kind = OpKind::parse(&a.kind);
            if kind.is_none() {
                return Err(layer.err_at(find_span(&layer.text, &format!("\"{}\"", a.kind)), format!("unknown operation kind {:?}", a.kind)));
            }
            self.approved.push(Approval { entry: a.clone(), kind, origin: o.clone() });
        }
        Ok(())
    }

    fn apply_env(&mut self, req: &LoadRequest) -> Result<(), ConfigError> {
        for (var, val) in &req.env {
            let origin = Origin::Env(var.clone());
            let err = |message: String| ConfigError::Env { var: var.clone(), message };
            match var.as_str() {
                "WARD_MODE" => {
                    self.mode = Mode::parse(val).ok_or_else(|| err(format!("{val:?} is not audit or enforce")))?;
                    self.set_origin("mode", &origin);
                }
                "WARD_SANDBOX" => {
                    self.sandbox_mode = SandboxMode::parse(val).ok_or_else(|| {
                        err(format!("{val:?} is not workspace-write, read-only, landlock-only or off"))
                    })?;
                    self.set_origin("sandbox.mode", &origin);
                }
                "WARD_REVIEW_TIMEOUT" => {
                    self.review_timeout = parse_duration(val).map_err(err)?;
                    self.set_origin("review_timeout", &origin);
                }
                "WARD_HEADLESS" => {
                    self.headless = match val.as_str() {
                        "deny" => Verdict::Deny,
                        "allow" => Verdict::Allow,
                        _ => return Err(err(format!("{val:?} is not deny or allow"))),
                    };
                    self.set_origin("headless", &origin);
                }
                "WARD_ALLOW_NET" => {
                    for item in val.split([',', ' ']).filter(|s| !s.is_empty()) {
                        let t = NetTarget::parse(item, origin.clone()).map_err(err)?;
                        self.allow_net.push(t);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn apply_cli(&mut self, req: &LoadRequest) -> Result<(), ConfigError> {
        let cli = &req.cli;
        if let Some(m) = cli.mode {
            self.mode = m;
            self.set_origin("mode", &Origin::Cli("--mode".into()));
        }
        if let Some(s) = &cli.sandbox {
            self.sandbox_mode = SandboxMode::parse(s).ok_or_else(|| ConfigError::Cli {
                flag: "--sandbox".into(),
                message: format!("{s:?} is not workspace-write, read-only, landlock-only or off"),
            })?;
            self.set_origin("sandbox.mode", &Origin::Cli("--sandbox".into()));
        }
        if let Some(t) = cli.review_timeout {
            self.review_timeout = t;
            self.set_origin("review_timeout", &Origin::Cli("--review-timeout".into()));
        }
        for a in &cli.allow_net {
            let t = NetTarget::parse(a, Origin::Cli("--allow-net".into())).map_err(|message| ConfigError::Cli {
                flag: "--allow-net".into(),
                message,
            })?;
            self.allow_net.push(t);
        }
        Ok(())
    }

    fn finish(
        mut self,
        req: &LoadRequest,
        profile: String,
        auto: bool,
        profile_description: String,
        layers: Vec<LayerInfo>,
        trust: Vec<(PathBuf, Origin)>,
    ) -> Result<Resolved, ConfigError> {
        // Writable roots: the project (unless read-only) and /tmp first.
        let mut writable: Vec<(PathBuf, Origin)> = Vec::new();
        if self.sandbox_mode != SandboxMode::ReadOnly {
            writable.push((req.project_dir.clone(), Origin::Default));
        }
        writable.push((PathBuf::from("/tmp"), Origin::Default));
        for w in self.writable.drain(..) {
            if !writable.iter().any(|(p, _)| *p == w.0) {
                writable.push(w);
            }
        }
        // Loopback ports of --allow-net entries are reachable outside the tree too.
        let mut allow_loopback = std::mem::take(&mut self.allow_loopback);
        for t in &self.allow_net {
            if let (true, Some(p)) = (t.is_loopback(), t.port) {
                if !allow_loopback.iter().any(|(q, _)| *q == p) {
                    allow_loopback.push((p, t.origin.clone()));
                }
            }
        }
        let net_mode = if self.allow.iter().chain(&self.allow_net).any(|t| !t.is_loopback()) {
            NetworkMode::Allow
        } else {
            NetworkMode::Off
        };
        let mut origins = std::mem::take(&mut self.origins);
        let indexed = |origins: &mut BTreeMap<String, Origin>, key: &str, items: &[(PathBuf, Origin)]| {
            for (i, (_, o)) in items.iter().enumerate() {
                origins.insert(format!("{key}[{i}]"), o.clone());
            }
        };
        indexed(&mut origins, "sandbox.writable", &writable);
        indexed(&mut origins, "sandbox.protected", &self.protected);
        indexed(&mut origins, "sandbox.secrets", &self.secrets);
        indexed(&mut origins, "trust", &trust);
        for (i, (_, o)) in allow_loopback.iter().enumerate() {
            origins.insert(format!("network.allow_loopback[{i}]"), o.clone());
        }
        origins.insert(
            "network.mode".into(),
            self.allow
                .iter()
                .chain(&self.allow_net)
                .find(|t| !t.is_loopback())
                .map(|t| t.origin.clone())
                .unwrap_or(Origin::Default),
        );
        Ok(Resolved {
            profile,
            profile_auto_picked: auto,
            profile_description,
            mode: self.mode,
            review_timeout: self.review_timeout,
            headless: self.headless,
            thresholds: self.thresholds,
            limits: self.limits,
            sandbox: SandboxSettings {
                mode: self.sandbox_mode,
                writable: writable.into_iter().map(|(p, _)| p).collect(),
                protected: self.protected.into_iter().map(|(p, _)| p).collect(),
                secrets: self.secrets.into_iter().map(|(p, _)| p).collect(),
                network: NetworkSettings {
                    mode: net_mode,
                    allow: self.allow,
                    allow_loopback: allow_loopback.into_iter().map(|(p, _)| p).collect(),
                    allow_net: self.allow_net,
                },
            },
            runtime_dirs: self.runtime,
            sensitive: self.sensitive,
            path_rules: self.path_rules,
            command_rules: self.command_rules,
            approved: self.approved,
            trust: trust.into_iter().map(|(p, _)| p).collect(),
            project_dir: req.project_dir.clone(),
            home: req.home.clone(),
            user_config: req.user_config.clone(),
            layers,
            origins,
        })
    }
}

/// Appends an `[[approved]]` entry to a config file (creating it and its directory).
pub fn append_approval(path: &Path, entry: &ApprovedFile) -> std::io::Result<()> {
    use std::io::Write;
    #[derive(Serialize)]
    struct Wrap<'a> {
        approved: [&'a ApprovedFile; 1],
    }
    let text = toml::to_string(&Wrap { approved: [entry] })
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let needs_newline = std::fs::read(path).map(|b| !b.is_empty() && !b.ends_with(b"\n")).unwrap_or(false);
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let mut out = String::new();
    if needs_newline {
        out.push('\n');
    }
    out.push_str("\n# Added by ward: answered \"always\" at a review.\n");
    out.push_str(&text);
    f.write_all(out.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meta_table_is_cut_out_of_a_profile() {
        let text = "# c\r\nmode = \"audit\"\r\n[meta]\r\nname = \"x\"\r\ncommands = [\r\n  \"x\",\r\n]\r\n[sandbox]\r\nmode = \"off\"\r\n";
        assert_eq!(meta_table(text), Some("[meta]\r\nname = \"x\"\r\ncommands = [\r\n  \"x\",\r\n]\r\n"));
        assert_eq!(meta_table("[meta]\nname = \"y\""), Some("[meta]\nname = \"y\""));
        assert_eq!(meta_table("[sandbox]\nmode = \"off\"\n"), None);
    }

    #[test]
    fn every_builtin_profile_is_picked_by_its_meta_alone() {
        let metas = all_profiles(None);
        for name in profiles::builtin_names() {
            let full: ConfigFile = toml::from_str(profiles::builtin_text(name).unwrap()).unwrap();
            let cut = metas.iter().find(|(n, _)| n == name).map(|(_, f)| f.meta.clone());
            let (full, cut) = (full.meta.unwrap(), cut.flatten().expect(name));
            assert_eq!((full.name, full.commands, full.packages), (cut.name, cut.commands, cut.packages));
        }
    }
}
