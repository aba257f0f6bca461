//! Which paths are sensitive, and why: the classes of the report's sensitive-path table.
//!
//! Matching is on the resolved path. Home-relative rules (`~/.ssh/…`) are matched against the
//! session's home directory and, for logs from other machines, against `/root` and
//! `/home/<user>`. `/proc/<pid>/environ` is sensitive only for another process: the caller's own
//! pid and `/proc/self` are not.

use crate::paths::{proc_file, ProcTarget};
use serde::Serialize;

/// A class of sensitive path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// SSH keys, config, known hosts, host private keys.
    Ssh,
    /// AWS, Google Cloud, Azure, Kubernetes, GitHub CLI credentials.
    CloudCredentials,
    /// npm, PyPI, Cargo, RubyGems, Docker registry tokens; `.netrc`.
    PackageRegistryToken,
    /// Shell startup files (they often export API keys).
    ShellRc,
    /// Global git configuration and stored git credentials.
    GitConfig,
    /// GNOME keyring, GnuPG, `pass`, the D-Bus session and system buses.
    KeyringDbus,
    /// `/etc/passwd`, `/etc/shadow`, `/etc/group`, sudoers.
    SystemAccounts,
    /// `/proc/<pid>/environ` of another process.
    OtherProcessEnv,
}

impl Class {
    /// Words for the table.
    pub fn label(self) -> &'static str {
        match self {
            Class::Ssh => "SSH",
            Class::CloudCredentials => "cloud credentials",
            Class::PackageRegistryToken => "package registry token",
            Class::ShellRc => "shell rc",
            Class::GitConfig => "git config",
            Class::KeyringDbus => "keyring/D-Bus",
            Class::SystemAccounts => "system account files",
            Class::OtherProcessEnv => "other processes' environment",
        }
    }
}

/// Home-relative rules: a path below home equal to, or under, the pattern.
const HOME_RULES: &[(&str, Class)] = &[
    (".ssh", Class::Ssh),
    (".aws", Class::CloudCredentials),
    (".config/gcloud", Class::CloudCredentials),
    (".azure", Class::CloudCredentials),
    (".kube/config", Class::CloudCredentials),
    (".config/gh/hosts.yml", Class::CloudCredentials),
    (".npmrc", Class::PackageRegistryToken),
    (".yarnrc", Class::PackageRegistryToken),
    (".yarnrc.yml", Class::PackageRegistryToken),
    (".pypirc", Class::PackageRegistryToken),
    (".config/pip/pip.conf", Class::PackageRegistryToken),
    (".cargo/credentials", Class::PackageRegistryToken),
    (".cargo/credentials.toml", Class::PackageRegistryToken),
    (".gem/credentials", Class::PackageRegistryToken),
    (".docker/config.json", Class::PackageRegistryToken),
    (".m2/settings.xml", Class::PackageRegistryToken),
    (".netrc", Class::PackageRegistryToken),
    (".bashrc", Class::ShellRc),
    (".bash_profile", Class::ShellRc),
    (".bash_login", Class::ShellRc),
    (".bash_logout", Class::ShellRc),
    (".profile", Class::ShellRc),
    (".zshrc", Class::ShellRc),
    (".zprofile", Class::ShellRc),
    (".zshenv", Class::ShellRc),
    (".zlogin", Class::ShellRc),
    (".config/fish/config.fish", Class::ShellRc),
    (".gitconfig", Class::GitConfig),
    (".config/git/config", Class::GitConfig),
    (".config/git/credentials", Class::GitConfig),
    (".git-credentials", Class::GitConfig),
    (".local/share/keyrings", Class::KeyringDbus),
    (".gnupg", Class::KeyringDbus),
    (".password-store", Class::KeyringDbus),
];

/// Absolute rules: equal to, or under, the pattern.
const ABS_RULES: &[(&str, Class)] = &[
    ("/etc/passwd", Class::SystemAccounts),
    ("/etc/shadow", Class::SystemAccounts),
    ("/etc/group", Class::SystemAccounts),
    ("/etc/gshadow", Class::SystemAccounts),
    ("/etc/sudoers", Class::SystemAccounts),
    ("/etc/sudoers.d", Class::SystemAccounts),
    ("/etc/profile", Class::ShellRc),
    ("/etc/profile.d", Class::ShellRc),
    ("/etc/bash.bashrc", Class::ShellRc),
    ("/etc/zsh", Class::ShellRc),
    ("/etc/environment", Class::ShellRc),
    ("/etc/gitconfig", Class::GitConfig),
    ("/run/dbus/system_bus_socket", Class::KeyringDbus),
    ("/var/run/dbus/system_bus_socket", Class::KeyringDbus),
];

