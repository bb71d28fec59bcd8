//! `clawspec certify`: run the library × profiles against an engine, check the
//! clauses, report. Exit 0 certified, 1 not certified (or stale baseline /
//! golden drift), 2 usage or harness error. `--host openclaw@VER` runs the
//! same on a real OpenClaw (`certify_host`).

use std::path::PathBuf;
use std::time::Instant;

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use super::common::{state_root, EngineArgs, SelectArgs};
use super::faults;
use super::progress::Progress;
use crate::driver::{reaper, sandbox};
use crate::report::baseline::{Baseline, Scope};
use crate::report::selection::{Selection, Shard};
use crate::report::{self, render, Report};
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
    #[command(flatten)]
    pub renderings: super::outputs::Renderings,
    /// Known failures that do not fail the run; stale entries do.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Rewrite --baseline with the current failures.
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,
    /// Compare every trace with the engine's recorded goldens (`clawspec record`).
    #[arg(long)]
    pub golden: Option<PathBuf>,
    /// Parallel engine processes (default: number of cores; with --host, one
    /// gateway at a time unless given).
    #[arg(short = 'j', long, value_parser = super::common::at_least_one)]
    pub jobs: Option<usize>,
    /// A fresh engine process for every run, even for engines that can be
    /// reset and reused (the Node adapter): each process then stays confined
    /// to its own run's state dir (docs/protocol.md, "Warm reuse").
    #[arg(long)]
    pub cold: bool,
    /// Run every scenario through this real OpenClaw release instead of the
    /// reference runtime, e.g. `openclaw@2026.9.6` (fetched from npm into the
    /// cache on first use); the profile is the release's.
    #[arg(long, value_name = "openclaw@VERSION")]
    pub host: Option<String>,
}

pub async fn main(a: Args) -> u8 {
    super::or_usage("clawspec", run(a).await)
}

