//! Every engine misbehaviour is a named fault, driven by a real misbehaving
//! child process (`clawspec-fault-engine <mode>`); after each fault a fresh
//! engine works (the run goes on) and no process survives.

use std::time::Duration;

use clawspec::driver::{CallOptions, DriverConfig, Engine, EngineFault, EngineSpec, HostHandler, Reply};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::Sim;
use clawspec_contract::protocol::RpcError;
use rstest::rstest;
use serde_json::{json, Value};

fn spec(mode: &str) -> EngineSpec {
    EngineSpec {
        program: env!("CARGO_BIN_EXE_clawspec-fault-engine").into(),
        args: vec![mode.into()],
        env: Default::default(),
        cwd: None,
        display: format!("fault:{mode}"),
    }
}

fn config() -> DriverConfig {
    DriverConfig {
        call_timeout: Duration::from_millis(400),
        compact_timeout: Duration::from_millis(400),
        initialize_timeout: Duration::from_secs(5),
        shutdown_grace: Duration::from_millis(300),
        max_line_bytes: 1024 * 1024,
        stderr_keep_bytes: 16 * 1024,
        stderr_flood_bytes: 1024 * 1024,
        ..DriverConfig::default()
    }
}

struct Host(Vec<String>);
impl HostHandler for Host {
    fn request(&mut self, m: &str, _: &Value) -> Result<Value, RpcError> {
        self.0.push(m.to_string());
        Ok(json!({"text": "a summary"}))
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

fn init() -> clawspec_contract::protocol::InitializeParams {
    Sim::initialize_params(&Profile::current_2026_9_6(), None)
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn group_alive(pgid: i32) -> bool {
    unsafe { libc::killpg(pgid, 0) == 0 }
}

/// Start, make one call, return the fault kind (or "ok"/"threw") and the stderr slice.
async fn one_call(mode: &str, opts: CallOptions) -> (String, String, i32) {
    let mut e = match Engine::start(&spec(mode), &config(), &init()).await {
        Ok(e) => e,
        Err(f) => return (f.kind().into(), f.stderr().into(), 0),
    };
    let pid = e.pid();
    let r = e.call("assemble", json!({"sessionId":"s","messages":[]}), opts, &mut Host(vec![])).await;
    let out = match r {
        Ok(Reply::Ok(_)) => ("ok".to_string(), String::new()),
        Ok(Reply::Threw(err)) => (format!("threw:{}", err.code), String::new()),
        Err(f) => (f.kind().to_string(), f.stderr().to_string()),
    };
    e.kill().await;
    (out.0, out.1, pid)
}

#[rstest]
#[case::crash_at_start("crash-at-start", "crash-at-start", Some("crashing at start"))]
#[case::bad_version("bad-version", "unsupported-protocol-version", None)]
#[case::crash_mid_call("crash-mid-call", "crash-mid-call", Some("panicking inside assemble"))]
#[case::hang("hang", "timeout", Some("hanging in assemble"))]
#[case::non_json("non-json", "non-json-line", None)]
#[case::partial_line("partial-line", "partial-line", None)]
#[case::wrong_id("wrong-id", "wrong-id", None)]
#[case::oversized("oversized", "oversized-response", None)]
#[case::invalid_utf8("invalid-utf8", "invalid-utf8", None)]
#[case::exit0_early("exit0-early", "exit-before-shutdown", None)]
#[case::stderr_flood("stderr-flood", "stderr-flood", None)]
#[case::stderr_burst("stderr-burst", "stderr-flood", None)]
#[case::close_stdout("close-stdout", "closed-stdout", Some("stdout closed"))]
#[case::log_flood("log-flood", "log-flood", None)]
#[case::throw("throw", "threw:-32000", None)]
#[tokio::test]
async fn misbehaviour_is_a_named_fault(#[case] mode: &str, #[case] kind: &str, #[case] stderr_has: Option<&str>) {
    // Only the hang is meant to meet the timeout; the others are faults of
    // what the engine sends, which a loaded machine (CI's tests run in
    // parallel) may take seconds to produce (2 MB lines, 5 M log lines):
    // a short timeout turned them into `timeout` under load.
    let timeout = if mode == "hang" { Duration::from_millis(400) } else { Duration::from_secs(60) };
    let (got, stderr, pid) = one_call(mode, CallOptions { timeout: Some(timeout), ..CallOptions::default() }).await;
    assert_eq!(got, kind, "mode {mode}");
    if let Some(s) = stderr_has {
        assert!(stderr.contains(s), "stderr of {mode} not attached: {stderr:?}");
    }
    if pid > 0 {
        assert!(!alive(pid), "{mode}: engine process {pid} survived");
    }
    // The run goes on: a fresh engine works after the fault.
    let (after, _, _) = one_call("echo", CallOptions::default()).await;
    assert_eq!(after, "ok");
}

#[tokio::test]
async fn spawn_failure_names_the_program() {
    let mut s = spec("echo");
    s.program = "/nonexistent/engine-binary".into();
    let err = Engine::start(&s, &config(), &init()).await.err().expect("fails");
    assert_eq!(err.kind(), "spawn-failed");
    assert!(err.to_string().contains("/nonexistent/engine-binary"), "{err}");
}

#[tokio::test]
async fn kill_reaches_grandchildren() {
    let mut e = Engine::start(&spec("spawn-grandchild-and-hang"), &config(), &init()).await.unwrap();
    let pgid = e.pid();
    let r = e.call("assemble", json!({}), CallOptions::default(), &mut Host(vec![])).await;
    assert!(matches!(r, Err(EngineFault::Timeout { .. })));
    let stderr = e.stderr_tail();
    e.kill().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let grandchild: i32 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("grandchild pid "))
        .and_then(|p| p.trim().parse().ok())
        .expect("the engine reported its grandchild");
    assert!(!running(grandchild), "grandchild {grandchild} of group {pgid} survived the kill");
    assert!(!running(pgid));
}

/// Running = exists and is not a zombie (a killed orphan may wait for a reaper).
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let state = stat.rsplit(')').next().and_then(|r| r.split_whitespace().next()).unwrap_or("");
            state != "Z" && state != "X" && group_alive(pid)
        }
    }
}

