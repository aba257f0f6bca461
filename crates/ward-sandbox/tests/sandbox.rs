//! The sandbox for real: each test runs the `ward-sandbox-probe` helper (enter + seal + exec,
//! what `ward __init` does without the supervisor) in a fresh directory under /var/tmp (not
//! /tmp: the sandbox's private /tmp would hide it), first without the sandbox to show the
//! attempt works there, then inside to show it fails.
//!
//! Every test runs once per user: as the current user and, when that is root, again as the
//! unprivileged `wardtest` user (created with `useradd` if missing) through `setpriv`.
//! Synchronisation is by pipes only.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const TEST_USER: &str = "wardtest";

#[derive(Clone, Debug)]
struct User {
    name: String,
    uid: u32,
    gid: u32,
    /// Run through setpriv (root testing the unprivileged path).
    switch: bool,
}

fn id_of(name: &str, flag: &str) -> Option<u32> {
    let out = Command::new("id").arg(flag).arg(name).output().ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// The users each test runs as.
fn users() -> Vec<User> {
    static USERS: OnceLock<Vec<User>> = OnceLock::new();
    USERS
        .get_or_init(|| {
            let me = User {
                name: "self".into(),
                uid: ward_sandbox::sys::geteuid(),
                gid: ward_sandbox::sys::getegid(),
                switch: false,
            };
            let mut v = vec![me.clone()];
            if me.uid == 0 {
                if id_of(TEST_USER, "-u").is_none() {
                    let _ = Command::new("useradd").args(["-m", TEST_USER]).status();
                }
                match (id_of(TEST_USER, "-u"), id_of(TEST_USER, "-g")) {
                    (Some(uid), Some(gid)) => v.push(User {
                        name: TEST_USER.into(),
                        uid,
                        gid,
                        switch: true,
                    }),
                    _ => eprintln!(
                        "SKIPPED: the unprivileged variants: user {TEST_USER} does not exist and `useradd -m {TEST_USER}` failed"
                    ),
                }
            }
            v
        })
        .clone()
}

/// Whether every user may execute `path` (each folder on the way searchable by others).
fn executable_by_all(path: &Path) -> bool {
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.permissions().mode())
            .unwrap_or(0)
    };
    mode(path) & 0o001 != 0 && path.ancestors().skip(1).all(|a| mode(a) & 0o001 != 0)
}

/// The probe binary, where every test user can execute it (copied to /var/tmp if the build
/// folder is private).
fn probe() -> PathBuf {
    static PROBE: OnceLock<PathBuf> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            let built = PathBuf::from(env!("CARGO_BIN_EXE_ward-sandbox-probe"));
            if executable_by_all(&built) {
                return built;
            }
            let dir = Path::new("/var/tmp/ward-sandbox-probe");
            std::fs::create_dir_all(dir).unwrap();
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
            let tmp = dir.join(format!("probe.{}", std::process::id()));
            std::fs::copy(&built, &tmp).unwrap();
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
            let dst = dir.join("probe");
            std::fs::rename(&tmp, &dst).unwrap();
            dst
        })
        .clone()
}

/// A fresh project, home and outside folder owned by the test user.
struct Env {
    _dir: tempfile::TempDir,
    base: PathBuf,
    project: PathBuf,
    home: PathBuf,
    outside: PathBuf,
    user: User,
}

fn chown_tree(p: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(gid)).unwrap();
    if p.is_dir() && !p.is_symlink() {
        for e in std::fs::read_dir(p).unwrap() {
            chown_tree(&e.unwrap().path(), uid, gid);
        }
    }
}

impl Env {
    fn new(user: &User) -> Env {
        Env::new_in(user, "/var/tmp")
    }

