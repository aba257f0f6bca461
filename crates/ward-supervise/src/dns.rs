//! DNS messages seen in the tree's outgoing datagrams: the name a query asks for. Parsing is
//! delegated to `simple-dns`; any malformed input yields `None` (fuzzed).

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
