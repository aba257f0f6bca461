//! Pure planning: which mounts the sandbox makes, in which order, and which Landlock rules
//! it grants. No kernel calls; the directory listing Landlock needs is passed in, so all of
//! this is tested from data.
//!
//! # Mounts (namespace modes)
//!
//! 1. a recursive, read-only, `nosuid`, `nodev` copy of `/` becomes the new root;
//! 2. a private tmpfs on `/tmp`, a minimal `/dev` (null, zero, full, random, urandom, tty, a
//!    new devpts instance, a tmpfs on `/dev/shm`), a fresh `/proc` for the new pid namespace
//!    with `/proc/sys`, `/proc/sysrq-trigger`, `/proc/irq` and `/proc/bus` read-only;
//! 3. the home directory read-only when it lives under `/tmp` (the private `/tmp` would hide
//!    it), then each writable root bound read-write (parents before children);
//! 4. each protected path bound read-only on top;
//! 5. each secret masked: an empty read-only tmpfs of mode 000 over a directory, an empty
//!    mode-000 file over a file.
//!
//! # Landlock
//!
//! Landlock only allows, so "read everywhere except the secrets" is written as: list the
//! directories on the way from `/` to each secret and grant read on every sibling, skipping
//! the secret itself. Listing directories stays allowed everywhere
//! (the masks are empty anyway). Inside a writable root the tree is granted whole: new files
//! appear there, and a grant on siblings would not cover them, so secrets inside writable roots
//! rely on the mount masks. Write rights are granted on the writable roots, the private
//! `/tmp`, `/dev/shm`, and file writes on the few device nodes and on `/proc`.

use crate::plan::Resolved;
use crate::SandboxMode;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One mount the sandbox makes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountStep {
    /// A read-only copy of `/` as the new root.
    ReadOnlyRoot,
    /// A fresh tmpfs on `/tmp`.
    PrivateTmp,
    /// A minimal `/dev`.
    MinimalDev,
    /// A fresh `/proc` for the new pid namespace.
    FreshProc,
    /// Bind a path the private `/tmp` would hide, read-only (the home directory when it lives
    /// under `/tmp`).
    KeepVisible(PathBuf),
    /// Bind a writable root read-write.
    Writable(PathBuf),
    /// Re-bind a protected path read-only.
    Protected(PathBuf),
    /// Mask a secret (directory or file).
    Mask(PathBuf),
}

/// Device nodes bound into the minimal `/dev`.
pub const DEV_NODES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];

/// Paths the sandbox manages itself: writable roots, protected and secret paths there are
/// ignored.
fn is_managed(p: &Path) -> bool {
    p == Path::new("/") || p.starts_with("/proc") || p.starts_with("/dev") || p == Path::new("/tmp")
}

/// The mounts for a namespace mode, in the order they must be made.
pub(crate) fn mount_steps(res: &Resolved) -> Vec<MountStep> {
    let mut steps = vec![
        MountStep::ReadOnlyRoot,
        MountStep::PrivateTmp,
        MountStep::MinimalDev,
        MountStep::FreshProc,
    ];
    steps.extend(res.keep_visible.iter().cloned().map(MountStep::KeepVisible));
    // Resolved lists are sorted parents first.
    steps.extend(
        res.writable
            .iter()
            .filter(|p| !is_managed(p))
            .cloned()
            .map(MountStep::Writable),
    );
    steps.extend(
        res.protected
            .iter()
            .filter(|p| !is_managed(p))
            .cloned()
            .map(MountStep::Protected),
    );
    steps.extend(
        res.secrets
            .iter()
            .filter(|p| !is_managed(p))
            .cloned()
            .map(MountStep::Mask),
    );
    steps
}

/// What a Landlock rule grants beneath a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Grant {
    /// List directories (granted on `/`).
    ListDirs,
    /// Read files and execute them (and list directories).
    Read,
    /// Write file contents (device nodes, `/proc`).
    WriteFiles,
    /// Everything: create, remove, rename, write, truncate.
    Write,
}

