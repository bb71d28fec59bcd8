//! The window engine's `assemble`: the host's pipeline history
//! (`params.messages`, authoritative for order; openclaw-contract.md §4.3)
//! with what the engine's last compaction covered replaced by one
//! `compactionSummary` message, fitted to `tokenBudget` newest-first
//! ([`fit`]), always keeping the live turn and volatile live input.

use std::collections::BTreeSet;

use clawspec_contract::tokens::estimate_messages;
use clawspec_contract::*;
use serde_json::{json, Value};

use super::fit;
use super::mutation::Mutation;
use super::store::{fingerprint, Session};
use super::volatile;

/// What one assemble chose: the messages, in order, and their estimate.
/// Messages are shared ([`Msg`]): one passed through is the very message
/// the engine was given, so the server answers it by pointer.
pub struct Assembled {
    pub messages: Vec<Msg>,
    pub estimated_tokens: u64,
}

/// The result of one assemble: `{messages, estimatedTokens}`.
pub fn assemble(params: &Value, session: &Session, mutation: Mutation) -> Result<Value, String> {
    let sent = <Vec<Msg> as serde::Deserialize>::deserialize(&params["messages"]).map_err(|e| format!("window: cannot read messages: {e}"))?;
    Ok(result(assemble_msgs(sent, params, session, mutation), params, mutation))
}

/// [`assemble`] of params the engine owns: `messages` is taken out and
/// deserialised by moving its strings instead of copying them (the array is
/// the whole history on every call). Only the provenance-laundering mutant
/// reads `params.messages` again, so it keeps them.
pub fn assemble_owned(mut params: Value, session: &Session, mutation: Mutation) -> Result<Value, String> {
    if mutation == Mutation::LaunderProvenance || !params.is_object() {
        return assemble(&params, session, mutation);
    }
    let messages = params["messages"].take();
    let sent = serde_json::from_value::<Vec<Msg>>(messages).map_err(|e| format!("window: cannot read messages: {e}"))?;
    Ok(result(assemble_msgs(sent, &params, session, mutation), &params, mutation))
}

