//! `ward sandbox`: what this machine's kernel offers the sandbox.
//!
//! `ward sandbox check [--format text|json]` prints which walls work here (user namespaces
//! and the sysctls that gate them, Landlock and its ABI, seccomp user notification and sync
//! wake-up), which `--sandbox` mode `ward exec` will use by default, and what to do about
//! anything missing. The JSON form is `ward_sandbox::SupportReport` serialised: fields
//! `kernel`, `uid`, `user_namespaces` / `landlock` / `seccomp_user_notif` / `sync_wake_up`
//! (each `{"available": bool, "detail": str}`), `sysctls` (`[{"name", "value", "blocks"}]`),
//! `landlock_abi`, `default_mode` (`workspace-write` | `read-only` | `landlock-only` | `off`),
//! `advice` (list of strings).
//!
//! Exit code: 0 when the default mode is `workspace-write`, 1 when ward can only run with a
//! weaker sandbox here.

use crate::cli::Format;
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct SandboxArgs {
    #[command(subcommand)]
    pub command: SandboxCommand,
}

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Print which walls this machine supports and which mode `ward exec` will use.
    Check {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

pub fn run(args: SandboxArgs) -> anyhow::Result<u8> {
    match args.command {
        SandboxCommand::Check { format } => {
            let report = ward_sandbox::check();
            match format {
                Format::Text => print!("{}", report.to_text()),
                Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
            }
            Ok(
                if report.default_mode == ward_sandbox::SandboxMode::WorkspaceWrite {
                    0
                } else {
                    1
                },
            )
        }
    }
}
