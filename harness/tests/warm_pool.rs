//! Warm reuse (docs/protocol.md, "Warm reuse") through real Node processes:
//! one adapter process serves several runs, each with a fresh engine; the
//! state a plugin keeps at module level never reaches the next run; traces
//! are the same as with a fresh process per run. Also the OpenClaw SDK's
//! hard-coded lock directory under the sandbox. Needs `node` (≥ 20.6).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawspec::driver::pool::Pool;
use clawspec::driver::{sandbox, CallOptions, DriverConfig, Engine, EngineSpec, HostHandler, Reply};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{RunConfig, Sim};
use clawspec::scenario::load_dir;
use clawspec::suite;
use clawspec_contract::protocol::RpcError;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn plugin_spec(entry: &str) -> EngineSpec {
    let adapter = root().join("adapters/node/bin/clawspec-node-adapter.js");
    let entry = root().join("adapters/node/test/plugins").join(entry);
    EngineSpec { program: "node".into(), args: vec![adapter.to_string_lossy().into(), entry.to_string_lossy().into()], env: Default::default(), cwd: None, display: "plugin".into() }
}

struct NoHost;
impl HostHandler for NoHost {
    fn request(&mut self, m: &str, _: &Value) -> Result<Value, RpcError> {
        Err(RpcError { code: -32601, message: m.into(), data: None })
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("clawspec-warm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What the runtime does per run: a state dir under the root, in the sandbox and the environment.
fn per_run(spec: &EngineSpec, config: &DriverConfig, dir: &Path) -> (EngineSpec, DriverConfig) {
    std::fs::create_dir_all(dir).unwrap();
    let mut spec = spec.clone();
    spec.env.insert("CLAWSPEC_STATE_DIR".into(), dir.to_string_lossy().into_owned());
    let mut config = config.clone();
    config.sandbox.state_dir = Some(dir.to_path_buf());
    (spec, config)
}

async fn call(e: &mut Engine, m: &str, params: Value) -> Value {
    match e.call(m, params, CallOptions::default(), &mut NoHost).await.expect("no fault") {
        Reply::Ok(v) => v,
        Reply::Threw(err) => panic!("{m} threw {err:?}"),
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn a_warm_process_serves_each_run_a_fresh_engine_and_nothing_leaks() {
    let root = scratch("fresh");
    let spec = plugin_spec("stateful/index.js");
    let pool = Arc::new(Pool::new());
    let config = DriverConfig { warm: Some(pool.clone()), ..DriverConfig::default() };
    let init = Sim::initialize_params(&Profile::all()[0], None);
    rt().block_on(async {
        let mut pids = Vec::new();
        for (n, secret) in ["first", "second", "third"].iter().enumerate() {
            let (spec, config) = per_run(&spec, &config, &root.join(format!("run-{n}")));
            let mut e = Engine::start(&spec, &config, &init).await.expect("starts");
            pids.push(e.pid());
            let seen = call(&mut e, "assemble", json!({"messages": [], "tokenBudget": 100})).await;
            // Nothing of an earlier run, whichever process serves this one.
            assert_eq!(seen["leaked"]["moduleSeen"], json!([]), "run {n}: {seen}");
            assert_eq!(seen["leaked"]["chunkSeen"], json!([]), "run {n}: {seen}");
            assert_eq!(seen["leaked"]["kept"], json!([]), "run {n}: {seen}");
            assert_eq!(seen["leaked"]["global"], json!([]), "run {n}: {seen}");
            assert_eq!(seen["leaked"]["env"], Value::Null, "run {n}: {seen}");
            assert_eq!(seen["leaked"]["instances"], json!(1), "run {n}: {seen}");
            assert!(seen["run"]["home"].as_str().unwrap().starts_with(root.join(format!("run-{n}")).to_str().unwrap()), "{seen}");
            call(&mut e, "ingest", json!({"message": {"role": "user", "content": format!("secret of the {secret} run"), "timestamp": 1}})).await;
            let report = e.shutdown().await;
            assert!(report.exited_cleanly, "{report:?}");
        }
        // The first process only learns that the engine can be reused; the
        // second is parked after its run and serves the third.
        assert_ne!(pids[0], pids[1]);
        assert_eq!(pids[1], pids[2], "the third run reuses the second run's process");
        assert_eq!(pool.idle_count(), 1);
        assert!(pool.drain().await.is_empty());
        assert_eq!(pool.idle_count(), 0);
        assert!(clawspec::driver::reaper::stat(pids[2]).is_none_or(|p| !p.alive()), "drained processes are gone");
    });
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn warm_runs_give_the_same_traces_as_a_fresh_process_per_run() {
    let all = load_dir(&root().join("scenarios")).unwrap();
    let selected: Vec<_> = all.into_iter().filter(|l| !l.scenario.generated && (l.scenario.id.starts_with("announce") || l.scenario.id.starts_with("overflow"))).collect();
    assert!(selected.len() >= 4);
    let traces = |warm: bool| {
        let cfg = RunConfig {
            engine: plugin_spec("legacy/index.js"),
            driver: DriverConfig { warm: warm.then(|| Arc::new(Pool::new())), ..DriverConfig::default() },
            state_root: scratch(if warm { "traces-warm" } else { "traces-cold" }),
            engine_config: None,
            via_http: false,
        };
        let rt = rt();
        let t = rt.block_on(async {
            let t = suite::run_jobs(suite::jobs(&selected, &Profile::all()), &cfg, 1, |_| {}).await;
            if let Some(p) = &cfg.driver.warm {
                assert!(p.idle_count() > 0, "processes were parked");
                assert!(p.drain().await.is_empty());
            }
            t
        });
        let _ = std::fs::remove_dir_all(&cfg.state_root);
        t.iter().map(|t| serde_json::to_string_pretty(t).unwrap()).collect::<Vec<_>>()
    };
    let cold = traces(false);
    let warm = traces(true);
    assert_eq!(cold.len(), warm.len());
    for (c, w) in cold.iter().zip(&warm) {
        assert!(c == w, "warm trace differs from the cold one:\n{}", similar::TextDiff::from_lines(c, w).unified_diff());
    }
}

#[test]
fn the_sdk_lock_directory_is_writable_only_where_clawspec_allows_it() {
    if !sandbox::probe().filesystem {
        eprintln!("skipped: no Landlock on this kernel");
        return;
    }
    let lock_dir = sandbox::openclaw_lock_dir().expect("lock dir");
    let spec = plugin_spec("sdk-lock/index.js");
    let init = Sim::initialize_params(&Profile::all()[0], None);
    let root = scratch("locks");
    for allowed in [false, true] {
        let mut config = DriverConfig::default();
        if allowed {
            config.sandbox.extra_writable.push(lock_dir.clone());
        }
        let (spec, config) = per_run(&spec, &config, &root.join(format!("allowed-{allowed}")));
        let out = rt().block_on(async {
            let mut e = Engine::start(&spec, &config, &init).await.expect("starts");
            let out = call(&mut e, "ingest", json!({"message": {"role": "user", "content": "x"}})).await;
            assert!(e.shutdown().await.exited_cleanly);
            out
        });
        let lock = PathBuf::from(out["lock"].as_str().unwrap());
        assert!(lock.starts_with(&lock_dir), "{out}");
        assert_eq!(out["ok"], json!(allowed), "allowed={allowed}: {out}");
        // A run's lock files do not outlive it.
        assert!(!lock.exists(), "{} left behind", lock.display());
    }
    let _ = std::fs::remove_dir_all(&root);
}
