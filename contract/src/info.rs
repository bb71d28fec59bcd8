//! `ContextEngineInfo` (openclaw `src/context-engine/types.ts`, 2026.9.6).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Extra;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextEngineInfo {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Host-param projection filter (openclaw `src/context-engine/registry-contract.ts`, 2026.8.2+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_host_params: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_semantics: Option<TranscriptSemantics>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owns_compaction: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_maintenance_mode: Option<TurnMaintenanceMode>,
    /// Keys: `agent-run`, `manual-compact`, `subagent-spawn` (PR #84994).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_requirements: Option<BTreeMap<String, HostRequirement>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Values that opt an engine into durable turns (`commitTurn`, 2026.8.2+).
pub const CURRENT_TURN_FENCE_V1: &str = "before-current-turn-entry-v1";
pub const TURN_ADVANCEMENT_IDEMPOTENCY_V1: &str = "atomic-idempotent-v1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptSemantics {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_turn_fence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_advancement_idempotency: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl TranscriptSemantics {
    /// Both values declared, as `context-engine-admission.ts` requires.
    pub fn is_durable(&self) -> bool {
        self.current_turn_fence.as_deref() == Some(CURRENT_TURN_FENCE_V1)
            && self.turn_advancement_idempotency.as_deref() == Some(TURN_ADVANCEMENT_IDEMPOTENCY_V1)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TurnMaintenanceMode {
    Foreground,
    Background,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostRequirement {
    /// Capabilities: bootstrap, assemble-before-prompt, after-turn, maintain, compact,
    /// runtime-llm-complete, thread-bootstrap-projection.
    pub required_capabilities: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported_message: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ContextEngineInfo {
    pub fn new(id: &str, name: &str) -> Self {
        ContextEngineInfo {
            id: id.into(),
            name: name.into(),
            version: None,
            accepted_host_params: None,
            transcript_semantics: None,
            owns_compaction: None,
            turn_maintenance_mode: None,
            host_requirements: None,
            extra: Extra::new(),
        }
    }

    pub fn owns_compaction(&self) -> bool {
        self.owns_compaction == Some(true)
    }

    pub fn durable_turns(&self) -> bool {
        self.transcript_semantics.as_ref().is_some_and(|t| t.is_durable())
    }
}
