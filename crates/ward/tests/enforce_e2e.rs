//! End-to-end acceptance of the policy issue (issue 4), through the real `ward exec` binary:
//! credentials and other processes' environments are unreadable in enforce mode (with the
//! default sandbox and with `--sandbox off`, so the policy and not only the sandbox's mask is
//! shown to stop them), ordinary development work is never denied or held, shell strings are
//! judged command by command, and reviews hold only the calling thread, time out, and
//! remember "always".
//!
//! Every claim that ward stops something first shows the same thing working without ward.
//! Every test runs as the current user and, when that is root, as the unprivileged
//! `wardtest` user (see fixtures/e2e/common.rs).

#[path = "fixtures/e2e/common.rs"]
mod common;

use common::*;

/// The three credential files of the acceptance, each with its own marker.
fn plant_secrets(env: &Env) -> Vec<(PathBuf, &'static str)> {
    let files = vec![
        (env.home.join(".ssh/id_rsa"), "SSHKEY-MARK-5c1e"),
        (env.home.join(".npmrc"), "NPMTOKEN-MARK-77ab"),
        (env.home.join(".aws/credentials"), "AWSSECRET-MARK-0f3d"),
    ];
    for (p, m) in &files {
        env.write(p, &format!("{m}\n"));
    }
    files
}

use std::path::PathBuf;

fn secrets_denied(sandbox: &str) {
    for user in users() {
        let env = Env::new(&user);
        let files = plant_secrets(&env);
        for (path, marker) in &files {
            let p = path.to_str().unwrap();
            let native = env.command(&["cat", p]).output().unwrap();
            assert!(
                String::from_utf8_lossy(&native.stdout).contains(marker),
                "[{}] natively `cat {p}` should print the marker: {native:?}",
                user.name
            );
            let run = env.ward(&["--mode", "enforce", "--sandbox", sandbox], &["cat", p]);
            assert!(
                !run.stdout().contains(marker) && !run.stderr().contains(marker),
                "[{}] sandbox {sandbox}: the secret {p} leaked:\n{}",
                user.name,
                run.dump()
            );
            assert_ne!(
                run.code(),
                0,
                "[{}] sandbox {sandbox}: cat {p} should fail:\n{}",
                user.name,
                run.dump()
            );
            let denial = run.denied().into_iter().find(|e| mentions(e, p));
            let denial = denial.unwrap_or_else(|| {
                panic!(
                    "[{}] sandbox {sandbox}: no deny event naming {p}:\n{}",
                    user.name,
                    run.dump()
                )
            });
            assert!(
                filters_text(denial).contains("sensitive-path"),
                "[{}] sandbox {sandbox}: the deny event for {p} should name the filter: {denial}",
                user.name
            );
        }
    }
}

#[test]
fn credentials_are_unreadable_in_enforce_mode_with_the_default_sandbox() {
    secrets_denied("workspace-write");
}

#[test]
fn credentials_are_unreadable_in_enforce_mode_by_policy_alone() {
    secrets_denied("off");
}

fn other_environ_denied(sandbox: &str) {
    for user in users() {
        let env = Env::new(&user);
        let marker = "ENVIRON-MARK-91c2";
        let sibling =
            Reaper(env.spawn_native(&["/bin/sleep", "60"], &[("SIBLING_SECRET", marker)]));
        let pid = pid_of(&sibling.0);
        let path = format!("/proc/{pid}/environ");
        assert!(
            wait_for(5, || std::fs::read(&path)
                .map(|b| String::from_utf8_lossy(&b).contains(marker))
                .unwrap_or(false)),
            "the sibling did not start with its marker"
        );
        let native = env.command(&["cat", &path]).output().unwrap();
        assert!(
            String::from_utf8_lossy(&native.stdout).contains(marker),
            "[{}] natively `cat {path}` should print the sibling's environment: {native:?}",
            user.name
        );
        let run = env.ward(
            &["--mode", "enforce", "--sandbox", sandbox],
            &["cat", &path],
        );
        assert!(
            !run.stdout().contains(marker),
            "[{}] sandbox {sandbox}: {path} leaked:\n{}",
            user.name,
            run.dump()
        );
        assert_ne!(
            run.code(),
            0,
            "[{}] sandbox {sandbox}: cat {path} should fail:\n{}",
            user.name,
            run.dump()
        );
        let denial = run
            .denied()
            .into_iter()
            .find(|e| mentions(e, &path))
            .cloned();
        let denial = denial.unwrap_or_else(|| {
            panic!(
                "[{}] sandbox {sandbox}: no deny event naming {path}:\n{}",
                user.name,
                run.dump()
            )
        });
        assert!(
            !filters_text(&denial).is_empty(),
            "[{}] sandbox {sandbox}: the deny event should name the filter: {denial}",
            user.name
        );
    }
}

