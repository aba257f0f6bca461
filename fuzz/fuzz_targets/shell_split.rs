//! The shell-string splitter the policy uses on `sh -c` arguments: `shell::shell_script`
//! recognising the argv and `shell::split` parsing the script (brush-parser underneath).
//! Never panics, never overflows the stack.
//!
//! brush-parser can panic (see `shell::tests::parser_panic_is_an_error`) and `split` catches
//! that; libfuzzer-sys's panic hook aborts on every panic before it can be caught, so panics
//! raised inside brush-parser's own source are let through to `split`'s `catch_unwind` and
//! all others still abort.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Once;
use ward_policy::shell;

fn contain_brush_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_some_and(|l| l.file().contains("brush-parser")) {
                return;
            }
            fuzzer_hook(info);
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    contain_brush_panics();
    let Ok(script) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(split) = shell::split(script) {
        for c in &split.commands {
            let _ = (c.display(), c.name());
        }
    }
    // The same text as argv words (split on NUL), as `bash -c …` would arrive.
    let argv: Vec<String> = script.split('\0').map(String::from).collect();
    if let Some(s) = shell::shell_script(&argv) {
        assert!(argv.iter().any(|a| a == s));
    }
});
