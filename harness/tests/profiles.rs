//! The same scenario yields the documented, different call sequences under
//! openclaw-2026.4.26, openclaw-2026.9.6 and rfc-82137 (issue 3). Each
//! assertion names the OpenClaw behaviour it pins.

mod support;

use std::path::Path;

use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::model::ScriptedModel;
use clawspec::runtime::profile::Profile;
use clawspec::runtime::{self, RunConfig};
use clawspec::trace::{CallRecord, Event, Outcome, ReplyRecord, Trace};
use serde_json::Value;

fn run(engine: &str, profile: &str, scenario: &str) -> Trace {
    run_with(engine, profile, scenario, None)
}

fn run_with(engine: &str, profile: &str, scenario: &str, engine_config: Option<Value>) -> Trace {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/scenarios/{scenario}.yaml"));
    let l = clawspec::scenario::load_file(&path).unwrap_or_else(|e| panic!("{e:?}"));
    let cfg = RunConfig {
        engine: EngineSpec::builtin_at(env!("CARGO_BIN_EXE_clawspec"), engine),
        driver: DriverConfig::default(),
        // Shared by parallel tests of the same engine × profile (each run has
        // its own dir inside), so never emptied here; support removes it once
        // this process has exited.
        state_root: support::shared_tmp(&format!("profiles-{engine}-{profile}")),
        engine_config,
        via_http: false,
    };
    let p = Profile::by_id(profile).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let t = rt.block_on(runtime::run(&l.scenario, &p, &cfg, Box::new(ScriptedModel)));
    assert!(matches!(t.outcome, Outcome::Completed { .. }), "{}", t.to_pretty_json());
    t
}

fn calls<'a>(t: &'a Trace, m: &str) -> Vec<&'a CallRecord> {
    t.calls().filter(|c| c.method == m).collect()
}

fn notes(t: &Trace, code: &str) -> usize {
    t.events.iter().filter(|e| matches!(e, Event::Note(n) if n.code == code)).count()
}

fn has(c: &CallRecord, key: &str) -> bool {
    c.params.get(key).is_some()
}

#[test]
fn classic_2026_4_26() {
    let t = run("window", "openclaw-2026.4.26", "profile-diff");
    // No runtimeSettings before 2026.6.11 (runtime-settings.ts).
    assert!(t.calls().all(|c| !has(c, "runtimeSettings")));
    // No durable turns: afterTurn finalizes every turn, commitTurn never runs.
    assert!(calls(&t, "commitTurn").is_empty());
    assert!(!calls(&t, "afterTurn").is_empty());
    // ≤2026.7.x compact shape: sessionFile, no agentId/sessionTarget/abortSignal.
    for c in calls(&t, "compact") {
        assert!(has(c, "sessionFile") && !has(c, "agentId") && !has(c, "abortSignal"), "{:?}", c.params);
    }
    // Full contextTokenBudget for assemble (no reserve/prompt reduction).
    let a = calls(&t, "assemble")[0];
    assert_eq!(a.params["tokenBudget"], 6000);
    // The task-completion block of that era is the (persisted) announce prompt:
    // untrusted child-result markers, 4.26 status label and reply instruction
    // (2026.4.26 `src/agents/subagent-announce.ts`, `internal-events.ts`).
    let announce = &calls(&t, "assemble").iter().find(|c| c.turn == 2).expect("announce assemble").params["prompt"];
    let announce = announce.as_str().unwrap();
    assert!(announce.contains("<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\nLogs are clean.\n<<<END_UNTRUSTED_CHILD_RESULT>>>"), "{announce}");
    assert!(announce.contains("status: completed successfully"));
    assert!(announce.contains("is ready for user delivery."));
    // Overflow: pi compacts and retries inside the attempt (runtime::pi_session,
    // twin of overflow-scripted-recover), so the engine assembles once.
    let retry: Vec<_> = calls(&t, "assemble").into_iter().filter(|c| c.turn == 3).collect();
    assert_eq!(retry.len(), 1);
    assert!(calls(&t, "compact").iter().all(|c| c.turn != 3), "no engine compact for pi's recovery");
    // The 4.26 WebChat entry: the client's Sender block, then the stamped body (runtime::entry).
    let p = retry[0].params["prompt"].as_str().unwrap();
    assert!(p.starts_with("Sender (untrusted metadata):\n") && p.ends_with(" UTC] And now?"), "{p}");
}

