//! The strace fuzz target driven from stable Rust: a mutation loop over the real strace
//! fixtures (byte flips, inserted strace tokens, spliced and cut lines). cargo-fuzz (nightly)
//! runs the same function from `fuzz/fuzz_targets/strace_import.rs`.
//!
//! A short run is part of the ordinary tests; the long run is ignored by default:
//! `WARD_FUZZ_SECS=300 cargo test -p ward-report --release --test fuzz_loop -- --ignored`.

use std::time::{Duration, Instant};

const SEEDS: &[&[u8]] = &[
    include_bytes!("fixtures/basic.log"),
    include_bytes!("fixtures/basic-stderr.log"),
    include_bytes!("fixtures/concurrent.log"),
];

const TOKENS: &[&[u8]] = &[
    b"\"", b"\\", b"\\x", b"\\377", b"(", b")", b"{", b"}", b"[", b"]", b", ", b" = ", b"= -1 ENOENT (x)",
    b"<unfinished ...>", b"<... openat resumed>", b"<... getdents64 resumed>", b"+++ exited with 0 +++",
    b"--- SIGCHLD {si_signo=SIGCHLD} ---", b"[pid 7] ", b"\n", b"\0", b"...", b"/* x */", b"/*",
    b"openat(AT_FDCWD, \"", b"getdents64(3, ", b"connect(3, {sa_family=AF_INET6, ", b"execve(\"",
    b"htons(65535)", b"inet_addr(\"1.2.3.4\")", b"@\"", b"1795966734.866976 ", b"99999999999 ",
    b"/proc/1/environ", b"~[", b"12:00:00.5 ",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                data.splice(at..at, t.iter().copied());
            }
            2 if !data.is_empty() => {
                let len = rng.below(64).min(data.len() - at.min(data.len()));
                let at = at.min(data.len());
                data.drain(at..at + len);
            }
            3 => data.truncate(at),
            4 if !data.is_empty() => {
                // Duplicate a slice elsewhere (splices lines into each other).
                let a = rng.below(data.len());
                let len = rng.below(200).min(data.len() - a);
                let chunk: Vec<u8> = data[a..a + len].to_vec();
                let at = rng.below(data.len() + 1);
                data.splice(at..at, chunk);
            }
            5 => {
                let n = rng.below(2000);
                let b = [b'(', b'[', b'{', b'"'][rng.below(4)];
                data.splice(at..at, std::iter::repeat_n(b, n));
            }
            _ => {
                let b = rng.next() as u8;
                data.insert(at, b);
            }
        }
    }
}

fn run_for(budget: Duration, seed: u64) -> u64 {
    let start = Instant::now();
    let mut rng = Rng(seed | 1);
    let mut runs = 0;
    while start.elapsed() < budget {
        let base = SEEDS[rng.below(SEEDS.len())];
        // Work on a window of the seed so each run is quick.
        let a = rng.below(base.len());
        let len = 1 + rng.below(4000);
        let mut data = base[a..(a + len).min(base.len())].to_vec();
        mutate(&mut rng, &mut data);
        ward_report::strace::fuzz_one(&data);
        runs += 1;
    }
    runs
}

#[test]
fn fuzz_loop_short() {
    let runs = run_for(Duration::from_secs(3), 0x9e37_79b9_7f4a_7c15);
    eprintln!("fuzz loop: {runs} inputs in 3s");
    assert!(runs > 10);
}

#[test]
#[ignore = "long run; set WARD_FUZZ_SECS"]
fn fuzz_loop_long() {
    let secs: u64 = std::env::var("WARD_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let runs = run_for(Duration::from_secs(secs), seed);
    eprintln!("fuzz loop: {runs} inputs in {secs}s, seed {seed:#x}, no panic");
}
