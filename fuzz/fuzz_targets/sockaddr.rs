//! `SockAddr::decode` on the raw `struct sockaddr` bytes a process hands to connect/sendto/bind:
//! total (never panics), and whatever it yields survives display and a JSON round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ward_event::SockAddr;

fuzz_target!(|data: &[u8]| {
    let a = SockAddr::decode(data);
    let _ = a.to_string();
    let _ = a.socket_addr();
    let _ = a.is_loopback();
    let _ = a.is_unix();
    let json = serde_json::to_string(&a).expect("a decoded address serialises");
    let back: SockAddr = serde_json::from_str(&json).expect("a serialised address parses");
    assert_eq!(back, a, "{json}");
});
