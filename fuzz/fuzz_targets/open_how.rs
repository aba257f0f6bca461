//! openat2's `struct open_how` from the caller's memory: `pathutil::parse_open_how` and the
//! flag rendering that goes into events (`flags::open_flags`, `flags::is_write`). Never panic;
//! 24 bytes or more always decode, fewer never do.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ward_supervise::flags::{is_write, open_flags};
use ward_supervise::pathutil::parse_open_how;

fuzz_target!(|data: &[u8]| {
    match parse_open_how(data) {
        Some((flags, mode, resolve)) => {
            assert!(data.len() >= 24);
            assert_eq!(flags.to_ne_bytes(), data[0..8]);
            assert_eq!(resolve.to_ne_bytes(), data[16..24]);
            let s = open_flags(flags);
            assert!(s.starts_with("O_"));
            let _ = is_write(flags);
            let _ = open_flags(mode);
        }
        None => assert!(data.len() < 24),
    }
});
