//! Configuration: layers and origins, trust of `.ward.toml`, environment and flags, and
//! errors that name file, line and key.

mod common;

use common::*;
use std::path::Path;
use std::time::Duration;
use ward_event::Verdict;
use ward_policy::{load, ConfigError, Mode, NetworkMode, Origin, SandboxMode};

fn err_of(dir: &Path, user_text: &str) -> (ConfigError, String) {
    let req = request(Some("generic"), dir);
    write_file(&req.user_config, user_text);
    let e = load(&req).expect_err("must not load");
    let msg = e.to_string();
    (e, msg)
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let (e, msg) = err_of(dir.path(), "mode = \"audit\"\n\n[sandbox]\nmode = \"off\"\nwritable_dirs = [\"/x\"]\n");
    match e {
        ConfigError::Invalid { file, line, key, .. } => {
            assert!(file.ends_with("ward/config.toml"), "{file}");
            assert_eq!(line, 5);
            assert_eq!(key, "sandbox.writable_dirs");
        }
        other => panic!("{other:?}"),
    }
    assert!(msg.contains("config.toml:5:"), "{msg}");
    assert!(msg.contains("unknown field `writable_dirs`"), "{msg}");
}

#[test]
fn bad_value_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let (e, msg) = err_of(dir.path(), "# comment\nmode = \"enforcing\"\n");
    match &e {
        ConfigError::Invalid { line, key, message, .. } => {
            assert_eq!(*line, 2);
            assert_eq!(key, "mode");
            assert!(message.contains("enforcing"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(msg.contains("config.toml:2:") && msg.contains("mode"), "{msg}");

    let (e, _) = err_of(dir.path(), "[network]\nallow = [\"api.example.com\", \"bad host!\"]\n");
    assert!(matches!(&e, ConfigError::Invalid { line: 2, key, .. } if key == "network.allow"), "{e}");

    let (e, _) = err_of(dir.path(), "review_timeout = \"soon\"\n");
    assert!(matches!(&e, ConfigError::Invalid { line: 1, key, .. } if key == "review_timeout"), "{e}");

    let (e, _) = err_of(dir.path(), "\n[[rules.path]]\npath = \"~/a/[b\"\naction = \"deny\"\nreason = \"x\"\n");
    assert!(matches!(&e, ConfigError::Invalid { line: 3, key, .. } if key == "rules.path.path"), "{e}");

    let (e, _) = err_of(dir.path(), "[thresholds]\nreview = 200\ndeny = 100\n");
    assert!(matches!(&e, ConfigError::Invalid { key, .. } if key.starts_with("thresholds")), "{e}");

    let (e, _) = err_of(dir.path(), "[[rules.command]]\nprefix = [\"git\"]\naction = \"maybe\"\nreason = \"x\"\n");
    assert!(matches!(&e, ConfigError::Invalid { line: 3, key, .. } if key == "rules.command.action"), "{e}");
}

#[test]
fn bad_toml_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (e, msg) = err_of(dir.path(), "mode = \"audit\"\n[sandbox\nmode = \"off\"\n");
    assert!(matches!(e, ConfigError::Invalid { line: 2, .. }), "{msg}");
    assert!(msg.contains("config.toml:2:"), "{msg}");
}

#[test]
fn layers_merge_with_origins() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(None, dir.path());
    write_file(&req.system_config, "mode = \"audit\"\nreview_timeout = 30\n[network]\nallow = [\"pypi.org\"]\n");
    write_file(&req.user_config, "review_timeout = \"2m\"\nheadless = \"allow\"\n");
    let r = load(&req).unwrap();
    assert_eq!(r.profile, "generic");
    assert!(!r.profile_auto_picked);
    assert_eq!(r.mode, Mode::Audit);
    assert_eq!(r.review_timeout, Duration::from_secs(120));
    assert_eq!(r.headless, Verdict::Allow);
    assert_eq!(r.origins["mode"], Origin::File(req.system_config.clone()));
    assert_eq!(r.origins["review_timeout"], Origin::File(req.user_config.clone()));
    assert_eq!(r.sandbox.network.mode, NetworkMode::Allow);
    assert!(r.sandbox.network.allows("pypi.org", 443));
    let shown = r.show();
    let get = |k: &str| shown.iter().find(|v| v.key == k).unwrap_or_else(|| panic!("{k}"));
    assert_eq!(get("mode").origin, req.system_config.display().to_string());
    assert_eq!(get("headless").origin, req.user_config.display().to_string());
    assert_eq!(get("thresholds.review").origin, "default");
    assert!(shown.iter().any(|v| v.key.starts_with("sensitive[") && v.origin == "profile generic"));

    // Environment beats files, flags beat the environment.
    req.env = vec![("WARD_MODE".into(), "enforce".into()), ("WARD_REVIEW_TIMEOUT".into(), "45s".into()), ("WARD_OTHER".into(), "x".into())];
    req.cli.review_timeout = Some(Duration::from_secs(7));
    req.cli.allow_net = vec!["127.0.0.1:4000".into()];
    req.cli.sandbox = Some("landlock-only".into());
    let r = load(&req).unwrap();
    assert_eq!(r.mode, Mode::Enforce);
    assert_eq!(r.origins["mode"], Origin::Env("WARD_MODE".into()));
    assert_eq!(r.review_timeout, Duration::from_secs(7));
    assert_eq!(r.origins["review_timeout"], Origin::Cli("--review-timeout".into()));
    assert_eq!(r.sandbox.mode, SandboxMode::LandlockOnly);
    assert!(r.sandbox.network.allow_loopback.contains(&4000));

    req.env = vec![("WARD_MODE".into(), "loud".into())];
    let e = load(&req).unwrap_err().to_string();
    assert!(e.contains("WARD_MODE"), "{e}");
    req.env.clear();
    req.cli.allow_net = vec!["host:notaport".into()];
    let e = load(&req).unwrap_err().to_string();
    assert!(e.contains("--allow-net"), "{e}");
}

#[test]
fn project_file_needs_trust() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let mut req = request(None, dir.path());
    req.project_dir = project.clone();
    write_file(&project.join(".ward.toml"), "mode = \"audit\"\n");
    let r = load(&req).unwrap();
    assert_eq!(r.mode, Mode::Enforce, "untrusted project config is ignored");
    assert!(r.layers.iter().any(|l| !l.applied && l.note.contains("not trusted")));
    write_file(&req.user_config, &format!("trust = [{:?}]\n", project.display().to_string()));
    let r = load(&req).unwrap();
    assert_eq!(r.mode, Mode::Audit);
    assert_eq!(r.origins["mode"], Origin::File(project.join(".ward.toml")));
    // A project can't trust itself.
    write_file(&project.join(".ward.toml"), "trust = [\"/\"]\n");
    assert!(load(&req).unwrap_err().to_string().contains("trust"));
}