    fn new_in(user: &User, parent: &str) -> Env {
        let dir = tempfile::Builder::new()
            .prefix("ward-sandbox-")
            .tempdir_in(parent)
            .unwrap();
        let base = dir.path().canonicalize().unwrap();
        let project = base.join("project");
        let home = base.join("home");
        let outside = base.join("outside");
        for d in [&project, &home.join(".ssh"), &outside] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".bashrc"), "# rc\n").unwrap();
        std::fs::write(home.join(".ssh/authorized_keys"), "ssh-ed25519 AAAA user\n").unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY\n").unwrap();
        std::fs::write(project.join("file"), "data\n").unwrap();
        std::os::unix::fs::symlink(&outside, project.join("link")).unwrap();
        let env = Env {
            _dir: dir,
            base,
            project,
            home,
            outside,
            user: user.clone(),
        };
        env.git("init -q -b main . && git add file && git commit -qm initial");
        chown_tree(&env.base, user.uid, user.gid);
        env
    }

    /// Runs a shell command as the test user, outside any sandbox.
    fn sh_native(&self, script: &str) -> Output {
        self.command(&["/bin/sh", "-c", script]).output().unwrap()
    }

    fn git(&self, args: &str) {
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("git {args}"))
            .current_dir(&self.project)
            .envs(self.vars())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn vars(&self) -> Vec<(&'static str, String)> {
        vec![
            ("HOME", self.home.display().to_string()),
            (
                "PATH",
                "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin".into(),
            ),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_AUTHOR_NAME", "t".into()),
            ("GIT_AUTHOR_EMAIL", "t@example.test".into()),
            ("GIT_COMMITTER_NAME", "t".into()),
            ("GIT_COMMITTER_EMAIL", "t@example.test".into()),
            ("P", self.project.display().to_string()),
            ("OUT", self.outside.display().to_string()),
            ("LC_ALL", "C".into()),
        ]
    }

    fn command(&self, argv: &[&str]) -> Command {
        let mut c = if self.user.switch {
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid",
                &self.user.name,
                "--regid",
                &self.user.name,
                "--init-groups",
                "--",
            ]);
            c.args(argv);
            c
        } else {
            let mut c = Command::new(argv[0]);
            c.args(&argv[1..]);
            c
        };
        c.env_clear()
            .envs(self.vars())
            .current_dir(&self.project)
            .stdin(Stdio::null());
        c
    }

    /// The probe entering the sandbox of `plan`, then running `args` (`--builtin NAME …` or
    /// `-- CMD …`), as this user.
    fn in_sandbox(&self, plan: &Path, args: &[&str]) -> Command {
        let probe = probe();
        let mut argv = vec![probe.to_str().unwrap(), plan.to_str().unwrap()];
        argv.extend(args);
        self.command(&argv)
    }

    fn plan(&self, mode: &str, supervised: bool) -> PathBuf {
        self.plan_with(mode, supervised, &[])
    }

    fn plan_with(&self, mode: &str, supervised: bool, extra_secrets: &[PathBuf]) -> PathBuf {
        self.plan_full(mode, supervised, extra_secrets, &[])
    }

    fn plan_full(
        &self,
        mode: &str,
        supervised: bool,
        extra_secrets: &[PathBuf],
        writable: &[PathBuf],
    ) -> PathBuf {
        let (mode, network) = match mode.strip_suffix("-host") {
            Some(m) => (m, "host"),
            None => (mode, "off"),
        };
        let plan = serde_json::json!({
            "mode": mode,
            "project": self.project,
            "home": self.home,
            "writable": writable,
            "protected": ward_sandbox::default_protected(&self.project, &self.home),
            "secrets": ward_sandbox::default_secrets(&self.home).into_iter().chain(extra_secrets.iter().cloned()).collect::<Vec<_>>(),
            "network": network,
            "uid": self.user.uid,
            "gid": self.user.gid,
            "cwd": self.project,
            "supervised": supervised,
        });
        let path = self
            .base
            .join(format!("plan-{mode}-{network}-{supervised}.json"));
        std::fs::write(&path, plan.to_string()).unwrap();
        std::os::unix::fs::chown(&path, Some(self.user.uid), Some(self.user.gid)).unwrap();
        path
    }

    /// Runs `script` with `sh -c` inside the sandbox of `mode`.
    fn sh_in(&self, mode: &str, script: &str) -> Output {
        self.sh_in_with(mode, script, &[])
    }

    fn sh_in_with(&self, mode: &str, script: &str, extra_secrets: &[PathBuf]) -> Output {
        let plan = self.plan_with(mode, false, extra_secrets);
        self.in_sandbox(&plan, &["--", "/bin/sh", "-c", script])
        .output()
        .unwrap()
    }

    /// Runs a built-in probe; returns its `result:` line (or the status if it had none).
    fn builtin(
        &self,
        mode: &str,
        supervised: bool,
        seal: bool,
        name: &str,
        arg: Option<&str>,
    ) -> String {
        let plan = self.plan(mode, supervised);
        let probe = probe();
        let mut argv = vec![probe.to_str().unwrap(), plan.to_str().unwrap()];
        if !seal {
            argv.push("--no-seal");
        }
        argv.extend(["--builtin", name]);
        argv.extend(arg);
        let out = self.command(&argv).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        match stdout.lines().find_map(|l| l.strip_prefix("result: ")) {
            Some(r) => r.to_string(),
            None => {
                use std::os::unix::process::ExitStatusExt;
                format!(
                    "exit={:?} signal={:?} {}",
                    out.status.code(),
                    out.status.signal(),
                    String::from_utf8_lossy(&out.stderr).trim()
                )
            }
        }
    }
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Lines `ok NAME` / `fail NAME` printed by an attack script.
fn verdicts(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

const ATTACKS: &str = r##"
t() { name=$1; shift; if ( "$@" ) 2>/dev/null; then echo "ok $name"; else echo "fail $name"; fi; }
t bashrc sh -c 'echo evil >> "$HOME/.bashrc"'
t authorized_keys sh -c 'echo evil >> "$HOME/.ssh/authorized_keys"'
t read_key sh -c 'cat "$HOME/.ssh/id_ed25519" | grep -q PRIVATE'
t outside sh -c 'echo evil > "$OUT/planted"'
t symlink sh -c 'echo evil > "$P/link/via-link"'
t rename sh -c 'mv "$P/file" "$OUT/moved" && test -e "$OUT/moved"'
t hook sh -c 'echo "#!/bin/sh" > "$P/.git/hooks/pre-commit"'
t fsmonitor_append sh -c 'printf "[core]\n\tfsmonitor = evil\n" >> "$P/.git/config"'
t fsmonitor_git git config core.fsmonitor evil
"##;

const ATTACK_NAMES: [&str; 9] = [
    "bashrc",
    "authorized_keys",
    "read_key",
    "outside",
    "symlink",
    "rename",
    "hook",
    "fsmonitor_append",
    "fsmonitor_git",
];

#[test]
fn workspace_write_blocks_writes_outside_and_to_protected_paths() {
    for user in users() {
        // Natively every attack works.
        let native = Env::new(&user);
        let got = verdicts(&native.sh_native(ATTACKS));
        let want: Vec<String> = ATTACK_NAMES.iter().map(|n| format!("ok {n}")).collect();
        assert_eq!(
            got, want,
            "as {}: natively every attack must work",
            user.name
        );

        // In the sandbox every one fails, and nothing changed on disk.
        let env = Env::new(&user);
        let out = env.sh_in("workspace-write", ATTACKS);
        let want: Vec<String> = ATTACK_NAMES.iter().map(|n| format!("fail {n}")).collect();
        assert_eq!(verdicts(&out), want, "as {}:\n{}", user.name, text(&out));
        assert_eq!(
            std::fs::read_to_string(env.home.join(".bashrc")).unwrap(),
            "# rc\n"
        );
        assert!(
            !std::fs::read_to_string(env.home.join(".ssh/authorized_keys"))
                .unwrap()
                .contains("evil")
        );
        assert_eq!(std::fs::read_dir(&env.outside).unwrap().count(), 0);
        assert!(env.project.join("file").exists());
        assert!(!env.project.join(".git/hooks/pre-commit").exists());
        assert!(!std::fs::read_to_string(env.project.join(".git/config"))
            .unwrap()
            .contains("fsmonitor"));
    }
}

fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.file_name() == Some(".git".as_ref()) && d == root {
                continue;
            }
            out.push(p.strip_prefix(root).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn git_works_inside_and_leaves_nothing_behind() {
    for user in users() {
        let env = Env::new(&user);
        let home_before = listing(&env.home);
        let script = r#"set -ex
echo change >> file
echo new > new.txt
git add -A
git commit -qm "work in the sandbox"
git checkout -qb feature
echo more >> file
git stash -q
git stash list | grep -q "on feature"
git stash pop -q
git commit -qam second
mkdir sub && cd sub && git init -q && echo x > x && git add x && git commit -qm sub && cd ..
rm -rf sub
mktemp >/dev/null
echo done
"#;
        let out = env.sh_in("workspace-write", script);
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).ends_with("done\n"),
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        // Outside, afterwards: the work is there and the tree is clean.
        let status = env.sh_native(
            "git status --porcelain --ignored && git log --format=%s && git branch --show-current",
        );
        assert_eq!(
            String::from_utf8_lossy(&status.stdout),
            "second\nwork in the sandbox\ninitial\nfeature\n",
            "as {}: {}",
            user.name,
            text(&status)
        );
        assert_eq!(
            listing(&env.project),
            vec!["file", "link", "new.txt"],
            "as {}: no stub files",
            user.name
        );
        assert_eq!(
            listing(&env.home),
            home_before,
            "as {}: nothing left in home",
            user.name
        );
        // A fake bare repository planted by a command is gone once the guard has run.
        let guard = ward_sandbox::GitGuard::snapshot(&env.project);
        let plant = "mkdir -p deep/evil/objects deep/evil/refs && echo 'ref: refs/heads/main' > deep/evil/HEAD \
                     && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > deep/evil/config && echo planted";
        let out = env.sh_in("workspace-write", plant);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "planted\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        let cleaned = guard.check_and_clean();
        assert_eq!(cleaned.len(), 1, "{cleaned:?}");
        assert_eq!(cleaned[0].what, ward_sandbox::CleanupKind::FakeRepoRemoved);
        assert!(cleaned[0].detail.contains("core.fsmonitor"), "{cleaned:?}");
        assert!(!env.project.join("deep/evil").exists() && env.project.join("deep").exists());
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        assert!(
            !mounts.contains(env.base.to_str().unwrap()),
            "a mount leaked to the host"
        );
    }
}

#[test]
fn read_only_mode_keeps_the_project_read_only_but_tmp_writable() {
    for user in users() {
        let env = Env::new(&user);
        let out = env.sh_in(
            "read-only",
            "echo x > \"$P/new\" || echo blocked; echo y > /tmp/t && cat /tmp/t",
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "blocked\ny\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        assert!(!env.project.join("new").exists());
    }
}

#[test]
fn landlock_only_confines_without_namespaces() {
    for user in users() {
        let env = Env::new(&user);
        let script = format!("{ATTACKS}\nt project_write sh -c 'echo ok > \"$P/inside\"'\n");
        let out = env.sh_in("landlock-only", &script);
        let got = verdicts(&out);
        // Landlock alone stops writes outside the project and reading the key; protected
        // paths inside the project are the supervisor's and the git guard's job in this mode.
        for name in [
            "bashrc",
            "authorized_keys",
            "read_key",
            "outside",
            "symlink",
            "rename",
        ] {
            assert!(
                got.contains(&format!("fail {name}")),
                "as {}: {name}\n{}",
                user.name,
                text(&out)
            );
        }
        assert!(
            got.contains(&"ok project_write".to_string()),
            "as {}:\n{}",
            user.name,
            text(&out)
        );
    }
}

#[test]
fn processes_outside_can_be_neither_signalled_nor_read() {
    for user in users() {
        let env = Env::new(&user);
        // A process of the same user outside the sandbox.
        // It says when it runs as the user (setpriv switches ids before it execs the shell).
        let mut victim = env
            .command(&["/bin/sh", "-c", "echo ready; exec cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut ready = String::new();
        BufReader::new(victim.stdout.as_mut().unwrap())
            .read_line(&mut ready)
            .unwrap();
        assert_eq!(ready, "ready\n");
        let pid = victim.id().to_string();
        assert_eq!(
            env.builtin("off", false, false, "kill", Some(&pid)),
            "signalled",
            "as {}",
            user.name
        );
        let read = format!("head -c1 /proc/{pid}/environ >/dev/null && echo read || echo blocked");
        assert_eq!(
            String::from_utf8_lossy(&env.sh_native(&read).stdout),
            "read\n"
        );

        assert_eq!(
            env.builtin("workspace-write", false, true, "kill", Some(&pid)),
            "error ESRCH",
            "as {}",
            user.name
        );
        let out = env.sh_in("workspace-write", &read);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "blocked\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        drop(victim.stdin.take());
        victim.wait().unwrap();
    }
}

#[test]
fn network_off_has_its_own_loopback_only() {
    for user in users() {
        let env = Env::new(&user);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        assert_eq!(
            env.builtin("off", false, false, "connect", Some(&addr)),
            "connected"
        );
        assert_eq!(
            env.builtin("workspace-write", false, true, "connect", Some(&addr)),
            "error ECONNREFUSED",
            "as {}",
            user.name
        );
        assert_eq!(
            env.builtin("workspace-write", false, true, "loopback", None),
            "loopback ping",
            "as {}",
            user.name
        );
        // With the host's network the supervisor filters connects instead: reachable.
        assert_eq!(
            env.builtin("workspace-write-host", false, true, "connect", Some(&addr)),
            "connected",
            "as {}",
            user.name
        );
    }
}

#[test]
fn the_wall_stops_dangerous_calls_and_kills_foreign_arch_calls() {
    for user in users() {
        let env = Env::new(&user);
        // Without the wall io_uring works, and 32-bit getpid answers.
        assert!(
            env.builtin("off", false, false, "io_uring", None)
                .starts_with("ok("),
            "as {}",
            user.name
        );
        assert!(
            env.builtin("off", false, false, "int80", None)
                .starts_with("ok("),
            "as {}",
            user.name
        );
        // The wall alone: errno entries, and backstops with their errno...
        assert_eq!(env.builtin("off", false, true, "io_uring", None), "EPERM");
        assert_eq!(
            env.builtin("off", false, true, "socket", Some("17")),
            "EAFNOSUPPORT"
        );
        assert_eq!(
            env.builtin("off", false, true, "socket", Some("2")),
            "ok(3)"
        );
        assert_eq!(env.builtin("off", false, true, "clone3", None), "ENOSYS");
        assert_eq!(env.builtin("off", false, true, "bpf", None), "EPERM");
        // ...or, when a supervisor is expected, SECCOMP_RET_TRACE: ENOSYS with nobody tracing.
        assert_eq!(env.builtin("off", true, true, "io_uring", None), "ENOSYS");
        assert_eq!(env.builtin("off", true, true, "unshare", None), "ENOSYS");
        assert_eq!(
            env.builtin("workspace-write", true, true, "io_uring", None),
            "ENOSYS",
            "as {}",
            user.name
        );
        // With a notifier on top (what the supervisor installs after seal): a backstop yields
        // to it (its sentinel answer arrives), an errno entry does not (no notification).
        // (The sentinel is ENOTUNIQ, errno 76, printed as E76.)
        assert_eq!(
            env.builtin("off", false, false, "notifier", None),
            "E76 E76"
        );
        assert_eq!(
            env.builtin("off", true, true, "notifier", None),
            "E76 EPERM",
            "as {}",
            user.name
        );
        assert_eq!(
            env.builtin("workspace-write", true, true, "notifier", None),
            "E76 EPERM",
            "as {}",
            user.name
        );
        // x32 and int 0x80 die with SIGSYS before any rule is looked at.
        for call in ["x32", "int80"] {
            let r = env.builtin("workspace-write", false, true, call, None);
            // The probe is C's child: C exits 128+SIGSYS.
            assert!(
                r.starts_with("exit=Some(159)"),
                "as {}: {call}: {r}",
                user.name
            );
            let r = env.builtin("off", false, true, call, None);
            assert!(
                r.starts_with("exit=None signal=Some(31)"),
                "as {}: {call}: {r}",
                user.name
            );
        }
        // No capabilities, no_new_privs.
        assert_eq!(
            env.builtin("workspace-write", true, true, "caps", None),
            "caps=0x0 nnp=true",
            "as {}",
            user.name
        );
    }
}

#[test]
fn the_returned_pid_is_the_commands_pid_in_wards_namespace() {
    for user in users() {
        let env = Env::new(&user);
        let plan = env.plan("workspace-write", true);
        let mut child = env
            .in_sandbox(&plan, &["--builtin", "pid"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let pid: i32 = line
            .trim()
            .strip_prefix("result: pid=")
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("as {}: {line:?}", user.name));
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let nspid = status.lines().find(|l| l.starts_with("NSpid:")).unwrap();
        assert_eq!(nspid, format!("NSpid:\t{pid}\t2"), "as {}", user.name);
        assert!(line.contains("inner=2"));
        // What the supervisor does, as the same user from outside: take a descriptor of the
        // sandboxed process (its stdin here; the listener in ward)...
        let r = env.builtin("off", false, false, "getfd", Some(&format!("{pid}:0")));
        assert!(r.starts_with("ok("), "as {}: pidfd_getfd: {r}", user.name);
        // ...and open files through its root: the mount layout applies there too.
        let root = format!("/proc/{pid}/root");
        let peek = format!(
            "cat {root}{p}/file >/dev/null && echo project-readable; cat {root}{h}/.ssh/id_ed25519 2>/dev/null || echo key-masked",
            p = env.project.display(),
            h = env.home.display()
        );
        assert_eq!(
            String::from_utf8_lossy(&env.sh_native(&peek).stdout),
            "project-readable\nkey-masked\n",
            "as {}",
            user.name
        );
        child.stdin.take().unwrap().write_all(b"").unwrap();
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn exit_status_and_signals_pass_through() {
    for user in users() {
        let env = Env::new(&user);
        let out = env.sh_in("workspace-write", "exit 7");
        assert_eq!(out.status.code(), Some(7), "as {}", user.name);
        let out = env.sh_in("workspace-write", "kill -KILL $$");
        assert_eq!(out.status.code(), Some(128 + 9), "as {}", user.name);
        // SIGPIPE is back to its default (the probe, a Rust program, ignores it).
        let out = env.sh_in(
            "workspace-write",
            "yes | head -c1 >/dev/null; grep SigIgn /proc/self/status",
        );
        let ign = String::from_utf8_lossy(&out.stdout);
        let mask = u64::from_str_radix(ign.trim().trim_start_matches("SigIgn:").trim(), 16)
            .unwrap_or(u64::MAX);
        assert_eq!(
            mask & (1 << (libc::SIGPIPE - 1)),
            0,
            "as {}: {ign}",
            user.name
        );

        // SIGTERM sent to the monitor reaches the command (through pid 1).
        let plan = env.plan("workspace-write", false);
        let script = "trap 'exit 42' TERM; echo ready; sleep 1000 & wait";
        let mut child = env
            .in_sandbox(&plan, &["--", "/bin/sh", "-c", script])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n");
        // setpriv execs the probe, so the child's pid is the monitor's.
        ward_sandbox::sys::kill(child.id() as i32, libc::SIGTERM).unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(42), "as {}", user.name);
    }
}

#[test]
fn the_helpers_hold_none_of_the_callers_pipes() {
    for user in users() {
        let env = Env::new(&user);
        let plan = env.plan("workspace-write", false);
        // The command closes its stdout and waits: the pipe must reach EOF now, while the
        // monitor and the namespace's init still run.
        let script = "echo hi; exec 1>&-; read line";
        let mut child = env
            .in_sandbox(&plan, &["--", "/bin/sh", "-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
            let _ = tx.send(s);
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(20));
        assert_eq!(
            got.as_deref(),
            Ok("hi\n"),
            "as {}: stdout never reached EOF",
            user.name
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the session ended too early"
        );
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn a_project_under_tmp_is_bound_into_the_private_tmp() {
    for user in users() {
        let env = Env::new_in(&user, "/tmp");
        let other = tempfile::Builder::new()
            .prefix("ward-other-")
            .tempdir_in("/tmp")
            .unwrap();
        let script = format!(
            "echo new > \"$P/new\" && cat \"$P/file\" && ls {} 2>/dev/null || echo other-tmp-hidden",
            other.path().display()
        );
        let out = env.sh_in("workspace-write", &script);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "data\nother-tmp-hidden\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        assert_eq!(
            std::fs::read_to_string(env.project.join("new")).unwrap(),
            "new\n"
        );
    }
}

#[test]
fn a_home_under_tmp_stays_visible_read_only_with_its_secrets_masked() {
    for user in users() {
        // Everything (project, home) under /tmp, as in many CI setups.
        let env = Env::new_in(&user, "/tmp");
        let script = "cat \"$HOME/.bashrc\" && (echo x >> \"$HOME/.bashrc\") 2>/dev/null || echo rc-read-only; \
                      cat \"$HOME/.ssh/id_ed25519\" 2>/dev/null || echo key-masked";
        let out = env.sh_in("workspace-write", script);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "# rc\nrc-read-only\nkey-masked\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
    }
}

#[test]
fn secrets_inside_the_project_are_masked() {
    for user in users() {
        let env = Env::new(&user);
        let dotenv = env.project.join(".env");
        std::fs::write(&dotenv, "API_KEY=secret\n").unwrap();
        std::os::unix::fs::chown(&dotenv, Some(user.uid), Some(user.gid)).unwrap();
        let script = "cat .env 2>/dev/null | grep -q API_KEY && echo read || echo hidden; \
                      echo x > .env 2>/dev/null && echo written || echo refused; \
                      rm -f .env 2>/dev/null && echo removed || echo kept";
        let out = env.sh_in_with("workspace-write", script, std::slice::from_ref(&dotenv));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "hidden\nrefused\nkept\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        assert_eq!(
            std::fs::read_to_string(&dotenv).unwrap(),
            "API_KEY=secret\n"
        );
    }
}

#[test]
fn terminal_input_cannot_be_injected() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: terminal_input_cannot_be_injected needs `script` (bsdutils) for a pty");
        return;
    }
    for user in users() {
        let env = Env::new(&user);
        let probe = probe();
        let plan = env.plan("off", false);
        // Inside a fresh pty (script), TIOCSTI on the controlling terminal: works natively,
        // refused by the wall (the sandbox keeps the user's terminal, so this matters).
        let run = |seal: bool| {
            let inner = format!(
                "{} {} {} --builtin tiocsti",
                probe.display(),
                plan.display(),
                if seal { "" } else { "--no-seal" }
            );
            let out = env
                .command(&["script", "-qec", &inner, "/dev/null"])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).to_string()
        };
        assert!(
            run(false).contains("result: ok(0)"),
            "as {}: {}",
            user.name,
            run(false)
        );
        assert!(
            run(true).contains("result: EPERM"),
            "as {}: {}",
            user.name,
            run(true)
        );
    }
}

#[test]
fn masked_sockets_cannot_be_connected() {
    for user in users() {
        let env = Env::new(&user);
        let sock = env.outside.join("agent.sock");
        let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        std::os::unix::fs::chown(&sock, Some(user.uid), Some(user.gid)).unwrap();
        let path = sock.to_str().unwrap();
        assert_eq!(
            env.builtin("off", false, false, "unix", Some(path)),
            "connected",
            "as {}",
            user.name
        );
        // Not masked: reachable from inside (the supervisor's policy judges it)...
        assert_eq!(
            env.builtin("workspace-write", false, true, "unix", Some(path)),
            "connected",
            "as {}",
            user.name
        );
        // ...masked as a secret: refused by the sandbox itself.
        let plan = env.plan_with("workspace-write", false, std::slice::from_ref(&sock));
        let out = env
            .in_sandbox(&plan, &["--builtin", "unix", path])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "result: error EACCES\n",
            "as {}",
            user.name
        );
        drop(listener);
    }
}

fn processes_running(token: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmd).contains(token) {
                found.push(e.file_name().to_string_lossy().into_owned());
            }
        }
    }
    found
}

