//! `clawspec certify --host openclaw@VER …`: certification on a real OpenClaw.
//! Same engine options, clauses, baseline, shards and reports as `certify`,
//! but every scenario runs through a real gateway of that release
//! (`crate::realhost`: one gateway per scenario, each with its own loopback
//! port, HOME, state dir, workspace and mock provider). Scenarios the release
//! cannot be driven to reproduce are listed in the report with the reason:
//! not run, never passed. A run in which nothing was drivable tested nothing:
//! exit 2, never certified.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::certify::{check_clauses, check_outputs, conclude, interruption, load_baseline, Args};
use super::common::state_root;
use super::progress::Progress;
use crate::driver::{reaper, EngineSpec};
use crate::realhost::{self, install, HostVersion};
use crate::report::host::{HostRun, NotDrivable};
use crate::report::selection::{Selection, Shard};
use crate::report::{self};
use crate::runtime::profile::{Profile, PROFILE_IDS};
use crate::runtime::RunConfig;
use crate::scenario::Located;
use crate::suite::{self, Job};
use crate::trace::{EngineRecord, Outcome, Trace};

/// The release a `--host` names, and the profile that models it.
pub fn host_profile(host: &str, profiles: &[String]) -> Result<(HostVersion, Profile), String> {
    let version = HostVersion::parse(host)?;
    let id = format!("openclaw-{}", version.0);
    let released: Vec<&str> = PROFILE_IDS.iter().copied().filter(|p| !crate::runtime::profile::is_proposal(p)).collect();
    let profile = Profile::by_id(&id).filter(|p| !crate::runtime::profile::is_proposal(&p.id)).ok_or_else(|| {
        format!("--host {host}: no clawspec profile models this release (released profiles: {}); clauses are judged against the release's profile", released.join(", "))
    })?;
    if let Some(other) = profiles.iter().find(|p| **p != id) {
        return Err(format!("--profile {other} does not match --host {host}, which runs under profile {id}; drop --profile or give --profile {id}"));
    }
    Ok((version, profile))
}

/// Options that mean nothing on a real host, refused rather than ignored.
fn refuse_reference_only(a: &Args) -> Result<(), String> {
    if a.golden.is_some() {
        return Err("--golden compares with traces recorded on the reference runtime (`clawspec record`); it cannot be combined with --host".into());
    }
    if a.engine.via_http {
        return Err("--via-http: on a real host every model call already goes over HTTP to the mock provider; drop --via-http".into());
    }
    Ok(())
}

/// Split the selection into what the release can be driven to reproduce and
/// what it cannot (with why), both by scenario id.
fn split(scenarios: Vec<Located>, version: &HostVersion, profile: &Profile) -> (Vec<Located>, Vec<NotDrivable>) {
    let mut drivable = Vec::new();
    let mut not = Vec::new();
    for l in scenarios {
        match realhost::drivable(&l.scenario, version) {
            Ok(()) => drivable.push(l),
            Err(e) => not.push(NotDrivable { scenario: l.scenario.id.clone(), profile: profile.id.clone(), reason: e.0 }),
        }
    }
    drivable.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
    not.sort();
    (drivable, not)
}

fn nothing_drivable(host: &str, not: &[NotDrivable]) -> String {
    let mut msg = format!("none of the {} selected scenario(s) is drivable on {host}: nothing to test", not.len());
    for n in not.iter().take(10) {
        msg += &format!("\n  {}: {}", n.scenario, n.reason);
    }
    if not.len() > 10 {
        msg += &format!("\n  … {} more", not.len() - 10);
    }
    msg
}

