//! The per-attempt history pipeline (openclaw
//! `src/agents/embedded-agent-runner/run/attempt-history-prepare.ts`, §4.3 step 2 of
//! shared/reference/openclaw-contract.md): runtime-context carriers stripped,
//! heartbeat artifacts filtered, excluded messages dropped, the orphaned
//! trailing user message hidden, tool-use/result pairing repaired.

use std::collections::BTreeSet;

use clawspec_contract::markers::HEARTBEAT_OK;
use clawspec_contract::*;

use super::inject::prefix_inter_session_history;
use super::profile::Profile;
use super::transcript::text_block;

/// A3.10 placeholder (shared/reference/provider-rules.md A4; openclaw
/// `src/agents/session-transcript-repair.ts`).
pub const MISSING_TOOL_RESULT: &str =
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";

/// Default heartbeat prompt (openclaw `src/auto-reply/heartbeat.ts`, seed 004 "Heartbeat Injection").
pub const HEARTBEAT_PROMPT: &str = "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly.\nDo not infer or repeat old tasks from prior chats.\nIf nothing needs attention, reply HEARTBEAT_OK.";

#[derive(Debug, Default)]
pub struct PipelineOut {
    pub messages: Vec<AgentMessage>,
    /// Notes for the trace (code, text).
    pub notes: Vec<(&'static str, String)>,
}

pub fn run(profile: &Profile, transcript: &[AgentMessage], hide_orphan_user: bool) -> PipelineOut {
    let mut notes = Vec::new();
    let mut ms: Vec<AgentMessage> = transcript
        .iter()
        .filter(|m| !(profile.runtime_context_carriers && m.is_runtime_context_carrier()))
        .filter(|m| !excluded(m))
        .cloned()
        .collect();
    ms = filter_heartbeat_artifacts(ms);
    if profile.inter_session_visible_prefix {
        ms = ms.iter().map(|m| prefix_inter_session_history(profile, m)).collect();
    }
    if hide_orphan_user && matches!(ms.last(), Some(AgentMessage::User(_))) {
        ms.pop();
        notes.push(("orphan-user-hidden", "the transcript ended with a user message that has no reply; branching to its parent".into()));
    }
    let (repaired, changed) = repair_pairing(ms);
    if changed {
        notes.push(("pairing-repaired", "tool-use/result pairing repaired in history".into()));
    }
    PipelineOut { messages: repaired, notes }
}

fn excluded(m: &AgentMessage) -> bool {
    let extra = match m {
        AgentMessage::Custom(c) => &c.extra,
        AgentMessage::BashExecution(b) => &b.extra,
        AgentMessage::CompactionSummary(s) => &s.extra,
        AgentMessage::BranchSummary(s) => &s.extra,
        AgentMessage::User(u) => &u.extra,
        _ => return false,
    };
    extra.get("excludeFromContext").and_then(|v| v.as_bool()) == Some(true)
}

/// `filterHeartbeatTranscriptArtifacts` (openclaw `src/auto-reply/heartbeat-filter.ts`,
/// PR #60998): a heartbeat prompt answered with only `HEARTBEAT_OK` is dropped as a pair.
pub fn filter_heartbeat_artifacts(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut out = Vec::with_capacity(ms.len());
    let mut i = 0;
    while i < ms.len() {
        let is_hb_prompt = matches!(&ms[i], AgentMessage::User(u) if u.content.text().trim() == HEARTBEAT_PROMPT);
        let next_is_ok = matches!(ms.get(i + 1), Some(AgentMessage::Assistant(a))
            if a.content.iter().all(|b| !matches!(b, ContentBlock::ToolCall(_)))
            && AgentMessage::Assistant(a.clone()).text().trim() == HEARTBEAT_OK);
        if is_hb_prompt && next_is_ok {
            i += 2;
            continue;
        }
        out.push(ms[i].clone());
        i += 1;
    }
    out
}

/// Tool-use/result pairing repair: orphan results dropped, missing results
/// get the synthetic error result right after their assistant turn.
pub fn repair_pairing(ms: Vec<AgentMessage>) -> (Vec<AgentMessage>, bool) {
    let mut out: Vec<AgentMessage> = Vec::with_capacity(ms.len());
    let mut changed = false;
    let mut open: Vec<(String, String)> = Vec::new();
    let mut answered: BTreeSet<String> = BTreeSet::new();
    let close = |out: &mut Vec<AgentMessage>, open: &mut Vec<(String, String)>, answered: &BTreeSet<String>, changed: &mut bool| {
        for (id, name) in open.drain(..) {
            if !answered.contains(&id) {
                *changed = true;
                out.push(AgentMessage::ToolResult(ToolResultMessage {
                    tool_call_id: id,
                    tool_name: Some(name),
                    content: vec![text_block(MISSING_TOOL_RESULT)],
                    is_error: Some(true),
                    details: None,
                    timestamp: None,
                    extra: Extra::new(),
                }));
            }
        }
    };
    for m in ms {
        match &m {
            AgentMessage::ToolResult(r) => {
                if open.iter().any(|(id, _)| *id == r.tool_call_id) && answered.insert(r.tool_call_id.clone()) {
                    out.push(m);
                } else {
                    changed = true;
                }
            }
            other => {
                close(&mut out, &mut open, &answered, &mut changed);
                answered.clear();
                if let AgentMessage::Assistant(a) = other {
                    for b in &a.content {
                        if let ContentBlock::ToolCall(c) = b {
                            open.push((c.id.clone(), c.name.clone()));
                        }
                    }
                }
                out.push(m);
            }
        }
    }
    close(&mut out, &mut open, &answered, &mut changed);
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(v: serde_json::Value) -> Vec<AgentMessage> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn missing_result_gets_placeholder_and_orphan_is_dropped() {
        let input = msgs(json!([
            {"role":"user","content":"go"},
            {"role":"assistant","content":[{"type":"toolCall","id":"a","name":"read","arguments":{}},{"type":"toolCall","id":"b","name":"exec","arguments":{}}]},
            {"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"ok"}]},
            {"role":"toolResult","toolCallId":"zzz","content":[{"type":"text","text":"orphan"}]},
            {"role":"assistant","content":[{"type":"text","text":"done"}]}
        ]));
        let (out, changed) = repair_pairing(input);
        assert!(changed);
        let roles: Vec<_> = out.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["user", "assistant", "toolResult", "toolResult", "assistant"]);
        assert_eq!(out[3].text(), MISSING_TOOL_RESULT);
    }

    #[test]
    fn heartbeat_pairs_are_filtered() {
        let input = msgs(json!([
            {"role":"user","content":"hi"},
            {"role":"user","content": HEARTBEAT_PROMPT},
            {"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}]},
            {"role":"user","content": HEARTBEAT_PROMPT},
            {"role":"assistant","content":[{"type":"text","text":"The build is red."}]}
        ]));
        let out = filter_heartbeat_artifacts(input);
        assert_eq!(out.len(), 3);
    }
}
