//! The whole scenario library × 3 profiles against the built-in engines, and
//! as the floor the same number of bare engine lifecycles (spawn, handshake,
//! shutdown of the echo engine) — what any run must pay for real processes.
//!
//!     cargo bench -p clawspec --bench library

use std::path::Path;
use std::time::Instant;

use clawspec::driver::{DriverConfig, Engine, EngineSpec};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{RunConfig, Sim};
use clawspec::scenario::load_dir;
use clawspec::suite;

fn spec(program: &str, args: &[&str], display: &str) -> EngineSpec {
    EngineSpec { program: program.into(), args: args.iter().map(|s| s.to_string()).collect(), env: Default::default(), cwd: None, display: display.into() }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenarios = load_dir(&root.join("scenarios")).expect("library loads");
    let jobs = suite::jobs(&scenarios, &Profile::all());
    let n = jobs.len();
    let par = suite::default_parallelism();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    // Floor: n engine lifecycles with the same parallelism.
    let init = Sim::initialize_params(&Profile::current_2026_9_6(), None);
    let echo = spec(env!("CARGO_BIN_EXE_clawspec-fault-engine"), &["echo"], "echo");
    let t = Instant::now();
    rt.block_on(async {
        let sem = std::sync::Arc::new(tokio::sync::Semaphore::new(par));
        let mut hs = Vec::new();
        for _ in 0..n {
            let (sem, echo, init) = (sem.clone(), echo.clone(), init.clone());
            hs.push(tokio::spawn(async move {
                let _p = sem.acquire_owned().await.unwrap();
                Engine::start(&echo, &DriverConfig::default(), &init).await.unwrap().shutdown().await;
            }));
        }
        for h in hs {
            h.await.unwrap();
        }
    });
    let floor = t.elapsed();
    println!("scenario library: {} scenarios, {n} scenario × profile runs, parallelism {par}", scenarios.len());
    println!("{:<18} {:>10} {:>10}", "", "wall", "vs floor");
    println!("{:<18} {:>8.0}ms {:>9.2}×", "floor (echo)", floor.as_secs_f64() * 1e3, 1.0);
    for engine in ["window", "legacy"] {
        let cfg = RunConfig {
            engine: spec(env!("CARGO_BIN_EXE_clawspec"), &["engine", engine], engine),
            driver: DriverConfig::default(),
            state_root: std::env::temp_dir().join(format!("clawspec-bench-{}", std::process::id())),
            engine_config: None,
            via_http: false,
        };
        let t = Instant::now();
        let traces = rt.block_on(suite::run_jobs(suite::jobs(&scenarios, &Profile::all()), &cfg, par, |_| {}));
        let wall = t.elapsed();
        let _verdicts = clawspec::check::evaluate_all(&traces, &[]);
        let with_checks = t.elapsed();
        println!(
            "{:<18} {:>8.0}ms {:>9.2}×   (+ clause checks: {:.0}ms)",
            format!("builtin:{engine}"),
            wall.as_secs_f64() * 1e3,
            wall.as_secs_f64() / floor.as_secs_f64(),
            (with_checks - wall).as_secs_f64() * 1e3
        );
    }
}
