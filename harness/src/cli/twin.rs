//! `clawspec twin --scenario ID --profile P [--engine …]`: one scenario on the
//! reference runtime and on the real OpenClaw of the profile's release; prints
//! the normalised diff of what the engine received (rules: `crate::twin`).
//! Exit 0 twins agree, 1 they differ, 3 not drivable on the real host, 2
//! usage or setup error.
//!
//! `clawspec twin --fidelity docs/fidelity.md` runs every scenario × released
//! profile × {builtin:legacy, builtin:window} and writes the fidelity table.

use std::path::PathBuf;

use super::common::{state_root, EngineArgs};
use crate::driver::EngineSpec;
use crate::realhost::{self, HostVersion, RealHostError};
use crate::runtime::profile::Profile;
use crate::runtime::{self, RunConfig};
use crate::scenario::model::Scenario;

pub const EXIT_NOT_DRIVABLE: u8 = 3;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Scenario directory (a user's own scenario files work too).
    #[arg(long, default_value = "scenarios")]
    pub scenarios: PathBuf,
    /// The scenario to twin; with `--fidelity --gate`, a glob restricting
    /// the gated rows (`--scenario 'compact-*'`, or comma-separated globs); with `--fidelity` alone, a
    /// glob (or comma-separated globs) of rows to re-twin into the table (both engines; the other rows
    /// are rendered again from the table's stored rows, `docs/fidelity.json`).
    #[arg(long, required_unless_present = "fidelity")]
    pub scenario: Option<String>,
    /// A released profile (`openclaw-2026.4.26`, `openclaw-2026.9.6`); with
    /// `--fidelity`, only that profile's rows are run.
    #[arg(long, required_unless_present = "fidelity")]
    pub profile: Option<String>,
    /// Keep the real host's work directory (config, gateway log, bridge NDJSON).
    #[arg(long)]
    pub keep: bool,
    /// Write the fidelity table of the whole library to this file.
    #[arg(long)]
    pub fidelity: Option<PathBuf>,
    /// With --fidelity: also time a fresh `npm install openclaw@VER` (cold,
    /// then warm npm cache; ~1.5 GB scratch) for the table's timing section.
    #[arg(long, requires = "fidelity")]
    pub measure_install: bool,
    /// With --fidelity: real gateways run at once (default 1). Each has its
    /// own port, HOME, state dir, mock provider and engine; 2026.4.x always
    /// runs one (it stages plugin dependencies into a shared directory).
    #[arg(long, short = 'j', requires = "fidelity", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// With --fidelity: re-run only the rows the table records as *equal*
    /// and leave the table as it is; exit 1 when one of them is no longer
    /// equal (CI's bounded regression gate; the whole table is
    /// `cargo xtask fidelity`).
    #[arg(long, requires = "fidelity", conflicts_with = "measure_install")]
    pub gate: bool,
    /// With --fidelity: consecutive rows of one release and engine whose
    /// gateway config differs only in what the release hot-applies share a
    /// gateway (rows without a held model call, channel turns or
    /// heartbeats; each row gets its own session store, seeded there when
    /// the scenario has a session, engine, mock provider and trace; --gate
    /// runs rows of one config next to each other: docs/performance.md "One
    /// gateway for several rows").
    #[arg(long, requires = "fidelity")]
    pub reuse_gateway: bool,
}

/// The result of twinning one scenario × profile × engine.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "verdict", content = "text", rename_all = "kebab-case")]
pub enum Verdict {
    Equal,
    Differs(String),
    NotDrivable(String),
    Error(String),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub scenario: String,
    pub profile: String,
    pub engine: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Wall clock of the real-host run (ms), when one ran.
    pub real_ms: Option<u64>,
    pub gateway_start_ms: Option<u64>,
    /// CPU time the gateway's process group used until ready (ms; Linux):
    /// moved far less than the wall clock by other load on the machine.
    pub gateway_start_cpu_ms: Option<u64>,
    /// Engine calls the real host made (the bridge's trace), when it ran: an
    /// *equal* row with none only shows that both hosts kept the engine out
    /// of every turn (2026.9.6 runs its own legacy engine instead of an
    /// engine that does not own compaction), not what an engine receives.
    pub engine_calls: Option<usize>,
}

