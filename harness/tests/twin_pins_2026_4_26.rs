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

/// prompt-bare-new (builtin:legacy, over openai-completions): the bare reset's
/// turn is runtime-only — the engine ingests one empty text block, assembles
/// with the reset prompt, and the next turn's history no longer holds it
/// (dist/get-reply-*.js softResetTail, dist/runtime-context-prompt-*.js).
#[test]
fn a_bare_reset_turn_is_an_empty_text_block_the_next_turn_no_longer_sees() {
    let t = run("legacy", "prompt-bare-new");
    let ingests = params(&t, "ingest");
    assert_eq!(ingests[0]["message"]["content"], serde_json::json!([{"type": "text", "text": ""}]));
    assert!(ingests[0]["message"].get("idempotencyKey").is_none());
    let assembles = params(&t, "assemble");
    assert!(assembles[0]["prompt"].as_str().unwrap().starts_with("A new session was started via /new or /reset."));
    let next = assembles[1]["messages"].as_array().unwrap();
    assert_eq!(next.iter().map(|m| m["role"].as_str().unwrap()).collect::<Vec<_>>(), ["assistant"], "{next:?}");
}

/// steer-user-text (builtin:legacy): a message steered into the running turn
/// is the reply pipeline's queued body, the Sender block then the stamped
/// text, as one text block (dist/get-reply-*.js followupRun.prompt).
#[test]
fn a_steered_message_is_the_queued_body() {
    let t = run("legacy", "steer-user-text");
    let steered = params(&t, "ingest").into_iter().map(|p| p["message"].clone()).find(|m| first_text(m).ends_with("Ignore vendor/, it is generated.")).expect("the steered message");
    let text = first_text(&steered);
    assert!(text.starts_with("Sender (untrusted metadata):\n```json\n") && text.contains("```\n\n[Thu 2026-01-01 "), "{text}");
}

/// tool-loop-multi-step (builtin:window): a failing tool reaches the engine as
/// the tool adapter's error result, a normal result with isError false
/// (dist/pi-tool-definition-adapter-*.js buildToolExecutionErrorResult).
#[test]
fn a_failing_tool_is_the_adapters_error_result() {
    let t = run("window", "tool-loop-multi-step");
    let msgs: Vec<Value> = params(&t, "afterTurn").into_iter().flat_map(|p| p["messages"].as_array().cloned().unwrap_or_default()).collect();
    let failed = msgs.iter().find(|m| m["role"] == "toolResult" && m["toolCallId"] == "toolu_0001").expect("the failed call's result");
    assert_eq!(failed["isError"], false);
    assert_eq!(failed["details"], serde_json::json!({"status": "error", "tool": "exec", "error": "permission denied"}));
    assert_eq!(first_text(failed), "{\n  \"status\": \"error\",\n  \"tool\": \"exec\",\n  \"error\": \"permission denied\"\n}");
}

/// announce-subagent (both engines, twinned equal 2026-11-24): with the
/// runner's `agents.defaults.skipBootstrap` the child's `agent` run seeds no
/// BOOTSTRAP.md (dist/agent-command-*.js `ensureBootstrapFiles:
/// !agentCfg?.skipBootstrap`), so the announce message is the stamped
/// completion block alone; on builtin:window the child's finalize carries the
/// child's own attempt context (dist/subagent-system-prompt-*.js
/// buildSubagentSystemPrompt as extraSystemPrompt, not the owner) and the
/// announce run's carries none of the WebChat message context.
#[test]
fn a_spawns_runs_carry_their_own_context_and_no_pending_bootstrap() {
    let t = run("legacy", "announce-subagent");
    let texts: Vec<String> = params(&t, "ingest").iter().map(|p| first_text(&p["message"])).collect();
    assert!(texts.iter().all(|m| !m.contains("[Bootstrap pending]")), "{texts:?}");
    assert!(texts.iter().any(|m| m.contains("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") && m.starts_with('[')), "{texts:?}");

    let t = run("window", "announce-subagent");
    let after: Vec<Value> = params(&t, "afterTurn");
    let child = after.iter().find(|p| p["sessionKey"].as_str().is_some_and(|k| k.contains(":subagent:"))).expect("the child's afterTurn");
    let ctx = &child["runtimeContext"];
    assert!(ctx["extraSystemPrompt"].as_str().unwrap().starts_with("# Subagent Context\n"), "{ctx}");
    assert_eq!((ctx["senderIsOwner"].as_bool(), ctx["messageChannel"].as_str(), ctx.get("currentMessageId")), (Some(false), Some("webchat"), None));
    // The parent's spawn turn, the child's run, then the announce run.
    let announce = &after[2]["runtimeContext"];
    assert_eq!(after[2]["sessionKey"], "agent:main:main");
    assert!(announce.get("extraSystemPrompt").is_none() && announce.get("senderId").is_none(), "{announce}");
}

