//! Inter-session input on the real host: a message another session (or an
//! internal tool) routes into the scenario's session.
//!
//! On OpenClaw 2026.9.6 every such message reaches its target as the
//! gateway's `agent` RPC with an `inputProvenance {kind: "inter_session",
//! sourceSessionKey, sourceChannel, sourceTool}`: `sessions_send` into an
//! idle target calls `agent` with `{message, agentId, sessionKey,
//! idempotencyKey, deliver: false, sourceReplyDeliveryMode:
//! "message_tool_only", channel: "webchat", lane, extraSystemPrompt,
//! inputProvenance}` (dist/sessions-spawn-tool-*.mjs
//! `startSessionsSendAgentRun` / `sendParams`), and so do the host's own
//! agent-to-agent steps (`runAgentStep`, same file). The RPC's schema takes
//! `inputProvenance` from any client (dist/src-*.mjs `AgentParamsSchema`);
//! the preflight only reserves progress-card refreshes and internal
//! session-effect controls for backend callers (dist/agent-request-preflight-*.mjs).
//! The gateway annotates the prompt with the inter-session header itself
//! (dist/agent-turn-service-*.mjs `annotateInterSessionPromptText`,
//! idempotent: dist/input-provenance-*.mjs), and hides it in the
//! runtime-context carrier on 9.6.
//!
//! So the runner drives the receiving half of the send — the same RPC, the
//! same fields — without the source session's own turn: the scenario is
//! about what the *target's* engine sees, and the source turn would add its
//! own engine calls (the context engine slot is global, dist/registry-*.mjs
//! `resolveContextEngine`) and the agent-to-agent reply flow
//! (`runSessionsSendA2AFlow`: a follow-up run in the source session) that
//! the scenario does not script. The one field left out is
//! `extraSystemPrompt` (the tool's "Agent-to-agent message context" lines):
//! it only reaches the system prompt, which the twin takes from the real run
//! (twin.rs `host_system_prompt`).

use serde_json::{json, Value};

use super::plan::{model_reply, NotDrivable, Plan, PlanStep, PlannedReply};
use crate::scenario::model::{InterSessionSpec, Scenario};
use clawspec_contract::InputProvenance;

/// How long one inter-session run may take on the real host.
const INTER_SESSION_TIMEOUT_MS: u64 = 60_000;

/// Source tools the 2026.9.6 gateway gives a meaning of its own, beyond the
/// provenance: `subagent_settle` may resume a paused subagent
/// (dist/agent-turn-service-*.mjs: `plugin_subagent` when the target has a
/// live run paused by sessions_yield) and `subagent_announce` is a completion
/// (realhost::spawn drives it through a real child).
fn special_tool(tool: &str) -> Option<&'static str> {
    match tool {
        "subagent_announce" => Some("a subagent_announce inter-session message is a child's completion: script it as an announce step of a sessions_spawn child (realhost::spawn)"),
        _ => None,
    }
}

/// Why an inter-session message into a session nothing created yet is not driven.
pub const MISSING_TARGET: &str = "an inter-session message into a session that does not exist yet: sessions_send creates the target first (sessions.create), which the agent RPC alone does not reproduce; give the session history (setup.transcript) or an earlier turn";

/// The provenance the reference runtime gives the message
/// (`InputProvenance::inter_session`), as the RPC's JSON.
pub fn provenance(x: &InterSessionSpec) -> Value {
    serde_json::to_value(InputProvenance::inter_session(&x.from, &x.tool)).unwrap_or(Value::Null)
}

/// An `inter_session` step: one `agent` RPC into the scenario's session.
pub fn plan_step(p: &mut Plan, i: usize, x: &InterSessionSpec, s: &Scenario) -> Result<(), NotDrivable> {
    if let Some(why) = special_tool(&x.tool) {
        return Err(NotDrivable(why.into()));
    }
    if x.text.trim().is_empty() {
        // dist/src-*.mjs AgentParamsSchema: `message: NonEmptyString`.
        return Err(NotDrivable("an empty inter-session message: the gateway's agent RPC requires a non-empty message".into()));
    }
    if x.from.trim() == s.setup.session_key {
        return Err(NotDrivable("an inter-session message from the session itself".into()));
    }
    // sessions_send into a missing session creates it first (dist/sessions-spawn-tool-*.mjs
    // `createConfiguredAgentMainSession` when `visibleSession.missing`), a path
    // the bare agent RPC does not take (twinned: the RPC into a missing session
    // starts it without bootstrap, as a spawned child's run).
    if s.setup.transcript.is_empty() && !s.setup.session_exists && p.steps.is_empty() {
        return Err(NotDrivable(MISSING_TARGET.into()));
    }
    for r in &x.model {
        let planned = model_reply(r, p, s.setup.context_window)?;
        p.replies.push(PlannedReply { step: Some(i), ..planned });
    }
    p.steps.push(PlanStep::InterSession { step: i, session_key: s.setup.session_key.clone(), message: x.text.clone(), input_provenance: provenance(x), timeout_ms: INTER_SESSION_TIMEOUT_MS });
    Ok(())
}

