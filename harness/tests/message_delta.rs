//! `messageDelta` (docs/protocol.md, "Message deltas") is a wire encoding
//! only: every engine that accepts it gets the same traces — hence the same
//! verdicts and reports — as without it, for every scenario under every
//! profile, while each message crosses the pipe once.

mod support;

use std::path::{Path, PathBuf};

use clawspec::driver::{CallOptions, DriverConfig, Engine, EngineSpec, HostHandler, Reply};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{RunConfig, Sim};
use clawspec::scenario::load_dir;
use clawspec::suite;
use clawspec_contract::protocol::RpcError;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn builtin(name: &str) -> EngineSpec {
    EngineSpec::builtin_at(env!("CARGO_BIN_EXE_clawspec"), name)
}

/// The Python example engine, when `python3` is installed: the README's
/// test command needs only Rust, Node and npm, so without it this engine is
/// skipped, and said to be.
fn python() -> Option<EngineSpec> {
    if !std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("python3 not found: the Python example engine is not tested (install python3 to include it)");
        return None;
    }
    Some(EngineSpec {
        program: "python3".into(),
        args: vec![root().join("examples/python/legacy_engine.py").to_string_lossy().into()],
        env: Default::default(),
        cwd: None,
        display: "python3 examples/python/legacy_engine.py".into(),
    })
}

fn library(spec: &EngineSpec, delta: bool) -> Vec<String> {
    let all = load_dir(&root().join("scenarios")).unwrap();
    let selected: Vec<_> = all.into_iter().filter(|l| !l.scenario.generated).collect();
    let cfg = RunConfig {
        engine: spec.clone(),
        driver: DriverConfig { message_delta: delta, ..DriverConfig::default() },
        // Both runs' paths have one length: prompts embed the workspace path
        // (2026.4.26's heartbeat hint) and the estimates count it.
        state_root: support::shared_tmp(if delta { "delta-d1" } else { "delta-d0" }),
        engine_config: None,
        via_http: false,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let traces = rt.block_on(suite::run_jobs(suite::jobs(&selected, &Profile::all()), &cfg, 2, |_| {}));
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    traces.iter().map(|t| t.to_pretty_json()).collect()
}

#[test]
fn traces_are_identical_with_and_without_deltas() {
    for spec in [builtin("window"), builtin("legacy"), builtin("window:drop-volatile-tail")].into_iter().chain(python()) {
        let (with, without) = (library(&spec, true), library(&spec, false));
        assert_eq!(with.len(), without.len());
        for (a, b) in with.iter().zip(&without) {
            if a != b {
                let diff = similar::TextDiff::from_lines(b, a).unified_diff().context_radius(3).to_string();
                let head: String = a.chars().take(300).collect();
                panic!("{}: a trace differs with messageDelta ({head}…):\n{}", spec.display, diff.chars().take(4000).collect::<String>());
            }
        }
    }
}

struct NoHost;
impl HostHandler for NoHost {
    fn request(&mut self, m: &str, _: &Value) -> Result<Value, RpcError> {
        Err(RpcError { code: -32601, message: m.into(), data: None })
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

/// `turns` assembles of a growing history: (bytes written, every reply).
async fn grow(spec: &EngineSpec, delta: bool, turns: u32) -> (bool, u64, Vec<Reply>) {
    let config = DriverConfig { message_delta: delta, ..DriverConfig::default() };
    let init = Sim::initialize_params(&Profile::current_2026_9_6(), None);
    let mut e = Engine::start(spec, &config, &init).await.unwrap_or_else(|f| panic!("{}: {f}", spec.display));
    let accepted = e.message_delta();
    let start = e.bytes_sent();
    let mut replies = Vec::new();
    let mut history = Vec::new();
    for n in 0..turns {
        history.push(json!({"role": "user", "content": format!("question {n}: {}", "x".repeat(200)), "timestamp": 2 * n}));
        let params = json!({"sessionId": "s", "messages": history, "tokenBudget": 100_000_000});
        replies.push(e.call("assemble", params, CallOptions::default(), &mut NoHost).await.unwrap());
        history.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {n}")}], "timestamp": 2 * n + 1}));
    }
    let sent = e.bytes_sent() - start;
    let report = e.shutdown().await;
    assert!(report.exited_cleanly, "{}: {report:?}", spec.display);
    (accepted, sent, replies)
}

#[test]
fn each_message_crosses_the_pipe_once() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    for spec in [builtin("window"), builtin("legacy")].into_iter().chain(python()) {
        let (on, sent_delta, with) = rt.block_on(grow(&spec, true, 120));
        let (off, sent_full, without) = rt.block_on(grow(&spec, false, 120));
        assert!(on && !off, "{}: accepted when offered, not otherwise", spec.display);
        assert_eq!(with, without, "{}: same answers", spec.display);
        // 120 turns: the full arrays weigh ~60× the distinct messages.
        assert!(sent_delta * 20 < sent_full, "{}: {sent_delta} bytes with deltas, {sent_full} without", spec.display);
    }
}