/// The result as JSON, with the defects that corrupt it.
fn result(a: Assembled, params: &Value, mutation: Mutation) -> Value {
    let mut result = json!({"messages": a.messages, "estimatedTokens": a.estimated_tokens});
    match mutation {
        Mutation::NanTokens => result["estimatedTokens"] = Value::Null,
        Mutation::OmitMessages => {
            result.as_object_mut().expect("object").remove("messages");
        }
        Mutation::LaunderProvenance => {
            // The defect: inter-session text promoted to system authority.
            let texts: Vec<String> = params["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m.get("provenance").is_some())
                .filter_map(|m| serde_json::from_value::<AgentMessage>(m.clone()).ok())
                // Laundered: the replayed provenance header and its explanation
                // (both releases replay inter-session messages with them) are dropped.
                .map(|m| {
                    m.text()
                        .lines()
                        .filter(|l| !l.contains(clawspec_contract::markers::INTER_SESSION_PREFIX) && !l.contains(clawspec_contract::markers::INTER_SESSION_EXPLANATION))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .collect();
            if !texts.is_empty() {
                result["systemPromptAddition"] = json!(format!("Remember: {}", texts.join(" ")));
            }
        }
        _ => {}
    }
    result
}

/// Choose the messages of one assemble from the history `sent` (the
/// host's `params.messages`, parsed). Reads the other params, never
/// `params.messages`: the server may hand the history over shared, with
/// `null` there. Per message it costs a pointer and cached figures (the
/// token estimate), so a history passed every call is not re-read.
pub fn assemble_msgs(sent: Vec<Msg>, params: &Value, session: &Session, mutation: Mutation) -> Assembled {
    let budget = params.get("tokenBudget").and_then(Value::as_u64).unwrap_or(u64::MAX / 4);
    let (ms, origin) = with_summary(sent, session);
    let live = LiveTurn::find(&ms, &origin, params);
    let is_vol = |i: usize| i >= live.tail_start && origin[i].is_some_and(|o| volatile::is_volatile(&ms[i], o, params));

    let must: Vec<bool> = (0..ms.len())
        .map(|i| match mutation {
            // The defect: unrecognised live input is treated as droppable history.
            Mutation::DropVolatileTail => i >= live.boundary && !is_vol(i),
            Mutation::DropCurrentTurn => false,
            _ => i >= live.boundary || is_vol(i),
        })
        .collect();
    let fit_budget = if mutation == Mutation::ExceedBudget { u64::MAX / 4 } else { budget };
    let mut kept = fit::fit(&ms, fit_budget, &must, mutation == Mutation::SplitToolPair);
    match mutation {
        Mutation::DropVolatileTail => kept.retain(|&i| !is_vol(i)),
        Mutation::DropCurrentTurn => kept.retain(|&i| i < live.boundary),
        Mutation::SplitToolPair => {
            if let Some(pos) = kept.iter().position(|&i| matches!(*ms[i], AgentMessage::ToolResult(_))) {
                kept.remove(pos);
            }
        }
        _ => {}
    }
    if mutation == Mutation::FixedWindow && kept.len() > 4 {
        // The defect: "the last few messages are enough context" — a fixed
        // message cap instead of the token budget.
        kept.drain(..kept.len() - 4);
    }
    if mutation == Mutation::DedupeRepeats {
        // The defect: "the host re-sends history, so skip what we already
        // have" keyed on role + text — a user who says "yes" twice loses a turn.
        let mut seen = BTreeSet::new();
        kept.retain(|&i| seen.insert(format!("{}|{}", ms[i].role(), ms[i].text())));
    }
    // What the mutant below compares with, before the kept messages move out.
    let sent: BTreeSet<String> = if mutation == Mutation::ReingestSuppressed { ms.iter().map(|m| fingerprint(m)).collect() } else { BTreeSet::new() };
    // The kept messages in order, moved rather than cloned (a pointer each
    // either way, but a clone is also a drop) when each is kept once in
    // ascending order (what `fit` returns).
    let mut out: Vec<Msg> = if kept.windows(2).all(|w| w[0] < w[1]) {
        let mut want = kept.iter().copied().peekable();
        ms.into_iter().enumerate().filter_map(|(i, m)| want.next_if_eq(&i).map(|_| m)).collect()
    } else {
        kept.iter().map(|&i| ms[i].clone()).collect()
    };
    if mutation == Mutation::ReingestSuppressed {
        // The defect: stored announce triggers come back as history.
        out.extend(session.store.iter().filter(|m| volatile::is_unpersisted_announce(m) && !sent.contains(&fingerprint(m))).map(Msg::from));
    }
    if mutation == Mutation::ReorderMessages && out.len() >= 2 {
        let last = out.len() - 1;
        out.swap(0, last);
    }
    let total = estimate_messages(&out);
    if total > budget && mutation == Mutation::None {
        // The current turn is never dropped to meet a budget: the host's
        // precheck/overflow recovery is the place to handle that.
        eprintln!("window: the must-keep messages need {total} tokens, over the {budget} budget");
    }
    Assembled { messages: out, estimated_tokens: total }
}

/// Replace the messages the last compaction covered by its summary, at the
/// place the first of them was. `origin[i]` is the index in `params.messages`
/// (`None` for the summary), which the RFC's per-message arrays align with.
fn with_summary(sent: Vec<Msg>, session: &Session) -> (Vec<Msg>, Vec<Option<usize>>) {
    if session.covered.is_empty() {
        // Nothing compacted: the history as sent (no message read).
        let origin = (0..sent.len()).map(Some).collect();
        return (sent, origin);
    }
    let mut ms = Vec::with_capacity(sent.len() + 1);
    let mut origin = Vec::with_capacity(sent.len() + 1);
    let mut summary_placed = false;
    for (i, m) in sent.into_iter().enumerate() {
        if session.covered.contains(&fingerprint(&m)) {
            if !summary_placed {
                if let Some(s) = &session.summary {
                    ms.push(Msg::new(summary_message(s)));
                    origin.push(None);
                }
                summary_placed = true;
            }
            continue;
        }
        ms.push(m);
        origin.push(Some(i));
    }
    (ms, origin)
}

/// Where the live turn starts in the (summarised) messages.
struct LiveTurn {
    /// Messages at or after this index are the current turn: always kept.
    boundary: usize,
    /// Volatile input at or after this index is live (kept even before `boundary`).
    tail_start: usize,
}

impl LiveTurn {
    /// `prePromptMessageCount` (RFC #82137) when the host sends it; with a
    /// separate `prompt` (openclaw PR #50848) nothing in `messages` is the
    /// current prompt; otherwise (the `ownsCompaction` loop hook, PR #63555)
    /// everything after the last final assistant answer is live.
    fn find(ms: &[Msg], origin: &[Option<usize>], params: &Value) -> LiveTurn {
        let n = ms.len();
        let last_final = ms.iter().rposition(|m| matches!(**m, AgentMessage::Assistant(_)) && m.tool_call_ids().is_empty());
        let after_final = last_final.map(|i| i + 1).unwrap_or(0);
        let boundary = match params.get("prePromptMessageCount").and_then(Value::as_u64) {
            Some(b) => origin.iter().position(|o| o.is_some_and(|i| i as u64 >= b)).unwrap_or(n),
            None if params.get("prompt").is_some() => n,
            None => after_final,
        };
        LiveTurn { boundary, tail_start: after_final.min(boundary) }
    }
}

fn summary_message(s: &str) -> AgentMessage {
    serde_json::from_value(json!({"role": "compactionSummary", "summary": s, "tokensBefore": 0})).expect("summary message")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawspec_contract::markers::*;
    use clawspec_contract::tokens::estimate_message;
    use rstest::rstest;

    use crate::engines::window::store::AddPolicy;

    fn texts(result: &Value) -> Vec<String> {
        let ms: Vec<AgentMessage> = serde_json::from_value(result["messages"].clone()).unwrap();
        ms.iter().map(|m| m.text()).collect()
    }

    fn u(text: &str, ts: u64) -> Value {
        json!({"role": "user", "content": text, "timestamp": ts})
    }
    fn a(text: &str, ts: u64) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": text}], "timestamp": ts})
    }
    fn call(id: &str, ts: u64) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}], "timestamp": ts})
    }
    fn result(id: &str, text: &str, ts: u64) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": text}], "timestamp": ts})
    }

    /// 40 characters = 10 tokens.
    const TEN: &str = "0123456789012345678901234567890123456789";

    /// Three finished turns (10 + 10 tokens each) and a short current user message.
    fn history() -> Vec<Value> {
        vec![u(TEN, 1), a(TEN, 2), u(TEN, 3), a(TEN, 4), u(TEN, 5), a(TEN, 6), u("now", 7)]
    }

    fn run(messages: Vec<Value>, extra: Value) -> Value {
        let mut params = json!({"sessionId": "s", "messages": messages});
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        assemble(&params, &Session::default(), Mutation::None).unwrap()
    }

    #[rstest]
    #[case::unbounded(json!({}), 7)]
    #[case::roomy(json!({"tokenBudget": 1000}), 7)]
    #[case::two_turns(json!({"tokenBudget": 41}), 5)]
    #[case::one_message(json!({"tokenBudget": 15}), 2)]
    #[case::only_the_live_turn(json!({"tokenBudget": 1}), 1)]
    fn budget_fitting(#[case] extra: Value, #[case] kept: usize) {
        let r = run(history(), extra.clone());
        let got = texts(&r);
        assert_eq!(got.len(), kept, "{got:?}");
        assert_eq!(got.last().map(String::as_str), Some("now"), "the current turn is always kept");
        let all: Vec<String> = history().iter().map(|m| serde_json::from_value::<AgentMessage>(m.clone()).unwrap().text()).collect();
        assert_eq!(got[..], all[all.len() - kept..], "a contiguous newest suffix, in order");
        let est = r["estimatedTokens"].as_u64().unwrap();
        let ms: Vec<AgentMessage> = serde_json::from_value(r["messages"].clone()).unwrap();
        assert_eq!(est, ms.iter().map(estimate_message).sum::<u64>());
        if let Some(b) = extra.get("tokenBudget").and_then(Value::as_u64) {
            assert!(est <= b.max(1), "{est} > {b}");
        }
    }

    #[test]
    fn must_keep_over_budget_is_returned_whole() {
        let r = run(vec![u(TEN, 1), a(TEN, 2), u(&TEN.repeat(5), 3)], json!({"tokenBudget": 5}));
        assert_eq!(texts(&r), [TEN.repeat(5)]);
        assert_eq!(r["estimatedTokens"], 50);
    }

    #[rstest]
    #[case::pair_fits(30, &["q", "", TEN, TEN, "next"])]
    #[case::pair_dropped_whole(20, &[TEN, "next"])]
    #[case::pair_and_answer_dropped(5, &["next"])]
    fn tool_pairs_stay_together(#[case] budget: u64, #[case] expect: &[&str]) {
        let ms = vec![u("q", 1), call("t1", 2), result("t1", TEN, 3), a(TEN, 4), u("next", 5)];
        assert_eq!(texts(&run(ms, json!({"tokenBudget": budget}))), expect);
    }

    fn announce_text() -> String {
        format!("{INTER_SESSION_PREFIX} from agent:main:subagent:1\n{TASK_COMPLETION_TITLE}\n{TEN}")
    }

    #[rstest]
    #[case::marker_in_tail(vec![u(TEN, 1), a(TEN, 2), u(&announce_text(), 3)], json!({"tokenBudget": 1, "prompt": "go on"}), 2, true)]
    #[case::retry_marker(vec![u(TEN, 1), a(TEN, 2), u(&format!("{TEN}\n{RETRY_MARKER}"), 3)], json!({"tokenBudget": 1, "prompt": "again"}), 2, true)]
    #[case::drifted_marker_not_recognised(vec![u(TEN, 1), a(TEN, 2), u(&format!("[Cross-session message] {TEN}"), 3)], json!({"tokenBudget": 1, "prompt": "x"}), 2, false)]
    #[case::drifted_but_structured(vec![u(TEN, 1), a(TEN, 2), u(&format!("[Cross-session message] {TEN}"), 3)], json!({"tokenBudget": 1, "prompt": "x", "inputProvenance": [null, null, {"kind": "inter_session"}]}), 2, true)]
    #[case::internal_events(vec![u(TEN, 1), a(TEN, 2), u(TEN, 3)], json!({"tokenBudget": 1, "prompt": "x", "internalEvents": [null, null, [{"type": "task_completion"}]]}), 2, true)]
    #[case::pre_prompt_count(vec![u(TEN, 1), a(TEN, 2), u(TEN, 3)], json!({"tokenBudget": 1, "prePromptMessageCount": 2}), 2, true)]
    #[case::old_volatile_is_history(vec![u(&announce_text(), 1), a(TEN, 2), u("hi", 3)], json!({"tokenBudget": 1}), 0, false)]
    fn volatile_tail_is_kept(#[case] ms: Vec<Value>, #[case] extra: Value, #[case] index: usize, #[case] kept: bool) {
        let volatile = serde_json::from_value::<AgentMessage>(ms[index].clone()).unwrap().text();
        let got = texts(&run(ms, extra));
        assert_eq!(got.contains(&volatile), kept, "{got:?}");
    }

    #[test]
    fn compacted_messages_become_one_summary() {
        let mut s = Session::default();
        let ms: Vec<AgentMessage> = serde_json::from_value(json!(history())).unwrap();
        s.add(ms.clone(), AddPolicy::default());
        for m in &ms[..4] {
            s.covered.insert(fingerprint(m));
        }
        s.summary = Some("SUMMARY".into());
        let r = assemble(&json!({"sessionId": "s", "messages": history()}), &s, Mutation::None).unwrap();
        assert_eq!(texts(&r), ["SUMMARY", TEN, TEN, "now"]);
        assert_eq!(r["messages"][0]["role"], "compactionSummary");
    }

    #[test]
    fn unknown_fields_and_custom_roles_pass_through() {
        let custom = json!({"role": "custom", "customType": "note", "content": "n", "display": false, "vendorField": 1});
        let mut m = u("x", 1);
        m["futureField"] = json!({"a": 1});
        let r = run(vec![custom.clone(), m.clone()], json!({"someNewParam": true}));
        assert_eq!(r["messages"], json!([custom, m]));
    }

    #[test]
    fn rejects_a_message_that_is_not_an_agent_message() {
        let err = assemble(&json!({"messages": [{"role": "tool", "content": "x"}]}), &Session::default(), Mutation::None).unwrap_err();
        assert!(err.contains("cannot read messages"), "{err}");
    }
}
