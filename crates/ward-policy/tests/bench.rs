//! A micro-benchmark of `decide` (ignored by default; run it in release mode):
//!
//! ```sh
//! cargo test --release -p ward-policy --test bench -- --ignored --nocapture
//! ```
//!
//! `decide` runs for every open of every process, so a routine read must stay around a
//! microsecond.

mod common;

use common::*;
use std::time::Instant;
use ward_event::{Decider, Operation};
use ward_policy::ops::*;

fn per_op(name: &str, e: &ward_policy::Engine, ops: &[Operation], rounds: usize) -> f64 {
    let a = actor(4242, "/usr/bin/find");
    for op in ops {
        std::hint::black_box(e.decide(&a, op));
    }
    let start = Instant::now();
    let cpu0 = thread_cpu_ns();
    for _ in 0..rounds {
        for op in ops {
            std::hint::black_box(e.decide(&a, op));
        }
    }
    let n = (rounds * ops.len()) as f64;
    let wall = start.elapsed().as_nanos() as f64 / n;
    let cpu = thread_cpu_ns().map(|c| (c - cpu0.unwrap_or(0)) as f64 / n);
    let cpu_text = cpu.map(|c| format!("{c:>7.0} ns CPU")).unwrap_or_default();
    println!("{name:<40} {wall:>7.0} ns wall {cpu_text} per decision ({n} decisions)");
    cpu.unwrap_or(wall)
}

/// CPU time of this thread (from /proc/thread-self/schedstat), so a loaded machine does
/// not inflate the number.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

#[test]
#[ignore]
fn decide_cost() {
    let e = engine("claude-code");
    let usr: Vec<Operation> = (0..1000)
        .map(|i| match i % 5 {
            0 => read(&format!("/usr/lib/x86_64-linux-gnu/libfoo{i}.so.6")),
            1 => read(&format!("/usr/share/doc/package-{i}/copyright")),
            2 => read(&format!("/usr/include/linux/header_{i}.h")),
            3 => list(&format!("/usr/lib/python3/dist-packages/mod{i}")),
            _ => read(&format!("/usr/bin/tool{i}")),
        })
        .collect();
    let project: Vec<Operation> = (0..1000)
        .map(|i| if i % 4 == 0 { write(&format!("/work/proj/target/debug/deps/x{i}.o")) } else { read(&format!("/work/proj/src/module{i}/mod.rs")) })
        .collect();
    let home: Vec<Operation> = (0..1000).map(|i| read(&format!("/home/u/.cargo/registry/src/crate-{i}/src/lib.rs"))).collect();
    let sensitive: Vec<Operation> = vec![read("/home/u/.ssh/id_rsa"), read("/home/u/.npmrc"), read("/proc/1/environ")];
    let execs: Vec<Operation> = vec![exec(&["git", "status"]), exec(&["bash", "-lc", "git status && rg -n foo src | head -20"])];
    let r1 = per_op("read under /usr (find over /usr)", &e, &usr, 200);
    per_op("read/write in the project", &e, &project, 200);
    per_op("read under ~/.cargo", &e, &home, 200);
    per_op("sensitive read (denied, reason built)", &e, &sensitive, 20_000);
    per_op("exec (argv + shell string parsed)", &e, &execs, 2_000);
    if !cfg!(debug_assertions) {
        assert!(r1 < 5_000.0, "a routine read costs {r1} ns");
    }
}
