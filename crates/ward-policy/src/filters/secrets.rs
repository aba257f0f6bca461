//! `secrets`: credentials in exec arguments and in outgoing payloads.
//!
//! Recognised: AWS access key ids (`AKIA…`/`ASIA…`), GitHub tokens (`ghp_`, `gho_`, `ghu_`,
//! `ghs_`, `ghr_`, `github_pat_`), GitLab tokens (`glpat-`), Slack tokens (`xox?-`), npm
//! tokens (`npm_`), private key headers (`-----BEGIN … PRIVATE KEY-----`), and model-provider
//! API keys: Anthropic (`sk-ant-`), OpenAI (`sk-…`, `sk-proj-…`), Google (`AIza…`).
//!
//! - In an exec's arguments (any command of a shell string): 50, review.
//! - In an outgoing payload (`net.send`, or the first bytes of a connect): 100; except a
//!   model-provider key sent to a destination an allow list names (an agent sends its own
//!   API key to its own API), which is routine.
//!
//! The scanner is a byte loop, no regex engine; it never allocates unless it finds something.

use crate::engine::{Ctx, FilterResult, Hits};
use ward_event::OpKind;

/// Score of a secret in an argument.
pub const IN_ARGS: i32 = 50;
/// Score of a secret in a payload.
pub const IN_PAYLOAD: i32 = 100;

/// What was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// What kind of secret.
    pub what: &'static str,
    /// Whether it is a model-provider API key (agents send their own).
    pub provider_key: bool,
}

fn run_len(b: &[u8], pred: impl Fn(u8) -> bool) -> usize {
    b.iter().take_while(|&&c| pred(c)).count()
}

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

