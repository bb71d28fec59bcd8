//! OpenClaw `AgentMessage`s → provider request bodies, shaped as OpenClaw's
//! transports build them (tool results grouped into one user turn for
//! Anthropic/Bedrock/Gemini, `tool` messages for OpenAI-style chat, items for
//! Responses). Custom roles reach the model as user text (`convertToLlm`).

use clawspec_contract::*;
use serde_json::{json, Value};

use crate::Provider;

#[derive(Clone, Debug, Default)]
pub struct RequestOptions {
    pub model: String,
    pub system: Option<String>,
    /// Anthropic extended thinking on.
    pub thinking: bool,
}

/// The text a non-chat role is shown as (openclaw `convertToLlm`).
pub fn as_user_text(m: &AgentMessage) -> Option<String> {
    Some(match m {
        AgentMessage::CompactionSummary(s) => format!("The conversation history before this point was compacted into the following summary:\n\n<summary>\n{}\n</summary>", s.summary),
        AgentMessage::BranchSummary(s) => format!("The following is a summary of a branch that this conversation came back from:\n\n<summary>\n{}\n</summary>", s.summary),
        AgentMessage::BashExecution(b) => format!("Ran `{}`\n```\n{}\n```", b.command, b.output),
        AgentMessage::Custom(c) => c.content.text(),
        _ => return None,
    })
}

fn user_blocks(c: &MessageContent) -> Vec<&ContentBlock> {
    match c {
        MessageContent::Text(_) => vec![],
        MessageContent::Blocks(b) => b.iter().collect(),
    }
}

fn call_id(id: &str) -> &str {
    id.split('|').next().unwrap_or(id)
}

pub fn to_wire(p: Provider, ms: &[AgentMessage], o: &RequestOptions) -> Value {
    match p {
        Provider::Anthropic => anthropic(ms, o),
        Provider::OpenAiChat | Provider::Mistral => chat(ms, o),
        Provider::OpenAiResponses => responses(ms, o),
        Provider::Gemini => gemini(ms),
        Provider::Bedrock => bedrock(ms, o),
    }
}

fn anthropic(ms: &[AgentMessage], o: &RequestOptions) -> Value {
    let mut out: Vec<Value> = Vec::new();
    for m in ms {
        let (role, content) = match m {
            AgentMessage::User(u) => ("user", match &u.content {
                MessageContent::Text(t) => vec![json!({"type":"text","text":t})],
                c => user_blocks(c).iter().map(|b| anthropic_block(b)).collect(),
            }),
            AgentMessage::Assistant(a) => ("assistant", a.content.iter().map(anthropic_block).collect()),
            AgentMessage::ToolResult(r) => {
                let block = json!({"type":"tool_result","tool_use_id":r.tool_call_id,"content":r.content.iter().map(anthropic_block).collect::<Vec<_>>(),"is_error":r.is_error.unwrap_or(false)});
                // Consecutive results share one user message.
                if let Some(last) = out.last_mut() {
                    if last["role"] == "user" && last["content"].as_array().is_some_and(|c| c.iter().all(|b| b["type"] == "tool_result")) {
                        last["content"].as_array_mut().unwrap().push(block);
                        continue;
                    }
                }
                ("user", vec![block])
            }
            other => ("user", vec![json!({"type":"text","text":as_user_text(other).unwrap_or_default()})]),
        };
        out.push(json!({"role": role, "content": content}));
    }
    let out = merge_consecutive(out, "content");
    let mut body = json!({"model": o.model, "max_tokens": 4096, "messages": out});
    if let Some(s) = &o.system {
        body["system"] = json!(s);
    }
    if o.thinking {
        body["thinking"] = json!({"type":"enabled","budget_tokens":2048});
    }
    body
}

fn anthropic_block(b: &ContentBlock) -> Value {
    match b {
        ContentBlock::Text(t) => json!({"type":"text","text":t.text}),
        ContentBlock::Image(i) => json!({"type":"image","source":{"type":"base64","media_type":i.mime_type,"data":i.data}}),
        ContentBlock::Thinking(t) if t.redacted == Some(true) => json!({"type":"redacted_thinking","data":t.thinking_signature}),
        ContentBlock::Thinking(t) => match &t.thinking_signature {
            Some(s) => json!({"type":"thinking","thinking":t.thinking,"signature":s}),
            None => json!({"type":"thinking","thinking":t.thinking}),
        },
        ContentBlock::ToolCall(c) => json!({"type":"tool_use","id":c.id,"name":c.name,"input":c.arguments}),
    }
}

