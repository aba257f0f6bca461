//! What the sandbox is asked to build ([`SandboxPlan`], produced from the policy's settings)
//! and its resolved form ([`Resolved`]: canonical, existing paths only).

use crate::SandboxError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How strongly the tree is confined.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Namespaces + Landlock + wall; the project, a private `/tmp` and the extra roots writable.
    WorkspaceWrite,
    /// As `WorkspaceWrite` but the project is read-only too (only `/tmp` and the extra roots
    /// stay writable).
    ReadOnly,
    /// No namespaces (they are unavailable): Landlock and the seccomp wall only.
    LandlockOnly,
    /// No sandbox; the supervisor alone.
    Off,
}

impl SandboxMode {
    /// The name used on the command line and in config (`workspace-write`).
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::LandlockOnly => "landlock-only",
            SandboxMode::Off => "off",
        }
    }

    /// Parses [`SandboxMode::as_str`]'s names.
    pub fn parse(s: &str) -> Option<SandboxMode> {
        [
            Self::WorkspaceWrite,
            Self::ReadOnly,
            Self::LandlockOnly,
            Self::Off,
        ]
        .into_iter()
        .find(|m| m.as_str() == s)
    }

    /// Whether the mode builds namespaces.
    pub fn uses_namespaces(self) -> bool {
        matches!(self, SandboxMode::WorkspaceWrite | SandboxMode::ReadOnly)
    }
}

/// Network access of the tree.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NetPlan {
    /// A network namespace of its own: loopback inside works, nothing outside is reachable.
    Off,
    /// The host's network; the supervisor filters connects by domain.
    Host,
}

fn yes() -> bool {
    true
}

/// Everything [`crate::enter`] and [`crate::seal`] need. Paths must be absolute.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct SandboxPlan {
    /// How strongly to confine.
    pub mode: SandboxMode,
    /// The project directory (writable under `WorkspaceWrite`).
    pub project: PathBuf,
    /// The invoking user's home directory.
    pub home: PathBuf,
    /// Extra writable roots.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Paths kept read-only inside writable roots (`.git/hooks`, `.git/config`, shell rc
    /// files, `.ward.toml`, `.vscode`, `.idea`, …). Missing ones are skipped (no stubs).
    #[serde(default)]
    pub protected: Vec<PathBuf>,
    /// Paths made unreadable (`~/.ssh`, `~/.aws`, `~/.npmrc`, …). Missing ones are skipped.
    #[serde(default)]
    pub secrets: Vec<PathBuf>,
    /// Network access.
    pub network: NetPlan,
    /// Whether `socket(AF_NETLINK, …, NETLINK_ROUTE)` is allowed (some tools list interfaces).
    #[serde(default)]
    pub allow_netlink_route: bool,
    /// The invoking user (informational: the maps always use the caller's own ids).
    pub uid: u32,
    /// The invoking user's group.
    pub gid: u32,
    /// Where the command starts; default: the current directory when `enter` runs.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Whether the supervisor's notification filter sits on top of the wall. When true (the
    /// default), calls the supervisor traps itself get `SECCOMP_RET_TRACE` (ENOSYS without
    /// the supervisor) so its `USER_NOTIF` wins and records an event; when false they get
    /// their errno directly (tests, the wall on its own).
    #[serde(default = "yes")]
    pub supervised: bool,
}

/// Paths under `project` and `home` that stay read-only even in writable roots.
pub fn default_protected(project: &Path, home: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        ".git/hooks",
        ".git/config",
        ".ward.toml",
        ".vscode",
        ".idea",
        ".envrc",
    ]
    .iter()
    .map(|p| project.join(p))
    .collect();
    for rc in [
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".config/fish",
        ".gitconfig",
        ".config/git",
    ] {
        v.push(project.join(rc));
        v.push(home.join(rc));
    }
    v
}

/// Credential locations under `home` that are unreadable in the sandbox.
pub fn default_secrets(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".aws",
        ".gnupg",
        ".npmrc",
        ".pypirc",
        ".netrc",
        ".docker/config.json",
        ".kube",
        ".config/gcloud",
        ".azure",
        ".config/gh/hosts.yml",
        ".git-credentials",
        ".cargo/credentials",
        ".cargo/credentials.toml",
        ".password-store",
        ".local/share/keyrings",
        ".vault-token",
    ]
    .iter()
    .map(|p| home.join(p))
    .collect()
}

