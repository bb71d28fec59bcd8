//! Input provenance (openclaw `src/sessions/input-provenance.ts`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Extra;

/// `INTERNAL_PROVENANCE_SOURCE_CHANNEL` (openclaw `src/sessions/input-provenance.ts`,
/// PR #128165 replaced the old "webchat" sentinel).
pub const INTERNAL_PROVENANCE_SOURCE_CHANNEL: &str = "internal";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProvenanceKind {
    ExternalUser,
    InterSession,
    InternalSystem,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputProvenance {
    pub kind: ProvenanceKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_channel: Option<String>,
    /// Known tools: sessions_send, sessions_spawn, subagent_announce, subagent_settle,
    /// subagent_interrupted_resume, exec_approval_followup, agent_harness_task,
    /// image_generate, music_generate, video_generate, main_session_restart_recovery,
    /// progress_card_refresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_tool: Option<String>,
    /// Only `"subagent"` is used by OpenClaw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_prompt_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl InputProvenance {
    /// `{kind: "internal_system", sourceTool}` (openclaw 2026.9.6
    /// `src/auto-reply/internal-turn-source.ts`, heartbeat/cron/exec wakes).
    pub fn internal_system(source_tool: &str) -> Self {
        InputProvenance { kind: ProvenanceKind::InternalSystem, source_channel: None, source_session_key: None, ..InputProvenance::inter_session("", source_tool) }
    }

    pub fn inter_session(source_session_key: &str, source_tool: &str) -> Self {
        InputProvenance {
            kind: ProvenanceKind::InterSession,
            origin_session_id: None,
            source_session_key: Some(source_session_key.to_string()),
            source_channel: Some(INTERNAL_PROVENANCE_SOURCE_CHANNEL.to_string()),
            source_tool: Some(source_tool.to_string()),
            source_role: None,
            source_prompt_prefix: None,
            job_id: None,
            run_id: None,
            extra: Extra::new(),
        }
    }
}
