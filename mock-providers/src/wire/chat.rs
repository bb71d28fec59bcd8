//! OpenAI Chat Completions converter (`convertMessages`,
//! `@openclaw/ai` `providers/openai-completions.ts`) and Mistral's native
//! variant (`extensions/mistral`: 9-character alphanumeric id map,
//! assistant bridge after tool results — pi-ai compat
//! `requiresMistralToolIds` / `requiresAssistantAfterToolResult`).

use std::collections::BTreeMap;

use clawspec_contract::*;
use serde_json::{json, Value};

use super::{obj, text_of, Conv};
use crate::repair::placeholders::TOOL_RESULTS_PROCESSED;
use crate::repair::tool_call_ids::valid_id;
use crate::repair::IdMode;

/// OpenAI chat: `call|item` ids keep the call part (openai-completions.ts).
fn call_part(id: &str) -> &str {
    id.split('|').next().unwrap_or(id)
}

/// Mistral's transport id map: valid 9-character ids pass, others are hashed.
struct MistralIds(BTreeMap<String, String>);

impl MistralIds {
    fn get(&mut self, id: &str) -> String {
        if valid_id(IdMode::Strict9, id) {
            return id.to_string();
        }
        let n = self.0.len();
        self.0
            .entry(id.to_string())
            .or_insert_with(|| {
                let digest = sha_alnum(&format!("{id}:{n}"));
                digest[..9].to_string()
            })
            .clone()
    }
}

fn sha_alnum(s: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

pub fn convert(ms: &[AgentMessage], c: Conv, mistral: bool) -> Value {
    let h = c.hygiene;
    let mut ids = MistralIds(BTreeMap::new());
    let mut id = |raw: &str| -> String {
        if mistral && h {
            ids.get(raw)
        } else if mistral {
            raw.to_string()
        } else {
            call_part(raw).to_string()
        }
    };
    let mut out: Vec<Value> = Vec::new();
    if let Some(s) = &c.o.system {
        out.push(json!({"role":"system","content":s}));
    }
    for m in ms {
        // Keyed on the last role actually sent: a skipped empty assistant must
        // not hide a tool → user step (fuzz finding, see docs/performance-providers.md).
        if h && mistral && c.assistant_after_tool_result && matches!(m, AgentMessage::User(_)) && out.last().is_some_and(|l| l["role"] == "tool") {
            out.push(json!({"role":"assistant","content":TOOL_RESULTS_PROCESSED}));
        }
        match m {
            AgentMessage::User(u) => {
                let t = u.content.text();
                if h && t.trim().is_empty() && !matches!(&u.content, MessageContent::Blocks(b) if b.iter().any(|x| matches!(x, ContentBlock::Image(_)))) {
                    continue;
                }
                out.push(json!({"role":"user","content":t}));
            }
            AgentMessage::Assistant(a) => {
                let calls: Vec<Value> = a
                    .content
                    .iter()
                    .filter_map(|b| if let ContentBlock::ToolCall(tc) = b { Some(json!({"id":id(&tc.id),"type":"function","function":{"name":tc.name,"arguments":tc.arguments.to_string()}})) } else { None })
                    .collect();
                let text = text_of(&a.content);
                if h && text.trim().is_empty() && calls.is_empty() {
                    continue; // empty assistant skipped
                }
                let mut v = json!({"role":"assistant","content": if text.is_empty() && !calls.is_empty() { Value::Null } else { json!(text) }});
                // Reasoning replays in the field its signature names
                // (openai-completions.ts: `thinkingSignature` "reasoning_content" …).
                if !mistral {
                    for b in &a.content {
                        if let ContentBlock::Thinking(t) = b {
                            if let Some(field @ ("reasoning_content" | "reasoning" | "reasoning_text")) = t.thinking_signature.as_deref() {
                                v[field] = json!(t.thinking);
                            }
                        }
                    }
                }
                if !calls.is_empty() {
                    // Moonshot/Kimi with thinking: every tool-call assistant carries
                    // `reasoning_content`, "" when none was kept (#70996;
                    // `ensureMoonshotToolCallReasoningContent`,
                    // src/llm/providers/stream-wrappers/moonshot-thinking.ts, 2026.9.6).
                    if h && !mistral && c.o.model.contains("kimi") && v.get("reasoning_content").is_none() {
                        v["reasoning_content"] = json!("");
                    }
                    v["tool_calls"] = calls.into();
                }
                out.push(v);
            }
            AgentMessage::ToolResult(r) => {
                let mut v = json!({"role":"tool","tool_call_id":id(&r.tool_call_id),"content":text_of(&r.content)});
                if mistral {
                    v["name"] = json!(r.tool_name.clone().unwrap_or_default());
                }
                out.push(v);
            }
            _ => unreachable!("non-chat roles are converted to user messages first"),
        }
    }
    obj([("model", c.o.model.clone().into()), ("messages", out.into())])
}
