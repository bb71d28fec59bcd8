//! Facts the real openclaw@2026.4.26 host showed `clawspec twin` for the
//! heartbeat, inter-session and excludeFromContext rows, pinned on the
//! reference runtime so a change that breaks them fails here without a
//! gateway. Each test names the twin row and the dist function behind it.

use std::path::Path;

use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::model::ScriptedModel;
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{self, RunConfig};
use clawspec::trace::{Outcome, Trace};
use serde_json::Value;

const HEARTBEAT_POLL: &str = "[OpenClaw heartbeat poll]";

fn run(engine: &str, scenario: &str) -> Trace {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../scenarios/{scenario}.yaml"));
    let l = clawspec::scenario::load_file(&path).unwrap_or_else(|e| panic!("{e:?}"));
    let cfg = RunConfig {
        engine: EngineSpec::builtin_at(env!("CARGO_BIN_EXE_clawspec"), engine),
        driver: DriverConfig::default(),
        state_root: std::env::temp_dir().join(format!("clawspec-pins-426-{}-{engine}-{scenario}", std::process::id())),
        engine_config: None,
        via_http: false,
    };
    let p = Profile::by_id("openclaw-2026.4.26").unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let t = rt.block_on(runtime::run(&l.scenario, &p, &cfg, Box::new(ScriptedModel)));
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    assert!(matches!(t.outcome, Outcome::Completed { .. }), "{}", t.to_pretty_json());
    t
}

/// Every call of `method`, its params resolved.
fn params(t: &Trace, method: &str) -> Vec<Value> {
    t.calls().filter(|c| c.method == method).map(|c| t.params(c).into_owned()).collect()
}

fn first_text(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => b[0]["text"].as_str().unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

/// heartbeat-ok (builtin:legacy): the poll is stored as a text block, the
/// whole hinted prompt follows as the next-turn runtime-context message
/// (runtime-context-prompt-*.js), and no finalize call says `isHeartbeat`
/// (attempt.tool-run-context-*.js `finalizeHarnessContextEngineTurn`).
#[test]
fn a_heartbeat_poll_is_a_block_followed_by_its_prompt_as_runtime_context() {
    let t = run("legacy", "heartbeat-ok");
    let ingests = params(&t, "ingest");
    assert!(ingests.iter().all(|p| p.get("isHeartbeat").is_none()), "{ingests:?}");
    let poll = &ingests[0]["message"];
    assert_eq!(poll["content"], serde_json::json!([{"type": "text", "text": HEARTBEAT_POLL}]));
    let ctx = &ingests[1]["message"];
    assert_eq!(ctx["customType"], "openclaw.runtime-context");
    let text = ctx["content"].as_str().unwrap();
    assert!(text.contains("reply HEARTBEAT_OK.\nWhen reading HEARTBEAT.md, use workspace file "), "{text}");
    assert!(text.contains("/workspace/HEARTBEAT.md (exact case). Do not read docs/heartbeat.md.\nCurrent time: "), "{text}");
    let assembles = params(&t, "assemble");
    assert_eq!(assembles[0]["prompt"].as_str().unwrap(), text.split("\n\n").skip(1).collect::<Vec<_>>().join("\n\n"));
    // filterHeartbeatPairs drops adjacent pairs only: the context message keeps them.
    let next: Vec<String> = assembles[1]["messages"].as_array().unwrap().iter().map(first_text).collect();
    assert!(next.iter().any(|m| m == HEARTBEAT_POLL) && next.iter().any(|m| m == "HEARTBEAT_OK"), "{next:?}");
}

/// heartbeat-ok / regression-a8-all-filtered (builtin:window): the poll's
/// attempt context is the heartbeat runner's (dist/heartbeat-runner-*.js
/// `Provider: "heartbeat"`), and only the gateway's first run thinks "off".
#[test]
fn a_heartbeat_runs_on_the_heartbeat_surface() {
    let t = run("window", "regression-a8-all-filtered");
    let ctx: Vec<Value> = params(&t, "assemble").into_iter().map(|p| p["runtimeContext"].clone()).collect();
    let ctx: Vec<Value> = if ctx.iter().all(Value::is_null) { params(&t, "afterTurn").into_iter().map(|p| p["runtimeContext"].clone()).collect() } else { ctx };
    assert_eq!((ctx[0]["messageProvider"].as_str(), ctx[0]["currentChannelId"].as_str(), ctx[0]["senderIsOwner"].as_bool()), (Some("heartbeat"), Some("heartbeat"), Some(false)));
    assert!(ctx[0].get("senderId").is_none() && ctx[0].get("currentMessageId").is_none());
    assert!(ctx[0]["extraSystemPrompt"].as_str().unwrap().contains("\"channel\": \"heartbeat\""));
    let levels: Vec<&str> = ctx.iter().filter_map(|c| c["thinkLevel"].as_str()).collect();
    assert_eq!(levels.first(), Some(&"off"), "{levels:?}");
    assert!(levels.contains(&"adaptive"), "later runs: the model's default: {levels:?}");
}

/// inter-session-send (builtin:legacy): the `agent` RPC stamps the text
/// (server-methods-*.js `injectTimestamp`), the run's message has no
/// provenance (only the persisted copy: `transformMessageForPersistence`),
/// and replayed history puts the header on the block's text
/// (`annotateInterSessionUserMessages`).
#[test]
fn an_inter_session_message_is_stamped_and_annotated_only_in_history() {
    let t = run("legacy", "inter-session-send");
    let assembles = params(&t, "assemble");
    let prompt = assembles[0]["prompt"].as_str().unwrap();
    assert!(prompt.starts_with('[') && prompt.ends_with("] Ops here: the database failover finished."), "{prompt}");
    let live = &params(&t, "ingest")[0]["message"];
    assert!(live.get("provenance").is_none(), "{live}");
    assert_eq!(live["content"][0]["text"].as_str(), Some(prompt));
    let replayed = assembles[1]["messages"].as_array().unwrap().iter().find(|m| m.get("provenance").is_some()).expect("the persisted copy");
    assert_eq!(replayed["content"][0]["text"].as_str().unwrap(), format!("[Inter-session message] sourceSession=agent:ops:main sourceChannel=internal sourceTool=sessions_send\n{prompt}"));
}

/// excluded-from-context (both engines): 2026.4.26 never reads
/// `excludeFromContext` (no such key in its dist); the engine gets both entries.
#[test]
fn excluded_entries_reach_the_engine() {
    let t = run("window", "excluded-from-context");
    let roles: Vec<String> = params(&t, "assemble")[0]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap().to_string()).collect();
    assert_eq!(roles, ["user", "custom", "bashExecution", "assistant"]);
}
