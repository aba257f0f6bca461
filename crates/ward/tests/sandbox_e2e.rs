//! End-to-end acceptance of the sandbox issue (issue 6), through the real `ward exec`
//! binary with `--sandbox workspace-write`: writes outside the project and to protected paths
//! fail, planted git metadata is removed after the command that planted it, processes and
//! loopback services outside the sandbox are out of reach, the legitimate corpus passes and
//! leaves `git status` clean, and the DNS allow-list lets through exactly the addresses an
//! allowed name resolved to.
//!
//! Every claim that ward stops something first shows the same thing working without ward.
//! Every test runs as the current user and, when that is root, as the unprivileged
//! `wardtest` user (see fixtures/e2e/common.rs).

#[path = "fixtures/e2e/common.rs"]
mod common;

use common::*;
use std::io::BufRead;
use std::process::Stdio;

const WW: [&str; 4] = ["--mode", "enforce", "--sandbox", "workspace-write"];

/// An event recording that an attempt on `needle` was stopped (denied by the policy, or
/// failed against the sandbox's walls).
fn recorded_stop(run: &Run, needle: &str) -> bool {
    run.events
        .iter()
        .any(|e| mentions(e, needle) && (e["action"] == "deny" || e["ok"] == false))
}

fn prepare_writes(env: &Env) {
    env.git_project();
    env.write(&env.home.join(".bashrc"), "# rc\n");
    env.write(
        &env.home.join(".ssh/authorized_keys"),
        "ssh-ed25519 AAAA user\n",
    );
    std::os::unix::fs::symlink(&env.outside, env.project.join("link")).unwrap();
    env.write(&env.project.join("moveme"), "move me\n");
    env.chown();
}

/// Each attempt: a label, the shell snippet, and the path its event names.
fn write_attempts(env: &Env, mark: &str) -> Vec<(&'static str, String, String)> {
    let h = env.home.display();
    let o = env.outside.display();
    vec![
        (
            "bashrc",
            format!("echo {mark} >> {h}/.bashrc"),
            format!("{h}/.bashrc"),
        ),
        (
            "authorized_keys",
            format!("echo {mark} >> {h}/.ssh/authorized_keys"),
            format!("{h}/.ssh/authorized_keys"),
        ),
        (
            "outside",
            format!("echo {mark} > {o}/new-{mark}"),
            format!("{o}/new-{mark}"),
        ),
        (
            "symlink",
            format!("echo {mark} > link/via-{mark}"),
            format!("{o}/via-{mark}"),
        ),
        (
            "rename",
            format!("mv moveme {o}/moved-{mark}"),
            format!("{o}/moved-{mark}"),
        ),
    ]
}

#[test]
fn writes_outside_the_project_fail_and_are_recorded() {
    for user in users() {
        let env = Env::new(&user);
        prepare_writes(&env);
        // Natively every attempt works.
        for (label, script, _) in write_attempts(&env, "NATIVE") {
            let out = env.sh_native(&script);
            assert!(
                out.status.success(),
                "[{}] natively {label} should work: {out:?}",
                user.name
            );
        }
        env.write(&env.project.join("moveme"), "move me\n");
        let mark = "WARDMARK";
        for (label, script, path) in write_attempts(&env, mark) {
            let run = env.ward_sh(&WW, &script);
            assert_ne!(
                run.code(),
                0,
                "[{}] {label} should fail in the sandbox:\n{}",
                user.name,
                run.dump()
            );
            assert!(
                recorded_stop(&run, &path),
                "[{}] {label}: no event records the stop on {path}:\n{}",
                user.name,
                run.dump()
            );
        }
        let bashrc = std::fs::read_to_string(env.home.join(".bashrc")).unwrap();
        let keys = std::fs::read_to_string(env.home.join(".ssh/authorized_keys")).unwrap();
        assert!(
            !bashrc.contains(mark) && !keys.contains(mark),
            "[{}] a home file was written",
            user.name
        );
        let outside: Vec<String> = std::fs::read_dir(&env.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            outside.iter().all(|n| !n.contains(mark)),
            "[{}] written outside: {outside:?}",
            user.name
        );
        assert!(
            env.project.join("moveme").exists(),
            "[{}] the renamed file left the project",
            user.name
        );
    }
}

