//! 2026.4.26: pi's `AgentSession` recovers a context overflow inside the
//! attempt, before OpenClaw's run loop sees it, whenever the engine does not
//! own compaction (`Profile::pi_session_recovery`).
//!
//! - OpenClaw leaves pi's auto-compaction on unless `info.ownsCompaction` is
//!   true (openclaw dist/pi-settings-*.js `shouldDisablePiAutoCompaction`,
//!   applied in selection-*.js `applyPiAutoCompactionGuard`).
//! - On an overflow error pi keeps the error assistant in the session, drops
//!   it from the agent's messages, compacts and retries once per prompt
//!   (@mariozechner/pi-coding-agent 0.70.2 dist/core/agent-session.js
//!   `_checkCompaction` case 1, `_overflowRecoveryAttempted`,
//!   `_runAutoCompaction("overflow", true)` → `agent.continue()`).
//! - The compaction (dist/core/compaction/compaction.js `prepareCompaction`,
//!   `findCutPoint`, `compact`; the arithmetic is runtime::pi_compaction,
//!   shared with the delegated /compact of runtime::compact::Builtin2026_4): `keepRecentTokens` 20 000 (pi's default,
//!   OpenClaw configures none) decides the first kept entry; the summary is
//!   the model's answer to the summarisation call, the same model the turn
//!   uses, so it takes the turn's next scripted reply (the mock answers in
//!   order; with none left, its unscripted "ok"); `tokensBefore` is
//!   `estimateContextTokens` of the session context. The agent's messages
//!   become the session context `[compactionSummary, kept…]` without the
//!   error, so the engine's afterTurn/ingest sees the summary message
//!   (`{role, summary, tokensBefore, timestamp}`) and the same
//!   `prePromptMessageCount` as before.
//! - The engine's `compact` is not called (OpenClaw's run loop sees a
//!   successful attempt), and no assemble runs for the retry.
//!
//! Twinned on the real 2026.4.26 gateway (`clawspec twin
//! overflow-scripted-recover --keep`, both engines): provider requests
//! overflow → summarisation (`<conversation>…</conversation>`, pi's
//! structured checkpoint prompt) → retry with the summary; the session file
//! holds the error assistant, then the compaction entry.

use std::collections::VecDeque;

use clawspec_contract::Msg;
use clawspec_contract::{AgentMessage, CompactionSummaryMessage, Extra};
use serde_json::json;

use super::Sim;
use crate::scenario::model::{ModelErrorKind, ModelReply};

use super::pi_compaction::KEEP_RECENT_TOKENS;
/// What the mock provider answers a call its step scripts no reply for
/// (mock-providers/src/server.rs: `{"text": "ok"}`).
pub use super::compact::UNSCRIPTED_REPLY;

/// The reply a model call of the turn gets once pi's recovery has made calls
/// the scenario did not script: the next scripted one, else the mock's
/// unscripted answer.
pub fn next_reply(script: &mut VecDeque<ModelReply>) -> ModelReply {
    script.pop_front().unwrap_or_else(|| ModelReply::Text(UNSCRIPTED_REPLY.into()))
}

/// pi's `retry.maxRetries` default (settings-manager.js `getRetrySettings`).
pub const MAX_RETRIES: u32 = 3;

/// pi retries a provider error itself when its text looks transient
/// (agent-session.js `_isRetryableError`: overloaded, rate limit, 429, 5xx,
/// server/internal error, …; overflow never). The Anthropic SDK's own two
/// retries happen first and meet the same scripted failure
/// (mock-providers `scripted::retried_failure`); the mock's errors are
/// `429 {…rate_limit_error…}` and `500 {…api_error…}`, both retryable. Twin of
/// provider-error-surfaced (--keep): three 429s, the error assistant in the
/// session, then the retry's answer.
pub fn retryable(f: &super::model::ModelFailure) -> bool {
    !f.rejected && matches!(f.kind, ModelErrorKind::RateLimit | ModelErrorKind::Other)
}

use super::pi_compaction::estimate_context_tokens;

