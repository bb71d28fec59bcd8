//! The real-host twin: the same scenario run on a real OpenClaw gateway
//! (npm `openclaw@<version>`), with the engine under test behind the bridge
//! plugin (`adapters/openclaw-bridge/`), and the calls it received recorded
//! in clawspec's trace format so they can be compared with the reference
//! runtime's trace (`crate::twin`).
//!
//! Pieces: [`install`] fetches OpenClaw and a Node it accepts; [`plan`] maps
//! scenario steps to gateway actions (or says why it cannot); this module
//! starts the scripted mock provider (`mock-providers`, streaming the API the
//! scenario's provider speaks: [`providers`]), runs `host-runner.mjs` under that Node, and reads back the
//! bridge's NDJSON into a [`Trace`].

pub mod channel;
pub mod heartbeat;
pub mod in_flight;
pub mod install;
pub mod inter_session;
pub mod limits;
pub mod measure;
pub mod plan;
pub mod providers;
pub mod record;
pub mod reuse;
pub mod schedule;
pub mod seed;
pub mod spawn;
pub mod tools;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use crate::driver::EngineSpec;
use crate::runtime::profile::Profile;
use crate::scenario::model::Scenario;
use crate::trace::Trace;

pub use plan::NotDrivable;

/// `openclaw@<version>` as given to `--host`, or the release a profile models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostVersion(pub String);