#[test]
fn git_hooks_and_config_cannot_be_planted() {
    for user in users() {
        let env = Env::new(&user);
        env.git_project();
        let hook = "printf '#!/bin/sh\\necho HOOKRAN\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit";
        let fsmon = "printf '[core]\\n\\tfsmonitor = echo FSMON\\n' >> .git/config";
        // Natively both plant (in a copy of the repository, so the real one stays clean).
        let copy = env.base.join("native-copy");
        let out = env.sh_native(&format!(
            "cp -a . {c} && cd {c} && {hook} && {fsmon} && git config core.fsmonitor",
            c = copy.display()
        ));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("FSMON"),
            "[{}] natively both plant: {out:?}",
            user.name
        );

        let run = env.ward_sh(&WW, hook);
        assert_ne!(
            run.code(),
            0,
            "[{}] planting a hook should fail:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            !env.project.join(".git/hooks/pre-commit").exists(),
            "[{}] the hook was planted",
            user.name
        );
        assert!(
            recorded_stop(&run, ".git/hooks/pre-commit"),
            "[{}] the hook attempt is not recorded:\n{}",
            user.name,
            run.dump()
        );

        let run = env.ward_sh(&WW, fsmon);
        assert_ne!(
            run.code(),
            0,
            "[{}] changing .git/config should fail:\n{}",
            user.name,
            run.dump()
        );
        let config = std::fs::read_to_string(env.project.join(".git/config")).unwrap();
        assert!(
            !config.contains("fsmonitor"),
            "[{}] core.fsmonitor was planted:\n{config}",
            user.name
        );
        assert!(
            recorded_stop(&run, ".git/config"),
            "[{}] the config attempt is not recorded:\n{}",
            user.name,
            run.dump()
        );
    }
}

#[test]
fn a_planted_bare_repository_is_gone_after_the_command() {
    for user in users() {
        let env = Env::new(&user);
        env.git_project();
        let plant = "mkdir -p sub/objects sub/refs/heads && echo 'ref: refs/heads/main' > sub/HEAD && \
                     printf '[core]\\n\\tbare = true\\n\\tfsmonitor = echo FSMON-PLANTED\\n' > sub/config";
        let plant_sh = env.base.join("plant.sh");
        std::fs::write(&plant_sh, plant).unwrap();
        env.chown();
        // Natively the planted folder is a repository to git.
        let copy = env.base.join("native");
        std::fs::create_dir_all(&copy).unwrap();
        env.chown();
        let out = env.sh_native(&format!(
            "cd {} && sh {} && cd sub && git rev-parse --is-bare-repository",
            copy.display(),
            plant_sh.display()
        ));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("true"),
            "[{}] natively a bare repository: {out:?}",
            user.name
        );

        let run = env.ward_sh(
            &WW,
            &format!("sh {}; ls sub; echo AFTER", plant_sh.display()),
        );
        assert!(
            run.stdout().contains("AFTER"),
            "[{}]\n{}",
            user.name,
            run.dump()
        );
        assert!(
            !env.project.join("sub/HEAD").exists(),
            "[{}] the fake repository is still there:\n{}",
            user.name,
            run.dump()
        );
        let cleanup = run
            .events
            .iter()
            .find(|e| e["kind"] == "git.cleanup" && mentions(e, "sub"));
        assert!(
            cleanup.is_some(),
            "[{}] no git.cleanup event names the removed repository:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            env.git_status().trim().is_empty(),
            "[{}] git status: {}",
            user.name,
            env.git_status()
        );
    }
}

#[test]
fn processes_outside_the_sandbox_cannot_be_signalled_or_read() {
    for user in users() {
        let env = Env::new(&user);
        let marker = "OUTSIDE-ENV-MARK-4b7e";
        let a = Reaper(env.spawn_native(&["/bin/sleep", "60"], &[("OUTSIDE_SECRET", marker)]));
        let b = Reaper(env.spawn_native(&["/bin/sleep", "60"], &[]));
        let (pa, pb) = (pid_of(&a.0), pid_of(&b.0));
        assert!(wait_for(5, || std::fs::read(format!("/proc/{pa}/environ"))
            .is_ok_and(|e| String::from_utf8_lossy(&e).contains(marker))));
        // Natively: readable, and signal 0 reaches it.
        let out = env.sh_native(&format!(
            "cat /proc/{pa}/environ; kill -0 {pb} && echo SIGNALLED"
        ));
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(
            s.contains(marker) && s.contains("SIGNALLED"),
            "[{}] natively: {out:?}",
            user.name
        );

        let run = env.ward_sh(&WW, &format!("/bin/kill -TERM {pb}; echo KILLRC=$?"));
        assert!(
            run.stdout().contains("KILLRC=") && !run.stdout().contains("KILLRC=0"),
            "[{}] kill should fail:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            std::fs::metadata(format!("/proc/{pb}")).is_ok(),
            "[{}] the outside process was killed",
            user.name
        );
        assert!(
            run.events
                .iter()
                .any(|e| e["kind"] == "proc.signal" && e["target_pid"] == pb),
            "[{}] the signal attempt is not recorded:\n{}",
            user.name,
            run.dump()
        );

        let path = format!("/proc/{pa}/environ");
        let run = env.ward(&WW, &["cat", &path]);
        assert!(
            !run.stdout().contains(marker),
            "[{}] environ leaked:\n{}",
            user.name,
            run.dump()
        );
        assert_ne!(run.code(), 0);
        assert!(
            recorded_stop(&run, &path),
            "[{}] the read is not recorded:\n{}",
            user.name,
            run.dump()
        );
    }
}

