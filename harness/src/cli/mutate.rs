//! `clawspec mutate`: the mutation score of the scenario library against an
//! engine (docs/mutation.md). Exit 0 when the run completed (and reached
//! `--min-score`), 1 below `--min-score`, 2 usage error or an unmutated
//! engine that is not certified.

use std::path::PathBuf;

use super::common::{state_root, EngineArgs, SelectArgs};
use crate::mutate::{self, equivalent, operators};
use crate::runtime::RunConfig;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Only these operators (repeatable); default: the whole catalogue.
    #[arg(long = "operator")]
    pub operators: Vec<String>,
    /// List the operator catalogue and exit.
    #[arg(long)]
    pub list: bool,
    /// Parallel engine processes per mutant (default: number of cores).
    #[arg(short = 'j', long, value_parser = super::common::at_least_one)]
    pub jobs: Option<usize>,
    /// Reviewed equivalent mutants: JSON object operator id → reason
    /// (built-in engines have their own list).
    #[arg(long)]
    pub equivalent: Option<PathBuf>,
    /// Write the JSON report (`wallMs` is the only timing field).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the Markdown report.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Leave `wallMs` out of the JSON report (byte-identical reruns).
    #[arg(long)]
    pub no_timing: bool,
    /// Run the whole library against every mutant, so `killedBy` lists every
    /// clause that catches it (default: stop at the first batch of 8
    /// scenarios that kills it).
    #[arg(long)]
    pub all_kills: bool,
    /// Exit 1 when the score (percent) is below this.
    #[arg(long)]
    pub min_score: Option<f64>,
}

pub async fn main(a: Args) -> u8 {
    super::or_usage("clawspec mutate", run(a).await)
}

async fn run(a: Args) -> Result<u8, String> {
    if a.list {
        for o in operators::OPERATORS {
            println!("{:<26} {:<20} {}", o.id, o.method, o.what);
        }
        return Ok(super::EXIT_OK);
    }
    let ops = if a.operators.is_empty() {
        operators::OPERATORS.iter().collect()
    } else {
        a.operators.iter().map(|id| operators::operator(id).ok_or_else(|| format!("unknown operator {id:?}; see `clawspec mutate --list`"))).collect::<Result<Vec<_>, _>>()?
    };
    // Refused before any mutant runs, not after all of them.
    super::outputs::check_writable(&[("--json", &a.json), ("--markdown", &a.markdown)])?;
    let engine = a.engine.spec()?;
    let profiles = a.select.profiles()?;
    let scenarios = a.select.load()?;
    if scenarios.is_empty() {
        return Err("no scenario selected: a mutation score over nothing means nothing".into());
    }
    let mut eq = equivalent::builtin(&engine.display);
    if let Some(p) = &a.equivalent {
        eq.extend(equivalent::load(p)?);
    }
    // Mutants hang and crash by design: shorter limits than certify's, so a
    // hung mutant costs seconds. The unmutated engine runs under the same ones.
    let mut driver = a.engine.driver();
    if a.engine.call_timeout_ms.is_none() {
        driver.call_timeout = std::time::Duration::from_secs(10);
    }
    if a.engine.compact_timeout_ms.is_none() {
        driver.compact_timeout = std::time::Duration::from_secs(10);
    }
    driver.shutdown_grace = std::time::Duration::from_millis(500);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the clawspec executable: {e}"))?.to_string_lossy().into_owned();
    let run = RunConfig { engine: engine.clone(), driver, state_root: state_root(), engine_config: a.engine.config()?, via_http: a.engine.via_http };
    // The unmutated engine must start: otherwise every mutant "survives"
    // or dies of the same start-up fault.
    if let Some((p, f)) = super::certify::preflight(&run, &profiles).await.inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&run.state_root);
    })?.first() {
        let _ = std::fs::remove_dir_all(&run.state_root);
        return Err(format!("under {p}, {}", super::certify::cannot_start_message(f)));
    }
    let plan = mutate::Plan {
        engine,
        exe,
        scenarios: &scenarios,
        profiles: &profiles,
        operators: ops,
        jobs: a.jobs.unwrap_or_else(crate::suite::default_parallelism),
        run,
        equivalent: eq,
        all_kills: a.all_kills,
    };
    let total = plan.operators.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let (stop, caught) = super::certify::interruption()?;
    let scored = mutate::run(&plan, |m| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let by = if m.killed_by.is_empty() { String::new() } else { format!(" by {}", m.killed_by.join(", ")) };
        eprintln!("[{n}/{total}] {:<26} {}{by}", m.id, m.status.as_str());
    });
    let report = tokio::select! {
        r = scored => r,
        _ = stop => {
            crate::driver::reaper::sweep_strays(true);
            let _ = std::fs::remove_dir_all(&plan.run.state_root);
            return Ok(super::certify::interrupted_exit("clawspec mutate", caught.load(std::sync::atomic::Ordering::SeqCst), done.load(std::sync::atomic::Ordering::Relaxed)));
        }
    };
    let _ = std::fs::remove_dir_all(&plan.run.state_root);
    let report = report?;
    let s = &report.score;
    println!("mutation score {:.1}% ({} killed, {} survived, {} equivalent of {})", s.percent, s.killed, s.survived, s.equivalent, s.mutants);
    for id in &report.survivors {
        println!("survived: {id}");
    }
    if let Some(p) = &a.json {
        std::fs::write(p, report.to_json(!a.no_timing)).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(p) = &a.markdown {
        let command = std::env::var("CLAWSPEC_MUTATE_COMMAND").unwrap_or_else(|_| "clawspec mutate".into());
        std::fs::write(p, report.markdown(&command)).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(match a.min_score {
        Some(min) if s.percent < min => super::EXIT_FAILURES,
        _ => super::EXIT_OK,
    })
}
