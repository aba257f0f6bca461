//! `ward report` (being built).

use clap::Args;

#[derive(Debug, Args)]
pub struct ReportArgs {}

pub fn run(_args: ReportArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

#[derive(Debug, Args)]
pub struct DemoArgs {}

pub fn run_demo(_args: DemoArgs) -> anyhow::Result<u8> {
    anyhow::bail!("not built yet")
}

