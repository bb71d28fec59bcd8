//! A3.9 `sanitizeToolCallInputs` (`src/agents/session-transcript-repair.ts`):
//! tool calls that cannot be replayed are dropped; names trimmed; signed
//! Anthropic/Bedrock thinking turns are immutable, so any needed change drops
//! the whole turn.

use std::collections::BTreeSet;

use clawspec_contract::*;

use super::util::{filter_in_place, has_thinking, is_signed};
use super::Policy;

/// `TOOL_NAME_RE` / max length in session-transcript-repair.ts: trimmed,
/// 1–64 chars of `[A-Za-z0-9_:.-]`.
pub fn valid_tool_name(name: &str) -> bool {
    let n = name.trim();
    (1..=64).contains(&n.len()) && n.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'.' | b'-'))
}

/// A finalized OpenAI Responses call may keep its arguments when
/// `partialJson` is left over (id `call…|fc…`, stopReason toolUse, object args).
fn finalized_responses_call(c: &ToolCallBlock, stop_reason: Option<&str>) -> bool {
    c.id.starts_with("call") && c.id.contains("|fc") && stop_reason == Some("toolUse") && c.arguments.is_object()
}

enum Verdict {
    Keep,
    Fix,
    Drop,
}

fn judge(c: &ToolCallBlock, stop_reason: Option<&str>, allowed: Option<&BTreeSet<String>>) -> Verdict {
    if c.arguments.is_null() || c.id.trim().is_empty() || !valid_tool_name(&c.name) {
        return Verdict::Drop;
    }
    if allowed.is_some_and(|s| !s.contains(c.name.trim())) {
        return Verdict::Drop;
    }
    if c.extra.contains_key("partialJson") {
        return if finalized_responses_call(c, stop_reason) { Verdict::Fix } else { Verdict::Drop };
    }
    if c.name.trim() != c.name {
        return Verdict::Fix;
    }
    Verdict::Keep
}

pub fn sanitize_tool_call_inputs(p: &Policy, mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    filter_in_place(&mut ms, |_, m| {
        if let AgentMessage::Assistant(a) = m {
            let immutable = p.preserve_signatures && has_thinking(a) && a.content.iter().any(|b| matches!(b, ContentBlock::Thinking(t) if is_signed(t)));
            let mut seen: BTreeSet<String> = BTreeSet::new();
            let mut changed = false;
            let mut content = Vec::with_capacity(a.content.len());
            for b in std::mem::take(&mut a.content) {
                let ContentBlock::ToolCall(mut c) = b else {
                    content.push(b);
                    continue;
                };
                let duplicate = !seen.insert(c.id.trim().to_string());
                match judge(&c, a.stop_reason.as_deref(), p.allowed_tools.as_ref()) {
                    Verdict::Drop => changed = true,
                    Verdict::Fix => {
                        changed = true;
                        c.name = c.name.trim().to_string();
                        c.extra.remove("partialJson");
                        content.push(ContentBlock::ToolCall(c));
                    }
                    Verdict::Keep => {
                        changed |= duplicate;
                        content.push(ContentBlock::ToolCall(c));
                    }
                }
            }
            if immutable && changed {
                return false;
            }
            a.content = content;
            if a.content.is_empty() {
                return false;
            }
        }
        true
    });
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use crate::Provider;
    use rstest::rstest;
    use serde_json::{json, Value};

    fn call(id: &str, name: &str, args: Value) -> Value {
        json!({"role":"assistant","content":[{"type":"text","text":"t"},{"type":"toolCall","id":id,"name":name,"arguments":args}]})
    }

    #[rstest]
    #[case::valid(call("t1", "read", json!({})), "read")]
    #[case::no_arguments(call("t1", "read", Value::Null), "")]
    #[case::blank_id(call("  ", "read", json!({})), "")]
    #[case::blank_name(call("t1", " ", json!({})), "")]
    #[case::malformed_name(call("t1", "toolu_01abc <|tool_call_argument_begin|> {\"command\"", json!({})), "")]
    #[case::overlong_name(call("t1", &format!("read_{}", "x".repeat(80)), json!({})), "")]
    #[case::trimmed(call("t1", " read ", json!({})), "read")]
    #[case::dotted_name_admitted(call("t1", "functions.read", json!({})), "functions.read")]
    fn inputs(#[case] input: Value, #[case] name: &str) {
        let out = sanitize_tool_call_inputs(&Policy::for_provider(Provider::OpenAiChat), msgs(json!([input])));
        let AgentMessage::Assistant(a) = &out[0] else { panic!() };
        let names: Vec<&str> = a.content.iter().filter_map(|b| if let ContentBlock::ToolCall(c) = b { Some(c.name.as_str()) } else { None }).collect();
        assert_eq!(names, if name.is_empty() { vec![] } else { vec![name] });
    }

    #[test]
    fn allowlist_and_emptied_turn() {
        let p = Policy { allowed_tools: Some(["read".to_string()].into()), ..Policy::for_provider(Provider::OpenAiChat) };
        let ms = msgs(json!([{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"exec","arguments":{}}]}]));
        assert!(sanitize_tool_call_inputs(&p, ms).is_empty());
    }

    #[test]
    fn signed_thinking_turn_is_immutable() {
        let ms = msgs(json!([
            {"role":"user","content":"u"},
            {"role":"assistant","content":[{"type":"thinking","thinking":"p","thinkingSignature":"sig"},{"type":"toolCall","id":"t","name":" read ","arguments":{}}]}
        ]));
        assert_eq!(shape(&sanitize_tool_call_inputs(&Policy::for_provider(Provider::Anthropic), ms.clone())), ["user:u"]);
        let fixed = sanitize_tool_call_inputs(&Policy::for_provider(Provider::OpenAiChat), ms);
        assert_eq!(fixed.len(), 2, "mutable elsewhere");
    }
}