/// Unix sockets that hand out more than the sandbox allows (a container engine is root; the
/// session bus, keyring and agents hold the user's credentials), masked in the sandbox so a
/// connect fails even if the supervisor's `ipc.connect` policy were wrong. `uid` selects the
/// user's runtime directory.
pub fn default_sockets(uid: u32) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "/run/docker.sock",
        "/run/containerd/containerd.sock",
        "/run/podman/podman.sock",
        "/run/crio/crio.sock",
        "/run/buildkit/buildkitd.sock",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let rt = PathBuf::from(format!("/run/user/{uid}"));
    for p in [
        "docker.sock",
        "podman/podman.sock",
        "bus",
        "gnupg",
        "keyring",
        "gcr",
        "ssh-agent.socket",
        "openssh_agent",
    ] {
        v.push(rt.join(p));
    }
    v
}

impl SandboxPlan {
    /// A plan with the default protected and secret lists, network off, for the current user.
    pub fn new(mode: SandboxMode, project: impl Into<PathBuf>, home: impl Into<PathBuf>) -> Self {
        let project = project.into();
        let home = home.into();
        SandboxPlan {
            mode,
            protected: default_protected(&project, &home),
            secrets: default_secrets(&home)
                .into_iter()
                .chain(default_sockets(crate::sys::geteuid()))
                .collect(),
            project,
            home,
            writable: Vec::new(),
            network: NetPlan::Off,
            allow_netlink_route: false,
            uid: crate::sys::geteuid(),
            gid: crate::sys::getegid(),
            cwd: None,
            supervised: true,
        }
    }
}

/// A plan with canonical paths, only those that exist, sorted so parents come first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub mode: SandboxMode,
    pub project: PathBuf,
    /// Writable roots (the project first under `WorkspaceWrite`), no duplicates.
    pub writable: Vec<PathBuf>,
    /// Protected paths that exist and lie inside a writable root.
    pub protected: Vec<PathBuf>,
    /// Secret paths that exist.
    pub secrets: Vec<PathBuf>,
    pub network: NetPlan,
    pub cwd: PathBuf,
    /// Paths under `/tmp` that stay visible (read-only) over the private `/tmp`.
    pub keep_visible: Vec<PathBuf>,
}

/// Git metadata a writable project needs outside itself: when the project is a subfolder of a
/// repository (its `.git` is in a parent) or a linked worktree / submodule checkout (its
/// `.git` is a file pointing elsewhere), `git commit` must be able to write that git dir (and
/// the common dir holding objects and refs). Returns the directories to make writable; their
/// `hooks` and `config` are to be protected like the project's own.
pub fn git_dirs_outside(project: &Path) -> Vec<PathBuf> {
    let mut found = None;
    for dir in project.ancestors() {
        let dotgit = dir.join(".git");
        match std::fs::symlink_metadata(&dotgit) {
            Ok(m) if m.is_dir() => {
                if dir != project {
                    found = Some(dotgit);
                }
                break;
            }
            Ok(m) if m.is_file() => {
                let text = std::fs::read_to_string(&dotgit).unwrap_or_default();
                if let Some(target) = text.trim().strip_prefix("gitdir:") {
                    found = Some(dir.join(target.trim()));
                }
                break;
            }
            _ => {}
        }
    }
    let Some(git_dir) = found.and_then(|g| g.canonicalize().ok()) else {
        return Vec::new();
    };
    let mut dirs = vec![git_dir.clone()];
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        if let Ok(c) = git_dir.join(common.trim()).canonicalize() {
            if !dirs.contains(&c) {
                dirs.push(c);
            }
        }
    }
    dirs.retain(|d| !d.starts_with(project));
    dirs
}

