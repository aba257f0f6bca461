//! `egress`: where the tree connects and sends.
//!
//! - Loopback (`127.0.0.0/8`, `::1`): DNS (port 53), ports bound by the session itself,
//!   `network.allow_loopback` and loopback `--allow-net` entries score 0. Other loopback ports
//!   score 50 (a service outside the tree), or 30 when the session bound an ephemeral port
//!   (port 0) that the connect may be reaching.
//! - Elsewhere: allowed when the domain ward learnt for the address (or the address itself)
//!   is in `network.allow` or `--allow-net`, on 443/80 or the entry's explicit port; an
//!   allowed domain on another port scores 50 (non-standard port). A destination that no
//!   list allows scores 100: "network is off" when the profile has no allow list, "direct
//!   connection to an IP" when ward knows no name for it, "unknown domain" otherwise.
//! - `dns.query` for a name no list allows scores 30 (noted; taint makes it more).
//! - `net.bind` on loopback is routine and remembered (so connects to it are allowed);
//!   binding all interfaces scores 30.
//!
//! Protocol: ward sees TCP connects and UDP sends with a destination alike; UDP to port 53
//! is DNS and judged like a query to that resolver.

use crate::config::NetworkMode;
use crate::engine::{Ctx, FilterResult, Hits, State};
use std::net::SocketAddr;
use ward_event::OpKind;

/// Score of a destination nothing allows.
pub const BLOCKED: i32 = 100;
/// Score of an allowed domain on a non-standard port, or an unknown loopback port.
pub const UNUSUAL: i32 = 50;
/// Score of a DNS query for a name no list allows.
pub const DNS_UNKNOWN: i32 = 30;

const STANDARD_PORTS: &[u16] = &[443, 80];