#[test]
fn a_loopback_service_outside_the_namespace_is_unreachable() {
    for user in users() {
        let env = Env::new(&user);
        std::fs::copy(fixture("listen.py"), env.base.join("listen.py")).unwrap();
        env.chown();
        let mut l = env.command(&[
            "/usr/bin/python3",
            env.base.join("listen.py").to_str().unwrap(),
            "127.0.0.1",
        ]);
        let mut child = l.stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let _l = Reaper(child);
        let port = line.trim().to_string();
        let probe = format!(
            "import socket,sys\ntry:\n  socket.create_connection(('127.0.0.1',{port}),timeout=3); print('CONNECTED')\nexcept OSError as e:\n  print('REFUSED', e); sys.exit(1)\n"
        );
        let out = env
            .command(&["/usr/bin/python3", "-c", &probe])
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("CONNECTED"),
            "[{}] natively: {out:?}",
            user.name
        );
        let run = env.ward(&WW, &["/usr/bin/python3", "-c", &probe]);
        assert!(
            !run.stdout().contains("CONNECTED") && run.code() != 0,
            "[{}] connected from the sandbox:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            run.events.iter().any(|e| e["kind"] == "net.connect"
                && mentions(e, &port)
                && (e["action"] == "deny" || e["ok"] == false)),
            "[{}] the connect is not recorded:\n{}",
            user.name,
            run.dump()
        );
    }
}

#[test]
fn the_legitimate_corpus_passes_in_the_sandbox_and_leaves_git_clean() {
    // The corpus of the policy issue, under workspace-write (git commit included; git status
    // clean afterwards): shared with enforce_e2e.rs.
    corpus("workspace-write");
}

#[test]
fn dns_allow_list_admits_only_addresses_an_allowed_name_resolved_to() {
    for user in users() {
        let env = Env::new(&user);
        for f in ["dns_server.py", "dns_client.py", "listen.py"] {
            std::fs::copy(fixture(f), env.base.join(f)).unwrap();
        }

        let spawn_port = |script: &str, args: &[&str]| {
            let mut argv = vec!["/usr/bin/python3", script];
            argv.extend_from_slice(args);
            let mut child = env.command(&argv).stdout(Stdio::piped()).spawn().unwrap();
            let mut line = String::new();
            std::io::BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut line)
                .unwrap();
            (Reaper(child), line.trim().to_string())
        };
        let dns_py = env.base.join("dns_server.py");
        let listen_py = env.base.join("listen.py");
        let (_dns, dns_port) = spawn_port(dns_py.to_str().unwrap(), &[]);
        // The allow-list admits an allowed name on 443/80 (another port scores 50: review):
        // root starts the listener on 443 (any user may connect to it); otherwise a free port
        // named in the allow entry.
        let root_test = my_uid() == 0;
        let (_lis, port) = if root_test {
            let mut c = std::process::Command::new("/usr/bin/python3");
            c.args([
                listen_py.to_str().unwrap(),
                "--port",
                "443",
                "127.0.0.2",
                "127.0.0.3",
            ])
            .stdout(Stdio::piped())
            .stdin(Stdio::null());
            let mut child = c.spawn().unwrap();
            let mut line = String::new();
            std::io::BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut line)
                .unwrap();
            (Reaper(child), line.trim().to_string())
        } else {
            spawn_port(listen_py.to_str().unwrap(), &["127.0.0.2", "127.0.0.3"])
        };
        assert!(!port.is_empty(), "the listener did not start");
        let allow = if root_test {
            "example.test".to_string()
        } else {
            format!("example.test:{port}")
        };
        env.write(
            &env.user_config(),
            &format!("[network]\nallow = [\"{allow}\"]\n"),
        );
        let client = env.base.join("dns_client.py");
        let argv = [
            "/usr/bin/python3",
            client.to_str().unwrap(),
            &dns_port,
            "example.test",
            &port,
            "127.0.0.3",
        ];
        let native = env.command(&argv).output().unwrap();
        let n = String::from_utf8_lossy(&native.stdout);
        assert!(
            n.contains("ANSWER 127.0.0.2")
                && n.contains("CONNECT 127.0.0.2 ok")
                && n.contains("CONNECT 127.0.0.3 ok"),
            "[{}] natively both connect: {native:?}",
            user.name
        );
        let run = env.ward(&WW, &argv);
        let s = run.stdout();
        assert!(
            s.contains("ANSWER 127.0.0.2"),
            "[{}] the DNS answer should reach the tree:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            s.contains("CONNECT 127.0.0.2 ok"),
            "[{}] the allowed name's address should connect:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            s.contains("CONNECT 127.0.0.3 err"),
            "[{}] another address should fail:\n{}",
            user.name,
            run.dump()
        );
        let denied = run
            .denied()
            .into_iter()
            .find(|e| e["kind"] == "net.connect" && mentions(e, "127.0.0.3"))
            .cloned();
        let denied = denied.unwrap_or_else(|| {
            panic!(
                "[{}] no deny event for 127.0.0.3:\n{}",
                user.name,
                run.dump()
            )
        });
        assert!(
            filters_text(&denied).contains("egress"),
            "[{}] the denial should name egress: {denied}",
            user.name
        );
    }
}