#[test]
fn another_process_environment_is_unreadable_with_the_default_sandbox() {
    other_environ_denied("workspace-write");
}

#[test]
fn another_process_environment_is_unreadable_by_policy_alone() {
    other_environ_denied("off");
}

#[test]
fn ordinary_development_work_is_never_denied_or_held_without_sandbox() {
    corpus("off");
}

#[test]
fn ordinary_development_work_is_never_denied_or_held_in_the_default_sandbox() {
    corpus("workspace-write");
}

#[test]
fn a_shell_string_is_judged_command_by_command() {
    for user in users() {
        let env = Env::new(&user);
        let files = plant_secrets(&env);
        let (key, marker) = (&files[0].0, files[0].1);
        let script = format!("true && cat {}", key.display());
        let native = env.command(&["sh", "-c", &script]).output().unwrap();
        assert!(
            String::from_utf8_lossy(&native.stdout).contains(marker),
            "[{}] natively the key prints",
            user.name
        );

        // Enforce: stopped at the exec of `sh`, the event naming the simple command.
        let run = env.ward(&["--mode", "enforce"], &["sh", "-c", &script]);
        assert!(
            !run.stdout().contains(marker),
            "[{}] the key leaked:\n{}",
            user.name,
            run.dump()
        );
        assert_ne!(
            run.code(),
            0,
            "[{}] should fail:\n{}",
            user.name,
            run.dump()
        );
        let at_sh = |run: &Run, want_action: Option<&str>| {
            run.events
                .iter()
                .find(|e| {
                    e["kind"] == "proc.exec"
                        && e["argv"][0] == "sh"
                        && e["verdict"] == "deny"
                        && want_action.is_none_or(|a| e["action"] == a)
                        && filters_text(e).contains("cat")
                        && filters_text(e).contains("id_rsa")
                })
                .cloned()
        };
        assert!(
            at_sh(&run, Some("deny")).is_some(),
            "[{}] no deny on the exec of sh whose filters name `cat …id_rsa`:\n{}",
            user.name,
            run.dump()
        );

        // Audit: the same string goes on, and the exec of `cat` (or the open of the key) is
        // judged on its own too.
        let run = env.ward(
            &["--mode", "audit", "--sandbox", "off"],
            &["sh", "-c", &script],
        );
        assert!(
            at_sh(&run, None).is_some(),
            "[{}] audit: no deny verdict at the sh exec:\n{}",
            user.name,
            run.dump()
        );
        let at_cat = run.events.iter().find(|e| {
            e["verdict"] == "deny"
                && ((e["kind"] == "proc.exec" && e["argv"][0] == "cat")
                    || (e["kind"] == "file.read" && mentions(e, "id_rsa")))
        });
        assert!(
            at_cat.is_some(),
            "[{}] audit: no deny verdict at the exec of cat / open of the key:\n{}",
            user.name,
            run.dump()
        );
    }
}

