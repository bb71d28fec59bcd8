//! `clawspec certify`: run the library × profiles against an engine, check the
//! clauses, report. Exit 0 certified, 1 not certified (or stale baseline /
//! golden drift), 2 usage or harness error.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use super::common::{state_root, EngineArgs, SelectArgs};
use crate::report::{self, baseline::Baseline, render};
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

pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or("--shard is K/N")?;
    let (k, n): (usize, usize) = (k.parse().map_err(|_| "--shard K is not a number")?, n.parse().map_err(|_| "--shard N is not a number")?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("--shard {s}: need 1 ≤ K ≤ N"));
    }
    Ok((k, n))
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
    let mut jobs = suite::jobs(&scenarios, &profiles);
    if let Some(s) = &a.shard {
        let (k, n) = parse_shard(s)?;
        // By scenario, so every profile of a scenario lands in the same shard
        // (cross-profile clauses compare them).
        let order: Vec<String> = scenarios.iter().map(|l| l.scenario.id.clone()).collect();
        jobs.retain(|j| order.iter().position(|id| *id == j.scenario.id).is_some_and(|i| i % n == k - 1));
    }
    let cfg = RunConfig { engine: spec.clone(), driver: a.engine.driver(), state_root: state_root(), engine_config: config, via_http: a.engine.via_http };
    let started = Instant::now();
    let bar = progress(jobs.len() as u64);
    let bar2 = bar.clone();
    let traces: Vec<Trace> = suite::run_jobs(jobs, &cfg, a.jobs.unwrap_or_else(suite::default_parallelism), move |t| {
        bar2.set_message(format!("{} × {}", t.scenario, t.profile));
        bar2.inc(1);
    })
    .await;
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    let verdicts = crate::check::evaluate_all(&traces, &a.clauses);
    let profile_ids: Vec<String> = profiles.iter().map(|p| p.id.clone()).collect();
    let mut r = report::build(&spec.display, &traces, verdicts, &profile_ids, a.strict, a.shard.clone());
    if let Some(dir) = &a.golden {
        let engine_dir = crate::golden::engine_dir_name(&spec.display);
        for t in &traces {
            if let Err(d) = crate::golden::check(dir, &engine_dir, t, false) {
                r.golden_drift.push(d);
            }
        }
    }
    if let Some(b) = &baseline {
        let blocking: Vec<&crate::check::Verdict> = r.verdicts.iter().filter(|v| report::blocks(v, r.strict)).collect();
        if a.update_baseline {
            let nb = Baseline::from_failures(&blocking, b);
            let path = a.baseline.as_ref().unwrap();
            std::fs::write(path, nb.to_json()).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("wrote {} baseline entries to {}", nb.entries.len(), path.display());
            r.baseline = Some(nb.apply(&blocking));
            r.profiles = report::summarize(&r.verdicts, &profile_ids, r.strict, &|v| nb.forgives(v), &r.coverage);
        } else {
            r.baseline = Some(b.apply(&blocking));
            r.profiles = report::summarize(&r.verdicts, &profile_ids, r.strict, &|v| b.forgives(v), &r.coverage);
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

fn progress(n: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let b = indicatif::ProgressBar::new(n);
    b.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").unwrap());
    b
}
