//! ward's policy: profiles, layered configuration, and the pipeline of filters that turns an
//! operation into allow, review or deny. Pure: no kernel calls; the only I/O is reading
//! configuration files (and appending "always" answers to the user's config).
//!
//! How the pieces fit:
//!
//! - [`load`] reads the layers (built-in profile < `/etc/ward/config.toml` < user config <
//!   trusted `.ward.toml` < `WARD_*` < flags, see [`config`]) into a [`Resolved`]: the mode,
//!   the review timeout and headless action, the [`SandboxSettings`] the sandbox enforces,
//!   the runtime directories the report excludes, and the rules.
//! - [`Engine::new`] compiles a `Resolved` (one glob set for all path patterns, command
//!   rules) and holds the session state. It implements [`ward_event::Decider`]: `decide`
//!   runs the [`filters`] and sums their scores against two thresholds (review 50, deny
//!   100 by default); `observe` learns outcomes (taint); `settle_review` turns a reviewer's
//!   answer into the final decision and remembers "session" and "always" answers.
//! - [`shell`] splits `sh -c` strings into simple commands with a real bash parser.
//! - [`profiles`] holds the built-in profiles (`profiles/*.toml`, embedded) and picks one
//!   from the command (`claude` → `claude-code`).
//!
//! Decisions in audit mode carry the verdict the policy reached with `action: allow` and
//! `by: audit-mode`. In enforce mode a review verdict comes back as `by: policy,
//! verdict: review, action: deny` (deny if nobody settles it); the supervisor parks the
//! thread, asks its reviewer and calls `settle_review`.

pub mod config;
pub mod engine;
pub mod filters;
pub mod matcher;
pub mod ops;
pub mod paths;
pub mod profiles;
pub mod schema;
pub mod shell;

#[cfg(test)]
pub(crate) mod testkit;

pub use config::{
    load, CliOverrides, ConfigError, LayerInfo, LoadRequest, Mode, NetTarget, NetworkMode, NetworkSettings, Origin,
    Resolved, RuntimeDir, RuntimeMatcher, SandboxMode, SandboxSettings, ShownValue, Thresholds,
};
pub use engine::{Clock, Engine, FilterContribution, ManualClock, SystemClock, FILTERS};