#[test]
fn current_2026_9_6() {
    let t = run("window", "openclaw-2026.9.6", "profile-diff");
    for m in ["bootstrap", "assemble", "compact", "maintain"] {
        for c in calls(&t, m) {
            // The maintain after a committed durable turn carries none, as
            // commitTurn itself (real 2026.9.6 host, docs/fidelity.md).
            let after_commit = m == "maintain" && c.params["sessionFile"] == c.params["sessionKey"] && !has(c, "runtimeSettings") && c.meta.reason.as_deref() == Some("turn");
            if !after_commit {
                assert_eq!(c.params["runtimeSettings"]["schemaVersion"], 1, "{m} lacks runtimeSettings");
            }
        }
    }
    for c in calls(&t, "commitTurn") {
        assert!(!has(c, "runtimeSettings") && c.params["isHeartbeat"] == false, "{:?}", c.params);
        assert_eq!(c.params["runtimeContext"].as_object().unwrap().keys().collect::<Vec<_>>(), ["provider", "modelId", "modelContextWindow", "tokenBudget"]);
    }
    // Admitted user turns of a durable engine go through commitTurn, not afterTurn.
    let commits = calls(&t, "commitTurn");
    assert_eq!(commits.len(), 2, "two admitted user turns");
    for c in &commits {
        assert_eq!(c.params["advancementKey"], c.params["admission"]["logicalTurnId"]);
        assert!(!has(c, "prePromptMessageCount"));
    }
    // The announce is not admitted: classic finalize runs for it.
    assert_eq!(calls(&t, "afterTurn").len() + calls(&t, "ingestBatch").len() + calls(&t, "ingest").len() > 0, true);
    // 2026.8.2 compact shape.
    for c in calls(&t, "compact") {
        assert!(!has(c, "sessionFile") && has(c, "agentId") && has(c, "abortSignal"), "{:?}", c.params);
    }
    // Reserve = min(max(1000, 20 000), 6000/4) = 1500 (agent-settings.ts,
    // agent-compaction-constants.ts); assemble budget = 6000 − 1500 −
    // ⌈1.2·((12 + 14) + 12 + 5)⌉ = 4448, the pending admitted user not
    // subtracted (`messageBudget` is both, dist builtin-openclaw-*.mjs; twin-checked).
    let a = calls(&t, "assemble")[0];
    assert_eq!(a.params["runtimeSettings"]["limits"]["maxOutputTokens"], 1500);
    assert_eq!(a.params["runtimeSettings"]["limits"]["promptTokenBudget"], 4448);
    assert_eq!(a.params["tokenBudget"], 4448);
    // The same runtimeSettings on every hook of that attempt except `limits`,
    // which the real 2026.9.6 gateway fills per hook: null/null on bootstrap
    // (observed by `clawspec twin`, docs/fidelity.md).
    let b = calls(&t, "bootstrap")[0];
    let without_limits = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("limits");
        v
    };
    assert_eq!(without_limits(&b.params["runtimeSettings"]), without_limits(&a.params["runtimeSettings"]));
    assert_eq!(b.params["runtimeSettings"]["limits"], serde_json::json!({"promptTokenBudget": null, "maxOutputTokens": null}));
    // No RFC fields outside rfc-82137.
    assert!(calls(&t, "assemble").iter().all(|c| !has(c, "inputProvenance")));
    // The announce reaches the engine only as the runtime-event prompt; the
    // event itself travels in a hidden carrier that hooks never see
    // (buildAgentInternalEventContext, resolveRuntimeContextPromptParts).
    // assemble gets the attempt prompt already annotated (twin-observed,
    // docs/openclaw-facts.md §4.5; audit item 1).
    let announce = calls(&t, "assemble").into_iter().find(|c| c.turn == 2).expect("announce assemble");
    let prompt = announce.params["prompt"].as_str().unwrap();
    assert!(prompt.starts_with("[Inter-session message] sourceSession=agent:main:subagent:7 sourceChannel=internal sourceTool=subagent_announce isUser=false\n"), "{prompt}");
    assert!(t.calls().filter(|c| !std::ptr::eq(*c, announce)).all(|c| !t.params(c).to_string().contains("[Internal task completion event]")));
    // Overflow retry: the continuation prompt, not persisted (session-prompt-state.ts).
    let retry: Vec<_> = calls(&t, "assemble").into_iter().filter(|c| c.turn == 3).collect();
    assert_eq!(retry.len(), 2);
    // 2026.9.6 merges the still-unanswered user message in front of it
    // (builtin-openclaw-*.mjs resolveOrphanRepairPlan, mergeOrphanedTrailingUserPrompt).
    let p = retry[1].params["prompt"].as_str().unwrap();
    assert!(p.starts_with(clawspec_contract::markers::QUEUED_USER_MESSAGE_MARKER) && p.contains("\n\nContinue the current task from the existing transcript"), "{p}");
}

