//! `clawspec certify`: run the library × profiles against an engine, check the
//! clauses and report. (Verdicts and reports: crate::check, crate::report.)

use super::common::{state_root, EngineArgs, SelectArgs};
use crate::runtime::RunConfig;
use crate::suite;
use crate::trace::Outcome;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Parallel engine processes (default: number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

pub async fn main(a: Args) -> u8 {
    let spec = match a.engine.spec() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("clawspec: {e}");
            return super::EXIT_USAGE;
        }
    };
    let (profiles, scenarios, config) = match (a.select.profiles(), a.select.load(), a.engine.config()) {
        (Ok(p), Ok(s), Ok(c)) => (p, s, c),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            eprintln!("clawspec: {e}");
            return super::EXIT_USAGE;
        }
    };
    let cfg = RunConfig { engine: spec, driver: a.engine.driver(), state_root: state_root(), engine_config: config };
    let jobs = suite::jobs(&scenarios, &profiles);
    let traces = suite::run_jobs(jobs, &cfg, a.jobs.unwrap_or_else(suite::default_parallelism), |_| {}).await;
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    let mut bad = 0;
    for t in &traces {
        let status = match &t.outcome {
            Outcome::Completed { .. } => "completed".to_string(),
            Outcome::EngineFault { kind, .. } => {
                bad += 1;
                format!("engine fault: {kind}")
            }
            Outcome::HarnessError { message } => {
                bad += 1;
                format!("harness error: {message}")
            }
        };
        println!("{:<44} {:<22} {status}", t.scenario, t.profile);
    }
    if bad > 0 { super::EXIT_FAILURES } else { super::EXIT_OK }
}