#[test]
fn profile_is_picked_from_the_command_and_overridden_by_flag() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(None, dir.path());
    req.argv = vec!["claude".into(), "-p".into(), "hi".into()];
    let r = load(&req).unwrap();
    assert_eq!(r.profile, "claude-code");
    assert!(r.profile_auto_picked);
    assert!(r.sandbox.writable.contains(&"/home/u/.claude".into()));
    assert!(r.sandbox.secrets.contains(&"/home/u/.ssh".into()));
    assert!(r.sandbox.protected.contains(&"/work/proj/.git/hooks".into()));
    assert!(r.sandbox.network.allows("api.anthropic.com", 443));
    assert!(r.runtime_dirs.iter().any(|d| d.rule.contains("claude-code")));
    let m = r.runtime_matcher();
    assert!(m.rule_for(Path::new("/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js")).is_some());
    assert!(m.rule_for(Path::new("/work/proj/src/main.rs")).is_none());
    req.profile = Some("codex".into());
    let r = load(&req).unwrap();
    assert_eq!(r.profile, "codex");
    assert!(!r.profile_auto_picked);
    req.profile = Some("nope".into());
    let e = load(&req).unwrap_err().to_string();
    assert!(e.contains("unknown profile \"nope\"") && e.contains("claude-code"), "{e}");
}

#[test]
fn user_profiles_extend_builtin_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(Some("strict"), dir.path());
    write_file(
        &req.user_config.parent().unwrap().join("profiles/strict.toml"),
        "[meta]\nname = \"strict\"\nextends = \"generic\"\n\n[[rules.command]]\nprefix = [\"curl\"]\naction = \"deny\"\nreason = \"no downloads\"\n",
    );
    let r = load(&req).unwrap();
    assert_eq!(r.profile, "strict");
    assert!(r.sensitive.iter().any(|s| s.pattern == "/home/u/.npmrc"), "inherits generic");
    assert!(r.command_rules.iter().any(|c| c.prefix == ["curl"]));
    req.profile = None;
    write_file(&req.user_config, "profile = \"strict\"\n");
    assert_eq!(load(&req).unwrap().profile, "strict");
}

#[test]
fn every_rule_of_every_builtin_profile_has_a_reason() {
    for p in ["generic", "claude-code", "codex", "gemini", "aider"] {
        let r = resolved(p);
        assert!(r.sensitive.iter().all(|s| !s.reason.is_empty()), "{p}");
        assert!(r.path_rules.iter().all(|s| !s.reason.is_empty()), "{p}");
        assert!(r.command_rules.iter().all(|s| !s.reason.is_empty()), "{p}");
        assert!(!r.profile_description.is_empty(), "{p}");
    }
    assert_eq!(resolved("generic").sandbox.network.mode, NetworkMode::Off);
    assert_eq!(resolved("generic").mode, Mode::Enforce);
}
