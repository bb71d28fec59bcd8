//! `clawspec certify`: run the library × profiles against an engine, check the
//! clauses, report. Exit 0 certified, 1 not certified (or stale baseline /
//! golden drift), 2 usage or harness error.

use std::path::PathBuf;
use std::time::Instant;

use super::common::{state_root, EngineArgs, SelectArgs};
use super::progress::Progress;
use crate::report::baseline::{Baseline, Scope};
use crate::report::selection::{Selection, Shard};
use crate::report::{self, render};
use crate::runtime::RunConfig;
use crate::suite;
use crate::trace::{Outcome, Trace};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Only these clauses (repeatable).
    #[arg(long = "clause")]
    pub clauses: Vec<String>,
    /// Run shard K of N (1-based), e.g. `--shard 2/4`; merge with `clawspec merge`.
    #[arg(long)]
    pub shard: Option<String>,
    /// SHOULD clauses also block certification.
    #[arg(long)]
    pub strict: bool,
    /// Write the JSON report (schema: docs/schema/report.json).
    #[arg(long)]
    pub report: Option<PathBuf>,
    #[arg(long)]
    pub junit: Option<PathBuf>,
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Known failures that do not fail the run; stale entries do.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Rewrite --baseline with the current failures.
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,
    /// Compare every trace with the engine's recorded goldens (`clawspec record`).
    #[arg(long)]
    pub golden: Option<PathBuf>,
    /// Parallel engine processes (default: number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

pub async fn main(a: Args) -> u8 {
    match run(a).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("clawspec: {e}");
            super::EXIT_USAGE
        }
    }
}

async fn run(a: Args) -> Result<u8, String> {
    let rewritten_baseline = if a.update_baseline { a.baseline.clone() } else { None };
    super::outputs::check_writable(&[("--report", &a.report), ("--junit", &a.junit), ("--markdown", &a.markdown), ("--html", &a.html), ("--baseline", &rewritten_baseline)])?;
    let shard = a.shard.as_deref().map(Shard::parse).transpose()?;
    let spec = a.engine.spec()?;
    let profiles = a.select.profiles()?;
    let scenarios = a.select.load()?;
    let config = a.engine.config()?;
    for c in &a.clauses {
        if crate::check::clause(c).is_none() {
            return Err(format!("unknown clause {c:?}; see `clawspec list clauses`"));
        }
    }
    let baseline = match &a.baseline {
        Some(p) if p.exists() => Some(Baseline::load(p)?),
        Some(_) if a.update_baseline => Some(Baseline::default()),
        Some(p) => return Err(format!("--baseline {}: no such file (use --update-baseline to create it)", p.display())),
        None => None,
    };
    let ran = match shard {
        Some(sh) => sh.take(scenarios.clone()),
        None => scenarios.clone(),
    };
    let profile_ids: Vec<String> = profiles.iter().map(|p| p.id.clone()).collect();
    let selection = Selection::new(&scenarios, &a.select.scenario, &profile_ids, &a.clauses, shard, &ran);
    let jobs = suite::jobs(&ran, &profiles);
    let cfg = RunConfig { engine: spec.clone(), driver: a.engine.driver(), state_root: state_root(), engine_config: config, via_http: a.engine.via_http };
    let started = Instant::now();
    let progress = Progress::new(&jobs, &a.clauses, a.strict);
    let on_done = progress.clone();
    let traces: Vec<Trace> = suite::run_jobs(jobs, &cfg, a.jobs.unwrap_or_else(suite::default_parallelism), move |t| on_done.finished(t)).await;
    progress.finish();
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    let verdicts = crate::check::evaluate_all(&traces, &a.clauses);
    let mut r = report::build(&spec.display, &traces, verdicts, &profile_ids, a.strict, Some(selection));
    if let Some(dir) = &a.golden {
        let engine_dir = crate::golden::engine_dir_name(&spec.display);
        for t in &traces {
            if let Err(d) = crate::golden::check(dir, &engine_dir, t, false) {
                r.golden_drift.push(d);
            }
        }
    }
    if let Some(b) = &baseline {
        if a.update_baseline {
            let path = a.baseline.as_ref().expect("--update-baseline requires --baseline");
            let nb = b.updated(&r.verdicts.iter().filter(|v| report::blocks(v, r.strict)).collect::<Vec<_>>(), &Scope { runs: &r.executed(), clauses: &a.clauses });
            std::fs::write(path, nb.to_json()).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("wrote {} baseline entries to {}", nb.entries.len(), path.display());
            r.apply_baseline(&nb);
        } else {
            r.apply_baseline(b);
        }
    }
    let mut with_timing = r.clone();
    with_timing.timing = Some(report::Timing { wall_ms: started.elapsed().as_millis() as u64 });
    print!("{}", render::terminal(&r));
    write_opt(&a.report, &with_timing.to_json())?;
    write_opt(&a.junit, &report::junit::junit(&r))?;
    write_opt(&a.markdown, &render::markdown(&r))?;
    write_opt(&a.html, &render::html(&r))?;
    if traces.iter().any(|t| matches!(t.outcome, Outcome::HarnessError { .. })) {
        return Ok(super::EXIT_USAGE);
    }
    Ok(if r.certified() { super::EXIT_OK } else { super::EXIT_FAILURES })
}

fn write_opt(path: &Option<PathBuf>, text: &str) -> Result<(), String> {
    if let Some(p) = path {
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}
