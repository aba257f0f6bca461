//! `ward exec` end to end: real processes under the real supervisor, events read back from
//! `--events`. Each test has its own state directory.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use ward_event::{Event, OpKind};

fn ward() -> &'static str {
    env!("CARGO_BIN_EXE_ward")
}

struct Run {
    code: i32,
    stdout: String,
    events: Vec<Event>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `python3`, natively or under `ward exec --mode audit --sandbox off` (state in `state`), for
/// tests that compare the two.
fn python(under_ward: bool, state: &Path) -> Command {
    if under_ward {
        let mut c = Command::new(ward());
        c.env("XDG_STATE_HOME", state).args(["exec", "-q", "--mode", "audit", "--sandbox", "off", "--", "python3"]);
        c
    } else {
        Command::new("python3")
    }
}

fn exec(state: &Path, cwd: &Path, cmd: &[&str]) -> Run {
    let events_path = state.join("events.jsonl");
    let out = Command::new(ward())
        .env("XDG_STATE_HOME", state)
        .current_dir(cwd)
        .args(["exec", "-q", "--mode", "audit", "--sandbox", "off", "--events"])
        .arg(&events_path)
        .arg("--")
        .args(cmd)
        .stdin(Stdio::null())
        .output()
        .expect("run ward");
    let text = std::fs::read_to_string(&events_path).unwrap_or_default();
    let events = text
        .lines()
        .map(|l| Event::from_json(l).unwrap_or_else(|e| panic!("bad event line {l}: {e}")))
        .collect();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        events,
    }
}

fn path_of(e: &Event) -> String {
    e.op.path.as_ref().map(|p| p.to_string_lossy()).unwrap_or_default()
}

fn find<'a>(events: &'a [Event], kind: OpKind, path: &str) -> Vec<&'a Event> {
    events
        .iter()
        .filter(|e| e.op.op_kind() == kind && path_of(e) == path)
        .collect()
}

#[test]
fn exit_code_passes_through_and_reads_and_execs_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let r = exec(dir.path(), dir.path(), &["sh", "-c", "cat /etc/hostname; exit 3"]);
    assert_eq!(r.code, 3);
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    assert!(r.stdout.contains(hostname.trim()));
    let reads = find(&r.events, OpKind::FileRead, "/etc/hostname");
    assert_eq!(reads.len(), 1, "{:#?}", r.events);
    assert!(reads[0].outcome.is_ok());
    assert!(reads[0].actor.exe.to_string_lossy().ends_with("/cat"));
    let execs: Vec<_> = r
        .events
        .iter()
        .filter(|e| e.op.op_kind() == OpKind::ProcExec && e.outcome.is_ok())
        .filter(|e| path_of(e).ends_with("/cat"))
        .collect();
    assert_eq!(execs.len(), 1);
    assert_eq!(execs[0].actor.pid, reads[0].actor.pid, "cat's exec and read are one process");
    // The chain is complete and ordered.
    for (i, e) in r.events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1);
        assert!(e.hash.is_some());
    }
}

#[test]
fn death_by_signal_is_128_plus_n() {
    let dir = tempfile::tempdir().unwrap();
    let r = exec(dir.path(), dir.path(), &["sh", "-c", "kill -TERM $$"]);
    assert_eq!(r.code, 128 + 15);
}

#[test]
fn every_kind_of_process_and_thread_is_covered() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("tree");
    let st = Command::new("gcc")
        .args(["-O1", "-pthread", "-o"])
        .arg(&bin)
        .arg(fixtures().join("tree.c"))
        .status()
        .expect("gcc");
    assert!(st.success());
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    for k in ["vfork", "untraced", "thread", "daemon"] {
        std::fs::write(data.join(k), k).unwrap();
    }
    let r = exec(dir.path(), dir.path(), &[bin.to_str().unwrap(), data.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let bin_real = std::fs::canonicalize(&bin).unwrap();
    for line in r.stdout.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (kind, pid, ppid, tid): (&str, i32, i32, i32) =
            (f[0], f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap());
        let target = std::fs::canonicalize(data.join(kind)).unwrap();
        let hits = find(&r.events, OpKind::FileRead, target.to_str().unwrap());
        assert_eq!(hits.len(), 1, "{kind}: {hits:#?}");
        let a = &hits[0].actor;
        assert_eq!((a.pid, a.tid), (pid, tid), "{kind}");
        assert_eq!(a.ppid, ppid, "{kind}");
        assert_eq!(a.exe.as_path(), bin_real.as_path(), "{kind}");
    }
    assert_eq!(r.stdout.lines().count(), 4, "{}", r.stdout);
}