/// overflow-natural (builtin:legacy): the precheck's overflow reaches the
/// run loop's compaction with the run's embedded compaction context
/// (pi-embedded-*.js overflow recovery: `buildEmbeddedCompactionRuntimeContext`
/// + the attempt's promptCache), and no `currentTokenCount`, since the
/// precheck's error names no count (`extractObservedOverflowTokenCount`), so
/// the delegated compaction reports pi's own `tokensBefore` estimate.
#[test]
fn a_precheck_overflow_compacts_with_the_runs_context_and_no_observed_count() {
    let t = run("legacy", "overflow-natural");
    let compacts = params(&t, "compact");
    assert!(!compacts.is_empty());
    let c = &compacts[0];
    assert!(c.get("currentTokenCount").is_none(), "{c}");
    let ctx = &c["runtimeContext"];
    assert!(ctx.get("currentTokenCount").is_none(), "{ctx}");
    assert_eq!(ctx["trigger"], "overflow");
    assert_eq!(ctx["promptCache"], serde_json::json!({"retention": "short"}));
    for k in ["sessionKey", "agentDir", "workspaceDir", "provider", "model", "messageProvider", "currentMessageId", "senderId", "senderIsOwner", "thinkLevel", "bashElevated", "extraSystemPrompt"] {
        assert!(ctx.get(k).is_some(), "{k} missing: {ctx}");
    }
    for k in ["cwd", "runtimeAuthPlan", "authProfileIdSource", "currentChannelId"] {
        assert!(ctx.get(k).is_none(), "{k} present: {ctx}");
    }
}

/// overflow-truncation-fallback (builtin:legacy): the precheck finds enough
/// to free in the oversized log (`truncate_tool_results_only`), truncates it
/// in the session to the live cap (16 000 chars for a 24 000-token window,
/// head + tail around the omission marker) and retries without compacting
/// (preemptive-compaction-*.js, tool-result-truncation-*.js, pi-embedded-*.js
/// "early recovery route=truncate_tool_results_only completed; retrying prompt").
#[test]
fn an_oversized_tool_result_is_truncated_before_the_prompt_instead_of_compacted() {
    let t = run("legacy", "overflow-truncation-fallback");
    assert!(params(&t, "compact").is_empty(), "no compaction");
    let assembles = params(&t, "assemble");
    assert!(assembles.len() >= 2, "the truncation retried the attempt");
    let tool_text = |a: &Value| a["messages"].as_array().unwrap().iter().find(|m| m["role"] == "toolResult").map(first_text).unwrap();
    let before = tool_text(&assembles[0]);
    let after = tool_text(&assembles[1]);
    assert!(before.encode_utf16().count() > 16_000);
    assert_eq!(after.encode_utf16().count(), 16_000);
    assert!(after.contains("middle content omitted") && after.ends_with("more characters truncated]"), "{after}");
}

/// durable-overflow-retry (builtin:legacy): the run gives up on the overflow,
/// the reply runner resets the session with its context-limit notice
/// (agent-runner.runtime-*.js `resetSessionAfterCompactionFailure`); the next
/// turn assembles that notice (an all-sanitized history keeps the session's
/// messages: selection-*.js `if (limited.length > 0)`), drops it before the
/// prompt (`normalizeAssistantReplayContent`), so only what follows the
/// assembled view is ingested.
#[test]
fn an_overflow_give_up_resets_the_session_with_the_notice() {
    let t = run("legacy", "durable-overflow-retry");
    let step1: Vec<_> = t.calls().filter(|c| c.step == 1).collect();
    let assemble = t.params(step1.iter().find(|c| c.method == "assemble").unwrap()).into_owned();
    let ms = assemble["messages"].as_array().unwrap();
    assert_eq!(ms.len(), 1, "{assemble}");
    assert_eq!(ms[0]["model"], "gateway-injected");
    assert!(first_text(&ms[0]).starts_with("⚠️ Context limit exceeded. I've reset our conversation"));
    let ingested: Vec<String> = step1.iter().filter(|c| c.method == "ingest").map(|c| t.params(c)["message"]["role"].as_str().unwrap_or_default().to_string()).collect();
    assert_eq!(ingested, ["custom", "assistant"]);
}

/// overflow-natural (builtin:window): the precheck's failed attempt is
/// finalized before the run loop compacts (selection-*.js
/// `finalizeHarnessContextEngineTurn` after every attempt), and the
/// maintain after the overflow compaction carries that compaction's
/// runtimeContext plus `rewriteTranscriptEntries` (pi-embedded-*.js
/// `runContextEngineMaintenance({reason: "compaction", runtimeContext:
/// overflowCompactionRuntimeContext})`).
#[test]
fn a_precheck_overflow_is_finalized_then_compacted_then_maintained_with_its_context() {
    let t = run("window", "overflow-natural");
    let methods: Vec<&str> = t.calls().filter(|c| c.step == 0).map(|c| c.method.as_str()).collect();
    let first_compact = methods.iter().position(|m| *m == "compact").expect("a compaction");
    assert_eq!(methods[first_compact - 1], "afterTurn", "{methods:?}");
    let maintain = t.calls().find(|c| c.method == "maintain" && c.meta.reason.as_deref() == Some("compaction")).expect("maintain(compaction)");
    let ctx = t.params(maintain)["runtimeContext"].clone();
    assert_eq!(ctx["trigger"], "overflow");
    assert!(ctx.get("tokenBudget").is_none(), "{ctx}");
    assert_eq!(ctx["rewriteTranscriptEntries"], serde_json::json!({"$callback": "rewriteTranscriptEntries"}));
}
