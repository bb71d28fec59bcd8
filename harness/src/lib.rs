//! clawspec: conformance suite and simulation harness for OpenClaw context engines.
//!
//! Flow: scenario → runtime (simulated OpenClaw host) → driver → engine process;
//! trace → checks (clauses) → verdicts → reports.

pub use clawspec_contract as contract;

pub mod driver;
pub mod cli;
pub mod engines;
pub mod runtime;
pub mod scenario;
pub mod trace;
pub mod suite;
pub mod check;
pub mod golden;
pub mod report;
pub mod realhost;
pub mod twin;
pub mod mutate;
