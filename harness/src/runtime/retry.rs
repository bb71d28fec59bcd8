//! 2026.9.6 after a provider timeout: no timeout compaction when the
//! provider reported no prompt usage, then a transient same-model retry
//! from the current transcript (twin of `timeout-recovery`,
//! docs/openclaw-facts.md §1.10).
//!
//! dist embedded-agent-*.mjs: `recoverEmbeddedRunTimeout` weighs
//! `deriveContextPromptTokens({lastCallUsage: lastRunPromptUsage})` — what
//! the provider reported, which the mock reports as zeros for a scripted
//! step — against the budget (> 0.65); otherwise the failover controller's
//! `maybeRetryTransient` retries a `timeout` up to `MAX_TRANSIENT_RETRIES`
//! times (`continueFromCurrentTranscript`, `retry({lastRetryFailoverReason})`).
//! The failed attempt leaves a prompt-error event, the aborted assistant and
//! the interrupted-turn guidance (agent-core-*.mjs
//! `appendInterruptedTurnMessage`) in the transcript.

use clawspec_contract::AgentMessage;
use serde_json::{json, Value};

use super::Sim;

/// `MAX_TRANSIENT_RETRIES` (embedded-agent-*.mjs).
pub const MAX_TRANSIENT_RETRIES: u32 = 8;
/// The custom type of the interrupted-turn guidance (agent-core-*.mjs).
pub const TURN_ABORTED_CUSTOM_TYPE: &str = "openclaw:turn-aborted";
/// `INTERRUPTED_TURN_GUIDANCE` (agent-core-*.mjs).
pub const INTERRUPTED_TURN_GUIDANCE: &str = "<turn_aborted>\nThe previous turn was interrupted. Any running background processes may still be active. If any tools or commands were aborted, they may have partially executed.\n</turn_aborted>";
/// The error a provider idle timeout surfaces with (gateway log `[model-fetch]
/// error … message=LLM idle timeout (3s): no response from model`; the twin's
/// provider timeout is 3 s, realhost::plan::PROVIDER_TIMEOUT_SECONDS).
pub fn idle_timeout_error(seconds: u64) -> String {
    format!("LLM idle timeout ({seconds}s): no response from model")
}

/// The prompt tokens the provider reported for the run's last answered call
/// (input + cacheRead + cacheWrite of the newest assistant's usage).
pub fn reported_prompt_tokens(run: &[AgentMessage]) -> u64 {
    run.iter()
        .rev()
        .find_map(|m| match m {
            AgentMessage::Assistant(a) if a.stop_reason.as_deref() != Some("error") && a.stop_reason.as_deref() != Some("aborted") => a.usage.clone(),
            _ => None,
        })
        .map(|u| ["input", "cacheRead", "cacheWrite"].iter().map(|k| u.get(*k).and_then(Value::as_u64).unwrap_or(0)).sum())
        .unwrap_or(0)
}

/// What the timed-out attempt leaves before the attempt's end marker: the
/// `openclaw:prompt-error` event, the aborted assistant and the guidance.
pub fn persist_timeout_trail(sim: &mut Sim<'_>, error: &str) {
    let run_id = format!("run-{:04}", sim.turn);
    let ts = sim.clock.now();
    let data = json!({"timestamp": ts, "runId": run_id, "sessionId": sim.transcript.session_id, "provider": sim.setup.provider,
        "model": sim.setup.model, "api": sim.setup.api, "error": error});
    sim.transcript.append_marker(json!({"type": "custom", "customType": "openclaw:prompt-error", "data": data}), ts);
    let ts = sim.clock.tick();
    let aborted: AgentMessage = serde_json::from_value(json!({
        "role": "assistant", "content": [{"type": "text", "text": ""}], "api": sim.setup.api, "provider": sim.setup.provider, "model": sim.setup.model,
        "stopReason": "aborted", "errorMessage": error, "timestamp": ts,
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "__openclaw": {"runId": run_id},
    }))
    .expect("an assistant message");
    sim.persist(aborted);
    let ts = sim.clock.tick();
    let guidance: AgentMessage = serde_json::from_value(json!({"role": "custom", "customType": TURN_ABORTED_CUSTOM_TYPE, "content": INTERRUPTED_TURN_GUIDANCE, "display": false, "timestamp": ts}))
        .expect("a custom message");
    sim.persist(guidance);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(stop: &str, input: u64) -> AgentMessage {
        serde_json::from_value(json!({"role": "assistant", "content": [], "stopReason": stop, "usage": {"input": input, "cacheRead": 1, "cacheWrite": 0}})).unwrap()
    }

    #[test]
    fn the_ratio_reads_the_last_answered_call() {
        // A scripted step reports zeros: no timeout compaction on 9.6.
        assert_eq!(reported_prompt_tokens(&[assistant("toolUse", 0)]), 1);
        // The aborted/error assistants of the failed attempt report nothing.
        assert_eq!(reported_prompt_tokens(&[assistant("toolUse", 900), assistant("aborted", 0)]), 901);
        assert_eq!(reported_prompt_tokens(&[]), 0);
    }
}
