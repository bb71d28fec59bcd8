//! What a plugin said — `$/log` lines, stderr, host callbacks
//! (`host/llm.complete`) and api members it read that the host does not
//! provide — in the trace, on the terminal and in every report
//! (docs/reports.md, "What the engine said"): terminal, JSON, JUnit,
//! Markdown and HTML. The sample plugin
//! (adapters/node/test/plugins/chatty) fails CE-ASM-008 on every assemble.
//! Needs `node` (≥ 20.6).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn clawspec(args: &[&str], tail: &[&Path]) -> (String, i32) {
    with_plugin("chatty", args, tail)
}

/// clawspec with the sample plugin `name` (adapters/node/test/plugins/).
fn with_plugin(name: &str, args: &[&str], tail: &[&Path]) -> (String, i32) {
    let plugin = root().join(format!("adapters/node/test/plugins/{name}/index.js"));
    // 2026.9.6 offers llm.complete and runs non-admitted turns on the engine;
    // shims keep the run independent of the OpenClaw cache.
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(args)
        .arg("--plugin")
        .arg(&plugin)
        .args(["--sdk", "shim", "--scenario", "non-admitted-turns", "--profile", "openclaw-2026.9.6"])
        .args(tail)
        .output()
        .unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
}

#[test]
fn the_trace_records_log_lines_and_callbacks_per_call_and_the_unknown_api_reads_once() {
    let (first, _) = clawspec(&["run", "--json"], &[]);
    let (second, _) = clawspec(&["run", "--json"], &[]);
    assert!(first == second, "the trace is deterministic: stderr stays out of it");
    let t: Value = serde_json::from_str(&first).unwrap();
    let assembles: Vec<&Value> = t["events"].as_array().unwrap().iter().filter(|e| e["method"] == "assemble").collect();
    assert_eq!(assembles.len(), 2);
    let a = assembles[0];
    assert_eq!(
        a["output"]["log"],
        serde_json::json!([
            {"level": "info", "message": "chatty assembling 0 messages"},
            {"level": "warn", "message": "chatty host model said: ok"}
        ])
    );
    assert_eq!(a["callbacks"][0]["method"], "host/llm.complete");
    assert_eq!(a["callbacks"][0]["result"], serde_json::json!({"text": "ok"}));
    assert!(!first.contains("raw stderr"), "stderr is not in the trace");
    // Calls during which the engine said nothing carry no `output`.
    assert!(t["events"].as_array().unwrap().iter().filter(|e| e["method"] == "ingest").all(|e| e.get("output").is_none()));
    assert_eq!(t["unknownApiMembers"], serde_json::json!(["api.notAHostMember"]));

    let (human, _) = clawspec(&["run"], &[]);
    for want in ["↺ host/llm.complete", "$/log info: chatty assembling 0 messages", "stderr: chatty: raw stderr during assemble of 0", "does not provide: api.notAHostMember"] {
        assert!(human.contains(want), "`clawspec run` shows {want:?}:\n{human}");
    }
}

