//! Verdicts CI can trust, through the real `clawspec` binary: a run that
//! judged nothing is never green, shards deal out only what runs, merges of
//! different runs are refused and incomplete merges certify no profile,
//! baselines judge only what the run looked at and name unknown scenarios,
//! and commands refuse bad input before any engine runs.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rstest::rstest;
use serde_json::Value;

fn clawspec(args: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(args).current_dir(&root).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tmp(name: &str) -> PathBuf {
    support::tmp(&format!("verdicts-{name}"))
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `--clause` that no selected profile judges: every run happens, no
/// verdict judges anything. Exit 2, and every output says not certified.
#[test]
fn a_run_that_judged_nothing_is_never_green() {
    let d = tmp("untested");
    let (r, j) = (d.join("r.json"), d.join("r.xml"));
    let (code, stdout, stderr) = clawspec(&["certify", "--scenario", "heartbeat-ok", "--clause", "CE-RFC-002", "--profile", "openclaw-2026.9.6", "--report", s(&r), "--junit", s(&j)]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("nothing tested") && stderr.contains("CE-RFC-002"), "{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("openclaw-2026.9.6 ") && l.ends_with("  NOT CERTIFIED")), "{stdout}");
    let report = json(&r);
    assert_eq!(report["profiles"][0]["certified"], false);
    assert_eq!(report["profiles"][0]["untested"], true);
    let junit = std::fs::read_to_string(&j).unwrap();
    assert!(junit.contains("<failure message=\"nothing tested"), "{junit}");
}

/// Shards are dealt from the scenarios that run under the selected
/// profiles: the two 2026.9.6-only durable scenarios never make up a shard
/// of a 2026.4.26 run.
#[test]
fn shards_hold_only_scenarios_that_run() {
    let d = tmp("shards");
    let mut covered = Vec::new();
    for k in ["1/2", "2/2"] {
        let r = d.join(format!("s{}.json", &k[..1]));
        let (code, stdout, stderr) = clawspec(&["certify", "--scenario", "durable-*", "--scenario", "heartbeat-ok", "--profile", "openclaw-2026.4.26", "--shard", k, "--report", s(&r)]);
        assert_eq!(code, 0, "{k}: {stdout}{stderr}");
        for id in json(&r)["selection"]["scenarios"].as_array().unwrap() {
            covered.push(id.as_str().unwrap().to_string());
        }
    }
    covered.sort();
    assert_eq!(covered, ["durable-overflow-retry", "heartbeat-ok"]);
}

/// One shard alone merges into a report that certifies no profile, in
/// every field a consumer might read; shards run with different options are
/// not one run.
#[test]
fn merges_are_complete_or_certify_nothing() {
    let d = tmp("merge");
    let (s1, s2, m) = (d.join("s1.json"), d.join("s2.json"), d.join("m.json"));
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-*", "--shard", "1/2", "--report", s(&s1)]).0, 0);
    let j = d.join("m.xml");
    let (code, stdout, _) = clawspec(&["merge", s(&s1), "-o", s(&m), "--junit", s(&j)]);
    assert_eq!(code, 1, "{stdout}");
    let merged = json(&m);
    assert_eq!(merged["merged"]["complete"], false);
    let junit = std::fs::read_to_string(&j).unwrap();
    assert!(junit.contains("classname=\"clawspec.run\"><failure message=\"incomplete merge: shard(s) 2/2 missing\""), "{junit}");
    assert!(merged["profiles"].as_array().unwrap().iter().all(|p| p["certified"] == false), "{}", merged["profiles"]);
    assert!(!stdout.lines().any(|l| l.ends_with("  CERTIFIED")), "{stdout}");
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-*", "--shard", "2/2", "--call-timeout-ms", "7777", "--report", s(&s2)]).0, 0);
    let (code, _, stderr) = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&m)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ran with different options") && stderr.contains("--call-timeout-ms 7777"), "{stderr}");
}

/// `--profile` order is not part of what a run is: shards given the same
/// profiles in another order merge.
#[test]
fn shards_with_profiles_in_another_order_merge() {
    let d = tmp("order");
    let (s1, s2, m) = (d.join("s1.json"), d.join("s2.json"), d.join("m.json"));
    let (a, b) = ("openclaw-2026.4.26", "openclaw-2026.9.6");
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-*", "--shard", "1/2", "--profile", a, "--profile", b, "--report", s(&s1)]).0, 0);
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-*", "--shard", "2/2", "--profile", b, "--profile", a, "--report", s(&s2)]).0, 0);
    let (code, stdout, stderr) = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&m)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(json(&m)["merged"]["complete"], true);
}

/// A profile that no selected scenario runs under is left out and named,
/// not failed as hollow: `durable-commit-replay` is a 2026.8+ scenario, so a
/// default run of it (every profile) certifies 2026.9.6 and says 2026.4.26
/// did not run. Named with `--profile`, such a profile is refused up front;
/// in shards it is judged over the shards that ran it.
#[test]
fn a_profile_nothing_runs_under_is_left_out_and_named() {
    let d = tmp("not-run");
    let r = d.join("r.json");
    let (code, stdout, stderr) = clawspec(&["certify", "--scenario", "durable-commit-replay", "--report", s(&r)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stderr.contains("no selected scenario runs under openclaw-2026.4.26"), "{stderr}");
    assert!(stdout.contains("not run: no selected scenario runs under openclaw-2026.4.26"), "{stdout}");
    let report = json(&r);
    assert_eq!(report["profilesNotRun"], serde_json::json!(["openclaw-2026.4.26"]));
    let listed: Vec<&str> = report["profiles"].as_array().unwrap().iter().map(|p| p["profile"].as_str().unwrap()).collect();
    assert_eq!(listed, ["openclaw-2026.9.6", "rfc-82137"]);

    let (code, _, stderr) = clawspec(&["certify", "--scenario", "durable-commit-replay", "--profile", "openclaw-2026.4.26", "--profile", "openclaw-2026.9.6"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--profile openclaw-2026.4.26: no selected scenario runs under it"), "{stderr}");

    let (s1, s2, m) = (d.join("s1.json"), d.join("s2.json"), d.join("m.json"));
    let mut left_out = Vec::new();
    for (k, out) in [("1/2", &s1), ("2/2", &s2)] {
        let (code, stdout, stderr) = clawspec(&["certify", "--scenario", "durable-commit-replay", "--scenario", "heartbeat-ok", "--shard", k, "--report", s(out)]);
        assert_eq!(code, 0, "{k}: {stdout}{stderr}");
        left_out.extend(json(out)["profilesNotRun"].as_array().cloned().unwrap_or_default());
    }
    assert_eq!(left_out, [serde_json::json!("openclaw-2026.4.26")], "the shard of durable-commit-replay alone leaves 2026.4.26 out");
    let (code, stdout, stderr) = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&m)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let merged = json(&m);
    assert!(merged.get("profilesNotRun").is_none(), "{merged}");
    let p426 = merged["profiles"].as_array().unwrap().iter().find(|p| p["profile"] == "openclaw-2026.4.26").expect("2026.4.26 ran in the other shard");
    assert_eq!(p426["certified"], true, "{p426}");
}

/// The JUnit says what the exit code says: a SHOULD warning under
/// `--strict` fails it; a baselined failure and a failure under the
/// proposal profile (not part of the verdict) are skipped with their
/// reason, not failed.
#[rstest]
#[case::strict_warning(&["--scenario", "overflow-natural", "--engine", "builtin:window:exceed-budget", "--profile", "openclaw-2026.9.6", "--strict"], None, 1, "type=\"Should\"")]
#[case::baselined(&["--scenario", "prompt-abort-hint", "--engine", "builtin:window:reorder-messages", "--profile", "openclaw-2026.9.6"], Some(r#"{"entries":[{"scenario":"prompt-abort-hint","clause":"CE-ASM-004","reason":"known reorder"}]}"#), 0, "<skipped type=\"baselined\" message=\"known failure, in the baseline: known reorder\"")]
#[case::proposal(&["--scenario", "prompt-abort-hint", "--engine", "builtin:window:throw-on-rfc-fields"], None, 0, "<skipped type=\"proposal\" message=\"would fail: rfc-82137 is a proposed contract")]
fn the_junit_agrees_with_the_exit_code(#[case] args: &[&str], #[case] baseline: Option<&str>, #[case] exit: i32, #[case] shows: &str) {
    let d = tmp(&format!("junit-{}", args[3].replace(':', "-")));
    let x = d.join("r.xml");
    let mut all: Vec<String> = ["certify", "-j", "1", "--junit", s(&x)].iter().map(|a| a.to_string()).collect();
    all.extend(args.iter().map(|a| a.to_string()));
    if let Some(b) = baseline {
        let f = d.join("known.json");
        std::fs::write(&f, b).unwrap();
        all.extend(["--baseline".to_string(), s(&f).to_string()]);
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = clawspec(&all);
    assert_eq!(code, exit, "{stdout}{stderr}");
    let junit = std::fs::read_to_string(&x).unwrap();
    let head = junit.lines().find(|l| l.starts_with("<testsuites")).unwrap();
    let failed = !head.contains("failures=\"0\" errors=\"0\"");
    assert_eq!(failed, exit != 0, "JUnit {head} against exit {exit}");
    assert!(junit.contains(shows), "{junit}");
}

/// Shards whose `--scenarios` folder is spelled differently (runners with
/// different checkout paths) are one run when the scenarios are the same.
#[test]
fn shards_merge_whatever_the_scenario_folder_is_called() {
    let d = tmp("spelling");
    let (s1, s2, m) = (d.join("s1.json"), d.join("s2.json"), d.join("m.json"));
    let abs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    assert_eq!(clawspec(&["certify", "--scenarios", "scenarios", "--scenario", "heartbeat-*", "--shard", "1/2", "--report", s(&s1)]).0, 0);
    assert_eq!(clawspec(&["certify", "--scenarios", s(&abs), "--scenario", "heartbeat-*", "--shard", "2/2", "--report", s(&s2)]).0, 0);
    let (code, stdout, stderr) = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&m)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(json(&m)["merged"]["complete"], true);
}

/// Every report names the commit clawspec was built from; shards of two
/// builds (one version number, other clause code) are not one run.
#[test]
fn shards_of_two_builds_do_not_merge() {
    let d = tmp("builds");
    let (s1, s2, m) = (d.join("s1.json"), d.join("s2.json"), d.join("m.json"));
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-*", "--shard", "1/2", "--report", s(&s1)]).0, 0);
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-*", "--shard", "2/2", "--report", s(&s2)]).0, 0);
    let mut other = json(&s2);
    // Unknown (no checkout to read) is a build of its own too.
    let build = other["clawspecBuild"].as_str().unwrap_or("").to_string();
    assert!(build.is_empty() || build.len() == 40, "{build}");
    other["clawspecBuild"] = Value::String("0".repeat(40));
    std::fs::write(&s2, other.to_string()).unwrap();
    let (code, _, stderr) = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&m)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("different clawspec builds") && stderr.contains(&build[..build.len().min(12)]), "{stderr}");
}

#[test]
fn a_profile_given_twice_runs_once() {
    let d = tmp("twice");
    let r = d.join("r.json");
    assert_eq!(clawspec(&["certify", "--scenario", "heartbeat-ok", "--profile", "openclaw-2026.9.6", "--profile", "openclaw-2026.9.6", "--report", s(&r)]).0, 0);
    let report = json(&r);
    assert_eq!(report["runs"].as_array().unwrap().len(), 1);
    assert_eq!(report["profiles"].as_array().unwrap().len(), 1);
}

/// A SHOULD entry (written by a `--strict` job) is in use while its warning
/// stands, also in a run without `--strict`.
#[test]
fn a_baselined_warning_is_not_stale_without_strict() {
    let d = tmp("should");
    let b = d.join("b.json");
    std::fs::write(&b, r#"{"entries":[{"scenario":"budget-tight-volatile","clause":"CE-ASM-006","profile":"openclaw-2026.9.6","reason":"known"}]}"#).unwrap();
    let (code, stdout, stderr) = clawspec(&["certify", "--engine", "builtin:window:exceed-budget", "--scenario", "budget-tight-volatile", "--profile", "openclaw-2026.9.6", "--baseline", s(&b)]);
    assert!(stdout.contains("warn CE-ASM-006"), "the warning this test is about: {stdout}");
    assert!(!stdout.contains("STALE"), "{stdout}");
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// Bad input is refused before any engine runs (exit 2, with the reason).
#[rstest]
#[case::baseline_unknown_scenario(&["certify", "--scenario", "heartbeat-ok", "--baseline", "@b.json"], r#"{"entries":[{"scenario":"heartbeat-okk","reason":"typo"}]}"#, "b.json:1:25: entries[0]: unknown scenario \"heartbeat-okk\"")]
#[case::golden_missing(&["certify", "--scenario", "heartbeat-ok", "--golden", "@no-such-dir"], "", "--golden")]
#[case::run_cannot_start(&["run", "--scenario", "heartbeat-ok", "--engine", "/nonexistent/engine"], "", "the engine cannot start (spawn-failed)")]
#[case::record_cannot_start(&["record", "--scenario", "heartbeat-ok", "--engine", "/nonexistent/engine", "--out", "@rec"], "", "the engine cannot start (spawn-failed)")]
#[case::mutate_output_folder(&["mutate", "--scenario", "heartbeat-ok", "--json", "@missing/m.json"], "", "does not exist")]
#[case::mutate_cannot_start(&["mutate", "--scenario", "heartbeat-ok", "--engine", "/nonexistent/engine"], "", "the engine cannot start (spawn-failed)")]
#[case::pass_env_value(&["certify", "--pass-env", "A=B"], "", "is not a variable name")]
#[case::transcript_duplicate_key(&["validate", "--provider", "anthropic", "@t.jsonl"], "{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}\n{\"role\":\"user\",\"content\":\"a\",\"role\":\"assistant\"}\n", "t.jsonl:2:35: not an OpenClaw message: duplicate field `role`")]
#[case::buffered_duplicate_key(&["validate", "--provider", "anthropic", "@t.jsonl"], "{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}\n{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\",\"text\":\"b\"}]}\n", "t.jsonl:2:58: not an OpenClaw message: duplicate field `text`")]
#[case::zero_jobs(&["certify", "-j", "0", "--scenario", "heartbeat-ok"], "", "'0' for '--jobs <JOBS>': must be at least 1")]
#[case::report_into_a_folder_name(&["certify", "--scenario", "heartbeat-ok", "--report", "@nodir/"], "", "is a directory; give a file name")]
fn bad_input_is_refused_up_front(#[case] args: &[&str], #[case] file: &str, #[case] reason: &str) {
    let name: String = reason.chars().filter(char::is_ascii_alphanumeric).take(24).collect();
    let d = tmp(&format!("refused-{name}"));
    // `@x` is a path in the test's dir; the file (when given) is written there.
    let args: Vec<String> = args.iter().map(|a| a.strip_prefix('@').map_or(a.to_string(), |p| s(&d.join(p)).to_string())).collect();
    if !file.is_empty() {
        let target = args.iter().find(|a| a.starts_with(s(&d))).expect("a file argument");
        std::fs::write(target, file).unwrap();
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = clawspec(&argv);
    assert_eq!(code, 2, "{argv:?}: {stdout}{stderr}");
    assert!(stderr.contains(reason), "{argv:?}: {stderr}");
    assert!(!d.join("rec").exists(), "record made its --out for an engine that cannot start");
}

/// `clawspec list | head`: a reader that goes away is not a crash.
#[rstest]
#[case("scenarios")]
#[case("clauses")]
fn listing_into_a_closed_pipe_is_quiet(#[case] what: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(["list", what]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}