async fn run(a: Args) -> Result<u8, String> {
    if a.host.is_some() {
        return super::certify_host::run(a).await;
    }
    check_outputs(&a)?;
    let shard = a.shard.as_deref().map(Shard::parse).transpose()?;
    let profiles = a.select.profiles()?;
    let spec = a.engine.spec_for(&profiles)?;
    let scenarios = a.select.load()?;
    let config = a.engine.config()?;
    check_clauses(&a.clauses)?;
    let baseline = load_baseline(&a)?;
    // Shards deal out only what runs under the selected profiles: a shard of
    // scenarios that apply to none of them would test nothing, and its run
    // could never merge complete.
    let runnable: Vec<_> = scenarios.iter().filter(|l| !suite::applicable(&l.scenario, &profiles).is_empty()).cloned().collect();
    if runnable.is_empty() {
        return Err("no selected scenario applies to the selected profiles: nothing to test".into());
    }
    // A profile asked for by name that nothing would test is a usage
    // mistake; one taken by default is only left out (and named).
    if !a.select.profiles.is_empty() {
        if let Some(p) = profiles.iter().find(|p| !runnable.iter().any(|l| !suite::applicable(&l.scenario, std::slice::from_ref(*p)).is_empty())) {
            return Err(format!("--profile {}: no selected scenario runs under it: nothing to test there (drop it, or select scenarios that apply to it)", p.id));
        }
    }
    let ran = match shard {
        Some(sh) => sh.take(runnable),
        None => runnable,
    };
    if ran.is_empty() {
        return Err(format!("shard {} is empty ({} scenario(s) selected): nothing to test", a.shard.as_deref().unwrap_or(""), scenarios.len()));
    }
    let profile_ids: Vec<String> = profiles.iter().map(|p| p.id.clone()).collect();
    let selection = Selection::new(&scenarios, &a.select.scenario, &profile_ids, &a.clauses, shard, &ran);
    let jobs = suite::jobs(&ran, &profiles);
    if jobs.is_empty() {
        return Err("no selected scenario applies to the selected profiles: nothing to test".into());
    }
    let not_run: Vec<String> = profile_ids.iter().filter(|p| !jobs.iter().any(|j| &j.profile.id == *p)).cloned().collect();
    for p in &not_run {
        eprintln!("note: no selected scenario{} runs under {p}: it is left out of this run, neither certified nor counted against it", if shard.is_some() { " of this shard" } else { "" });
    }
    let profiles: Vec<_> = profiles.into_iter().filter(|p| !not_run.contains(&p.id)).collect();
    let run_ids: Vec<String> = profiles.iter().map(|p| p.id.clone()).collect();
    let mut cfg = RunConfig { engine: spec.clone(), driver: a.engine.driver(), state_root: state_root(), engine_config: config, via_http: a.engine.via_http };
    let pool = (!a.cold).then(|| Arc::new(crate::driver::pool::Pool::new()));
    cfg.driver.warm = pool.clone();
    let enforced = sandbox::probe();
    eprintln!("clawspec certify: {}", spec.display);
    for line in a.engine.sdk_lines(&profiles) {
        eprintln!("{line}");
    }
    eprintln!("{}", enforced.summary(&cfg.driver.sandbox));
    for w in enforced.warnings(&cfg.driver.sandbox) {
        eprintln!("warning: {w}");
    }
    // Signals are caught from here on, so an interrupted run still cleans up.
    let (stop, caught) = interruption()?;
    let mut stop = Box::pin(stop);
    // A signal during the handshake (real plugins take minutes) stops there too.
    let checked = tokio::select! {
        c = preflight(&cfg, &profiles) => Some(c),
        _ = &mut stop => None,
    };
    let cannot_start = match checked {
        Some(Ok(c)) => c,
        Some(Err(e)) => {
            let _ = std::fs::remove_dir_all(&cfg.state_root);
            return Err(e);
        }
        None => {
            reaper::sweep_strays(true);
            let _ = std::fs::remove_dir_all(&cfg.state_root);
            let mut r = report::build(&spec.display, &[], Vec::new(), &run_ids, a.strict, Some(selection));
            r.profiles_not_run = not_run;
            return conclude(&a, r, &[], baseline.as_ref(), Instant::now(), Some(caught.load(Ordering::SeqCst)));
        }
    };
    for (p, f) in &cannot_start {
        eprintln!("{}", crate::report::render::printable(&format!("warning: the engine cannot start under {p} ({}): {}{}; every run there fails", f.fault.kind(), f.fault, unknown_api_note(f))));
    }
    let started = Instant::now();
    let progress = Progress::new(&jobs, &a.clauses, a.strict);
    let on_done = progress.clone();
    let (traces, interrupted): (Vec<Trace>, bool) =
        suite::run_jobs_until(jobs, &cfg, a.jobs.unwrap_or_else(suite::default_parallelism), move |t| on_done.finished(t), stop).await;
    progress.finish();
    if let Some(pool) = pool.as_ref().filter(|_| interrupted) {
        pool.abandon();
    } else if let Some(pool) = &pool {
        // Parked processes end here; how they shut down is not any run's
        // verdict, but never silent.
        for f in pool.drain().await {
            eprintln!("warning: a reused engine process did not shut down cleanly: {f}");
        }
    }
    // Whatever an engine left behind that was not attributed to a run.
    let strays = reaper::sweep_strays(interrupted);
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    if strays > 0 && !interrupted {
        eprintln!("error: killed {strays} process(es) that engines left running without a trace of their origin (the run is not certified)");
    }
    let verdicts = progress.verdicts(&traces);
    let mut r = report::build(&spec.display, &traces, verdicts, &run_ids, a.strict, Some(selection));
    r.profiles_not_run = not_run;
    r.no_sandbox = !cfg.driver.sandbox.enabled;
    r.stray_processes = if interrupted { 0 } else { strays as u32 };
    if r.stray_processes > 0 {
        // Which run left them is unknown: no profile can be certified.
        for p in &mut r.profiles {
            p.certified = false;
        }
    }
    r.run_args = run_args(&a);
    r.plugin = a.engine.plugin.as_ref().map(|entry| plugin_run(entry, &a.engine.node, &traces));
    let signal = interrupted.then(|| caught.load(Ordering::SeqCst));
    conclude(&a, r, &traces, baseline.as_ref(), started, signal)
}

pub(super) fn check_outputs(a: &Args) -> Result<(), String> {
    // An input, checked with the outputs: before any engine runs.
    if let Some(g) = a.golden.as_ref().filter(|g| !g.is_dir()) {
        return Err(format!("--golden {}: no such directory (record goldens with `clawspec record --out {}`)", g.display(), g.display()));
    }
    let rewritten_baseline = if a.update_baseline { a.baseline.clone() } else { None };
    let [j, m, h] = a.renderings.flags();
    super::outputs::check_writable(&[("--report", &a.report), j, m, h, ("--baseline", &rewritten_baseline)])
}

pub(super) fn check_clauses(clauses: &[String]) -> Result<(), String> {
    for c in clauses {
        if crate::check::clause(c).is_none() {
            return Err(format!("unknown clause {c:?}; see `clawspec list clauses`"));
        }
    }
    Ok(())
}

