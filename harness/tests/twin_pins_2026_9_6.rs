//! Facts the real openclaw@2026.9.6 host showed `clawspec twin` for library
//! scenarios, pinned on the reference runtime so a change that breaks them
//! fails here without a gateway. Each test names the twin row and the dist
//! function behind the fact.

use std::path::Path;

use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::model::ScriptedModel;
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{self, RunConfig};
use clawspec::trace::{CallRecord, Outcome, Trace};
use serde_json::Value;

fn run(engine: &str, scenario: &str) -> Trace {
    run_on("openclaw-2026.9.6", engine, scenario)
}

fn run_on(profile: &str, engine: &str, scenario: &str) -> Trace {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../scenarios/{scenario}.yaml"));
    let l = clawspec::scenario::load_file(&path).unwrap_or_else(|e| panic!("{e:?}"));
    let cfg = RunConfig {
        engine: EngineSpec::builtin_at(env!("CARGO_BIN_EXE_clawspec"), engine),
        driver: DriverConfig::default(),
        state_root: std::env::temp_dir().join(format!("clawspec-twin-pins-{}-{engine}-{scenario}-{profile}", std::process::id())),
        engine_config: None,
        via_http: false,
    };
    let p = Profile::by_id(profile).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let t = rt.block_on(runtime::run(&l.scenario, &p, &cfg, Box::new(ScriptedModel)));
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    assert!(matches!(t.outcome, Outcome::Completed { .. }), "{}", t.to_pretty_json());
    t
}

fn calls<'a>(t: &'a Trace, m: &str) -> Vec<&'a CallRecord> {
    t.calls().filter(|c| c.method == m).collect()
}

fn tool_results(t: &Trace, c: &CallRecord) -> Vec<Value> {
    c.messages(t).unwrap().into_iter().filter(|m| m["role"] == "toolResult").collect()
}

/// http-anthropic: the session keeps a tool result's `details`, the next
/// attempt's history does not (`stripToolResultDetails` in
/// `sanitizeSessionHistory`, builtin-openclaw-*.mjs).
#[test]
fn replayed_tool_results_lose_their_details() {
    let t = run("window", "http-anthropic");
    let commits = calls(&t, "commitTurn");
    let live = tool_results(&t, commits[0]);
    assert!(live.iter().all(|r| r.get("details").is_some()), "the turn's own results keep details: {live:?}");
    let assembles = calls(&t, "assemble");
    let replayed = tool_results(&t, assembles[1]);
    assert_eq!(replayed.len(), 2, "{replayed:?}");
    assert!(replayed.iter().all(|r| r.get("details").is_none()), "{replayed:?}");
}

/// http-anthropic: seeded history with a tool result gets an
/// `openclaw.cache-ttl` record before the session's first model call, and
/// one more after the turn's own tool result; the second turn adds none
/// (`persistThenStream` → `persistToolResultProjections`, written only when
/// the frozen set changed). The real store's sequence numbers: the turn's
/// user message at 5, its final assistant at 12, the next user message at 14.
#[test]
fn cache_ttl_records_follow_the_frozen_set() {
    let t = run("window", "http-anthropic");
    let commits = calls(&t, "commitTurn");
    let seq = |c: &CallRecord, k: &str| c.params[k]["rawSeq"].as_u64();
    assert_eq!((seq(commits[0], "admission"), seq(commits[0], "terminal")), (Some(5), Some(12)));
    assert_eq!(seq(commits[1], "admission"), Some(14));
}

/// http-openai-chat vs http-anthropic: an API key read from the provider
/// config is a routed plan naming its route (prepare-auth-*.mjs
/// `toPreparedRoute`); a bundled plugin's runtime auth (anthropic) has none.
#[test]
fn a_routed_key_names_its_model_route() {
    let route = |scenario: &str| calls(&run("window", scenario), "bootstrap")[0].params["runtimeContext"]["runtimeAuthPlan"].get("modelRoute").cloned();
    let r = route("http-openai-chat").expect("openai: routed");
    assert_eq!((r["api"].as_str(), r["modelId"].as_str(), r["requestTransportOverrides"].as_str()), (Some("openai-completions"), Some("gpt-4.1"), Some("present")));
    assert_eq!(route("http-anthropic"), None);
    assert_eq!(route("http-mistral"), None, "mistral's plain provider-config key");
}

