//! Command line (clap). Exit codes: 0 certified / success, 1 failures found,
//! 2 usage or harness error.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "clawspec", version, about = "Conformance suite and simulation harness for OpenClaw context engines")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve a built-in engine on stdin/stdout (protocol v1).
    #[command(hide = true)]
    Engine {
        name: String,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Engine { name } => ExitCode::from(crate::engines::run(&name) as u8),
    }
}