#[test]
fn extra_writable_roots_may_be_folders_or_files() {
    for user in users() {
        let env = Env::new(&user);
        let cache = env.home.join(".cache");
        let state = env.home.join(".agent.json");
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(&state, "{}").unwrap();
        chown_tree(&env.home, user.uid, user.gid);
        let plan = env.plan_full(
            "workspace-write",
            false,
            &[],
            &[cache.clone(), state.clone()],
        );
        let script =
            "echo c > \"$HOME/.cache/c\" && echo '{\"a\":1}' > \"$HOME/.agent.json\" && echo ok; \
                      echo x > \"$HOME/.other\" 2>/dev/null || echo home-read-only";
        let out = env
            .in_sandbox(&plan, &["--", "/bin/sh", "-c", script])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "ok\nhome-read-only\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        assert_eq!(std::fs::read_to_string(&state).unwrap(), "{\"a\":1}\n");
        assert!(cache.join("c").exists() && !env.home.join(".other").exists());
    }
}

#[test]
fn git_commit_works_in_a_linked_worktree_and_a_subfolder() {
    for user in users() {
        let env = Env::new(&user);
        let out = env.sh_native("git worktree add -q ../wt && mkdir sub");
        assert!(out.status.success(), "{}", text(&out));
        for project in [env.base.join("wt"), env.project.join("sub")] {
            let plan = serde_json::json!({
                "mode": "workspace-write", "project": project, "home": env.home,
                "protected": ward_sandbox::default_protected(&project, &env.home),
                "secrets": ward_sandbox::default_secrets(&env.home),
                "network": "off", "uid": user.uid, "gid": user.gid, "cwd": project, "supervised": false,
            });
            let plan_path = env.base.join("plan-git.json");
            std::fs::write(&plan_path, plan.to_string()).unwrap();
            std::os::unix::fs::chown(&plan_path, Some(user.uid), Some(user.gid)).unwrap();
            let script = "set -e; echo x > n.txt; git add n.txt; git commit -qm inside; \
                          echo h > \"$(git rev-parse --git-common-dir)/hooks/post-commit\" 2>/dev/null && echo hook-written || echo hook-refused";
            let out = env
                .in_sandbox(&plan_path, &["--", "/bin/sh", "-c", script])
                .current_dir(&project)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "hook-refused\n",
                "as {} in {}:\n{}",
                user.name,
                project.display(),
                text(&out)
            );
            let log = env.sh_native(&format!("git -C {} log -1 --format=%s", project.display()));
            assert_eq!(
                String::from_utf8_lossy(&log.stdout),
                "inside\n",
                "{}",
                text(&log)
            );
        }
    }
}

