//! `AgentMessage` as engines see it (`packages/agent-core/src/types.ts`,
//! `packages/llm-core/src/types.ts` in openclaw 2026.9.6). There is no `tool`
//! role and no `tool_use` block in the canonical types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::provenance::InputProvenance;
use crate::Extra;

/// Carrier customType for hidden runtime context
/// (openclaw `src/agents/internal-runtime-context.ts`).
pub const RUNTIME_CONTEXT_CUSTOM_TYPE: &str = "openclaw.runtime-context";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "role")]
pub enum AgentMessage {
    #[serde(rename = "user")]
    User(UserMessage),
    #[serde(rename = "assistant")]
    Assistant(AssistantMessage),
    #[serde(rename = "toolResult")]
    ToolResult(ToolResultMessage),
    #[serde(rename = "custom")]
    Custom(CustomMessage),
    #[serde(rename = "compactionSummary")]
    CompactionSummary(CompactionSummaryMessage),
    #[serde(rename = "branchSummary")]
    BranchSummary(BranchSummaryMessage),
    #[serde(rename = "bashExecution")]
    BashExecution(BashExecutionMessage),
}

/// User and custom content: `string | (text|image)[]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MessageContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum ContentBlock {
    #[serde(rename = "text")]
    Text(TextBlock),
    #[serde(rename = "image")]
    Image(ImageBlock),
    #[serde(rename = "thinking")]
    Thinking(ThinkingBlock),
    #[serde(rename = "toolCall")]
    ToolCall(ToolCallBlock),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextBlock {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageBlock {
    /// base64 payload
    pub data: String,
    pub mime_type: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingBlock {
    pub thinking: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// `redacted: true` keeps the opaque payload in `thinkingSignature`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallBlock {
    pub id: String,
    pub name: String,
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub content: MessageContent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<InputProvenance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// `stop|length|toolUse|error|aborted`; kept open (engines rebuild messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    pub custom_type: String,
    pub content: MessageContent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    pub summary: String,
    pub tokens_before: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    pub summary: String,
    pub from_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    pub command: String,
    pub output: String,
    #[serde(default)]
    pub exit_code: Option<i64>,
    #[serde(default)]
    pub cancelled: bool,
    #[serde(default)]
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl AgentMessage {
    /// The message's `timestamp` (every role has one).
    pub fn timestamp(&self) -> Option<&Number> {
        match self {
            AgentMessage::User(m) => m.timestamp.as_ref(),
            AgentMessage::Assistant(m) => m.timestamp.as_ref(),
            AgentMessage::ToolResult(m) => m.timestamp.as_ref(),
            AgentMessage::Custom(m) => m.timestamp.as_ref(),
            AgentMessage::CompactionSummary(m) => m.timestamp.as_ref(),
            AgentMessage::BranchSummary(m) => m.timestamp.as_ref(),
            AgentMessage::BashExecution(m) => m.timestamp.as_ref(),
        }
    }

    pub fn role(&self) -> &'static str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::Custom(_) => "custom",
            AgentMessage::CompactionSummary(_) => "compactionSummary",
            AgentMessage::BranchSummary(_) => "branchSummary",
            AgentMessage::BashExecution(_) => "bashExecution",
        }
    }

    pub fn user_text(text: impl Into<String>) -> Self {
        AgentMessage::User(UserMessage {
            content: MessageContent::Text(text.into()),
            timestamp: None,
            provenance: None,
            idempotency_key: None,
            extra: Extra::new(),
        })
    }

    /// Concatenated visible text of the message (text blocks, string content,
    /// summaries, bash output). Used for marker recognition and token estimates.
    pub fn text(&self) -> String {
        match self {
            AgentMessage::User(m) => m.content.text(),
            AgentMessage::Custom(m) => m.content.text(),
            AgentMessage::Assistant(m) => blocks_text(&m.content),
            AgentMessage::ToolResult(m) => blocks_text(&m.content),
            AgentMessage::CompactionSummary(m) => m.summary.clone(),
            AgentMessage::BranchSummary(m) => m.summary.clone(),
            AgentMessage::BashExecution(m) => format!("{}\n{}", m.command, m.output),
        }
    }

    /// Whether this is a hidden runtime-context carrier
    /// (`stripRuntimeContextCustomMessages`, openclaw `src/agents/internal-runtime-context.ts`).
    pub fn is_runtime_context_carrier(&self) -> bool {
        matches!(self, AgentMessage::Custom(c) if c.custom_type == RUNTIME_CONTEXT_CUSTOM_TYPE)
    }

    /// Tool call ids issued by an assistant message, in order.
    pub fn tool_call_ids(&self) -> Vec<&str> {
        match self {
            AgentMessage::Assistant(m) => m
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolCall(t) => Some(t.id.as_str()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn provenance(&self) -> Option<&InputProvenance> {
        match self {
            AgentMessage::User(u) => u.provenance.as_ref(),
            _ => None,
        }
    }
}

impl MessageContent {
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(s) => s.clone(),
            MessageContent::Blocks(b) => blocks_text(b),
        }
    }
}

fn blocks_text(blocks: &[ContentBlock]) -> String {
    let mut out = String::new();
    for b in blocks {
        let piece = match b {
            ContentBlock::Text(t) => t.text.as_str(),
            ContentBlock::Thinking(t) => t.thinking.as_str(),
            _ => continue,
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    // Examples from shared/reference/openclaw-contract.md §3.
    #[rstest]
    #[case::plain_user(json!({"role":"user","content":"hi","timestamp":1767225600000u64}))]
    #[case::user_image_provenance(json!({"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"timestamp":1767225600000u64,
        "provenance":{"kind":"inter_session","sourceSessionKey":"agent:main:subagent:42","sourceChannel":"internal","sourceTool":"sessions_send","sourceRole":"subagent"},
        "idempotencyKey":"run-1:user"}))]
    #[case::assistant_full(json!({"role":"assistant","content":[
        {"type":"thinking","thinking":"plan…","thinkingSignature":"EqQB"},
        {"type":"thinking","thinking":"","thinkingSignature":"<opaque>","redacted":true},
        {"type":"text","text":"Reading it."},
        {"type":"toolCall","id":"toolu_01","name":"read","arguments":{"path":"a.txt"}}],
        "api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","responseId":"msg_1",
        "usage":{"input":1200,"output":80,"cacheRead":0,"cacheWrite":0,"totalTokens":1280,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},
        "stopReason":"toolUse","timestamp":1767225601000u64}))]
    #[case::tool_result(json!({"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"file body"}],"isError":false,"details":{},"timestamp":1767225602000u64}))]
    #[case::compaction_summary(json!({"role":"compactionSummary","summary":"s","tokensBefore":150000,"tokensAfter":20000,"firstKeptEntryId":"e5","timestamp":1}))]
    #[case::branch_summary(json!({"role":"branchSummary","summary":"s","fromId":"e2","timestamp":1}))]
    #[case::bash(json!({"role":"bashExecution","command":"ls","output":"a\nb","exitCode":0,"cancelled":false,"truncated":false,"fullOutputPath":"/tmp/x","timestamp":1}))]
    #[case::carrier(json!({"role":"custom","customType":"openclaw.runtime-context","content":"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>","display":false,"details":{"source":"openclaw-runtime-context","runtimeContextCarrier":true,"fragments":[{"kind":"runtime-instruction","text":"x"}]},"timestamp":1}))]
    #[case::unknown_fields(json!({"role":"user","content":[{"type":"text","text":"x","futureBlockField":[1,2]}],"__openclaw":{"a":1},"excludeFromContext":true,"display":{"x":1}}))]
    #[case::assistant_error(json!({"role":"assistant","content":[],"stopReason":"error","errorMessage":"prompt is too long","timestamp":5}))]
    fn round_trip(#[case] input: Value) {
        let msg: AgentMessage = serde_json::from_value(input.clone()).expect("parses");
        let back = serde_json::to_value(&msg).unwrap();
        assert_eq!(back, input);
        // byte-stable after one normalisation
        let again: AgentMessage = serde_json::from_value(back.clone()).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&back).unwrap());
    }

    #[rstest]
    #[case::tool_role(json!({"role":"tool","content":"x"}))]
    #[case::no_role(json!({"content":"x"}))]
    #[case::assistant_string_content(json!({"role":"assistant","content":7}))]
    #[case::tool_use_block(json!({"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b","input":{}}]}))]
    fn rejects_non_canonical(#[case] input: Value) {
        assert!(serde_json::from_value::<AgentMessage>(input).is_err());
    }

    #[test]
    fn carrier_detection() {
        let m: AgentMessage = serde_json::from_value(json!({"role":"custom","customType":"openclaw.runtime-context","content":"x"})).unwrap();
        assert!(m.is_runtime_context_carrier());
        assert!(!AgentMessage::user_text("x").is_runtime_context_carrier());
    }
}