#[test]
fn failed_opens_symlinks_and_dirfds_are_recorded_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let work = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(work.join("sub")).unwrap();
    std::fs::write(work.join("sub/target.txt"), "x").unwrap();
    std::os::unix::fs::symlink(work.join("sub/target.txt"), work.join("link")).unwrap();
    let script = "import os\n\
        try:\n    open('missing.txt')\nexcept FileNotFoundError:\n    pass\n\
        open('link').read()\n\
        d = os.open('sub', os.O_RDONLY | os.O_DIRECTORY)\n\
        os.close(os.open('../sub/./target.txt', os.O_RDONLY, dir_fd=d))\n\
        os.listdir('sub')\n";
    let r = exec(dir.path(), &work, &["python3", "-c", script]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let missing = find(&r.events, OpKind::FileRead, work.join("missing.txt").to_str().unwrap());
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].outcome, ward_event::Outcome::Err(libc::ENOENT));
    let target = work.join("sub/target.txt");
    let reads = find(&r.events, OpKind::FileRead, target.to_str().unwrap());
    assert_eq!(reads.len(), 2, "via the symlink and via the dirfd: {:#?}", r.events.iter().map(path_of).collect::<Vec<_>>());
    assert!(reads.iter().all(|e| e.outcome.is_ok()));
    let lists = find(&r.events, OpKind::DirList, work.join("sub").to_str().unwrap());
    assert_eq!(lists.len(), 1, "one scan of sub");
}

#[test]
fn non_utf8_names_are_kept_as_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let work = std::fs::canonicalize(dir.path()).unwrap();
    let r = exec(dir.path(), &work, &["python3", "-c", "open(b'caf\\xe9.txt', 'w').write('x')"]);
    assert_eq!(r.code, 0);
    let mut want = work.as_os_str().as_encoded_bytes().to_vec();
    want.extend_from_slice(b"/caf\xe9.txt");
    let hit = r
        .events
        .iter()
        .find(|e| e.op.path.as_ref().map(|p| p.as_bytes()) == Some(want.as_slice()))
        .expect("event with the raw name");
    assert_eq!(hit.op.op_kind(), OpKind::FileCreate);
    assert!(std::fs::read_dir(&work).unwrap().any(|e| e.unwrap().file_name().as_encoded_bytes().ends_with(b"\xe9.txt")));
}