/// The Landlock rules for a plan. `list` returns the entry names of a directory (an error or
/// a non-directory gives an empty list). `namespaced` says whether the mount layout exists
/// (then `/tmp` is the private tmpfs).
pub(crate) fn landlock_grants(
    res: &Resolved,
    list: &mut dyn FnMut(&Path) -> Vec<OsString>,
) -> Vec<(PathBuf, Grant)> {
    let mut out = vec![(PathBuf::from("/"), Grant::ListDirs)];
    let within_writable = |p: &Path| res.writable.iter().any(|w| p.starts_with(w));
    // Secrets that Landlock can carve out: those outside writable roots.
    let carved: Vec<&PathBuf> = res.secrets.iter().filter(|s| !within_writable(s)).collect();
    if carved.is_empty() {
        out.push((PathBuf::from("/"), Grant::Read));
    } else {
        let mut stack = vec![PathBuf::from("/")];
        while let Some(dir) = stack.pop() {
            let mut names = list(&dir);
            names.sort();
            for name in names {
                let p = dir.join(&name);
                if carved.iter().any(|s| **s == p) {
                    continue;
                }
                let holds_secret = carved.iter().any(|s| s.starts_with(&p) && **s != p);
                if holds_secret && !within_writable(&p) {
                    stack.push(p);
                } else {
                    out.push((p, Grant::Read));
                }
            }
        }
    }
    for w in &res.writable {
        out.push((w.clone(), Grant::Write));
    }
    out.push((PathBuf::from("/tmp"), Grant::Write));
    out.push((PathBuf::from("/dev/shm"), Grant::Write));
    for n in ["null", "zero", "full", "tty", "ptmx", "pts"] {
        out.push((Path::new("/dev").join(n), Grant::WriteFiles));
    }
    out.push((PathBuf::from("/proc"), Grant::WriteFiles));
    if res.mode == SandboxMode::LandlockOnly {
        // No private /tmp without a mount namespace: the host's /tmp stays writable, and so
        // does the user's runtime directory (sockets, locks).
        if let Ok(rt) = std::env::var("XDG_RUNTIME_DIR") {
            if Path::new(&rt).is_absolute() {
                out.push((PathBuf::from(rt), Grant::Write));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetPlan;
    use std::collections::BTreeMap;

    fn resolved(writable: &[&str], protected: &[&str], secrets: &[&str]) -> Resolved {
        let v = |x: &[&str]| x.iter().map(PathBuf::from).collect::<Vec<_>>();
        Resolved {
            mode: SandboxMode::WorkspaceWrite,
            project: PathBuf::from(writable.first().copied().unwrap_or("/p")),
            writable: v(writable),
            protected: v(protected),
            secrets: v(secrets),
            network: NetPlan::Off,
            cwd: PathBuf::from("/"),
            keep_visible: Vec::new(),
        }
    }

    fn fake_fs() -> BTreeMap<PathBuf, Vec<&'static str>> {
        let mut fs = BTreeMap::new();
        fs.insert(PathBuf::from("/"), vec!["bin", "etc", "home", "tmp"]);
        fs.insert(PathBuf::from("/home"), vec!["u", "v"]);
        fs.insert(
            PathBuf::from("/home/u"),
            vec![".ssh", ".bashrc", "proj", ".config"],
        );
        fs.insert(PathBuf::from("/home/u/.config"), vec!["gcloud", "nvim"]);
        fs.insert(PathBuf::from("/home/u/proj"), vec![".env", "src"]);
        fs
    }

    fn grants(res: &Resolved) -> Vec<(String, Grant)> {
        let fs = fake_fs();
        let mut list = |p: &Path| {
            fs.get(p)
                .map(|v| v.iter().map(OsString::from).collect())
                .unwrap_or_default()
        };
        landlock_grants(res, &mut list)
            .into_iter()
            .map(|(p, g)| (p.display().to_string(), g))
            .collect()
    }

    #[test]
    fn read_is_granted_around_secrets_only() {
        let res = resolved(
            &["/home/u/proj"],
            &[],
            &[
                "/home/u/.ssh",
                "/home/u/.config/gcloud",
                "/home/u/proj/.env",
            ],
        );
        let g = grants(&res);
        let read: Vec<&str> = g
            .iter()
            .filter(|(_, k)| *k == Grant::Read)
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(
            read,
            vec![
                "/bin",
                "/etc",
                "/tmp",
                "/home/v",
                "/home/u/.bashrc",
                "/home/u/proj",
                "/home/u/.config/nvim"
            ]
        );
        assert!(!read
            .iter()
            .any(|p| p.contains(".ssh") || p.contains("gcloud")));
        // The writable project is granted whole (the .env mask is the mount layer's job).
        assert!(g.contains(&("/home/u/proj".into(), Grant::Write)));
        assert!(g.contains(&("/".into(), Grant::ListDirs)));
    }

    #[test]
    fn without_secrets_root_is_readable_whole() {
        let g = grants(&resolved(&["/home/u/proj"], &[], &[]));
        assert!(g.contains(&("/".into(), Grant::Read)));
    }

    #[test]
    fn mounts_come_in_layer_order_and_skip_managed_paths() {
        let res = resolved(
            &["/home/u/proj", "/tmp", "/home/u/proj/sub"],
            &["/home/u/proj/.git/hooks"],
            &["/home/u/.ssh", "/proc/1/environ"],
        );
        let steps = mount_steps(&res);
        assert_eq!(
            steps,
            vec![
                MountStep::ReadOnlyRoot,
                MountStep::PrivateTmp,
                MountStep::MinimalDev,
                MountStep::FreshProc,
                MountStep::Writable("/home/u/proj".into()),
                MountStep::Writable("/home/u/proj/sub".into()),
                MountStep::Protected("/home/u/proj/.git/hooks".into()),
                MountStep::Mask("/home/u/.ssh".into()),
            ]
        );
    }
}
