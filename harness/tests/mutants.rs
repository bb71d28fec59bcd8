//! Detection power: every MUST clause has a one-defect mutant of the built-in
//! window engine (`window:<mutation>`) that it catches; an unexpected pass is
//! an error. And the unmodified built-in engines pass every MUST clause on
//! every profile, marker-drift variants included.

use std::path::Path;

use clawspec::check::{self, Level, Status, Verdict};
use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::profile::{Profile, MARKER_DRIFT_SUFFIX, PROFILE_IDS};
use clawspec::runtime::RunConfig;
use clawspec::scenario::load_file;
use clawspec::suite;
use serde_json::{json, Value};

/// (mutation, clause that must catch it, scenarios that exercise it, engine config)
const MUTANTS: &[(&str, &str, &[&str], Option<&str>)] = &[
    ("omit-messages", "CE-ASM-001", &["prompt-abort-hint"], None),
    ("bad-message", "CE-ASM-002", &["prompt-abort-hint"], None),
    ("split-tool-pair", "CE-ASM-003", &["tool-loop-parallel"], None),
    ("reorder-messages", "CE-ASM-004", &["prompt-abort-hint"], None),
    ("drop-current-turn", "CE-ASM-005", &["tool-loop-parallel"], Some(r#"{"ownsCompaction": true}"#)),
    // budget-tight-multiturn drops old turns without overflowing (scaled so the
    // real host drives it); overflow-natural's seeded history is over budget at
    // the first assemble, so an engine that ignores its budget shows there.
    ("exceed-budget", "CE-ASM-006", &["budget-tight-multiturn", "overflow-natural"], None),
    ("exceed-budget", "CE-ASM-010", &["budget-tight-multiturn", "overflow-natural"], Some(r#"{"ownsCompaction": true}"#)),
    ("nan-tokens", "CE-ASM-008", &["prompt-abort-hint"], None),
    ("drop-volatile-tail", "CE-VOL-001", &["regression-lossless-claw-688"], Some(r#"{"ownsCompaction": true}"#)),
    // A live child's trigger (9.6, rfc-82137) never reaches ingest/afterTurn; bare announces still do.
    ("reingest-suppressed", "CE-PER-001", &["announce-then-followup", "announce-subagent", "announce-error-status"], None),
    ("compact-bad-shape", "CE-CMP-001", &["manual-compact"], None),
    ("compact-lies", "CE-CMP-002", &["manual-compact"], None),
    ("noop-compact", "CE-CMP-003", &["overflow-scripted-recover"], None),
    ("compact-nan-counts", "CE-CMP-004", &["manual-compact"], None),
    ("nonidempotent-bootstrap", "CE-BOOT-001", &["existing-session-bootstrap"], None),
    ("bootstrap-bad-shape", "CE-BOOT-002", &["existing-session-bootstrap"], None),
    ("ingest-bad-shape", "CE-TURN-001", &["non-admitted-turns"], None),
    ("throw-in-after-turn", "CE-TURN-002", &["non-admitted-turns"], None),
    ("maintain-bad-shape", "CE-TURN-003", &["prompt-abort-hint"], None),
    ("commit-bad-status", "CE-TURN-004", &["prompt-abort-hint"], None),
    ("commit-never-duplicate", "CE-TURN-005", &["durable-commit-replay"], None),
    ("reject-unknown-params", "CE-HOST-001", &["prompt-abort-hint"], None),
    ("hang-in-compact", "CE-LIFE-001", &["compaction-timeout"], None),
    ("crash-on-custom-role", "CE-LIFE-002", &["custom-roles-history"], None),
    ("throw-on-images", "CE-LIFE-003", &["image-user"], None),
    ("launder-provenance", "CE-PROV-001", &["inter-session-history"], None),
    ("throw-on-rfc-fields", "CE-RFC-001", &["prompt-abort-hint"], None),
    ("spawn-bad-shape", "CE-SUB-001", &["spawn-isolated"], None),
    ("rollback-throws", "CE-SUB-002", &["spawn-rollback"], None),
    ("bad-image-type", "CE-WIRE-001", &["http-anthropic"], None),
    ("undeclared-durable", "CE-COV-001", &["prompt-abort-hint"], None),
    // Issue 16: defect classes certify missed, each as an author would write it.
    ("commit-upsert", "CE-TURN-006", &["durable-commit-conflict"], None),
    ("compact-everything", "CE-CMP-007", &["compact-state-effect"], None),
    ("compact-unsaved-summary", "CE-CMP-006", &["compact-state-effect"], None),
    ("dedupe-repeats", "CE-ASM-009", &["repeated-user-messages"], None),
    ("leak-helper", "CE-LIFE-002", &["prompt-abort-hint"], None),
    ("fixed-window", "CE-ASM-011", &["repeated-user-messages"], None),
];

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The three base profiles, plus their marker-drift variants when `drift`.
fn profiles(drift: bool) -> Vec<Profile> {
    let mut ps = Profile::all();
    if drift {
        ps.extend(PROFILE_IDS.iter().map(|id| Profile::by_id(&format!("{id}{MARKER_DRIFT_SUFFIX}")).unwrap()));
    }
    ps
}

fn run(engine: &str, scenarios: &[&str], config: Option<Value>, drift: bool) -> Vec<Verdict> {
    let located: Vec<_> = scenarios
        .iter()
        .map(|s| load_file(&root().join(format!("scenarios/{s}.yaml"))).unwrap_or_else(|e| panic!("{s}: {e:?}")))
        .collect();
    let mut driver = DriverConfig::default();
    driver.call_timeout = std::time::Duration::from_secs(10);
    driver.shutdown_grace = std::time::Duration::from_millis(500);
    let cfg = RunConfig {
        engine: EngineSpec::builtin_at(env!("CARGO_BIN_EXE_clawspec"), engine),
        driver,
        state_root: std::env::temp_dir().join(format!("clawspec-mutants-{}", std::process::id())),
        engine_config: config,
        via_http: false,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let traces = rt.block_on(suite::run_jobs(suite::jobs(&located, &profiles(drift)), &cfg, 4, |_| {}));
    // Runs in parallel share the root; the last one out removes it.
    let _ = std::fs::remove_dir(&cfg.state_root);
    check::evaluate_all(&traces, &[])
}

#[test]
fn every_must_clause_has_a_mutant() {
    for c in check::catalogue::CLAUSES.iter().filter(|c| c.level == Level::Must) {
        assert!(MUTANTS.iter().any(|m| m.1 == c.id), "MUST clause {} has no mutant", c.id);
    }
}

#[test]
fn each_mutant_is_caught_by_its_clause() {
    let mut escaped = Vec::new();
    for (mutation, clause, scenarios, config) in MUTANTS {
        let config = config.map(|c| serde_json::from_str(c).unwrap());
        let verdicts = run(&format!("window:{mutation}"), scenarios, config, false);
        // Caught means its own clause failed at its level (MUST → fail,
        // SHOULD → warn): an error (the run broke off) proves nothing about
        // the clause's check.
        let failed = match check::clause(clause).unwrap_or_else(|| panic!("unknown clause {clause}")).level {
            Level::Must => Status::Fail,
            Level::Should => Status::Warn,
            Level::Info => Status::Info,
        };
        let caught = verdicts.iter().any(|v| v.clause == *clause && v.status == failed);
        if !caught {
            let seen: Vec<String> = verdicts.iter().filter(|v| v.clause == *clause).map(|v| format!("{:?} {} {}", v.status, v.scenario, v.profile)).collect();
            escaped.push(format!("window:{mutation} escaped {clause}: {seen:?}"));
        }
    }
    assert!(escaped.is_empty(), "mutants not caught:\n{}", escaped.join("\n"));
}

#[test]
fn builtin_engines_pass_every_must_clause() {
    // Long sessions (generated) are certified by the golden suite's ignored trials.
    let all: Vec<String> = clawspec::scenario::load_dir(&root().join("scenarios")).unwrap().into_iter().filter(|l| !l.scenario.generated).map(|l| l.scenario.id).collect();
    let ids: Vec<&str> = all.iter().map(String::as_str).collect();
    for (engine, config) in [("window", None), ("window", Some(json!({"ownsCompaction": true}))), ("window", Some(json!({"durable": false}))), ("legacy", None)] {
        let verdicts = run(engine, &ids, config.clone(), true);
        // `durable: false` declares no transcriptSemantics: 2026.9.6 runs its
        // admitted turns on legacy, which CE-COV-001 must catch (and only that).
        let silent_legacy = config.as_ref().is_some_and(|c| c.get("durable") == Some(&json!(false)));
        let cov = verdicts.iter().filter(|v| v.clause == "CE-COV-001" && v.status == Status::Fail).count();
        assert_eq!(cov > 0, silent_legacy, "builtin:{engine} {config:?}: CE-COV-001 failed {cov} time(s)");
        let bad: Vec<String> = verdicts
            .into_iter()
            .filter(|v| v.level == Level::Must && matches!(v.status, Status::Fail | Status::Error) && !(silent_legacy && v.clause == "CE-COV-001"))
            .map(|v| format!("{} {} {} {:?}", v.clause, v.scenario, v.profile, v.details))
            .collect();
        assert!(bad.is_empty(), "builtin:{engine} {config:?} fails MUST clauses:\n{}", bad.join("\n"));
    }
}