#[test]
fn rfc_82137_adds_aligned_assemble_fields() {
    let t = run("window", "rfc-82137", "profile-diff");
    for c in calls(&t, "assemble") {
        let n = c.messages(&t).unwrap().len();
        assert_eq!(c.params["inputProvenance"].as_array().map(Vec::len), Some(n));
        assert_eq!(c.params["internalEvents"].as_array().map(Vec::len), Some(n));
        assert!(c.params["prePromptMessageCount"].as_u64().unwrap() as usize <= n);
    }
    // Everything else as 2026.9.6: same methods in the same order.
    let base = run("window", "openclaw-2026.9.6", "profile-diff");
    let seq = |t: &Trace| t.calls().map(|c| c.method.clone()).collect::<Vec<_>>();
    assert_eq!(seq(&t), seq(&base));
}

#[test]
fn non_durable_engine_runs_admitted_turns_on_legacy_in_2026_9_6() {
    let t = run("legacy", "openclaw-2026.9.6", "profile-diff");
    // An engine under test is a plugin, never the host's baseline engine, even
    // when its info.id is "legacy" (the host compares *registered* ids: dist
    // context-engine-turn-attempt-*.mjs `isBaselineEngineSelection`): without
    // fencing its admitted turns degrade to the host's legacy engine, as the
    // real 2026.9.6 gateway does (`clawspec twin`); the announce still reaches it.
    assert_eq!(notes(&t, "turn-on-legacy"), 2);
    let legacy_turns: std::collections::BTreeSet<u32> = calls(&t, "assemble").iter().map(|c| c.turn).collect();
    assert_eq!(legacy_turns.into_iter().collect::<Vec<_>>(), vec![2]);
    let classic = run("legacy", "openclaw-2026.4.26", "profile-diff");
    // legacy has no afterTurn/ingestBatch: per-message ingest finalizes.
    assert!(!calls(&classic, "ingest").is_empty());

    // A non-durable engine (no transcriptSemantics, no commitTurn): the two
    // admitted user turns run on legacy — the engine sees no call for them —
    // while the announce (not admitted) still reaches it.
    let nd = run_with("window", "openclaw-2026.9.6", "profile-diff", Some(serde_json::json!({"durable": false})));
    assert_eq!(notes(&nd, "turn-on-legacy"), 2);
    assert!(calls(&nd, "commitTurn").is_empty());
    let turns_with_assemble: std::collections::BTreeSet<u32> = calls(&nd, "assemble").iter().map(|c| c.turn).collect();
    assert_eq!(turns_with_assemble.into_iter().collect::<Vec<_>>(), vec![2]);
    // Under 2026.4.26 the same engine gets every turn.
    let nd_classic = run_with("window", "openclaw-2026.4.26", "profile-diff", Some(serde_json::json!({"durable": false})));
    assert_eq!(notes(&nd_classic, "turn-on-legacy"), 0);
    assert_eq!(calls(&nd_classic, "assemble").len(), 3, "3 turns; pi recovers the overflow inside the attempt");
}

/// 2026.4.26 steers with `activeSession.steer(text)`; the AgentSession persists
/// the user message on `message_end` (pi-coding-agent 0.70.2
/// dist/core/agent-session.js), so the announce is history in the next turn.
/// 2026.9.6 suppresses announce persistence.
#[test]
fn steered_announce_is_persisted_in_2026_4_26_only() {
    for (profile, persisted) in [("openclaw-2026.4.26", true), ("openclaw-2026.9.6", false)] {
        // window: a fenced engine, so 2026.9.6 runs its admitted turns on it.
        let t = run("window", profile, "steer-then-followup");
        let last = *calls(&t, "assemble").last().unwrap();
        let in_history = last.messages(&t).unwrap().iter().any(|m| m.to_string().contains("All 412 tests pass."));
        assert_eq!(in_history, persisted, "{profile}: steered announce in the next turn's history");
        assert_eq!(last.meta.unpersisted.is_empty(), persisted, "{profile}: {:?}", last.meta.unpersisted);
    }
}

