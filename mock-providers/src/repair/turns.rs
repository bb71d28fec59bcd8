//! Turn shape: A3.14 `sanitizeGoogleTurnOrdering`
//! (`embedded-agent-helpers/google.ts`) and the A5 turn validators
//! `validateGeminiTurns` / `validateAnthropicTurns`
//! (`embedded-agent-helpers/turns.ts`).

use std::collections::BTreeMap;

use clawspec_contract::*;

use super::placeholders::{SESSION_BOOTSTRAP, TOOL_CALLS_OMITTED};
use super::util::{filter_in_place, has_thinking, is_failed, text};

/// A3.14: history may not start with an assistant turn (Cloud Code Assist, PR #421). Idempotent.
pub fn google_turn_ordering(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    if matches!(ms.first(), Some(AgentMessage::Assistant(_))) {
        ms.insert(0, AgentMessage::user_text(SESSION_BOOTSTRAP));
    }
    ms
}

/// Consecutive assistant messages become one: content concatenated, the
/// later usage/stopReason/errorMessage win.
pub fn merge_consecutive_assistants(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    filter_in_place(&mut ms, |out, m| {
        let (Some(AgentMessage::Assistant(prev)), AgentMessage::Assistant(cur)) = (out.last_mut(), m) else { return true };
        // Moved out of `cur`, which is dropped.
        prev.content.append(&mut cur.content);
        if cur.usage.is_some() {
            prev.usage = cur.usage.take();
        }
        if cur.stop_reason.is_some() {
            prev.stop_reason = cur.stop_reason.take();
        }
        if cur.error_message.is_some() {
            prev.error_message = cur.error_message.take();
        }
        false
    });
    ms
}

fn into_blocks(c: MessageContent) -> Vec<ContentBlock> {
    match c {
        MessageContent::Text(t) => vec![text(&t)],
        MessageContent::Blocks(b) => b,
    }
}

/// A5 step 3: consecutive user turns merged (string content becomes a text
/// block). The later message's other fields win — its idempotency key,
/// provenance, `__openclaw` facts — and its timestamp, else the earlier one:
/// `{...current, content, timestamp: current.timestamp ?? previous.timestamp}`
/// (`mergeConsecutiveUserTurns`, 2026.9.6 dist/embedded-agent-helpers-*.mjs,
/// 2026.4.26 dist/pi-embedded-helpers-*.js; twin of budget-tight-multiturn,
/// whose failed turns' prompts merge under the newest run's key).
pub fn merge_consecutive_users(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    filter_in_place(&mut ms, |out, m| {
        let (Some(AgentMessage::User(prev)), AgentMessage::User(cur)) = (out.last_mut(), m) else { return true };
        // Moved, not cloned: a long run of users stays linear.
        let mut b = into_blocks(std::mem::replace(&mut prev.content, MessageContent::Blocks(Vec::new())));
        b.extend(into_blocks(std::mem::replace(&mut cur.content, MessageContent::Blocks(Vec::new()))));
        let timestamp = cur.timestamp.take().or_else(|| prev.timestamp.take());
        std::mem::swap(prev, cur);
        prev.content = MessageContent::Blocks(b);
        prev.timestamp = timestamp;
        false
    });
    ms
}

/// A5 step 2: a call survives only if a result with its id appears before
/// the next assistant. A turn with thinking is kept intact only when every
/// call is matched by id and name; otherwise its content becomes
/// `[tool calls omitted]` (`[]` for failed turns).
pub fn strip_dangling_tool_calls(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    // Decide on the untouched transcript, then edit in place (no copy of the
    // transcript): per assistant to change, `None` clears it, `Some(keep)`
    // keeps the calls whose flag is set, in call order.
    let mut edits: Vec<(usize, Option<Vec<bool>>)> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let AgentMessage::Assistant(a) = m else { continue };
        let end = ms[i + 1..].iter().position(|x| matches!(x, AgentMessage::Assistant(_))).map_or(ms.len(), |k| i + 1 + k);
        let mut answers: BTreeMap<&str, Vec<Option<&str>>> = BTreeMap::new();
        for r in ms[i + 1..end].iter().filter_map(|x| if let AgentMessage::ToolResult(r) = x { Some(r) } else { None }) {
            answers.entry(r.tool_call_id.as_str()).or_default().push(r.tool_name.as_deref());
        }
        let answered = |c: &ToolCallBlock, by_name: bool| answers.get(c.id.as_str()).is_some_and(|ns| !by_name || ns.iter().any(|n| n.is_none_or(|n| n == c.name)));
        let calls: Vec<&ToolCallBlock> = a.content.iter().filter_map(|b| if let ContentBlock::ToolCall(c) = b { Some(c) } else { None }).collect();
        if calls.iter().all(|c| answered(c, has_thinking(a))) {
            continue;
        }
        edits.push((i, (!has_thinking(a)).then(|| calls.iter().map(|c| answered(c, false)).collect())));
    }
    for (i, keep) in edits {
        let AgentMessage::Assistant(o) = &mut ms[i] else { unreachable!() };
        match keep {
            None => o.content.clear(),
            Some(keep) => {
                let mut keep = keep.into_iter();
                o.content.retain(|b| !matches!(b, ContentBlock::ToolCall(_)) || keep.next().unwrap_or(true));
            }
        }
        if o.content.is_empty() && !is_failed(o) {
            o.content.push(text(TOOL_CALLS_OMITTED));
        }
    }
    ms
}

