//! Runs scenarios × profiles, each with its own engine process, in parallel
//! across cores. Results come back in (scenario, profile) order whatever the
//! scheduling, so output is byte-identical run to run.

use std::sync::Arc;

use tokio::sync::Semaphore;

use clawspec_mock_providers::server::MockProvider;
use clawspec_mock_providers::validate::Rules;
use clawspec_mock_providers::Provider;

use crate::runtime::model::ScriptedModel;
use crate::runtime::profile::Profile;
use crate::driver::{Engine, EngineFault, StartFailure};
use crate::runtime::{self, RunConfig, Sim};
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
    run_jobs_until(jobs, cfg, parallelism, on_done, std::future::pending()).await.0
}

/// [`run_jobs`], stopped early when `stop` completes (a signal): the runs in
/// flight are cancelled — dropping an engine kills its process group and
/// descendants — and the finished ones are returned, in job order, with
/// `true` for "stopped".
pub async fn run_jobs_until(
    jobs: Vec<Job>,
    cfg: &RunConfig,
    parallelism: usize,
    on_done: impl Fn(&Trace) + Send + Sync + 'static,
    stop: impl std::future::Future<Output = ()>,
) -> (Vec<Trace>, bool) {
    let cfg = Arc::new(cfg.clone());
    run_each_until(jobs, parallelism, move |job| {
        let cfg = cfg.clone();
        async move { run_job(&job, &cfg).await }
    }, on_done, stop)
    .await
}

/// [`run_jobs_until`] with any way of running a job (the reference runtime,
/// or a real OpenClaw host for `certify --host`).
pub async fn run_each_until<F, Fut>(
    jobs: Vec<Job>,
    parallelism: usize,
    run: F,
    on_done: impl Fn(&Trace) + Send + Sync + 'static,
    stop: impl std::future::Future<Output = ()>,
) -> (Vec<Trace>, bool)
where
    F: Fn(Job) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Trace> + Send + 'static,
{
    let sem = Arc::new(Semaphore::new(parallelism.max(1)));
    let run = Arc::new(run);
    let on_done = Arc::new(on_done);
    let mut handles = Vec::with_capacity(jobs.len());
    for job in jobs {
        let sem = sem.clone();
        let run = run.clone();
        let on_done = on_done.clone();
        handles.push(tokio::spawn(async move {
            let _permit = sem.acquire_owned().await.expect("semaphore");
            let t = run(job).await;
            // Checking a long session takes seconds of CPU: off the async
            // workers, so a signal is still seen and other runs go on.
            match tokio::task::spawn_blocking(move || {
                on_done(&t);
                t
            })
            .await
            {
                Ok(t) => t,
                // The runtime is shutting down (an interrupted command has
                // returned): nobody waits for this run any more.
                Err(e) if e.is_cancelled() => std::future::pending().await,
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            }
        }));
    }
    let mut out = Vec::with_capacity(handles.len());
    let mut stop = std::pin::pin!(stop);
    let mut stopped = false;
    let mut pending = handles.into_iter();
    let mut current = None;
    for mut h in pending.by_ref() {
        tokio::select! {
            r = &mut h => out.push(r.expect("scenario task panicked")),
            _ = &mut stop => {
                // The awaited run is cancelled too (a dropped JoinHandle
                // would leave it running, detached).
                current = Some(h);
                stopped = true;
                break;
            }
        }
    }
    if stopped {
        for h in current.into_iter().chain(pending) {
            if h.is_finished() {
                if let Ok(t) = h.await {
                    out.push(t);
                }
            } else {
                h.abort();
                let _ = h.await;
            }
        }
    }
    (out, stopped)
}

async fn run_job(job: &Job, cfg: &RunConfig) -> Trace {
    let (model, _server) = match model_for(&job.scenario, cfg.via_http).await {
        Ok(m) => m,
        Err(e) => {
            let engine = crate::trace::EngineRecord { display: cfg.engine.display.clone(), info: None, methods: vec![], implementation: None, hooks: serde_json::Value::Null };
            return crate::trace::Trace::new(job.scenario.id.clone(), job.profile.id.clone(), engine, vec![], crate::trace::Outcome::HarnessError { message: e }, Default::default());
        }
    };
    runtime::run(&job.scenario, &job.profile, cfg, model).await
}

/// Start the engine once and complete the handshake, before any run: an
/// engine that cannot start fails the command once, with its stderr, instead
/// of once per scenario × profile.
pub async fn preflight(cfg: &RunConfig, profile: &Profile) -> Result<(), StartFailure> {
    let dir = cfg.state_root.join("preflight");
    std::fs::create_dir_all(&dir).map_err(|e| EngineFault::SpawnFailed { message: format!("cannot create {}: {e}", dir.display()) })?;
    let mut driver = cfg.driver.clone();
    driver.sandbox.state_dir = Some(dir.clone());
    let mut spec = cfg.engine.clone();
    spec.env.insert("CLAWSPEC_STATE_DIR".into(), dir.to_string_lossy().into_owned());
    let init = Sim::initialize_params(profile, cfg.engine_config.clone());
    let r = match Engine::start_noting(&spec, &driver, &init).await {
        // Killed, not shut down: how it shuts down is judged in every run.
        Ok(e) => {
            e.kill().await;
            Ok(())
        }
        Err(f) => Err(f),
    };
    let _ = std::fs::remove_dir_all(&dir);
    // The state root too when nothing else is in it: a command that stops
    // between the preflight and its runs (`record --out` unwritable) left
    // an empty /tmp/clawspec-<pid>/ behind.
    let _ = std::fs::remove_dir(&cfg.state_root);
    r
}

/// The model for a scenario: scripted in-process, or through the scenario's
/// (or, with `via_http`, the setup's) provider as a real HTTP mock server,
/// kept alive for the run.
pub async fn model_for(s: &Scenario, via_http: bool) -> Result<(Box<dyn crate::runtime::model::ModelClient>, Option<MockProvider>), String> {
    let provider = match (&s.setup.http_provider, via_http) {
        (Some(p), _) => Some(p.parse::<Provider>()?),
        (None, true) => Some(Provider::for_openclaw(&s.setup.provider, &s.setup.api).ok_or_else(|| format!("{}: no mock provider for {}/{}", s.id, s.setup.provider, s.setup.api))?),
        (None, false) => None,
    };
    match provider {
        None => Ok((Box::new(ScriptedModel), None)),
        Some(p) => {
            let server = MockProvider::start(p, Rules::default()).await;
            let model = crate::runtime::model::HttpModel { provider: p, endpoint: server.endpoint() };
            Ok((Box::new(model), Some(server)))
        }
    }
}

pub fn default_parallelism() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
}
