//! `runtimeSettings` schemaVersion 1 as `buildContextEngineRuntimeSettings`
//! builds it (openclaw `src/context-engine/runtime-settings.ts`, 2026.6.11+).

use clawspec_contract::*;

pub struct SettingsInput<'a> {
    pub provider: &'a str,
    pub requested_model: &'a str,
    pub resolved_model: &'a str,
    pub engine_id: &'a str,
    /// `limits` differ per hook (see `Limits` at the call sites).
    pub prompt_token_budget: Option<u64>,
    pub reserve_tokens: Option<u64>,
    pub fallback_reason: Option<&'a str>,
    pub degraded_reason: Option<&'a str>,
}

/// mode = degraded if degradedReason, else fallback if fallbackReason or
/// requested ≠ resolved, else normal; `family` is never derived from the model
/// id (`context-engine-lifecycle.test.ts`).
pub fn build(i: &SettingsInput<'_>) -> RuntimeSettings {
    let mode = if i.degraded_reason.is_some() {
        "degraded"
    } else if i.fallback_reason.is_some() || i.requested_model != i.resolved_model {
        "fallback"
    } else {
        "normal"
    };
    RuntimeSettings {
        schema_version: 1,
        runtime: RuntimeSection {
            host: "openclaw".into(),
            mode: mode.into(),
            // The embedded runner resolves no harness/runtime id (null on
            // every hook of a gateway turn on the real 2026.9.6 host; seen by
            // `clawspec twin`, docs/fidelity.md).
            harness_id: None,
            runtime_id: None,
        },
        model: ModelSection {
            requested: Some(i.requested_model.into()),
            resolved: Some(i.resolved_model.into()),
            provider: Some(i.provider.into()),
            family: None,
        },
        context_engine_selection: EngineSelection { selected_id: Some(i.engine_id.into()), source: "configured".into() },
        execution_host: ExecutionHost { id: Some("openclaw-embedded".into()), label: Some("OpenClaw embedded runner".into()) },
        limits: Limits { prompt_token_budget: i.prompt_token_budget, max_output_tokens: i.reserve_tokens },
        diagnostics: Diagnostics {
            fallback_reason: i.fallback_reason.map(normalize_reason),
            degraded_reason: i.degraded_reason.map(normalize_reason),
        },
        extra: Extra::new(),
    }
}

/// Reasons are normalised to a closed set (same file).
pub fn normalize_reason(r: &str) -> String {
    let l = r.to_ascii_lowercase();
    let v = if l.contains("overflow") || l.contains("too long") {
        "context_overflow"
    } else if l.contains("timeout") || l.contains("timed out") {
        "provider_timeout"
    } else if l.contains("rate") || l.contains("429") {
        "rate_limited"
    } else if l.contains("unavailable") || l.contains("503") {
        "provider_unavailable"
    } else if l.contains("runtime") {
        "runtime_unavailable"
    } else {
        "unknown"
    };
    v.into()
}
