//! What this machine supports, why not, and which mode `ward exec` will use.
//!
//! [`check`] gathers [`Facts`] (sysctls, a forked probe that builds the namespaces the sandbox
//! needs, the Landlock ABI, a probe of seccomp user notification with sync wake-up) and
//! [`SupportReport::from_facts`] turns them into a report. The second step is pure and tested
//! from data, including the advice for each way user namespaces can be restricted.

use crate::sys::{self, probe};
use crate::{SandboxError, SandboxMode};
use serde::Serialize;

/// Raw observations about the machine.
#[derive(Debug, Clone)]
pub struct Facts {
    /// Effective uid of the caller.
    pub uid: u32,
    /// `uname -r`.
    pub kernel: String,
    /// `kernel.unprivileged_userns_clone` (Debian, older Ubuntu), if present.
    pub unprivileged_userns_clone: Option<i64>,
    /// `user.max_user_namespaces`.
    pub max_user_namespaces: Option<i64>,
    /// `kernel.apparmor_restrict_unprivileged_userns` (Ubuntu ≥ 23.10), if present.
    pub apparmor_restrict_unprivileged_userns: Option<i64>,
    /// Result of the namespace probe: `(failed step, errno)`, step 0 = success; `None` if
    /// the probe could not run.
    pub userns_probe: Option<(u32, i32)>,
    /// Landlock ABI or the errno.
    pub landlock: Result<i32, i32>,
    /// Whether `SECCOMP_RET_USER_NOTIF` is a known action.
    pub user_notif_action: bool,
    /// Result of the listener + sync-wake-up probe: `(failed step, errno)`.
    pub notif_probe: Option<(u32, i32)>,
}

/// One wall or feature.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Feature {
    /// Whether it works here.
    pub available: bool,
    /// What was found, in words.
    pub detail: String,
}

/// A sysctl that matters, and its value.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Sysctl {
    /// Dotted name.
    pub name: String,
    /// Value, `None` when the kernel does not have it.
    pub value: Option<i64>,
    /// Whether this value blocks the sandbox for this user.
    pub blocks: bool,
}

/// What `ward sandbox check` prints (text or JSON).
#[derive(Debug, Clone, Serialize)]
pub struct SupportReport {
    /// Kernel release.
    pub kernel: String,
    /// The uid the check ran as.
    pub uid: u32,
    /// User + mount + pid + net namespaces, with a mount inside.
    pub user_namespaces: Feature,
    /// The sysctls that gate user namespaces.
    pub sysctls: Vec<Sysctl>,
    /// Landlock.
    pub landlock: Feature,
    /// Landlock ABI version, if any.
    pub landlock_abi: Option<i32>,
    /// seccomp user notification (the supervisor's core).
    pub seccomp_user_notif: Feature,
    /// `SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP` (fast notification hand-off, kernel ≥ 6.6).
    pub sync_wake_up: Feature,
    /// The mode `ward exec` uses by default here.
    pub default_mode: SandboxMode,
    /// What to do about what is missing.
    pub advice: Vec<String>,
}

fn read_sysctl(path: &str) -> Option<i64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

impl Facts {
    /// Observes this machine (forks two short-lived probe children).
    pub fn gather() -> Facts {
        Facts {
            uid: sys::geteuid(),
            kernel: sys::kernel_release(),
            unprivileged_userns_clone: read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"),
            max_user_namespaces: read_sysctl("/proc/sys/user/max_user_namespaces"),
            apparmor_restrict_unprivileged_userns: read_sysctl(
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
            ),
            userns_probe: probe::user_namespaces().ok().map(|r| (r.step, r.errno)),
            landlock: sys::landlock_abi(),
            user_notif_action: sys::seccomp_action_available(libc::SECCOMP_RET_USER_NOTIF),
            notif_probe: probe::user_notification().ok().map(|r| (r.step, r.errno)),
        }
    }
}

fn errno_text(errno: i32) -> String {
    format!(
        "{} ({})",
        ward_event::errno_name(errno),
        std::io::Error::from_raw_os_error(errno)
    )
}

