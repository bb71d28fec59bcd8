//! Anthropic Messages converter (`convertAnthropicMessages`,
//! `src/agents/anthropic-transport-stream.ts`; A3.17).

use clawspec_contract::*;
use serde_json::{json, Value};

use super::{obj, user_blocks, Conv};
use crate::repair::placeholders::{NO_OUTPUT, REASONING_OMITTED, TOOL_ERROR_NO_OUTPUT};

/// `EMPTY_ANTHROPIC_MESSAGES_FALLBACK_TEXT` (anthropic-transport-stream.ts, #74731).
pub const EMPTY_MESSAGES_FALLBACK: &str = ".";

fn signed(t: &ThinkingBlock) -> bool {
    t.thinking_signature.as_deref().is_some_and(|s| !s.trim().is_empty())
}

fn block(b: &ContentBlock, hygiene: bool) -> Option<Value> {
    Some(match b {
        ContentBlock::Text(t) if hygiene && t.text.trim().is_empty() => return None,
        ContentBlock::Text(t) => json!({"type":"text","text":t.text}),
        ContentBlock::Image(i) => json!({"type":"image","source":{"type":"base64","media_type":i.mime_type,"data":i.data}}),
        ContentBlock::Thinking(t) if t.redacted == Some(true) => json!({"type":"redacted_thinking","data":t.thinking_signature}),
        // Unsigned thinking is replayed as text (blank dropped).
        ContentBlock::Thinking(t) if hygiene && !signed(t) => {
            if t.thinking.trim().is_empty() {
                return None;
            }
            json!({"type":"text","text":t.thinking})
        }
        ContentBlock::Thinking(t) => match &t.thinking_signature {
            Some(s) => json!({"type":"thinking","thinking":t.thinking,"signature":s}),
            None => json!({"type":"thinking","thinking":t.thinking}),
        },
        ContentBlock::ToolCall(c) => json!({"type":"tool_use","id":c.id,"name":c.name,"input":c.arguments}),
    })
}

/// The active tool turn: the last assistant, when only tool results follow it.
fn active_tool_turn(ms: &[AgentMessage]) -> Option<usize> {
    let i = ms.iter().rposition(|m| matches!(m, AgentMessage::Assistant(_)))?;
    (i + 1 < ms.len() && ms[i + 1..].iter().all(|m| matches!(m, AgentMessage::ToolResult(_)))).then_some(i)
}

pub fn convert(ms: &[AgentMessage], c: Conv) -> Value {
    let h = c.hygiene;
    let active = active_tool_turn(ms);
    let mut out: Vec<Value> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        match m {
            AgentMessage::User(u) => {
                let content: Vec<Value> = user_blocks(&u.content).iter().filter_map(|b| block(b, h)).collect();
                if h && content.is_empty() {
                    continue;
                }
                out.push(obj([("role", "user".into()), ("content", content.into())]));
            }
            AgentMessage::Assistant(a) => {
                let had_thinking = a.content.iter().any(|b| matches!(b, ContentBlock::Thinking(_)));
                // Thinking disabled: old thinking is omitted, except in the active tool turn.
                let drop_thinking = h && !c.o.thinking && Some(i) != active;
                let mut content: Vec<Value> = a.content.iter().filter(|b| !(drop_thinking && matches!(b, ContentBlock::Thinking(_)))).filter_map(|b| block(b, h)).collect();
                if h && content.is_empty() {
                    if had_thinking && drop_thinking {
                        content.push(json!({"type":"text","text":REASONING_OMITTED}));
                    } else {
                        continue;
                    }
                }
                out.push(obj([("role", "assistant".into()), ("content", content.into())]));
            }
            AgentMessage::ToolResult(r) => {
                let mut inner: Vec<Value> = r.content.iter().filter_map(|b| block(b, h)).collect();
                if h && inner.is_empty() {
                    inner.push(json!({"type":"text","text": if r.is_error == Some(true) { TOOL_ERROR_NO_OUTPUT } else { NO_OUTPUT }}));
                }
                let b = obj([("type", "tool_result".into()), ("tool_use_id", r.tool_call_id.clone().into()), ("content", inner.into()), ("is_error", r.is_error.unwrap_or(false).into())]);
                // Consecutive results share one user message.
                if matches!(ms.get(i.wrapping_sub(1)), Some(AgentMessage::ToolResult(_))) && i > 0 {
                    if let Some(last) = out.last_mut().filter(|l| l["role"] == "user") {
                        last["content"].as_array_mut().unwrap().push(b);
                        continue;
                    }
                }
                out.push(obj([("role", "user".into()), ("content", vec![b].into())]));
            }
            _ => unreachable!("non-chat roles are converted to user messages first"),
        }
    }
    if h && out.is_empty() {
        out.push(json!({"role":"user","content":EMPTY_MESSAGES_FALLBACK}));
    }
    let mut body = obj([("model", c.o.model.clone().into()), ("max_tokens", 4096.into()), ("messages", out.into())]);
    if let Some(s) = &c.o.system {
        body["system"] = json!(s);
    }
    if c.o.thinking {
        body["thinking"] = json!({"type":"enabled","budget_tokens":2048});
    }
    body
}
