//! Internal events (openclaw `src/agents/internal-event-contract.ts`); only
//! `task_completion` exists.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Extra;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum AgentInternalEvent {
    #[serde(rename = "task_completion")]
    TaskCompletion(TaskCompletionEvent),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskCompletionSource {
    Subagent,
    Cron,
    ImageGeneration,
    VideoGeneration,
    MusicGeneration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Ok,
    Timeout,
    Error,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskCompletionEvent {
    pub source: TaskCompletionSource,
    pub child_session_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_session_id: Option<String>,
    pub announce_type: String,
    pub task_label: String,
    pub status: TaskStatus,
    pub status_label: String,
    pub result: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_visible_result: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_route_change: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_urls: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats_line: Option<String>,
    pub reply_instruction: String,
    #[serde(flatten)]
    pub extra: Extra,
}
