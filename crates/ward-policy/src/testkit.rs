//! Test helpers: engines over a fake home (`/home/u`) and project (`/work/proj`).

pub use crate::ops::*;
use crate::{load, CliOverrides, Engine, LoadRequest, Resolved};
use std::path::PathBuf;
use ward_event::{Actor, DecidedBy, Decider, Decision, Event, Operation, Outcome, Timestamp};

pub const HOME: &str = "/home/u";
pub const PROJECT: &str = "/work/proj";

pub fn request(profile: &str) -> LoadRequest {
    LoadRequest {
        argv: vec![],
        profile: Some(profile.into()),
        project_dir: PROJECT.into(),
        home: HOME.into(),
        system_config: "/nonexistent/ward/system.toml".into(),
        user_config: "/nonexistent/ward/user.toml".into(),
        env: vec![],
        cli: CliOverrides::default(),
    }
}

pub fn resolved(profile: &str) -> Resolved {
    load(&request(profile)).expect("profile loads")
}

pub fn engine(profile: &str) -> Engine {
    Engine::new(&resolved(profile), PROJECT.into(), HOME.into())
}

/// An engine with `user_config` as the user's config file.
pub fn engine_with(profile: &str, user_config: &str) -> Engine {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, user_config).unwrap();
    let mut req = request(profile);
    req.user_config = path;
    let r = load(&req).expect("config loads");
    Engine::new(&r, PROJECT.into(), HOME.into())
}

/// An engine with `--allow-net` entries.
pub fn engine_cli(profile: &str, allow_net: &[&str]) -> Engine {
    let mut req = request(profile);
    req.cli.allow_net = allow_net.iter().map(|s| s.to_string()).collect();
    Engine::new(&load(&req).expect("loads"), PROJECT.into(), HOME.into())
}

pub fn default_actor() -> Actor {
    actor(4242, "/usr/bin/bash")
}

pub fn decide(e: &Engine, op: &Operation) -> Decision {
    e.decide(&default_actor(), op)
}

pub fn e_decide(e: &Engine, a: &Actor, op: &Operation) -> Decision {
    e.decide(a, op)
}

pub fn score_in(d: &Decision, filter: &str) -> i32 {
    d.filters.iter().filter(|h| h.filter == filter).map(|h| h.score).sum()
}

pub fn score_of(e: &Engine, op: &Operation, filter: &str) -> i32 {
    score_in(&decide(e, op), filter)
}

pub fn finished(a: &Actor, op: &Operation, decision: Decision, ok: bool) -> Event {
    Event {
        session: "test".into(),
        seq: 1,
        ts: Timestamp(0),
        actor: a.clone(),
        op: op.clone(),
        outcome: if ok && decision.action == ward_event::Action::Allow { Outcome::Ok(Some(3)) } else { Outcome::Err(13) },
        decision,
        hash: None,
    }
}

#[allow(dead_code)]
pub fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

#[allow(dead_code)]
pub fn by(d: &Decision) -> DecidedBy {
    d.by
}
