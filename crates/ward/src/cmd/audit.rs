//! `ward audit` (being built).

use clap::Args;

#[derive(Debug, Args)]
pub struct SessionsArgs {}

pub fn run_sessions(_args: SessionsArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

#[derive(Debug, Args)]
pub struct AuditArgs {}

pub fn run(_args: AuditArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

