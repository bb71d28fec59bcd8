//! Subagents a parent turn starts with the host's own `sessions_spawn` tool
//! (2026.9.6, `Profile::host_spawn_tool`): what the engine sees of the spawn
//! inside the tool call, of the child's completion announce and of the
//! child's cleanup. Observed with `clawspec twin announce-then-followup
//! --keep` (docs/openclaw-facts.md §4.5); sources per step below.
//!
//! A scenario scripts the child's completion as an `announce` step with the
//! same task; its `child` key stands for the key the host mints
//! (`agent:<agentId>:subagent:<uuid>`, twin rule 9 normalises both).

use clawspec_contract::*;
use serde_json::{json, Value};

use super::{Abort, CallOutcome, Sim};
use crate::driver::CallOptions;
use crate::scenario::model::{AnnounceSpec, Step, ToolCallSpec};
use crate::trace::CallMeta;

/// A child started by a `sessions_spawn` tool call of this run.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveChild {
    pub task: String,
    pub child: String,
    /// The child's run and session ids (minted by the host).
    pub run_id: String,
    pub session_id: String,
    /// Its completion was announced; the host cleans it up next.
    pub announced: bool,
}

/// The key the host mints for the child of `task`: the scenario's announce
/// step for that task names it; otherwise a fresh one.
fn child_key(sim: &mut Sim<'_>, task: &str) -> String {
    let taken = |k: &str, sim: &Sim<'_>| sim.live_children.iter().any(|c| c.child == k);
    let scripted: Vec<String> = sim
        .scenario
        .script
        .iter()
        .flat_map(|s| match s {
            Step::Announce(a) => vec![a],
            Step::Collect(c) => c.announces.iter().collect(),
            _ => vec![],
        })
        .filter(|a| a.task.trim() == task.trim())
        .map(|a| a.child.clone())
        .collect();
    match scripted.into_iter().find(|k| !taken(k, sim)) {
        Some(k) => k,
        None => format!("agent:{}:subagent:{}", sim.setup.agent_id, sim.ids.next("child")),
    }
}

/// The real tool inside the parent's tool loop (dist/sessions-spawn-tool-*.mjs
/// `spawnSubagent`): a fresh engine instance prepares the spawn
/// (`prepareSubagentSpawn {parentSessionKey, childSessionKey, contextMode:
/// "isolated", parentSessionFile, childSessionFile}` — both "files" are the
/// session keys on the SQLite store, no `ttlMs` without `runTimeoutSeconds`)
/// and is disposed (`contextEnginePreparation?.dispose()` in the tool's
/// `finally`); the tool answers `jsonResult` of the accepted receipt
/// (dist/tool-results-*.mjs: pretty JSON text + the same object as details).
/// Returns the result's text and details.
pub async fn spawn_tool_call(sim: &mut Sim<'_>, call: &ToolCallSpec) -> Result<(String, Value), Abort> {
    let task = call.arguments.get("task").and_then(Value::as_str).unwrap_or_default().to_string();
    let child = child_key(sim, &task);
    let run_id = sim.ids.next("child-run");
    let session_id = sim.ids.next("child-sess");
    sim.live_children.push(LiveChild { task, child: child.clone(), run_id: run_id.clone(), session_id, announced: false });
    if !sim.quarantined {
        let params = json!({
            "parentSessionKey": sim.setup.session_key,
            "childSessionKey": child,
            "contextMode": "isolated",
            "parentSessionFile": sim.setup.session_key,
            "childSessionFile": child,
        });
        let out = sim.call("prepareSubagentSpawn", params, CallMeta::reason("isolated"), CallOptions::default()).await?;
        if let CallOutcome::Returned(v) = &out {
            if let Some(h) = v.get("rollback").and_then(|r| r.get("$handle")).and_then(Value::as_str) {
                sim.rollbacks.insert(child.clone(), h.to_string());
            }
        }
        if out != CallOutcome::Absent {
            sim.call("dispose", json!({}), CallMeta::default(), CallOptions::default()).await?;
        }
    }
    Ok(accepted_receipt(&child, &run_id, &sim.setup.provider, &sim.setup.model))
}

/// dist/sessions-spawn-tool-*.mjs: `{status: "accepted", childSessionKey,
/// runId, mode: "run", expectsCompletionMessage: true, context: "isolated",
/// note, resolvedModel, resolvedProvider, modelApplied: true}` (key order as
/// built there; `note` = the announce-mode accepted note).
fn accepted_receipt(child: &str, run_id: &str, provider: &str, model: &str) -> (String, Value) {
    const NOTE: &str = "The final reply returns to the requester as a completion event. Continue any independent work. Wait for completion events for ALL required children before your final answer; never busy-poll. If a completion arrives after your final answer, reply ONLY with NO_REPLY.";
    let resolved = format!("{provider}/{model}");
    let fields: [(&str, Value); 10] = [
        ("status", json!("accepted")),
        ("childSessionKey", json!(child)),
        ("runId", json!(run_id)),
        ("mode", json!("run")),
        ("expectsCompletionMessage", json!(true)),
        ("context", json!("isolated")),
        ("note", json!(NOTE)),
        ("resolvedModel", json!(resolved)),
        ("resolvedProvider", json!(provider)),
        ("modelApplied", json!(true)),
    ];
    // JSON.stringify(payload, null, 2) keeps insertion order; serde_json's map does not.
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("  {}: {}", json!(k), v)).collect();
    let details: serde_json::Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    (format!("{{\n{}\n}}", body.join(",\n")), Value::Object(details))
}

