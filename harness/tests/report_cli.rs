//! Reports end to end through the real `clawspec` binary: determinism, exit
//! codes, every format (JUnit validated against the common XSD, in Rust), baselines
//! (new / baselined / stale), diff, and shards merged back into one report.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn clawspec(args: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(args).current_dir(&root).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tmp(name: &str) -> PathBuf {
    support::tmp(&format!("report-{name}"))
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
    // JUnit against the common JUnit XSD (in Rust: no system package needed).
    let violations = junit_violations(&a.1);
    assert!(violations.is_empty(), "JUnit does not validate against junit-10.xsd:\n{}", violations.join("\n"));
}

/// Violations of `xml` against the vendored common JUnit XSD (empty: valid).
fn junit_violations(xml: &str) -> Vec<String> {
    let xsd_text = text_only_types(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit-10.xsd")).unwrap());
    // Everything the XSD says must be enforced, or "valid" would mean less than it claims.
    let skipped = xmlschema::support::unsupported(&oxml::parse(&xsd_text).expect("the XSD is XML"));
    assert!(skipped.is_empty(), "the validator would skip parts of junit-10.xsd: {skipped:?}");
    let schema = xmlschema::parse_schema(&xsd_text).expect("junit-10.xsd parses");
    let doc = match oxml::parse(xml) {
        Ok(d) => d,
        Err(e) => return vec![format!("not well-formed XML: {e}")],
    };
    xmlschema::validate(&doc, &schema).violations.iter().map(|v| v.to_string()).collect()
}

/// The XSD's `mixed="true"` types (failure, error, skipped) hold attributes
/// and text only. The validator crate does not implement `mixed` (it would
/// reject their text), so each is rewritten to the equivalent text-only form,
/// `simpleContent` extending `xs:string` with the same attributes.
fn text_only_types(xsd: &str) -> String {
    const OPEN: &str = "<xs:complexType mixed=\"true\">";
    const CLOSE: &str = "</xs:complexType>";
    let mut out = String::new();
    let mut rest = xsd;
    while let Some(at) = rest.find(OPEN) {
        let body_start = at + OPEN.len();
        let end = body_start + rest[body_start..].find(CLOSE).expect("closed complexType");
        let body = &rest[body_start..end];
        assert!(body.lines().all(|l| l.trim().is_empty() || l.trim().starts_with("<xs:attribute ")), "a mixed type with more than attributes: {body}");
        out.push_str(&rest[..at]);
        out.push_str(&format!("<xs:complexType><xs:simpleContent><xs:extension base=\"xs:string\">{body}</xs:extension></xs:simpleContent>{CLOSE}"));
        rest = &rest[end + CLOSE.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_junit_schema_check_rejects_what_ci_would_not_read() {
    let ok = "<testsuites><testsuite name=\"p\" tests=\"1\"><testcase name=\"c\"><failure message=\"m\">x</failure></testcase></testsuite></testsuites>";
    assert!(junit_violations(ok).is_empty(), "{:?}", junit_violations(ok));
    // A failing run's report: failures with text, skipped cases, system-out.
    let d = tmp("junit-fail");
    let j = d.join("fail.xml");
    let (code, stdout, _) = clawspec(&["certify", "--engine", "builtin:window:split-tool-pair", "--scenario", "tool-loop-*", "--junit", j.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    let xml = std::fs::read_to_string(&j).unwrap();
    assert!(xml.contains("<failure ") && xml.contains("<skipped "), "{xml}");
    let violations = junit_violations(&xml);
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    // Not certified beyond its verdicts (a profile that judged nothing, a
    // stale baseline entry): the certification failures validate too.
    let (j2, b) = (d.join("untested.xml"), d.join("b.json"));
    std::fs::write(&b, r#"{"entries":[{"scenario":"heartbeat-ok","reason":"gone"}]}"#).unwrap();
    let (code, _, _) = clawspec(&["certify", "--scenario", "heartbeat-ok", "--clause", "CE-RFC-002", "--baseline", b.to_str().unwrap(), "--junit", j2.to_str().unwrap()]);
    assert_eq!(code, 2);
    let xml = std::fs::read_to_string(&j2).unwrap();
    assert!(xml.contains("type=\"NotCertified\"") && xml.contains("classname=\"clawspec.run\""), "{xml}");
    let violations = junit_violations(&xml);
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    for bad in [
        // testcase without its required name
        "<testsuites><testsuite name=\"p\" tests=\"1\"><testcase/></testsuite></testsuites>",
        // testsuite without the required tests count
        "<testsuites><testsuite name=\"p\"/></testsuites>",
        // an element the format does not have
        "<testsuites><testsuite name=\"p\" tests=\"1\"><testcase name=\"c\"><oops/></testcase></testsuite></testsuites>",
        // skipped must come before failure
        "<testsuites><testsuite name=\"p\" tests=\"1\"><testcase name=\"c\"><failure/><skipped/></testcase></testsuite></testsuites>",
        // a failure holds text, not elements
        "<testsuites><testsuite name=\"p\" tests=\"1\"><testcase name=\"c\"><failure><b/></failure></testcase></testsuite></testsuites>",
        "<testsuites><testsuite",
    ] {
        assert!(!junit_violations(bad).is_empty(), "accepted: {bad}");
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
