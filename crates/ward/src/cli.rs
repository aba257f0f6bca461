//! The command line: clap definitions only. Each subcommand's arguments are defined next to
//! the code that runs it, in `cmd/`.

use crate::cmd;
use clap::{Parser, Subcommand, ValueEnum};

/// ward: a security supervisor for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "ward", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a command under ward's supervisor and record every operation.
    Exec(cmd::exec::ExecArgs),
    /// List recorded sessions.
    Sessions(cmd::audit::SessionsArgs),
    /// Verify or export the audit trail.
    Audit(cmd::audit::AuditArgs),
    /// Show what a session (or an strace log) touched, as tables.
    Report(cmd::report::ReportArgs),
    /// Run a built-in agent-like scenario under ward and print its report.
    Demo(cmd::report::DemoArgs),
    /// Inspect and test the policy.
    Policy(cmd::policy::PolicyArgs),
    /// Show the merged configuration.
    Config(cmd::policy::ConfigArgs),
    /// Inspect the sandbox support of this machine.
    Sandbox(cmd::sandbox::SandboxArgs),
    /// Print shell completions.
    Completions {
        /// Shell to generate completions for.
        shell: clap_complete::Shell,
    },
    /// Internal: the scripted agent of `ward demo` (not for direct use).
    #[command(name = "__demo-agent", hide = true)]
    DemoAgent(cmd::report::DemoAgentArgs),
    /// Internal: the first process of a supervised tree (not for direct use).
    #[command(name = "__init", hide = true)]
    Init(cmd::exec::InitArgs),
}

/// Output format of commands that print data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour output written to stdout: `auto` means a TTY and no `NO_COLOR`.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::IsTerminal::is_terminal(&std::io::stdout())
            }
        }
    }
}