fn canonical_existing(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

fn absolute(p: &Path, what: &str) -> Result<(), SandboxError> {
    if p.is_absolute() {
        Ok(())
    } else {
        Err(SandboxError::Plan(format!(
            "{what} {} is not an absolute path",
            p.display()
        )))
    }
}

impl Resolved {
    pub fn from_plan(plan: &SandboxPlan) -> Result<Resolved, SandboxError> {
        absolute(&plan.project, "project")?;
        absolute(&plan.home, "home")?;
        let project = canonical_existing(&plan.project).ok_or_else(|| {
            SandboxError::Plan(format!("project {} does not exist", plan.project.display()))
        })?;
        let mut writable = Vec::new();
        if plan.mode != SandboxMode::ReadOnly {
            writable.push(project.clone());
        }
        for w in &plan.writable {
            absolute(w, "writable root")?;
            if let Some(c) = canonical_existing(w) {
                if !writable.contains(&c) {
                    writable.push(c);
                }
            }
        }
        let mut protected_in: Vec<PathBuf> = plan.protected.clone();
        if plan.mode != SandboxMode::ReadOnly {
            for g in git_dirs_outside(&project) {
                protected_in.push(g.join("hooks"));
                protected_in.push(g.join("config"));
                if !writable.contains(&g) {
                    writable.push(g);
                }
            }
        }
        let mut protected = Vec::new();
        for p in &protected_in {
            absolute(p, "protected path")?;
            if let Some(c) = canonical_existing(p) {
                let inside = writable.iter().any(|w| c.starts_with(w));
                if inside && !protected.contains(&c) && !writable.contains(&c) {
                    protected.push(c);
                }
            }
        }
        let mut secrets = Vec::new();
        for s in &plan.secrets {
            absolute(s, "secret path")?;
            if let Some(c) = canonical_existing(s) {
                if !secrets.contains(&c) && c != Path::new("/") {
                    secrets.push(c);
                }
            }
        }
        let by_depth =
            |v: &mut Vec<PathBuf>| v.sort_by_key(|p| (p.components().count(), p.clone()));
        by_depth(&mut writable);
        by_depth(&mut protected);
        by_depth(&mut secrets);
        let cwd = match &plan.cwd {
            Some(c) => c.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| project.clone()),
        };
        let mut keep_visible = Vec::new();
        if let Some(home) = canonical_existing(&plan.home) {
            let covered = writable.iter().any(|w| home.starts_with(w));
            if home.starts_with("/tmp") && home != Path::new("/tmp") && !covered {
                keep_visible.push(home);
            }
        }
        Ok(Resolved {
            mode: plan.mode,
            project,
            writable,
            protected,
            secrets,
            network: plan.network,
            cwd,
            keep_visible,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_keeps_only_existing_paths_inside_writable_roots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("proj");
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::write(project.join(".git/config"), "").unwrap();
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".bashrc"), "").unwrap();
        let mut plan = SandboxPlan::new(SandboxMode::WorkspaceWrite, &project, &home);
        plan.writable.push(root.join("missing"));
        let r = Resolved::from_plan(&plan).unwrap();
        assert_eq!(r.writable, vec![project.clone()]);
        // ~/.bashrc exists but lies outside every writable root: read-only anyway.
        assert_eq!(
            r.protected,
            vec![project.join(".git/config"), project.join(".git/hooks")]
        );
        assert_eq!(r.secrets, vec![home.join(".ssh")]);

        plan.mode = SandboxMode::ReadOnly;
        let r = Resolved::from_plan(&plan).unwrap();
        assert!(r.writable.is_empty() && r.protected.is_empty());
    }

    #[test]
    fn git_dirs_outside_the_project_become_writable_with_hooks_and_config_protected() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let git = |args: &[&str], cwd: &Path| {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(cwd)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", &root)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        git(&["init", "-q", "."], &repo);
        git(
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@b",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "i",
            ],
            &repo,
        );
        // A subfolder of a repository.
        assert_eq!(git_dirs_outside(&repo.join("sub")), vec![repo.join(".git")]);
        assert!(git_dirs_outside(&repo).is_empty());
        // A linked worktree: its own git dir and the common dir.
        git(&["worktree", "add", "-q", "../wt"], &repo);
        let wt = root.join("wt");
        assert_eq!(
            git_dirs_outside(&wt),
            vec![repo.join(".git/worktrees/wt"), repo.join(".git")]
        );
        let plan = SandboxPlan::new(SandboxMode::WorkspaceWrite, &wt, root.join("home"));
        let r = Resolved::from_plan(&plan).unwrap();
        assert!(
            r.writable.contains(&repo.join(".git"))
                && r.writable.contains(&repo.join(".git/worktrees/wt"))
        );
        assert!(
            r.protected.contains(&repo.join(".git/hooks"))
                && r.protected.contains(&repo.join(".git/config"))
        );
    }

    #[test]
    fn relative_paths_are_refused() {
        let plan = SandboxPlan::new(SandboxMode::WorkspaceWrite, "proj", "/root");
        assert!(matches!(
            Resolved::from_plan(&plan),
            Err(SandboxError::Plan(_))
        ));
    }

    #[test]
    fn plan_round_trips_through_json_with_defaults() {
        let json = r#"{"mode":"workspace-write","project":"/p","home":"/h","network":"off","uid":1,"gid":2}"#;
        let plan: SandboxPlan = serde_json::from_str(json).unwrap();
        assert!(plan.supervised && plan.writable.is_empty() && plan.cwd.is_none());
        assert_eq!(
            SandboxMode::parse("landlock-only"),
            Some(SandboxMode::LandlockOnly)
        );
    }
}
