//! Bedrock Converse converter (`extensions/amazon-bedrock` stream runtime;
//! A3.18). Consecutive user turns are always merged at send time (A1 step 2).

use clawspec_contract::*;
use serde_json::{json, Value};

use super::{obj, text_of, user_blocks, Conv};
use crate::repair::placeholders::{NO_OUTPUT, TOOL_ERROR_NO_OUTPUT};

pub fn convert(ms: &[AgentMessage], c: Conv) -> Value {
    let h = c.hygiene;
    let claude = c.o.model.contains("claude") || c.o.model.contains("anthropic");
    let mut out: Vec<Value> = Vec::new();
    let mut has_tools = false;
    let mut prev_result = false;
    for m in ms {
        let is_result = matches!(m, AgentMessage::ToolResult(_));
        let (role, content): (&str, Vec<Value>) = match m {
            AgentMessage::User(u) => ("user", user_blocks(&u.content)
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Image(i) => Some(json!({"image":{"format":i.mime_type.trim_start_matches("image/"),"source":{"bytes":i.data}}})),
                    ContentBlock::Text(t) if h && t.text.trim().is_empty() => None,
                    ContentBlock::Text(t) => Some(json!({"text":t.text})),
                    _ => None,
                })
                .collect()),
            AgentMessage::Assistant(a) => ("assistant", a
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) if h && t.text.trim().is_empty() => None,
                    ContentBlock::Text(t) => Some(json!({"text":t.text})),
                    ContentBlock::Thinking(t) => {
                        let signed = t.thinking_signature.as_deref().is_some_and(|s| !s.trim().is_empty());
                        if h && !(signed && claude) {
                            // Unsigned (or non-Claude) reasoning is replayed as text.
                            (!t.thinking.trim().is_empty()).then(|| json!({"text":t.thinking}))
                        } else if t.redacted == Some(true) {
                            Some(json!({"reasoningContent":{"redactedContent":t.thinking_signature}}))
                        } else {
                            Some(json!({"reasoningContent":{"reasoningText":{"text":t.thinking,"signature":t.thinking_signature}}}))
                        }
                    }
                    ContentBlock::ToolCall(tc) => {
                        has_tools = true;
                        Some(json!({"toolUse":{"toolUseId":tc.id,"name":tc.name,"input":tc.arguments}}))
                    }
                    ContentBlock::Image(_) => None,
                })
                .collect()),
            AgentMessage::ToolResult(r) => {
                has_tools = true;
                let mut t = text_of(&r.content);
                if h && t.trim().is_empty() {
                    t = if r.is_error == Some(true) { TOOL_ERROR_NO_OUTPUT } else { NO_OUTPUT }.to_string();
                }
                ("user", vec![json!({"toolResult":{"toolUseId":r.tool_call_id,"content":[{"text":t}],"status": if r.is_error == Some(true) {"error"} else {"success"}}})])
            }
            _ => unreachable!("non-chat roles are converted to user messages first"),
        };
        let was_result = prev_result;
        prev_result = is_result;
        if h && content.is_empty() {
            continue;
        }
        // Results group into one user message; with hygiene every user run merges.
        if let Some(last) = out.last_mut() {
            if role == "user" && last["role"] == "user" && (h || (is_result && was_result)) {
                last["content"].as_array_mut().unwrap().extend(content);
                continue;
            }
        }
        out.push(obj([("role", role.into()), ("content", content.into())]));
    }
    let mut body = obj([("modelId", c.o.model.clone().into()), ("messages", out.into())]);
    if let Some(s) = &c.o.system {
        body["system"] = json!([{"text": s}]);
    }
    if has_tools {
        body["toolConfig"] = json!({"tools":[{"toolSpec":{"name":"mock","inputSchema":{"json":{"type":"object"}}}}]});
    }
    body
}
