//! The 2026.9.6 shape of a run's recovery compaction (overflow, timeout) and
//! the maintain(compaction) after it.
//!
//! openclaw 2026.9.6 dist embedded-agent-*.mjs `compactEmbeddedRunForRecovery`
//! builds one `runtimeContext` — the run's compaction context
//! (context-engine-maintenance-*.mjs `buildEmbeddedCompactionRuntimeContext`),
//! the host capabilities (`llm`), the attempt's `promptCache`, then `runId`,
//! `trigger`, `currentTokenCount`, `diagId`, `attempt`, `maxAttempts` — and
//! passes that same context and its runtimeSettings to the maintain after a
//! successful compaction (`runContextEngineMaintenance({… reason:
//! "compaction", runtimeContext: compaction.runtimeContext, runtimeSettings:
//! compaction.runtimeSettings})`, which adds `sessionTarget` and
//! `rewriteTranscriptEntries`). Twinned on the real host (`clawspec twin
//! overflow-mid-turn`).

use clawspec_contract::AgentMessage;
use serde_json::{json, Map, Value};

use super::Sim;

/// Triggers of a run's recovery compaction (not `/compact`, not maintenance).
pub fn is_recovery_trigger(trigger: &str) -> bool {
    matches!(trigger, "overflow" | "timeout_recovery" | "budget")
}

impl Sim<'_> {
    /// `buildEmbeddedCompactionRuntimeContext` of a gateway WebChat run plus
    /// the capabilities: the attempt context without what that builder does
    /// not copy (`cwd` is not a run param, the transcript storage and token
    /// budget are after-turn fields), with the run's client caps, chat type
    /// and reply delivery mode ("automatic", the stable default:
    /// agent-runner.runtime-*.mjs `initialMode: … ?? "automatic"`).
    pub fn recovery_compaction_context(&self) -> Map<String, Value> {
        let mut c = Map::new();
        c.insert("sessionKey".into(), json!(self.setup.session_key));
        self.entry_context(&mut c);
        for k in ["cwd", "transcriptStorage"] {
            c.remove(k);
        }
        if !self.heartbeat_run {
            c.insert("clientCaps".into(), json!([]));
            c.insert("chatType".into(), json!("direct"));
        }
        c.insert("workspaceDir".into(), json!(self.workspace_dir()));
        c.insert("agentDir".into(), json!(self.agent_dir()));
        c.insert("provider".into(), json!(self.setup.provider));
        c.insert("model".into(), json!(self.setup.model));
        c.insert("sourceReplyDeliveryMode".into(), json!("automatic"));
        c.insert("llm".into(), super::hooks::llm_callback());
        c
    }
}

/// The attempt's prompt-cache record (builtin-openclaw-*.mjs
/// `buildContextEnginePromptCacheInfo`): the retention ("short" for the
/// Anthropic-direct family, dist extra-params-*.mjs `resolveCacheRetention`),
/// the last completed call's usage as the host normalises it and that
/// assistant's time as the cache touch; None when all are absent.
pub fn prompt_cache(provider: &str, last_call: Option<&AgentMessage>) -> Option<Value> {
    let mut p = Map::new();
    if provider == "anthropic" {
        p.insert("retention".into(), json!("short"));
    }
    if let Some(AgentMessage::Assistant(a)) = last_call {
        let u = a.usage.clone().unwrap_or(Value::Null);
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        let mut usage = json!({"input": n("input"), "output": n("output"), "cacheRead": n("cacheRead"), "cacheWrite": n("cacheWrite"),
            "cost": {"total": u["cost"]["total"].as_u64().unwrap_or(0)}, "total": n("totalTokens")});
        if let Some(cu) = u.get("contextUsage") {
            usage["contextUsage"] = cu.clone();
        }
        p.insert("lastCallUsage".into(), usage);
        if let Some(ts) = &a.timestamp {
            p.insert("lastCacheTouchAt".into(), json!(ts));
        }
    }
    (!p.is_empty()).then_some(Value::Object(p))
}

/// maintain(compaction) after a 2026.9.6 recovery compaction: the
/// compaction's own runtimeContext and runtimeSettings (module doc).
pub fn maintain_after_recovery(sim: &mut Sim<'_>, compact_params: &Value) -> Value {
    let target = sim.session_target();
    let mut ctx = compact_params["runtimeContext"].clone();
    if let Some(t) = &target {
        ctx["sessionTarget"] = t.clone();
    }
    ctx["rewriteTranscriptEntries"] = json!({"$callback": "rewriteTranscriptEntries"});
    let mut p = json!({"sessionId": sim.transcript.session_id, "sessionKey": sim.setup.session_key});
    if let Some(t) = target {
        p["sessionTarget"] = t;
    }
    p["sessionFile"] = json!(sim.session_file());
    p["runtimeContext"] = ctx;
    if let Some(s) = compact_params.get("runtimeSettings") {
        p["runtimeSettings"] = s.clone();
    }
    p["abortSignal"] = json!({"$abortSignal": sim.ids.next("sig")});
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(usage: Value) -> AgentMessage {
        serde_json::from_value(json!({"role": "assistant", "content": [], "usage": usage, "timestamp": 1234})).unwrap()
    }

    #[test]
    fn prompt_cache_follows_the_last_completed_call() {
        // No completed call: only the retention (Anthropic), nothing elsewhere.
        assert_eq!(prompt_cache("anthropic", None), Some(json!({"retention": "short"})));
        assert_eq!(prompt_cache("google", None), None);
        let a = assistant(json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "contextUsage": {"state": "unavailable"},
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}));
        // The real host's record after a tool-call reply (twin overflow-mid-turn).
        assert_eq!(
            prompt_cache("anthropic", Some(&a)),
            Some(json!({"retention": "short", "lastCacheTouchAt": 1234,
                "lastCallUsage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0}, "contextUsage": {"state": "unavailable"}, "total": 0}}))
        );
    }

    #[test]
    fn recovery_triggers() {
        assert!(is_recovery_trigger("overflow") && is_recovery_trigger("timeout_recovery"));
        assert!(!is_recovery_trigger("manual"));
    }
}
