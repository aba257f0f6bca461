//! The path arithmetic the emulation does on caller-supplied path bytes: `join`, `normalize`,
//! `split_last`, `rewrite_self`, `magic_path`, `proc_pid`. Never panics, and the structural
//! promises hold (a normalised path is absolute, has no empty, `.` or `..` component and is a
//! fixed point; the last component has no slash; a rewritten self-path is under `/proc/PID`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ward_supervise::pathutil::{join, magic_path, normalize, proc_pid, rewrite_self, split_last};

fuzz_target!(|data: &[u8]| {
    // [pid: 4][tid: 4] then base NUL rel (either may be empty).
    if data.len() < 8 {
        return;
    }
    let pid = i32::from_ne_bytes(data[0..4].try_into().unwrap());
    let tid = i32::from_ne_bytes(data[4..8].try_into().unwrap());
    let rest = &data[8..];
    let (base, rel) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&b"/home/u/project"[..], rest),
    };

    let joined = join(base, rel);
    if rel.starts_with(b"/") {
        assert_eq!(joined, rel);
    }
    for p in [rel, &joined[..]] {
        let n = normalize(p);
        assert!(n.starts_with(b"/"));
        assert!(n == b"/" || !n.ends_with(b"/"));
        assert!(n == b"/" || n[1..].split(|&b| b == b'/').all(|c| !c.is_empty() && c != b"." && c != b".."));
        assert_eq!(normalize(&n), n);

        if let Some((dir, last)) = split_last(p) {
            assert!(!last.is_empty() && !last.contains(&b'/'));
            assert!(!dir.is_empty());
        }
        if let Some(r) = rewrite_self(p, pid, tid) {
            assert!(r.starts_with(format!("/proc/{pid}").as_bytes()));
        }
        if let Some(m) = magic_path(p) {
            assert!(m.prefix.starts_with(b"/proc/"));
            assert!(!m.rest.starts_with(b"/"));
        }
        let _ = proc_pid(p);
        let _ = magic_path(&n);
        let _ = proc_pid(&n);
    }
});
