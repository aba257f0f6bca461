use super::*;
use crate::analyze::{analyze, Options, Summary};
use crate::session::Session;

const BASIC: &[u8] = include_bytes!("../../tests/fixtures/basic.log");
const BASIC_STDERR: &[u8] = include_bytes!("../../tests/fixtures/basic-stderr.log");
const CONCURRENT: &[u8] = include_bytes!("../../tests/fixtures/concurrent.log");

fn input<'a>(name: &str, text: &'a [u8]) -> StraceInput<'a> {
    StraceInput {
        name: name.into(),
        pid: pid_from_file_name(name),
        text,
    }
}

fn opts() -> StraceOptions {
    StraceOptions {
        cwd: Some(PathBytes::from("/tmp/wr-fx/proj")),
        ..Default::default()
    }
}

fn summary(inputs: &[StraceInput<'_>]) -> Summary {
    let s = Session::from_strace(
        "t".into(),
        inputs,
        PathBytes::from("/tmp/wr-fx/proj"),
        Some(PathBytes::from("/tmp/wr-fx/home")),
    );
    analyze(&s, &Options::default()).summary
}

/// What `tests/fixtures/gen.sh`'s workload does, counted by hand from `basic.log`.
fn expected(processes: u64) -> Summary {
    Summary {
        // ld.so.cache, libtinfo, libc, work.sh, a.txt, b.txt, .npmrc, libselinux, libpcre2,
        // /proc/filesystems, .git/config, .git/HEAD
        files_read: 12,
        // /dev/null, out.txt
        files_written: 2,
        files_in_project: 3,
        files_outside_project: 11,
        dir_scans: 2,
        // /bin/bash, /usr/bin/cat, /usr/bin/ls
        subprocesses: 3,
        processes,
        connections: 1,
        events: 0,
        failed: 3,
        denied: 0,
        runtime_files: 0,
    }
}

fn without_events(mut s: Summary) -> Summary {
    s.events = 0;
    s
}

#[test]
fn basic_log_counts() {
    let log = import(&[input("basic.log", BASIC)], &opts());
    assert_eq!(log.problem_count, 0, "{:?}", log.problems);
    assert_eq!(log.root_pid, Some(13891));
    assert_eq!(without_events(summary(&[input("basic.log", BASIC)])), expected(8));
}

#[test]
fn stderr_layout_counts_the_same() {
    let log = import(&[input("basic-stderr.log", BASIC_STDERR)], &opts());
    assert_eq!(log.problem_count, 0, "{:?}", log.problems);
    assert_eq!(
        without_events(summary(&[input("basic-stderr.log", BASIC_STDERR)])),
        expected(8)
    );
}

#[test]
fn per_process_files_count_the_same() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ff");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    let inputs: Vec<StraceInput<'_>> = files.iter().map(|(n, t)| input(n, t)).collect();
    assert!(inputs.iter().all(|i| i.pid.is_some()));
    let log = import(&inputs, &opts());
    assert_eq!(log.problem_count, 0, "{:?}", log.problems);
    assert_eq!(without_events(summary(&inputs)), expected(8));
    // The exec'd program is known for each pid's later calls.
    let npmrc = log
        .events
        .iter()
        .find(|e| e.op.path.as_ref().is_some_and(|p| p.as_bytes().ends_with(b".npmrc") && e.op.syscall == "openat"))
        .unwrap();
    assert_eq!(npmrc.actor.exe.as_bytes(), b"/usr/bin/cat");
}

#[test]
fn interleaved_unfinished_calls_are_joined() {
    let log = import(&[input("concurrent.log", CONCURRENT)], &opts());
    assert_eq!(log.problem_count, 0, "{:?}", log.problems);
    assert_eq!(log.unfinished, 0);
    let text = String::from_utf8_lossy(CONCURRENT);
    assert!(text.contains("resumed>"), "fixture lost its resumed lines");
    let s = summary(&[input("concurrent.log", CONCURRENT)]);
    assert_eq!(s.dir_scans, 2);
    assert_eq!(s.subprocesses, 3, "sh, ls, cat");
}

