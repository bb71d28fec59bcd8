//! Real TypeScript/JavaScript plugins, unmodified, through the Node adapter
//! (adapters/node) and the normal engine driver. Needs `node` (≥ 20.6).

use std::path::{Path, PathBuf};

use clawspec::check::{self, Level, Status};
use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::RunConfig;
use clawspec::scenario::load_dir;
use clawspec::suite;
use clawspec::trace::Trace;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn plugin_spec(entry: &str) -> EngineSpec {
    let adapter = root().join("adapters/node/bin/clawspec-node-adapter.js");
    EngineSpec {
        program: "node".into(),
        args: vec![adapter.to_string_lossy().into(), root().join("adapters/node/test/plugins").join(entry).to_string_lossy().into()],
        env: Default::default(),
        cwd: None,
        display: format!("plugin:{entry}"),
    }
}

fn run(entry: &str, scenario_glob: Option<&str>) -> Vec<Trace> {
    run_with(entry, scenario_glob, None)
}

fn run_with(entry: &str, scenario_glob: Option<&str>, engine_config: Option<serde_json::Value>) -> Vec<Trace> {
    assert!(std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success()), "node is required for the Node adapter tests");
    let all = load_dir(&root().join("scenarios")).unwrap();
    // Long sessions (generated) would take minutes through Node; the golden suite runs them.
    let selected: Vec<_> = all.into_iter().filter(|l| !l.scenario.generated && scenario_glob.is_none_or(|g| l.scenario.id.starts_with(g))).collect();
    let cfg = RunConfig {
        engine: plugin_spec(entry),
        driver: DriverConfig::default(),
        // The goldens' width (tests/golden.rs): prompts embed workspace paths
        // (2026.4.26's heartbeat hint), and their token estimates must match.
        state_root: std::env::temp_dir().join(format!("clawspec-node-{:06}{:06}", std::process::id() % 1_000_000, entry.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32)) % 1_000_000)),
        engine_config,
        via_http: false,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let traces = rt.block_on(suite::run_jobs(suite::jobs(&selected, &Profile::all()), &cfg, 2, |_| {}));
    // Each run removes its own state dir; tests of the same plugin share the
    // root, so only the last one out (the root empty) removes it.
    let _ = std::fs::remove_dir(&cfg.state_root);
    traces
}

