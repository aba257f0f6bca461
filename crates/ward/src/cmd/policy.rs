//! `ward policy` (being built).

use clap::Args;

#[derive(Debug, Args)]
pub struct PolicyArgs {}

pub fn run(_args: PolicyArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

#[derive(Debug, Args)]
pub struct ConfigArgs {}

pub fn run_config(_args: ConfigArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

