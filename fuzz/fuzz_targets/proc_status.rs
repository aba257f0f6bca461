//! `proctable::parse_status` on arbitrary `/proc/TID/status` text: never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ward_supervise::proctable::parse_status;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(s) = parse_status(&text) {
        assert!(s.ns_tgid != 0 || s.tgid == 0);
    }
});
