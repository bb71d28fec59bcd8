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
pub struct PipelineOut<M = AgentMessage> {
    pub messages: Vec<M>,
    /// Notes for the trace (code, text).
    pub notes: Vec<(&'static str, String)>,
}

pub fn run(profile: &Profile, transcript: &[AgentMessage], hide_orphan_user: bool) -> PipelineOut {
    run_with(profile, transcript, hide_orphan_user, true)
}

/// [`run`], with 2026.9.6's user merge set by the replay policy
/// (`replay::merges_consecutive_users`: off for prefix-binding Claude ids on
/// anthropic-messages).
pub fn run_with(profile: &Profile, transcript: &[AgentMessage], hide_orphan_user: bool, merge_users: bool) -> PipelineOut {
    run_owned(profile, transcript, hide_orphan_user, merge_users, false)
}

/// [`run_owned`] of the session's shared messages.
pub fn run_with_policy(profile: &Profile, transcript: &[Msg], hide_orphan_user: bool, merge_users: bool, append_only_runtime_context: bool) -> PipelineOut<Msg> {
    let out = run_owned(profile, transcript, hide_orphan_user, merge_users, append_only_runtime_context);
    PipelineOut { messages: clawspec_contract::shared::share(out.messages), notes: out.notes }
}

/// [`run_with`]; `append_only_runtime_context` keeps the session's carriers in
/// the history the engine gets (context-engine-lifecycle-*.mjs: `appendOnlyRuntimeContext
/// ? messages : stripRuntimeContextCustomMessages(messages)`; audit item 9).
/// `transcript` may be borrowed messages: the caller need not copy the
/// session to hand it over (the pipeline copies what it keeps, once).
pub fn run_owned<M: std::borrow::Borrow<AgentMessage>>(profile: &Profile, transcript: &[M], hide_orphan_user: bool, merge_users: bool, append_only_runtime_context: bool) -> PipelineOut {
    let mut notes = Vec::new();
    let v2026_9 = profile.prompt_texts == PromptTexts::V2026_9_6;
    let mut ms: Vec<AgentMessage> = transcript
        .iter()
        .map(std::borrow::Borrow::borrow)
        .filter(|m| !(profile.runtime_context_carriers && !append_only_runtime_context && m.is_runtime_context_carrier()))
        .filter(|m| !(drops_excluded_from_context(profile) && excluded(m)))
        .cloned()
        .collect();
    let orphan_note = ("orphan-user-hidden", "the transcript ended with a user message that has no reply; branching to its parent".to_string());
    // 2026.9.6 repairs an orphaned trailing user on the session itself, before
    // the replay sanitiser and the heartbeat filter (dist/builtin-openclaw-*.mjs
    // prepareEmbeddedAttemptHistory: `orphanRepair` of the session boundary,
    // then sanitizeSessionHistory, validateReplayTurns, the filter).
    if v2026_9 {
        if hide_orphan_user && matches!(ms.last(), Some(AgentMessage::User(_))) {
            ms.pop();
            notes.push(orphan_note.clone());
        }
        ms = drop_silent_replies(ms);
        if merge_users {
            ms = merge_consecutive_users(ms);
        }
    }
    ms = filter_heartbeat_artifacts(profile, ms);
    if profile.inter_session_visible_prefix {
        ms = ms.iter().map(|m| prefix_inter_session_history(profile, m)).collect();
    }
    if !v2026_9 && hide_orphan_user && matches!(ms.last(), Some(AgentMessage::User(_))) {
        ms.pop();
        notes.push(orphan_note);
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

/// Whether the history an engine gets drops `excludeFromContext` entries.
/// 2026.9.6 does (dist/builtin-openclaw-*.mjs). 2026.4.26 never reads the
/// flag (no `excludeFromContext` anywhere in its dist/*.js): only
/// pi-coding-agent's `convertToLlm` (dist/core/messages.js) skips such a
/// `bashExecution` when it builds the *model's* messages, after the engine
/// has assembled; a custom message it keeps even there. So a 4.26 engine
/// sees both in assemble and afterTurn (`clawspec twin excluded-from-context`).
fn drops_excluded_from_context(p: &Profile) -> bool {
    p.prompt_texts == PromptTexts::V2026_9_6
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
            } else if let Some(end) = heartbeat_span_end(p, &ms, i) {
                i = end;
                continue;
            }
        }
        out.push(ms[i].clone());
        i += 1;
    }
    out
}

