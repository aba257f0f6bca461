//! The hash chain: how each event's `hash` is computed from the one before it.
//!
//! ```text
//! genesis(session) = SHA-256("ward-audit chain v1\0" ‖ session id)
//! hash(1)          = SHA-256(genesis(session) ‖ line(1) without "hash")
//! hash(n)          = SHA-256(hash(n-1)       ‖ line(n) without "hash")
//! ```
//!
//! Hashes are chained as raw 32-byte digests and written as lower-case hex. "The line without
//! `hash`" is exactly [`ward_event::Event::to_json_unhashed`]: since `hash` is the last field of
//! the event format, a stored line is that text with `,"hash":"<64 hex>"` inserted before the
//! closing brace, so anyone holding the JSON Lines can re-check the chain byte for byte without
//! re-serialising anything (see [`split_hash`]).

use sha2::{Digest, Sha256};

/// Domain separator of the genesis value, so a chain can never be spliced into another session.
const GENESIS_DOMAIN: &[u8] = b"ward-audit chain v1\0";

/// A raw chain hash.
pub type Hash = [u8; 32];

/// The value event 1 of `session` chains to.
pub fn genesis(session: &str) -> Hash {
    let mut h = Sha256::new();
    h.update(GENESIS_DOMAIN);
    h.update(session.as_bytes());
    h.finalize().into()
}

/// The hash of an event whose line without `hash` is `unhashed`, following `prev`.
pub fn link(prev: &Hash, unhashed: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update(prev);
    h.update(unhashed);
    h.finalize().into()
}

/// `{…}` + hash → `{…,"hash":"<hex>"}`: the same text as `Event::to_json` with the hash set.
/// Reuses the unhashed line's buffer.
pub fn with_hash(unhashed: String, hash_hex: &str) -> String {
    let mut line = unhashed;
    if line.ends_with('}') {
        line.pop();
    }
    line.reserve(hash_hex.len() + 12);
    line.push_str(",\"hash\":\"");
    line.push_str(hash_hex);
    line.push_str("\"}");
    line
}

/// Domain separator of the seal hash.
const SEAL_DOMAIN: &[u8] = b"ward-audit seal v1\0";

/// The seal hash: SHA-256 over the final event hash and the session record as written at the
/// end (`record`: a JSON array of its fields, see `Seal`), so an edit of the recorded command,
/// times, exit code or counts is detected too.
pub fn seal_hash(final_hash: &Hash, record: &str) -> String {
    let mut h = Sha256::new();
    h.update(SEAL_DOMAIN);
    h.update(final_hash);
    h.update(record.as_bytes());
    hex::encode(h.finalize())
}

const HASH_KEY: &str = ",\"hash\":\"";
const HEX_LEN: usize = 64;

/// Splits a stored line into (the line without `hash`, the hash in hex). `None` when the line
/// does not end in a well-formed `"hash"` field.
pub fn split_hash(line: &str) -> Option<(String, &str)> {
    let tail_len = HASH_KEY.len() + HEX_LEN + 2;
    if line.len() < tail_len + 1 || !line.is_char_boundary(line.len() - tail_len) {
        return None;
    }
    let (body, tail) = line.split_at(line.len() - tail_len);
    let hex = tail.strip_prefix(HASH_KEY)?.strip_suffix("\"}")?;
    if hex.len() != HEX_LEN || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut unhashed = String::with_capacity(body.len() + 1);
    unhashed.push_str(body);
    unhashed.push('}');
    Some((unhashed, hex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_hash_and_split_hash_are_inverse() {
        let h = hex::encode(link(&genesis("s"), b"{\"v\":1}"));
        let line = with_hash("{\"v\":1}".to_string(), &h);
        assert_eq!(line, format!("{{\"v\":1,\"hash\":\"{h}\"}}"));
        let (unhashed, got) = split_hash(&line).unwrap();
        assert_eq!(unhashed, "{\"v\":1}");
        assert_eq!(got, h);
    }

    #[test]
    fn split_hash_rejects_malformed_tails() {
        let h = "a".repeat(64);
        for bad in [
            String::new(),
            "{}".to_string(),
            format!("{{\"v\":1,\"hash\":\"{}\"}}", &h[1..]),
            format!("{{\"v\":1,\"hash\":\"{}\"}}", "A".repeat(64)),
            format!("{{\"v\":1,\"hsh\":\"{h}\"}}"),
            format!("{{\"v\":1,\"hash\":\"{h}\"}} "),
        ] {
            assert!(split_hash(&bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn genesis_depends_on_the_session() {
        assert_ne!(genesis("a"), genesis("b"));
        assert_ne!(link(&genesis("a"), b"x"), link(&genesis("b"), b"x"));
    }
}