pub(super) fn load_baseline(a: &Args) -> Result<Option<Baseline>, String> {
    Ok(match &a.baseline {
        Some(p) if p.exists() => {
            let b = Baseline::load(p)?;
            let library: Vec<String> = crate::scenario::library::load(a.select.scenarios.as_deref())?.into_iter().map(|l| l.scenario.id).collect();
            b.check_scenarios(&library, p)?;
            Some(b)
        }
        Some(_) if a.update_baseline => Some(Baseline::default()),
        Some(p) => return Err(format!("--baseline {}: no such file (use --update-baseline to create it)", p.display())),
        None => None,
    })
}

/// From a built report to the exit code, for the reference runtime and a real
/// host alike: an interrupted run (`signal`) writes what finished and never
/// certifies; otherwise goldens and the baseline are applied, every output
/// written, and the verdict returned.
pub(super) fn conclude(a: &Args, mut r: Report, traces: &[Trace], baseline: Option<&Baseline>, started: Instant, signal: Option<i32>) -> Result<u8, String> {
    if let Some(sig) = signal {
        r.interrupted = true;
        for p in &mut r.profiles {
            p.certified = false;
        }
        print!("{}", render::terminal(&r));
        // Every output asked for says so: a green JUnit of an earlier run
        // left in place would be read as this run's.
        write_opt(&a.report, &r.to_json())?;
        a.renderings.write(&r)?;
        let written = a.report.is_some() || a.renderings.any();
        eprintln!("clawspec: interrupted by {}: {} run(s) finished; engines killed, state removed{}", signal_name(sig), traces.len(), if written { "; partial reports written (marked interrupted)" } else { "" });
        return Ok((128 + sig) as u8);
    }
    if let Some(dir) = &a.golden {
        let engine_dir = crate::golden::engine_dir_name(&r.engine);
        for t in traces {
            if let Err(d) = crate::golden::check(dir, &engine_dir, t, false) {
                r.golden_drift.push(d);
            }
        }
    }
    if let Some(b) = baseline {
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
    print!("{}", faults::terminal(traces));
    write_opt(&a.report, &with_timing.to_json())?;
    a.renderings.write(&r)?;
    if traces.iter().any(|t| matches!(t.outcome, Outcome::HarnessError { .. })) {
        return Ok(super::EXIT_USAGE);
    }
    if !r.profiles.is_empty() && r.profiles.iter().all(|p| p.untested) {
        eprintln!("clawspec: nothing tested: {} run(s), and no verdict judged any of them (every selected clause was not applicable){}", r.runs.len(), if a.clauses.is_empty() { String::new() } else { format!("; --clause {} judges nothing in this selection", a.clauses.join(", ")) });
        return Ok(super::EXIT_USAGE);
    }
    Ok(if r.certified() { super::EXIT_OK } else { super::EXIT_FAILURES })
}

/// A future that completes on SIGINT or SIGTERM, and where it says which.
pub(super) fn interruption() -> Result<(impl std::future::Future<Output = ()>, Arc<AtomicI32>), String> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("cannot catch SIGINT: {e}"))?;
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("cannot catch SIGTERM: {e}"))?;
    // A closed terminal or SSH session: the engines must not outlive it either.
    let mut hup = signal(SignalKind::hangup()).map_err(|e| format!("cannot catch SIGHUP: {e}"))?;
    let caught = Arc::new(AtomicI32::new(0));
    let c = caught.clone();
    let fut = async move {
        let sig = tokio::select! {
            _ = int.recv() => libc::SIGINT,
            _ = term.recv() => libc::SIGTERM,
            _ = hup.recv() => libc::SIGHUP,
        };
        c.store(sig, Ordering::SeqCst);
    };
    Ok((fut, caught))
}