pub(crate) fn check(ctx: &Ctx<'_>, st: &mut State, hits: &mut Hits) -> FilterResult {
    let name = super::EGRESS;
    let net = &ctx.c.network;
    match ctx.kind {
        OpKind::NetBind => {
            let Some(sa) = ctx.op.addr.as_ref().and_then(|a| a.socket_addr()) else { return Ok(()) };
            if sa.port() == 0 {
                st.bound_ephemeral = true;
            } else {
                st.bound_ports.insert(sa.port());
            }
            if sa.ip().is_unspecified() {
                hits.add(name, 30, format!("listens on all interfaces ({sa}), not only loopback"));
            }
            Ok(())
        }
        OpKind::DnsQuery => {
            let Some(domain) = ctx.op.domain.as_deref() else { return Ok(()) };
            if !net.allows_domain(domain) {
                hits.add(name, DNS_UNKNOWN, format!("looks up {domain}, which no allow list names"));
            }
            Ok(())
        }
        OpKind::NetConnect | OpKind::NetSend => {
            let Some(sa) = ctx.op.addr.as_ref().and_then(|a| a.socket_addr()) else { return Ok(()) };
            if let Some((score, reason)) = judge(ctx, st, sa) {
                hits.add(name, score, reason);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn judge(ctx: &Ctx<'_>, st: &State, sa: SocketAddr) -> Option<(i32, String)> {
    let net = &ctx.c.network;
    let port = sa.port();
    let ip = sa.ip().to_string();
    // An address that DNS named after an allowed domain is judged by that name, wherever it
    // points (a resolver may well answer with a loopback or private address).
    let allowed_name = ctx
        .op
        .domain
        .as_deref()
        .is_some_and(|d| net.allow.iter().chain(&net.allow_net).any(|t| crate::config::host_matches(&t.host, d)));
    if sa.ip().is_loopback() && !allowed_name {
        if port == 53
            || st.bound_ports.contains(&port)
            || net.allow_loopback.contains(&port)
            || net.allow_net.iter().any(|t| t.is_loopback() && t.port.is_none_or(|p| p == port))
        {
            return None;
        }
        if st.bound_ephemeral {
            return Some((30, format!("loopback port {port} was not bound by this session under that number (an ephemeral port was); allow it with --allow-net 127.0.0.1:{port}")));
        }
        return Some((UNUSUAL, format!("loopback service outside the session ({sa}); allow it with --allow-net {}:{port}", sa.ip())));
    }
    let domain = ctx.op.domain.as_deref();
    let shown = match domain {
        Some(d) => format!("{d} ({sa})"),
        None => sa.to_string(),
    };
    let entries = || net.allow.iter().chain(&net.allow_net);
    let by_name = |h: &str| entries().find(|t| crate::config::host_matches(&t.host, h));
    let entry = domain.and_then(by_name).or_else(|| by_name(&ip));
    if let Some(t) = entry {
        return match t.port {
            Some(p) if p == port => None,
            Some(p) => Some((BLOCKED, format!("{shown}: allowed only on port {p} ({})", t.origin))),
            None if STANDARD_PORTS.contains(&port) || ctx.kind == OpKind::NetSend && port == 53 => None,
            None => Some((UNUSUAL, format!("{shown}: allowed domain on a non-standard port {port}"))),
        };
    }
    if net.mode == NetworkMode::Off {
        return Some((
            BLOCKED,
            format!("network is off in profile {} ({shown}); allow it with --allow-net HOST[:PORT]", ctx.c.profile),
        ));
    }
    match domain {
        None => Some((BLOCKED, format!("direct connection to an address no DNS answer named ({sa})"))),
        Some(d) => Some((BLOCKED, format!("{d} is not in the allow list ({sa})"))),
    }
}

#[cfg(test)]
mod tests {
    use crate::testkit::*;
    use ward_event::{Decider, Verdict};

    #[test]
    fn network_is_off_under_generic() {
        let e = engine("generic");
        let d = decide(&e, &connect("93.184.216.34:443", Some("example.com")));
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(d.filters[0].reason.contains("network is off"), "{:?}", d.filters);
    }

    #[test]
    fn loopback_servers_of_the_session_are_reachable() {
        let e = engine("generic");
        assert_eq!(decide(&e, &connect("127.0.0.1:53", None)).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("127.0.0.1:8080", None)).verdict, Verdict::Review);
        assert_eq!(decide(&e, &bind("127.0.0.1:8080")).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("127.0.0.1:8080", None)).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("[::1]:8080", None)).verdict, Verdict::Allow);
    }

    #[test]
    fn allow_net_opens_one_destination() {
        let e = engine_cli("generic", &["127.0.0.1:4000", "api.example.com"]);
        assert_eq!(decide(&e, &connect("127.0.0.1:4000", None)).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("127.0.0.1:4001", None)).verdict, Verdict::Review);
        assert_eq!(decide(&e, &connect("1.2.3.4:443", Some("api.example.com"))).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("1.2.3.4:443", Some("evil.example"))).verdict, Verdict::Deny);
        assert_eq!(decide(&e, &connect("1.2.3.4:443", None)).verdict, Verdict::Deny);
    }

    #[test]
    fn a_loopback_address_named_by_an_allowed_domain_is_judged_by_the_name() {
        let e = engine("claude-code");
        assert_eq!(decide(&e, &connect("127.0.0.2:443", Some("api.anthropic.com"))).verdict, Verdict::Allow);
        let d = decide(&e, &connect("127.0.0.3:443", None));
        assert_eq!(d.verdict, Verdict::Review);
        assert!(d.filters[0].reason.contains("--allow-net 127.0.0.3:443"), "{:?}", d.filters);
    }

    #[test]
    fn agent_hosts_by_domain_and_port() {
        let e = engine("claude-code");
        assert_eq!(decide(&e, &connect("160.79.104.10:443", Some("api.anthropic.com"))).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("160.79.104.10:443", Some("statsig.anthropic.com"))).verdict, Verdict::Allow);
        assert_eq!(decide(&e, &connect("160.79.104.10:65535", Some("api.anthropic.com"))).verdict, Verdict::Review);
        let d = decide(&e, &connect("1.2.3.4:443", Some("evil.example")));
        assert_eq!(d.verdict, Verdict::Deny);
        assert!(d.filters[0].reason.contains("not in the allow list"));
        assert_eq!(decide(&e, &connect("1.2.3.4:443", None)).verdict, Verdict::Deny);
        assert_eq!(score_of(&e, &dns("api.anthropic.com"), "egress"), 0);
        assert_eq!(score_of(&e, &dns("evil.example"), "egress"), 30);
        let _ = e.mode();
        let _: &dyn Decider = &e;
    }
}