/// The error text pi records for a provider's HTTP error: the status, then
/// the body (@anthropic-ai/sdk `APIError.makeMessage`), as the real session
/// file holds it for the mock's overflow answer.
pub fn anthropic_error_text(kind: ModelErrorKind, message: &str) -> String {
    let (status, ty) = match kind {
        ModelErrorKind::Overflow | ModelErrorKind::InvalidSignature => (400, "invalid_request_error"),
        ModelErrorKind::RateLimit => (429, "rate_limit_error"),
        _ => (500, "api_error"),
    };
    format!("{status} {}", json!({"type": "error", "error": {"type": ty, "message": message}, "request_id": "req_mock"}))
}

/// The assistant pi records for a failed call: no content, zero usage,
/// `stopReason: "error"` (pi-ai providers/anthropic.js catch branch).
pub fn error_assistant(sim: &Sim<'_>, error: &str, ts: u64) -> AgentMessage {
    serde_json::from_value(json!({
        "role": "assistant", "content": [], "api": sim.setup.api, "provider": sim.setup.provider, "model": sim.setup.model,
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "error", "timestamp": ts, "errorMessage": error,
    }))
    .expect("an assistant message")
}

/// A compaction that ends without a retry (failed, or refused as a second
/// overflow recovery) makes OpenClaw zero the usage of every assistant in
/// the agent's messages, in place (openclaw dist selection-*.js
/// `handleCompactionEnd` → `clearStaleAssistantUsageOnSessionMessages`,
/// usage-*.js `makeZeroUsageSnapshot`); the attempt's afterTurn sees them so
/// (twin of overflow-three-compactions on builtin:window: the assembled
/// 870-token usages come back as zeros).
pub fn clear_stale_assistant_usage(all: &mut [Msg]) {
    for m in all.iter_mut().filter(|m| matches!(***m, AgentMessage::Assistant(_))) {
        if let AgentMessage::Assistant(a) = m.make_mut() {
            a.usage = Some(json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}));
        }
    }
}

/// The summary text the summarisation call(s) get, or the failure that ends
/// the compaction. A split turn asks twice (history, then turn prefix, in
/// `Promise.all` order); an empty history is "No prior history." without a call.
fn summarise(script: &mut VecDeque<ModelReply>, history_empty: bool, split: bool) -> Result<String, String> {
    let mut ask = || match next_reply(script) {
        ModelReply::Text(t) => Ok(t),
        ModelReply::Full(s) => match &s.error {
            Some(e) => Err(e.message.clone().unwrap_or_else(|| format!("{:?}", e.kind))),
            None => Ok(s.text.clone().unwrap_or_default()),
        },
    };
    if split {
        let history = if history_empty { "No prior history.".to_string() } else { ask()? };
        let prefix = ask()?;
        Ok(format!("{history}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix}"))
    } else {
        ask()
    }
}