/// The system prompt of the first run an inter-session message started: the
/// request whose last message is the live 9.6 carrier naming an
/// inter-session source (dist/input-provenance-*.mjs
/// `buildInterSessionPromptContext`, inside the runtime-context block) other
/// than a subagent completion (realhost::spawn finds those). Persisted
/// inter-session messages in history are not in the last message. The
/// observed prompt has no WebChat message context (twin of
/// inter-session-send, 9.6).
pub fn host_run_prompt(bodies: &[&Value], system_prompt: impl Fn(&Value) -> Option<String>) -> Option<String> {
    bodies.iter().find(|b| opens_inter_session_run(b)).and_then(|b| system_prompt(b))
}

/// Whether a model request belongs to a run an inter-session message started
/// (its own system prompt: not the session's ordinary one).
pub fn opens_inter_session_run(body: &Value) -> bool {
    last_message(body).is_some_and(is_live_inter_session)
}

fn last_message(b: &Value) -> Option<String> {
    ["messages", "contents", "input"].iter().find_map(|k| b[*k].as_array().and_then(|a| a.last())).map(Value::to_string)
}

fn is_live_inter_session(last: String) -> bool {
    last.contains(clawspec_contract::markers::INTERNAL_CONTEXT_BEGIN) && last.contains("[Inter-session message] ") && !last.contains("sourceTool=subagent_announce")
}

/// The `agent` RPC params the runner sends (lib/steps.js `interSession`
/// mirrors this; kept here so the test pins the shape).
pub fn agent_params(session_key: &str, message: &str, input_provenance: &Value, idempotency_key: &str) -> Value {
    json!({
        "message": message,
        "sessionKey": session_key,
        "idempotencyKey": idempotency_key,
        "deliver": false,
        "sourceReplyDeliveryMode": "message_tool_only",
        "channel": "webchat",
        "inputProvenance": input_provenance,
    })
}

#[cfg(test)]
mod tests {
    use super::super::plan::plan;
    use super::*;
    use rstest::rstest;

    use super::super::plan::scenario_from_script as scenario;

    #[test]
    fn an_inter_session_message_is_one_agent_rpc_with_the_reference_provenance() {
        let p = plan(&scenario("  - turn: {user: hi, model: [Hello.]}\n  - inter_session: {from: 'agent:ops:main', text: 'failover done', model: [Noted.]}\n  - turn: {user: what?, model: [It finished.]}\n")).expect("drivable");
        let PlanStep::InterSession { step, session_key, message, input_provenance, .. } = &p.steps[1] else { panic!("{:?}", p.steps[1]) };
        assert_eq!((*step, session_key.as_str(), message.as_str()), (1, "agent:main:main", "failover done"));
        assert_eq!(input_provenance, &json!({"kind": "inter_session", "sourceSessionKey": "agent:ops:main", "sourceChannel": "internal", "sourceTool": "sessions_send"}));
        assert_eq!((p.replies[1].text.as_str(), p.replies[1].step), ("Noted.", Some(1)));
        assert_eq!((p.replies[2].text.as_str(), p.replies[2].step), ("It finished.", Some(2)));
        let params = agent_params(session_key, message, input_provenance, "k");
        assert_eq!(params["inputProvenance"]["sourceTool"], "sessions_send");
        assert_eq!(params["deliver"], false);
    }

    #[test]
    fn other_source_tools_keep_their_name() {
        let p = plan(&scenario("  - turn: {user: hi, model: [Hello.]}\n  - inter_session: {from: 'agent:main:approvals', tool: exec_approval_followup, text: approved, model: [ok]}\n")).expect("drivable");
        assert!(matches!(&p.steps[1], PlanStep::InterSession { input_provenance, .. } if input_provenance["sourceTool"] == "exec_approval_followup"));
    }

    #[rstest]
    #[case::announce("  - inter_session: {from: c, tool: subagent_announce, text: done, model: [ok]}\n", "announce step")]
    #[case::from_itself("  - inter_session: {from: 'agent:main:main', text: hi, model: [ok]}\n", "from the session itself")]
    #[case::missing_target("  - inter_session: {from: c, text: hi, model: [ok]}\n", "does not exist yet")]
    fn what_cannot_be_sent_says_why(#[case] script: &str, #[case] reason: &str) {
        let why = plan(&scenario(script)).expect_err("not drivable").0;
        assert!(why.contains(reason), "{why}");
    }
}
