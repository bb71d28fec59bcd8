//! `clawspec record --engine … --out DIR`: write the engine's own golden traces
//! per scenario × profile (`DIR/<engine>/<scenario>/<profile>.json`); later
//! `certify --golden DIR` reports any drift as a regression.

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
        // The output folder is made (or refused) before any engine runs.
        if a.out.exists() && !a.out.is_dir() {
            return Err(format!("--out {}: not a directory", a.out.display()));
        }
        std::fs::create_dir_all(&a.out).map_err(|e| format!("--out {}: {e}", a.out.display()))?;
        let spec = a.engine.spec()?;
        let profiles = a.select.profiles()?;
        let scenarios = a.select.load()?;
        let cfg = RunConfig { engine: spec.clone(), driver: a.engine.driver(), state_root: state_root(), engine_config: a.engine.config()?, via_http: a.engine.via_http };
        let traces = suite::run_jobs(suite::jobs(&scenarios, &profiles), &cfg, suite::default_parallelism(), |_| {}).await;
        crate::driver::reaper::sweep_strays(false);
        let _ = std::fs::remove_dir_all(&cfg.state_root);
        let dir = crate::golden::engine_dir_name(&spec.display);
        for t in &traces {
            crate::golden::check(&a.out, &dir, t, true)?;
        }
        println!("recorded {} traces under {}/{dir}", traces.len(), a.out.display());
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
