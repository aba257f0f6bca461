//! Shared helpers: engines over a fake home (`/home/u`) and project (`/work/proj`), and
//! config files in a temporary directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use ward_event::{Actor, Decider, Decision, Verdict};
use ward_policy::{load, CliOverrides, Engine, LoadRequest, Mode, Resolved};

pub const HOME: &str = "/home/u";
pub const PROJECT: &str = "/work/proj";

pub fn request(profile: Option<&str>, dir: &Path) -> LoadRequest {
    LoadRequest {
        argv: vec![],
        profile: profile.map(String::from),
        project_dir: PROJECT.into(),
        home: HOME.into(),
        system_config: dir.join("etc-ward.toml"),
        user_config: dir.join("ward/config.toml"),
        env: vec![],
        cli: CliOverrides::default(),
    }
}

pub fn resolved(profile: &str) -> Resolved {
    let dir = tempfile::tempdir().unwrap();
    load(&request(Some(profile), dir.path())).expect("profile loads")
}

pub fn engine(profile: &str) -> Engine {
    let r = resolved(profile);
    assert_eq!(r.mode, Mode::Enforce, "enforce is the default");
    Engine::new(&r, PROJECT.into(), HOME.into())
}

pub fn write_file(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// Asserts a decision, printing its hits when it differs.
pub fn assert_verdict(e: &Engine, a: &Actor, op: &ward_event::Operation, want: Verdict) -> Decision {
    let d = e.decide(a, op);
    assert_eq!(d.verdict, want, "{op:?} by {}: {:#?}", a.exe, d.filters);
    d
}
