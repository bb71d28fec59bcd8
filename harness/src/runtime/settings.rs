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
            fallback_reason: i.fallback_reason.and_then(normalize_reason),
            degraded_reason: i.degraded_reason.and_then(normalize_reason),
        },
        extra: Extra::new(),
    }
}

/// The closed set of reason codes (2026.9.6 dist context-engine-lifecycle-*.mjs
/// `RUNTIME_REASON_CODES`).
pub const REASON_CODES: &[&str] = &["provider_timeout", "provider_unavailable", "rate_limited", "context_overflow", "runtime_unavailable", "unknown"];

/// `normalizeReasonCode` (same file): trimmed, empty ⇒ null, a known code is
/// kept, else the first of `RUNTIME_REASON_PATTERNS` that matches
/// (case-insensitive substrings), else `unknown`. Audit item 14: the order is
/// the host's (timeout before overflow), and only these words count.
pub fn normalize_reason(r: &str) -> Option<String> {
    let t = r.trim();
    if t.is_empty() {
        return None;
    }
    if REASON_CODES.contains(&t) {
        return Some(t.to_string());
    }
    let l = t.to_lowercase();
    let patterns: [(&str, &[&str]); 5] = [
        ("provider_timeout", &["timeout"]),
        ("rate_limited", &["rate", "limit", "429"]),
        ("context_overflow", &["overflow", "context", "pressure"]),
        ("runtime_unavailable", &["runtime"]),
        ("provider_unavailable", &["provider", "primary", "unavailable"]),
    ];
    let code = patterns.iter().find(|(_, words)| words.iter().any(|w| l.contains(w))).map_or("unknown", |(c, _)| c);
    Some(code.to_string())
}

#[cfg(test)]
mod tests {
    use super::normalize_reason;
    use rstest::rstest;

    #[rstest]
    #[case("context_overflow", Some("context_overflow"))]
    #[case("  provider_timeout ", Some("provider_timeout"))]
    #[case("", None)]
    #[case("   ", None)]
    #[case("LLM request Timeout after 60s", Some("provider_timeout"))]
    // No "timeout" substring: the host does not read "timed out" as a timeout.
    #[case("request timed out", Some("unknown"))]
    #[case("HTTP 429", Some("rate_limited"))]
    #[case("context window pressure", Some("context_overflow"))]
    // Order matters: "limit" is checked before "context".
    #[case("context limit exceeded", Some("rate_limited"))]
    #[case("prompt too long", Some("unknown"))]
    #[case("503 Service Unavailable", Some("provider_unavailable"))]
    #[case("runtime went away", Some("runtime_unavailable"))]
    #[case("primary model failed", Some("provider_unavailable"))]
    fn reasons_normalise_as_the_host_does(#[case] raw: &str, #[case] code: Option<&str>) {
        assert_eq!(normalize_reason(raw).as_deref(), code);
    }
}