/// File names sensitive wherever they are (a project's own `.npmrc` holds tokens too).
const ANY_DIR_NAMES: &[(&str, Class)] = &[
    (".npmrc", Class::PackageRegistryToken),
    (".pypirc", Class::PackageRegistryToken),
    (".netrc", Class::PackageRegistryToken),
    (".git-credentials", Class::GitConfig),
];

fn under(path: &[u8], pat: &[u8]) -> bool {
    crate::paths::is_under(path, pat)
}

/// The class of `path` opened by process `caller`, if it is sensitive.
pub fn classify(path: &[u8], home: Option<&[u8]>, caller: i32) -> Option<Class> {
    if let Some((target, file)) = proc_file(path) {
        return match (target, file) {
            (ProcTarget::Pid(p), b"environ") if p != caller => Some(Class::OtherProcessEnv),
            _ => None,
        };
    }
    for (pat, class) in ABS_RULES {
        if under(path, pat.as_bytes()) {
            return Some(*class);
        }
    }
    // `/run/user/<uid>/bus` and `/run/user/<uid>/keyring/…`.
    if let Some(rest) = path.strip_prefix(b"/run/user/") {
        if let Some(slash) = rest.iter().position(|&b| b == b'/') {
            let tail = &rest[slash + 1..];
            if tail == b"bus" || under(tail, b"keyring") || under(tail, b"gnupg") {
                return Some(Class::KeyringDbus);
            }
        }
    }
    if under(path, b"/etc/ssh") {
        let name = path.rsplit(|&b| b == b'/').next().unwrap_or(b"");
        if name.starts_with(b"ssh_host_") && name.ends_with(b"_key") {
            return Some(Class::Ssh);
        }
    }
    for rel in home_relative(path, home) {
        for (pat, class) in HOME_RULES {
            if under(rel, pat.as_bytes()) {
                return Some(*class);
            }
        }
    }
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(b"");
    ANY_DIR_NAMES
        .iter()
        .find(|(n, _)| name == n.as_bytes())
        .map(|(_, c)| *c)
}

/// The path relative to each plausible home: the session's, `/root`, `/home/<user>`.
fn home_relative<'a>(path: &'a [u8], home: Option<&[u8]>) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut strip = |h: &[u8]| {
        let h = h.strip_suffix(b"/").unwrap_or(h);
        if h.len() > 1 && path.len() > h.len() + 1 && path.starts_with(h) && path[h.len()] == b'/' {
            out.push(&path[h.len() + 1..]);
        }
    };
    if let Some(h) = home {
        strip(h);
    }
    strip(b"/root");
    if let Some(rest) = path.strip_prefix(b"/home/") {
        if let Some(slash) = rest.iter().position(|&b| b == b'/') {
            out.push(&rest[slash + 1..]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(p: &str) -> Option<Class> {
        classify(p.as_bytes(), Some(b"/h/me"), 100)
    }

    #[test]
    fn classes() {
        assert_eq!(c("/h/me/.ssh/id_ed25519"), Some(Class::Ssh));
        assert_eq!(c("/h/me/.ssh"), Some(Class::Ssh));
        assert_eq!(c("/home/other/.ssh/config"), Some(Class::Ssh));
        assert_eq!(c("/etc/ssh/ssh_host_rsa_key"), Some(Class::Ssh));
        assert_eq!(c("/etc/ssh/ssh_host_rsa_key.pub"), None);
        assert_eq!(c("/h/me/.aws/credentials"), Some(Class::CloudCredentials));
        assert_eq!(c("/h/me/.npmrc"), Some(Class::PackageRegistryToken));
        assert_eq!(c("/work/proj/.npmrc"), Some(Class::PackageRegistryToken));
        assert_eq!(c("/h/me/.npmrc.bak"), None);
        assert_eq!(c("/h/me/.bashrc"), Some(Class::ShellRc));
        assert_eq!(c("/etc/profile.d/locale.sh"), Some(Class::ShellRc));
        assert_eq!(c("/h/me/.gitconfig"), Some(Class::GitConfig));
        assert_eq!(c("/root/.gitconfig"), Some(Class::GitConfig));
        assert_eq!(c("/run/user/1000/bus"), Some(Class::KeyringDbus));
        assert_eq!(c("/h/me/.local/share/keyrings/login.keyring"), Some(Class::KeyringDbus));
        assert_eq!(c("/etc/passwd"), Some(Class::SystemAccounts));
        assert_eq!(c("/etc/passwd-"), None);
        assert_eq!(c("/etc/shadow"), Some(Class::SystemAccounts));
        assert_eq!(c("/proc/1/environ"), Some(Class::OtherProcessEnv));
        assert_eq!(c("/proc/100/environ"), None, "own pid");
        assert_eq!(c("/proc/self/environ"), None);
        assert_eq!(c("/proc/1/cmdline"), None);
        assert_eq!(c("/usr/lib/libc.so.6"), None);
    }
}
