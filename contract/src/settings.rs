//! `ContextEngineRuntimeSettings` schemaVersion 1
//! (openclaw `src/context-engine/runtime-settings.ts`, since 2026.6.11). Unknowns are `null`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Extra;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeSettings {
    pub schema_version: u32,
    pub runtime: RuntimeSection,
    pub model: ModelSection,
    pub context_engine_selection: EngineSelection,
    pub execution_host: ExecutionHost,
    pub limits: Limits,
    pub diagnostics: Diagnostics,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeSection {
    pub host: String,
    /// `normal|fallback|degraded`
    pub mode: String,
    pub harness_id: Option<String>,
    pub runtime_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelSection {
    pub requested: Option<String>,
    pub resolved: Option<String>,
    pub provider: Option<String>,
    /// Never derived from the model id (context-engine-lifecycle.test.ts).
    pub family: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineSelection {
    pub selected_id: Option<String>,
    /// `configured|default|unknown`
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionHost {
    pub id: Option<String>,
    pub label: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    pub prompt_token_budget: Option<u64>,
    /// = compaction reserve tokens.
    pub max_output_tokens: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostics {
    pub fallback_reason: Option<String>,
    pub degraded_reason: Option<String>,
}
