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
//!   `findCutPoint`, `compact`): `keepRecentTokens` 20 000 (pi's default,
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

use clawspec_contract::{AgentMessage, CompactionSummaryMessage, Extra};
use serde_json::{json, Value};

use super::Sim;
use crate::scenario::model::{ModelErrorKind, ModelReply};

/// pi's `DEFAULT_COMPACTION_SETTINGS.keepRecentTokens` (settings-manager.js).
pub const KEEP_RECENT_TOKENS: u64 = 20_000;
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

/// JS `string.length`: UTF-16 code units.
fn js_len(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

/// pi's `estimateTokens` (compaction.js): ⌈chars/4⌉ of the text a message carries.
pub fn estimate_tokens(m: &AgentMessage) -> u64 {
    let v = serde_json::to_value(m).unwrap_or(Value::Null);
    let text_blocks = |c: &Value| -> u64 {
        match c {
            Value::String(s) => js_len(s),
            Value::Array(bs) => bs
                .iter()
                .map(|b| match b["type"].as_str() {
                    Some("text") => b["text"].as_str().map_or(0, js_len),
                    Some("image") => 4800,
                    _ => 0,
                })
                .sum(),
            _ => 0,
        }
    };
    let chars = match v["role"].as_str() {
        Some("user") => match &v["content"] {
            Value::String(s) => js_len(s),
            Value::Array(bs) => bs.iter().filter(|b| b["type"] == "text").map(|b| b["text"].as_str().map_or(0, js_len)).sum(),
            _ => 0,
        },
        Some("assistant") => v["content"]
            .as_array()
            .map(|bs| {
                bs.iter()
                    .map(|b| match b["type"].as_str() {
                        Some("text") => b["text"].as_str().map_or(0, js_len),
                        Some("thinking") => b["thinking"].as_str().map_or(0, js_len),
                        Some("toolCall") => b["name"].as_str().map_or(0, js_len) + js_len(&b["arguments"].to_string()),
                        _ => 0,
                    })
                    .sum()
            })
            .unwrap_or(0),
        Some("custom") | Some("toolResult") => text_blocks(&v["content"]),
        Some("compactionSummary") | Some("branchSummary") => v["summary"].as_str().map_or(0, js_len),
        _ => 0,
    };
    chars.div_ceil(4)
}

/// pi's `calculateContextTokens` of an assistant that did not end in
/// `error`/`aborted`: `totalTokens || input + output + cacheRead + cacheWrite`.
pub(super) fn usage_tokens(m: &AgentMessage) -> Option<u64> {
    let AgentMessage::Assistant(a) = m else { return None };
    if matches!(a.stop_reason.as_deref(), Some("error" | "aborted")) {
        return None;
    }
    let u = a.usage.as_ref()?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(match n("totalTokens") {
        0 => n("input") + n("output") + n("cacheRead") + n("cacheWrite"),
        t => t,
    })
}

/// pi's `estimateContextTokens`: the last valid usage plus estimates of what
/// follows it; with no usage, the estimate of everything.
pub fn estimate_context_tokens(ms: &[AgentMessage]) -> u64 {
    match ms.iter().enumerate().rev().find_map(|(i, m)| usage_tokens(m).map(|u| (i, u))) {
        Some((i, u)) => u + ms[i + 1..].iter().map(estimate_tokens).sum::<u64>(),
        None => ms.iter().map(estimate_tokens).sum(),
    }
}

/// pi's `findCutPoint` over the compactable messages `ms` (the entries after
/// the previous compaction's kept boundary): the index of the first kept
/// message, and whether the cut splits a turn (cut at a non-user message).
/// Tool results are never a cut point; summaries are not walked.
pub fn cut_point(ms: &[AgentMessage], keep_recent: u64) -> (usize, bool) {
    let valid = |m: &AgentMessage| !matches!(m, AgentMessage::ToolResult(_) | AgentMessage::CompactionSummary(_));
    let cuts: Vec<usize> = (0..ms.len()).filter(|&i| valid(&ms[i])).collect();
    let Some(&first) = cuts.first() else { return (0, false) };
    let mut acc = 0;
    let mut cut = first;
    for i in (0..ms.len()).rev() {
        if matches!(ms[i], AgentMessage::CompactionSummary(_)) {
            continue;
        }
        acc += estimate_tokens(&ms[i]);
        if acc >= keep_recent {
            if let Some(&c) = cuts.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    let split = !matches!(ms[cut], AgentMessage::User(_) | AgentMessage::Custom(_));
    (cut, split)
}

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
pub fn overflow_compaction(sim: &mut Sim<'_>, all: &mut Vec<AgentMessage>, script: &mut VecDeque<ModelReply>) -> bool {
    let from = sim.transcript.context_start();
    // The previous compaction's summary leads the context; what it keeps follows.
    let boundary = sim.transcript.entries[from..].iter().rposition(|e| matches!(e.message, AgentMessage::CompactionSummary(_))).map_or(from, |i| from + i + 1);
    let context: Vec<AgentMessage> = sim.transcript.entries[from..].iter().filter(|e| !e.abandoned).map(|e| e.message.clone()).collect();
    let tokens_before = estimate_context_tokens(&context);
    let live: Vec<usize> = (boundary..sim.transcript.entries.len()).filter(|&i| !sim.transcript.entries[i].abandoned).collect();
    let compactable: Vec<AgentMessage> = live.iter().map(|&i| sim.transcript.entries[i].message.clone()).collect();
    let (cut, split) = cut_point(&compactable, KEEP_RECENT_TOKENS);
    let turn_start = if split { compactable[..cut].iter().rposition(|m| matches!(m, AgentMessage::User(_) | AgentMessage::Custom(_))) } else { None };
    let split = split && turn_start.is_some_and(|t| t < cut);
    let history_empty = turn_start.unwrap_or(cut) == 0;
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
    sim.transcript.generation += 1;
    sim.rewrites += 1;
    sim.transcript.rewritten();
    sim.flush();
    sim.note("pi-overflow-compaction", format!("pi auto-compaction after a context overflow: {tokens_before} tokens before; retrying"));
    // The agent continues from the session context, without the error.
    let mut messages: Vec<AgentMessage> = sim.transcript.entries[from..].iter().filter(|e| !e.abandoned).map(|e| e.message.clone()).collect();
    if matches!(messages.last(), Some(AgentMessage::Assistant(a)) if a.stop_reason.as_deref() == Some("error")) {
        messages.pop();
    }
    *all = messages;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(v: Value) -> AgentMessage {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn estimates_count_utf16_chars_over_four_rounded_up() {
        assert_eq!(estimate_tokens(&msg(json!({"role": "user", "content": "abcde"}))), 2);
        assert_eq!(estimate_tokens(&msg(json!({"role": "user", "content": [{"type": "text", "text": "é😀"}]}))), 1);
        let call = msg(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": "read", "arguments": {"path": "a"}}]}));
        assert_eq!(estimate_tokens(&call), (4 + r#"{"path":"a"}"#.len() as u64).div_ceil(4));
        assert_eq!(estimate_tokens(&msg(json!({"role": "compactionSummary", "summary": "ok", "tokensBefore": 1}))), 1);
    }

    #[test]
    fn context_tokens_start_from_the_last_valid_usage() {
        let ms = vec![
            msg(json!({"role": "user", "content": "x".repeat(400)})),
            msg(json!({"role": "assistant", "content": [], "stopReason": "stop", "usage": {"output": 874, "totalTokens": 874}})),
            msg(json!({"role": "user", "content": "y".repeat(44)})),
            msg(json!({"role": "assistant", "content": [], "stopReason": "error", "usage": {"totalTokens": 0}})),
        ];
        assert_eq!(estimate_context_tokens(&ms), 874 + 11);
        assert_eq!(estimate_context_tokens(&ms[..1]), 100);
    }

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
    fn an_exhausted_script_gets_the_mocks_unscripted_answer() {
        let mut script: VecDeque<ModelReply> = vec![ModelReply::Text("a".into())].into();
        assert_eq!(next_reply(&mut script), ModelReply::Text("a".into()));
        assert_eq!(next_reply(&mut script), ModelReply::Text(UNSCRIPTED_REPLY.into()));
    }

    #[test]
    fn a_short_session_keeps_everything_and_a_long_one_cuts_at_a_turn() {
        let user = |n: usize| msg(json!({"role": "user", "content": "u".repeat(n)}));
        let reply = |n: usize| msg(json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(n)}]}));
        assert_eq!(cut_point(&[user(400), reply(400)], KEEP_RECENT_TOKENS), (0, false));
        // 4 × 8 000 tokens: the walk back passes 20 000 at index 1 (an assistant).
        let ms = [user(32_000), reply(32_000), user(32_000), reply(32_000)];
        assert_eq!(cut_point(&ms, KEEP_RECENT_TOKENS), (1, true));
    }
}
