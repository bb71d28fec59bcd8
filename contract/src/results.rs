//! Results of every lifecycle method (openclaw `src/context-engine/types.ts`, 2026.9.6).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::message::AgentMessage;
use crate::Extra;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootstrapResult {
    pub bootstrapped: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_messages: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintainResult {
    pub changed: bool,
    pub bytes_freed: Number,
    pub rewritten_entries: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestResult {
    pub ingested: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestBatchResult {
    pub ingested_count: Number,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CommitStatus {
    Committed,
    Duplicate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommitTurnResult {
    pub status: CommitStatus,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssembleResult {
    pub messages: Vec<AgentMessage>,
    /// Must be finite and non-negative; JS `NaN` arrives as `null` and fails to parse.
    pub estimated_tokens: Number,
    /// `assembled` (default) | `preassembly_may_overflow` (2026.5.7+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_authority: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_addition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_projection: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompactResult {
    pub ok: bool,
    pub compacted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CompactDetails>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompactDetails {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    pub tokens_before: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_target: Option<Value>,
    /// Deprecated in 2026.8.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A rollback function returned by `prepareSubagentSpawn`, encoded as a handle
/// the host calls `rollback` on. The result of `prepareSubagentSpawn` is either
/// `null` or `{"rollback": {"$handle": "<id>"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RollbackHandle {
    #[serde(rename = "$handle")]
    pub id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PrepareSubagentSpawnResult {
    pub rollback: RollbackHandle,
    #[serde(flatten)]
    pub extra: Extra,
}

impl AssembleResult {
    pub fn estimated_tokens_f64(&self) -> f64 {
        self.estimated_tokens.as_f64().unwrap_or(f64::NAN)
    }
}