/// Every 2026.9.6 reply records the model the provider named, which is the
/// one requested (mock-providers answers as a real provider does).
#[test]
fn replies_record_the_requested_model() {
    let t = run("window", "http-anthropic");
    let commit = calls(&t, "commitTurn")[0];
    let assistants: Vec<Value> = commit.messages(&t).unwrap().into_iter().filter(|m| m["role"] == "assistant").collect();
    assert!(!assistants.is_empty());
    assert!(assistants.iter().all(|a| a["responseModel"] == "claude-sonnet-4-6"), "{assistants:?}");
}

/// image-user: a `chat.send` image is stored as inbound media — the prompt
/// carries the media note with the staged path, the stored message the typed
/// text and `__openclaw.media` (chat-send-handler-*.mjs, media-note-*.mjs);
/// 2026.4.26 keeps the image inline.
#[test]
fn a_sent_image_is_stored_as_inbound_media() {
    let t = run("window", "image-user");
    let a = calls(&t, "assemble")[0];
    let prompt = a.params["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("[media attached: $STATE/workspace/media/inbound/openclaw-staged-") && prompt.ends_with(".png (image/png)]\nWhat does this screenshot show?"), "{prompt}");
    let user = calls(&t, "commitTurn")[0].messages(&t).unwrap().into_iter().find(|m| m["role"] == "user").unwrap();
    assert_eq!(user["content"], "What does this screenshot show?");
    assert_eq!(user["__openclaw"]["media"][0]["sizeBytes"], 68);
    assert_eq!(user["__openclaw"]["senderIsOwner"], true, "merged with the gateway's own metadata");
    let old = run_on("openclaw-2026.4.26", "window", "image-user");
    let inline = calls(&old, "afterTurn")[0].messages(&old).unwrap().into_iter().find(|m| m["role"] == "user").unwrap();
    assert!(inline["content"].as_array().unwrap().iter().any(|b| b["type"] == "image"), "{inline}");
}

/// inter-session-send: a message another session routes in runs as the
/// gateway `agent` RPC's run (sessions_send's `sendParams`,
/// sessions-spawn-tool-*.mjs): bootstrap sees only the history (the message
/// is admitted after it, behind thinking_level_change and model-snapshot:
/// rawSeq 5 on a two-message history), the attempt context has no inbound
/// message, channel or sender but `messageChannel: "webchat"`, assemble gets
/// the annotated prompt (`annotateInterSessionPromptText`), and the stored
/// message carries the run's idempotency key and `senderIsOwner: false`.
#[test]
fn an_inter_session_message_runs_as_the_agent_rpc_run() {
    let t = run("window", "inter-session-send");
    let boot = calls(&t, "bootstrap")[0];
    let clawspec::trace::ReplyRecord::Ok(reply) = &boot.reply else { panic!("{:?}", boot.reply) };
    assert_eq!(reply["importedMessages"], 2, "the history only");
    let ctx = &boot.params["runtimeContext"];
    assert_eq!(ctx["messageChannel"], "webchat");
    for k in ["currentMessageId", "currentChannelId", "senderId", "extraSystemPrompt", "bashElevated", "reasoningLevel"] {
        assert!(ctx.get(k).is_none(), "{k} in {ctx}");
    }
    let prompt = calls(&t, "assemble")[0].params["prompt"].as_str().unwrap().to_string();
    assert!(prompt.starts_with("[Inter-session message] sourceSession=agent:ops:main sourceChannel=internal sourceTool=sessions_send isUser=false\n"), "{prompt}");
    assert!(prompt.ends_with("\nOps here: the database failover finished."), "{prompt}");
    let commit = calls(&t, "commitTurn")[0];
    assert_eq!(commit.params["admission"]["rawSeq"], 5);
    let user = commit.messages(&t).unwrap().into_iter().find(|m| m["role"] == "user").unwrap();
    assert_eq!(user["content"], "Ops here: the database failover finished.");
    assert_eq!(user["__openclaw"]["senderIsOwner"], false);
    assert!(user["idempotencyKey"].is_string(), "{user}");
    assert!(user.get("display").is_none(), "a sessions_send message is displayed");
    // The next chat.send turn is an ordinary WebChat entry again.
    assert!(calls(&t, "bootstrap")[1].params["runtimeContext"].get("currentMessageId").is_some());
}

/// inter-session-tools: a completion report (agent_harness_task) is stored
/// with `display: false` (`isCompletionReportInputProvenance`,
/// agent-turn-service-*.mjs); exec_approval_followup is not one.
#[test]
fn inter_session_completion_reports_are_not_displayed() {
    let t = run("window", "inter-session-tools");
    let display: Vec<Option<Value>> = calls(&t, "commitTurn").iter().map(|c| c.messages(&t).unwrap().into_iter().find(|m| m["role"] == "user").unwrap().get("display").cloned()).collect();
    assert_eq!(display, [None, Some(Value::Bool(false))]);
}

/// The `sessions_spawn` receipt of a scripted spawn call, as the parent's commit carries it.
fn spawn_receipt(t: &Trace) -> Value {
    let commit = calls(t, "commitTurn")[0];
    let r = tool_results(t, commit).into_iter().find(|r| r["toolName"] == "sessions_spawn").expect("a spawn receipt");
    r["details"].clone()
}

/// spawn-fork: `context: "fork"` prepares the spawn with both session ids
/// and the forked child's session key as its file (dist/sessions-spawn-tool-*.mjs
/// prepareContextEngineSubagentSpawn); the child's session starts from the
/// parent's log, so its run bootstraps (the 4 forked messages, before its
/// task message is written), names its own run as writer, and assembles the
/// forked history with the unanswered sessions_spawn call repaired by a
/// synthetic error result; its task message sits at raw seq 7 (the real
/// store: 6 forked events before it).
#[test]
fn a_forked_child_starts_from_the_parents_log() {
    let t = run("window", "spawn-fork");
    let prep = calls(&t, "prepareSubagentSpawn")[0];
    assert_eq!(prep.params["contextMode"], "fork");
    assert!(prep.params["parentSessionId"].is_string() && prep.params["childSessionId"].is_string(), "{}", prep.params);
    let child = prep.params["childSessionKey"].as_str().unwrap();
    assert_eq!(prep.params["childSessionFile"], child);
    let receipt = spawn_receipt(&t);
    assert_eq!(receipt["context"], "fork");
    let boot = calls(&t, "bootstrap").into_iter().find(|c| c.params["sessionKey"] == child).expect("the forked child bootstraps");
    assert_eq!(boot.params["sessionTarget"]["expectedWriterRunId"], receipt["runId"]);
    let imported = match &boot.reply {
        clawspec::trace::ReplyRecord::Ok(r) => r["importedMessages"].clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(imported, 4);
    let ctx = &boot.params["runtimeContext"];
    assert_eq!(ctx["currentChannelId"], "agent:main:main");
    assert!(ctx["extraSystemPrompt"].as_str().unwrap().starts_with("# Subagent Context\n"), "{ctx}");
    assert!(ctx.get("senderId").is_none() && ctx.get("currentMessageId").is_none());
    let assemble = calls(&t, "assemble").into_iter().find(|c| c.params["sessionKey"] == child).expect("the child's assemble");
    let history = assemble.messages(&t).unwrap();
    assert_eq!(history.len(), 5, "{history:?}");
    assert_eq!((history[4]["role"].as_str(), history[4]["isError"].as_bool()), (Some("toolResult"), Some(true)));
    let commit = calls(&t, "commitTurn").into_iter().find(|c| c.params["sessionKey"] == child).expect("the child's commit");
    assert_eq!(commit.params["admission"]["rawSeq"], 7);
}

/// subagent-ended-reasons: the registry's cleanup ends a kept child as
/// "completed" and a `cleanup: "delete"` child as "deleted"
/// (dist/subagent-registry-*.mjs: `options.isDeleteCleanup ? "deleted" : "completed"`).
#[test]
fn cleanup_delete_ends_a_child_as_deleted() {
    let t = run("window", "subagent-ended-reasons");
    let reasons: Vec<&str> = calls(&t, "onSubagentEnded").iter().map(|c| c.params["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, ["completed", "deleted"]);
}

/// announce-private: `completionTarget: "parent"` makes the completion a
/// private requester turn — the receipt's private note, no stats line, the
/// private instruction, and the trigger admitted and committed with
/// `display: false` (dist/agent-turn-service-*.mjs `privateCompletion`).
#[test]
fn a_private_completion_is_an_admitted_turn() {
    let t = run("window", "announce-private");
    let receipt = spawn_receipt(&t);
    assert_eq!(receipt["completionTarget"], "parent");
    assert!(receipt["note"].as_str().unwrap().starts_with("The result returns privately to the requester."));
    let commits = calls(&t, "commitTurn");
    let announce = commits.iter().find(|c| c.messages(&t).unwrap()[0]["provenance"]["sourceTool"] == "subagent_announce").expect("the private completion is committed");
    let trigger = &announce.messages(&t).unwrap()[0];
    assert_eq!(trigger["display"], false);
    let text = trigger["content"].as_str().unwrap();
    assert!(text.starts_with("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") && text.contains("Process this result privately.") && !text.contains("Stats: "), "{text}");
}

/// announce-subagent: a provider naming the requested model leaves no
/// "Model route changed" notice in the completion (dist
/// openclaw-state-db-read-connection-*.mjs `formatAgentRunRouteChange`
/// needs `receipt.rerouted`).
#[test]
fn a_completion_without_a_reroute_has_no_route_notice() {
    let t = run("window", "announce-subagent");
    let prompts: Vec<&str> = calls(&t, "assemble").iter().filter_map(|c| c.params["prompt"].as_str()).filter(|p| p.contains("[Internal task completion event]")).collect();
    assert_eq!(prompts.len(), 1);
    assert!(!prompts[0].contains("Model route changed") && !prompts[0].contains("Preserve any runtime-authored"), "{}", prompts[0]);
}

/// existing-session-bootstrap (also overflow-mid-turn, overflow-scripted-recover,
/// overflow-three-compactions): the window engine's overflow compaction asks
/// `runtimeContext.llm.complete` for a summary with its block-list messages;
/// 2026.9.6's Anthropic transport cannot encode them (runtime-llm.runtime-*.mjs
/// `buildMessages`, @openclaw/ai anthropic-stream-reducer-*.mjs
/// `convertAnthropicMessages`: `block.text.trim()`), so the host answers
/// `stopReason: "error"` with no text and the summary is empty. 2026.4.26
/// offers no `llm.complete` at all.
#[test]
fn an_unsendable_summary_request_gives_an_empty_summary() {
    let t = run("window", "existing-session-bootstrap");
    let compact = calls(&t, "compact")[0];
    let llm = compact.callbacks.iter().find(|c| c.method == "host/llm.complete").expect("the engine asked for a summary");
    assert_eq!((llm.result["text"].as_str(), llm.result["stopReason"].as_str()), (Some(""), Some("error")), "{}", llm.result);
    assert_eq!(t.resolve(match &compact.reply { clawspec::trace::ReplyRecord::Ok(v) => v, r => panic!("{r:?}") })["result"]["summary"], "");
    let classic = run_on("openclaw-2026.4.26", "window", "existing-session-bootstrap");
    let summaries: Vec<String> = classic.calls().flat_map(|c| c.callbacks.iter()).filter(|c| c.method == "host/llm.complete").map(|c| c.result["text"].as_str().unwrap_or_default().to_string()).collect();
    // 2026.4.26 offers no runtimeContext.llm (no runtime-llm module in its
    // dist, runtime::compact `Builtin2026_4`): the engine asks nothing.
    assert!(summaries.is_empty(), "{summaries:?}");
}

/// compact-state-effect: after a manual `/compact` the engine's
/// maintain(compaction) gets the compaction's own runtimeContext (the
/// command's: `trigger: "manual"`, `customInstructions`, no `forceReason`)
/// and the successor's `sessionFile`, the command's session key
/// (embedded-agent-*.mjs `runContextEngineMaintenance` after the commit;
/// commands-handlers.runtime-*.mjs `sessionFile: params.sessionKey`).
#[test]
fn maintain_after_a_manual_compact_carries_the_command_context() {
    let t = run("window", "compact-state-effect");
    let compact = calls(&t, "compact").into_iter().next().expect("a compact");
    let after: Vec<&CallRecord> = t.calls().filter(|c| c.method == "maintain" && c.step == compact.step).collect();
    assert_eq!(after.len(), 1, "one maintain(compaction) in the /compact step");
    let (m, c) = (&after[0].params, &compact.params);
    assert_eq!(m["runtimeContext"]["trigger"], "manual");
    assert_eq!(m["runtimeContext"]["customInstructions"], c["runtimeContext"]["customInstructions"]);
    assert_eq!(c["runtimeContext"]["forceReason"], "manual");
    assert!(m["runtimeContext"].get("forceReason").is_none(), "{m}");
    assert_eq!(m["sessionFile"], "agent:main:main");
    assert!(m["runtimeContext"].get("currentMessageId").is_none(), "no attempt context: {m}");
    // A handle per call: the command's signal under a new id, after the call's own.
    let sig = |v: &Value| v["$abortSignal"].as_str().map(str::to_string);
    assert_ne!(sig(&m["runtimeContext"]["abortSignal"]), sig(&c["runtimeContext"]["abortSignal"]));
    assert!(sig(&m["runtimeContext"]["abortSignal"]) > sig(&m["abortSignal"]), "{m}");
}

/// timeout-recovery (builtin:window): the timed-out attempt's
/// `<turn_aborted>` guidance is a `custom_message` event without a message
/// position (every `custom` role message goes through
/// `appendCustomMessageEntry`, resource-loader-*.mjs; positions only for a
/// `message` event, session-transcript-index-*.mjs), and no
/// `openclaw:bootstrap-context:full` follows the aborted attempt
/// (attempt-thread-helpers-*.mjs `shouldPersistCompletedBootstrapTurn`). So
/// the retry's assemble sees the guidance, commitTurn's messages do not
/// (session-accessor-*.mjs `readClosedTranscriptTurn`), and the terminal
/// anchor is the real store's: seq 16, position 10 (twin --keep, 2026-11-24).
#[test]
fn the_interrupted_turn_guidance_is_assembled_but_not_committed() {
    let t = run("window", "timeout-recovery");
    let is_guidance = |m: &Value| m["role"] == "custom" && m["customType"] == "openclaw:turn-aborted";
    let assembles = calls(&t, "assemble");
    let retry = assembles.last().expect("the retry's assemble");
    assert!(retry.messages(&t).unwrap().iter().any(is_guidance), "the retry assembles with the guidance");
    let commits = calls(&t, "commitTurn");
    assert_eq!(commits.len(), 1);
    let c = commits[0];
    assert!(!c.messages(&t).unwrap().iter().any(is_guidance), "commitTurn's range holds positioned messages only");
    assert_eq!((c.params["terminal"]["rawSeq"].as_u64(), c.params["terminal"]["activeMessagePosition"].as_u64()), (Some(16), Some(10)));
    assert_eq!((c.params["admission"]["rawSeq"].as_u64(), c.params["admission"]["activeMessagePosition"].as_u64()), (Some(7), Some(6)));
}