impl HostVersion {
    pub fn parse(s: &str) -> Result<HostVersion, String> {
        let v = s.strip_prefix("openclaw@").ok_or_else(|| format!("--host {s:?}: expected openclaw@<version>, e.g. openclaw@2026.9.6"))?;
        if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || ".-".contains(c)) {
            return Err(format!("--host {s:?}: not an npm version"));
        }
        Ok(HostVersion(v.to_string()))
    }

    /// The release a released profile models; proposal and drift profiles have none.
    pub fn for_profile(p: &Profile) -> Result<HostVersion, NotDrivable> {
        if p.id.contains('+') {
            return Err(NotDrivable(format!("profile {}: marker drift is a what-if no real release exhibits", p.id)));
        }
        match p.id.strip_prefix("openclaw-") {
            Some(v) => Ok(HostVersion(v.to_string())),
            None => Err(NotDrivable(format!("profile {}: a proposal no OpenClaw release implements", p.id))),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RealHostError {
    #[error("not drivable on the real host: {0}")]
    NotDrivable(#[from] NotDrivable),
    #[error("{0}")]
    Install(#[from] install::InstallError),
    #[error("real host: {0}")]
    Run(String),
}

/// What a real-host run produced, with wall-clock figures kept apart from the trace.
pub struct RealRun {
    pub trace: Trace,
    /// `host-runner.mjs` result: per-step status and `timing` (wall clock).
    pub runner: Value,
    pub work_dir: PathBuf,
    /// The system prompt of the host's first agent attempt, as the host built it
    /// (rebuilt from the request its transport sent: `providers::system_prompt`).
    pub system_prompt: Option<String>,
    /// The system prompt of each heartbeat run of the host, in order
    /// (`realhost::heartbeat::opens_heartbeat_run`).
    pub heartbeat_system_prompts: Vec<String>,
    /// The system prompts of the host-started runs (`spawn::host_run_prompts`).
    pub host_run_prompts: crate::scenario::model::HostRunPrompts,
    /// The system prompt the host built for each model a `switch_model` step
    /// moved to ([`switched_system_prompts`]).
    pub system_prompts_by_model: std::collections::BTreeMap<String, String>,
}

/// The system prompt of the first agent request to each model a
/// `switch_model` step moves to. A provider plugin adds its own sections
/// (2026.9.6's OpenAI plugin: "Interaction Style" and the GPT-5 overlay), so
/// the attempt after a switch budgets another prompt (twin of model-switch:
/// `promptTokenBudget` 589 tokens lower on gpt-5.1).
pub fn switched_system_prompts(scenario: &Scenario, bodies: &[Value]) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for step in &scenario.script {
        let crate::scenario::model::Step::SwitchModel(sw) = step else { continue };
        let api = sw.api.clone().unwrap_or_else(|| scenario.setup.api.clone());
        let Ok(wire) = providers::mock_for(&sw.provider, &api, None) else { continue };
        if let Some(sys) = bodies.iter().find(|b| b["model"].as_str() == Some(sw.model.as_str())).and_then(|b| providers::system_prompt(wire, b)) {
            out.entry(sw.model.clone()).or_insert(sys);
        }
    }
    out
}

/// The bridge plugin directory: env `CLAWSPEC_OPENCLAW_BRIDGE`, else the
/// repository copy next to the workspace this binary was built from.
pub fn bridge_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("CLAWSPEC_OPENCLAW_BRIDGE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/openclaw-bridge")
}

/// Whether `scenario` can be driven on the real OpenClaw `version`, decided
/// without starting anything (the same checks [`run`] makes first).
pub fn drivable(scenario: &Scenario, version: &HostVersion) -> Result<(), NotDrivable> {
    drive_plan(scenario, version).map(|_| ())
}

pub(crate) fn drive_plan(scenario: &Scenario, version: &HostVersion) -> Result<plan::Plan, NotDrivable> {
    let mut plan = plan::plan(scenario)?;
    heartbeat::for_release(&mut plan, &version.0);
    spawn::for_release(&mut plan, &version.0);
    if plan.setup.seed.is_some() {
        seed::release_supports_seed(&version.0)?;
    }
    limits::check_all(&plan.release_limits, &version.0)?;
    Ok(plan)
}

/// Where this process puts its real-host work directories (one per run:
/// config, state dir, HOME, gateway log); removing it removes them all.
pub fn work_root() -> PathBuf {
    // Fixed width (as cli::common::state_root): the host's prompts embed
    // paths under it (skill locations, the workspace) and its token budget
    // counts them, so runs must not differ by the digits of a pid.
    std::env::temp_dir().join(format!("clawspec-real-{:010}", std::process::id()))
}

/// Run `scenario` on the real OpenClaw `version` with `engine` behind the bridge.
///
/// Cancel-safe with the caller's help: dropping the future SIGKILLs the host
/// runner, whose gateway and engine processes then re-parent to this process
/// when it is a child subreaper (`driver::reaper`); a caller that cancels
/// runs must sweep them (`reaper::sweep_strays`) and remove [`work_root`].
pub async fn run(scenario: &Scenario, profile: &Profile, version: &HostVersion, engine: &EngineSpec, engine_config: Option<Value>) -> Result<RealRun, RealHostError> {
    let plan = drive_plan(scenario, version)?;
    if let Some(dir) = std::env::var_os("CLAWSPEC_TWIN_REAL_FROM").filter(|d| !d.is_empty()) {
        return reread(scenario, profile, engine, PathBuf::from(dir));
    }
    let bridge = std::fs::canonicalize(bridge_dir()).map_err(|e| RealHostError::Run(format!("bridge plugin not found at {}: {e}", bridge_dir().display())))?;
    let openclaw = install::ensure_openclaw(&version.0)?;
    let node = install::ensure_node(&install::required_node(&openclaw))?;
    // 2026.4.x runs from its plugin stage directory (install::ensure_host_stage).
    let host_stage = install::ensure_host_stage(&openclaw, &version.0)?;
    let stage_dir = match &host_stage {
        Some(s) => Some(s.stage_dir.clone()),
        None => openclaw.parent().and_then(|p| p.parent()).map(|p| p.join("plugin-stage")),
    };
    let openclaw = host_stage.map_or(openclaw, |s| s.package);

    // The host's utility calls (titles, activity recaps) go to another model id
    // (host-runner.mjs sets agents.defaults.utilityModel), so only the agent
    // runs consume the script.
    let wire = providers::mock_for(&scenario.setup.provider, &scenario.setup.api, scenario.setup.http_provider.as_deref())?;
    // Replies after a switch_model step go to the mock of the model it switched to.
    let after_switch = |r: &plan::PlannedReply| plan.model_switches.first().is_some_and(|s| r.step.is_some_and(|st| st > s.step));
    let main_replies: Vec<_> = plan.replies.iter().filter(|r| !after_switch(r)).cloned().collect();
    let mock = clawspec_mock_providers::server::MockProvider::start_scripted_for_model(wire, Default::default(), main_replies, &scenario.setup.model).await;
    let mut switched = Vec::new();
    for sw in &plan.model_switches {
        let replies: Vec<_> = plan.replies.iter().filter(|r| after_switch(r)).cloned().collect();
        let m = clawspec_mock_providers::server::MockProvider::start_scripted_for_model(sw.wire, Default::default(), replies, &sw.model).await;
        switched.push((json!({"id": sw.provider, "api": sw.api, "model": sw.model, "baseUrl": providers::base_url(sw.wire, &m.uri())}), m));
    }

    // Steps that act while a model call is in flight talk to the mock through its hold front.
    let hold = match plan.holds {
        0 => None,
        _ => {
            let backend = mock.uri().trim_start_matches("http://").parse().map_err(|e| RealHostError::Run(format!("mock provider address {}: {e}", mock.uri())))?;
            Some(clawspec_mock_providers::hold::HoldFront::start(backend).await.map_err(|e| RealHostError::Run(format!("hold front: {e}")))?)
        }
    };
    let base_url = hold.as_ref().map_or_else(|| mock.uri(), |h| h.uri());

    // "row-NNNNNN": one width for every row, and the width of a shared
    // gateway's directory (reuse.rs "gwy-NNNNNN"), so a row's paths weigh the
    // same in the host's budget whichever gateway ran it.
    let work = tempdir("row")?;
    let trace_path = work.join("trace.ndjson");
    let result_path = work.join("result.json");
    let setup = &scenario.setup;
    let runner_plan = json!({
        "openclawRoot": openclaw,
        "workDir": work,
        "trace": trace_path,
        "result": result_path,
        "profile": profile.id,
        "stageDir": stage_dir,
        "compileCacheDir": compile_cache_dir(),
        "npmEnv": install::npm_network_env().into_iter().map(|(k, v)| (k, Value::String(v))).collect::<serde_json::Map<String, Value>>(),
        "provider": {"id": setup.provider, "api": setup.api, "model": setup.model, "baseUrl": providers::base_url(wire, &base_url), "contextWindow": setup.context_window, "maxTokens": setup.reserve_tokens, "timeoutSeconds": plan.provider_timeout_seconds, "stepUrl": format!("{base_url}{}", clawspec_mock_providers::server::STEP_PATH), "holdUrl": hold.as_ref().map(|h| h.uri())},
        "extraProviders": switched.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
        "bridge": {
            "dir": bridge,
            "engineId": "clawspec-bridge",
            "engine": {"program": engine.program, "args": engine.args, "env": engine.env},
            "engineConfig": engine_config.or_else(|| setup.engine_config.clone()),
        },
        "hostSetup": plan.setup,
        "toolResults": plan.tool_results,
        "subagents": plan.spawns.runner_config(),
        "steps": plan.steps,
    });
    let plan_path = work.join("plan.json");
    std::fs::write(&plan_path, serde_json::to_vec_pretty(&runner_plan).unwrap()).map_err(|e| RealHostError::Run(e.to_string()))?;
    let started = Instant::now();
    let served = reuse::enabled() && reuse::eligible(&plan, &version.0).is_none();
    let success = if served {
        // A runner's gateway is the release's and the engine's; a row's
        // provider, model and settings hot-apply (bridge lib/reuse.js
        // rowNeutral), except on 2026.4.x, where the provider's plugin is in
        // `plugins` (host-runner.mjs pluginAllowlist), which restarts it: a
        // runner per provider there.
        let provider = if reuse::release_4x(&version.0) { setup.provider.as_str() } else { "" };
        let key = serde_json::to_string(&json!([version.0, engine.program, engine.args, engine.env, provider])).unwrap();
        reuse::run_plan(&key, &reuse::group_key(&plan, setup), &node, &bridge, &plan_path).await.map_err(RealHostError::Run)?
    } else {
        tokio::process::Command::new(&node)
            .arg(bridge.join("host-runner.mjs"))
            .arg(&plan_path)
            .kill_on_drop(true)
            .status()
            .await
            .map_err(|e| RealHostError::Run(format!("cannot start {}: {e}", node.display())))?
            .success()
    };
    release_gateway_locks(&work);
    // What the host sent the provider, one JSON body a line: shows which
    // host requests consumed which scripted reply (kept with --keep).
    let bodies = mock.received_bodies().await;
    let mut lines: String = bodies.iter().map(|b| format!("{b}\n")).collect();
    for (_, m) in &switched {
        lines.extend(m.received_bodies().await.iter().map(|b| format!("{b}\n")));
    }
    let _ = std::fs::write(work.join("provider-requests.ndjson"), &lines);
    let runner: Value = std::fs::read(&result_path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or(Value::Null);
    if !success {
        let why = runner["error"].as_str().unwrap_or("no result written").to_string();
        return Err(RealHostError::Run(format!("host runner failed: {why} (work dir kept: {})", work.display())));
    }
    // A served row's trace as it was at the row's end (host-runner.mjs serveRow).
    let read_from = runner["traceFile"].as_str().map_or_else(|| trace_path.clone(), PathBuf::from);
    let ndjson = std::fs::read_to_string(&read_from).map_err(|e| RealHostError::Run(format!("{}: {e}", read_from.display())))?;
    let gateway_dir = runner["gatewayWorkDir"].as_str().map(PathBuf::from);
    let mut trace = record::to_trace_on(scenario, profile, engine, &ndjson, &work, gateway_dir.as_deref()).map_err(RealHostError::Run)?;
    trace.engine.display = engine.display.clone();
    let mut runner = runner;
    runner["timing"]["clawspecMs"] = json!(started.elapsed().as_millis() as u64);
    // The agent runs' system prompts (utility calls go to another model id): an
    // ordinary run's, and a heartbeat run's, which the host builds for another entry point.
    let log = mock.log();
    let agent_requests: Vec<&Value> = log.iter().zip(&bodies).filter(|(r, b)| providers::request_model(b, &r.path) == Some(setup.model.as_str())).map(|(_, b)| b).collect();
    let heartbeat_system_prompts: Vec<String> = agent_requests.iter().filter(|b| heartbeat::opens_heartbeat_run(b)).filter_map(|b| providers::system_prompt(wire, b)).collect();
    let system_prompt = agent_requests.iter().find(|b| !heartbeat::is_heartbeat_request(b) && !inter_session::opens_inter_session_run(b)).and_then(|b| providers::system_prompt(wire, b)).or_else(|| heartbeat_system_prompts.first().cloned()).or_else(|| agent_requests.first().and_then(|b| providers::system_prompt(wire, b)));
    if let Some(sys) = &system_prompt {
        let _ = std::fs::write(work.join("system-prompt.txt"), sys);
    }
    let mut host_run_prompts = spawn::host_run_prompts(&agent_requests, |b| providers::system_prompt(wire, b));
    host_run_prompts.inter_session = inter_session::host_run_prompt(&agent_requests, |b| providers::system_prompt(wire, b));
    let all_bodies: Vec<Value> = lines.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let system_prompts_by_model = switched_system_prompts(scenario, &all_bodies);
    Ok(RealRun { trace, runner, work_dir: work, system_prompt, heartbeat_system_prompts, host_run_prompts, system_prompts_by_model })
}

/// The gateway's SQLite lock files: the 2026.9.6 host locks every state
/// database it opens in `/tmp/openclaw-state-locks-<uid>/`, a directory it
/// hard-codes (dist `managed-handoff-runtime.mjs`
/// `resolveStateLifecycleRuntimeDirectory`; TMPDIR does not move it), and
/// leaves a 0-byte file per database behind. Their names hash the database
/// path, which lies in this row's work dir, so only this row's are removed.
fn release_gateway_locks(work: &Path) {
    // SAFETY: getuid never fails.
    let uid = unsafe { libc::getuid() };
    crate::driver::sandbox::remove_locks_of(Path::new(&format!("/tmp/openclaw-state-locks-{uid}")), work);
}

/// A kept work directory (`twin --keep`) read back instead of a new real run
/// (env `CLAWSPEC_TWIN_REAL_FROM`): re-diffs a recorded real host against a
/// changed reference runtime without starting a gateway. The directory must
/// come from the same scenario.
fn reread(scenario: &Scenario, profile: &Profile, engine: &EngineSpec, work: PathBuf) -> Result<RealRun, RealHostError> {
    let read = |name: &str| std::fs::read_to_string(work.join(name)).map_err(|e| RealHostError::Run(format!("{}: {e}", work.join(name).display())));
    let runner: Value = read("result.json").ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null);
    let gateway_dir = runner["gatewayWorkDir"].as_str().map(PathBuf::from);
    let mut trace = record::to_trace_on(scenario, profile, engine, &read("trace.ndjson")?, &work, gateway_dir.as_deref()).map_err(RealHostError::Run)?;
    trace.engine.display = engine.display.clone();
    let wire = providers::mock_for(&scenario.setup.provider, &scenario.setup.api, scenario.setup.http_provider.as_deref()).ok();
    let bodies: Vec<Value> = read("provider-requests.ndjson").map(|t| t.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()).unwrap_or_default();
    // The host-started runs' prompts, from the bodies naming the model.
    let mut host_run_prompts = crate::scenario::model::HostRunPrompts::default();
    if let Some(wire) = wire {
        let agent: Vec<&Value> = bodies.iter().filter(|b| b["model"].as_str() == Some(scenario.setup.model.as_str())).collect();
        host_run_prompts = spawn::host_run_prompts(&agent, |b| providers::system_prompt(wire, b));
        host_run_prompts.inter_session = inter_session::host_run_prompt(&agent, |b| providers::system_prompt(wire, b));
    }
    // Kept before system-prompt.txt existed: the first request naming the model in its body.
    let system_prompt = read("system-prompt.txt").ok().or_else(|| {
        let wire = wire?;
        match bodies.iter().find(|b| b["model"].as_str() == Some(scenario.setup.model.as_str()) && !inter_session::opens_inter_session_run(b)) {
            Some(b) => providers::system_prompt(wire, b),
            // Gemini names the model in the path only: the agent run's prompt is the longest.
            None => bodies.iter().filter_map(|b| providers::system_prompt(wire, b)).max_by_key(String::len),
        }
    });
    let bodies: Vec<Value> = read("provider-requests.ndjson").map(|t| t.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()).unwrap_or_default();
    let system_prompts_by_model = switched_system_prompts(scenario, &bodies);
    Ok(RealRun { trace, runner, work_dir: work, system_prompt, heartbeat_system_prompts: Vec::new(), host_run_prompts, system_prompts_by_model })
}

/// Where the gateway's Node keeps compiled module code between runs
/// (`NODE_COMPILE_CACHE`, adapters/openclaw-bridge/lib/gateway.js): shared by
/// every release and run, keyed by Node itself (version, source hash), code
/// only. `CLAWSPEC_NO_COMPILE_CACHE=1` leaves OpenClaw's default (a per-run
/// TMPDIR, so compiled afresh every start), for before/after measurements.
fn compile_cache_dir() -> Option<PathBuf> {
    if std::env::var_os("CLAWSPEC_NO_COMPILE_CACHE").is_some_and(|v| !v.is_empty() && v != "0") {
        return None;
    }
    Some(install::cache_root().join("node-compile-cache"))
}

/// A fresh directory under [`work_root`]: runs in parallel never share one.
fn tempdir(prefix: &str) -> Result<PathBuf, RealHostError> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = work_root().join(format!("{prefix}-{n:06}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| RealHostError::Run(format!("{}: {e}", dir.display())))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use sha2::{Digest as _, Sha256};

    /// A row removes the lock files of the databases in its own work dir,
    /// in the directory the real host uses, and no one else's.
    #[test]
    fn a_row_releases_its_own_gateway_locks_only() {
        let work = super::tempdir("lock-release-test").unwrap();
        let db = work.join("state/agents/main/agent/openclaw-agent.sqlite");
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        std::fs::write(&db, b"").unwrap();
        let canon = std::fs::canonicalize(&db).unwrap();
        let hex: String = Sha256::digest(canon.to_string_lossy().as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        let dir = crate::driver::sandbox::openclaw_lock_dir().unwrap();
        let ours = dir.join(format!("state-lifecycle.{}.lock.sqlite", &hex[..8]));
        let theirs = dir.join("state-lifecycle.zzzzzzzz.lock.sqlite");
        std::fs::write(&ours, b"").unwrap();
        std::fs::write(&theirs, b"").unwrap();
        super::release_gateway_locks(&work);
        let (ours_left, theirs_left) = (ours.exists(), theirs.exists());
        let _ = std::fs::remove_file(&theirs);
        let _ = std::fs::remove_dir_all(&work);
        // The per-process root too, unless a parallel test still uses it.
        let _ = std::fs::remove_dir(super::work_root());
        assert!(!ours_left, "the row's own lock file is left behind");
        assert!(theirs_left, "another row's lock file was removed");
    }
}