/// The exit of a command stopped by a signal after its engines were killed
/// and its state removed: 128 + the signal, as a shell reports it.
pub(super) fn interrupted_exit(command: &str, sig: i32, finished: usize) -> u8 {
    eprintln!("{command}: interrupted by {}: {finished} run(s) finished; engines killed, state removed, nothing written", signal_name(sig));
    (128 + sig) as u8
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Start the engine once per profile and handshake. A plugin can load under
/// one release and not under another (openclaw-universal-capture's factory
/// reads the context that 2026.4.26 does not pass): a refused `initialize`
/// is the profile's, returned so its runs fail (and are hollow) in the
/// report. An engine that starts nowhere, or a fault that is not the
/// profile's (spawn, crash, timeout), is the one error of the command (exit
/// 2), naming the profile when the engine had started under another.
pub(super) async fn preflight(cfg: &RunConfig, profiles: &[crate::runtime::profile::Profile]) -> Result<Vec<(String, crate::driver::StartFailure)>, String> {
    let mut cannot_start = Vec::new();
    let mut started = 0;
    for p in profiles {
        match suite::preflight(cfg, p).await {
            Ok(()) => started += 1,
            // What the engine answered to this profile's `initialize`: it may
            // well start under the others.
            Err(f) if matches!(f.fault, crate::driver::EngineFault::BadHandshake { .. } | crate::driver::EngineFault::UnsupportedProtocolVersion { .. }) => cannot_start.push((p.id.clone(), f)),
            Err(f) if profiles.len() > 1 => return Err(format!("under {}, {}", p.id, cannot_start_message(&f))),
            Err(f) => return Err(cannot_start_message(&f)),
        }
    }
    if started == 0 {
        let (p, f) = cannot_start.last().expect("a profile was selected");
        return Err(if profiles.len() > 1 { format!("under every profile (last: {p}), {}", cannot_start_message(f)) } else { cannot_start_message(f) });
    }
    Ok(cannot_start)
}

/// The one error of a command whose engine cannot start: the fault, what
/// the plugin read that the host lacks, and its stderr.
pub(super) fn cannot_start_message(f: &crate::driver::StartFailure) -> String {
    let stderr = f.fault.stderr().trim_end();
    let stderr = if stderr.is_empty() { String::new() } else { format!("\nengine stderr:\n{}", indent(stderr)) };
    crate::report::render::printable(&format!("the engine cannot start ({}): {}{}{stderr}", f.fault.kind(), f.fault, unknown_api_note(f)))
}

fn unknown_api_note(f: &crate::driver::StartFailure) -> String {
    if f.unknown_api.is_empty() {
        return String::new();
    }
    let names: Vec<String> = f.unknown_api.iter().map(|n| format!("`{n}`")).collect();
    format!("\nbefore it failed, the plugin read what the host does not provide (undefined for it): {}", names.join(", "))
}

pub(super) fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  | {l}")).collect::<Vec<_>>().join("\n")
}

fn write_opt(path: &Option<PathBuf>, text: &str) -> Result<(), String> {
    if let Some(p) = path {
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// What `reproduce:` lines append after the engine: every option of this
/// certify that changes how one run behaves (docs/reports.md).
fn run_args(a: &Args) -> Vec<String> {
    use clap::ValueEnum;
    let e = &a.engine;
    let mut out = Vec::new();
    let mut put = |flag: &str, value: String| {
        out.push(flag.to_string());
        out.push(value);
    };
    if e.plugin.is_some() {
        if e.node != "node" {
            put("--node", e.node.clone());
        }
        put("--sdk", e.sdk.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default());
        if let Some(id) = &e.engine_id {
            put("--engine-id", id.clone());
        }
    }
    if let Some(c) = &e.plugin_config {
        put("--plugin-config", c.clone());
    }
    if let Some(d) = &a.select.scenarios {
        put("--scenarios", d.to_string_lossy().into_owned());
    }
    for (flag, v) in [("--call-timeout-ms", e.call_timeout_ms), ("--compact-timeout-ms", e.compact_timeout_ms), ("--handshake-timeout-ms", e.handshake_timeout_ms)] {
        if let Some(v) = v {
            put(flag, v.to_string());
        }
    }
    for name in &e.pass_env {
        put("--pass-env", name.clone());
    }
    if e.no_sandbox {
        out.push("--no-sandbox".into());
    }
    if e.via_http {
        out.push("--via-http".into());
    }
    out
}

/// Which plugin build, Node and adapter a `--plugin` certify ran.
fn plugin_run(entry: &std::path::Path, node: &str, traces: &[Trace]) -> crate::report::PluginRun {
    use sha2::{Digest, Sha256};
    let entry_sha256 = match std::fs::read(entry) {
        Ok(bytes) => format!("sha256:{:x}", Sha256::digest(&bytes)),
        Err(e) => format!("unreadable: {e}"),
    };
    let node_version = std::process::Command::new(node)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let implementation = traces.iter().find_map(|t| t.engine.implementation.as_ref());
    let adapter = implementation.and_then(|i| Some(format!("{}@{}", i.get("name")?.as_str()?, i.get("version")?.as_str()?)));
    let package = implementation.and_then(|i| i.get("plugin")).and_then(|p| {
        let name = p.get("name")?.as_str()?;
        Some(match p.get("version").and_then(serde_json::Value::as_str) {
            Some(v) => format!("{name}@{v}"),
            None => name.to_string(),
        })
    });
    crate::report::PluginRun { entry: entry.to_string_lossy().into_owned(), entry_sha256, package, node: node.to_string(), node_version, adapter }
}