#[test]
fn sockets_are_decoded_and_connected_by_ward() {
    let dir = tempfile::tempdir().unwrap();
    let script = "import socket\n\
        srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)\n\
        port = srv.getsockname()[1]\n\
        c = socket.create_connection(('127.0.0.1', port)); s, _ = srv.accept()\n\
        c.sendall(b'hi'); assert s.recv(2) == b'hi'\n\
        u = socket.socket(socket.AF_UNIX); u.bind('\\0ward-test-abstract')\n\
        try:\n    socket.socket(socket.AF_UNIX).connect('/nonexistent/sock')\nexcept OSError:\n    pass\n\
        print(port)\n";
    let r = exec(dir.path(), dir.path(), &["python3", "-c", script]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let port: u16 = r.stdout.trim().parse().unwrap();
    let connect = r
        .events
        .iter()
        .find(|e| e.op.op_kind() == OpKind::NetConnect)
        .expect("connect event");
    assert_eq!(connect.op.addr.as_ref().unwrap().to_string(), format!("127.0.0.1:{port}"));
    assert!(connect.outcome.is_ok());
    let abs = r.events.iter().find(|e| e.op.op_kind() == OpKind::NetBind && e.op.addr.as_ref().is_some_and(|a| a.is_unix()));
    assert_eq!(abs.unwrap().op.addr.as_ref().unwrap().to_string(), "unix:@ward-test-abstract");
    // glibc may also try nscd's socket during the name lookup; pick the script's own connect.
    let ipc = r
        .events
        .iter()
        .find(|e| e.op.op_kind() == OpKind::IpcConnect && path_of(e) == "/nonexistent/sock")
        .expect("ipc.connect to /nonexistent/sock");
    assert_eq!(ipc.outcome, ward_event::Outcome::Err(libc::ENOENT));
}

#[test]
fn killing_ward_leaves_no_process_reading_files_unobserved() {
    let dir = tempfile::tempdir().unwrap();
    // A double-forked daemon that keeps opening a file and reports the first failure.
    let script = r#"
import os, sys
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        opened = 0
        while True:
            try:
                os.close(os.open('/etc/hostname', os.O_RDONLY))
                opened += 1
                if opened == 50:
                    os.write(1, b'ready\n')
            except OSError as e:
                os.write(1, f'errno {e.errno}\n'.encode())
                os._exit(0)
    os._exit(0)
os.wait()
while True:
    os.read(r, 1)
"#;
    let mut child = Command::new(ward())
        .env("XDG_STATE_HOME", dir.path())
        .args(["exec", "-q", "--sandbox", "off", "--", "python3", "-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    // SIGKILL: ward gets no chance to clean up.
    unsafe_free_kill(child.id() as i32);
    let _ = child.wait();
    // Bounded wait for the daemon's verdict: if it could go on opening files unchecked it would
    // never print, and the watchdog fails the test.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = out.read_to_string(&mut rest);
        let _ = tx.send(rest);
    });
    let rest = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the daemon kept opening files after ward died");
    assert_eq!(rest.trim(), format!("errno {}", libc::ENOSYS));
}

fn unsafe_free_kill(pid: i32) {
    let st = Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
    assert!(st.success());
}

fn pty_drive(state: &Path, marker: &str, keys: &str, cmd: &[&str]) -> (i32, String) {
    let out = Command::new("python3")
        .arg(fixtures().join("pty_drive.py"))
        .args([marker, keys, "--", ward(), "exec", "-q", "--"])
        .args(cmd)
        .env("XDG_STATE_HOME", state)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let status = text
        .rsplit_once("STATUS ")
        .and_then(|(_, s)| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(-1);
    (status, text)
}

#[test]
fn a_full_screen_program_works_in_a_real_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let app = fixtures().join("curses_app.py");
    let (status, screen) = pty_drive(dir.path(), "READY", "q", &["python3", app.to_str().unwrap()]);
    assert_eq!(status, 0, "{screen}");
    assert!(screen.contains("READY"), "{screen}");
    assert!(screen.contains("pressed q"), "{screen}");
}

#[test]
fn ctrl_c_reaches_the_program_and_ward_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let (status, screen) = pty_drive(
        dir.path(),
        "WAITING",
        "\\x03",
        &["python3", "-c", "import time\nprint('WAITING', flush=True)\nwhile True: time.sleep(1)"],
    );
    assert_eq!(status, 130, "{screen}");
}