pub fn validate_gemini_turns(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    merge_consecutive_assistants(ms)
}

pub fn validate_anthropic_turns(ms: Vec<AgentMessage>, merge_users: bool) -> Vec<AgentMessage> {
    let ms = strip_dangling_tool_calls(merge_consecutive_assistants(ms));
    if merge_users {
        merge_consecutive_users(ms)
    } else {
        ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use rstest::rstest;
    use serde_json::{json, Value};

    #[rstest]
    #[case::bootstrap(json!([{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["user:(session bootstrap)", "assistant:a"])]
    #[case::user_first(json!([{"role":"user","content":"u"}]), vec!["user:u"])]
    fn google(#[case] input: Value, #[case] expect: Vec<&str>) {
        let out = google_turn_ordering(msgs(input));
        assert_eq!(shape(&out), expect);
        assert_eq!(google_turn_ordering(out.clone()), out);
    }

    #[rstest]
    #[case::merge_assistants(json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]), true, vec!["user:u", "assistant:a\nb"])]
    #[case::merge_users(json!([{"role":"user","content":"u"},{"role":"user","content":[{"type":"text","text":"v"}]}]), true, vec!["user:u\nv"])]
    #[case::append_only_users(json!([{"role":"user","content":"u"},{"role":"user","content":"v"}]), false, vec!["user:u", "user:v"])]
    #[case::dangling_call(json!([{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","id":"t","name":"r","arguments":{}}]},{"role":"user","content":"u"}]), true, vec!["assistant:a", "user:u"])]
    #[case::dangling_only(json!([{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"r","arguments":{}}]},{"role":"user","content":"u"}]), true, vec!["assistant:[tool calls omitted]", "user:u"])]
    #[case::dangling_with_thinking(json!([{"role":"assistant","content":[{"type":"thinking","thinking":"p","thinkingSignature":"s"},{"type":"toolCall","id":"t","name":"r","arguments":{}}]},{"role":"user","content":"u"}]), true, vec!["assistant:[tool calls omitted]", "user:u"])]
    #[case::answered(json!([{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"r","arguments":{}}]},{"role":"toolResult","toolCallId":"t","toolName":"r","content":[{"type":"text","text":"x"}]}]), true, vec!["assistant:", "toolResult:x"])]
    fn anthropic(#[case] input: Value, #[case] merge_users: bool, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&validate_anthropic_turns(msgs(input), merge_users)), expect);
    }

    #[test]
    fn merged_users_keep_the_later_fields_and_timestamp() {
        // `{...current, content, timestamp: current.timestamp ?? previous.timestamp}`.
        let out = merge_consecutive_users(msgs(json!([
            {"role":"user","content":"q4","timestamp":4,"idempotencyKey":"run-4:user"},
            {"role":"user","content":"q5","timestamp":5,"idempotencyKey":"run-5:user"},
            {"role":"user","content":"q6","idempotencyKey":"run-6:user"}
        ])));
        let v = serde_json::to_value(&out).unwrap();
        assert_eq!(v, json!([{"role":"user","content":[{"type":"text","text":"q4"},{"type":"text","text":"q5"},{"type":"text","text":"q6"}],"timestamp":5,"idempotencyKey":"run-6:user"}]));
    }
}
