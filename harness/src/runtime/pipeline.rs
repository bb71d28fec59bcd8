//! The per-attempt history pipeline (openclaw
//! `src/agents/embedded-agent-runner/run/attempt-history-prepare.ts`, §4.3 step 2 of
//! shared/reference/openclaw-contract.md): runtime-context carriers stripped,
//! heartbeat artifacts filtered, excluded messages dropped, the orphaned
//! trailing user message hidden, tool-use/result pairing repaired.

use std::collections::BTreeSet;

use clawspec_contract::markers::{self, HEARTBEAT_OK};
use clawspec_contract::*;

use super::inject::prefix_inter_session_history;
use super::profile::{Profile, PromptTexts};
use super::transcript::text_block;

/// A3.10 placeholder (shared/reference/provider-rules.md A4; openclaw
/// `src/agents/session-transcript-repair.ts`).
pub const MISSING_TOOL_RESULT: &str =
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";

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
    ms = filter_heartbeat_artifacts(profile, ms);
    if profile.inter_session_visible_prefix {
        ms = ms.iter().map(|m| prefix_inter_session_history(profile, m)).collect();
    }
    if hide_orphan_user && matches!(ms.last(), Some(AgentMessage::User(_))) {
        ms.pop();
        notes.push(("orphan-user-hidden", "the transcript ended with a user message that has no reply; branching to its parent".into()));
    }
    // 2026.9.6: gateway-injected command replies stay in the transcript but
    // never reach the model (after the orphan check: they answer the command).
    if profile.prompt_texts == PromptTexts::V2026_9_6 {
        ms.retain(|m| !super::command::is_transcript_only_assistant(m));
        // `ensureAssistantUsageSnapshots` (builtin-openclaw-*.mjs, history
        // sanitisation): an assistant message without usage gets the zero
        // snapshot (`makeZeroUsageSnapshot`, usage-*.mjs). Only the missing
        // case is modelled; the runtime's own replies already carry the
        // normalised shape (twin unknown-fields).
        for m in ms.iter_mut() {
            if let AgentMessage::Assistant(a) = m {
                if a.usage.is_none() {
                    let zero = serde_json::json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                                                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
                    a.usage = Some(zero);
                }
            }
        }
    }
    let (repaired, changed) = repair_pairing(ms);
    if changed {
        notes.push(("pairing-repaired", "tool-use/result pairing repaired in history".into()));
    }
    PipelineOut { messages: repaired, notes }
}

#[cfg(test)]
mod usage_tests {
    use super::*;

    #[test]
    fn a_2026_9_assistant_without_usage_gets_the_zero_snapshot() {
        let seeded: AgentMessage = serde_json::from_value(serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "Hi!"}], "stopReason": "stop"})).unwrap();
        let out = run(&Profile::current_2026_9_6(), &[AgentMessage::user_text("q"), seeded.clone()], true);
        let AgentMessage::Assistant(a) = &out.messages[1] else { panic!("{:?}", out.messages) };
        assert_eq!(a.usage.as_ref().unwrap()["totalTokens"], 0);
        assert_eq!(a.usage.as_ref().unwrap()["cost"]["total"], 0);
        let out = run(&Profile::classic_2026_4_26(), &[AgentMessage::user_text("q"), seeded], true);
        assert!(matches!(&out.messages[1], AgentMessage::Assistant(a) if a.usage.is_none()));
    }
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