fn text_of(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(|b| if let ContentBlock::Text(t) = b { Some(t.text.as_str()) } else { None }).collect::<Vec<_>>().join("\n")
}

fn chat(ms: &[AgentMessage], o: &RequestOptions) -> Value {
    let mut out: Vec<Value> = Vec::new();
    if let Some(s) = &o.system {
        out.push(json!({"role":"system","content":s}));
    }
    for m in ms {
        out.push(match m {
            AgentMessage::User(u) => json!({"role":"user","content":u.content.text()}),
            AgentMessage::Assistant(a) => {
                let calls: Vec<Value> = a
                    .content
                    .iter()
                    .filter_map(|b| if let ContentBlock::ToolCall(c) = b { Some(json!({"id":call_id(&c.id),"type":"function","function":{"name":c.name,"arguments":c.arguments.to_string()}})) } else { None })
                    .collect();
                let text = text_of(&a.content);
                let mut v = json!({"role":"assistant","content": if text.is_empty() && !calls.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    v["tool_calls"] = json!(calls);
                }
                v
            }
            AgentMessage::ToolResult(r) => json!({"role":"tool","tool_call_id":call_id(&r.tool_call_id),"content":text_of(&r.content)}),
            other => json!({"role":"user","content":as_user_text(other).unwrap_or_default()}),
        });
    }
    json!({"model": o.model, "messages": out})
}

fn responses(ms: &[AgentMessage], o: &RequestOptions) -> Value {
    let mut input: Vec<Value> = Vec::new();
    for m in ms {
        match m {
            AgentMessage::User(u) => input.push(json!({"type":"message","role":"user","content":[{"type":"input_text","text":u.content.text()}]})),
            AgentMessage::Assistant(a) => {
                for b in &a.content {
                    match b {
                        ContentBlock::Thinking(t) => {
                            if let Some(sig) = &t.thinking_signature {
                                // OpenClaw replays reasoning as {id, encrypted_content}.
                                let (id, enc) = sig.split_once('|').unwrap_or(("rs_replay", sig));
                                input.push(json!({"type":"reasoning","id":id,"encrypted_content":enc,"summary":[]}));
                            }
                        }
                        ContentBlock::Text(t) => input.push(json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":t.text}]})),
                        ContentBlock::ToolCall(c) => {
                            let mut v = json!({"type":"function_call","call_id":call_id(&c.id),"name":c.name,"arguments":c.arguments.to_string()});
                            if let Some((_, fc)) = c.id.split_once('|') {
                                v["id"] = json!(fc);
                            }
                            input.push(v);
                        }
                        ContentBlock::Image(_) => {}
                    }
                }
            }
            AgentMessage::ToolResult(r) => input.push(json!({"type":"function_call_output","call_id":call_id(&r.tool_call_id),"output":text_of(&r.content)})),
            other => input.push(json!({"type":"message","role":"user","content":[{"type":"input_text","text":as_user_text(other).unwrap_or_default()}]})),
        }
    }
    let mut body = json!({"model": o.model, "input": input, "store": false});
    if let Some(s) = &o.system {
        body["instructions"] = json!(s);
    }
    body
}

fn gemini(ms: &[AgentMessage]) -> Value {
    let mut contents: Vec<Value> = Vec::new();
    for m in ms {
        let (role, parts): (&str, Vec<Value>) = match m {
            AgentMessage::User(u) => ("user", match &u.content {
                MessageContent::Text(t) => vec![json!({"text":t})],
                c => user_blocks(c)
                    .iter()
                    .map(|b| match b {
                        ContentBlock::Image(i) => json!({"inlineData":{"mimeType":i.mime_type,"data":i.data}}),
                        ContentBlock::Text(t) => json!({"text":t.text}),
                        _ => json!({}),
                    })
                    .collect(),
            }),
            AgentMessage::Assistant(a) => ("model", a
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(json!({"text":t.text})),
                    ContentBlock::Thinking(_) => None,
                    ContentBlock::ToolCall(c) => {
                        let mut v = json!({"functionCall":{"name":c.name,"args":c.arguments}});
                        if let Some(s) = &c.thought_signature {
                            v["thoughtSignature"] = json!(s);
                        }
                        Some(v)
                    }
                    ContentBlock::Image(_) => None,
                })
                .collect()),
            AgentMessage::ToolResult(r) => {
                let part = json!({"functionResponse":{"name":r.tool_name.clone().unwrap_or_default(),"response":{"output":text_of(&r.content)}}});
                if let Some(last) = contents.last_mut() {
                    if last["role"] == "user" && last["parts"].as_array().is_some_and(|p| !p.is_empty() && p.iter().all(|x| x.get("functionResponse").is_some())) {
                        last["parts"].as_array_mut().unwrap().push(part);
                        continue;
                    }
                }
                ("user", vec![part])
            }
            other => ("user", vec![json!({"text":as_user_text(other).unwrap_or_default()})]),
        };
        contents.push(json!({"role":role,"parts":parts}));
    }
    json!({"contents": contents})
}

