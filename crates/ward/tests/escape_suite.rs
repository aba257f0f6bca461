//! The escape suite (issue 5): hostile programs that know how ward works try to get around it.
//!
//! Every case in `tests/escape/cases/NAME.c` is one attack, compiled here with `gcc`. It exits 0
//! when the attack SUCCEEDED, 1 when it failed, 77 when the kernel refuses it natively. Each
//! case runs three times:
//!
//! 1. **natively** (under a stand-in parent, `tests/escape/support/standin.c`, so attacks on
//!    "the supervisor" have a target): it must succeed, or be reported not applicable (77)
//!    with the reason — so no case is vacuous;
//! 2. under **`ward exec --mode enforce --sandbox off`**: it must fail, and the events must hold
//!    an event with `action: deny` that names what was stopped (filter and reason);
//! 3. under **`ward exec --mode audit --sandbox off`**: the attempt must be recorded.
//!
//! Both ward runs use `--sandbox off` (when `ward exec` has the flag): the suite tests the
//! supervisor itself; the sandbox is the second wall, tested by `ward-sandbox`.
//!
//! Some cases are not decided by an event: a call the BPF program kills (`int 0x80`, x32), a
//! daemon that must be ended with the session (`proc.reap`), fail-closed after ward is killed.
//! Their expectation says so. A case that shows a real hole stays in the suite, marked in
//! [`CASES`] as a known hole with the reason; the suite still fails if anything else misbehaves.
//!
//! The secret is `$HOME/.ssh/id_rsa` of a test home holding a marker string; the policy denies
//! it in enforce mode (cases marked `policy`). The test home and the workspace are siblings on
//! one filesystem (hard links work). A process outside the tree (the "victim", started
//! natively) holds a copy of the secret in memory, an open descriptor of it and the marker in
//! its environment; a unix socket that looks like an ssh-agent (`/tmp/ssh-*/agent.*`) answers
//! with the marker.
//!
//! The race acceptance test ([`race_acceptance`]) is here too: a thread flipping the path buffer
//! between a workspace file and the key wins within 20 tries natively and never in 20,000
//! tries under `ward exec --mode enforce`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use ward_event::{Action, Event, OpKind};

fn ward() -> &'static str {
    env!("CARGO_BIN_EXE_ward")
}

fn escape_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/escape")
}

// ---------------------------------------------------------------------------------------------
// the expected-results table

/// How a case shows that ward stopped it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Enforce: the attack fails and an event matching the evidence has `action: deny`.
    /// Audit: an event matching the evidence is recorded.
    Deny,
    /// The BPF program kills the process (SIGSYS) before ward sees the call: no event is
    /// possible. Both modes: the process dies of SIGSYS and the attack fails.
    KilledByFilter,
    /// A process that tries to outlive the session: gone after ward exits, and a `proc.reap`
    /// event names it (both modes).
    Reaped,
    /// ward is killed from outside mid-session: nothing in the tree may go on unchecked (the
    /// attack fails in both modes; ward is dead, so no event is expected).
    FailClosed,
    /// `memfd` + `execveat`: must be seen as a `proc.exec` and judged. Enforce: either denied
    /// (deny event), or allowed by the policy and recorded as an exec of `/memfd:…`.
    SeenAsExec,
}

