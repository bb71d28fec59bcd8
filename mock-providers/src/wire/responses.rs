//! OpenAI Responses converter (`convertResponsesMessages`,
//! `@openclaw/ai` `providers/openai-responses-shared.ts`; A3.13 transport
//! notes). Reasoning is replayed from the `ResponseReasoningItem` JSON that
//! OpenClaw stores in `thinkingSignature`.

use clawspec_contract::*;
use serde_json::{json, Value};

use super::{obj, text_of, Conv};
use crate::repair::responses::reasoning_item;

pub fn convert(ms: &[AgentMessage], c: Conv) -> Value {
    let h = c.hygiene;
    let mut input: Vec<Value> = Vec::new();
    for m in ms {
        match m {
            AgentMessage::User(u) => {
                let t = u.content.text();
                if h && t.trim().is_empty() {
                    continue;
                }
                input.push(json!({"type":"message","role":"user","content":[{"type":"input_text","text":t}]}));
            }
            AgentMessage::Assistant(a) => {
                let start = input.len();
                for b in &a.content {
                    match b {
                        ContentBlock::Thinking(t) => {
                            if let Some(item) = t.thinking_signature.as_deref().and_then(reasoning_item) {
                                input.push(item);
                            } else if !h {
                                if let Some(sig) = &t.thinking_signature {
                                    input.push(json!({"type":"reasoning","id":sig,"summary":[]}));
                                }
                            }
                        }
                        ContentBlock::Text(t) if h && t.text.trim().is_empty() => {}
                        ContentBlock::Text(t) => input.push(json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":t.text}]})),
                        ContentBlock::ToolCall(tc) => {
                            let (call, item) = tc.id.split_once('|').map(|(c, i)| (c, Some(i))).unwrap_or((&tc.id, None));
                            let mut v = json!({"type":"function_call","call_id":call,"name":tc.name,"arguments":tc.arguments.to_string()});
                            // The fc_ item id is omitted when replaying into a different model.
                            let same_model = a.model.as_deref().is_none_or(|m| m == c.o.model);
                            if let Some(i) = item.filter(|_| same_model || !h) {
                                v["id"] = json!(i);
                            }
                            input.push(v);
                        }
                        ContentBlock::Image(_) => {}
                    }
                }
                // Trailing reasoning items without their output item are popped (#18428).
                while h && input.len() > start && input.last().is_some_and(|v| v["type"] == "reasoning") {
                    input.pop();
                }
            }
            AgentMessage::ToolResult(r) => {
                let call = r.tool_call_id.split('|').next().unwrap_or("");
                let out = text_of(&r.content);
                let out = if h && out.is_empty() { "(no output)".to_string() } else { out };
                input.push(json!({"type":"function_call_output","call_id":call,"output":out}));
            }
            _ => unreachable!("non-chat roles are converted to user messages first"),
        }
    }
    let mut body = obj([("model", c.o.model.clone().into()), ("input", input.into()), ("store", false.into())]);
    if let Some(s) = &c.o.system {
        body["instructions"] = json!(s);
    }
    body
}
