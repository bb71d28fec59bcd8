//! Params of every lifecycle method (openclaw `src/context-engine/types.ts`,
//! 2026.9.6, plus the RFC #82137 assemble fields used by the `rfc-82137` profile).
//!
//! Non-JSON values use the encodings of protocol v1 (see `docs/protocol.md`):
//! `availableTools` Set → array; `abortSignal` → [`AbortSignalRef`];
//! functions inside `runtimeContext` → [`CallbackRef`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events::AgentInternalEvent;
use crate::message::AgentMessage;
use crate::provenance::InputProvenance;
use crate::settings::RuntimeSettings;
use crate::Extra;

/// Keys the host adds to params; an engine with `info.acceptedHostParams` only
/// receives the listed ones (openclaw `src/context-engine/registry-contract.ts`).
pub const HOST_PARAM_KEYS: [&str; 6] =
    ["sessionKey", "prompt", "runtimeSettings", "sessionTarget", "runtimeContext", "abortSignal"];

/// An `AbortSignal`, encoded as `{"$abortSignal": "<id>"}`. The host sends the
/// notification `$/abort {"signal": id, "reason": …}` when it fires.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AbortSignalRef {
    #[serde(rename = "$abortSignal")]
    pub id: String,
}

/// A host function inside `runtimeContext`, encoded as `{"$callback": "<name>"}`.
/// The engine calls it by sending the request `host/<name>` (see protocol).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CallbackRef {
    #[serde(rename = "$callback")]
    pub name: String,
}


#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootstrapParams {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_target: Option<Value>,
    pub session_file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_settings: Option<RuntimeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_context: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintainParams {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_target: Option<Value>,
    pub session_file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_settings: Option<RuntimeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_context: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_signal: Option<AbortSignalRef>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestParams {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    pub message: AgentMessage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_heartbeat: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestBatchParams {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    pub messages: Vec<AgentMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_heartbeat: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AfterTurnParams {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_target: Option<Value>,
    pub session_file: String,
    pub messages: Vec<AgentMessage>,
    /// `messages[prePromptMessageCount..]` is the new turn.
    pub pre_prompt_message_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_compaction_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_heartbeat: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_settings: Option<RuntimeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_context: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A transcript entry anchor (fields seen in openclaw
/// `src/agents/harness/context-engine-turn-attempt.test.ts`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptEntryAnchor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    pub entry_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_parent_id: Option<String>,
    pub active_message_position: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptTurnAdmission {
    pub logical_turn_id: String,
    /// Always `"user"`.
    pub role: String,
    #[serde(flatten)]
    pub anchor: TranscriptEntryAnchor,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommitTurnParams {
    /// `= admission.logicalTurnId`.
    pub advancement_key: String,
    pub admission: TranscriptTurnAdmission,
    pub terminal: TranscriptEntryAnchor,
    /// The closed range [admitted user … terminal].
    pub messages: Vec<AgentMessage>,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_target: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_settings: Option<RuntimeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_context: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_heartbeat: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssembleParams {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    pub messages: Vec<AgentMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// A JS `Set<string>` in OpenClaw; an array here, sorted as the host built it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_settings: Option<RuntimeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_context: Option<Value>,
    /// RFC #82137 (not shipped in any release): where the live turn starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_prompt_message_count: Option<u64>,
    /// RFC #82137: aligned with `messages` by index (`null` = unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_provenance: Option<Vec<Option<InputProvenance>>>,
    /// RFC #82137: aligned with `messages` by index (`null` = none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_events: Option<Vec<Option<Vec<AgentInternalEvent>>>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CompactionTarget {
    Budget,
    Threshold,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompactParams {
    pub session_id: String,
    /// Required since 2026.8.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    /// Present (and required) up to 2026.7.x; dropped in 2026.8.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_target: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_token_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_target: Option<CompactionTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_settings: Option<RuntimeSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_context: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_signal: Option<AbortSignalRef>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrepareSubagentSpawnParams {
    pub parent_session_key: String,
    pub child_session_key: String,
    /// `isolated|fork`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_session_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnSubagentEndedParams {
    pub child_session_key: String,
    /// `deleted|completed|swept|released`
    pub reason: String,
    /// The host also spreads `agentDir`, `workspaceDir` into the object.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `rollback` on a handle returned by `prepareSubagentSpawn`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RollbackParams {
    pub handle: String,
}

/// Drop host keys the engine did not declare (openclaw
/// `src/context-engine/registry-contract.ts`: compact's `abortSignal` always kept).
pub fn project_host_params(method: &str, params: &mut Value, accepted: &[String]) {
    let Some(obj) = params.as_object_mut() else { return };
    for key in HOST_PARAM_KEYS {
        if method == "compact" && key == "abortSignal" {
            continue;
        }
        if !accepted.iter().any(|a| a == key) {
            obj.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn projection_keeps_declared_and_compact_abort() {
        let mut p = json!({"sessionId":"s","sessionKey":"k","prompt":"p","abortSignal":{"$abortSignal":"a1"},"messages":[]});
        project_host_params("compact", &mut p, &["sessionKey".into()]);
        assert_eq!(p, json!({"sessionId":"s","sessionKey":"k","abortSignal":{"$abortSignal":"a1"},"messages":[]}));
        let mut p = json!({"sessionId":"s","abortSignal":{"$abortSignal":"a1"}});
        project_host_params("maintain", &mut p, &[]);
        assert_eq!(p, json!({"sessionId":"s"}));
    }

    #[test]
    fn assemble_params_round_trip_with_unknown_fields() {
        let v = json!({"sessionId":"s","sessionKey":"agent:main:main","messages":[{"role":"user","content":"hi"}],
            "tokenBudget":1000,"availableTools":["exec","read"],"model":"m","prompt":"hi",
            "prePromptMessageCount":0,"inputProvenance":[null],"internalEvents":[null],"futureParam":{"x":1}});
        let p: AssembleParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }
}