/// pi's overflow auto-compaction after the failed call (the error assistant
/// is already persisted). On success the transcript holds the compaction
/// and `all` is the agent's new message list; `false` when the compaction
/// failed ("Context overflow recovery failed: …"), which leaves the error
/// for OpenClaw's run loop.
pub fn overflow_compaction(sim: &mut Sim<'_>, all: &mut Vec<Msg>, script: &mut VecDeque<ModelReply>) -> bool {
    let from = sim.transcript.context_start();
    // The previous compaction's summary leads the context; what it keeps follows.
    let boundary = sim.transcript.entries[from..].iter().rposition(|e| matches!(*e.message, AgentMessage::CompactionSummary(_))).map_or(from, |i| from + i + 1);
    let context: Vec<AgentMessage> = sim.transcript.entries[from..].iter().filter(|e| !e.abandoned).map(|e| (*e.message).clone()).collect();
    let tokens_before = estimate_context_tokens(&context);
    let live: Vec<usize> = (boundary..sim.transcript.entries.len()).filter(|&i| !sim.transcript.entries[i].abandoned).collect();
    let compactable: Vec<AgentMessage> = live.iter().map(|&i| (*sim.transcript.entries[i].message).clone()).collect();
    // The same `findCutPoint` as a delegated compaction (runtime::pi_compaction).
    let point = super::pi_compaction::find_cut_point(&compactable, 0, KEEP_RECENT_TOKENS);
    let (cut, split) = (point.first_kept, point.splits());
    let history_empty = point.history_end() == 0;
    let summary = match summarise(script, history_empty, split) {
        Ok(s) => s,
        Err(e) => {
            sim.note("pi-compaction-failed", format!("Context overflow recovery failed: {e}"));
            return false;
        }
    };
    let first_kept = live.get(cut).copied().unwrap_or(sim.transcript.entries.len());
    let ts = sim.clock.tick();
    let message = AgentMessage::CompactionSummary(CompactionSummaryMessage {
        summary: summary.clone(),
        tokens_before: tokens_before.into(),
        tokens_after: None,
        first_kept_entry_id: None,
        timestamp: Some(ts.into()),
        extra: Extra::new(),
    });
    // The reference keeps a compacted session as [summary, kept…].
    let kept: Vec<_> = sim.transcript.entries.drain(first_kept..).collect();
    sim.transcript.entries.truncate(from);
    sim.transcript.append(message, ts);
    for e in kept {
        sim.transcript.append(e.message, e.timestamp);
    }
    sim.rewrites += 1;
    sim.transcript.rewritten();
    sim.flush();
    sim.note("pi-overflow-compaction", format!("pi auto-compaction after a context overflow: {tokens_before} tokens before; retrying"));
    // The agent continues from the session context, without the error.
    let mut messages: Vec<Msg> = sim.transcript.entries[from..].iter().filter(|e| !e.abandoned).map(|e| e.message.clone()).collect();
    if matches!(messages.last().map(|m| &**m), Some(AgentMessage::Assistant(a)) if a.stop_reason.as_deref() == Some("error")) {
        messages.pop();
    }
    *all = messages;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_retries_rate_limits_and_server_errors_but_not_overflows_or_rejections() {
        let f = |kind, rejected| super::super::model::ModelFailure { kind, rejected, message: String::new(), observed_tokens: None };
        assert!(retryable(&f(ModelErrorKind::RateLimit, false)));
        assert!(retryable(&f(ModelErrorKind::Other, false)));
        assert!(!retryable(&f(ModelErrorKind::Overflow, false)));
        assert!(!retryable(&f(ModelErrorKind::Timeout, false)), "an idle timeout is the run loop's (aborted, not an error)");
        assert!(!retryable(&f(ModelErrorKind::Other, true)), "a request the provider rejects is not transient");
    }

    #[test]
    fn the_recorded_error_is_the_sdks_status_and_body() {
        // As the real session file holds it (twin overflow-scripted-recover --keep).
        assert_eq!(
            anthropic_error_text(ModelErrorKind::Overflow, "prompt is too long: 24001 tokens > 24000 maximum"),
            r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 24001 tokens > 24000 maximum"},"request_id":"req_mock"}"#
        );
        assert!(anthropic_error_text(ModelErrorKind::RateLimit, "x").starts_with(r#"429 {"type":"error","error":{"type":"rate_limit_error""#));
    }

    #[test]
    fn a_compaction_without_retry_zeroes_every_assistant_usage() {
        let mut ms: Vec<Msg> = vec![
            serde_json::from_value(json!({"role": "user", "content": "q"})).unwrap(),
            serde_json::from_value(json!({"role": "assistant", "content": [], "stopReason": "stop", "usage": {"input": 3, "output": 870, "totalTokens": 873}})).unwrap(),
        ];
        clear_stale_assistant_usage(&mut ms);
        let AgentMessage::Assistant(a) = &*ms[1] else { unreachable!() };
        assert_eq!(a.usage.as_ref().unwrap()["totalTokens"], 0);
        assert_eq!(a.usage.as_ref().unwrap()["cost"]["total"], 0);
        assert!(matches!(*ms[0], AgentMessage::User(_)));
    }

    #[test]
    fn an_exhausted_script_gets_the_mocks_unscripted_answer() {
        let mut script: VecDeque<ModelReply> = vec![ModelReply::Text("a".into())].into();
        assert_eq!(next_reply(&mut script), ModelReply::Text("a".into()));
        assert_eq!(next_reply(&mut script), ModelReply::Text(UNSCRIPTED_REPLY.into()));
    }
}
