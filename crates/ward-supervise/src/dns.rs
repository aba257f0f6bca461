//! DNS messages seen in the tree's outgoing datagrams: the name a query asks for, and ward's
//! own lookup of that name at the same server, so the addresses it resolves to can be named in
//! later `net.connect` events (and judged against an allow-list of domains). Parsing is
//! delegated to `simple-dns`; any malformed input yields nothing (fuzzed).
//!
//! ward does not read the tree's answers (receives are not trapped): it asks the same server
//! the same question itself, before the tree's query leaves, so the mapping is known by the
//! time the tree connects.

/// The first question's name of a DNS query message (not a response), lower-cased.
pub fn query_name(payload: &[u8]) -> Option<String> {
    let packet = simple_dns::Packet::parse(payload).ok()?;
    if packet.has_flags(simple_dns::PacketFlag::RESPONSE) {
        return None;
    }
    let q = packet.questions.first()?;
    Some(q.qname.to_string().trim_end_matches('.').to_ascii_lowercase())
}

/// The addresses (A/AAAA) in a DNS response, with the name they answer for.
pub fn answers(payload: &[u8]) -> Vec<(String, std::net::IpAddr)> {
    let Ok(packet) = simple_dns::Packet::parse(payload) else {
        return Vec::new();
    };
    let asked = packet
        .questions
        .first()
        .map(|q| q.qname.to_string().trim_end_matches('.').to_ascii_lowercase());
    let mut out = Vec::new();
    for rr in &packet.answers {
        let ip = match &rr.rdata {
            simple_dns::rdata::RData::A(a) => std::net::IpAddr::V4(std::net::Ipv4Addr::from(a.address)),
            simple_dns::rdata::RData::AAAA(a) => std::net::IpAddr::V6(std::net::Ipv6Addr::from(a.address)),
            _ => continue,
        };
        // Name the address after the question (CNAME chains end at another name).
        let name = asked.clone().unwrap_or_else(|| rr.name.to_string());
        out.push((name, ip));
    }
    out
}

/// Builds a query for `name` (type A or AAAA).
pub fn build_query(id: u16, name: &str, aaaa: bool) -> Option<Vec<u8>> {
    let mut p = simple_dns::Packet::new_query(id);
    p.set_flags(simple_dns::PacketFlag::RECURSION_DESIRED);
    let qtype = if aaaa { simple_dns::TYPE::AAAA } else { simple_dns::TYPE::A };
    p.questions.push(simple_dns::Question::new(
        simple_dns::Name::new(name).ok()?,
        qtype.into(),
        simple_dns::CLASS::IN.into(),
        false,
    ));
    p.build_bytes_vec().ok()
}

/// ward's own lookup of `name` at `server` (A and AAAA, one second at most); the addresses
/// found are remembered as belonging to `name`.
pub fn learn(sh: &crate::supervisor::Shared, name: &str, server: std::net::SocketAddr) {
    use std::net::UdpSocket;
    let bind = if server.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
    let Ok(sock) = UdpSocket::bind(bind) else {
        return;
    };
    let _ = sock.set_read_timeout(Some(std::time::Duration::from_millis(1000)));
    if sock.connect(server).is_err() {
        return;
    }
    let mut sent = 0;
    for (i, aaaa) in [false, true].into_iter().enumerate() {
        if let Some(q) = build_query(0x5700 + i as u16, name, aaaa) {
            if sock.send(&q).is_ok() {
                sent += 1;
            }
        }
    }
    let mut buf = [0u8; 4096];
    for _ in 0..sent {
        let Ok(n) = sock.recv(&mut buf) else {
            break;
        };
        let found = answers(&buf[..n]);
        if let Ok(mut map) = sh.dns.lock() {
            for (_, ip) in found {
                map.insert(ip, name.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(name: &str) -> Vec<u8> {
        let mut p = simple_dns::Packet::new_query(7);
        p.questions.push(simple_dns::Question::new(
            simple_dns::Name::new_unchecked(name),
            simple_dns::TYPE::A.into(),
            simple_dns::CLASS::IN.into(),
            false,
        ));
        p.build_bytes_vec().unwrap()
    }

    #[test]
    fn reads_the_question() {
        assert_eq!(query_name(&query("Example.Test")).as_deref(), Some("example.test"));
    }

    #[test]
    fn garbage_is_none() {
        for bad in [&b""[..], b"\x00", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"] {
            assert_eq!(query_name(bad), None);
        }
        let q = query("a.b");
        for cut in 0..q.len() {
            let _ = query_name(&q[..cut]);
            let _ = answers(&q[..cut]);
        }
    }
}
