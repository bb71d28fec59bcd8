//! Gemini `generateContent` converter (`convertMessages`,
//! `@openclaw/ai` `providers/google-shared.ts`; A3.18).

use clawspec_contract::*;
use serde_json::{json, Value};

use super::{obj, text_of, user_blocks, Conv};

/// `skip_thought_signature_validator`: the documented bypass OpenClaw sends
/// for Gemini 3 calls whose signature was lost (google-shared.ts).
pub const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

pub fn convert(ms: &[AgentMessage], c: Conv) -> Value {
    let h = c.hygiene;
    let gemini3 = c.o.model.contains("gemini-3");
    let mut contents: Vec<Value> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        match m {
            AgentMessage::User(u) => {
                let mut parts: Vec<Value> = user_blocks(&u.content)
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Image(im) => Some(json!({"inlineData":{"mimeType":im.mime_type,"data":im.data}})),
                        // Blank user text is sent as " ".
                        ContentBlock::Text(t) if h && t.text.trim().is_empty() => Some(json!({"text":" "})),
                        ContentBlock::Text(t) => Some(json!({"text":t.text})),
                        _ => None,
                    })
                    .collect();
                if h && parts.is_empty() {
                    parts.push(json!({"text":" "}));
                }
                contents.push(obj([("role", "user".into()), ("parts", parts.into())]));
            }
            AgentMessage::Assistant(a) => {
                let mut first_call = true;
                let parts: Vec<Value> = a
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) if h && t.text.trim().is_empty() => None,
                        ContentBlock::Text(t) => Some(json!({"text":t.text})),
                        ContentBlock::Thinking(t) if t.thinking.trim().is_empty() => None,
                        ContentBlock::Thinking(t) => match &t.thinking_signature {
                            Some(s) if !s.trim().is_empty() => Some(json!({"text":t.thinking,"thought":true,"thoughtSignature":s})),
                            _ => Some(json!({"text":t.thinking})),
                        },
                        ContentBlock::ToolCall(tc) => {
                            let mut v = json!({"functionCall":{"name":tc.name,"args":tc.arguments}});
                            match &tc.thought_signature {
                                Some(s) => v["thoughtSignature"] = json!(s),
                                None if h && gemini3 && first_call => v["thoughtSignature"] = json!(SKIP_SIGNATURE),
                                None => {}
                            }
                            first_call = false;
                            Some(v)
                        }
                        ContentBlock::Image(_) => None,
                    })
                    .collect();
                if h && parts.is_empty() {
                    continue;
                }
                contents.push(obj([("role", "model".into()), ("parts", parts.into())]));
            }
            AgentMessage::ToolResult(r) => {
                let part = json!({"functionResponse":{"name":r.tool_name.clone().unwrap_or_default(),"response":{"output":text_of(&r.content)}}});
                if i > 0 && matches!(ms[i - 1], AgentMessage::ToolResult(_)) {
                    if let Some(last) = contents.last_mut().filter(|l| l["role"] == "user") {
                        last["parts"].as_array_mut().unwrap().push(part);
                        continue;
                    }
                }
                contents.push(obj([("role", "user".into()), ("parts", vec![part].into())]));
            }
            _ => unreachable!("non-chat roles are converted to user messages first"),
        }
    }
    if h && contents.is_empty() {
        contents.push(json!({"role":"user","parts":[{"text":" "}]}));
    }
    let mut body = obj([("contents", contents.into())]);
    if let Some(s) = &c.o.system {
        body["systemInstruction"] = json!({"parts":[{"text":s}]});
    }
    body
}
