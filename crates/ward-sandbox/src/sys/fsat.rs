//! Symlink-proof file operations relative to a directory descriptor, for the git guard.
//!
//! The guard runs in ward, outside the sandbox, on a tree the supervised processes can
//! change at the same time. Every path is resolved with `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)` from the project directory, and removals use `unlinkat` on
//! descriptors, so a directory swapped for a symlink mid-way can never make ward delete or
//! write anything outside the project.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
const RESOLVE_NO_SYMLINKS: u64 = 0x04;
const RESOLVE_BENEATH: u64 = 0x08;

fn cname(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "name holds a NUL byte"))
}

/// Opens a directory by absolute path (symlinks allowed: this is the trusted starting point).
pub fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    let c = super::cpath(path)?;
    // SAFETY: `c` is NUL-terminated and outlives the call.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor is new and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens `rel` beneath `root` without following any symlink. `flags` are open flags
/// (`O_CLOEXEC` is added).
pub fn open_beneath(
    root: BorrowedFd<'_>,
    rel: &Path,
    flags: i32,
    mode: u32,
) -> io::Result<OwnedFd> {
    let c = super::cpath(rel)?;
    let how = OpenHow {
        flags: (flags | libc::O_CLOEXEC) as u64,
        mode: u64::from(mode),
        resolve: RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    // SAFETY: `c` and `how` are valid for the call; the size matches the struct.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            root.as_raw_fd(),
            c.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor is new and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// `unlinkat(dir, name, 0)`: removes a file or symlink (never follows it).
pub fn unlink_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<()> {
    let c = cname(name)?;
    // SAFETY: `c` is NUL-terminated and outlives the call.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `renameat(dir, from, dir, to)`.
pub fn rename_at(dir: BorrowedFd<'_>, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (f, t) = (cname(from)?, cname(to)?);
    // SAFETY: both names are NUL-terminated and outlive the call.
    if unsafe { libc::renameat(dir.as_raw_fd(), f.as_ptr(), dir.as_raw_fd(), t.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Entries of the directory behind `dir`: name and whether it is a directory (not following
/// symlinks: a symlink to a directory is not a directory).
pub fn list(dir: BorrowedFd<'_>) -> io::Result<Vec<(OsString, bool)>> {
    // /proc/self/fd/N names exactly the directory the descriptor holds; nothing is re-resolved
    // by name.
    let mut out = Vec::new();
    for e in std::fs::read_dir(format!("/proc/self/fd/{}", dir.as_raw_fd()))? {
        let e = e?;
        let is_dir = e.file_type()?.is_dir();
        out.push((e.file_name(), is_dir));
    }
    Ok(out)
}

/// Removes `name` in `dir` and, if it is a directory, everything beneath it, without ever
/// following a symlink.
pub fn remove_tree_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<()> {
    let c = cname(name)?;
    // SAFETY: `c` is NUL-terminated; O_NOFOLLOW|O_DIRECTORY refuses symlinks and non-dirs.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            // Not a directory (or a symlink): remove the entry itself.
            Some(libc::ENOTDIR) | Some(libc::ELOOP) => unlink_at(dir, name),
            Some(libc::ENOENT) => Ok(()),
            _ => Err(e),
        };
    }
    // SAFETY: the descriptor is new and owned by nobody else.
    let sub = unsafe { OwnedFd::from_raw_fd(fd) };
    for (child, is_dir) in list(sub.as_fd_borrowed())? {
        if is_dir {
            remove_tree_at(sub.as_fd_borrowed(), &child)?;
        } else {
            unlink_at(sub.as_fd_borrowed(), &child)?;
        }
    }
    // SAFETY: `c` is NUL-terminated and outlives the call.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

trait AsFdBorrowed {
    fn as_fd_borrowed(&self) -> BorrowedFd<'_>;
}

impl AsFdBorrowed for OwnedFd {
    fn as_fd_borrowed(&self) -> BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(self)
    }
}
