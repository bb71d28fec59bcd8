//! Reports end to end through the real `clawspec` binary: determinism, exit
//! codes, every format (JUnit validated against the common XSD), baselines
//! (new / baselined / stale), diff, and shards merged back into one report.

use std::path::{Path, PathBuf};
use std::process::Command;

fn clawspec(args: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(args).current_dir(&root).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("clawspec-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn without_timing(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v.as_object_mut().unwrap().remove("timing");
    v
}

const SEL: &[&str] = &["--scenario", "prompt-*"];

#[test]
fn reports_are_byte_identical_and_valid() {
    let d = tmp("det");
    let mut outputs = Vec::new();
    for run in ["a", "b"] {
        let r = d.join(format!("{run}.json"));
        let j = d.join(format!("{run}.xml"));
        let m = d.join(format!("{run}.md"));
        let h = d.join(format!("{run}.html"));
        let mut args = vec!["certify"];
        args.extend(SEL);
        let (rs, js, ms, hs) = (r.to_str().unwrap(), j.to_str().unwrap(), m.to_str().unwrap(), h.to_str().unwrap());
        args.extend(["--report", rs, "--junit", js, "--markdown", ms, "--html", hs]);
        let (code, stdout, stderr) = clawspec(&args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains("CERTIFIED"), "{stdout}");
        outputs.push((std::fs::read_to_string(&r).unwrap(), std::fs::read_to_string(&j).unwrap(), std::fs::read_to_string(&m).unwrap(), std::fs::read_to_string(&h).unwrap(), stdout));
    }
    let (a, b) = (&outputs[0], &outputs[1]);
    assert_eq!(without_timing(&a.0), without_timing(&b.0), "JSON reports differ beyond `timing`");
    assert!(a.0.contains("\"timing\""), "the wall-clock figure lives in `timing`");
    assert_eq!(a.1, b.1, "JUnit differs");
    assert_eq!(a.2, b.2, "Markdown differs");
    assert_eq!(a.3, b.3, "HTML differs");
    assert_eq!(a.4, b.4, "terminal output differs");
    assert!(a.3.starts_with("<!doctype html>") && !a.3.contains("<script src") && !a.3.contains("<link "), "HTML must be self-contained");
    // JUnit against the common JUnit XSD.
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit-10.xsd");
    match Command::new("xmllint").args(["--noout", "--schema", xsd.to_str().unwrap(), d.join("a.xml").to_str().unwrap()]).output() {
        Ok(o) => assert!(o.status.success(), "JUnit does not validate:\n{}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => panic!("xmllint is required for this test (Debian package libxml2-utils; .ci/run installs it)"),
    }
}

#[test]
fn exit_codes() {
    let mut args = vec!["certify", "--engine", "builtin:window:split-tool-pair"];
    args.extend(["--scenario", "tool-loop-parallel"]);
    let (code, stdout, _) = clawspec(&args);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("FAIL CE-ASM-003"), "{stdout}");
    assert!(stdout.contains("reproduce: clawspec run --scenario tool-loop-parallel"), "{stdout}");
    let (code, _, stderr) = clawspec(&["certify", "--profile", "openclaw-1999.1.1"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = clawspec(&["certify", "--engine", "builtin:nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown built-in engine"), "{stderr}");
    // A made-up command fails the preflight once: a usage error naming it,
    // not one error per run.
    let (code, stdout, stderr) = clawspec(&["certify", "--engine", "/no/such/engine --flag", "--scenario", "prompt-abort-hint"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stderr.contains("cannot start (spawn-failed)") && stderr.contains("/no/such/engine"), "{stderr}");
    assert!(!stdout.contains("CERTIFIED"), "{stdout}");
}

#[test]
fn baseline_new_baselined_and_stale() {
    let d = tmp("baseline");
    let bl = d.join("baseline.json");
    let bls = bl.to_str().unwrap();
    let mutant = ["certify", "--engine", "builtin:window:split-tool-pair", "--scenario", "tool-loop-parallel"];
    // New failure, no baseline: fails.
    assert_eq!(clawspec(&mutant).0, 1);
    // Record it.
    let mut a: Vec<&str> = mutant.to_vec();
    a.extend(["--baseline", bls, "--update-baseline"]);
    assert_eq!(clawspec(&a).0, 0);
    let text = std::fs::read_to_string(&bl).unwrap();
    assert!(text.contains("CE-ASM-003") && text.contains("tool-loop-parallel"), "{text}");
    // Baselined failure: passes.
    let mut a: Vec<&str> = mutant.to_vec();
    a.extend(["--baseline", bls]);
    let (code, stdout, _) = clawspec(&a);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("baselined"), "{stdout}");
    // The fixed engine with the old baseline: the entry is stale, the run fails.
    let (code, stdout, _) = clawspec(&["certify", "--scenario", "tool-loop-parallel", "--baseline", bls]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("STALE baseline entry"), "{stdout}");
    // A broken baseline file is a located error.
    std::fs::write(&bl, "{\"entries\": [ {\"scenario\": 3} ]}").unwrap();
    let (code, _, stderr) = clawspec(&["certify", "--scenario", "tool-loop-parallel", "--baseline", bls]);
    assert_eq!(code, 2);
    assert!(stderr.contains("baseline.json:1:"), "{stderr}");
}

#[test]
fn diff_and_shards() {
    let d = tmp("diff");
    let (good, bad) = (d.join("good.json"), d.join("bad.json"));
    let sel = ["--scenario", "tool-loop-*"];
    let mut a = vec!["certify", "--report", good.to_str().unwrap()];
    a.extend(sel);
    assert_eq!(clawspec(&a).0, 0);
    let mut a = vec!["certify", "--engine", "builtin:window:split-tool-pair", "--report", bad.to_str().unwrap()];
    a.extend(sel);
    assert_eq!(clawspec(&a).0, 1);
    let (code, stdout, _) = clawspec(&["diff", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(code, 1, "a regression exits 1");
    assert!(stdout.contains("newly failing: ") && stdout.contains("CE-ASM-003 tool-loop-parallel"), "{stdout}");
    let (code, stdout, _) = clawspec(&["diff", bad.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("newly passing: ") && !stdout.contains("newly failing: 1"), "{stdout}");
    // Shards 1/2 + 2/2 merge into the full report.
    let (s1, s2, merged) = (d.join("s1.json"), d.join("s2.json"), d.join("merged.json"));
    for (k, p) in [("1/2", &s1), ("2/2", &s2)] {
        let mut a = vec!["certify", "--shard", k, "--report", p.to_str().unwrap()];
        a.extend(sel);
        assert_eq!(clawspec(&a).0, 0);
    }
    assert_eq!(clawspec(&["merge", s1.to_str().unwrap(), s2.to_str().unwrap(), "-o", merged.to_str().unwrap()]).0, 0);
    let full = without_timing(&std::fs::read_to_string(&good).unwrap());
    let m = without_timing(&std::fs::read_to_string(&merged).unwrap());
    assert!(m["verdicts"] == full["verdicts"], "merged verdicts differ from the full run");
    assert!(m["runs"] == full["runs"], "merged runs differ");
    assert!(m["profiles"] == full["profiles"], "merged summaries differ");
}

#[test]
fn record_then_certify_against_goldens() {
    let d = tmp("record");
    let out = d.to_str().unwrap();
    let (code, stdout, stderr) = clawspec(&["record", "--scenario", "prompt-abort-hint", "--out", out]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(d.join("window/prompt-abort-hint/openclaw-2026.9.6.json").exists());
    assert_eq!(clawspec(&["certify", "--scenario", "prompt-abort-hint", "--golden", out]).0, 0);
    // A behaviour change in the engine is a regression against its own goldens.
    let (code, stdout, _) = clawspec(&["certify", "--engine", "builtin:window", "--plugin-config", "{\"ownsCompaction\": true}", "--scenario", "prompt-abort-hint", "--golden", out]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("REGRESSION (golden drift)"), "{stdout}");
}

#[test]
fn validate_command_answers_like_the_provider() {
    let d = tmp("validate");
    let f = d.join("t.json");
    std::fs::write(&f, r#"[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"toolCall","id":"     functions.read:37","name":"read","arguments":{}}]},{"role":"user","content":"y"}]"#).unwrap();
    let (code, stdout, _) = clawspec(&["validate", "--provider", "anthropic", f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stdout.contains("HTTP 400") && stdout.contains("tool_use.id: String should match pattern"), "{stdout}");
    let (code, stdout, _) = clawspec(&["validate", "--provider", "anthropic", "--repair", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    std::fs::write(&f, "[{\"role\": 3}]").unwrap();
    let (code, _, stderr) = clawspec(&["validate", "--provider", "gemini", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("t.json:1:"), "{stderr}");
}

#[test]
fn fuzz_sanitizer_catches_the_weak_sanitizer_with_a_minimal_reproducer() {
    let d = tmp("sanitizer");
    // Built next to clawspec by `cargo test --workspace` (mock-providers' bin).
    let bin = Path::new(env!("CARGO_BIN_EXE_clawspec")).with_file_name("clawspec-sanitizer").to_string_lossy().into_owned();
    assert!(Path::new(&bin).exists(), "build clawspec-mock-providers first (cargo test --workspace does)");
    let (code, stdout, stderr) = clawspec(&["fuzz-sanitizer", "--sanitizer", &format!("{bin} reference"), "--provider", "bedrock", "--cases", "150"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let out = d.to_str().unwrap();
    let (code, stdout, _) = clawspec(&["fuzz-sanitizer", "--sanitizer", &format!("{bin} weak"), "--provider", "bedrock", "--cases", "150", "--out", out]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("minimal reproducer"), "{stdout}");
    let first = std::fs::read_dir(&d).unwrap().flatten().map(|e| e.path()).min().unwrap();
    let repro: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
    assert!(repro.len() <= 3, "shrunk to a minimal transcript: {repro:?}");
    // The reproducer replays: the raw transcript is rejected, the reference repair fixes it.
    let (code, _, _) = clawspec(&["validate", "--provider", "bedrock", first.to_str().unwrap()]);
    assert_eq!(code, 1);
    let (code, _, _) = clawspec(&["validate", "--provider", "bedrock", "--repair", first.to_str().unwrap()]);
    assert_eq!(code, 0);
}