fn my_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").unwrap().uid()
}

#[test]
fn a_failed_signal_to_an_outside_process_is_recorded_as_failed() {
    for user in users() {
        let env = Env::new(&user);
        let b = Reaper(env.spawn_native(&["/bin/sleep", "60"], &[]));
        let pb = pid_of(&b.0);
        let run = env.ward_sh(&WW, &format!("/bin/kill -TERM {pb}; echo KILLRC=$?"));
        assert!(
            !run.stdout().contains("KILLRC=0"),
            "[{}] kill should fail:\n{}",
            user.name,
            run.dump()
        );
        let ev = run
            .events
            .iter()
            .find(|e| e["kind"] == "proc.signal" && e["target_pid"] == pb);
        let ev =
            ev.unwrap_or_else(|| panic!("[{}] no proc.signal event:\n{}", user.name, run.dump()));
        assert!(
            ev["action"] == "deny" || ev["ok"] == false,
            "[{}] the failed signal is recorded as a success: {ev}",
            user.name
        );
    }
}

/// Every path under `dir` (relative), sorted.
fn tree(dir: &std::path::Path) -> Vec<String> {
    fn walk(base: &std::path::Path, d: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(base).unwrap().display().to_string());
            if p.is_dir() && !p.is_symlink() {
                walk(base, &p, out);
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, dir, &mut v);
    v.sort();
    v
}

#[test]
fn a_sandboxed_session_leaves_nothing_behind_in_the_project_or_home() {
    for user in users() {
        let env = Env::new(&user);
        env.git_project();
        for (p, c) in [
            (".ssh/id_rsa", "KEY\n"),
            (".npmrc", "TOKEN\n"),
            (".bashrc", "# rc\n"),
            (".aws/credentials", "AWS\n"),
        ] {
            env.write(&env.home.join(p), c);
        }
        std::fs::create_dir_all(env.project.join(".vscode")).unwrap();
        env.write(&env.project.join(".vscode/settings.json"), "{}\n");
        env.git("add .vscode && git commit -qm vscode");
        let (home_before, project_before) = (tree(&env.home), tree(&env.project));
        let run = env.ward_sh(&WW, "ls -a ~ ~/.ssh >/dev/null 2>&1; cat file; git status --porcelain; git log --oneline >/dev/null; echo DONE");
        assert!(
            run.stdout().contains("DONE"),
            "[{}]\n{}",
            user.name,
            run.dump()
        );
        let (home_after, project_after) = (tree(&env.home), tree(&env.project));
        assert_eq!(
            home_before, home_after,
            "[{}] the home directory changed",
            user.name
        );
        // git may refresh its index; nothing else may appear.
        let new: Vec<&String> = project_after
            .iter()
            .filter(|p| !project_before.contains(p))
            .collect();
        assert!(
            new.is_empty(),
            "[{}] left in the project: {new:?}",
            user.name
        );
        assert!(
            env.git_status().trim().is_empty(),
            "[{}] git status: {}",
            user.name,
            env.git_status()
        );
    }
}
