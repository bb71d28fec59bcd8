//! What a user sees while a run goes on: on a terminal, a progress bar with
//! scenario × profile runs done and failures so far; otherwise (CI logs) one
//! line per finished scenario. Both go to stderr; stdout stays the report.
//! Failures here are each run judged alone (cross-profile clauses wait for
//! the final report, which is the verdict).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::check::Verdict;
use crate::suite::Job;
use crate::trace::{Outcome, Trace};

#[derive(Clone)]
pub struct Progress {
    inner: Arc<Inner>,
}

struct Inner {
    bar: Option<ProgressBar>,
    clauses: Vec<String>,
    strict: bool,
    scenarios: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Runs still to finish, per scenario.
    left: BTreeMap<String, usize>,
    /// Per scenario: "CLAUSE (profile)" of each blocking problem.
    problems: BTreeMap<String, Vec<String>>,
    failures: usize,
    scenarios_done: usize,
    /// Each finished run's verdicts, judged alone: the final report reuses
    /// them where no other run is needed (checking twice doubled certify's
    /// time on long sessions).
    verdicts: BTreeMap<(String, String), Vec<Verdict>>,
}

impl Progress {
    pub fn new(jobs: &[Job], clauses: &[String], strict: bool) -> Progress {
        let target = std::io::stderr().is_terminal().then(ProgressDrawTarget::stderr);
        Progress::to(target, jobs, clauses, strict)
    }

    /// A bar drawn to `target`, or lines on stderr when `None`.
    fn to(target: Option<ProgressDrawTarget>, jobs: &[Job], clauses: &[String], strict: bool) -> Progress {
        let mut left = BTreeMap::new();
        for j in jobs {
            *left.entry(j.scenario.id.clone()).or_insert(0) += 1;
        }
        let scenarios = left.len();
        let profiles = jobs.iter().map(|j| j.profile.id.as_str()).collect::<std::collections::BTreeSet<_>>().len();
        let bar = target.map(|target| {
            let b = ProgressBar::with_draw_target(Some(jobs.len() as u64), target);
            let style = ProgressStyle::with_template(&format!("{{bar:30}} {{pos}}/{{len}} runs ({scenarios} scenarios × {profiles} profiles) {{wide_msg}}")).expect("template");
            b.set_style(style);
            b.set_message("0 failing");
            b.enable_steady_tick(std::time::Duration::from_millis(250));
            b
        });
        Progress { inner: Arc::new(Inner { bar, clauses: clauses.to_vec(), strict, scenarios, state: Mutex::new(State { left, ..Default::default() }) }) }
    }

    /// One scenario × profile run finished.
    pub fn finished(&self, t: &Trace) {
        let i = &self.inner;
        // A broken run errors on every clause: name the cause once instead.
        let verdicts = crate::check::evaluate(t, None, &i.clauses);
        let problems: Vec<String> = match &t.outcome {
            Outcome::EngineFault { kind, .. } => vec![format!("engine fault {kind} ({})", t.profile)],
            Outcome::HarnessError { .. } => vec![format!("harness error ({})", t.profile)],
            Outcome::Completed { .. } => verdicts.iter().filter(|v| crate::report::blocks(v, i.strict)).map(|v| format!("{} ({})", v.clause, t.profile)).collect(),
        };
        let mut s = i.state.lock().expect("progress state");
        s.verdicts.insert((t.scenario.clone(), t.profile.clone()), verdicts);
        if !problems.is_empty() {
            s.failures += 1;
        }
        s.problems.entry(t.scenario.clone()).or_default().extend(problems);
        let left = s.left.get_mut(&t.scenario).map(|n| {
            *n -= 1;
            *n
        });
        let scenario_done = left == Some(0);
        if scenario_done {
            s.scenarios_done += 1;
        }
        match &i.bar {
            Some(b) => {
                b.set_message(format!("{} failing · {} × {}", s.failures, t.scenario, t.profile));
                b.inc(1);
            }
            None if scenario_done => {
                let p = s.problems.remove(&t.scenario).unwrap_or_default();
                let verdict = match p.len() {
                    0 => "ok".to_string(),
                    1..=4 => format!("FAIL {}", p.join(", ")),
                    n => format!("FAIL {}, … {} more", p[..4].join(", "), n - 4),
                };
                eprintln!("[{}/{}] {}: {verdict}", s.scenarios_done, i.scenarios, t.scenario);
            }
            None => {}
        }
    }

