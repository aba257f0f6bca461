//! Applies the rules of [`crate::layout::landlock_grants`] with rust-landlock, best effort
//! across ABI versions: a right the kernel does not know is simply not restricted.

use crate::layout::{landlock_grants, Grant};
use crate::plan::Resolved;
use crate::{sys, SandboxError};
use landlock::{
    Access, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope, ABI,
};
use std::ffi::OsString;
use std::path::Path;

fn list_dir(p: &Path) -> Vec<OsString> {
    std::fs::read_dir(p)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.file_name())).collect())
        .unwrap_or_default()
}

fn rights(abi: ABI, grant: Grant) -> BitFlags<AccessFs> {
    let read = AccessFs::ReadFile | AccessFs::ReadDir | AccessFs::Execute;
    match grant {
        Grant::ListDirs => BitFlags::from(AccessFs::ReadDir),
        Grant::Read => read,
        Grant::WriteFiles => read | AccessFs::WriteFile | AccessFs::Truncate,
        Grant::Write => handled(abi),
    }
}

/// What the sandbox restricts: every filesystem right of the ABI except device ioctls (the
/// terminal needs them and they are no path to files) and pathname unix-socket connects
/// (the supervisor judges those as `ipc.connect`).
fn handled(abi: ABI) -> BitFlags<AccessFs> {
    let mut all = AccessFs::from_all(abi);
    all.remove(AccessFs::IoctlDev);
    all.remove(AccessFs::ResolveUnix);
    all
}

/// Restricts the calling process (and its future children). Returns the ABI used, or
/// `None` when the kernel has no Landlock (`required` then makes that an error).
pub(crate) fn apply(res: &Resolved, required: bool) -> Result<Option<i32>, SandboxError> {
    let version = match sys::landlock_abi() {
        Ok(v) => v,
        Err(errno) => {
            if required {
                return Err(SandboxError::Landlock(format!(
                    "this kernel has no Landlock ({}); `--sandbox landlock-only` needs it: boot with \
                     `lsm=landlock,…` or use a kernel ≥ 5.13 with CONFIG_SECURITY_LANDLOCK",
                    std::io::Error::from_raw_os_error(errno)
                )));
            }
            return Ok(None);
        }
    };
    let abi = ABI::from(version);
    let fail = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let mut ruleset = Ruleset::default()
        .handle_access(handled(abi))
        .map_err(fail)?;
    if version >= 6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(fail)?;
    }
    let mut created = ruleset.create().map_err(fail)?;
    for (path, grant) in landlock_grants(res, &mut list_dir) {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let Ok(fd) = PathFd::new(&path) else {
            continue;
        };
        let mut access = rights(abi, grant) & handled(abi);
        if !meta.is_dir() {
            access &= AccessFs::from_file(abi);
        }
        if access.is_empty() {
            continue;
        }
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(fail)?;
    }
    created.restrict_self().map_err(fail)?;
    Ok(Some(version))
}