fn token_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Finds the first secret in `b`.
pub fn scan(b: &[u8]) -> Option<Found> {
    const PK: &[u8] = b"-----BEGIN ";
    let n = b.len();
    let mut i = 0;
    while i < n {
        let rest = &b[i..];
        let prev_ok = i == 0 || !token_char(b[i - 1]);
        match b[i] {
            b'A' if prev_ok
                && (rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA"))
                && run_len(&rest[4..], |c| c.is_ascii_uppercase() || c.is_ascii_digit()) >= 16 =>
            {
                return Some(Found { what: "an AWS access key id", provider_key: false });
            }
            b'A' if prev_ok && rest.starts_with(b"AIza") && run_len(&rest[4..], token_char) >= 35 => {
                return Some(Found { what: "a Google API key", provider_key: true });
            }
            b'g' if prev_ok => {
                for p in [&b"ghp_"[..], b"gho_", b"ghu_", b"ghs_", b"ghr_"] {
                    if rest.starts_with(p) && run_len(&rest[4..], alnum) >= 36 {
                        return Some(Found { what: "a GitHub token", provider_key: false });
                    }
                }
                if rest.starts_with(b"github_pat_") && run_len(&rest[11..], token_char) >= 22 {
                    return Some(Found { what: "a GitHub token", provider_key: false });
                }
                if rest.starts_with(b"glpat-") && run_len(&rest[6..], token_char) >= 20 {
                    return Some(Found { what: "a GitLab token", provider_key: false });
                }
            }
            b'x' if prev_ok
                && rest.starts_with(b"xox")
                && rest.len() > 4
                && rest[4] == b'-'
                && b"abprs".contains(&rest[3])
                && run_len(&rest[5..], token_char) >= 10 =>
            {
                return Some(Found { what: "a Slack token", provider_key: false });
            }
            b'n' if prev_ok && rest.starts_with(b"npm_") && run_len(&rest[4..], alnum) >= 36 => {
                return Some(Found { what: "an npm token", provider_key: false });
            }
            b's' if prev_ok && rest.starts_with(b"sk-") => {
                if rest.starts_with(b"sk-ant-") && run_len(&rest[7..], token_char) >= 20 {
                    return Some(Found { what: "an Anthropic API key", provider_key: true });
                }
                if run_len(&rest[3..], token_char) >= 32 {
                    return Some(Found { what: "an OpenAI API key", provider_key: true });
                }
            }
            b'-' if rest.starts_with(PK) => {
                let line_end = rest.iter().take(80).position(|&c| c == b'\n').unwrap_or(rest.len().min(80));
                let header = &rest[..line_end];
                if header.windows(11).any(|w| w == b"PRIVATE KEY") {
                    return Some(Found { what: "a private key", provider_key: false });
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

pub(crate) fn check(ctx: &Ctx<'_>, hits: &mut Hits) -> FilterResult {
    let name = super::SECRETS;
    if ctx.kind == OpKind::ProcExec {
        for cmd in ctx.cmds {
            for a in cmd.argv.iter().skip(1) {
                if let Some(f) = scan(a.as_bytes()) {
                    hits.add(name, IN_ARGS, cmd.reason(&format!("{} in the command's arguments", f.what)));
                    return Ok(());
                }
            }
        }
        return Ok(());
    }
    if !matches!(ctx.kind, OpKind::NetSend | OpKind::NetConnect) {
        return Ok(());
    }
    let Some(payload) = ctx.op.payload.as_deref() else { return Ok(()) };
    let Some(f) = scan(payload) else { return Ok(()) };
    let sa = ctx.op.addr.as_ref().and_then(|a| a.socket_addr());
    let dest = match (&ctx.op.domain, sa) {
        (Some(d), Some(sa)) => format!("{d} ({sa})"),
        (None, Some(sa)) => sa.to_string(),
        (Some(d), None) => d.clone(),
        (None, None) => "an unknown destination".into(),
    };
    if f.provider_key {
        let net = &ctx.c.network;
        let allowed = sa.is_some_and(|sa| {
            ctx.op.domain.as_deref().is_some_and(|d| net.allows(d, sa.port()))
                || net.allows(&sa.ip().to_string(), sa.port())
                || sa.ip().is_loopback() && net.allow_net.iter().any(|t| t.is_loopback() && t.port.is_none_or(|p| p == sa.port()))
        });
        if allowed {
            return Ok(());
        }
    }
    hits.add(name, IN_PAYLOAD, format!("sends {} to {dest}", f.what));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::scan;
    use crate::testkit::*;
    use ward_event::Verdict;

    #[test]
    fn scanner_finds_known_shapes() {
        let cases: &[(&str, &str)] = &[
            ("key=AKIAIOSFODNN7EXAMPLE", "an AWS access key id"),
            ("ghp_0123456789abcdefghijABCDEFGHIJ012345", "a GitHub token"),
            ("token github_pat_11ABCDEFG0123456789_abcdefghijkl", "a GitHub token"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl", "a private key"),
            ("-----BEGIN RSA PRIVATE KEY-----", "a private key"),
            ("x-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "an Anthropic API key"),
            ("Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", "an OpenAI API key"),
            ("AIzaSyA-0123456789abcdefghijklmnopqrstuv", "a Google API key"),
            ("xoxb-1234567890-abcdef", "a Slack token"),
            ("glpat-abcdefghij0123456789", "a GitLab token"),
        ];
        for (text, what) in cases {
            assert_eq!(scan(text.as_bytes()).map(|f| f.what), Some(*what), "{text}");
        }
        for clean in ["AKIA", "ghp_short", "-----BEGIN CERTIFICATE-----", "task-runner", "risk-assessment-for-project", "ASIAN food", ""] {
            assert_eq!(scan(clean.as_bytes()), None, "{clean}");
        }
    }

    #[test]
    fn secrets_in_arguments_are_reviewed() {
        let e = engine("generic");
        let d = decide(&e, &exec(&["sh", "-c", "echo ghp_0123456789abcdefghijABCDEFGHIJ012345 | gh auth login --with-token"]));
        assert_eq!(score_in(&d, "secrets"), 50);
        assert!(d.filters.iter().any(|h| h.reason.contains("GitHub token")));
    }

    #[test]
    fn payloads() {
        let e = engine_cli("claude-code", &["127.0.0.1:4000"]);
        let key = b"POST /v1/messages\r\nx-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz\r\n".to_vec();
        // The agent's own key to its own API (here the scripted model server on loopback).
        assert_eq!(decide(&e, &send("127.0.0.1:4000", None, &key)).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &send("160.79.104.10:443", Some("api.anthropic.com"), &key)).verdict, Verdict::Allow);
        // A private key anywhere, or an API key elsewhere, is denied.
        let pk = b"-----BEGIN OPENSSH PRIVATE KEY-----\n".to_vec();
        assert_eq!(decide(&e, &send("160.79.104.10:443", Some("api.anthropic.com"), &pk)).verdict, Verdict::Deny);
        assert_eq!(score_of(&e, &send("127.0.0.1:4000", None, &pk), "secrets"), 100);
    }
}
