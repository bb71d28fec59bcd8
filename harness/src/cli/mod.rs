//! Command line (clap). Exit codes: 0 certified / success, 1 failures found,
//! 2 usage or harness error (documented in README.md).

mod certify;
mod certify_host;
mod common;
mod diff;
mod fidelity;
mod fidelity_store;
mod doctor;
mod faults;
mod fuzz_sanitizer;
mod provider;
mod record;
mod lint;
mod list;
mod outputs;
mod progress;
mod mutate;
mod run;
mod sdk;
mod twin;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use common::{EngineArgs, SelectArgs};

#[derive(Parser, Debug)]
#[command(name = "clawspec", version, about = "Conformance suite and simulation harness for OpenClaw context engines")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Certify an engine: run the scenario library under each profile and check every clause.
    Certify(certify::Args),
    /// Run one scenario under one profile and print its trace.
    Run(run::Args),
    /// Validate scenario files (file:line:col errors).
    Lint(lint::Args),
    /// List scenarios, profiles, built-in engines or clauses.
    List(list::Args),
    /// Compare two JSON reports: newly failing, newly passing, changed messages.
    Diff(diff::DiffArgs),
    /// Merge shard reports into one.
    Merge(diff::MergeArgs),
    /// Validate a transcript file against a provider's request rules.
    Validate(provider::ValidateArgs),
    /// Serve a mock provider over HTTP (validates every request).
    ServeProvider(provider::ServeArgs),
    /// Fuzz an external transcript sanitizer against a provider's validator.
    FuzzSanitizer(fuzz_sanitizer::Args),
    /// Show what the engine sandbox enforces on this machine (measured).
    Doctor(doctor::Args),
    /// Record an engine's golden traces (for `certify --golden`).
    Record(record::Args),
    /// Run a scenario on the reference runtime and on the real OpenClaw; diff what the engine received.
    Twin(twin::Args),
    /// Mutation testing of the scenario library: certify mutants of an engine, report the score and blind spots.
    Mutate(mutate::Args),
    /// Serve a built-in engine on stdin/stdout (protocol v1).
    #[command(hide = true)]
    Engine { name: String },
    /// Serve ENGINE… with one mutation operator applied (used by `mutate`).
    #[command(hide = true)]
    MutantProxy {
        #[arg(long)]
        operator: String,
        #[arg(last = true, required = true)]
        engine: Vec<String>,
    },
}

pub const EXIT_OK: u8 = 0;
pub const EXIT_FAILURES: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Engine { name } => crate::engines::run(&name) as u8,
        Command::MutantProxy { operator, engine } => crate::mutate::proxy::run(&operator, &engine) as u8,
        Command::Mutate(a) => block_on(mutate::main(a)),
        Command::Lint(a) => lint::main(a),
        Command::List(a) => list::main(a),
        Command::Run(a) => block_on(run::main(a)),
        Command::Certify(a) => block_on(certify::main(a)),
        Command::Diff(a) => diff::diff_main(a),
        Command::Merge(a) => diff::merge_main(a),
        Command::Record(a) => block_on(record::main(a)),
        Command::Doctor(a) => doctor::main(a),
        Command::Validate(a) => provider::validate_main(a),
        Command::FuzzSanitizer(a) => block_on(fuzz_sanitizer::main(a)),
        Command::ServeProvider(a) => block_on(provider::serve_main(a)),
        Command::Twin(a) => block_on(twin::main(a)),
    };
    ExitCode::from(code)
}

/// A command's exit code, or its error on stderr (`PREFIX: …`) and exit 2.
fn or_usage(prefix: &str, r: Result<u8, String>) -> u8 {
    r.unwrap_or_else(|e| {
        eprintln!("{prefix}: {e}");
        EXIT_USAGE
    })
}

fn block_on<F: std::future::Future<Output = u8>>(f: F) -> u8 {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime").block_on(f)
}
