//! OpenClaw `AgentMessage`s → provider request bodies.
//!
//! [`to_wire`] is what OpenClaw's transport sends: `transformMessages`
//! (A3.16, [`transport`]) followed by the provider converter (A3.17–A3.18),
//! including the converters' own defences (blank text skipped, empty results
//! given `(no output)`, Mistral's 9-character id map …).
//! [`to_wire_verbatim`] converts message by message with none of those
//! defences: it shows what a provider makes of an unrepaired transcript (the
//! shape older OpenClaw builds sent, A8).

mod anthropic;
mod bedrock;
mod chat;
mod gemini;
mod responses;
pub mod transport;

pub use gemini::SKIP_SIGNATURE as SKIP_THOUGHT_SIGNATURE;

use clawspec_contract::*;
use serde_json::Value;

use crate::Provider;

#[derive(Clone, Debug, Default)]
pub struct RequestOptions {
    pub model: String,
    pub system: Option<String>,
    /// Extended thinking on (Anthropic `thinking`, Bedrock reasoning).
    pub thinking: bool,
}

/// Converter switches shared by the provider modules.
#[derive(Clone, Copy)]
pub(crate) struct Conv<'a> {
    pub hygiene: bool,
    /// Mistral: an `assistant` bridge between a tool result and a user turn
    /// (pi-ai's Mistral hygiene; `compat.requiresAssistantAfterToolResult`).
    pub assistant_after_tool_result: bool,
    pub o: &'a RequestOptions,
}

/// The text a non-chat role is shown as (openclaw `convertToLlm`,
/// `src/agents/messages.ts`).
pub fn as_user_text(m: &AgentMessage) -> Option<String> {
    Some(match m {
        AgentMessage::CompactionSummary(s) => format!("The conversation history before this point was compacted into the following summary:\n\n<summary>\n{}\n</summary>", s.summary),
        AgentMessage::BranchSummary(s) => format!("The following is a summary of a branch that this conversation came back from:\n\n<summary>\n{}\n</summary>", s.summary),
        AgentMessage::BashExecution(b) => format!("Ran `{}`\n```\n{}\n```", b.command, b.output),
        AgentMessage::Custom(c) => c.content.text(),
        _ => return None,
    })
}

/// Non-chat roles become user messages before conversion.
pub(crate) fn llm_messages(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter().map(|m| as_user_text(&m).map(AgentMessage::user_text).unwrap_or(m)).collect()
}

/// A JSON object that takes ownership of its values: `json!` serialises every
/// value it is given, so `json!({"content": content})` deep-copies `content`
/// (the largest cost of wire conversion before this helper).
pub(crate) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

pub(crate) fn text_of(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(|b| if let ContentBlock::Text(t) = b { Some(t.text.as_str()) } else { None }).collect::<Vec<_>>().join("\n")
}

pub(crate) fn user_blocks(c: &MessageContent) -> Vec<ContentBlock> {
    match c {
        MessageContent::Text(t) => vec![ContentBlock::Text(TextBlock { text: t.clone(), text_signature: None, extra: Extra::new() })],
        MessageContent::Blocks(b) => b.clone(),
    }
}

/// The request body OpenClaw's transport sends for this transcript.
pub fn to_wire(p: Provider, ms: &[AgentMessage], o: &RequestOptions) -> Value {
    into_wire(p, ms.to_vec(), o)
}

/// [`to_wire`] for a transcript the caller no longer needs (saves a copy).
pub fn into_wire(p: Provider, ms: Vec<AgentMessage>, o: &RequestOptions) -> Value {
    let ms = transport::transform_messages(llm_messages(ms), &o.model);
    convert(p, &ms, Conv { hygiene: true, assistant_after_tool_result: true, o })
}

/// [`to_wire`] as openclaw@2026.9.6's `@openclaw/ai` transport sends it:
/// `compat.requiresAssistantAfterToolResult` defaults to false
/// (openai-completions-compat-*.mjs; the bridge in
/// openai-completions-stream-*.mjs is only added when a model configures it),
/// so a user turn right after a tool result reaches Mistral as is and is
/// rejected ("Unexpected role 'user' after role 'tool'"; twin of http-mistral).
pub fn to_wire_openclaw_2026_9(p: Provider, ms: &[AgentMessage], o: &RequestOptions) -> Value {
    let ms = transport::transform_messages(llm_messages(ms.to_vec()), &o.model);
    convert(p, &ms, Conv { hygiene: true, assistant_after_tool_result: false, o })
}

/// Message-by-message conversion without transport hygiene.
pub fn to_wire_verbatim(p: Provider, ms: &[AgentMessage], o: &RequestOptions) -> Value {
    convert(p, &llm_messages(ms.to_vec()), Conv { hygiene: false, assistant_after_tool_result: false, o })
}

fn convert(p: Provider, ms: &[AgentMessage], c: Conv) -> Value {
    match p {
        Provider::Anthropic => anthropic::convert(ms, c),
        Provider::OpenAiChat => chat::convert(ms, c, false),
        Provider::Mistral => chat::convert(ms, c, true),
        Provider::OpenAiResponses => responses::convert(ms, c),
        Provider::Gemini => gemini::convert(ms, c),
        Provider::Bedrock => bedrock::convert(ms, c),
    }
}