/// The live child an announce step completes, if the run spawned it.
pub fn live_child_for(sim: &Sim<'_>, a: &AnnounceSpec) -> Option<usize> {
    sim.live_children.iter().position(|c| !c.announced && c.child == a.child && c.task.trim() == a.task.trim())
}

/// What the host puts in a live child's completion event that a scripted
/// announce does not carry: the child's minted session id, the measured
/// stats line (`buildCompactAnnounceStatsLine`, dist/subagent-announce-output-*.mjs:
/// `runtime <duration> • tokens unknown` when the provider reported no usage —
/// twin rule 10 compares it as measured) and the model-route notice
/// (dist/openclaw-state-db-read-connection-*.mjs `formatAgentRunRouteChange`:
/// the child's reply names a response model other than the requested one —
/// the reference's provider answers as `mock`, like the mock provider).
pub fn complete_event(sim: &Sim<'_>, child: &LiveChild, e: &mut TaskCompletionEvent) {
    e.child_session_id.get_or_insert_with(|| child.session_id.clone());
    e.stats_line.get_or_insert_with(|| "Stats: runtime 0s • tokens unknown".to_string());
    let requested = format!("{}/{}", sim.setup.provider, sim.setup.model);
    let effective = format!("{}/{}", sim.setup.provider, super::turn::RESPONSE_MODEL);
    if requested != effective {
        e.model_route_change = Some(format!("Model route changed: {requested} → {effective}."));
        // buildAnnounceReplyInstruction (dist/subagent-announce-*.mjs): the
        // route notice is preserved on a requester's own surface.
        e.reply_instruction = e.reply_instruction.replacen(
            &format!("{} Otherwise", markers::SUBAGENT_COMPLETION_OUTCOME_INSTRUCTION),
            &format!("{} Preserve any runtime-authored model-route change notice in your update. Otherwise", markers::SUBAGENT_COMPLETION_OUTCOME_INSTRUCTION),
            1,
        );
    }
}

/// The host cleans up announced children after the announce run (dist
/// subagent-registry-context-cleanup: `onSubagentEnded {childSessionKey,
/// reason: "completed", agentDir, workspaceDir}` on a fresh engine instance,
/// then disposed). Best effort: a throw is noted and the run goes on.
pub async fn clean_up_announced(sim: &mut Sim<'_>) -> Result<(), Abort> {
    let done: Vec<LiveChild> = sim.live_children.iter().filter(|c| c.announced).cloned().collect();
    sim.live_children.retain(|c| !c.announced);
    for c in done {
        if sim.quarantined {
            continue;
        }
        sim.rollbacks.remove(&c.child);
        let params = json!({"childSessionKey": c.child, "reason": "completed", "agentDir": sim.agent_dir(), "workspaceDir": sim.workspace_dir()});
        let out = sim.call("onSubagentEnded", params, CallMeta::reason("completed"), CallOptions::default()).await?;
        if let CallOutcome::Threw(m) = &out {
            sim.note("subagent-ended-failed", format!("context-engine onSubagentEnded failed (best-effort): {m}"));
        }
        if out != CallOutcome::Absent {
            sim.call("dispose", json!({}), CallMeta::default(), CallOptions::default()).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_receipt_text_is_the_tools_pretty_json_in_its_key_order() {
        // Shape of the real 2026.9.6 answer (twin --keep, announce-then-followup).
        let fields = ["status", "childSessionKey", "runId", "mode", "expectsCompletionMessage", "context", "note", "resolvedModel", "resolvedProvider", "modelApplied"];
        let (text, details) = super::accepted_receipt("agent:main:subagent:7", "run-1", "anthropic", "claude-sonnet-4-6");
        let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(v["childSessionKey"], "agent:main:subagent:7");
        assert_eq!(v, details, "details are the same receipt");
        assert_eq!(v["resolvedModel"], "anthropic/claude-sonnet-4-6");
        let mut at = 0;
        for f in fields {
            let i = text[at..].find(&format!("\n  \"{f}\": ")).unwrap_or_else(|| panic!("{f} in order in {text}"));
            at += i + 1;
        }
        assert!(text.starts_with("{\n  \"status\": \"accepted\",\n  \"childSessionKey\""));
        assert!(text.ends_with("\"modelApplied\": true\n}"));
    }
}