#[test]
fn getdents_counts_once_per_open() {
    let log = br#"10 1.0 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 3
10 1.1 getdents64(3, 0x1 /* 3 entries */, 32768) = 72
10 1.2 getdents64(3, 0x1 /* 0 entries */, 32768) = 0
10 1.3 openat(AT_FDCWD, "/e", O_RDONLY|O_DIRECTORY) = 3
10 1.4 getdents64(3, 0x1 /* 3 entries */, 32768) = 72
10 1.5 getdents64(4, 0x1 /* 3 entries */, 32768) = 72
10 1.6 getdents64(4, 0x1 /* 0 entries */, 32768) = 0
10 1.7 openat(AT_FDCWD, "/f", O_RDONLY) = 5
10 1.8 getdents64(5, 0x1, 32768) = -1 ENOTDIR (Not a directory)
10 1.9 openat(3, "sub", O_RDONLY|O_DIRECTORY) = 6
10 2.0 getdents64(6, 0x1 /* 2 entries */, 32768) = 48
"#;
    let out = import(&[input("x", log)], &opts());
    let lists: Vec<_> = out
        .events
        .iter()
        .filter(|e| e.op.op_kind() == OpKind::DirList)
        .map(|e| (e.op.path.as_ref().map(|p| p.to_string()), e.outcome.is_ok()))
        .collect();
    assert_eq!(
        lists,
        vec![
            (Some("/d".into()), true),
            (Some("/e".into()), true),
            (None, true),
            (Some("/f".into()), false),
            (Some("/e/sub".into()), true),
        ]
    );
}