/// Root inside the sandbox keeps uid 0 (mapped to itself) but no capabilities: the
/// machine-wide knobs a root-owned file would still open are out of reach.
#[test]
fn root_inside_cannot_reach_the_machine() {
    if ward_sandbox::sys::geteuid() != 0 {
        eprintln!("SKIPPED: root_inside_cannot_reach_the_machine runs only as root");
        return;
    }
    let root = users().into_iter().next().unwrap();
    let env = Env::new(&root);
    let disk = ["/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda"]
        .into_iter()
        .find(|d| Path::new(d).exists());
    // `h` only prints the sysrq help to the kernel log: harmless natively.
    let mut script = String::from(
        "t() { name=$1; shift; if ( \"$@\" ) 2>/dev/null; then echo \"ok $name\"; else echo \"fail $name\"; fi; }\n\
         t sysrq sh -c 'echo h > /proc/sysrq-trigger'\n\
         t sysctl sh -c 'cat /proc/sys/kernel/printk > /proc/sys/kernel/printk'\n",
    );
    if let Some(d) = disk {
        script.push_str(&format!("t disk sh -c 'head -c 512 {d} > /dev/null'\n"));
    }
    // Only what works natively here is a meaningful check (this machine may itself be
    // confined: no sysrq-trigger, no raw disk access).
    let native = verdicts(&env.sh_native(&script));
    let applicable: Vec<&str> = native
        .iter()
        .filter_map(|v| v.strip_prefix("ok "))
        .collect();
    for na in native.iter().filter_map(|v| v.strip_prefix("fail ")) {
        eprintln!("not applicable here (fails natively too): {na}");
    }
    assert!(!applicable.is_empty(), "nothing works natively: {native:?}");
    let out = env.sh_in("workspace-write", &script);
    let inside = verdicts(&out);
    for name in applicable {
        assert!(
            inside.contains(&format!("fail {name}")),
            "{name} worked inside:\n{}",
            text(&out)
        );
    }
}