pub async fn twin_one(s: &Scenario, profile: &Profile, spec: &EngineSpec, engine_args: &EngineArgs, keep: bool) -> Row {
    let mut row = Row { scenario: s.id.clone(), profile: profile.id.clone(), engine: spec.display.clone(), verdict: Verdict::Equal, real_ms: None, gateway_start_ms: None, gateway_start_cpu_ms: None, engine_calls: None };
    let version = match HostVersion::for_profile(profile) {
        Ok(v) => v,
        Err(e) => {
            row.verdict = Verdict::NotDrivable(e.0);
            return row;
        }
    };
    if let Err(e) = realhost::plan::plan(s) {
        row.verdict = Verdict::NotDrivable(e.0);
        return row;
    }
    let config = match engine_args.config() {
        Ok(c) => c,
        Err(e) => {
            row.verdict = Verdict::Error(e);
            return row;
        }
    };
    // The real host runs first: the reference then takes the inputs it does not
    // model from it (the system prompt text and the tool catalogue).
    let real = match realhost::run(s, profile, &version, spec, config.clone()).await {
        Ok(r) => r,
        Err(RealHostError::NotDrivable(e)) => {
            row.verdict = Verdict::NotDrivable(e.0);
            return row;
        }
        Err(e) => {
            row.verdict = Verdict::Error(e.to_string());
            return row;
        }
    };
    row.real_ms = real.runner["timing"]["totalMs"].as_u64();
    row.gateway_start_ms = real.runner["timing"]["gatewayStartMs"].as_u64();
    row.gateway_start_cpu_ms = real.runner["timing"]["gatewayStartCpuMs"].as_u64();
    row.engine_calls = Some(real.trace.calls().count());
    let mut s = s.clone();
    if let Some(sys) = &real.system_prompt {
        s.setup.system_prompt = Some(sys.clone());
    }
    s.setup.heartbeat_system_prompts = real.heartbeat_system_prompts.clone();
    // A row served on a shared gateway (`--reuse-gateway`): the host's state and workspace are the gateway's.
    s.setup.host_dir = Some(real.runner["gatewayWorkDir"].as_str().map_or_else(|| real.work_dir.to_string_lossy().into_owned(), str::to_string));
    s.setup.host_run_prompts = real.host_run_prompts.clone();
    s.setup.system_prompts_by_model = real.system_prompts_by_model.clone();
    if let Some(tools) = real.trace.calls().find(|c| c.method == "assemble").and_then(|c| c.params["availableTools"].as_array()) {
        s.setup.tools = tools.iter().filter_map(|t| t.as_str().map(str::to_string)).collect();
    }
    // A state root of its own: rows of a `--jobs` run share this process.
    static ROW: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let state_root = state_root().join(format!("twin-{}", ROW.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let cfg = RunConfig { engine: spec.clone(), driver: engine_args.driver(), state_root, engine_config: config, via_http: false };
    let (model, _server) = match crate::suite::model_for(&s, false).await {
        Ok(m) => m,
        Err(e) => {
            row.verdict = Verdict::Error(e);
            return row;
        }
    };
    let reference = runtime::run(&s, profile, &cfg, model).await;
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    let step_errors: Vec<(usize, String)> = real.runner["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, s)| s["error"].as_str().map(|e| (s["step"].as_u64().map_or(i, |n| n as usize), e.to_string())))
        .collect();
    row.verdict = match (crate::twin::untested(&reference, &real.trace, &step_errors), crate::twin::diff(&reference, &real.trace)) {
        (Some(why), _) => Verdict::Error(format!("{}: {why}", s.id)),
        (None, None) => Verdict::Equal,
        (None, Some(d)) => Verdict::Differs(d),
    };
    // The normalised real-host trace of every row, for comparing runs
    // (fresh vs reused gateways: docs/performance.md "One gateway for several rows").
    if let Some(dir) = std::env::var_os("CLAWSPEC_TWIN_DUMP_REAL").filter(|d| !d.is_empty()) {
        let name = format!("{}__{}__{}.txt", s.id, profile.id, spec.display).replace(['/', ':', ' '], "_");
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(std::path::Path::new(&dir).join(&name), crate::twin::render(&crate::twin::normalise(&real.trace)));
        // How the row's gateway was had (kept apart: not part of the trace).
        let t = &real.runner["timing"];
        let how = serde_json::json!({"reused": real.runner["reused"], "freshBecause": real.runner["freshBecause"], "rowOnGateway": real.runner["rowOnGateway"], "reloadMs": t["reloadMs"], "gatewayStartCpuMs": t["gatewayStartCpuMs"], "gatewayCpuMs": t["gatewayCpuMs"], "totalMs": t["totalMs"]});
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{name}.gateway.json")), format!("{how}\n"));
    }
    if keep || std::env::var_os("CLAWSPEC_TWIN_REAL_FROM").is_some() || std::env::var_os("CLAWSPEC_TWIN_KEEP").is_some_and(|v| v == "1") {
        eprintln!("clawspec twin: real host work dir kept: {}", real.work_dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&real.work_dir);
    }
    row
}

pub async fn main(a: Args) -> u8 {
    if a.fidelity.is_some() {
        super::fidelity::interruptible();
    }
    let all = match crate::scenario::load_dir(&a.scenarios) {
        Ok(l) => l,
        Err(errs) => {
            for e in errs {
                eprintln!("{e}");
            }
            return super::EXIT_USAGE;
        }
    };
    if let Some(out) = &a.fidelity {
        let all: Vec<_> = all.into_iter().map(|l| l.scenario).collect();
        let jobs = a.jobs.map_or(1, usize::from);
        realhost::reuse::enable(a.reuse_gateway);
        let code = if a.gate {
            super::fidelity::gate(&all, &a.engine, out, a.profile.as_deref(), a.scenario.as_deref(), jobs).await
        } else if let Some(filter) = a.scenario.as_deref() {
            super::fidelity::refresh(&all, &a.engine, out, a.profile.as_deref(), filter, a.measure_install, jobs).await
        } else {
            super::fidelity::write(&all, &a.engine, out, a.profile.as_deref(), a.measure_install, jobs).await
        };
        realhost::reuse::shutdown().await;
        let _ = std::fs::remove_dir(crate::realhost::work_root());
        return code;
    }
    let (Some(id), Some(pid)) = (a.scenario.as_deref(), a.profile.as_deref()) else {
        eprintln!("clawspec twin: give --scenario ID and --profile P");
        return super::EXIT_USAGE;
    };
    let Some(profile) = Profile::by_id(pid) else {
        eprintln!("clawspec twin: unknown profile {pid:?}");
        return super::EXIT_USAGE;
    };
    let Some(s) = all.into_iter().map(|l| l.scenario).find(|s| s.id == id) else {
        eprintln!("clawspec twin: no scenario {id:?} in {}", a.scenarios.display());
        return super::EXIT_USAGE;
    };
    let spec = match a.engine.spec() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("clawspec: {e}");
            return super::EXIT_USAGE;
        }
    };
    let row = twin_one(&s, &profile, &spec, &a.engine, a.keep).await;
    // The row removed its own state root and (without --keep) its work dir;
    // the per-process parents are left empty (remove_dir keeps a kept one).
    let _ = std::fs::remove_dir(state_root());
    let _ = std::fs::remove_dir(crate::realhost::work_root());
    match row.verdict {
        Verdict::Equal => {
            println!("twins agree: {} · {} · {}", row.scenario, row.profile, row.engine);
            super::EXIT_OK
        }
        Verdict::Differs(d) => {
            println!("twins differ: {} · {} · {}\n{d}", row.scenario, row.profile, row.engine);
            super::EXIT_FAILURES
        }
        Verdict::NotDrivable(why) => {
            println!("not drivable on the real host: {} · {}: {why}", row.scenario, row.profile);
            EXIT_NOT_DRIVABLE
        }
        Verdict::Error(e) => {
            eprintln!("clawspec twin: {e}");
            super::EXIT_USAGE
        }
    }
}