fn without_engine(t: &Trace) -> String {
    let mut v = serde_json::to_value(t).unwrap();
    v.as_object_mut().unwrap().remove("engine");
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn javascript_legacy_port_matches_the_builtin_legacy_goldens() {
    let traces = run("legacy/index.js", None);
    assert!(traces.len() > 100);
    let mut differ = Vec::new();
    for t in &traces {
        let golden = root().join(format!("golden/legacy/{}/{}.json", t.scenario, t.profile));
        let expected: Trace = serde_json::from_str(&std::fs::read_to_string(&golden).unwrap()).unwrap();
        if without_engine(&expected) != without_engine(t) {
            differ.push(format!("{} × {}", t.scenario, t.profile));
        }
    }
    assert!(differ.is_empty(), "the JS legacy port differs from builtin:legacy in:\n{}", differ.join("\n"));
    let verdicts = check::evaluate_all(&traces, &[]);
    assert!(!verdicts.iter().any(|v| v.level == Level::Must && matches!(v.status, Status::Fail | Status::Error)));
}

#[test]
fn esm_and_cjs_samples_certify() {
    for entry in ["summarizer/index.js", "cjs-bare/index.cjs"] {
        let traces = run(entry, None);
        let verdicts = check::evaluate_all(&traces, &[]);
        // The samples register a context engine without declaring durable
        // turns, so 2026.9.6 runs their admitted turns on legacy: CE-COV-001
        // must say so there, and only there.
        let cov: Vec<&str> = verdicts.iter().filter(|v| v.clause == "CE-COV-001" && v.status == Status::Fail).map(|v| v.profile.as_str()).collect();
        assert!(!cov.is_empty() && cov.iter().all(|p| p.starts_with("openclaw-2026.9.6")), "{entry}: CE-COV-001 failed on {cov:?}");
        let bad: Vec<String> = verdicts
            .into_iter()
            .filter(|v| v.level == Level::Must && matches!(v.status, Status::Fail | Status::Error) && v.clause != "CE-COV-001")
            .map(|v| format!("{} {} {} {:?}", v.clause, v.scenario, v.profile, v.details))
            .collect();
        assert!(bad.is_empty(), "{entry}:\n{}", bad.join("\n"));
    }
    // Its session_end hook (api.on) is fired at the end of every run.
    let t = run("summarizer/index.js", Some("prompt-bare-new"));
    for tr in &t {
        let fired: Vec<_> = tr.calls().filter(|c| c.method == "adapter/fireHook").collect();
        assert_eq!(fired.len(), 1, "{}", tr.profile);
        assert_eq!(fired[0].params["name"], "session_end");
        assert_eq!(fired[0].reply, clawspec::trace::ReplyRecord::Ok(serde_json::json!({"called": 1})));
    }
    // The summariser really compacts through llm.complete.
    let t = run("summarizer/index.js", Some("manual-compact"));
    assert!(t.iter().any(|t| t.calls().any(|c| c.method == "compact" && c.callbacks.iter().any(|cb| cb.method == "host/llm.complete"))));
}

#[test]
fn broken_plugin_faults_are_named_by_clause() {
    let traces = run("broken/index.js", Some("prompt-abort-hint"));
    let verdicts = check::evaluate_all(&traces, &[]);
    let failed = |id: &str| verdicts.iter().any(|v| v.clause == id && v.status == Status::Fail);
    assert!(failed("CE-ASM-001"), "assemble returning {{}} is caught");
    let ingest = run("broken/index.js", Some("non-admitted-turns"));
    let verdicts = check::evaluate_all(&ingest, &[]);
    assert!(verdicts.iter().any(|v| v.clause == "CE-TURN-002" && v.status == Status::Fail), "a throwing ingest is caught");
    // Writing to stdout did not break the protocol: the runs completed.
    assert!(ingest.iter().all(|t| matches!(t.outcome, clawspec::trace::Outcome::Completed { .. })));
}

#[test]
fn two_runs_are_byte_identical() {
    let a: Vec<String> = run("summarizer/index.js", Some("announce")).iter().map(Trace::to_pretty_json).collect();
    let b: Vec<String> = run("summarizer/index.js", Some("announce")).iter().map(Trace::to_pretty_json).collect();
    assert_eq!(a, b);
}

#[test]
fn before_reset_gets_the_reset_reason_and_the_session_it_resets() {
    // OpenClaw fires before_reset(event {sessionFile, messages, reason}, ctx
    // {agentId, sessionKey, sessionId, workspaceDir}); lossless-claw ignores a
    // reset whose event has no reason.
    for (scenario, reason) in [("prompt-bare-new", "new"), ("prompt-bare-reset", "reset")] {
        let traces = run("prompt-hook/index.js", Some(scenario));
        assert_eq!(traces.len(), 3);
        for t in &traces {
            let last = t.calls().filter(|c| c.method == "assemble").last().unwrap_or_else(|| panic!("{}: no assemble", t.profile));
            let clawspec::trace::ReplyRecord::Ok(r) = &last.reply else { panic!("{:?}", last.reply) };
            let resets = r["resets"].as_array().unwrap_or_else(|| panic!("{}: {r}", t.profile));
            assert_eq!(resets.len(), 1, "{} {scenario}: {resets:?}", t.profile);
            let seen = &resets[0];
            assert_eq!(seen["reason"], reason, "{} {scenario}: {seen}", t.profile);
            assert_eq!(seen["sessionId"], "sess-0001", "{}: {seen}", t.profile);
            assert_eq!((&seen["sessionKey"], &seen["agentId"]), (&serde_json::json!("agent:main:main"), &serde_json::json!("main")), "{}", t.profile);
            // The session being reset: its two setup messages.
            assert_eq!(seen["messages"], 2, "{}: {seen}", t.profile);
            let file = seen["sessionFile"].as_str().unwrap_or_default();
            if t.profile.starts_with("openclaw-2026.4") {
                assert!(file.ends_with("sess-0001.jsonl"), "{}: {file}", t.profile);
            } else {
                assert!(file.starts_with("sqlite:main:sess-0001:") && file.ends_with("openclaw-agent.sqlite"), "{}: {file}", t.profile);
            }
        }
    }
}

#[test]
fn before_prompt_build_runs_after_assemble_and_its_system_context_reaches_the_model() {
    let hooked = run("prompt-hook/index.js", Some("prompt-bare-new"));
    let plain = run("legacy/index.js", Some("prompt-bare-new"));
    let first_model_tokens = |t: &Trace| t.events.iter().find_map(|e| if let clawspec::trace::Event::Model(m) = e { Some(m.prompt_tokens) } else { None });
    assert_eq!(hooked.len(), 3);
    for t in &hooked {
        let calls: Vec<_> = t.calls().collect();
        let at = calls.iter().position(|c| c.method == "adapter/fireHook" && c.params["name"] == "before_prompt_build").unwrap_or_else(|| panic!("{}: no before_prompt_build", t.profile));
        assert!(calls[..at].iter().any(|c| c.method == "assemble"), "{}: fired before assemble", t.profile);
        assert!(calls[at].params["event"]["prompt"].as_str().is_some_and(|p| !p.is_empty()));
        assert_eq!(calls[at].params["ctx"]["sessionKey"], "agent:main:main");
        let clawspec::trace::ReplyRecord::Ok(r) = &calls[at].reply else { panic!("{:?}", calls[at].reply) };
        assert_eq!(r["result"]["prependSystemContext"], "RECALL POLICY");
        // "RECALL POLICY" + "TAIL" around "HOOK BASE" instead of the default system prompt.
        let p = plain.iter().find(|p| p.profile == t.profile).unwrap();
        assert_ne!(first_model_tokens(t), first_model_tokens(p), "{}: the composed system prompt did not reach the model", t.profile);
    }
    // The hook's system context belongs to its attempt only: later assembles get
    // the budget they get without the hook (2026.9.6 subtracts the system prompt).
    let budgets = |ts: &[Trace]| -> Vec<(String, Vec<serde_json::Value>)> {
        ts.iter().map(|t| (t.profile.clone(), t.calls().filter(|c| c.method == "assemble").map(|c| c.params["tokenBudget"].clone()).collect())).collect()
    };
    let with = run_with("prompt-hook/index.js", Some("budget-tight-multiturn"), None);
    let without = run_with("prompt-hook/index.js", Some("budget-tight-multiturn"), Some(serde_json::json!({"hooks": false})));
    assert!(with.iter().all(|t| t.calls().any(|c| c.params["name"] == "before_prompt_build")));
    assert_eq!(budgets(&with), budgets(&without));
}

#[test]
fn a_compaction_inside_a_durable_turn_skips_the_advancement_instead_of_reading_a_stale_position() {
    // openclaw-universal-capture 0.7.0 (docs/real-engines.md) hands every
    // message back and delegates compaction, so on overflow-natural the host
    // compacts inside the admitted 2026.9.6 turn. The rewrite renumbers the
    // transcript; the runtime kept the admitted entry's old position and
    // panicked building commitTurn ("range start index 12 out of range for
    // slice of length 9"), which aborted the whole certify.
    let traces = run("capture/index.js", Some("overflow-natural"));
    let t = traces.iter().find(|t| t.profile == "openclaw-2026.9.6").expect("a 2026.9.6 run");
    let notes: Vec<&str> = t
        .events
        .iter()
        .filter_map(|e| match e {
            clawspec::trace::Event::Note(n) => Some(n.code.as_str()),
            _ => None,
        })
        .collect();
    assert!(t.calls().any(|c| c.method == "compact"), "the turn compacted: {notes:?}");
    assert!(notes.contains(&"durable-stale"), "{notes:?}");
    assert!(!t.calls().any(|c| c.method == "commitTurn"), "no commitTurn for a stale range");
}

#[test]
fn a_capture_only_engine_is_hollow_under_a_release_that_never_commits_its_turns() {
    // openclaw-universal-capture 0.7.0 (docs/real-engines.md) declines every
    // ingest, hands the host's messages back and keeps turns only in
    // commitTurn, which 2026.4.26 never calls (its dist has no commitTurn;
    // attempt.tool-run-context-*.js finalizeHarnessContextEngineTurn falls
    // back to ingest). Its clauses there judge OpenClaw, not the engine: the
    // certificate must say hollow. On 2026.9.6 it commits its turns.
    let traces = run("capture/index.js", Some("tool-loop-parallel"));
    let profiles: Vec<String> = Profile::all().iter().map(|p| p.id.clone()).collect();
    let r = clawspec::report::build("plugin:capture/index.js", &traces, check::evaluate_all(&traces, &[]), &profiles, false, None);
    let summary = |id: &str| r.profiles.iter().find(|p| p.profile == id).unwrap_or_else(|| panic!("{id} in {:?}", r.profiles));
    let old = summary("openclaw-2026.4.26");
    assert!(!old.certified && old.hollow.as_deref().is_some_and(|h| h.contains("kept no message")), "{old:?}");
    let new = summary("openclaw-2026.9.6");
    assert_eq!(new.hollow, None, "{new:?}");
    let cov = r.coverage.iter().find(|c| c.profile == "openclaw-2026.9.6").unwrap();
    assert!(cov.methods.get("commitTurn").is_some_and(|n| *n > 0) && cov.messages_stored > 0, "{cov:?}");
}
