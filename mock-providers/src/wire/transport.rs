//! A3.16 `transformMessages` (`@openclaw/ai` `transcript-transform.ts`), run
//! by every transport before its provider converter.

use clawspec_contract::*;

use crate::repair::pairing::synthetic_result;
use crate::repair::placeholders::{NO_RESULT_PROVIDED, TURN_FAILED};
use crate::repair::placeholders::TURN_FAILED_EMPTY;

fn text(t: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: t.into(), text_signature: None, extra: Extra::new() })
}

fn real_text(a: &AssistantMessage) -> bool {
    a.content.iter().any(|b| matches!(b, ContentBlock::Text(t) if !t.text.trim().is_empty() && t.text.trim() != TURN_FAILED_EMPTY))
}

/// `model`: the model the request goes to; assistants from another model
/// have their thinking downgraded to text and tool-call signatures removed.
pub fn transform_messages(ms: Vec<AgentMessage>, model: &str) -> Vec<AgentMessage> {
    let mut out: Vec<AgentMessage> = Vec::with_capacity(ms.len());
    let mut pending: Vec<(String, String)> = Vec::new();
    let flush = |out: &mut Vec<AgentMessage>, pending: &mut Vec<(String, String)>| {
        for (id, name) in pending.drain(..) {
            out.push(synthetic_result(&id, &name, NO_RESULT_PROVIDED));
        }
    };
    for m in ms {
        match m {
            AgentMessage::ToolResult(ref r) => {
                pending.retain(|(id, _)| *id != r.tool_call_id);
                out.push(m);
            }
            AgentMessage::Assistant(mut a) => {
                flush(&mut out, &mut pending);
                if matches!(a.stop_reason.as_deref(), Some("error" | "aborted")) {
                    if a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))) || !real_text(&a) {
                        continue;
                    }
                    a.content = vec![text(TURN_FAILED)];
                }
                if a.model.as_deref().is_some_and(|m| !model.is_empty() && m != model) {
                    a.content = a
                        .content
                        .into_iter()
                        .filter_map(|b| match b {
                            ContentBlock::Thinking(t) if t.redacted == Some(true) || t.thinking.trim().is_empty() => None,
                            ContentBlock::Thinking(t) => Some(text(&t.thinking)),
                            ContentBlock::ToolCall(mut c) => {
                                c.thought_signature = None;
                                Some(ContentBlock::ToolCall(c))
                            }
                            b => Some(b),
                        })
                        .collect();
                }
                pending = a.content.iter().filter_map(|b| if let ContentBlock::ToolCall(c) = b { Some((c.id.clone(), c.name.clone())) } else { None }).collect();
                out.push(AgentMessage::Assistant(a));
            }
            m => {
                flush(&mut out, &mut pending);
                out.push(m);
            }
        }
    }
    flush(&mut out, &mut pending);
    out
}
