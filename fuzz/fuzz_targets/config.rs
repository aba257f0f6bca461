//! The configuration loader on an arbitrary TOML layer: `ward_policy::load` with the input as
//! the user config (`$XDG_CONFIG_HOME/ward/config.toml`), as a user-defined profile, or as the
//! user config with no profile chosen on the command line (so its `profile` key and the
//! automatic pick run). There is no string-level entry point, so the input is written to a file
//! in a temporary directory. Never panics; a rejection is a `ConfigError` that names a line
//! and column inside the input. When the layer loads, the engine compiles it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;
use ward_policy::{load, ConfigError, Engine, LoadRequest};

struct Dirs {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    user_config: PathBuf,
    profile: PathBuf,
}

fn dirs() -> &'static Dirs {
    static D: OnceLock<Dirs> = OnceLock::new();
    D.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        let project = home.join("project");
        let conf = home.join(".config/ward");
        std::fs::create_dir_all(conf.join("profiles")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Dirs {
            user_config: conf.join("config.toml"),
            profile: conf.join("profiles/fuzz.toml"),
            home,
            project,
            _tmp: tmp,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let d = dirs();
    let _ = std::fs::remove_file(&d.user_config);
    let _ = std::fs::remove_file(&d.profile);
    let (file, profile) = match which % 3 {
        0 => (&d.user_config, Some("generic".to_string())),
        1 => (&d.profile, Some("fuzz".to_string())),
        _ => (&d.user_config, None),
    };
    std::fs::write(file, text).unwrap();
    let req = LoadRequest {
        argv: vec!["true".into()],
        profile,
        project_dir: d.project.clone(),
        home: d.home.clone(),
        system_config: d.home.join("no-such-system-config.toml"),
        user_config: d.user_config.clone(),
        env: Vec::new(),
        cli: Default::default(),
    };
    match load(&req) {
        Ok(resolved) => {
            let _ = resolved.show();
            let _ = Engine::new(&resolved, d.project.clone(), d.home.clone());
        }
        Err(ConfigError::Invalid { line, column, .. }) => {
            assert!(line >= 1 && column >= 1);
            // Errors in our file point inside it (built-in profiles are valid).
            assert!(line <= text.lines().count().max(1) + 1, "line {line} of {}", text.lines().count());
        }
        Err(_) => {}
    }
});
