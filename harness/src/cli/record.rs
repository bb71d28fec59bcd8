//! `clawspec record --engine … --out DIR`: write the engine's own golden traces
//! per scenario × profile (`DIR/<engine>/<scenario>/<profile>.json`); later
//! `certify --golden DIR` reports any drift as a regression. Exit 1 when a
//! run ended in an engine fault (its golden is written, and named).

use std::path::PathBuf;

use super::common::{state_root, EngineArgs, SelectArgs};
use crate::runtime::RunConfig;
use crate::suite;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[arg(long)]
    pub out: PathBuf,
}

pub async fn main(a: Args) -> u8 {
    let run = async {
        if a.out.exists() && !a.out.is_dir() {
            return Err(format!("--out {}: not a directory", a.out.display()));
        }
        let spec = a.engine.spec()?;
        let profiles = a.select.profiles()?;
        let scenarios = a.select.load()?;
        let cfg = RunConfig { engine: spec.clone(), driver: a.engine.driver(), state_root: state_root(), engine_config: a.engine.config()?, via_http: a.engine.via_http };
        // A golden of an engine that cannot start records nothing: refused
        // before any run, under any profile.
        let refused = super::certify::preflight(&cfg, &profiles).await.inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&cfg.state_root);
        })?;
        if let Some((p, f)) = refused.first() {
            let _ = std::fs::remove_dir_all(&cfg.state_root);
            return Err(format!("under {p}, {}; not recording (choose the profiles it starts under with --profile)", super::certify::cannot_start_message(f)));
        }
        // The output folder is made (or refused) before any engine runs.
        std::fs::create_dir_all(&a.out).map_err(|e| format!("--out {}: {e}", a.out.display()))?;
        let (stop, caught) = super::certify::interruption()?;
        let (traces, interrupted) = suite::run_jobs_until(suite::jobs(&scenarios, &profiles), &cfg, suite::default_parallelism(), |_| {}, stop).await;
        crate::driver::reaper::sweep_strays(interrupted);
        let _ = std::fs::remove_dir_all(&cfg.state_root);
        if interrupted {
            // Half a set of goldens is not written.
            return Ok(super::certify::interrupted_exit("clawspec record", caught.load(std::sync::atomic::Ordering::SeqCst), traces.len()));
        }
        let dir = crate::golden::engine_dir_name(&spec.display);
        for t in &traces {
            crate::golden::check(&a.out, &dir, t, true)?;
        }
        println!("recorded {} traces under {}/{dir}", traces.len(), a.out.display());
        // Written all the same (the fault is what they show), but a set of
        // goldens with a crash in it is not a clean recording.
        let faulted: Vec<String> = traces
            .iter()
            .filter_map(|t| match &t.outcome {
                crate::trace::Outcome::Completed { .. } => None,
                crate::trace::Outcome::EngineFault { kind, .. } => Some(format!("{} · {}: engine fault {kind}", t.scenario, t.profile)),
                crate::trace::Outcome::HarnessError { message } => Some(format!("{} · {}: harness error: {message}", t.scenario, t.profile)),
            })
            .collect();
        if !faulted.is_empty() {
            eprintln!("error: {} recorded trace(s) end in a fault, and their goldens record it (re-record once the engine is fixed):", faulted.len());
            for f in &faulted {
                eprintln!("  {}", crate::report::render::printable(f));
            }
            return Ok(super::EXIT_FAILURES);
        }
        Ok::<u8, String>(super::EXIT_OK)
    };
    match run.await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("clawspec record: {e}");
            super::EXIT_USAGE
        }
    }
}