#[tokio::test]
async fn abort_signal_turns_a_timeout_into_an_abort_rejection() {
    let opts = CallOptions { timeout: Some(Duration::from_millis(200)), abort_signal: Some("sig-1".into()) };
    let (got, _, _) = one_call("abort-aware", opts.clone()).await;
    assert_eq!(got, "threw:-32001");
    // An engine that ignores the abort still times out.
    let (got, _, _) = one_call("hang", opts).await;
    assert_eq!(got, "timeout");
}

#[tokio::test]
async fn host_callbacks_are_served_mid_call() {
    let mut e = Engine::start(&spec("llm-callback"), &config(), &init()).await.unwrap();
    let mut host = Host(vec![]);
    let r = e.call("compact", json!({}), CallOptions::default(), &mut host).await.unwrap();
    assert_eq!(r, Reply::Ok(json!({"echo": {"text": "a summary"}})));
    assert_eq!(host.0, ["host/llm.complete"]);
    let report = e.shutdown().await;
    assert!(report.exited_cleanly, "{report:?}");
}

#[tokio::test]
async fn shutdown_kills_an_engine_that_does_not_exit() {
    let e = Engine::start(&spec("ignore-shutdown"), &config(), &init()).await.unwrap();
    let pid = e.pid();
    let report = e.shutdown().await;
    assert!(!report.exited_cleanly);
    assert_eq!(report.fault.map(|f| f.kind()), Some("no-exit-after-shutdown"));
    assert!(!alive(pid));
}

#[tokio::test]
async fn well_behaved_engine_exits_after_shutdown() {
    let e = Engine::start(&spec("echo"), &config(), &init()).await.unwrap();
    let report = e.shutdown().await;
    assert!(report.exited_cleanly && report.fault.is_none(), "{report:?}");
    assert_eq!(report.exit_status.as_deref(), Some("exit code 0"));
}

#[rstest]
#[case::close_stdout("close-stdout", "closed-stdout", "closed stdout but kept running")]
#[case::non_json_shows_the_line("non-json", "non-json-line", "\"Loading plugin... done\"")]
#[case::partial_shows_the_fragment("partial-line", "partial-line", "the fragment: \"{\\\"jsonrpc\\\"")]
#[tokio::test]
async fn fault_messages_carry_the_evidence(#[case] mode: &str, #[case] kind: &str, #[case] message_has: &str) {
    let mut e = Engine::start(&spec(mode), &config(), &init()).await.unwrap();
    let f = e.call("assemble", json!({}), CallOptions::default(), &mut Host(vec![])).await.unwrap_err();
    assert_eq!(f.kind(), kind);
    assert!(f.to_string().contains(message_has), "{f}");
    e.kill().await;
}

#[tokio::test]
async fn exiting_after_the_handshake_is_a_fault_even_if_never_called() {
    let e = Engine::start(&spec("exit0-after-handshake"), &config(), &init()).await.unwrap();
    let report = e.shutdown().await;
    assert_eq!(report.fault.map(|f| f.kind()), Some("exit-before-shutdown"));
}

/// A child that escaped the process group (`setsid`), or a double-forked
/// daemon with a scrubbed environment, outlives a clean exit: it is a named
/// fault, and it is killed.
#[rstest]
#[case::setsid("setsid-child")]
#[case::daemon("daemon-child")]
#[tokio::test]
async fn processes_left_behind_are_a_fault_and_are_killed(#[case] mode: &str) {
    let dir = std::env::temp_dir().join(format!("clawspec-driver-{}-{mode}", std::process::id()));
    let mut cfg = config();
    cfg.sandbox.state_dir = Some(dir.clone());
    let e = Engine::start(&spec(mode), &cfg, &init()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let tree_before = sleeps_in(&dir);
    assert_eq!(tree_before.len(), 1, "the engine started its sleep");
    let report = e.shutdown().await;
    let f = report.fault.expect("leftover fault");
    assert_eq!(f.kind(), "leftover-processes", "{f}");
    assert!(f.to_string().contains("1 process(es) running: sleep"), "{f}");
    assert!(!running(tree_before[0]), "{} still running", tree_before[0]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Running `sleep 3600` processes working in `dir` (the engine's state dir).
fn sleeps_in(dir: &std::path::Path) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| running(*p) && std::fs::read_link(format!("/proc/{p}/cwd")).is_ok_and(|c| c.starts_with(dir)))
        .filter(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.starts_with("sleep\0") && c.contains("3600")))
        .collect()
}