fn bedrock(ms: &[AgentMessage], o: &RequestOptions) -> Value {
    let mut out: Vec<Value> = Vec::new();
    let mut has_tools = false;
    for m in ms {
        let (role, content): (&str, Vec<Value>) = match m {
            AgentMessage::User(u) => ("user", match &u.content {
                MessageContent::Text(t) => vec![json!({"text":t})],
                c => user_blocks(c)
                    .iter()
                    .map(|b| match b {
                        ContentBlock::Image(i) => json!({"image":{"format":i.mime_type.trim_start_matches("image/"),"source":{"bytes":i.data}}}),
                        ContentBlock::Text(t) => json!({"text":t.text}),
                        _ => json!({}),
                    })
                    .collect(),
            }),
            AgentMessage::Assistant(a) => ("assistant", a
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(json!({"text":t.text})),
                    ContentBlock::Thinking(t) => Some(json!({"reasoningContent":{"reasoningText":{"text":t.thinking,"signature":t.thinking_signature}}})),
                    ContentBlock::ToolCall(c) => {
                        has_tools = true;
                        Some(json!({"toolUse":{"toolUseId":c.id,"name":c.name,"input":c.arguments}}))
                    }
                    ContentBlock::Image(_) => None,
                })
                .collect()),
            AgentMessage::ToolResult(r) => {
                has_tools = true;
                let block = json!({"toolResult":{"toolUseId":r.tool_call_id,"content":[{"text":text_of(&r.content)}],"status": if r.is_error == Some(true) {"error"} else {"success"}}});
                if let Some(last) = out.last_mut() {
                    if last["role"] == "user" && last["content"].as_array().is_some_and(|c| c.iter().all(|b| b.get("toolResult").is_some())) {
                        last["content"].as_array_mut().unwrap().push(block);
                        continue;
                    }
                }
                ("user", vec![block])
            }
            other => ("user", vec![json!({"text":as_user_text(other).unwrap_or_default()})]),
        };
        out.push(json!({"role":role,"content":content}));
    }
    let out = merge_consecutive(out, "content");
    let mut body = json!({"modelId": o.model, "messages": out});
    if let Some(s) = &o.system {
        body["system"] = json!([{"text": s}]);
    }
    if has_tools {
        body["toolConfig"] = json!({"tools":[{"toolSpec":{"name":"mock","inputSchema":{"json":{"type":"object"}}}}]});
    }
    body
}

/// Consecutive wire messages of the same role become one (content arrays
/// concatenated; tool results first, as Anthropic requires).
fn merge_consecutive(ms: Vec<Value>, key: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(ms.len());
    for m in ms {
        if let Some(last) = out.last_mut() {
            if last["role"] == m["role"] && last["role"] == "user" {
                let extra = m[key].as_array().cloned().unwrap_or_default();
                last[key].as_array_mut().unwrap().extend(extra);
                continue;
            }
        }
        out.push(m);
    }
    out
}