#[test]
fn emulated_calls_behave_exactly_as_the_kernel_does() {
    let script = fixtures().join("semantics.py");
    let run = |under_ward: bool| -> String {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("w");
        std::fs::create_dir(&work).unwrap();
        let mut cmd = python(under_ward, dir.path());
        let out = cmd
            .arg(&script)
            .env("SEMANTICS_MARK", "1")
            .current_dir(&work)
            .stdin(Stdio::piped())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let native = run(false);
    let supervised = run(true);
    assert!(native.lines().count() > 40, "{native}");
    let diff: Vec<String> = native
        .lines()
        .zip(supervised.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("native:   {a}\nunder ward: {b}"))
        .collect();
    assert!(diff.is_empty(), "{}", diff.join("\n"));
    assert_eq!(native.lines().count(), supervised.lines().count());
}

#[test]
fn addresses_are_named_after_the_dns_queries_that_found_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new("python3")
        .arg(fixtures().join("dns_server.py"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut port).unwrap();
    let port: u16 = port.trim().parse().unwrap();
    // The tree asks the server, then connects to the answer (nobody listens: refused is fine).
    let script = format!(
        "import socket, struct\n\
         q = struct.pack('>HHHHHH', 7, 0x0100, 1, 0, 0, 0) + b'\\x07example\\x04test\\x00' + struct.pack('>HH', 1, 1)\n\
         u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)\n\
         u.sendto(q, ('127.0.0.1', {port})); r = u.recv(512)\n\
         ip = '.'.join(str(b) for b in r[-4:])\n\
         try:\n    socket.create_connection((ip, 9), timeout=2)\nexcept OSError:\n    pass\n\
         print(ip)\n"
    );
    let r = exec(dir.path(), dir.path(), &["python3", "-c", &script]);
    let _ = server.kill();
    assert_eq!(r.stdout.trim(), "127.0.0.2", "{}", r.stdout);
    let query = r.events.iter().find(|e| e.op.op_kind() == OpKind::DnsQuery).expect("dns.query event");
    assert_eq!(query.op.domain.as_deref(), Some("example.test"));
    let connect = r
        .events
        .iter()
        .find(|e| e.op.op_kind() == OpKind::NetConnect)
        .expect("net.connect event");
    assert_eq!(connect.op.addr.as_ref().unwrap().to_string(), "127.0.0.2:9");
    assert_eq!(connect.op.domain.as_deref(), Some("example.test"), "ward learnt the name by its own lookup");
}

#[test]
fn paths_resolve_in_the_callers_own_mount_namespace_and_root() {
    // A sandbox inside the tree (bwrap, as Codex probes at startup) makes a mount namespace,
    // mounts a tmpfs and chroots into it. Audit mode lets that through, and every call ward
    // emulates must then resolve where the caller would: in the tmpfs, never on the host.
    let script = fixtures().join("namespaces.py");
    let run = |under_ward: bool| -> (String, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("w");
        std::fs::create_dir(&work).unwrap();
        let mut cmd = python(under_ward, dir.path());
        let out = cmd.arg(&script).arg(&work).stdin(Stdio::null()).output().unwrap();
        assert!(out.status.success(), "under ward: {under_ward}: {}", String::from_utf8_lossy(&out.stderr));
        let host: Vec<String> = std::fs::read_dir(work.join("mnt"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        (String::from_utf8_lossy(&out.stdout).into_owned(), host)
    };
    let (native, native_host) = run(false);
    assert!(native.contains("absolute after chroot: in the tmpfs"), "{native}");
    assert!(native_host.is_empty(), "natively nothing reaches the host directory: {native_host:?}");
    let (supervised, supervised_host) = run(true);
    assert_eq!(supervised, native);
    assert!(supervised_host.is_empty(), "under ward the tmpfs writes reached the host: {supervised_host:?}");
}

#[test]
fn a_bubblewrap_sandbox_inside_the_tree_works_as_without_ward() {
    // bwrap opens /proc, forks into new user, pid, net and mount namespaces, pivots into a tmpfs
    // and reads its mount table through that early /proc descriptor ("self/mountinfo"): every
    // step must resolve as the kernel resolves it for bwrap, not for ward.
    if Command::new("bwrap").arg("--version").output().is_err() {
        eprintln!("SKIPPED: bwrap not installed (scripts/setup-test-deps.sh installs bubblewrap)");
        return;
    }
    let script = "echo in-tmp > /tmp/f; cat /tmp/f; ls /tmp; ls /proc | grep -c '^[0-9]'; \
                  grep -c ' / ' /proc/self/mountinfo; readlink /proc/self; ls /dev/null";
    let argv = [
        "bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--proc",
        "/proc", "--dev", "/dev", "sh", "-c", script,
    ];
    let native = Command::new(argv[0]).args(&argv[1..]).stdin(Stdio::null()).output().unwrap();
    assert!(native.status.success(), "natively: {}", String::from_utf8_lossy(&native.stderr));
    let dir = tempfile::tempdir().unwrap();
    let r = exec(dir.path(), dir.path(), &argv);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, String::from_utf8_lossy(&native.stdout));
    let pivot = r.events.iter().find(|e| e.op.syscall == "pivot_root");
    assert!(pivot.is_some(), "bwrap's pivot_root is recorded");
}

#[test]
fn a_long_argv_is_recorded_whole() {
    // 3000 arguments: the pointer array spans several pages and is read a page at a time.
    let dir = tempfile::tempdir().unwrap();
    let script = "import os; os.execv('/bin/true', ['true'] + ['a%d' % i for i in range(3000)])";
    let r = exec(dir.path(), dir.path(), &["python3", "-c", script]);
    assert_eq!(r.code, 0);
    let e = r
        .events
        .iter()
        .find(|e| e.op.op_kind() == OpKind::ProcExec && path_of(e) == "/usr/bin/true")
        .expect("the exec of true");
    let argv: Vec<String> = e.op.argv.as_ref().unwrap().iter().map(|a| a.to_string_lossy()).collect();
    let want: Vec<String> = std::iter::once("true".to_string()).chain((0..3000).map(|i| format!("a{i}"))).collect();
    assert_eq!(argv, want);
}