/// What the evidence event is about.
#[derive(Clone, Copy, Debug)]
enum Evidence {
    /// A file operation whose resolved path is the key.
    SecretPath,
    /// A file operation whose resolved path is the victim's `/proc/<pid>/environ`.
    VictimEnviron,
    /// A file operation on `/proc/<victim>/…` (its magic links).
    VictimProc,
    /// A file operation on `/proc/<ward>/…`.
    WardProc,
    /// An event for this syscall (any kind).
    Syscall(&'static str),
    /// A `proc.signal` or `proc.trace` aimed at the victim (this syscall).
    AtVictim(&'static str),
    /// A `proc.signal` or `proc.trace` aimed at ward (this syscall).
    AtWard(&'static str),
    /// A file operation on the key, or on any path refused by the `sensitive-inode` filter
    /// (the key under another name).
    SecretInode,
    /// A file operation on the key, or an event for this syscall (where the fix may stop the
    /// attack earlier).
    SecretOr(&'static str),
    /// An `ipc.connect` to the agent socket.
    AgentSocket,
    /// An `ipc.connect` to the abstract D-Bus-like socket.
    DbusSocket,
    /// A `net.socket` event with this family in its detail.
    Socket(&'static str),
    /// None expected (see [`Expect`]).
    Nothing,
}

#[derive(Clone, Copy, Debug, Default)]
struct Needs {
    /// Writes its code to `$ESCAPE_RESULT` (its parent may not survive).
    result_file: bool,
    /// The runner SIGKILLs the parent (ward or the stand-in) this long after the start.
    kill_parent_after_ms: Option<u64>,
}

struct Case {
    name: &'static str,
    category: &'static str,
    expect: Expect,
    evidence: Evidence,
    /// The enforce-mode denial comes from the policy (sensitive paths, sockets), not from
    /// ward's built-in protections.
    policy: bool,
    needs: Needs,
    /// A hole (or deviation) ward has today in these modes: the case is kept, the deviation
    /// reported, the suite not failed for it. The text says what happens and what would fix it.
    known_hole: Option<(&'static [Mode], &'static str)>,
}

const PATHS: &str = "paths that lie";
const SYSCALLS: &str = "syscalls that skip the filter";
const OUTSIDE: &str = "reaching other processes";
const SOCKETS: &str = "sockets";
const WARD: &str = "getting rid of ward";

const fn case(name: &'static str, category: &'static str, evidence: Evidence) -> Case {
    Case {
        name,
        category,
        expect: Expect::Deny,
        evidence,
        policy: false,
        needs: Needs {
            result_file: false,
            kill_parent_after_ms: None,
        },
        known_hole: None,
    }
}

const fn secret(name: &'static str) -> Case {
    let mut c = case(name, PATHS, Evidence::SecretPath);
    c.policy = true;
    c
}

const fn builtin(name: &'static str, category: &'static str, syscall: &'static str) -> Case {
    case(name, category, Evidence::Syscall(syscall))
}

const fn parent_attack(mut c: Case) -> Case {
    c.needs.result_file = true;
    c
}

const BOTH: &[Mode] = &[Mode::Enforce, Mode::Audit];
#[allow(dead_code)] // for marking holes that show in one mode only
const ENFORCE: &[Mode] = &[Mode::Enforce];
#[allow(dead_code)]
const AUDIT: &[Mode] = &[Mode::Audit];

const fn hole(mut c: Case, modes: &'static [Mode], why: &'static str) -> Case {
    c.known_hole = Some((modes, why));
    c
}

const fn expect(mut c: Case, e: Expect) -> Case {
    c.expect = e;
    c
}

/// Every case, with what ward must do about it.
const CASES: &[Case] = &[
    // Paths that lie: the key reached under another name. ward resolves what the kernel would
    // and the policy sees the real path.
    secret("symlink_planted"),
    secret("symlink_dir_planted"),
    secret("symlink_made_relative"),
    secret("hardlink_made"),
    secret("hardlink_linkat_fd"),
    {
        // The key under another name: the event names the workspace path and the
        // `sensitive-inode` filter (ward compares inodes of multiply-linked files).
        let mut c = case("hardlink_planted", PATHS, Evidence::SecretInode);
        c.policy = true;
        c
    },
    secret("proc_self_root"),
    secret("proc_self_fd_dirfd"),
    secret("proc_thread_self_fd"),
    secret("dev_fd_dirfd"),
    secret("proc_self_cwd"),
    secret("cwd_relative"),
    secret("fchdir_relative"),
    secret("dotdot_chain"),
    secret("dotdot_dirfd_mix"),
    secret("openat_home_dirfd"),
    secret("openat2_beneath"),
    secret("openat2_in_root"),
    secret("opath_reopen"),
    secret("proc_child_cwd"),
    secret("rename_secret_in"),
    case("proc_outside_cwd", PATHS, Evidence::VictimProc),
    case("proc_outside_fd", PATHS, Evidence::VictimProc),
    {
        let mut c = case("proc_environ_other", PATHS, Evidence::VictimEnviron);
        c.policy = true;
        c
    },
    {
        let mut c = case("symlink_environ_other", PATHS, Evidence::VictimEnviron);
        c.policy = true;
        c
    },
    builtin("handle_at", PATHS, "name_to_handle_at"),
    builtin("userns_bind_mount", PATHS, "unshare"),
    builtin("clone_ns_bind_mount", PATHS, "clone"),
    builtin("clone3_ns_bind_mount", PATHS, "clone3"),
    builtin("open_tree_detached", PATHS, "open_tree"),
    builtin("chroot_home", PATHS, "chroot"),
    // Syscalls that skip the filter.
    expect(case("int80_open", SYSCALLS, Evidence::Nothing), Expect::KilledByFilter),
    expect(case("x32_open", SYSCALLS, Evidence::Nothing), Expect::KilledByFilter),
    builtin("io_uring_openat", SYSCALLS, "io_uring_setup"),
    builtin("seccomp_listener", SYSCALLS, "seccomp"),
    {
        // Without the policy the trigger open of the key is allowed, and the case wins anyway.
        let mut c = case("fanotify_fd", SYSCALLS, Evidence::SecretOr("fanotify_init"));
        c.policy = true;
        c
    },
    expect(case("memfd_exec", SYSCALLS, Evidence::Syscall("execveat")), Expect::SeenAsExec),
    // Reaching processes outside the tree.
    case("ptrace_outside", OUTSIDE, Evidence::AtVictim("ptrace")),
    case("process_vm_readv_outside", OUTSIDE, Evidence::AtVictim("process_vm_readv")),
    case("process_vm_writev_outside", OUTSIDE, Evidence::AtVictim("process_vm_writev")),
    builtin("pidfd_getfd_outside", OUTSIDE, "pidfd_getfd"),
    case("kill_outside", OUTSIDE, Evidence::AtVictim("kill")),
    case("tgkill_outside", OUTSIDE, Evidence::AtVictim("tgkill")),
    case("pidfd_signal_outside", OUTSIDE, Evidence::AtVictim("pidfd_send_signal")),
    case("sigqueue_outside", OUTSIDE, Evidence::AtVictim("rt_sigqueueinfo")),
    case("sigio_outside", OUTSIDE, Evidence::Syscall("fcntl")),
    case("sigio_ioctl_outside", OUTSIDE, Evidence::Syscall("ioctl")),
    // Sockets.
    {
        let mut c = case("unix_connect_agent", SOCKETS, Evidence::AgentSocket);
        c.policy = true;
        c
    },
    {
        let mut c = case("dbus_abstract_connect", SOCKETS, Evidence::DbusSocket);
        c.policy = true;
        c
    },
    case("packet_socket", SOCKETS, Evidence::Socket("AF_PACKET")),
    case("raw_socket", SOCKETS, Evidence::Socket("SOCK_RAW")),
    // Getting rid of ward.
    parent_attack(case("kill_ward", WARD, Evidence::AtWard("kill"))),
    parent_attack(case("kill_ward_pgrp", WARD, Evidence::AtWard("kill"))),
    parent_attack(case("kill_zero", WARD, Evidence::AtWard("kill"))),
    hole(
        parent_attack(case("kill_zero_sigalrm", WARD, Evidence::AtWard("kill"))),
        BOTH,
        "not a denial by design: kill(0, SIGALRM) reaches the tree's own processes, which is \
         legitimate, and ward itself blocks SIGALRM (every blockable signal), so it survives; the \
         call is recorded as an allowed proc.signal, with no deny event to point at",
    ),
    parent_attack(case("sigio_kill_ward", WARD, Evidence::Syscall("fcntl"))),
    parent_attack(case("prlimit_ward", WARD, Evidence::Syscall("prlimit64"))),
    parent_attack(case("pidfd_kill_ward", WARD, Evidence::AtWard("pidfd_send_signal"))),
    case("ptrace_ward", WARD, Evidence::AtWard("ptrace")),
    case("proc_ward_mem", WARD, Evidence::WardProc),
    case("proc_ward_environ", WARD, Evidence::WardProc),
    case("process_vm_readv_ward", WARD, Evidence::AtWard("process_vm_readv")),
    expect(case("daemon_outlive", WARD, Evidence::Nothing), Expect::Reaped),
    {
        let mut c = expect(case("ward_killed_outside", WARD, Evidence::Nothing), Expect::FailClosed);
        c.needs.result_file = true;
        c.needs.kill_parent_after_ms = Some(600);
        c
    },
];

// ---------------------------------------------------------------------------------------------
// the world the cases run in

/// The test home, the workspace, the compiled programs and the processes outside the tree.
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    work: PathBuf,
    bin: PathBuf,
    out: PathBuf,
    marker: String,
    secret: PathBuf,
    victim: Victim,
    agent: Agent,
    sandbox_flag: bool,
}

struct Victim {
    child: Child,
    pid: i32,
    addr: String,
    fd: i32,
    flag: PathBuf,
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A unix socket outside the workspace that looks like an ssh-agent's and answers with the
/// marker (a thread of this test: outside the tree).
struct Agent {
    dir: PathBuf,
    path: PathBuf,
    /// The abstract name (without the leading NUL) of a D-Bus-like socket.
    dbus: String,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn gcc(src: &Path, out: &Path) -> Result<(), String> {
    let o = Command::new("gcc")
        .args(["-O1", "-pthread", "-Wall", "-Wno-unused-function", "-o"])
        .arg(out)
        .arg(src)
        .output()
        .map_err(|e| format!("gcc: {e} (scripts/setup-test-deps.sh installs it)"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "gcc {}: {}",
            src.display(),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// The compiled programs, shared by the tests of this file (compiled once).
fn compiled() -> &'static Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        // In the target directory (statics are never dropped: a temp dir would be left behind).
        let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join("escape-bin");
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        let p = std::fs::canonicalize(&p).unwrap();
        compile_all(&p);
        p
    })
}

/// Compiles every `*.c` under `tests/escape/{cases,support}` into `bin`, three at a time.
fn compile_all(bin: &Path) {
    let mut sources: Vec<PathBuf> = Vec::new();
    for sub in ["cases", "support"] {
        for e in std::fs::read_dir(escape_dir().join(sub)).expect("tests/escape") {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "c") {
                sources.push(p);
            }
        }
    }
    let chunks: Vec<Vec<PathBuf>> = (0..3)
        .map(|i| sources.iter().skip(i).step_by(3).cloned().collect())
        .collect();
    let errors: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|src| gcc(src, &bin.join(src.file_stem().unwrap())).err())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(
        errors.is_empty(),
        "compiling the escape cases:\n{}",
        errors.join("\n")
    );
}

/// Whether this `ward exec` knows `--sandbox` (then the suite asks for `--sandbox off`: it
/// tests the supervisor, not the second wall). The policy pipeline was wired into `ward exec`
/// together with the sandbox: without the flag, `--mode enforce` enforces only ward's built-in
/// protections (see [`World::policy_wired`]).
fn ward_has_sandbox_flag() -> bool {
    let o = Command::new(ward())
        .args(["exec", "--help"])
        .output()
        .expect("ward exec --help");
    String::from_utf8_lossy(&o.stdout).contains("--sandbox")
}

impl World {
    fn new() -> World {
        let mut tmp = tempfile::Builder::new()
            .prefix("ward-escape-")
            .tempdir_in("/tmp")
            .unwrap();
        // ESCAPE_KEEP=1 keeps the directory (events, logs) for a look after the run.
        tmp.disable_cleanup(std::env::var_os("ESCAPE_KEEP").is_some());
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let (home, work, out) = (root.join("home"), root.join("work"), root.join("out"));
        for d in [
            &home,
            &work,
            &out,
            &root.join("state"),
            &root.join("config"),
            &root.join("flags"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let bin = compiled().to_path_buf();
        let marker = format!(
            "WARD-ESCAPE-SECRET-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        );
        let secret = home.join(".ssh/id_rsa");
        let flag = root.join("flags/victim");
        let mut w = World {
            victim: Victim {
                child: Command::new("true").spawn().unwrap(),
                pid: 0,
                addr: String::new(),
                fd: -1,
                flag,
            },
            agent: Agent {
                dir: PathBuf::new(),
                path: PathBuf::new(),
                dbus: String::new(),
            },
            _tmp: tmp,
            root,
            home,
            work,
            bin,
            out,
            marker,
            secret,
            sandbox_flag: ward_has_sandbox_flag(),
        };
        w.restore();
        w.start_victim();
        w.start_agent();
        w
    }

    /// (Re)plants the key and the workspace's planted links; idempotent, run before every run
    /// (cases move and link the key).
    fn restore(&self) {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let ssh = self.home.join(".ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o700)).unwrap();
        let body = format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
            self.marker
        );
        if std::fs::read_to_string(&self.secret).ok().as_deref() != Some(body.as_str()) {
            let _ = std::fs::remove_file(&self.secret);
            std::fs::write(&self.secret, &body).unwrap();
        }
        std::fs::set_permissions(&self.secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        let planted = self.work.join("planted");
        std::fs::create_dir_all(&planted).unwrap();
        let link = |target: &Path, name: &str| {
            let p = planted.join(name);
            if std::fs::read_link(&p).ok().as_deref() != Some(target) {
                let _ = std::fs::remove_file(&p);
                std::os::unix::fs::symlink(target, &p).unwrap();
            }
        };
        link(&self.secret, "id_rsa.txt");
        link(&ssh, "sshdir");
        let hard = planted.join("hardlink");
        let same = |a: &Path, b: &Path| match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.ino() == y.ino() && x.dev() == y.dev(),
            _ => false,
        };
        if !same(&hard, &self.secret) {
            let _ = std::fs::remove_file(&hard);
            std::fs::hard_link(&self.secret, &hard).unwrap();
        }
        std::fs::write(self.work.join("harmless.txt"), "harmless workspace file\n").unwrap();
        for leftover in [
            "moved",
            "hl",
            "hl2",
            "rel-link",
            "env-link",
            "daemon.pid",
            "daemon.pid.tmp",
        ] {
            let _ = std::fs::remove_file(self.work.join(leftover));
        }
        for e in std::fs::read_dir(self.root.join("flags"))
            .unwrap()
            .flatten()
        {
            let _ = std::fs::remove_file(e.path());
        }
    }

    fn start_victim(&mut self) {
        let info = self.root.join("victim.info");
        let child = Command::new(self.bin.join("victim"))
            .arg(&info)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("ESCAPE_VICTIM_FLAG", &self.victim.flag)
            .env("VICTIM_TOKEN", &self.marker)
            .stdin(Stdio::null())
            .spawn()
            .expect("start the victim");
        let deadline = Instant::now() + Duration::from_secs(10);
        let text = loop {
            if let Ok(t) = std::fs::read_to_string(&info) {
                break t;
            }
            assert!(Instant::now() < deadline, "the victim did not start");
            std::thread::sleep(Duration::from_millis(10));
        };
        let f: Vec<&str> = text.split_whitespace().collect();
        self.victim.child = child;
        self.victim.pid = f[0].parse().unwrap();
        self.victim.addr = f[1].to_string();
        self.victim.fd = f[2].parse().unwrap();
    }

    fn start_agent(&mut self) {
        let dir = tempfile::Builder::new()
            .prefix("ssh-")
            .tempdir_in("/tmp")
            .unwrap()
            .keep();
        let path = dir.join(format!("agent.{}", std::process::id()));
        // Owned (removed on drop) before anything below can fail.
        self.agent = Agent {
            dir: dir.clone(),
            path: path.clone(),
            dbus: String::new(),
        };
        let listener =
            std::os::unix::net::UnixListener::bind(&path).expect("bind the agent socket");
        let answer = format!("{}\n", self.marker);
        std::thread::spawn(move || {
            for mut s in listener.incoming().flatten() {
                let _ = s.write_all(answer.as_bytes());
            }
        });
        // An abstract socket named like the D-Bus session bus.
        use std::os::linux::net::SocketAddrExt;
        let dbus = format!(
            "/tmp/dbus-{}",
            self.root.file_name().unwrap().to_string_lossy()
        );
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(dbus.as_bytes()).unwrap();
        let bus =
            std::os::unix::net::UnixListener::bind_addr(&addr).expect("bind the abstract socket");
        let answer = format!("{}\n", self.marker);
        std::thread::spawn(move || {
            for mut s in bus.incoming().flatten() {
                let _ = s.write_all(answer.as_bytes());
            }
        });
        self.agent.dbus = dbus;
    }

    /// Whether `ward exec --mode enforce` applies the policy (sensitive paths, sockets): it came
    /// with `--sandbox`.
    fn policy_wired(&self) -> bool {
        self.sandbox_flag
    }

    /// The environment every run gets (native and under ward).
    fn env(&self, cmd: &mut Command, result: Option<&Path>) {
        cmd.env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "C")
            .env("HOME", &self.home)
            .env("USER", "root")
            .env("XDG_STATE_HOME", self.root.join("state"))
            .env("XDG_CONFIG_HOME", self.root.join("config"))
            .env("ESCAPE_WORK", &self.work)
            .env("ESCAPE_MARKER", &self.marker)
            .env("ESCAPE_VICTIM_PID", self.victim.pid.to_string())
            .env("ESCAPE_VICTIM_ADDR", &self.victim.addr)
            .env("ESCAPE_VICTIM_FD", self.victim.fd.to_string())
            .env("ESCAPE_VICTIM_FLAG", &self.victim.flag)
            .env("ESCAPE_AGENT_SOCK", &self.agent.path)
            .env("ESCAPE_DBUS_NAME", &self.agent.dbus)
            .env("ESCAPE_PARENT_TAG", "1")
            .current_dir(&self.work)
            .stdin(Stdio::null());
        if let Some(r) = result {
            cmd.env("ESCAPE_RESULT", r);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// running one case

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    Native,
    Enforce,
    Audit,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Native => "native",
            Mode::Enforce => "enforce",
            Mode::Audit => "audit",
        }
    }
}

struct Outcome {
    /// The case's verdict: 0 won, 1 failed, 77 n/a; other: how the run ended (128+N: signal N).
    code: i32,
    /// The exit status of the process the runner started (stand-in or ward).
    top: i32,
    /// What the case said.
    output: String,
    events: Vec<Event>,
    bad_lines: Vec<String>,
    /// The parent (ward or stand-in) pid.
    parent: i32,
    /// daemon_outlive: the daemon's pid and whether it was alive after the session.
    daemon: Option<(i32, bool)>,
}

fn status_code(st: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (st.code(), st.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        _ => -1,
    }
}

fn sigkill(pid: i32) {
    // SAFETY: kill(2) with a pid this test started (or -pgrp of one); no memory is involved.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Whether a process of this case (or its witness) is still running.
fn case_running(bin: &Path) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    dir.flatten().any(|e| {
        e.file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            && std::fs::read_link(e.path().join("exe")).is_ok_and(|x| x == bin)
            && e.file_name()
                .to_str()
                .and_then(|n| n.parse().ok())
                .is_some_and(alive)
    })
}

fn run(w: &World, c: &Case, mode: Mode) -> Outcome {
    w.restore();
    let tag = format!("{}.{}", c.name, mode.as_str());
    // Inside the workspace: writing there is ordinary work for the policy.
    let result = w.work.join("escape-results").join(format!("{tag}.result"));
    let _ = std::fs::create_dir_all(result.parent().unwrap());
    let events_path = w.out.join(format!("{tag}.jsonl"));
    let log = w.out.join(format!("{tag}.log"));
    let _ = std::fs::remove_file(&result);
    let case_bin = w.bin.join(c.name);
    let mut cmd = match mode {
        Mode::Native => {
            let mut cmd = Command::new(w.bin.join("standin"));
            cmd.arg(&case_bin);
            cmd
        }
        Mode::Enforce | Mode::Audit => {
            let mut cmd = Command::new(ward());
            cmd.args(["exec", "-q", "--mode", mode.as_str()]);
            if w.sandbox_flag {
                cmd.args(["--sandbox", "off"]);
            }
            cmd.arg("--events")
                .arg(&events_path)
                .arg("--")
                .arg(&case_bin);
            cmd
        }
    };
    w.env(&mut cmd, c.needs.result_file.then_some(result.as_path()));
    if mode == Mode::Native {
        cmd.env("ESCAPE_NATIVE", "1");
    }
    let logf = std::fs::File::create(&log).unwrap();
    cmd.stdout(logf.try_clone().unwrap()).stderr(logf);
    // Its own process group: kill(0, …) from a case must not reach this test.
    cmd.process_group(0);
    let mut child = cmd.spawn().expect("spawn");
    let parent = child.id() as i32;
    let started = Instant::now();
    let mut killed_parent = false;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if let Some(ms) = c.needs.kill_parent_after_ms {
            if !killed_parent && started.elapsed() >= Duration::from_millis(ms) {
                sigkill(parent);
                killed_parent = true;
            }
        }
        if started.elapsed() > Duration::from_secs(30) {
            sigkill(-parent);
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let top = status_code(status);
    let mut code = top;
    if c.needs.result_file {
        // The case (or its witness) may outlive its parent: wait for its word.
        let deadline = Instant::now() + Duration::from_secs(4);
        code = loop {
            if let Ok(t) = std::fs::read_to_string(&result) {
                if let Some(line) = t.lines().next().filter(|_| t.ends_with('\n')) {
                    break line.trim().parse().unwrap_or(-1);
                }
            }
            let settled = Instant::now() > deadline - Duration::from_millis(3500);
            if Instant::now() > deadline || (settled && !case_running(&case_bin)) {
                break -2; // no word: it died or hung (fail-closed)
            }
            std::thread::sleep(Duration::from_millis(10));
        };
    }
    let mut daemon = None;
    if c.expect == Expect::Reaped {
        if let Some(pid) = std::fs::read_to_string(w.work.join("daemon.pid"))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            std::thread::sleep(Duration::from_millis(200));
            let up = alive(pid);
            if up {
                sigkill(pid);
            }
            daemon = Some((pid, up));
        }
    }
    // Whatever is left of the run's process group (witnesses, orphans) is ended.
    sigkill(-parent);
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    let mut events = Vec::new();
    let mut bad_lines = Vec::new();
    if mode != Mode::Native {
        let text = std::fs::read_to_string(&events_path).unwrap_or_default();
        for l in text.lines() {
            match Event::from_json(l) {
                Ok(e) => events.push(e),
                Err(e) => bad_lines.push(format!("{e}: {l}")),
            }
        }
    }
    Outcome {
        code,
        top,
        output,
        events,
        bad_lines,
        parent,
        daemon,
    }
}

// ---------------------------------------------------------------------------------------------
// judging

fn path_str(p: &Option<ward_event::PathBytes>) -> String {
    p.as_ref().map(|p| p.to_string_lossy()).unwrap_or_default()
}

/// File and directory operations (the kinds whose denials are `EACCES`, exec aside).
fn is_file_op(k: OpKind) -> bool {
    k.is_file_access() && k != OpKind::ProcExec
}

/// Whether `e` is about what the case attempted.
fn matches(w: &World, ev: Evidence, parent: i32, e: &Event) -> bool {
    let (path, path2) = (path_str(&e.op.path), path_str(&e.op.path2));
    let secret = w.secret.to_string_lossy();
    let kind = e.op.op_kind();
    let at = |name: &str, pids: &[i32]| {
        e.op.syscall == name && e.op.target_pid.is_some_and(|t| pids.contains(&t))
    };
    match ev {
        Evidence::SecretPath => is_file_op(kind) && (path == secret || path2 == secret),
        Evidence::SecretInode => {
            is_file_op(kind)
                && (path == secret
                    || path2 == secret
                    || e.decision.filters.iter().any(|f| f.filter == "sensitive-inode"))
        }
        Evidence::VictimEnviron => {
            is_file_op(kind) && path == format!("/proc/{}/environ", w.victim.pid)
        }
        Evidence::VictimProc => {
            is_file_op(kind) && path.starts_with(&format!("/proc/{}/", w.victim.pid))
        }
        Evidence::WardProc => is_file_op(kind) && path.starts_with(&format!("/proc/{parent}/")),
        Evidence::Syscall(name) => e.op.syscall == name,
        Evidence::SecretOr(name) => {
            e.op.syscall == name || (is_file_op(kind) && (path == secret || path2 == secret))
        }
        Evidence::AtVictim(name) => at(name, &[w.victim.pid]),
        Evidence::AtWard(name) => at(name, &[parent, -parent, 0]),
        Evidence::AgentSocket => {
            kind == OpKind::IpcConnect && path == w.agent.path.to_string_lossy()
        }
        Evidence::DbusSocket => {
            kind == OpKind::IpcConnect
                && matches!(&e.op.addr, Some(ward_event::SockAddr::UnixAbstract { name }) if name.to_string_lossy() == w.agent.dbus)
        }
        Evidence::Socket(what) => {
            kind == OpKind::NetSocket && e.op.detail.as_deref().unwrap_or("").contains(what)
        }
        Evidence::Nothing => false,
    }
}

/// A one-line summary of an event, for the report.
fn describe(e: &Event) -> String {
    let mut s = format!("{} {}", e.op.op_kind().as_str(), e.op.syscall);
    let p = path_str(&e.op.path);
    if !p.is_empty() {
        let _ = write!(s, " {p}");
    }
    if let Some(t) = e.op.target_pid {
        let _ = write!(s, " target={t}");
    }
    let _ = write!(
        s,
        " -> {}",
        match e.decision.action {
            Action::Allow => "allow",
            Action::Deny => "DENY",
        }
    );
    if let ward_event::Outcome::Err(errno) = e.outcome {
        let _ = write!(s, " ({})", ward_event::errno_name(errno));
    }
    if let Some(f) = e.decision.filters.first() {
        let _ = write!(s, " [{}: {}]", f.filter, f.reason);
    }
    s
}

/// The verdict of one case: a table cell per mode and the problems found.
struct Judged {
    native: String,
    enforce: String,
    audit: String,
    problems: Vec<(Mode, String)>,
    not_applicable: Option<String>,
}

fn last_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn judge(
    w: &World,
    c: &Case,
    native: &Outcome,
    enforce: Option<&Outcome>,
    audit: Option<&Outcome>,
) -> Judged {
    let mut problems = Vec::new();
    let mut j = Judged {
        native: String::new(),
        enforce: "-".into(),
        audit: "-".into(),
        problems: Vec::new(),
        not_applicable: None,
    };
    // 1. natively the attack works (or the kernel refuses it: n/a).
    let native_won = match c.expect {
        Expect::Reaped => native.daemon.is_some_and(|(_, up)| up),
        _ => native.code == 0,
    };
    if native.code == 77 {
        j.native = "n/a".into();
        j.not_applicable = Some(last_line(&native.output));
        j.problems = problems;
        return j;
    }
    j.native = if native_won {
        "works".into()
    } else {
        format!("FAILS ({})", native.code)
    };
    if !native_won {
        problems.push((
            Mode::Native,
            format!(
                "the attack does not work without ward (code {}): {}",
                native.code,
                last_line(&native.output)
            ),
        ));
    }
    for (mode, o) in [(Mode::Enforce, enforce), (Mode::Audit, audit)] {
        let Some(o) = o else { continue };
        let cell;
        let mut bad = Vec::new();
        if !o.bad_lines.is_empty() {
            bad.push(format!("unparsable event lines: {:?}", o.bad_lines));
        }
        let hits: Vec<&Event> = o
            .events
            .iter()
            .filter(|e| matches(w, c.evidence, o.parent, e))
            .collect();
        let denied: Vec<&&Event> = hits
            .iter()
            .filter(|e| e.decision.action == Action::Deny)
            .collect();
        match (c.expect, mode) {
            (Expect::Deny, Mode::Enforce) => {
                if o.code == 0 {
                    bad.push(format!(
                        "the attack WORKED under enforce: {}",
                        last_line(&o.output)
                    ));
                }
                if denied.is_empty() {
                    bad.push(format!(
                        "no deny event for it; matching events: {:?}",
                        hits.iter().map(|e| describe(e)).collect::<Vec<_>>()
                    ));
                }
                cell = if o.code != 0 && !denied.is_empty() {
                    let d = denied[0];
                    let f = d
                        .decision
                        .filters
                        .first()
                        .map(|f| f.filter.clone())
                        .unwrap_or_else(|| format!("{:?}", d.decision.by));
                    format!("stopped ({} {})", d.op.syscall, f)
                } else if o.code == 0 {
                    "ESCAPED".into()
                } else if o.code == -2 && o.top > 128 {
                    format!("WARD KILLED (signal {})", o.top - 128)
                } else {
                    format!("failed, no deny ({})", o.code)
                };
            }
            (Expect::Deny, Mode::Audit) | (Expect::SeenAsExec, Mode::Audit) => {
                if hits.is_empty() {
                    bad.push("the attempt is not recorded".into());
                    cell = "NOT RECORDED".into();
                } else {
                    cell = format!("recorded ({})", hits[0].op.syscall);
                }
            }
            (Expect::SeenAsExec, Mode::Enforce) => {
                let execs: Vec<&&Event> = hits
                    .iter()
                    .filter(|e| e.op.op_kind() == OpKind::ProcExec)
                    .collect();
                if !denied.is_empty() && o.code != 0 {
                    cell = "denied".into();
                } else if let Some(e) = execs
                    .iter()
                    .find(|e| path_str(&e.op.path).starts_with("/memfd:"))
                {
                    cell = format!(
                        "judged: {}, recorded as exec of {}",
                        if e.decision.action == Action::Deny {
                            "deny"
                        } else {
                            "allow"
                        },
                        path_str(&e.op.path)
                    );
                } else {
                    bad.push(format!(
                        "not seen as an exec of a memfd: {:?}",
                        hits.iter().map(|e| describe(e)).collect::<Vec<_>>()
                    ));
                    cell = "NOT SEEN".into();
                }
            }
            (Expect::KilledByFilter, _) => {
                if o.code != 128 + libc::SIGSYS {
                    bad.push(format!(
                        "expected death by SIGSYS in the filter, got code {}: {}",
                        o.code,
                        last_line(&o.output)
                    ));
                    cell = if o.code == 0 {
                        "ESCAPED".into()
                    } else {
                        format!("code {}", o.code)
                    };
                } else {
                    cell = "killed (SIGSYS)".into();
                }
            }
            (Expect::Reaped, _) => match o.daemon {
                None => {
                    bad.push("the daemon did not start".into());
                    cell = "no daemon".into();
                }
                Some((pid, up)) => {
                    let reaped = o.events.iter().any(|e| {
                        e.op.op_kind() == OpKind::ProcReap && e.op.target_pid == Some(pid)
                    });
                    if up {
                        bad.push(format!("the daemon {pid} outlived the session"));
                    }
                    if !reaped {
                        bad.push(format!("no proc.reap event names the daemon {pid}"));
                    }
                    cell = if !up && reaped {
                        "reaped (proc.reap)".into()
                    } else if up {
                        "OUTLIVED".into()
                    } else {
                        "gone, no event".into()
                    };
                }
            },
            (Expect::Deny, Mode::Native) | (Expect::SeenAsExec, Mode::Native) => unreachable!(),
            (Expect::FailClosed, _) => {
                if o.code == 0 {
                    bad.push(format!(
                        "the tree went on unchecked after ward died: {}",
                        last_line(&o.output)
                    ));
                    cell = "ESCAPED".into();
                } else {
                    cell = format!(
                        "fail-closed ({})",
                        last_line(&o.output).chars().take(40).collect::<String>()
                    );
                }
            }
        }
        for b in bad {
            problems.push((mode, b));
        }
        match mode {
            Mode::Enforce => j.enforce = cell,
            _ => j.audit = cell,
        }
    }
    j.problems = problems;
    j
}

fn table(rows: &[(String, String, String, String, String, String)]) -> String {
    let heads = ("case", "category", "native", "enforce", "audit", "verdict");
    let mut wdt = [
        heads.0.len(),
        heads.1.len(),
        heads.2.len(),
        heads.3.len(),
        heads.4.len(),
        heads.5.len(),
    ];
    for r in rows {
        for (i, v) in [&r.0, &r.1, &r.2, &r.3, &r.4, &r.5].iter().enumerate() {
            wdt[i] = wdt[i].max(v.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, v: [&str; 6]| {
        for (i, s) in v.iter().enumerate() {
            let _ = write!(out, "| {:w$} ", s, w = wdt[i]);
        }
        out.push_str("|\n");
    };
    line(
        &mut out,
        [heads.0, heads.1, heads.2, heads.3, heads.4, heads.5],
    );
    let dashes: Vec<String> = wdt.iter().map(|n| "-".repeat(*n)).collect();
    line(
        &mut out,
        [
            &dashes[0], &dashes[1], &dashes[2], &dashes[3], &dashes[4], &dashes[5],
        ],
    );
    for r in rows {
        line(&mut out, [&r.0, &r.1, &r.2, &r.3, &r.4, &r.5]);
    }
    out
}

/// `ESCAPE_ONLY=a,b` runs only those cases (for debugging one).
fn selected() -> Vec<&'static Case> {
    let only = std::env::var("ESCAPE_ONLY").ok();
    CASES
        .iter()
        .filter(|c| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|n| n == c.name))
        })
        .collect()
}

/// The two tests of this file load both CPUs of a small machine: one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn escape_suite() {
    let _one_at_a_time = serial();
    let t0 = Instant::now();
    // Every case in the directory is in the table and the other way round.
    let on_disk: std::collections::BTreeSet<String> = std::fs::read_dir(escape_dir().join("cases"))
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .collect();
    let listed: std::collections::BTreeSet<String> =
        CASES.iter().map(|c| c.name.to_string()).collect();
    assert_eq!(on_disk, listed, "tests/escape/cases and CASES disagree");
    assert!(CASES.len() >= 30);

    let w = World::new();
    let mut rows = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut holes: Vec<String> = Vec::new();
    let mut fixed: Vec<String> = Vec::new();
    let mut na: BTreeMap<&str, String> = BTreeMap::new();
    let mut pend: Vec<&str> = Vec::new();
    for c in selected() {
        let native = run(&w, c, Mode::Native);
        let (enforce, audit) = if native.code == 77 {
            (None, None)
        } else {
            (
                Some(run(&w, c, Mode::Enforce)),
                Some(run(&w, c, Mode::Audit)),
            )
        };
        let j = judge(&w, c, &native, enforce.as_ref(), audit.as_ref());
        // Before the policy is wired into `ward exec` (it arrives with `--sandbox`), the policy's
        // enforce-mode denials cannot happen: those cases are reported as pending, not passed.
        let pending =
            c.policy && !w.policy_wired() && j.problems.iter().any(|(m, _)| *m == Mode::Enforce);
        type Problems<'a> = Vec<&'a (Mode, String)>;
        let (excused, real): (Problems, Problems) = j
            .problems
            .iter()
            .filter(|(m, _)| !(pending && *m == Mode::Enforce))
            .partition(|(m, _)| c.known_hole.is_some_and(|(modes, _)| modes.contains(m)));
        let fmt = |ps: &[&(Mode, String)]| {
            ps.iter()
                .map(|(m, p)| format!("{}: {p}", m.as_str()))
                .collect::<Vec<_>>()
        };
        let verdict = if let Some(why) = &j.not_applicable {
            na.insert(c.name, why.clone());
            "n/a".to_string()
        } else if !real.is_empty() {
            let mut detail = format!("{} ({}):\n", c.name, c.category);
            for p in fmt(&real) {
                let _ = writeln!(detail, "    - {p}");
            }
            for (m, o) in [
                ("native", Some(&native)),
                ("enforce", enforce.as_ref()),
                ("audit", audit.as_ref()),
            ] {
                if let Some(o) = o {
                    let _ = writeln!(
                        detail,
                        "    {m}: code {} (top {}), said: {}",
                        o.code,
                        o.top,
                        last_line(&o.output)
                    );
                }
            }
            if let Some(o) = enforce.as_ref() {
                for e in o
                    .events
                    .iter()
                    .filter(|e| e.decision.action == Action::Deny)
                    .take(5)
                {
                    let _ = writeln!(detail, "    enforce deny event: {}", describe(e));
                }
            }
            failures.push(detail);
            "FAIL".into()
        } else if pending {
            pend.push(c.name);
            "PENDING (policy)".into()
        } else if let (false, Some((_, why))) = (excused.is_empty(), c.known_hole) {
            holes.push(format!(
                "{}: {}\n    seen: {}",
                c.name,
                why,
                fmt(&excused).join("; ")
            ));
            "KNOWN HOLE".into()
        } else if c.known_hole.is_some() {
            fixed.push(c.name.to_string());
            "ok (hole fixed?)".into()
        } else {
            "ok".into()
        };
        let mut name = c.name.to_string();
        if c.policy {
            name.push_str(" (policy)");
        }
        rows.push((
            name,
            c.category.to_string(),
            j.native,
            j.enforce,
            j.audit,
            verdict,
        ));
    }
    println!(
        "\nward escape suite ({} cases, {:.1}s; `--sandbox off`: {})\n",
        rows.len(),
        t0.elapsed().as_secs_f64(),
        w.sandbox_flag
    );
    println!("{}", table(&rows));
    for (n, why) in &na {
        println!("n/a {n}: {why}");
    }
    for h in &holes {
        println!("KNOWN HOLE {h}");
    }
    if !pend.is_empty() {
        println!(
            "PENDING: the policy is not wired into this `ward exec` yet (no --sandbox flag): {} policy case(s) \
             not judged in enforce mode: {}",
            pend.len(),
            pend.join(", ")
        );
    }
    for f in &fixed {
        println!("{f}: marked as a known hole but behaved: remove the mark in CASES");
    }
    assert!(
        failures.is_empty(),
        "{} escape case(s) did not behave:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// the race acceptance test

struct RaceCount {
    tries: u64,
    harmless: u64,
    secret: u64,
    denied: u64,
    other: u64,
    first_win: u64,
}

fn parse_race(out: &str) -> RaceCount {
    let line = out
        .lines()
        .find(|l| l.starts_with("tries="))
        .unwrap_or_else(|| panic!("racer said: {out}"));
    let v: BTreeMap<&str, u64> = line
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k, v.parse().unwrap()))
        .collect();
    RaceCount {
        tries: v["tries"],
        harmless: v["harmless"],
        secret: v["secret"],
        denied: v["denied"],
        other: v["other"],
        first_win: v["first_win"],
    }
}

/// Issue 5's acceptance race: a second thread flips the path buffer between a workspace file
/// and `~/.ssh/id_rsa`. Natively the secret comes out within 20 tries; under `ward exec --mode
/// enforce` never in 20,000, every open the flip sent to the key is denied and recorded, and
/// the workspace file still opens.
#[test]
fn race_acceptance() {
    let _one_at_a_time = serial();
    let w = World::new();
    let racer = w.bin.join("racer");

    // Natively: within 20 tries.
    let mut cmd = Command::new(&racer);
    cmd.arg("20");
    w.env(&mut cmd, None);
    let o = cmd.output().unwrap();
    let native = parse_race(&String::from_utf8_lossy(&o.stdout));
    println!(
        "race natively: {} tries, secret read {} times, first at try {}",
        native.tries, native.secret, native.first_win
    );
    assert!(
        native.secret > 0 && native.first_win <= 20,
        "natively the race must win within 20 tries"
    );

    // Under ward: never in 20,000.
    let events_path = w.out.join("race.enforce.jsonl");
    let mut cmd = Command::new(ward());
    cmd.args(["exec", "-q", "--mode", "enforce"]);
    if w.sandbox_flag {
        cmd.args(["--sandbox", "off"]);
    }
    cmd.arg("--events")
        .arg(&events_path)
        .arg("--")
        .arg(&racer)
        .arg("20000");
    w.env(&mut cmd, None);
    cmd.process_group(0);
    let t0 = Instant::now();
    let o = cmd.output().unwrap();
    let took = t0.elapsed();
    let under = parse_race(&String::from_utf8_lossy(&o.stdout));
    let events: Vec<Event> = std::fs::read_to_string(&events_path)
        .unwrap_or_default()
        .lines()
        .map(|l| Event::from_json(l).unwrap())
        .collect();
    let secret = w.secret.to_string_lossy();
    // A path torn mid-flip (half key, half workspace file) that lands under ~/.ssh is denied
    // too: count every denial under ~/.ssh, and every allowed open of the key itself.
    let ssh_dir = w.home.join(".ssh").to_string_lossy().into_owned();
    let denied_events = events
        .iter()
        .filter(|e| e.op.op_kind() == OpKind::FileRead && e.decision.action == Action::Deny)
        .filter(|e| {
            let p = path_str(&e.op.path);
            p == ssh_dir || p.starts_with(&format!("{ssh_dir}/"))
        })
        .count() as u64;
    let allowed_events = events
        .iter()
        .filter(|e| e.op.op_kind() == OpKind::FileRead && path_str(&e.op.path) == secret)
        .filter(|e| e.decision.action == Action::Allow)
        .count() as u64;
    println!(
        "race under ward --mode enforce: {} tries in {:.1}s: harmless {}, secret {}, denied {} (deny events {}, allowed opens of the key {}), other {}",
        under.tries,
        took.as_secs_f64(),
        under.harmless,
        under.secret,
        under.denied,
        denied_events,
        allowed_events,
        under.other
    );
    assert_eq!(under.tries, 20_000);
    assert!(
        under.harmless > 0,
        "the workspace file never opened: ward broke the harmless case"
    );
    if !w.policy_wired() {
        println!("PENDING: the policy is not wired into this `ward exec` (no --sandbox flag): the key is not denied yet");
        return;
    }
    assert_eq!(under.secret, 0, "the race read the secret under ward");
    assert_eq!(allowed_events, 0, "an open of the key was allowed");
    assert!(
        under.denied > 0,
        "the flip never reached the key: the race was not run"
    );
    assert!(
        under.harmless > 0,
        "the workspace file never opened: ward broke the harmless case"
    );
    assert_eq!(
        denied_events, under.denied,
        "every denial is recorded, once"
    );
    assert!(took < Duration::from_secs(60), "20,000 tries took {took:?}");
}