#[test]
fn daemons_do_not_outlive_the_command() {
    for user in users() {
        let env = Env::new(&user);
        // setsid + a double fork: the classic way to outlive a session. The daemon touches a
        // file the command waits for, then runs with a token (its own per run) in its argv.
        let script = |token: &str| {
            let path = env.project.join(token);
            std::fs::write(&path, "").unwrap();
            std::os::unix::fs::chown(&path, Some(user.uid), Some(user.gid)).unwrap();
            format!(
                r#"setsid sh -c 'sh -c "touch \"$P/started-{token}\"; exec tail -f \"$P/{token}\"" &' < /dev/null > /dev/null 2>&1
while [ ! -e "$P/started-{token}" ]; do :; done
echo started"#
            )
        };
        let token_of = |t: &str| env.project.join(t).display().to_string();
        // Natively the daemon survives its command.
        let out = env.sh_native(&script("native-token"));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "started\n");
        let survivors = processes_running(&token_of("native-token"));
        assert!(
            !survivors.is_empty(),
            "as {}: the native daemon should survive",
            user.name
        );
        for pid in survivors {
            let _ = ward_sandbox::sys::kill(pid.parse().unwrap(), libc::SIGKILL);
        }
        // In the sandbox it ends with the command (its pid namespace dies with the init).
        let out = env.sh_in("workspace-write", &script("sandbox-token"));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "started\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        let left = processes_running(&token_of("sandbox-token"));
        assert!(
            left.is_empty(),
            "as {}: daemon still running: {left:?}",
            user.name
        );
    }
}