pub async fn run(a: Args) -> Result<u8, String> {
    let host = a.host.clone().expect("certify_host::run is for --host");
    check_outputs(&a)?;
    refuse_reference_only(&a)?;
    let (version, profile) = host_profile(&host, &a.select.profiles)?;
    let shard = a.shard.as_deref().map(Shard::parse).transpose()?;
    let spec = a.engine.spec()?;
    let config = a.engine.config()?;
    check_clauses(&a.clauses)?;
    let baseline = load_baseline(&a)?;
    let applicable: Vec<Located> = a.select.load()?.into_iter().filter(|l| !suite::applicable(&l.scenario, std::slice::from_ref(&profile)).is_empty()).collect();
    if applicable.is_empty() {
        return Err(format!("no selected scenario applies to profile {}: nothing to test", profile.id));
    }
    let (drivable, not_drivable) = split(applicable, &version, &profile);
    if drivable.is_empty() {
        return Err(nothing_drivable(&host, &not_drivable));
    }
    // Shards split the drivable scenarios, so every shard runs some; each
    // shard's report lists the whole selection's not-drivable ones.
    let ran = match shard {
        Some(sh) => sh.take(drivable.clone()),
        None => drivable.clone(),
    };
    if ran.is_empty() {
        return Err(format!("shard {} is empty ({} drivable scenario(s) on {host}): nothing to test", a.shard.as_deref().unwrap_or(""), drivable.len()));
    }
    let profile_ids = vec![profile.id.clone()];
    let selection = Selection::new(&drivable, &a.select.scenario, &profile_ids, &a.clauses, shard, &ran);
    let jobs = suite::jobs(&ran, std::slice::from_ref(&profile));
    let parallelism = parallelism(a.jobs);

    eprintln!("clawspec certify: {} on {host} (real OpenClaw gateway, profile {})", spec.display, profile.id);
    eprintln!("{} scenario(s) to run, {} not drivable on this host (listed in the report; not run, never passed)", ran.len(), not_drivable.len());
    eprintln!("warning: the engine runs inside the real gateway, started by the bridge plugin, without clawspec's sandbox (reported as no sandbox)");
    install_host(&version).await?;

    let cfg = RunConfig { engine: spec.clone(), driver: a.engine.driver(), state_root: state_root(), engine_config: config.clone(), via_http: false };
    // Gateways and the engines they start re-parent to us if a runner dies,
    // so an interrupted run can sweep every one of them.
    reaper::become_subreaper();
    let (stop, caught) = interruption()?;
    if let Err(f) = suite::preflight(&cfg, &profile).await {
        let _ = std::fs::remove_dir_all(&cfg.state_root);
        return Err(super::certify::cannot_start_message(&f));
    }
    let _ = std::fs::remove_dir_all(&cfg.state_root);

    let started = Instant::now();
    let progress = Progress::new(&jobs, &a.clauses, a.strict);
    let on_done = progress.clone();
    let ctx = Arc::new(Ctx { version: version.clone(), spec: spec.clone(), config, warm_first: realhost::schedule::WarmFirst::default() });
    let (traces, interrupted) = suite::run_each_until(
        jobs,
        parallelism,
        move |job| {
            let ctx = ctx.clone();
            async move { host_job(&job, &ctx).await }
        },
        move |t| on_done.finished(t),
        stop,
    )
    .await;
    progress.finish();
    let strays = reaper::sweep_strays(interrupted);
    if interrupted {
        let _ = std::fs::remove_dir_all(realhost::work_root());
    } else {
        // Empty unless a failed run kept its work dir for inspection.
        let _ = std::fs::remove_dir(realhost::work_root());
    }
    if strays > 0 && !interrupted {
        eprintln!("warning: killed {strays} process(es) left running by a gateway or the engine");
    }
    let verdicts = crate::check::evaluate_all(&traces, &a.clauses);
    let mut r = report::build(&spec.display, &traces, verdicts, &profile_ids, a.strict, Some(selection));
    r.host = Some(HostRun { host: format!("openclaw@{}", version.0), not_drivable });
    r.no_sandbox = true;
    let signal = interrupted.then(|| caught.load(Ordering::SeqCst));
    conclude(&a, r, &traces, baseline.as_ref(), started, signal)
}

