//! Carries out [`crate::layout::mount_steps`] in the sandbox's fresh mount namespace and
//! pivots into the result.
//!
//! Every source is taken as a detached copy (`open_tree(OPEN_TREE_CLONE)`) before anything
//! is mounted, so a later layer (the private `/tmp`) cannot hide a source (a project that lives
//! under `/tmp`). Nothing is ever created on the host's filesystems: the new root is read-only
//! before any mount point is made, so mount points can only be created inside the sandbox's
//! own tmpfs layers; a missing mount point elsewhere means the path is simply not bound.

use crate::layout::{MountStep, DEV_NODES};
use crate::plan::Resolved;
use crate::sys;
use crate::SandboxError;
use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

const STAGING: &str = "/tmp";

fn inside(root: &Path, p: &Path) -> PathBuf {
    root.join(p.strip_prefix("/").unwrap_or(p))
}

fn err(what: String) -> impl FnOnce(std::io::Error) -> SandboxError {
    SandboxError::setup(what)
}

/// Builds the layout and pivots into it. Runs in the sandbox's mount namespace, with
/// capabilities in its user namespace, before the new `/proc` exists.
pub(crate) fn build(res: &Resolved) -> Result<(), SandboxError> {
    let steps = crate::layout::mount_steps(res);
    sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_SLAVE,
        None,
    )
    .map_err(err("make / a slave mount".into()))?;

    // 1. Sources, copied before anything is mounted over them.
    let root =
        sys::clone_tree(Path::new("/"), true).map_err(err("copy the mount tree of /".into()))?;
    sys::mount_setattr(
        root.as_fd(),
        true,
        sys::MOUNT_ATTR_RDONLY | sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV,
        0,
    )
    .map_err(err("make the copy of / read-only".into()))?;
    // Each source with whether it is a directory (known now: the staging tmpfs will hide
    // sources under /tmp).
    let mut sources: HashMap<PathBuf, (OwnedFd, bool)> = HashMap::new();
    for step in &steps {
        match step {
            MountStep::Writable(p) => {
                let fd = sys::clone_tree(p, true)
                    .map_err(err(format!("copy writable root {}", p.display())))?;
                sys::mount_setattr(
                    fd.as_fd(),
                    true,
                    sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV,
                    0,
                )
                .map_err(err(format!("set nosuid on {}", p.display())))?;
                sources.insert(p.clone(), (fd, p.is_dir()));
            }
            MountStep::Protected(p) | MountStep::KeepVisible(p) => {
                let fd = sys::clone_tree(p, true)
                    .map_err(err(format!("copy protected path {}", p.display())))?;
                sys::mount_setattr(
                    fd.as_fd(),
                    true,
                    sys::MOUNT_ATTR_RDONLY | sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV,
                    0,
                )
                .map_err(err(format!("make {} read-only", p.display())))?;
                sources.insert(p.clone(), (fd, p.is_dir()));
            }
            _ => {}
        }
    }
    let mut dev_nodes = Vec::new();
    for n in DEV_NODES {
        let p = Path::new("/dev").join(n);
        if p.exists() {
            let fd = sys::clone_tree(&p, false).map_err(err(format!("copy {}", p.display())))?;
            dev_nodes.push((n, fd));
        }
    }

    // 2. Staging: a tmpfs (in this namespace only) holding the new root and an empty file.
    let staging = Path::new(STAGING);
    sys::mount(
        Some("tmpfs"),
        staging,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some("mode=0700"),
    )
    .map_err(err("mount the staging tmpfs".into()))?;
    let new_root = staging.join("root");
    std::fs::create_dir(&new_root).map_err(err("create the staging root".into()))?;
    let empty = staging.join("empty");
    std::fs::write(&empty, b"").map_err(err("create the empty mask file".into()))?;
    std::fs::set_permissions(&empty, std::fs::Permissions::from_mode(0o000))
        .map_err(err("chmod the empty mask file".into()))?;
    let empty_src =
        sys::clone_tree(&empty, false).map_err(err("copy the empty mask file".into()))?;
    sys::mount_setattr(
        empty_src.as_fd(),
        false,
        sys::MOUNT_ATTR_RDONLY | sys::MOUNT_ATTR_NOEXEC,
        0,
    )
    .map_err(err("make the mask file read-only".into()))?;
    sys::move_mount_to(root.as_fd(), &new_root).map_err(err("attach the new root".into()))?;

    // 3. Layers.
    for step in &steps {
        match step {
            MountStep::ReadOnlyRoot => {}
            MountStep::PrivateTmp => {
                sys::mount(
                    Some("tmpfs"),
                    &new_root.join("tmp"),
                    Some("tmpfs"),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    Some("mode=1777"),
                )
                .map_err(err("mount the private /tmp".into()))?;
            }
            MountStep::MinimalDev => build_dev(&new_root, &mut dev_nodes)?,
            MountStep::FreshProc => build_proc(&new_root)?,
            MountStep::Writable(p) | MountStep::Protected(p) | MountStep::KeepVisible(p) => {
                let target = inside(&new_root, p);
                let (fd, is_dir) = sources
                    .remove(p)
                    .ok_or_else(|| SandboxError::Plan(format!("no source for {}", p.display())))?;
                if matches!(step, MountStep::Writable(_) | MountStep::KeepVisible(_))
                    && std::fs::symlink_metadata(&target).is_err()
                {
                    // Only possible inside the sandbox's own tmpfs layers (the root is read-only).
                    let made = if is_dir {
                        std::fs::create_dir_all(&target)
                    } else {
                        target
                            .parent()
                            .map_or(Ok(()), std::fs::create_dir_all)
                            .and_then(|()| std::fs::write(&target, b""))
                    };
                    made.map_err(err(format!("create the mount point for {}", p.display())))?;
                } else if std::fs::symlink_metadata(&target).is_err() {
                    continue;
                }
                sys::move_mount_to(fd.as_fd(), &target)
                    .map_err(err(format!("bind {}", p.display())))?;
            }
            MountStep::Mask(p) => {
                let target = inside(&new_root, p);
                let Ok(meta) = std::fs::symlink_metadata(&target) else {
                    continue;
                };
                if meta.is_dir() {
                    sys::mount(
                        Some("tmpfs"),
                        &target,
                        Some("tmpfs"),
                        libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        Some("mode=000,size=4k"),
                    )
                    .map_err(err(format!("mask {}", p.display())))?;
                } else {
                    let fd = sys::clone_detached(empty_src.as_fd())
                        .map_err(err("copy the mask file".into()))?;
                    sys::move_mount_to(fd.as_fd(), &target)
                        .map_err(err(format!("mask {}", p.display())))?;
                }
            }
        }
    }

    // 4. Pivot: the staging tmpfs and the old root become unreachable.
    sys::chdir(&new_root).map_err(err("enter the new root".into()))?;
    sys::pivot_to_cwd().map_err(err("pivot_root into the new root".into()))?;
    sys::chdir(Path::new("/")).map_err(err("chdir /".into()))?;
    Ok(())
}