#[test]
fn a_scripted_read_result_has_no_details_in_2026_4_26_only() {
    // The library scenario: its read result reaches the 2026.4.26 engine through a
    // real read tool (twinned: thinking-signed, builtin:window, no `details`).
    for (profile, details) in [("openclaw-2026.4.26", None), ("openclaw-2026.9.6", Some(serde_json::json!({})))] {
        let t = run("window", profile, "../../../../scenarios/thinking-signed");
        // However the profile hands the result over (ingest, afterTurn or a later assemble).
        let seen: Vec<Value> = t
            .calls()
            .flat_map(|c| c.messages(&t).unwrap_or_default().into_iter().chain(c.params.get("message").cloned()))
            .filter(|m| m["role"] == "toolResult")
            .collect();
        assert!(!seen.is_empty(), "{profile}: the engine received the tool result");
        for result in seen {
            assert_eq!(result.get("details").cloned(), details, "{profile}: {result}");
        }
    }
}

#[test]
fn a_scripted_exec_result_has_the_real_execs_details_in_2026_4_26_only() {
    for (profile, real) in [("openclaw-2026.4.26", true), ("openclaw-2026.9.6", false)] {
        let t = run("window", profile, "../../../../scenarios/regression-a8-empty-tool-name");
        let details: Vec<Value> = t
            .calls()
            .flat_map(|c| c.messages(&t).unwrap_or_default().into_iter().chain(c.params.get("message").cloned()))
            .filter(|m| m["role"] == "toolResult" && m["content"].to_string().contains("CET"))
            .map(|m| m["details"].clone())
            .collect();
        assert!(!details.is_empty(), "{profile}: the engine received the scripted exec result");
        for d in details {
            if real {
                assert_eq!((d["status"].as_str(), d["exitCode"].as_i64(), d["aggregated"].as_str()), (Some("completed"), Some(0), Some("Tue 02:14 CET")), "{d}");
                assert!(d["cwd"].as_str().is_some_and(|c| c.ends_with("/workspace")), "{d}");
            } else {
                assert_eq!(d, serde_json::json!({}), "{profile}");
            }
        }
    }
}

/// A durable (admitted) turn's loop hook runs in `deferredTurn` mode in
/// 2026.9.6 (dist builtin-openclaw-*.mjs `installContextEngineLoopHook`): the
/// engine is given the history before the prompt, the prompt and the tools and
/// the budget less the pending messages, and the host appends the pending
/// messages — the turn so far, committed only by `commitTurn` — itself. An
/// engine that assembles from its own store (lossless-claw 1.0) never has the
/// live turn there, so sending it and expecting it back made CE-ASM-005 fail
/// although the model got the turn.
#[test]
fn a_durable_turns_loop_hook_gets_the_history_and_the_host_appends_the_turn_in_2026_9_6() {
    let t = run_with("window", "openclaw-2026.9.6", "profile-diff", Some(serde_json::json!({"ownsCompaction": true})));
    let hooks: Vec<&CallRecord> = calls(&t, "assemble").into_iter().filter(|c| c.meta.reason.as_deref() == Some("loop-hook") && c.turn == 1).collect();
    assert_eq!(hooks.len(), 2, "one loop-hook assemble per model call of the tool loop");
    let attempt = calls(&t, "assemble").into_iter().find(|c| c.meta.reason.as_deref() == Some("attempt") && c.turn == 1).unwrap();
    let history_len = match &attempt.reply {
        ReplyRecord::Ok(v) => t.messages(v).unwrap().len(),
        other => panic!("{other:?}"),
    };
    for h in &hooks {
        let sent = h.messages(&t).unwrap();
        assert_eq!(sent.len(), history_len, "only the history before the prompt: {sent:?}");
        assert!(!sent.iter().any(|m| m["content"].to_string().contains("Read a.txt please")), "the live turn is the host's to append");
        assert_eq!(h.params["prompt"], "Read a.txt please");
        assert!(h.params["availableTools"].is_array());
    }
    // The model still gets the turn: history + the user message, then + the tool call and result.
    let models: Vec<usize> = t.events.iter().filter_map(|e| match e { Event::Model(m) if m.turn == 1 => Some(m.message_count), _ => None }).collect();
    assert_eq!(models[0], history_len + 1);
    assert_eq!(models[1], history_len + 3);
}
