//! `ward sandbox` (being built).

use clap::Args;

#[derive(Debug, Args)]
pub struct SandboxArgs {}

pub fn run(_args: SandboxArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

