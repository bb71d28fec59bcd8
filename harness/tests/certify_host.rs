//! `clawspec certify --host openclaw@VER`, through the real binary.
//!
//! Usage tests need no network: every refusal happens before anything is
//! fetched, and they run with an empty cache and an unreachable registry so
//! that a regression which did reach the installer fails fast (and shows the
//! registry error users get). The end-to-end tests start real OpenClaw
//! gateways (~30–90 s each): `#[ignore]`d, run by `cargo xtask fidelity`
//! (or `cargo test -p clawspec --test certify_host -- --ignored`); they print
//! a skip when the cache has no openclaw@2026.9.6.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{json, root, s, tmp, Out};

const HOST: &str = "openclaw@2026.9.6";

/// The binary with an empty cache and a registry nobody answers on.
fn offline(args: &[&str]) -> Out {
    // One cache per call: tests run in parallel.
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let cache = tmp(&format!("host-cache-{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(args)
        .current_dir(root())
        .env("CLAWSPEC_CACHE", &cache)
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_fetch_retries", "0")
        .env("npm_config_cache", cache.join("npm"))
        .output()
        .expect("runs");
    Out { code: out.status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

fn assert_usage(o: &Out, part: &str) {
    assert_eq!(o.code, 2, "exit 2 expected\nstdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stderr.contains(part), "stderr lacks {part:?}: {}", o.stderr);
    assert!(!o.stdout.contains("CERTIFIED"), "{}", o.stdout);
}

#[test]
fn the_profile_is_the_releases_and_a_mismatch_is_refused() {
    assert_usage(&offline(&["certify", "--host", HOST, "--profile", "openclaw-2026.4.26"]), "--profile openclaw-2026.4.26 does not match --host openclaw@2026.9.6");
    assert_usage(&offline(&["certify", "--host", HOST, "--profile", "rfc-82137"]), "does not match");
    assert_usage(&offline(&["certify", "--host", "openclaw@2031.1.1"]), "no clawspec profile models this release");
    assert_usage(&offline(&["certify", "--host", "2026.9.6"]), "expected openclaw@<version>");
}

#[test]
fn reference_only_options_are_refused() {
    assert_usage(&offline(&["certify", "--host", HOST, "--golden", "golden"]), "--golden compares with traces recorded on the reference runtime");
    assert_usage(&offline(&["certify", "--host", HOST, "--via-http"]), "drop --via-http");
}

#[test]
fn a_run_with_nothing_drivable_tested_nothing() {
    let dir = root().join("harness/tests/fixtures/host");
    let o = offline(&["certify", "--host", HOST, "--scenarios", s(&dir)]);
    assert_usage(&o, "none of the 1 selected scenario(s) is drivable on openclaw@2026.9.6: nothing to test");
    assert!(o.stderr.contains("cli-turn-only: setup.admitted_turns: false"), "the reason is given: {}", o.stderr);
}

#[test]
fn a_shard_without_drivable_scenarios_is_refused() {
    let o = offline(&["certify", "--host", HOST, "--scenario", "new-session-no-bootstrap", "--shard", "2/2"]);
    assert_usage(&o, "shard 2/2 is empty (1 drivable scenario(s) on openclaw@2026.9.6)");
}

#[test]
fn an_unreachable_registry_is_one_clear_error_before_any_run() {
    let o = offline(&["certify", "--host", HOST, "--scenario", "new-session-no-bootstrap"]);
    assert_usage(&o, "is the npm registry reachable?");
    assert!(!o.stderr.contains("[1/1]"), "no run started: {}", o.stderr);
}

/// The cached release, or a printed skip.
fn have_host() -> bool {
    let cache = std::env::var_os("CLAWSPEC_CACHE").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/clawspec"));
    let ok = cache.join("openclaw@2026.9.6/node_modules/openclaw/openclaw.mjs").exists();
    if !ok {
        eprintln!("SKIPPED: openclaw@2026.9.6 is not in the cache {} (run `clawspec twin --scenario new-session-no-bootstrap --profile openclaw-2026.9.6` once to fetch it)", cache.display());
    }
    ok
}

#[test]
#[ignore = "starts real OpenClaw gateways (~1-3 min); cargo xtask fidelity runs it"]
fn certify_on_the_real_host_reports_the_host() {
    if !have_host() {
        return;
    }
    let d = tmp("host-e2e");
    let (r, j, m, h) = (d.join("r.json"), d.join("j.xml"), d.join("r.md"), d.join("r.html"));
    let o = support::clawspec(&[
        "certify", "--host", HOST, "--engine", "builtin:window", "--scenario", "new-session-no-bootstrap", "--scenario", "prompt-think-level", "--jobs", "2",
        "--report", s(&r), "--junit", s(&j), "--markdown", s(&m), "--html", s(&h),
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("host openclaw@2026.9.6 (real OpenClaw gateway): 2 scenario run(s)"), "{}", o.stdout);
    let rep = json(&r);
    assert_eq!(rep["host"]["host"], HOST);
    assert_eq!(rep["selection"]["profiles"], serde_json::json!(["openclaw-2026.9.6"]));
    assert_eq!(rep["runs"].as_array().map(Vec::len), Some(2), "{}", rep["runs"]);
    assert!(rep["runs"].as_array().unwrap().iter().all(|r| r["outcome"] == "completed"), "{}", rep["runs"]);
    assert!(rep["profiles"][0]["pass"].as_u64().unwrap() > 0 && rep["profiles"][0]["certified"] == true, "{}", rep["profiles"]);
    assert!(std::fs::read_to_string(&j).unwrap().contains("<property name=\"host\" value=\"openclaw@2026.9.6\"/>"));
    assert!(std::fs::read_to_string(&m).unwrap().contains("host openclaw@2026.9.6"));
    assert!(std::fs::read_to_string(&h).unwrap().contains("host openclaw@2026.9.6"));
}

/// Processes whose command line or working directory mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else { continue };
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).map(|b| String::from_utf8_lossy(&b).replace('\0', " ")).unwrap_or_default();
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        if cmd.contains(needle) || cwd.contains(needle) {
            out.push(format!("{pid}: {cmd} (cwd {cwd})"));
        }
    }
    out
}

fn wait_for(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
#[ignore = "starts a real OpenClaw gateway; cargo xtask fidelity runs it"]
fn sigint_kills_the_gateways_and_engines_and_removes_their_state() {
    if !have_host() {
        return;
    }
    let child = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(["certify", "--host", HOST, "--engine", "builtin:window", "--scenario", "new-session-no-bootstrap"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The run's work dir name is fixed-width (realhost/mod.rs `work_root`).
    let work = std::env::temp_dir().join(format!("clawspec-real-{pid:010}"));
    let needle = work.to_string_lossy().into_owned();
    // The gateway and the engine the bridge starts run in the run's work dir;
    // wait until both are up, so the signal lands mid-run.
    wait_for("a gateway and its engine", Duration::from_secs(240), || {
        let ps = processes_mentioning(&needle);
        // The gateway renames itself (process.title `openclaw-gateway`).
        ps.iter().any(|p| p.contains("openclaw-gateway") || p.contains("gateway run")) && ps.iter().any(|p| p.contains(" engine window"))
    });
    // Only clawspec gets the signal (not a terminal's whole process group).
    unsafe_kill(pid, 2);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "128 + SIGINT: {stderr}");
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
    let left = processes_mentioning(&needle);
    assert!(left.is_empty(), "left running after SIGINT: {left:#?}");
    assert!(!Path::new(&work).exists(), "work dir {} removed", work.display());
}

fn unsafe_kill(pid: u32, sig: i32) {
    let ok = Command::new("kill").arg(format!("-{sig}")).arg(pid.to_string()).status().unwrap().success();
    assert!(ok, "kill -{sig} {pid}");
}
