//! Golden call traces: one trial per built-in engine × scenario × profile
//! (wasmtime `tests/wast.rs` style). `CLAWSPEC_BLESS=1` (or `cargo xtask bless`)
//! rewrites them; an unreferenced golden is an error; a determinism trial runs
//! scenarios twice and requires byte-identical traces.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

use clawspec::driver::DriverConfig;
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{self, RunConfig};
use clawspec::scenario::{load_dir, Scenario};

const ENGINES: [&str; 2] = ["window", "legacy"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn config(engine: &str) -> RunConfig {
    let exe = env!("CARGO_BIN_EXE_clawspec");
    RunConfig {
        engine: clawspec::driver::EngineSpec::builtin_at(exe, engine),
        driver: DriverConfig::default(),
        // Fixed width: prompts embed workspace paths (a media note, 2026.4.26's
        // heartbeat hint), and their token estimates must not move with the pid's digits.
        state_root: std::env::temp_dir().join(format!("clawspec-golden-{:010}", std::process::id())),
        engine_config: None,
        via_http: false,
    }
}

fn run_one(s: &Scenario, p: &Profile, engine: &str) -> clawspec::trace::Trace {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    rt.block_on(async {
        // The scenario's own model: scripted, or its HTTP mock provider.
        let (model, _server) = clawspec::suite::model_for(s, false).await.expect("model");
        runtime::run(s, p, &config(engine), model).await
    })
}

fn main() {
    let args = Arguments::from_args();
    let bless = std::env::var_os("CLAWSPEC_BLESS").is_some();
    let scenarios = load_dir(&root().join("scenarios")).unwrap_or_else(|errs| {
        for e in errs {
            eprintln!("{e}");
        }
        panic!("scenario library does not load");
    });
    let golden_root = root().join("golden");
    let mut trials = Vec::new();
    let mut referenced = BTreeSet::new();
    for l in &scenarios {
        let s = Arc::new(l.scenario.clone());
        for p in clawspec::suite::applicable(&s, &Profile::all()) {
            referenced.insert((s.id.clone(), p.id.clone()));
            for engine in ENGINES {
                let (s, p, g) = (s.clone(), p.clone(), golden_root.clone());
                let long = s.generated;
                let trial = Trial::test(format!("{engine}::{}::{}", s.id, p.id), move || {
                    let t = run_one(&s, &p, engine);
                    if s.generated {
                        clawspec::golden::check_digest(&g, engine, &t, bless).map_err(Failed::from)
                    } else {
                        clawspec::golden::check(&g, engine, &t, bless).map_err(Failed::from)
                    }
                });
                // Long sessions take minutes in a debug build: run with
                // `-- --include-ignored` (CI, `cargo xtask bless`).
                trials.push(trial.with_ignored_flag(long));
            }
        }
    }
    let g = golden_root.clone();
    trials.push(Trial::test("unreferenced-goldens", move || {
        let stale: Vec<String> = ENGINES
            .iter()
            .flat_map(|e| clawspec::golden::unreferenced(&g, e, &referenced))
            .map(|p| p.display().to_string())
            .collect();
        if stale.is_empty() {
            return Ok(());
        }
        if bless {
            for f in &stale {
                std::fs::remove_file(f).map_err(|e| Failed::from(e.to_string()))?;
            }
            return Ok(());
        }
        Err(format!("golden files no scenario × profile refers to (bless removes them):\n{}", stale.join("\n")).into())
    }));
    let sample: Vec<Scenario> = scenarios.iter().filter(|l| !l.scenario.generated).take(6).map(|l| l.scenario.clone()).collect();
    trials.push(Trial::test("determinism-two-runs-byte-identical", move || {
        for s in &sample {
            for p in Profile::all() {
                let a = run_one(s, &p, "window").to_pretty_json();
                let b = run_one(s, &p, "window").to_pretty_json();
                if a != b {
                    let d = clawspec::golden::diff(&a, &b).unwrap_or_default();
                    return Err(format!("{} × {}: two runs differ:\n{d}", s.id, p.id).into());
                }
            }
        }
        Ok(())
    }));
    let conclusion = libtest_mimic::run(&args, trials);
    // Each run removes its own state dir; the shared root is this process's.
    let _ = std::fs::remove_dir(config(ENGINES[0]).state_root);
    conclusion.exit();
}
