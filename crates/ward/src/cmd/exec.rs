//! `ward exec` (being built).

use clap::Args;

#[derive(Debug, Args)]
pub struct ExecArgs {}

pub fn run(_args: ExecArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

#[derive(Debug, Args)]
pub struct InitArgs {}

pub fn run_init(_args: InitArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