    /// Verdicts of every run, in `traces` order: those judged as the runs
    /// finished, and the runs compared with a sibling (rfc-82137 ↔ 2026.9.6)
    /// judged now. Equal to `check::evaluate_all(traces, clauses)`.
    pub fn verdicts(&self, traces: &[Trace]) -> Vec<Verdict> {
        let mut s = self.inner.state.lock().expect("progress state");
        let mut out = Vec::new();
        for t in traces {
            let sibling = crate::check::sibling(t, traces);
            match s.verdicts.remove(&(t.scenario.clone(), t.profile.clone())) {
                Some(v) if sibling.is_none() => out.extend(v),
                _ => out.extend(crate::check::evaluate(t, sibling, &self.inner.clauses)),
            }
        }
        out
    }

    pub fn finish(&self) {
        if let Some(b) = &self.inner.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::profile::Profile;
    use crate::trace::EngineRecord;
    use serde_json::Value;

    fn jobs(ids: &[&str]) -> Vec<Job> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let loaded: Vec<_> = ids.iter().map(|id| crate::scenario::load_file(&root.join(format!("{id}.yaml"))).unwrap()).collect();
        let profiles: Vec<Profile> = ["openclaw-2026.4.26", "openclaw-2026.9.6"].iter().map(|p| Profile::by_id(p).unwrap()).collect();
        crate::suite::jobs(&loaded, &profiles)
    }

    fn faulted(job: &Job) -> Trace {
        let engine = EngineRecord { display: "test".into(), info: None, methods: vec![], implementation: None, hooks: Value::Null };
        let outcome = Outcome::EngineFault { kind: "crash-mid-call".into(), message: "gone".into(), step: 0, stderr: String::new() };
        Trace::new(job.scenario.id.clone(), job.profile.id.clone(), engine, vec![], outcome, Default::default())
    }

    /// On a terminal the bar counts runs, names the last one and the runs
    /// failing so far, and is what gets drawn (not the per-scenario lines).
    #[test]
    fn the_bar_counts_runs_and_failures_and_is_drawn() {
        let term = indicatif::InMemoryTerm::new(4, 200);
        let jobs = jobs(&["tool-loop-parallel", "tool-loop-multi-step"]);
        let p = Progress::to(Some(ProgressDrawTarget::term_like(Box::new(term.clone()))), &jobs, &[], false);
        let bar = p.inner.bar.clone().unwrap();
        assert_eq!((bar.position(), bar.length()), (0, Some(4)));
        assert_eq!(bar.message(), "0 failing");
        p.finished(&faulted(&jobs[0]));
        p.finished(&faulted(&jobs[1]));
        assert_eq!(bar.position(), 2);
        assert_eq!(bar.message(), format!("2 failing · {} × {}", jobs[1].scenario.id, jobs[1].profile.id));
        // Drawing is rate-limited, so the screen may lag the state by a draw.
        bar.tick();
        let drawn = term.contents();
        assert!(drawn.contains("/4 runs (2 scenarios × 2 profiles) ") && drawn.contains(" failing"), "{drawn:?}");
        p.finish();
        assert_eq!(term.contents().trim(), "", "the bar is cleared at the end");
    }

    /// Off a terminal there is no bar.
    #[test]
    fn no_bar_off_a_terminal() {
        let p = Progress::to(None, &jobs(&["tool-loop-parallel"]), &[], false);
        assert!(p.inner.bar.is_none());
    }
}
