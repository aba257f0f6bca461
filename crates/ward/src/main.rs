//! `ward`: run an AI coding agent (or any command) under a syscall-level supervisor, then
//! show what it did.
//!
//! The binary only parses the command line, wires the library crates together and maps
//! results to exit codes. Each subcommand lives in its own module under `cmd/`.

mod cli;
mod cmd;
mod paths;
mod review;

use clap::Parser;
use std::process::ExitCode;

/// Exit code for ward's own failures (bad usage is clap's 2).
pub const EXIT_WARD_ERROR: u8 = 125;

fn main() -> ExitCode {
    // A closed stdout (`ward report | head`) is not an error worth a panic message.
    reset_sigpipe();
    let cli = cli::Cli::parse();
    match cmd::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("ward: {err:#}");
            ExitCode::from(EXIT_WARD_ERROR)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn reset_sigpipe() {
    ward_supervise::sys::restore_default_sigpipe();
}