#[test]
fn a_failing_verdict_shows_what_the_engine_said_on_the_terminal_and_in_every_report() {
    let dir = std::env::temp_dir().join(format!("clawspec-plugin-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (report, junit, markdown, html) = (dir.join("r.json"), dir.join("j.xml"), dir.join("m.md"), dir.join("h.html"));
    let (stdout, code) = clawspec(
        &["certify"],
        &[Path::new("--report"), &report, Path::new("--junit"), &junit, Path::new("--markdown"), &markdown, Path::new("--html"), &html],
    );
    assert_eq!(code, 1, "CE-ASM-008 fails:\n{stdout}");
    let terminal = stdout.split("FAIL CE-ASM-008").nth(1).expect("the failure is listed");
    for want in ["the engine said:", "call #1 assemble $/log info: chatty assembling 0 messages", "call #1 assemble ↺ host/llm.complete → {\"text\":\"ok\"}"] {
        assert!(terminal.contains(want), "terminal shows {want:?}:\n{stdout}");
    }
    // Per-call stderr is racy (which call it lands in), so it stays out of
    // verdicts and reports, which must be byte-identical run to run.
    assert!(!terminal.contains("raw stderr during assemble"), "{stdout}");
    assert!(stdout.contains("does not provide (undefined for it): `api.notAHostMember` (1 of 1 runs)"), "{stdout}");

    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let v = r["verdicts"].as_array().unwrap().iter().find(|v| v["clause"] == "CE-ASM-008").unwrap();
    let said: Vec<&str> = v["engineOutput"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(said.contains(&"call #8 assemble $/log warn: chatty host model said: ok"), "{said:?}");
    assert!(!said.iter().any(|l| l.contains("raw stderr")), "{said:?}");
    assert_eq!(r["runs"][0]["unknownApiMembers"], serde_json::json!(["api.notAHostMember"]));
    // Passing verdicts carry nothing.
    assert!(r["verdicts"].as_array().unwrap().iter().filter(|v| v["status"] == "pass").all(|v| v.get("engineOutput").is_none()));

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("estimatedTokens is -1\nthe engine said:\ncall #1 assemble ↺ host/llm.complete → {&quot;text&quot;:&quot;ok&quot;}\ncall #1 assemble $/log info: chatty assembling 0 messages"), "{xml}");
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.contains("What the engine said during failing calls") && md.contains("call #8 assemble $/log info: chatty assembling 4 messages"), "{md}");
    assert!(md.contains("does not provide: `api.notAHostMember`"), "{md}");
    let page = std::fs::read_to_string(&html).unwrap();
    let failure = page.split("<code>CE-ASM-008</code>").nth(1).and_then(|f| f.split("</details>").next()).expect("the failure is listed");
    for want in [
        "What the engine said during the failing calls:",
        "call #1 assemble ↺ host/llm.complete → {&quot;text&quot;:&quot;ok&quot;}",
        "call #8 assemble $/log info: chatty assembling 4 messages",
    ] {
        assert!(failure.contains(want), "the HTML failure shows {want:?}:\n{page}");
    }
    assert!(!page.contains("raw stderr"), "{page}");
    assert!(page.contains("does not provide: <code>api.notAHostMember</code> (1 of 1 runs)"), "{page}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run that ends in an engine fault is never asked for `adapter/report`:
/// the unknown-api reads still reach the trace and the report, because the
/// adapter notified each one as it happened (`$/unknownApiMember`). The
/// sample (adapters/node/test/plugins/crashy) reads one member in
/// `register`, one in its first assemble, and exits in its second.
#[test]
fn a_faulted_run_still_records_the_unknown_api_reads_made_before_the_fault() {
    let run = |args: &[&str], tail: &[&Path]| with_plugin("crashy", args, tail);
    let (first, _) = run(&["run", "--json"], &[]);
    let (second, _) = run(&["run", "--json"], &[]);
    let t: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(t["outcome"]["kind"], "crash-mid-call", "{first}");
    // The fault's stderr is the slice since the faulting call began; a line
    // the adapter wrote during an earlier call may still be in the pipe then
    // (the reader is its own task), so it is compared apart from the rest.
    let without_stderr = |s: &str| {
        let mut t: Value = serde_json::from_str(s).unwrap();
        let stderr = t["outcome"]["stderr"].take();
        (t, stderr)
    };
    let ((a, a_stderr), (b, _)) = (without_stderr(&first), without_stderr(&second));
    assert!(a == b, "the trace is deterministic");
    assert!(a_stderr.as_str().unwrap().contains("crashy: about to exit"), "{first}");
    assert_eq!(t["unknownApiMembers"], serde_json::json!(["api.notAHostMember", "api.runtime.notARuntimeMember"]), "{first}");

    let dir = std::env::temp_dir().join(format!("clawspec-plugin-output-crashy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("r.json");
    let (stdout, code) = run(&["certify"], &[Path::new("--report"), &report]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("does not provide (undefined for it): `api.notAHostMember` (1 of 1 runs), `api.runtime.notARuntimeMember` (1 of 1 runs)"), "{stdout}");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["runs"][0]["unknownApiMembers"], serde_json::json!(["api.notAHostMember", "api.runtime.notARuntimeMember"]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A plugin that dies in `register` on an api member the host lacks: the
/// read is named by certify's start-up error and kept in the faulted trace.
#[test]
fn a_plugin_that_dies_in_register_names_what_it_read() {
    let plugin = root().join("adapters/node/test/plugins/newer-api/index.js");
    let run = |cmd: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_clawspec"))
            .args(cmd)
            .arg("--plugin")
            .arg(&plugin)
            .args(["--sdk", "shim", "--scenario", "non-admitted-turns", "--profile", "openclaw-2026.9.6"])
            .output()
            .unwrap()
    };
    let o = run(&["certify"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the engine cannot start (bad-handshake)"), "{stderr}");
    assert!(stderr.contains("before it failed, the plugin read what the host does not provide (undefined for it): `api.registerTranscriptProjector`"), "{stderr}");
    let o = run(&["run", "--json"]);
    // The faulted trace is printed, and the exit says the engine could not start.
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let t: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "bad-handshake", "{t:#}");
    assert_eq!(t["unknownApiMembers"], serde_json::json!(["api.registerTranscriptProjector"]), "{t:#}");
}
