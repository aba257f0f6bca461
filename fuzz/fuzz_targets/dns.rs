//! The DNS decoders on a datagram's payload: `query_name` (the tree's outgoing queries) and
//! `answers` (responses). Never panic; a name comes back lower-cased without a trailing dot.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ward_supervise::dns;

fuzz_target!(|data: &[u8]| {
    if let Some(name) = dns::query_name(data) {
        assert!(!name.ends_with('.'), "{name:?}");
        assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "{name:?}");
    }
    for (name, ip) in dns::answers(data) {
        let _ = (name.len(), ip.is_loopback());
    }
});
