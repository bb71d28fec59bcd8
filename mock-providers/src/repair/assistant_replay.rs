//! A3.1 `normalizeAssistantReplayContent`
//! (`embedded-agent-runner/replay-history.ts`): blank user turns, failed or
//! empty assistant turns, `NO_REPLY` and media in assistant turns never reach
//! the model.

use clawspec_contract::*;

use super::placeholders::{NO_REPLY, TURN_FAILED_EMPTY};
use super::util::{filter_in_place, has_tool_call, is_blank_text, is_failed};

fn zero_usage(a: &AssistantMessage) -> bool {
    match &a.usage {
        None => true,
        Some(u) => ["input", "output", "totalTokens"].iter().all(|k| u.get(*k).and_then(|v| v.as_f64()).unwrap_or(0.0) == 0.0),
    }
}

fn only_reasoning(a: &AssistantMessage) -> bool {
    !a.content.is_empty() && a.content.iter().all(|b| matches!(b, ContentBlock::Thinking(_)))
}

pub fn normalize_assistant_replay_content(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    filter_in_place(&mut ms, |out, m| {
        match m {
            AgentMessage::User(u) => match &mut u.content {
                MessageContent::Text(t) if t.trim().is_empty() => return false,
                MessageContent::Blocks(b) => {
                    b.retain(|x| !is_blank_text(x));
                    if b.is_empty() {
                        return false;
                    }
                }
                _ => {}
            },
            AgentMessage::Assistant(a) => {
                // Bedrock empty error-turn repair (PR #71627): nothing but blanks or
                // the failed-turn placeholder, and the turn errored or is a zero-usage stop.
                let contentless = a.content.iter().all(|b| is_blank_text(b) || matches!(b, ContentBlock::Text(t) if t.text.trim() == TURN_FAILED_EMPTY));
                if contentless && (is_failed(a) || (a.stop_reason.as_deref() == Some("stop") && zero_usage(a)) || a.content.is_empty()) {
                    return false;
                }
                a.content.retain(|b| !matches!(b, ContentBlock::Image(_)));
                let had_visible = a.content.iter().any(|b| !matches!(b, ContentBlock::Thinking(_)));
                a.content.retain(|b| !matches!(b, ContentBlock::Text(t) if t.text.trim() == NO_REPLY));
                if a.content.is_empty() || (had_visible && only_reasoning(a)) {
                    return false;
                }
                if only_reasoning(a) && a.stop_reason.as_deref() == Some("length") {
                    return false;
                }
                // A zero-usage `stop` repeating the previous assistant verbatim.
                if a.stop_reason.as_deref() == Some("stop") && zero_usage(a) && !has_tool_call(a) {
                    if let Some(AgentMessage::Assistant(prev)) = out.last() {
                        if prev.content == a.content {
                            return false;
                        }
                    }
                }
            }
            _ => {}
        }
        true
    });
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use rstest::rstest;
    use serde_json::{json, Value};

    #[rstest]
    #[case::blank_user_string(json!([{"role":"user","content":"  "},{"role":"user","content":"b"}]), vec!["user:b"])]
    #[case::blank_user_blocks(json!([{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"x"}]}]), vec!["user:x"])]
    #[case::failed_empty(json!([{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"error"},{"role":"user","content":"b"}]), vec!["user:a", "user:b"])]
    #[case::failed_placeholder(json!([{"role":"assistant","content":[{"type":"text","text":"[assistant turn failed before producing content]"}],"stopReason":"error"}]), Vec::<&str>::new())]
    #[case::no_reply(json!([{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}],"stopReason":"stop","usage":{"output":3}}]), Vec::<&str>::new())]
    #[case::no_reply_leaves_reasoning(json!([{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"},{"type":"text","text":"NO_REPLY"}],"usage":{"output":3}}]), Vec::<&str>::new())]
    #[case::images_removed(json!([{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}],"usage":{"output":1}}]), vec!["assistant:a"])]
    #[case::length_reasoning_only(json!([{"role":"assistant","content":[{"type":"thinking","thinking":"t"}],"stopReason":"length","usage":{"output":9}}]), Vec::<&str>::new())]
    #[case::zero_usage_duplicate(json!([{"role":"assistant","content":[{"type":"text","text":"a"}],"stopReason":"stop","usage":{"output":2}},{"role":"assistant","content":[{"type":"text","text":"a"}],"stopReason":"stop"}]), vec!["assistant:a"])]
    #[case::kept_with_call(json!([{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"r","arguments":{}}],"stopReason":"toolUse"}]), vec!["assistant:"])]
    fn normalize(#[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&normalize_assistant_replay_content(msgs(input))), expect);
    }
}