/// `--jobs` gateways at once, every release, as the fidelity gate runs them
/// (cli/fidelity.rs): every run has its own port, HOME, state dir and mock
/// provider, and what they share (2026.4.x's plugin stage directory, the
/// bundled-plugin subset, the persisted registry, the compile cache) is built
/// by the first run, which runs alone ([`host_job`],
/// `realhost::schedule::WarmFirst`). 2026.4.x ran one gateway at a time
/// before: its gateways serialise on the stage dir's
/// `.openclaw-runtime-deps.lock` (dist/bundled-runtime-root-*.js
/// `withBundledRuntimeDepsFilesystemLock`) only while that stage is built.
/// Default: one (a gateway is a full Node server).
fn parallelism(jobs: Option<usize>) -> usize {
    jobs.unwrap_or(1).max(1)
}

/// Fetch the release and a Node it accepts before any run, once: parallel
/// runs never install concurrently, and an unreachable registry is one clear
/// error instead of one per scenario.
async fn install_host(version: &HostVersion) -> Result<(), String> {
    let v = version.0.clone();
    tokio::task::spawn_blocking(move || -> Result<(), String> {
        let root = install::ensure_openclaw(&v).map_err(|e| e.to_string())?;
        install::ensure_node(&install::required_node(&root)).map_err(|e| e.to_string())?;
        Ok(())
    })
    .await
    .map_err(|e| format!("installing openclaw@{}: {e}", version.0))?
}

struct Ctx {
    version: HostVersion,
    spec: EngineSpec,
    config: Option<Value>,
    warm_first: realhost::schedule::WarmFirst,
}

async fn host_job(job: &Job, ctx: &Ctx) -> Trace {
    // Held until this run is done when it is the first (dropped on cancel too).
    let _first = ctx.warm_first.enter().await;
    match realhost::run(&job.scenario, &job.profile, &ctx.version, &ctx.spec, ctx.config.clone()).await {
        Ok(real) => {
            let _ = std::fs::remove_dir_all(&real.work_dir);
            real.trace
        }
        // A gateway that did not start or a runner that failed says nothing
        // about the engine: a harness error (exit 2), with where to look.
        Err(e) => {
            let engine = EngineRecord { display: ctx.spec.display.clone(), info: None, methods: vec![], implementation: None, hooks: Value::Null };
            Trace::new(job.scenario.id.clone(), job.profile.id.clone(), engine, vec![], Outcome::HarnessError { message: e.to_string() }, Default::default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("openclaw@2026.9.6", &[], Ok("openclaw-2026.9.6"))]
    #[case("openclaw@2026.4.26", &["openclaw-2026.4.26"], Ok("openclaw-2026.4.26"))]
    #[case("openclaw@2026.9.6", &["openclaw-2026.4.26"], Err("does not match --host"))]
    #[case("openclaw@2026.9.6", &["openclaw-2026.9.6+marker-drift"], Err("does not match --host"))]
    #[case("openclaw@2027.1.1", &[], Err("no clawspec profile models this release"))]
    #[case("2026.9.6", &[], Err("expected openclaw@<version>"))]
    #[case("openclaw@", &[], Err("not an npm version"))]
    fn the_host_fixes_the_profile(#[case] host: &str, #[case] profiles: &[&str], #[case] want: Result<&str, &str>) {
        let profiles: Vec<String> = profiles.iter().map(|p| p.to_string()).collect();
        match (host_profile(host, &profiles), want) {
            (Ok((_, p)), Ok(id)) => assert_eq!(p.id, id),
            (Err(e), Err(part)) => assert!(e.contains(part), "{e}"),
            (got, want) => panic!("{host} {profiles:?}: got {:?}, want {want:?}", got.map(|(_, p)| p.id)),
        }
    }

    #[test]
    fn every_release_runs_jobs_gateways_at_once_one_by_default() {
        assert_eq!(parallelism(Some(4)), 4);
        assert_eq!(parallelism(Some(0)), 1);
        assert_eq!(parallelism(None), 1);
    }
}
