//! Where ward keeps its state and configuration (XDG base directories).

use std::path::PathBuf;

/// `$XDG_STATE_HOME/ward` (default `~/.local/state/ward`).
pub fn state_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("ward"));
    }
    Ok(home()?.join(".local/state/ward"))
}

/// `$XDG_CONFIG_HOME/ward` (default `~/.config/ward`).
pub fn config_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("ward"));
    }
    Ok(home()?.join(".config/ward"))
}

/// The audit database, `$XDG_STATE_HOME/ward/audit.db`.
pub fn audit_db() -> anyhow::Result<PathBuf> {
    Ok(state_dir()?.join("audit.db"))
}

fn home() -> anyhow::Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| anyhow::anyhow!("HOME is not set; set HOME or XDG_STATE_HOME/XDG_CONFIG_HOME"))
}