/// Heartbeat artifacts dropped from history. 2026.4.26 `filterHeartbeatPairs`
/// (`src/auto-reply/heartbeat-filter.ts`): a heartbeat user message directly
/// followed by a `HEARTBEAT_OK` ack. 2026.9.6 `filterHeartbeatTranscriptArtifacts`
/// (same file): the whole span from the heartbeat message through tool calls and
/// results up to a terminal ack (`HEARTBEAT_OK` or `NO_REPLY`); a plain reply
/// or a real user message keeps the span.
pub fn filter_heartbeat_artifacts(p: &Profile, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let spans = p.prompt_texts == PromptTexts::V2026_9_6;
    let mut out = Vec::with_capacity(ms.len());
    let mut i = 0;
    while i < ms.len() {
        if is_heartbeat_user(p, &ms[i]) {
            if !spans {
                if ms.get(i + 1).is_some_and(|m| is_ack(p, m)) {
                    i += 2;
                    continue;
                }
            } else {
                let mut j = i + 1;
                let mut terminal = false;
                while let Some(m) = ms.get(j) {
                    match m {
                        AgentMessage::User(_) => break,
                        AgentMessage::Assistant(a) if is_ack(p, m) => {
                            let _ = a;
                            terminal = true;
                            j += 1;
                            while matches!(ms.get(j), Some(AgentMessage::ToolResult(_))) {
                                j += 1;
                            }
                            break;
                        }
                        AgentMessage::Assistant(a) if a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))) => j += 1,
                        AgentMessage::ToolResult(_) => j += 1,
                        _ => break,
                    }
                }
                if terminal {
                    i = j;
                    continue;
                }
            }
        }
        out.push(ms[i].clone());
        i += 1;
    }
    out
}

/// The wake transcript prompt, or a message starting with the release's
/// heartbeat prompt (`isHeartbeatUserMessage`).
fn is_heartbeat_user(p: &Profile, m: &AgentMessage) -> bool {
    let AgentMessage::User(u) = m else { return false };
    let text = u.content.text();
    let t = text.trim();
    let prompt = match p.prompt_texts {
        PromptTexts::V2026_4_26 => markers::HEARTBEAT_PROMPT_2026_4,
        PromptTexts::V2026_9_6 => markers::HEARTBEAT_PROMPT,
    };
    !t.is_empty() && (t == markers::HEARTBEAT_WAKE_PROMPT || t.starts_with(prompt))
}

/// A text-only assistant ack: `HEARTBEAT_OK` with at most
/// `DEFAULT_HEARTBEAT_ACK_MAX_CHARS` of other text (`stripHeartbeatToken`);
/// 2026.9.6 also accepts the silent `NO_REPLY` (`isHeartbeatAcknowledgementText`).
fn is_ack(p: &Profile, m: &AgentMessage) -> bool {
    let AgentMessage::Assistant(a) = m else { return false };
    if a.content.iter().any(|b| !matches!(b, ContentBlock::Text(_))) {
        return false;
    }
    let text = m.text();
    let t = text.trim();
    if p.prompt_texts == PromptTexts::V2026_9_6 && t == markers::NO_REPLY {
        return true;
    }
    t.contains(HEARTBEAT_OK) && t.replace(HEARTBEAT_OK, "").trim().chars().count() <= markers::HEARTBEAT_ACK_MAX_CHARS
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
    fn heartbeat_pairs_are_filtered_2026_4_26() {
        let p = Profile::classic_2026_4_26();
        let input = msgs(json!([
            {"role":"user","content":"hi"},
            {"role":"user","content": markers::HEARTBEAT_WAKE_PROMPT},
            {"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}]},
            {"role":"user","content": markers::HEARTBEAT_WAKE_PROMPT},
            {"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}]},
            {"role":"user","content": markers::HEARTBEAT_WAKE_PROMPT},
            {"role":"assistant","content":[{"type":"text","text":"The build is red."}]}
        ]));
        // NO_REPLY is not a 4.26 heartbeat ack; the red build is a real reply.
        assert_eq!(filter_heartbeat_artifacts(&p, input).len(), 5);
    }

    #[test]
    fn heartbeat_spans_are_filtered_2026_9_6() {
        let p = Profile::current_2026_9_6();
        let input = msgs(json!([
            {"role":"user","content":"hi"},
            {"role":"user","content": markers::HEARTBEAT_WAKE_PROMPT},
            {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},
            {"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"nothing"}]},
            {"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}]},
            {"role":"user","content": markers::HEARTBEAT_WAKE_PROMPT},
            {"role":"assistant","content":[{"type":"text","text":"The build is red."}]}
        ]));
        let out = filter_heartbeat_artifacts(&p, input);
        assert_eq!(out.len(), 3);
        assert_eq!(out[2].text(), "The build is red.");
    }
}