/// Why user namespaces fail and how to fix it, from the sysctls (`None` if nothing blocks).
fn userns_fixes(f: &Facts) -> Vec<String> {
    let mut fixes = Vec::new();
    let unprivileged = f.uid != 0;
    if unprivileged && f.unprivileged_userns_clone == Some(0) {
        fixes.push(
            "kernel.unprivileged_userns_clone = 0 forbids user namespaces to unprivileged users: \
             `sudo sysctl -w kernel.unprivileged_userns_clone=1` (persist it in /etc/sysctl.d/50-ward.conf)"
                .to_string(),
        );
    }
    if f.max_user_namespaces == Some(0) {
        fixes.push(
            "user.max_user_namespaces = 0 forbids user namespaces: `sudo sysctl -w user.max_user_namespaces=15000` \
             (persist it in /etc/sysctl.d/50-ward.conf)"
                .to_string(),
        );
    }
    if unprivileged && f.apparmor_restrict_unprivileged_userns == Some(1) {
        fixes.push(
            "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1, \
             Ubuntu ≥ 23.10): allow ward alone with a profile, e.g. /etc/apparmor.d/ward containing \
             `abi <abi/4.0>, include <tunables/global> profile ward /usr/local/bin/ward flags=(unconfined) { userns, }` \
             (use the path of your ward binary) then `sudo apparmor_parser -r /etc/apparmor.d/ward`; or, for the \
             whole machine, `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`"
                .to_string(),
        );
    }
    fixes
}

const LANDLOCK_ONLY_HINT: &str =
    "or run with `--sandbox landlock-only`: Landlock and the seccomp wall still confine the filesystem and system calls, without namespaces (no private /tmp, no pid or network isolation)";

impl SupportReport {
    /// Builds the report from observations (pure).
    pub fn from_facts(f: &Facts) -> SupportReport {
        let mut advice = Vec::new();
        let fixes = userns_fixes(f);
        let user_namespaces = match f.userns_probe {
            Some((0, _)) => Feature {
                available: true,
                detail: "user, mount, pid and network namespaces work, mounts inside them too"
                    .into(),
            },
            Some((step, errno)) => {
                let what = probe::USERNS_STEPS
                    .get(step as usize - 1)
                    .copied()
                    .unwrap_or("namespace setup");
                Feature {
                    available: false,
                    detail: format!("{what} failed: {}", errno_text(errno)),
                }
            }
            None => Feature {
                available: false,
                detail: "the probe could not run (fork failed)".into(),
            },
        };
        if !user_namespaces.available {
            advice.extend(fixes.iter().cloned());
            advice.push(LANDLOCK_ONLY_HINT.to_string());
        }
        let sysctls = vec![
            Sysctl {
                name: "kernel.unprivileged_userns_clone".into(),
                value: f.unprivileged_userns_clone,
                blocks: f.uid != 0 && f.unprivileged_userns_clone == Some(0),
            },
            Sysctl {
                name: "user.max_user_namespaces".into(),
                value: f.max_user_namespaces,
                blocks: f.max_user_namespaces == Some(0),
            },
            Sysctl {
                name: "kernel.apparmor_restrict_unprivileged_userns".into(),
                value: f.apparmor_restrict_unprivileged_userns,
                blocks: f.uid != 0 && f.apparmor_restrict_unprivileged_userns == Some(1),
            },
        ];
        let (landlock, landlock_abi) = match f.landlock {
            Ok(v) => (
                Feature {
                    available: true,
                    detail: format!(
                        "ABI {v}{}",
                        if v >= 6 {
                            " (with signal and abstract-socket scoping)"
                        } else {
                            ""
                        }
                    ),
                },
                Some(v),
            ),
            Err(e) => {
                advice.push(
                    "Landlock is missing: enable it at boot (`lsm=landlock,…` on the kernel command line) or use a \
                     kernel ≥ 5.13 built with CONFIG_SECURITY_LANDLOCK"
                        .into(),
                );
                (
                    Feature {
                        available: false,
                        detail: format!("not available: {}", errno_text(e)),
                    },
                    None,
                )
            }
        };
        let seccomp_user_notif = match (f.user_notif_action, f.notif_probe) {
            (true, Some((0, _))) | (true, Some((3, _))) => Feature {
                available: true,
                detail: "filters with a notification listener work".into(),
            },
            (_, Some((step, errno))) if step > 0 => Feature {
                available: false,
                detail: format!(
                    "{} failed: {}",
                    probe::NOTIF_STEPS
                        .get(step as usize - 1)
                        .copied()
                        .unwrap_or("probe"),
                    errno_text(errno)
                ),
            },
            _ => Feature {
                available: false,
                detail: "SECCOMP_RET_USER_NOTIF unknown to this kernel (needs ≥ 5.0)".into(),
            },
        };
        if !seccomp_user_notif.available {
            advice.push(
                "seccomp user notification is missing: ward's supervisor needs a kernel ≥ 5.9"
                    .into(),
            );
        }
        let sync_wake_up = match f.notif_probe {
            Some((0, _)) => Feature {
                available: true,
                detail: "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP accepted".into(),
            },
            Some((3, errno)) => Feature {
                available: false,
                detail: format!(
                    "not accepted ({}): works, but each trapped call is slower (kernel < 6.6)",
                    errno_text(errno)
                ),
            },
            _ => Feature {
                available: false,
                detail: "not tested (no listener)".into(),
            },
        };
        let default_mode = if user_namespaces.available {
            SandboxMode::WorkspaceWrite
        } else if landlock.available {
            SandboxMode::LandlockOnly
        } else {
            SandboxMode::Off
        };
        SupportReport {
            kernel: f.kernel.clone(),
            uid: f.uid,
            user_namespaces,
            sysctls,
            landlock,
            landlock_abi,
            seccomp_user_notif,
            sync_wake_up,
            default_mode,
            advice,
        }
    }