#[test]
fn ctrl_c_from_the_terminal_reaches_the_command() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED: ctrl_c_from_the_terminal_reaches_the_command needs `script` (bsdutils)"
        );
        return;
    }
    for user in users() {
        let env = Env::new(&user);
        let plan = env.plan("workspace-write", false);
        let probe = probe();
        // In a fresh pty: ^C typed on the terminal reaches the command (same process group,
        // no setsid). That the monitor and init do not forward it a second time is checked
        // by `enter`'s unit test (a shell cannot tell coalesced signals apart).
        let counter = env.base.join("count-ints.sh");
        std::fs::write(
            &counter,
            "n=0\ntrap 'n=$((n+1))' INT\necho ready\nread x\necho ints=$n\nexit 3\n",
        )
        .unwrap();
        std::os::unix::fs::chown(&counter, Some(user.uid), Some(user.gid)).unwrap();
        let inner = format!(
            "exec {} {} -- /bin/sh {}",
            probe.display(),
            plan.display(),
            counter.display()
        );
        let mut child = env
            .command(&["script", "-qec", &inner, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 0 {
                let _ = tx.send(std::mem::take(&mut line));
            }
        });
        let wait_for = |what: &str| loop {
            let line = rx
                .recv_timeout(std::time::Duration::from_secs(20))
                .expect("no output");
            if line.contains(what) {
                return line;
            }
        };
        wait_for("ready");
        stdin.write_all(b"\x03").unwrap();
        stdin.write_all(b"go\n").unwrap();
        let line = wait_for("ints=");
        // The terminal echoes the Ctrl-C as "^C" (ECHOCTL), on this line or the one before,
        // depending on timing: only the count matters.
        assert_eq!(line.trim().trim_start_matches("^C"), "ints=1", "as {}", user.name);
        assert_eq!(child.wait().unwrap().code(), Some(3), "as {}", user.name);
    }
}