fn build_dev(new_root: &Path, nodes: &mut Vec<(&str, OwnedFd)>) -> Result<(), SandboxError> {
    let dev = new_root.join("dev");
    sys::mount(
        Some("tmpfs"),
        &dev,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("mode=0755"),
    )
    .map_err(err("mount /dev".into()))?;
    for (name, fd) in nodes.drain(..) {
        let target = dev.join(name);
        std::fs::write(&target, b"").map_err(err(format!("create /dev/{name}")))?;
        sys::move_mount_to(fd.as_fd(), &target).map_err(err(format!("bind /dev/{name}")))?;
    }
    for (link, to) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
        ("ptmx", "pts/ptmx"),
    ] {
        symlink(to, dev.join(link)).map_err(err(format!("link /dev/{link}")))?;
    }
    for d in ["pts", "shm"] {
        std::fs::create_dir(dev.join(d)).map_err(err(format!("create /dev/{d}")))?;
    }
    sys::mount(
        Some("devpts"),
        &dev.join("pts"),
        Some("devpts"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("newinstance,ptmxmode=0666,mode=620"),
    )
    .map_err(err("mount /dev/pts".into()))?;
    sys::mount(
        Some("tmpfs"),
        &dev.join("shm"),
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some("mode=1777"),
    )
    .map_err(err("mount /dev/shm".into()))?;
    sys::mount(
        None,
        &dev,
        None,
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NOEXEC,
        None,
    )
    .map_err(err("make /dev read-only".into()))?;
    Ok(())
}

fn build_proc(new_root: &Path) -> Result<(), SandboxError> {
    let proc_ = new_root.join("proc");
    sys::mount(
        Some("proc"),
        &proc_,
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    )
    .map_err(err(
        "mount a fresh /proc for the sandbox's pid namespace (this fails when the host's /proc \
         is partly hidden, as in some containers)"
            .into(),
    ))?;
    for sub in ["sys", "sysrq-trigger", "irq", "bus"] {
        let p = proc_.join(sub);
        if std::fs::symlink_metadata(&p).is_err() {
            continue;
        }
        let fd = sys::clone_tree(&p, true).map_err(err(format!("copy /proc/{sub}")))?;
        sys::mount_setattr(fd.as_fd(), true, sys::MOUNT_ATTR_RDONLY, 0)
            .map_err(err(format!("make /proc/{sub} read-only")))?;
        sys::move_mount_to(fd.as_fd(), &p).map_err(err(format!("bind /proc/{sub}")))?;
    }
    Ok(())
}