#[test]
fn paths_resolve_against_cwd_and_dirfds() {
    let log = br#"7 1.0 openat(AT_FDCWD, "src/../lib.rs", O_RDONLY) = 3
7 1.1 openat(9, "x", O_RDONLY) = 4
7 1.2 open("./y", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 5
7 1.3 openat(AT_FDCWD, "/a//b/./c", O_RDONLY|O_CREAT|O_EXCL, 0600) = 6
"#;
    let out = import(&[input("x", log)], &opts());
    let got: Vec<(String, OpKind)> = out
        .events
        .iter()
        .map(|e| (e.op.path.as_ref().unwrap().to_string(), e.op.op_kind()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("/tmp/wr-fx/proj/lib.rs".into(), OpKind::FileRead),
            ("<fd 9>/x".into(), OpKind::FileRead),
            ("/tmp/wr-fx/proj/y".into(), OpKind::FileWrite),
            ("/a/b/c".into(), OpKind::FileCreate),
        ]
    );
}

#[test]
fn connect_addresses() {
    let log = br#"5 1.0 connect(3, {sa_family=AF_INET, sin_port=htons(65535), sin_addr=inet_addr("104.18.32.47")}, 16) = -1 EINPROGRESS (Operation now in progress)
5 1.1 connect(4, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0
5 1.2 connect(5, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
5 1.3 connect(6, {sa_family=AF_UNIX, sun_path=@"abstract"}, 11) = 0
5 1.4 connect(7, {sa_family=AF_UNSPEC, sa_data="\0\0\0\0\0\0\0\0\0\0\0\0\0\0"}, 16) = 0
"#;
    let out = import(&[input("x", log)], &opts());
    let addrs: Vec<String> = out.events.iter().map(|e| e.op.addr.as_ref().unwrap().to_string()).collect();
    assert_eq!(
        addrs,
        vec![
            "104.18.32.47:65535",
            "[::1]:443",
            "unix:/var/run/nscd/socket",
            "unix:@abstract",
            "af0"
        ]
    );
    assert_eq!(out.events[2].op.op_kind(), OpKind::IpcConnect);
    let s = Session::from_events(None, "x".into(), "/p".into(), None, out.events);
    let r = analyze(&s, &Options::default());
    // EINPROGRESS counts; ENOENT and AF_UNSPEC do not.
    assert_eq!(r.summary.connections, 3);
    assert!(r.findings.iter().any(|f| f.kind == "nonstandard-port" && f.text.contains("65535")), "{:#?}", r.findings);
}

#[test]
fn threads_and_children_inherit_a_guessed_executable() {
    let log = br#"100 1.0 execve("/usr/bin/node", ["node"], 0x1 /* 1 var */) = 0
101 1.1 openat(AT_FDCWD, "/etc/hosts", O_RDONLY) = 3
250 1.2 openat(AT_FDCWD, "/etc/hosts", O_RDONLY) = 3
250 1.3 execve("/usr/bin/git", ["git"], 0x1 /* 1 var */) = 0
250 1.4 openat(AT_FDCWD, "/etc/hosts", O_RDONLY) = 3
"#;
    let out = import(&[input("x", log)], &opts());
    let exes: Vec<String> = out.events.iter().map(|e| e.actor.exe.to_string()).collect();
    assert_eq!(
        exes,
        vec!["/usr/bin/node", "/usr/bin/node", "/usr/bin/node", "/usr/bin/node", "/usr/bin/git"]
    );
}

#[test]
fn malformed_and_truncated_lines_are_counted_not_fatal() {
    let log = b"1 1.0 openat(AT_FDCWD, \"/a\", O_RDONLY) = 3\n\
this is not strace\n\
1 1.1 openat(AT_FDCWD, \"/b\", O_RDONLY) = 3\n\
1 1.2 <... openat resumed>) = 3\n\
2 1.3 openat(AT_FDCWD, \"/c\", O_RDONLY <unfinished ...>\n\
2 1.4 <... getdents64 resumed>) = 3\n\
\xff\xfe binary \x00 junk\n\
1 1.5 openat(AT_FDCWD, \"/d\", O_RD";
    let out = import(&[input("bad.log", log)], &opts());
    assert_eq!(out.lines, 8);
    assert_eq!(out.problem_count, 5, "{:#?}", out.problems);
    let lines: Vec<usize> = out.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, vec![2, 4, 6, 7, 8]);
    assert_eq!(out.unfinished, 1, "the /c open never finished");
    let paths: Vec<String> = out.events.iter().map(|e| e.op.path.as_ref().unwrap().to_string()).collect();
    assert_eq!(paths, vec!["/a", "/b"]);
    assert!(out.problems[0].reason.contains("system call"), "{:?}", out.problems[0]);
}

#[test]
fn problems_kept_are_capped_but_all_counted() {
    let log = "garbage\n".repeat(1000);
    let out = import(&[input("g", log.as_bytes())], &opts());
    assert_eq!(out.problem_count, 1000);
    assert_eq!(out.problems.len(), MAX_PROBLEMS);
}

#[test]
fn file_names_carry_pids() {
    assert_eq!(pid_from_file_name("/tmp/out.1234"), Some(1234));
    assert_eq!(pid_from_file_name("raw.log"), None);
    assert_eq!(pid_from_file_name("out."), None);
    assert_eq!(pid_from_file_name("out.99999999999"), None);
}

#[test]
fn import_is_total_on_random_bytes() {
    // A cheap, always-on slice of the fuzz target (see fuzz/ and the ignored long run).
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        let mut buf = Vec::new();
        let n = (next(&mut seed) % 200) as usize;
        for _ in 0..n {
            let r = next(&mut seed);
            buf.push(if r % 3 == 0 { b"\"(){}[], =\\-<>.\n0123"[(r >> 8) as usize % 20] } else { (r >> 16) as u8 });
        }
        let _ = import(&[input("r", &buf)], &opts());
    }
}

fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn proc_self_names_the_caller_and_a_resolver_follows_symlinks() {
    let log = br#"42 1.0 openat(AT_FDCWD, "/proc/self/environ", O_RDONLY) = 3
42 1.1 openat(AT_FDCWD, "/proc/thread-self/stat", O_RDONLY) = 3
42 1.2 openat(AT_FDCWD, "/etc/ssl/certs/1e09d511.0", O_RDONLY) = 3
42 1.3 openat(AT_FDCWD, "/dev/stdin", O_RDONLY) = 3
"#;
    let mut o = opts();
    o.resolve = Some(std::sync::Arc::new(|p: &[u8]| {
        (p == b"/etc/ssl/certs/1e09d511.0" || p == b"/dev/stdin").then(|| b"/usr/share/ca.crt".to_vec())
    }));
    let out = import(&[input("x", log)], &o);
    let paths: Vec<String> = out.events.iter().map(|e| e.op.path.as_ref().unwrap().to_string()).collect();
    assert_eq!(
        paths,
        vec!["/proc/42/environ", "/proc/42/task/42/stat", "/usr/share/ca.crt", "/dev/stdin"]
    );
}
