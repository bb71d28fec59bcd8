//! Runs scenarios × profiles, each with its own engine process, in parallel
//! across cores. Results come back in (scenario, profile) order whatever the
//! scheduling, so output is byte-identical run to run.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::runtime::model::ScriptedModel;
use crate::runtime::profile::Profile;
use crate::runtime::{self, RunConfig};
use crate::scenario::{Located, Scenario};
use crate::trace::Trace;

/// The profiles a scenario applies to, intersected with the selection.
pub fn applicable(s: &Scenario, selected: &[Profile]) -> Vec<Profile> {
    selected
        .iter()
        .filter(|p| {
            s.profiles.is_empty()
                || s.profiles.iter().any(|sp| *sp == p.id || p.id.starts_with(&format!("{sp}+")))
        })
        .cloned()
        .collect()
}

/// One unit of work.
#[derive(Clone, Debug)]
pub struct Job {
    pub scenario: Arc<Scenario>,
    pub profile: Profile,
}

pub fn jobs(scenarios: &[Located], profiles: &[Profile]) -> Vec<Job> {
    let mut out = Vec::new();
    for l in scenarios {
        let s = Arc::new(l.scenario.clone());
        for p in applicable(&s, profiles) {
            out.push(Job { scenario: s.clone(), profile: p });
        }
    }
    out
}

/// Run every job; `on_done` is called as each finishes (progress bars).
pub async fn run_jobs(jobs: Vec<Job>, cfg: &RunConfig, parallelism: usize, on_done: impl Fn(&Trace) + Send + Sync + 'static) -> Vec<Trace> {
    let sem = Arc::new(Semaphore::new(parallelism.max(1)));
    let cfg = Arc::new(cfg.clone());
    let on_done = Arc::new(on_done);
    let mut handles = Vec::with_capacity(jobs.len());
    for job in jobs {
        let sem = sem.clone();
        let cfg = cfg.clone();
        let on_done = on_done.clone();
        handles.push(tokio::spawn(async move {
            let _permit = sem.acquire_owned().await.expect("semaphore");
            let model = model_for(&job.scenario);
            let t = runtime::run(&job.scenario, &job.profile, &cfg, model).await;
            on_done(&t);
            t
        }));
    }
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(h.await.expect("scenario task panicked"));
    }
    out
}

fn model_for(_s: &Scenario) -> Box<dyn crate::runtime::model::ModelClient> {
    Box::new(ScriptedModel)
}

pub fn default_parallelism() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
}
