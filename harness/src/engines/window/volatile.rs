//! Recognising volatile live input: structured signals first (RFC #82137
//! `inputProvenance[]`/`internalEvents[]`, message `provenance`), OpenClaw's
//! marker texts otherwise (shared/reference/real-plugins.md "Volatile live input").

use clawspec_contract::markers::*;
use clawspec_contract::*;
use serde_json::Value;

/// Is `messages[i]` volatile live input?
pub fn is_volatile(m: &AgentMessage, i: usize, params: &Value) -> bool {
    if let Some(p) = params.get("inputProvenance").and_then(|a| a.get(i)) {
        if p.get("kind").and_then(Value::as_str) == Some("inter_session") {
            return true;
        }
    }
    if let Some(e) = params.get("internalEvents").and_then(|a| a.get(i)) {
        if e.as_array().is_some_and(|a| !a.is_empty()) {
            return true;
        }
    }
    if m.provenance().is_some_and(|p| p.kind == ProvenanceKind::InterSession) {
        return true;
    }
    let AgentMessage::User(_) = m else { return false };
    let text = m.text();
    let t = text.trim_start();
    t.starts_with(INTER_SESSION_PREFIX)
        || (text.contains(INTERNAL_CONTEXT_BEGIN) && text.contains(INTERNAL_CONTEXT_END))
        || text.contains(TASK_COMPLETION_TITLE)
        || text.lines().any(|l| l.trim() == RETRY_MARKER)
}

/// A subagent announce trigger the runtime does not persist
/// (`shouldSuppressAgentPromptPersistence`): not durable history.
pub fn is_unpersisted_announce(m: &AgentMessage) -> bool {
    m.provenance().is_some_and(|p| p.kind == ProvenanceKind::InterSession && p.source_tool.as_deref() == Some("subagent_announce"))
}