    /// Settles the mode for `ward exec`: an explicitly requested mode this machine cannot
    /// provide is an error that says why and what to do; the default mode falls back (and the
    /// returned warning says so).
    pub fn resolve_mode(
        &self,
        requested: Option<SandboxMode>,
    ) -> Result<(SandboxMode, Option<String>), String> {
        let want = requested.unwrap_or(SandboxMode::WorkspaceWrite);
        let ok_ns = self.user_namespaces.available;
        let ok_ll = self.landlock.available;
        match want {
            SandboxMode::Off => Ok((want, None)),
            SandboxMode::LandlockOnly if ok_ll => Ok((want, None)),
            SandboxMode::LandlockOnly => Err(format!(
                "--sandbox landlock-only: Landlock is {}",
                self.landlock.detail
            )),
            _ if ok_ns => Ok((want, None)),
            _ => {
                let why = format!(
                    "the {} sandbox needs user namespaces, which this machine refuses: {}",
                    want.as_str(),
                    self.user_namespaces.detail
                );
                if requested.is_none() && ok_ll {
                    Ok((
                        SandboxMode::LandlockOnly,
                        Some(format!(
                            "{why}; falling back to landlock-only. {}",
                            self.advice.join("; ")
                        )),
                    ))
                } else {
                    Err(format!("{why}\n{}", self.advice.join("\n")))
                }
            }
        }
    }

    /// Human-readable report.
    pub fn to_text(&self) -> String {
        let mark = |f: &Feature| if f.available { "yes" } else { "no " };
        let mut s = String::new();
        s.push_str(&format!("kernel {} (uid {})\n", self.kernel, self.uid));
        s.push_str(&format!(
            "user namespaces       {}  {}\n",
            mark(&self.user_namespaces),
            self.user_namespaces.detail
        ));
        for c in &self.sysctls {
            let v = c.value.map_or("absent".to_string(), |v| v.to_string());
            s.push_str(&format!(
                "  {:<45} {}{}\n",
                c.name,
                v,
                if c.blocks {
                    "  ← blocks the sandbox"
                } else {
                    ""
                }
            ));
        }
        s.push_str(&format!(
            "Landlock              {}  {}\n",
            mark(&self.landlock),
            self.landlock.detail
        ));
        s.push_str(&format!(
            "seccomp user notif    {}  {}\n",
            mark(&self.seccomp_user_notif),
            self.seccomp_user_notif.detail
        ));
        s.push_str(&format!(
            "  sync wake-up        {}  {}\n",
            mark(&self.sync_wake_up),
            self.sync_wake_up.detail
        ));
        s.push_str(&format!(
            "ward exec will use: --sandbox {}\n",
            self.default_mode.as_str()
        ));
        for a in &self.advice {
            s.push_str(&format!("- {a}\n"));
        }
        s
    }
}

