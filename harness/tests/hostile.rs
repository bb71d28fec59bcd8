//! Hostile engines against the real `clawspec` binary: an engine that dumps
//! its environment, writes outside its state dir, reads
//! `/proc/<ppid>/environ` and signals its parent; one that leaves a `setsid`
//! child behind; one that hangs in the handshake; a signal in the middle of
//! a certify run. Every engine is a real child process
//! (`clawspec-fault-engine <mode>`); the tests run as root here, and the
//! sandbox must hold for root too (Landlock confines root).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use rstest::rstest;
use serde_json::Value;

const FAULT: &str = env!("CARGO_BIN_EXE_clawspec-fault-engine");
const SECRET: &str = "hunter2-secret-value";
const SCENARIO: &str = "admitted-mixed";
const PROFILE: &str = "openclaw-2026.9.6";

/// A scratch dir used as the run's TMPDIR (so its state root is ours to
/// inspect) and working directory.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("clawspec-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn scenarios() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios").to_string_lossy().into_owned()
}

fn clawspec(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawspec"));
    c.args(args).current_dir(dir).env("TMPDIR", dir).env("AWS_SECRET_ACCESS_KEY", SECRET).stdin(Stdio::null());
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    clawspec(dir, args).output().expect("clawspec runs")
}

/// What the hostile engine saw, from the reply to its first call.
fn probe(dir: &Path, extra: &[&str]) -> Value {
    let outside = dir.join("outside-the-sandbox");
    let engine = format!("{FAULT} hostile {}", outside.display());
    let scen = scenarios();
    let mut args = vec!["run", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--json"];
    args.extend(extra);
    let out = run(dir, &args);
    // 1: the probe's replies fail clauses; the trace is printed all the same.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: Value = serde_json::from_slice(&out.stdout).expect("trace JSON");
    let call = trace["events"].as_array().unwrap().iter().find(|e| e["event"] == "call").expect("a call").clone();
    call["reply"]["ok"].clone()
}

#[test]
fn an_engine_sees_no_secrets_and_writes_only_its_state_dir() {
    let dir = scratch("probe");
    let p = probe(&dir, &[]);
    let text = p.to_string();
    assert!(!text.contains(SECRET), "the secret leaked to the engine: {text}");
    let keys: Vec<&str> = p["env"].as_object().unwrap().keys().map(String::as_str).collect();
    for k in &keys {
        let allowed = ["PATH", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "RUST_BACKTRACE", "HOME", "TMPDIR"].contains(k)
            || k.starts_with("LC_")
            || k.starts_with("CLAWSPEC_");
        assert!(allowed, "{k} is not on the allow-list: {keys:?}");
    }
    // Writes: denied outside, allowed in the state dir (HOME is in it).
    let outside = &p["writeOutside"][0];
    assert!(outside["result"].as_str().unwrap().contains("Permission denied"), "{outside}");
    assert!(!dir.join("outside-the-sandbox").exists());
    assert_eq!(p["writeStateDir"], "written");
    assert_eq!(p["writeHome"], "written");
    let cwd = p["cwd"].as_str().unwrap();
    assert!(p["home"].as_str().unwrap().starts_with(cwd) && p["tmpdir"].as_str().unwrap().starts_with(cwd), "{p}");
    assert_ne!(cwd, dir.to_string_lossy(), "the engine does not run in the caller's directory");
    // clawspec's own environment, and clawspec itself, are out of reach.
    assert!(p["parentEnviron"].as_str().unwrap().starts_with("error:"), "{}", p["parentEnviron"]);
    assert!(p["ownEnviron"].as_str().unwrap().contains("CLAWSPEC_STATE_DIR="));
    assert_ne!(p["signalParent"], "allowed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pass_env_adds_a_variable_and_no_sandbox_lifts_everything() {
    let dir = scratch("flags");
    let p = probe(&dir, &["--pass-env", "AWS_SECRET_ACCESS_KEY"]);
    assert_eq!(p["env"]["AWS_SECRET_ACCESS_KEY"], SECRET);
    assert!(p["parentEnviron"].as_str().unwrap().starts_with("error:"));
    // The probe detects a leak when there is one: without the sandbox all of
    // it is visible.
    let p = probe(&dir, &["--no-sandbox"]);
    assert!(p["parentEnviron"].as_str().unwrap().contains(SECRET));
    assert_eq!(p["writeOutside"][0]["result"], "written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_sandbox_is_named_in_the_report() {
    let dir = scratch("named");
    let scen = scenarios();
    let out = run(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--no-sandbox", "--report", "r.json", "--markdown", "r.md", "--html", "r.html"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sandbox: OFF (--no-sandbox)"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("(NO SANDBOX)"));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(r["noSandbox"], true);
    let out = run(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--no-sandbox", "--junit", "r.xml"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(std::fs::read_to_string(dir.join("r.xml")).unwrap().contains("<property name=\"sandbox\" value=\"off (--no-sandbox)\"/>"));
    for page in ["r.md", "r.html"] {
        assert!(std::fs::read_to_string(dir.join(page)).unwrap().contains("NO SANDBOX"), "{page} does not say so");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Running processes carrying a token of the clawspec process `pid`.
fn processes_of(pid: u32) -> Vec<String> {
    let needle = format!("CLAWSPEC_ENGINE_TOKEN={pid}-");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            let state = stat.rsplit(')').next().and_then(|r| r.split_whitespace().next()).unwrap_or("Z");
            state != "Z" && std::fs::read(format!("/proc/{p}/environ")).is_ok_and(|e| String::from_utf8_lossy(&e).contains(&needle))
        })
        .map(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).unwrap_or_default().replace('\0', " "))
        .collect()
}

#[test]
fn a_setsid_child_left_behind_fails_ce_life_002_and_is_killed() {
    let dir = scratch("setsid");
    let scen = scenarios();
    let engine = format!("{FAULT} setsid-child");
    let child = clawspec(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--report", "r.json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    let v = r["verdicts"].as_array().unwrap().iter().find(|v| v["clause"] == "CE-LIFE-002").expect("CE-LIFE-002 verdict").clone();
    assert_eq!(v["status"], "fail", "{v}");
    assert!(v.to_string().contains("leftover-processes"), "{v}");
    assert!(processes_of(pid).is_empty(), "left running: {:?}", processes_of(pid));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_engine_that_exits_after_the_handshake_is_not_certified() {
    let dir = scratch("exit0");
    let scen = scenarios();
    let engine = format!("{FAULT} exit0-after-handshake");
    let out = run(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("exit-before-shutdown"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[rstest]
#[case::non_json("non-json", "ENGINE FAULT non-json-line", "the line: \"Loading plugin... done\"")]
#[case::crash("crash-mid-call", "ENGINE FAULT crash-mid-call", "  | fault-engine: panicking inside")]
#[case::closed_stdout("close-stdout", "ENGINE FAULT closed-stdout", "  | fault-engine: stdout closed, still running")]
fn certify_shows_the_evidence_of_a_fault(#[case] mode: &str, #[case] heading: &str, #[case] evidence: &str) {
    let dir = scratch(mode);
    let scen = scenarios();
    let engine = format!("{FAULT} {mode}");
    let out = run(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--call-timeout-ms", "2000"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(heading), "{stdout}");
    assert!(stdout.contains(evidence), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fault that ends a run leaves every other clause unjudged: the terminal
/// says so once per run (with the clause ids), not in an ERROR block per
/// clause; the JSON keeps a verdict per clause.
#[test]
fn a_broken_off_run_is_one_block_not_one_per_clause() {
    let dir = scratch("broke-off");
    let scen = scenarios();
    let engine = format!("{FAULT} non-json");
    let report = dir.join("r.json");
    let o = run(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--report", report.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(out.matches("clause(s) not judged × admitted-mixed × openclaw-2026.9.6: the run broke off").count(), 1, "{out}");
    assert!(!out.contains("ERROR (uncaught) CE-"), "{out}");
    assert!(out.contains("FAIL CE-LIFE-002"), "the fault itself is still a verdict of its own: {out}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let errors = r["verdicts"].as_array().unwrap().iter().filter(|v| v["status"] == "error").count();
    assert!(errors > 10, "every unjudged clause keeps its verdict in the JSON: {errors}");
    assert!(out.contains(&format!("{errors} clause(s) not judged")), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `record` of an engine that crashes writes its goldens (the crash is
/// what they show) but exits 1 and names every faulted run.
#[test]
fn recording_a_crash_is_not_a_clean_recording() {
    let dir = scratch("record-crash");
    let scen = scenarios();
    let out = dir.join("golden");
    let engine = format!("{FAULT} crash-mid-call");
    let o = run(&dir, &["record", "--scenarios", &scen, "--scenario", "heartbeat-ok", "--profile", "openclaw-2026.4.26", "--engine", &engine, "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("1 recorded trace(s) end in a fault") && err.contains("heartbeat-ok · openclaw-2026.4.26: engine fault crash-mid-call"), "{err}");
    assert!(std::fs::read_dir(&out).unwrap().next().is_some(), "the golden is written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that refuses one release's `initialize` (protocol version)
/// still starts under the others: the refusal names its profile, that
/// profile's runs fail, the others run.
#[test]
fn a_protocol_refusal_under_one_profile_names_it_and_the_others_run() {
    let dir = scratch("bad-version-426");
    let scen = scenarios();
    let engine = format!("{FAULT} bad-version-under-2026.4.26");
    let report = dir.join("r.json");
    let out = run(&dir, &["certify", "--scenarios", &scen, "--scenario", "heartbeat-ok", "--engine", &engine, "--report", report.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("warning: the engine cannot start under openclaw-2026.4.26 (unsupported-protocol-version)"), "{err}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let outcome = |p: &str| r["runs"].as_array().unwrap().iter().find(|x| x["profile"] == p).map(|x| x["outcome"].as_str().unwrap().to_string());
    assert_eq!(outcome("openclaw-2026.4.26").as_deref(), Some("engine-fault:unsupported-protocol-version"), "{r}");
    assert_eq!(outcome("openclaw-2026.9.6").as_deref(), Some("completed"), "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[rstest]
#[case::hang_in_handshake("hang-in-handshake", "timeout", "hanging in initialize")]
#[case::crash_at_start("crash-at-start", "crash-at-start", "crashing at start")]
fn an_engine_that_cannot_start_fails_fast_with_its_stderr(#[case] mode: &str, #[case] kind: &str, #[case] stderr: &str) {
    let dir = scratch(mode);
    let engine = format!("{FAULT} {mode}");
    let started = Instant::now();
    let out = run(&dir, &["certify", "--engine", &engine, "--handshake-timeout-ms", "300"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("the engine cannot start ({kind})")), "{err}");
    assert_eq!(err.matches(stderr).count(), 1, "one error, with the engine's stderr: {err}");
    // Once, not once per scenario × profile (which would take minutes).
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(out.stdout.is_empty(), "no report for a run that never started");
    let _ = std::fs::remove_dir_all(&dir);
}

#[rstest]
#[case::missing_program(&["certify", "--engine", "/nonexistent/engine"], "cannot start")]
#[case::glob_matches_nothing(&["certify", "--scenario", "no-such-*"], "matches no scenario")]
#[case::empty_shard(&["certify", "--scenario", "admitted-mixed", "--shard", "2/2"], "shard 2/2 is empty")]
#[case::empty_folder(&["certify", "--scenarios", "."], "no scenarios in")]
#[case::zero_timeout(&["certify", "--call-timeout-ms", "0"], "--call-timeout-ms")]
#[case::lint_missing(&["lint", "no/such/path.yaml"], "no such file")]
fn a_run_that_would_test_nothing_is_a_usage_error(#[case] args: &[&str], #[case] reason: &str) {
    let name: String = reason.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let dir = scratch(&format!("usage-{name}"));
    let out = run(&dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(reason), "{args:?}: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Start `clawspec args`, wait until `engines` of its engines run (then
/// `settle`), send `sig`, and return what it printed and its pid.
fn signal_once_engines_run(dir: &Path, args: &[&str], engines: usize, settle: Duration, sig: i32) -> (Output, u32) {
    let child = clawspec(dir, args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    while processes_of(pid).len() < engines {
        assert!(Instant::now() < deadline, "engines never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(settle);
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(pid as i32, sig);
    }
    (child.wait_with_output().unwrap(), pid)
}

/// A real signal to a real `clawspec certify` while its engines hang: every
/// engine is killed, the state dir removed, a partial report written.
#[rstest]
#[case::sigterm(libc::SIGTERM, 143)]
#[case::sigint(libc::SIGINT, 130)]
fn a_signal_during_certify_kills_engines_and_writes_a_partial_report(#[case] sig: i32, #[case] code: i32) {
    let dir = scratch(&format!("signal-{sig}"));
    let engine = format!("{FAULT} hang");
    // Outputs of an earlier, green run: each must be replaced, not left in place.
    std::fs::write(dir.join("r.xml"), "<testsuites tests=\"1\" failures=\"0\"/>").unwrap();
    std::fs::write(dir.join("r.md"), "## clawspec ✅ certified").unwrap();
    let (out, pid) = signal_once_engines_run(&dir, &["certify", "--engine", &engine, "--call-timeout-ms", "60000", "-j", "2", "--report", "r.json", "--junit", "r.xml", "--markdown", "r.md"], 2, Duration::ZERO, sig);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(err.contains("interrupted by"), "{err}");
    assert!(processes_of(pid).is_empty(), "engines survived: {:?}", processes_of(pid));
    assert!(!dir.join(format!("clawspec-{pid:010}")).exists(), "state dir left behind");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true);
    assert!(r["profiles"].as_array().unwrap().iter().all(|p| p["certified"] == false));
    let junit = std::fs::read_to_string(dir.join("r.xml")).unwrap();
    assert!(junit.contains("interrupted: only") && junit.contains("<failure"), "{junit}");
    let md = std::fs::read_to_string(dir.join("r.md")).unwrap();
    assert!(md.contains("❌ not certified") && md.contains("INTERRUPTED"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A signal while the engine is still in its handshake (a real plugin may
/// take minutes there) stops the command at once, with a partial report.
#[test]
fn a_signal_during_the_handshake_stops_at_once() {
    let dir = scratch("signal-handshake");
    let engine = format!("{FAULT} hang-in-handshake");
    let (out, pid) = signal_once_engines_run(&dir, &["certify", "--engine", &engine, "--handshake-timeout-ms", "600000", "--report", "r.json"], 1, Duration::ZERO, libc::SIGTERM);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    // 143, not 2: it did not wait out the handshake timeout (600 s).
    assert!(processes_of(pid).is_empty(), "engine survived: {:?}", processes_of(pid));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run` (like certify) and SIGHUP (a closed terminal): no engine outlives
/// the command, no state dir is left.
#[rstest]
#[case::run_sigterm("run", libc::SIGTERM, 143)]
#[case::run_sighup("run", libc::SIGHUP, 129)]
#[case::certify_sighup("certify", libc::SIGHUP, 129)]
#[case::mutate_sigterm("mutate", libc::SIGTERM, 143)]
fn every_command_cleans_up_on_a_signal(#[case] command: &str, #[case] sig: i32, #[case] code: i32) {
    let dir = scratch(&format!("signal-{command}-{sig}"));
    let engine = format!("{FAULT} hang");
    let scen = scenarios();
    // Whether the preflight's engine or the run's is up, both must die.
    let (out, pid) = signal_once_engines_run(&dir, &[command, "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--call-timeout-ms", "60000"], 1, Duration::from_millis(500), sig);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(err.contains("interrupted by") && !err.contains("panicked"), "{err}");
    assert!(processes_of(pid).is_empty(), "engines survived: {:?}", processes_of(pid));
    assert!(!dir.join(format!("clawspec-{pid:010}")).exists(), "state dir left behind");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A daemon that clears its environment and leaves the state dir cannot be
/// traced to its run: it is still killed, and the whole report is not
/// certified.
#[test]
fn a_daemon_no_run_can_be_blamed_for_still_fails_the_report() {
    let dir = scratch("daemon-away");
    let scen = scenarios();
    let engine = format!("{FAULT} daemon-away");
    let out = run(&dir, &["certify", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--report", "r.json", "--junit", "r.xml"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert!(r["strayProcesses"].as_u64().unwrap_or(0) >= 1, "{}", r["strayProcesses"]);
    assert!(stdout.contains("LEFTOVER PROCESSES"), "{stdout}");
    assert!(r["profiles"].as_array().unwrap().iter().all(|p| p["certified"] == false), "{}", r["profiles"]);
    assert!(std::fs::read_to_string(dir.join("r.xml")).unwrap().contains("no run could be blamed for"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// What an engine writes is shown, never obeyed: no terminal escape reaches
/// the user's terminal.
#[test]
fn engine_stderr_cannot_repaint_the_terminal() {
    let dir = scratch("escapes");
    let engine = format!("{FAULT} escapes-at-start");
    let out = run(&dir, &["certify", "--engine", &engine]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("\\u{1b}]0;PWNED"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\r'), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `NAME=value` words before the program are the engine's environment (and
/// pass the sandbox's allow-list).
#[test]
fn name_value_words_of_engine_become_its_environment() {
    let dir = scratch("name-value");
    let outside = dir.join("outside-the-sandbox");
    let engine = format!("GIVEN_TO_ENGINE=yes-this {FAULT} hostile {}", outside.display());
    let scen = scenarios();
    let out = run(&dir, &["run", "--scenarios", &scen, "--scenario", SCENARIO, "--profile", PROFILE, "--engine", &engine, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("yes-this"), "the engine did not see GIVEN_TO_ENGINE");
    let _ = std::fs::remove_dir_all(&dir);
}