/// 2026.9.6 `resolveHeartbeatArtifactSpanEnd` (dist/heartbeat-filter-*.mjs):
/// from the heartbeat message up to the next user message, everything after
/// a terminal ack, tool calls and results; the span is kept (None) when it
/// has a plain reply and no ack, or meets another kind of message. A
/// heartbeat prompt followed by no assistant output at all is dropped too
/// (twinned: heartbeat-ok, whose `NO_REPLY` ack the replay sanitiser
/// already removed, see [`drop_silent_replies`]).
fn heartbeat_span_end(p: &Profile, ms: &[AgentMessage], start: usize) -> Option<usize> {
    let (mut j, mut terminal, mut plain) = (start + 1, false, false);
    while let Some(m) = ms.get(j) {
        match m {
            AgentMessage::User(_) => break,
            _ if is_ack(p, m) => terminal = true,
            _ if terminal => {}
            AgentMessage::ToolResult(_) => {}
            AgentMessage::Assistant(a) if a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))) => {}
            AgentMessage::Assistant(_) => plain = true,
            _ => return None,
        }
        j += 1;
    }
    (!(plain && !terminal)).then_some(j)
}

/// 2026.9.6 `normalizeAssistantReplayContent` (dist/builtin-openclaw-*.mjs,
/// run by `sanitizeSessionHistory` before the heartbeat filter): an
/// assistant message whose text blocks are all the silent `NO_REPLY` (and
/// nothing else) is not replayed.
pub fn drop_silent_replies(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter()
        .filter(|m| {
            let AgentMessage::Assistant(a) = m else { return true };
            !(!a.content.is_empty() && a.content.iter().all(|b| matches!(b, ContentBlock::Text(t) if t.text.trim() == markers::NO_REPLY)))
        })
        .collect()
}