/// Observes this machine and reports.
pub fn check() -> SupportReport {
    SupportReport::from_facts(&Facts::gather())
}

/// The error [`crate::enter`] returns when `unshare` fails: the cause in the sysctls, if
/// one explains it, and the fallback.
pub(crate) fn namespace_error(e: &std::io::Error) -> SandboxError {
    let facts = Facts {
        uid: sys::geteuid(),
        unprivileged_userns_clone: read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"),
        max_user_namespaces: read_sysctl("/proc/sys/user/max_user_namespaces"),
        apparmor_restrict_unprivileged_userns: read_sysctl(
            "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        ),
        kernel: String::new(),
        userns_probe: None,
        landlock: Err(0),
        user_notif_action: false,
        notif_probe: None,
    };
    let mut fix = userns_fixes(&facts);
    fix.push(LANDLOCK_ONLY_HINT.to_string());
    SandboxError::Namespaces {
        reason: format!("unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID…) failed: {e}"),
        fix: fix.join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> Facts {
        Facts {
            uid: 1000,
            kernel: "6.18".into(),
            unprivileged_userns_clone: None,
            max_user_namespaces: Some(96365),
            apparmor_restrict_unprivileged_userns: None,
            userns_probe: Some((0, 0)),
            landlock: Ok(7),
            user_notif_action: true,
            notif_probe: Some((0, 0)),
        }
    }

    #[test]
    fn a_capable_machine_uses_workspace_write() {
        let r = SupportReport::from_facts(&good());
        assert!(r.user_namespaces.available && r.landlock.available && r.sync_wake_up.available);
        assert_eq!(r.default_mode, SandboxMode::WorkspaceWrite);
        assert!(r.advice.is_empty());
        assert_eq!(
            r.resolve_mode(None).unwrap(),
            (SandboxMode::WorkspaceWrite, None)
        );
    }

    #[test]
    fn ubuntu_apparmor_restriction_is_explained_with_both_fixes() {
        let f = Facts {
            apparmor_restrict_unprivileged_userns: Some(1),
            userns_probe: Some((5, libc::EPERM)),
            ..good()
        };
        let r = SupportReport::from_facts(&f);
        assert!(!r.user_namespaces.available);
        assert!(
            r.user_namespaces.detail.contains("EPERM"),
            "{}",
            r.user_namespaces.detail
        );
        let advice = r.advice.join("\n");
        assert!(
            advice.contains("apparmor_parser")
                && advice.contains("apparmor_restrict_unprivileged_userns=0")
        );
        assert!(advice.contains("--sandbox landlock-only"));
        assert!(r
            .sysctls
            .iter()
            .any(|s| s.blocks && s.name.contains("apparmor")));
        assert_eq!(r.default_mode, SandboxMode::LandlockOnly);
        // The default falls back with a warning; an explicit request is an error.
        let (mode, warn) = r.resolve_mode(None).unwrap();
        assert_eq!(mode, SandboxMode::LandlockOnly);
        assert!(warn.unwrap().contains("falling back"));
        let err = r
            .resolve_mode(Some(SandboxMode::WorkspaceWrite))
            .unwrap_err();
        assert!(
            err.contains("apparmor") && err.contains("landlock-only"),
            "{err}"
        );
    }

    #[test]
    fn debian_sysctl_and_max_namespaces_are_explained() {
        let f = Facts {
            unprivileged_userns_clone: Some(0),
            max_user_namespaces: Some(0),
            userns_probe: Some((1, libc::EPERM)),
            ..good()
        };
        let advice = SupportReport::from_facts(&f).advice.join("\n");
        assert!(advice.contains("kernel.unprivileged_userns_clone=1"));
        assert!(advice.contains("user.max_user_namespaces=15000"));
        // Root is not affected by the unprivileged switches.
        let root = Facts { uid: 0, ..f };
        let advice = SupportReport::from_facts(&root).advice.join("\n");
        assert!(!advice.contains("unprivileged_userns_clone"));
    }

    #[test]
    fn old_kernel_without_sync_wake_up_still_supervises() {
        let f = Facts {
            notif_probe: Some((3, libc::EINVAL)),
            ..good()
        };
        let r = SupportReport::from_facts(&f);
        assert!(r.seccomp_user_notif.available && !r.sync_wake_up.available);
    }
}