/// A user config whose rule sends reads of `$PROJECT/held.txt` to review.
fn review_config(env: &Env) {
    env.write(
        &env.user_config(),
        r#"
[[rules.path]]
path = "$PROJECT/held.txt"
access = "read"
action = "review"
reason = "e2e: a read a person must approve"
"#,
    );
    env.write(&env.project.join("held.txt"), "HELD-CONTENT\n");
    std::fs::copy(fixture("held.py"), env.base.join("held.py")).unwrap();
    env.chown();
}

/// The event of the held read of `held.txt` that went to review.
fn review_event<'a>(run: &'a Run, user: &str) -> &'a serde_json::Value {
    run.events
        .iter()
        .find(|e| mentions(e, "held.txt") && e["verdict"] == "review")
        .unwrap_or_else(|| panic!("[{user}] no review event:\n{}", run.dump()))
}

fn held_line(out: &str) -> Option<(String, f64, u64)> {
    let l = out.lines().find(|l| l.starts_with("HELD "))?;
    let field = |k: &str| {
        l.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .map(|s| s.to_string())
    };
    let result = l
        .split("result=")
        .nth(1)?
        .split(" took=")
        .next()?
        .to_string();
    Some((
        result,
        field("took=")?.parse().ok()?,
        field("ticks=")?.parse().ok()?,
    ))
}

/// The command whose read of `held.txt` goes to review: `python3 held.py held.txt`.
fn held_command(env: &Env) -> Vec<String> {
    let held = env.base.join("held.py");
    let target = env.project.join("held.txt");
    vec!["/usr/bin/python3".into(), held.display().to_string(), target.display().to_string()]
}

/// Runs held.py under ward with no terminal (the headless action applies); returns its HELD
/// line's result and time, and the run.
fn held_headless(env: &Env, user: &str) -> (String, f64, Run) {
    let cmd = held_command(env);
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let run = env.ward(&["--mode", "enforce", "--review-timeout", "2"], &cmd);
    let (result, took, _) =
        held_line(&run.stdout()).unwrap_or_else(|| panic!("[{user}] no HELD line:\n{}", run.dump()));
    (result, took, run)
}

/// Runs held.py under ward in a real pty (pty_drive.py), answering `keys` when the question
/// shows (empty: never answer). Runs the driver as the test user so the pty is theirs.
fn held_in_pty(env: &Env, keys: &str, extra: &[&str]) -> (String, Run) {
    let mut opts = vec!["--mode", "enforce", "--review-timeout", "2"];
    opts.extend_from_slice(extra);
    let held = held_command(env);
    let held: Vec<&str> = held.iter().map(String::as_str).collect();
    let (argv, events) = env.ward_argv(&opts, &held);
    let driver = env.base.join("pty_drive.py");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pty_drive.py"),
        &driver,
    )
    .unwrap();
    env.chown();
    let marker = if keys.is_empty() {
        "never-shown-marker"
    } else {
        "ward: review"
    };
    let mut cmd = vec![
        "/usr/bin/python3",
        driver.to_str().unwrap(),
        marker,
        keys,
        "--",
    ];
    cmd.extend(argv.iter().map(|s| s.as_str()));
    let out = env.command(&cmd).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout).into_owned();
    (
        screen,
        Run {
            events: read_events(&events),
            out,
            events_path: events,
        },
    )
}

