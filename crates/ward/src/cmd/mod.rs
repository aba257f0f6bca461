//! One module per subcommand; `dispatch` routes the parsed command line to it.

pub mod audit;
pub mod exec;
pub mod policy;
pub mod report;
pub mod sandbox;

use crate::cli::{Cli, Command};
use clap::CommandFactory;

/// Runs the chosen subcommand and returns the process exit code.
pub fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Exec(args) => exec::run(args),
        Command::Init(args) => exec::run_init(args),
        Command::Sessions(args) => audit::run_sessions(args),
        Command::Audit(args) => audit::run(args),
        Command::Report(args) => report::run(args),
        Command::Demo(args) => report::run_demo(args),
        Command::DemoAgent(args) => report::run_demo_agent(args),
        Command::Policy(args) => policy::run(args),
        Command::Config(args) => policy::run_config(args),
        Command::Sandbox(args) => sandbox::run(args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "ward", &mut std::io::stdout());
            Ok(0)
        }
    }
}