/// 2026.9.6 `validateReplayTurns` → `mergeConsecutiveUserTurns`
/// (dist/embedded-agent-helpers-*.mjs): consecutive user messages become one,
/// their contents as text blocks in order, the later message's other fields
/// kept (`{...current, content, timestamp: current.timestamp ?? previous.timestamp}`);
/// before the heartbeat filter, so two heartbeat prompts whose silent acks
/// were dropped merge into one message the filter no longer recognises
/// (twinned: regression-a8-all-filtered).
pub fn merge_consecutive_users(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut out: Vec<AgentMessage> = Vec::with_capacity(ms.len());
    for m in ms {
        if let (Some(AgentMessage::User(prev)), AgentMessage::User(cur)) = (out.last_mut(), &m) {
            let blocks = |c: &MessageContent| match c {
                MessageContent::Text(t) => vec![text_block(t)],
                MessageContent::Blocks(b) => b.clone(),
            };
            let mut content = blocks(&prev.content);
            content.extend(blocks(&cur.content));
            let mut merged = cur.clone();
            merged.content = MessageContent::Blocks(content);
            if merged.timestamp.is_none() {
                merged.timestamp = prev.timestamp.clone();
            }
            *prev = merged;
            continue;
        }
        out.push(m);
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
pub fn repair_pairing<M: std::borrow::Borrow<AgentMessage> + From<AgentMessage>>(ms: Vec<M>) -> (Vec<M>, bool) {
    // Nothing to pair: the array as it is (an assembled history is checked
    // on every attempt; most hold no tool turn at all).
    let tool_turn = |m: &M| match m.borrow() {
        AgentMessage::ToolResult(_) => true,
        AgentMessage::Assistant(a) => a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))),
        _ => false,
    };
    if !ms.iter().any(tool_turn) {
        return (ms, false);
    }
    let mut out: Vec<M> = Vec::with_capacity(ms.len());
    let mut changed = false;
    let mut open: Vec<(String, String)> = Vec::new();
    let mut answered: BTreeSet<String> = BTreeSet::new();
    let close = |out: &mut Vec<M>, open: &mut Vec<(String, String)>, answered: &BTreeSet<String>, changed: &mut bool| {
        for (id, name) in open.drain(..) {
            if !answered.contains(&id) {
                *changed = true;
                out.push(M::from(AgentMessage::ToolResult(ToolResultMessage {
                    tool_call_id: id,
                    tool_name: Some(name),
                    content: vec![text_block(MISSING_TOOL_RESULT)],
                    is_error: Some(true),
                    details: None,
                    timestamp: None,
                    extra: Extra::new(),
                })));
            }
        }
    };
    for m in ms {
        match m.borrow() {
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
    fn excluded_entries_are_dropped_on_2026_9_only() {
        // Twin of excluded-from-context: 4.26 hands both to the engine.
        let input = msgs(json!([
            {"role":"user","content":"deploy"},
            {"role":"custom","customType":"openclaw.ui-note","content":"pressed","display":true,"excludeFromContext":true},
            {"role":"bashExecution","command":"./deploy","output":"ok","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true},
            {"role":"assistant","content":[{"type":"text","text":"done"}]}
        ]));
        let roles = |p: &Profile| run(p, &input, true).messages.iter().map(|m| m.role().to_string()).collect::<Vec<_>>();
        assert_eq!(roles(&Profile::current_2026_9_6()), ["user", "assistant"]);
        assert_eq!(roles(&Profile::classic_2026_4_26()), ["user", "custom", "bashExecution", "assistant"]);
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

    #[test]
    fn a_2026_9_heartbeat_prompt_without_any_answer_is_dropped_but_a_plain_reply_keeps_it() {
        let p = Profile::current_2026_9_6();
        let wake = markers::HEARTBEAT_WAKE_PROMPT;
        let lone = msgs(json!([{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]},{"role":"user","content": wake},{"role":"user","content":"next"}]));
        assert_eq!(filter_heartbeat_artifacts(&p, lone).iter().map(|m| m.text()).collect::<Vec<_>>(), ["hi", "yo", "next"]);
        let at_end = msgs(json!([{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]},{"role":"user","content": wake}]));
        assert_eq!(filter_heartbeat_artifacts(&p, at_end).len(), 2);
        let replied = msgs(json!([{"role":"user","content": wake},{"role":"assistant","content":[{"type":"text","text":"Deploy stuck."}]}]));
        assert_eq!(filter_heartbeat_artifacts(&p, replied).len(), 2);
        // 2026.4.26 needs the ack right after the prompt.
        let lone_426 = msgs(json!([{"role":"user","content": wake},{"role":"user","content":"next"}]));
        assert_eq!(filter_heartbeat_artifacts(&Profile::classic_2026_4_26(), lone_426).len(), 2);
    }

    #[test]
    fn silent_replies_go_then_consecutive_users_merge_keeping_the_later_fields() {
        let input = msgs(json!([
            {"role":"user","content":"a","timestamp":1,"idempotencyKey":"k1"},
            {"role":"assistant","content":[{"type":"text","text":" NO_REPLY "}]},
            {"role":"user","content":[{"type":"text","text":"b"}],"timestamp":2,"idempotencyKey":"k2"},
            {"role":"assistant","content":[{"type":"text","text":"NO_REPLY"},{"type":"text","text":"but also this"}]}
        ]));
        let out = merge_consecutive_users(drop_silent_replies(input));
        assert_eq!(out.len(), 2, "only the all-silent assistant goes: {out:?}");
        let AgentMessage::User(u) = &out[0] else { panic!() };
        assert_eq!(serde_json::to_value(&u.content).unwrap(), json!([{"type":"text","text":"a"},{"type":"text","text":"b"}]));
        assert_eq!((serde_json::to_value(u).unwrap()["timestamp"].clone(), u.idempotency_key.as_deref()), (json!(2), Some("k2")));
    }

    #[test]
    fn two_silent_heartbeats_merge_into_a_message_the_2026_9_filter_keeps() {
        // regression-a8-all-filtered on the real 2026.9.6 gateway (clawspec twin).
        let wake = markers::HEARTBEAT_WAKE_PROMPT;
        let t = msgs(json!([
            {"role":"user","content": wake},{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}]},
            {"role":"user","content": wake},{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}]}
        ]));
        let out = run(&Profile::current_2026_9_6(), &t, true).messages;
        assert_eq!(out.len(), 1);
        assert_eq!(serde_json::to_value(&out[0]).unwrap()["content"], json!([{"type":"text","text": wake},{"type":"text","text": wake}]));
        assert!(run(&Profile::classic_2026_4_26(), &t.iter().cloned().map(|m| m).collect::<Vec<_>>(), true).messages.len() == 4, "4.26: NO_REPLY is no ack there and nothing is merged");
        // The orphan check looks at the session before the sanitiser: a trailing silent ack is not an orphan.
        let orphan = msgs(json!([{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]},{"role":"user","content":"lost"}]));
        assert_eq!(run(&Profile::current_2026_9_6(), &orphan, true).messages.len(), 2);
    }
}