#[test]
fn review_holds_only_the_calling_thread_and_times_out_to_deny() {
    for user in users() {
        let env = Env::new(&user);
        review_config(&env);
        let held = held_command(&env);
        let held: Vec<&str> = held.iter().map(String::as_str).collect();
        let native = env.command(&held).output().unwrap();
        assert!(
            String::from_utf8_lossy(&native.stdout).contains("result=ok HELD-CONTENT"),
            "[{}] natively: {native:?}",
            user.name
        );

        let (screen, run) = held_in_pty(&env, "", &[]);
        let (result, took, ticks) = held_line(&screen)
            .unwrap_or_else(|| panic!("[{}] no HELD line:\n{screen}\n{}", user.name, run.dump()));
        assert!(
            screen.contains("ward: review"),
            "[{}] the question was not shown on the terminal:\n{screen}",
            user.name
        );
        assert!(
            result.starts_with("err"),
            "[{}] the timed-out read should fail: {result}\n{screen}",
            user.name
        );
        assert!(
            (1.5..10.0).contains(&took),
            "[{}] the read should wait ~2 s (the timeout), took {took}\n{screen}",
            user.name
        );
        assert!(ticks >= 50, "[{}] the other thread should keep working while the read waits: {ticks} ticks in {took} s", user.name);
        let ev = review_event(&run, &user.name);
        assert_eq!(ev["action"], "deny", "[{}] {ev}", user.name);
        assert_eq!(ev["by"], "timeout", "[{}] {ev}", user.name);
    }
}

#[test]
fn without_a_terminal_the_headless_action_denies() {
    for user in users() {
        let env = Env::new(&user);
        review_config(&env);
        let (result, took, run) = held_headless(&env, &user.name);
        assert!(
            result.starts_with("err"),
            "[{}] headless: the read should be denied: {result}",
            user.name
        );
        assert!(
            took < 1.5,
            "[{}] headless: no one to wait for, took {took}",
            user.name
        );
        let ev = review_event(&run, &user.name);
        assert_eq!(ev["action"], "deny", "[{}] {ev}", user.name);
        assert_eq!(ev["by"], "headless", "[{}] {ev}", user.name);
    }
}

#[test]
fn an_always_answer_persists_and_applies_in_the_next_session() {
    for user in users() {
        let env = Env::new(&user);
        review_config(&env);
        let before = std::fs::read_to_string(env.user_config()).unwrap();
        let (screen, run) = held_in_pty(&env, "a", &[]);
        let (result, _, _) = held_line(&screen)
            .unwrap_or_else(|| panic!("[{}] no HELD line:\n{screen}\n{}", user.name, run.dump()));
        assert_eq!(
            result,
            "ok HELD-CONTENT",
            "[{}] 'a' should allow the read:\n{screen}\n{}",
            user.name,
            run.dump()
        );
        let after = std::fs::read_to_string(env.user_config()).unwrap();
        assert!(
            after.len() > before.len() && after.contains("held.txt"),
            "[{}] the always answer was not written to the user config:\n{after}",
            user.name
        );
        // The next session, headless: allowed without a question.
        let (result, _, run) = held_headless(&env, &user.name);
        assert_eq!(
            result,
            "ok HELD-CONTENT",
            "[{}] the approval should apply in the next session:\n{}",
            user.name,
            run.dump()
        );
        assert!(
            run.denied_or_held()
                .iter()
                .all(|e| !mentions(e, "held.txt")),
            "[{}] still held:\n{}",
            user.name,
            run.dump()
        );
    }
}

#[test]
fn cargo_build_is_never_denied_or_held() {
    corpus_with("off", true);
    corpus_with("workspace-write", true);
}

#[test]
fn writing_to_dev_stdout_in_a_pipeline_is_allowed() {
    for user in users() {
        let env = Env::new(&user);
        let script = "echo via-dev-stdout > /dev/stdout | cat; echo via-fd > /proc/self/fd/1 | cat";
        let native = env.sh_native(script);
        assert!(
            String::from_utf8_lossy(&native.stdout).contains("via-fd"),
            "natively: {native:?}"
        );
        for sandbox in ["off", "workspace-write"] {
            let run = env.ward_sh(&["--mode", "enforce", "--sandbox", sandbox], script);
            assert!(
                run.stdout().contains("via-dev-stdout") && run.stdout().contains("via-fd"),
                "[{}] sandbox {sandbox}:\n{}",
                user.name,
                run.dump()
            );
            assert!(
                run.denied_or_held().is_empty(),
                "[{}] sandbox {sandbox}:\n{}",
                user.name,
                run.dump()
            );
        }
    }
}
