//! `clawspec mutate`: mutation testing of the scenario library. Each operator
//! of the catalogue ([`operators`]) is applied to a correct engine through the
//! proxy ([`proxy`]); the library is certified against every mutant. A mutant
//! is *killed* when certification fails (a MUST clause fails or errors where
//! the unmutated engine passed), *equivalent* when reviewed as behaviour no
//! host can tell apart ([`equivalent`]), else it *survived*: a blind spot of
//! the suite. Output is deterministic: mutants in catalogue order, clauses
//! sorted, the wall time only in `wallMs`.

pub mod equivalent;
pub mod operators;
pub mod proxy;
pub mod report;

use std::collections::{BTreeMap, BTreeSet};

use crate::check::{self, Level, Status, Verdict};
use crate::driver::EngineSpec;
use crate::runtime::profile::Profile;
use crate::runtime::RunConfig;
use crate::scenario::Located;
use crate::suite;
use crate::trace::Trace;

pub use report::{MutantResult, MutantStatus, MutationReport};

pub struct Plan<'a> {
    /// The engine under test, unmutated.
    pub engine: EngineSpec,
    /// The `clawspec` executable that serves `mutant-proxy`.
    pub exe: String,
    pub scenarios: &'a [Located],
    pub profiles: &'a [Profile],
    pub operators: Vec<&'static operators::Operator>,
    /// Per-mutant parallel engine processes.
    pub jobs: usize,
    pub run: RunConfig,
    /// operator id → why it is equivalent for this engine.
    pub equivalent: BTreeMap<String, String>,
    /// Run every scenario against every mutant (complete `killedBy` lists);
    /// otherwise a mutant stops at the first batch of scenarios that kills it.
    pub all_kills: bool,
}

/// Scenarios per batch when mutants stop at their first kill. Batches are
/// whole scenarios (every profile), in library order, so the result is the
/// same run to run.
const BATCH: usize = 8;

/// The engine wrapped by the proxy with `op` applied.
pub fn proxied(engine: &EngineSpec, exe: &str, op: &str) -> EngineSpec {
    let mut args = vec!["mutant-proxy".to_string(), "--operator".into(), op.into(), "--".into(), engine.program.clone()];
    args.extend(engine.args.iter().cloned());
    EngineSpec { program: exe.into(), args, env: engine.env.clone(), cwd: engine.cwd.clone(), display: format!("{} ⊕ {op}", engine.display) }
}

/// (clause, scenario, profile) of every blocking verdict.
fn blocking(vs: &[Verdict]) -> BTreeSet<(String, String, String)> {
    vs.iter()
        .filter(|v| v.level == Level::Must && matches!(v.status, Status::Fail | Status::Error))
        .map(|v| (v.clause.clone(), v.scenario.clone(), v.profile.clone()))
        .collect()
}

fn warnings(vs: &[Verdict]) -> BTreeSet<(String, String, String)> {
    vs.iter().filter(|v| v.level == Level::Should && v.status == Status::Warn).map(|v| (v.clause.clone(), v.scenario.clone(), v.profile.clone())).collect()
}

/// Certify `engine` batch by batch; with `stop_at_kill`, stop after the
/// first batch with a blocking verdict.
async fn certify(plan: &Plan<'_>, engine: EngineSpec, stop_at_kill: bool) -> (Vec<Trace>, Vec<Verdict>) {
    let mut cfg = plan.run.clone();
    cfg.engine = engine;
    let (mut traces, mut verdicts) = (Vec::new(), Vec::new());
    for batch in plan.scenarios.chunks(BATCH) {
        let ts = suite::run_jobs(suite::jobs(batch, plan.profiles), &cfg, plan.jobs, |_| {}).await;
        let vs = check::evaluate_all(&ts, &[]);
        let killed = !blocking(&vs).is_empty();
        traces.extend(ts);
        verdicts.extend(vs);
        if stop_at_kill && killed {
            break;
        }
    }
    (traces, verdicts)
}

/// Did any trace call a method the operator changes?
fn exercised(op: &operators::Operator, traces: &[Trace]) -> bool {
    op.method == "initialize" || traces.iter().any(|t| t.calls().any(|c| op.applies_to(&c.method)))
}

/// Run the whole plan. `on_mutant` is told each result as it is known.
pub async fn run(plan: &Plan<'_>, on_mutant: impl Fn(&MutantResult)) -> Result<MutationReport, String> {
    let started = std::time::Instant::now();
    let (_, base) = certify(plan, plan.engine.clone(), false).await;
    let base_blocking = blocking(&base);
    if !base_blocking.is_empty() {
        let list: Vec<String> = base_blocking.iter().take(10).map(|(c, s, p)| format!("{c} {s} × {p}")).collect();
        return Err(format!(
            "the unmutated engine is not certified on this selection ({} blocking verdicts, e.g. {}): a mutation score needs a passing engine",
            base_blocking.len(),
            list.join("; ")
        ));
    }
    let base_warn = warnings(&base);
    let mut results = Vec::new();
    for op in &plan.operators {
        let (traces, vs) = certify(plan, proxied(&plan.engine, &plan.exe, op.id), !plan.all_kills).await;
        let new_blocking = blocking(&vs);
        let mut killed_by: BTreeSet<String> = vs.iter().filter(|v| v.level == Level::Must && v.status == Status::Fail).map(|v| v.clause.clone()).collect();
        let faults: BTreeSet<String> = traces
            .iter()
            .filter_map(|t| match &t.outcome {
                crate::trace::Outcome::EngineFault { kind, .. } => Some(kind.clone()),
                _ => None,
            })
            .collect();
        if killed_by.is_empty() && !new_blocking.is_empty() {
            // Only errors: the engine broke off (the LIFE clauses judged it).
            killed_by.extend(new_blocking.iter().map(|(c, _, _)| c.clone()));
        }
        let warned_by: BTreeSet<String> = warnings(&vs).difference(&base_warn).map(|(c, _, _)| c.clone()).collect();
        let status = if !new_blocking.is_empty() {
            MutantStatus::Killed
        } else if plan.equivalent.contains_key(op.id) {
            MutantStatus::Equivalent
        } else {
            MutantStatus::Survived
        };
        let r = MutantResult {
            id: op.id.to_string(),
            what: op.what.to_string(),
            method: op.method.to_string(),
            status,
            killed_by: killed_by.into_iter().collect(),
            warned_by: warned_by.into_iter().collect(),
            faults: faults.into_iter().collect(),
            failing_verdicts: new_blocking.len(),
            exercised: exercised(op, &traces),
            reason: plan.equivalent.get(op.id).cloned().filter(|_| status == MutantStatus::Equivalent),
        };
        on_mutant(&r);
        results.push(r);
    }
    Ok(report::build(plan, results, started.elapsed().as_millis() as u64))
}
