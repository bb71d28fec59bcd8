//! Recognising volatile live input: structured signals first (RFC #82137
//! `inputProvenance[]`/`internalEvents[]`, message `provenance`), OpenClaw's
//! marker texts otherwise (shared/reference/real-plugins.md "Volatile live input";
//! each marker constant in contract/src/markers.rs cites its OpenClaw source).

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

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn user(text: &str) -> AgentMessage {
        AgentMessage::user_text(text)
    }

    #[rstest]
    #[case::plain("hello", false)]
    #[case::inter_session(&format!("{INTER_SESSION_PREFIX} from agent:main:subagent:1\nhi"), true)]
    #[case::inter_session_indented(&format!("  {INTER_SESSION_PREFIX} x"), true)]
    #[case::prefix_not_at_start(&format!("quote: {INTER_SESSION_PREFIX}"), false)]
    #[case::internal_context(&format!("{INTERNAL_CONTEXT_BEGIN}\nx\n{INTERNAL_CONTEXT_END}"), true)]
    #[case::internal_context_unclosed(&format!("{INTERNAL_CONTEXT_BEGIN}\nx"), false)]
    #[case::task_completion(&format!("{TASK_COMPLETION_TITLE}\nchild finished"), true)]
    #[case::retry_line(&format!("try again\n{RETRY_MARKER}\n"), true)]
    #[case::retry_inline(&format!("see {RETRY_MARKER} later"), false)]
    #[case::drifted_marker(&format!("{} x", drifted(INTER_SESSION_PREFIX)), false)]
    fn markers(#[case] text: &str, #[case] expect: bool) {
        assert_eq!(is_volatile(&user(text), 0, &json!({})), expect);
    }

    #[test]
    fn markers_count_only_in_user_messages() {
        let m: AgentMessage = serde_json::from_value(json!({"role": "assistant", "content": [{"type": "text", "text": format!("{INTER_SESSION_PREFIX} x")}]})).unwrap();
        assert!(!is_volatile(&m, 0, &json!({})));
    }

    #[rstest]
    #[case::provenance_at_index(json!({"inputProvenance": [null, {"kind": "inter_session", "sourceTool": "sessions_send"}]}), 1, true)]
    #[case::provenance_other_index(json!({"inputProvenance": [null, {"kind": "inter_session"}]}), 0, false)]
    #[case::provenance_external(json!({"inputProvenance": [{"kind": "external_user"}]}), 0, false)]
    #[case::internal_events(json!({"internalEvents": [null, [{"type": "task_completion"}]]}), 1, true)]
    #[case::internal_events_empty(json!({"internalEvents": [[]]}), 0, false)]
    #[case::nothing(json!({}), 0, false)]
    fn structured_signals(#[case] params: Value, #[case] i: usize, #[case] expect: bool) {
        // Drifted text: only the structured signal can tell.
        assert_eq!(is_volatile(&user("[Cross-session message] hi"), i, &params), expect);
    }

    #[test]
    fn message_provenance_is_a_signal() {
        let m: AgentMessage = serde_json::from_value(json!({"role": "user", "content": "hi",
            "provenance": {"kind": "inter_session", "sourceSessionKey": "k", "sourceTool": "sessions_send"}})).unwrap();
        assert!(is_volatile(&m, 0, &json!({})));
        assert!(!is_unpersisted_announce(&m), "only subagent_announce triggers are unpersisted");
    }
}
