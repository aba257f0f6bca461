//! The filters of the pipeline, one module each, in pipeline order:
//!
//! | filter | module | looks at |
//! | --- | --- | --- |
//! | `op-risk` | [`op_risk`] | the kind: writes outside the project and writable roots, protected paths, reaching into other processes |
//! | `path-rule` | [`path_rule`] | `[[rules.path]]` globs; the strictest match wins |
//! | `sensitive-path` | [`sensitive`] | `[[sensitive]]` globs, other processes' `/proc/<pid>/environ\|mem\|cmdline`, paths named in exec arguments |
//! | `process-census` | [`census`] | one process reading `/proc/<pid>/…` of many others |
//! | `git-metadata` | [`git`] | repositories above the project; hooks and config inside it |
//! | `command-rule` | [`command`] | `[[rules.command]]` prefixes on every simple command; `curl … \| sh` |
//! | `destructive` | [`destructive`] | `rm -rf` outside the project, `mkfs`, block devices, `git push --force` |
//! | `egress` | [`egress`] | destination, port and domain of connects, sends and DNS queries; loopback |
//! | `secrets` | [`secrets`] | tokens and keys in exec arguments and outgoing payloads |
//! | `taint` | [`taint`] | egress or a network tool after a sensitive read succeeded |
//! | `rate` | [`rate`] | exec, connect and delete rates (token buckets) |
//!
//! Each filter is a function `check(&Ctx, [&mut State,] &mut Hits) -> Result<(), String>`;
//! scores add up, an `Err` denies. Filters emit at most one hit per concern so the total
//! reads as a sum of reasons.

pub mod census;
pub mod command;
pub mod destructive;
pub mod egress;
pub mod git;
pub mod op_risk;
pub mod path_rule;
pub mod rate;
pub mod secrets;
pub mod sensitive;
pub mod taint;

use crate::engine::Ctx;
use ward_event::OpKind;

/// Filter names as they appear in events.
pub const OP_RISK: &str = "op-risk";
/// See [`path_rule`].
pub const PATH_RULE: &str = "path-rule";
/// See [`sensitive`].
pub const SENSITIVE: &str = "sensitive-path";
/// See [`census`].
pub const CENSUS: &str = "process-census";
/// See [`git`].
pub const GIT: &str = "git-metadata";
/// See [`command`].
pub const COMMAND: &str = "command-rule";
/// See [`destructive`].
pub const DESTRUCTIVE: &str = "destructive";
/// See [`egress`].
pub const EGRESS: &str = "egress";
/// See [`secrets`].
pub const SECRETS: &str = "secrets";
/// See [`taint`].
pub const TAINT: &str = "taint";
/// See [`rate`].
pub const RATE: &str = "rate";

/// Whether the stateful filters need to run (and the session lock be taken).
pub(crate) fn needs_state(ctx: &Ctx<'_>) -> bool {
    match ctx.kind {
        OpKind::ProcExec
        | OpKind::NetConnect
        | OpKind::NetSend
        | OpKind::NetBind
        | OpKind::DnsQuery
        | OpKind::FileDelete => true,
        OpKind::FileRead | OpKind::DirList => {
            ctx.path.is_some_and(|p| crate::paths::proc_pid_file(p).is_some())
        }
        _ => false,
    }
}

/// Executables that are network tools (for taint).
pub(crate) const NETWORK_TOOLS: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "ftp", "tftp",
    "telnet", "http", "https", "xh", "aria2c", "dig", "nslookup", "host", "openssl", "gh",
];

/// Whether an executable's name (or path) is git or one of its helpers.
pub(crate) fn is_git(exe: &[u8]) -> bool {
    let base = crate::paths::basename(exe);
    base == b"git" || base.starts_with(b"git-") || exe.windows(10).any(|w| w == b"/git-core/")
}
