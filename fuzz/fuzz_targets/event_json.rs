//! `Event::from_json` (with `PathBytes`, `SockAddr`, `Timestamp` and errno names inside it) on
//! arbitrary text: never panics, and an event it accepts serialises and parses back unchanged.
//! Also `PathBytes` on its own (a string, or `{"bytes": base64}`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ward_event::{Event, PathBytes};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(ev) = Event::from_json(text) {
        let line = ev.to_json();
        let back = Event::from_json(&line).expect("an event ward wrote parses back");
        assert_eq!(back, ev, "{line}");
        let _ = ev.to_json_unhashed();
    }
    if let Ok(p) = serde_json::from_str::<PathBytes>(text) {
        let json = serde_json::to_string(&p).expect("PathBytes serialises");
        let back: PathBytes = serde_json::from_str(&json).expect("PathBytes parses back");
        assert_eq!(back, p);
        let _ = p.to_string();
        let _ = p.starts_with_dir(b"/home/u/project");
    }
});
