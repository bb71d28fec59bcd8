//! The window engine's `compact`: summarise the older part of its store
//! through the host's model (`runtimeContext.llm.complete`, on the wire
//! `host/llm.complete`), keep a newest tail at whole tool groups, and replace
//! the covered messages by the summary in later assembles.
//!
//! Targets (openclaw-contract.md §4.6): `"budget"` (overflow recovery) gets
//! what the next assemble sees under half the `tokenBudget`; `"threshold"`
//! (manual `/compact`) halves what the engine holds.

use clawspec_contract::tokens::{estimate_message, estimate_messages, estimate_text};
use clawspec_contract::*;
use serde_json::{json, Value};

use super::fit;
use super::mutation::Mutation;
use super::store::{fingerprint, Session};

/// What a compaction will do, decided before asking the model.
#[derive(Debug, PartialEq)]
pub enum Plan {
    Nothing { reason: &'static str },
    /// Summarise `store.uncovered()[..kept_from]`.
    Cover { kept_from: usize, tokens_before: u64 },
}

pub const DEFAULT_INSTRUCTIONS: &str = "Summarize the conversation so far.";
/// Cap on the summary's length asked of the model.
const SUMMARY_MAX_TOKENS: u64 = 512;

/// Decide what to cover. `tokensBefore` is the host's `currentTokenCount`
/// when given (the host measured it), else the engine's estimate of what the
/// next assemble would see.
pub fn plan(session: &Session, params: &Value, mutation: Mutation) -> Plan {
    let live = session.uncovered();
    let budget = params.get("tokenBudget").and_then(Value::as_u64).unwrap_or(u64::MAX / 4);
    let threshold = params.get("compactionTarget").and_then(Value::as_str) == Some("threshold");
    let before_est = estimate_messages(&live) + session.summary.as_deref().map(estimate_text).unwrap_or(0);
    let tokens_before = params.get("currentTokenCount").and_then(Value::as_u64).unwrap_or(before_est);
    // When the host reports more than the engine estimates (it overflowed
    // anyway), halving what the engine holds is the most it can do.
    let goal = if threshold { before_est / 2 } else { (budget / 2).min(before_est / 2) };
    let mut gs = fit::groups(&live);
    // A trailing custom message (2026.4.26's `openclaw.runtime-context`,
    // persisted right after the user message it describes: runtime::entry)
    // belongs to the message before it: kept apart, the current prompt would
    // be summarised while only its context stayed (mutants test, 4.26
    // overflow-three-compactions with ownsCompaction).
    if gs.len() >= 2 && gs.last().is_some_and(|g| g.clone().all(|i| matches!(live[i], AgentMessage::Custom(_)))) {
        let last = gs.pop().expect("two groups");
        gs.last_mut().expect("one group left").end = last.end;
    }
    let mut kept_from = live.len();
    let mut used = 0;
    for g in gs.iter().rev() {
        let c: u64 = live[g.clone()].iter().map(estimate_message).sum();
        if used + c > goal {
            break;
        }
        used += c;
        kept_from = g.start;
    }
    // The `compact-everything` defect: "summarise the whole conversation",
    // current turn included, keeping no recent tail.
    if mutation == Mutation::CompactEverything && !live.is_empty() {
        return Plan::Cover { kept_from: live.len(), tokens_before };
    }
    // The newest group stays verbatim even if it alone exceeds the goal.
    if kept_from == live.len() {
        kept_from = gs.last().map(|g| g.start).unwrap_or(0);
    }
    if kept_from == 0 {
        return Plan::Nothing { reason: "nothing to compact" };
    }
    Plan::Cover { kept_from, tokens_before }
}

/// The `host/llm.complete` params asking for a summary of the covered part
/// (the previous summary first, so summaries chain).
pub fn summary_request(session: &Session, kept_from: usize, params: &Value, for_call: &Value) -> Value {
    let live = session.uncovered();
    let mut messages: Vec<Value> = Vec::new();
    if let Some(p) = &session.summary {
        messages.push(json!({"role": "user", "content": format!("Previous summary: {p}")}));
    }
    messages.extend(live[..kept_from].iter().map(|m| serde_json::to_value(m).expect("message")));
    let instructions = params.get("customInstructions").and_then(Value::as_str).unwrap_or(DEFAULT_INSTRUCTIONS);
    json!({"forCall": for_call, "systemPrompt": instructions, "messages": messages, "maxTokens": SUMMARY_MAX_TOKENS})
}

/// A summary made without the model (when `llm.complete` fails): the
/// covered text, truncated.
pub fn fallback_summary(session: &Session, kept_from: usize) -> String {
    let live = session.uncovered();
    live[..kept_from].iter().map(AgentMessage::text).collect::<Vec<_>>().join(" ").chars().take(400).collect()
}

/// Record `summary` as covering `uncovered()[..kept_from]` if that makes the
/// context smaller, and return the `CompactResult`.
/// `save` false is the `compact-unsaved-summary` defect: the result is
/// computed and reported, but the summary is never recorded.
pub fn apply(session: &mut Session, kept_from: usize, tokens_before: u64, summary: String, save: bool) -> Value {
    let live = session.uncovered();
    let tokens_after = estimate_text(&summary) + estimate_messages(&live[kept_from..]);
    if tokens_after >= tokens_before {
        return json!({"ok": true, "compacted": false, "reason": "summary would not be smaller"});
    }
    if save {
        for m in &live[..kept_from] {
            session.covered.insert(fingerprint(m));
        }
        session.summary = Some(summary.clone());
    }
    json!({"ok": true, "compacted": true, "result": {"summary": summary, "tokensBefore": tokens_before, "tokensAfter": tokens_after}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    use crate::engines::window::assemble::assemble;
    use crate::engines::window::mutation::Mutation;
    use crate::engines::window::store::AddPolicy;

    /// 40 characters = 10 tokens.
    const TEN: &str = "0123456789012345678901234567890123456789";

    fn turns(n: u64) -> Vec<Value> {
        (0..n)
            .flat_map(|i| {
                [
                    json!({"role": "user", "content": TEN, "timestamp": 2 * i}),
                    json!({"role": "assistant", "content": [{"type": "text", "text": TEN}], "timestamp": 2 * i + 1}),
                ]
            })
            .collect()
    }

    fn session(ms: &[Value]) -> Session {
        let mut s = Session::default();
        s.add(serde_json::from_value::<Vec<AgentMessage>>(json!(ms)).unwrap(), AddPolicy::default());
        s
    }

    #[rstest]
    #[case::empty(0, json!({"tokenBudget": 100}))]
    #[case::empty_threshold(0, json!({"compactionTarget": "threshold"}))]
    fn nothing_to_compact(#[case] n: u64, #[case] params: Value) {
        let s = session(&turns(n));
        assert_eq!(plan(&s, &params, Mutation::None), Plan::Nothing { reason: "nothing to compact" });
    }

    #[test]
    fn a_single_group_is_never_compacted() {
        let s = session(&turns(1)[..1]);
        assert_eq!(plan(&s, &json!({"tokenBudget": 1}), Mutation::None), Plan::Nothing { reason: "nothing to compact" });
    }

    #[test]
    fn a_trailing_runtime_context_message_stays_with_its_prompt() {
        let mut ms = turns(4);
        ms.push(json!({"role": "user", "content": TEN, "timestamp": 100}));
        ms.push(json!({"role": "custom", "customType": "openclaw.runtime-context", "content": TEN, "display": false, "timestamp": 100}));
        let s = session(&ms);
        let Plan::Cover { kept_from, .. } = plan(&s, &json!({"tokenBudget": 1}), Mutation::None) else { panic!("should compact") };
        assert_eq!(kept_from, 8, "the prompt (index 8) is kept with its context, not summarised");
    }

    #[rstest]
    // 10 turns = 200 tokens. budget 100 → keep ≤ 50 → 5 messages kept.
    #[case::budget(json!({"tokenBudget": 100, "compactionTarget": "budget"}), 15, 200)]
    // threshold: half of 200 → keep 10 messages.
    #[case::threshold(json!({"tokenBudget": 100000, "compactionTarget": "threshold"}), 10, 200)]
    // host-measured count is tokensBefore.
    #[case::current_token_count(json!({"tokenBudget": 100, "currentTokenCount": 1234}), 15, 1234)]
    // a budget far above the content still halves it.
    #[case::roomy_budget(json!({"tokenBudget": 100000}), 10, 200)]
    fn plans(#[case] params: Value, #[case] kept_from: usize, #[case] before: u64) {
        let s = session(&turns(10));
        assert_eq!(plan(&s, &params, Mutation::None), Plan::Cover { kept_from, tokens_before: before });
    }

    #[test]
    fn compaction_shrinks_what_the_next_assemble_sees() {
        let ms = turns(10);
        let mut s = session(&ms);
        let params = json!({"tokenBudget": 100, "compactionTarget": "budget"});
        let Plan::Cover { kept_from, tokens_before } = plan(&s, &params, Mutation::None) else { panic!("should compact") };
        let req = summary_request(&s, kept_from, &params, &json!(7));
        assert_eq!(req["forCall"], 7);
        assert_eq!(req["systemPrompt"], DEFAULT_INSTRUCTIONS);
        assert_eq!(req["messages"].as_array().unwrap().len(), kept_from);
        let r = apply(&mut s, kept_from, tokens_before, "S".repeat(40), true);
        assert_eq!(r["compacted"], true);
        let after = r["result"]["tokensAfter"].as_u64().unwrap();
        assert!(after < r["result"]["tokensBefore"].as_u64().unwrap());
        assert!(after <= 100, "under the budget: {after}");
        // The next assemble sees exactly what tokensAfter claims.
        let next = assemble(&json!({"messages": ms}), &s, Mutation::None).unwrap();
        assert_eq!(next["estimatedTokens"].as_u64(), Some(after));
        assert_eq!(next["messages"][0]["summary"], "S".repeat(40));
        assert_eq!(next["messages"].as_array().unwrap().len(), 1 + 20 - kept_from);
    }

    #[test]
    fn a_second_compaction_chains_the_previous_summary() {
        let mut s = session(&turns(10));
        let params = json!({"compactionTarget": "threshold"});
        let Plan::Cover { kept_from, tokens_before } = plan(&s, &params, Mutation::None) else { panic!() };
        apply(&mut s, kept_from, tokens_before, "first".into(), true);
        let Plan::Cover { kept_from, .. } = plan(&s, &params, Mutation::None) else { panic!("more to compact") };
        let req = summary_request(&s, kept_from, &params, &json!(8));
        assert_eq!(req["messages"][0]["content"], "Previous summary: first");
    }

    #[test]
    fn a_summary_that_is_not_smaller_is_refused() {
        let mut s = session(&turns(10));
        let r = apply(&mut s, 10, 200, TEN.repeat(40), true);
        assert_eq!(r, json!({"ok": true, "compacted": false, "reason": "summary would not be smaller"}));
        assert!(s.summary.is_none() && s.covered.is_empty(), "nothing recorded");
    }

    #[test]
    fn custom_instructions_reach_the_model() {
        let s = session(&turns(4));
        let req = summary_request(&s, 2, &json!({"customInstructions": "Keep file names."}), &json!(1));
        assert_eq!(req["systemPrompt"], "Keep file names.");
    }
}