#[test]
fn unavailable_namespaces_are_explained_and_landlock_only_still_works() {
    for user in users() {
        let env = Env::new(&user);
        let probe = probe();
        // Inside a user namespace of our own, user.max_user_namespaces = 0 forbids nested ones:
        // the host's setting stays untouched.
        let run = |mode: &str| {
            let plan = env.plan(mode, false);
            let inner = format!(
                "echo 0 > /proc/sys/user/max_user_namespaces && exec {} {} -- /bin/sh -c 'echo x > \"$P/made\" && echo wrote'",
                probe.display(),
                plan.display()
            );
            env.command(&["unshare", "-U", "-r", "/bin/sh", "-c", &inner])
                .output()
                .unwrap()
        };
        let out = run("workspace-write");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(125),
            "as {}:\n{}",
            user.name,
            text(&out)
        );
        assert!(
            err.contains("user.max_user_namespaces=15000")
                && err.contains("--sandbox landlock-only"),
            "{err}"
        );
        let out = run("landlock-only");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "wrote\n",
            "as {}:\n{}",
            user.name,
            text(&out)
        );
    }
}

#[test]
fn check_reports_what_this_machine_supports() {
    let r = ward_sandbox::check();
    eprintln!("{}", r.to_text());
    assert!(r.seccomp_user_notif.available, "{:?}", r.seccomp_user_notif);
    if ward_sandbox::sys::geteuid() == 0 {
        assert!(r.user_namespaces.available, "{:?}", r.user_namespaces);
        assert_eq!(r.default_mode, ward_sandbox::SandboxMode::WorkspaceWrite);
    }
}
