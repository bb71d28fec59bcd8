//! How much of the engine a certificate exercised, per profile (issue 15,
//! "hollow certification"): turns the engine served versus turns OpenClaw ran
//! on legacy, operations served by legacy after a quarantine, methods called,
//! messages handed to the engine versus messages it returned, and whether it
//! compacted or summarised at all. All counts are sums over runs, so shard
//! reports merge by adding them. A profile where the engine never did real
//! work is *hollow* and is not certified: a green verdict must mean something
//! was tested.

use std::collections::BTreeMap;
use std::sync::Arc;

use clawspec_contract::AgentMessage;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::check::{matching, summaries::Received};
use crate::trace::{CallRecord, Event, ReplyRecord, Trace};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub profile: String,
    /// Scenario runs counted.
    pub runs: u32,
    /// Logical turns the runtime ran (user, announce, inter-session, heartbeat).
    pub turns: u32,
    /// Turns OpenClaw ran on the legacy engine instead (`turn-on-legacy`: a
    /// 2026.9.6 admitted turn without durable-turn support, or a pending outbox).
    pub turns_on_legacy: u32,
    /// Operations served by legacy because the engine was quarantined.
    pub quarantined_operations: u32,
    /// Lifecycle calls per method that returned a result.
    pub methods: BTreeMap<String, u32>,
    /// Lifecycle calls that threw.
    pub calls_threw: u32,
    /// Messages handed to the engine to keep: `ingest` / `ingestBatch`
    /// acknowledged, the new messages of `afterTurn` (past
    /// `prePromptMessageCount`) and of committed `commitTurn`s.
    pub messages_stored: u64,
    /// Messages in successful `assemble` results.
    pub messages_returned: u64,
    /// `assemble` results that differ from the messages sent (the engine chose).
    pub assembles_changed: u32,
    /// `compact` calls the engine answered ok + compacted itself.
    pub compactions: u32,
    /// Compactions the engine delegated to OpenClaw's built-in compaction.
    pub compactions_delegated: u32,
    /// Summaries the engine asked the host model for (`host/llm.complete`).
    pub summary_requests: u32,
    /// Assembled messages recognised as the engine's summaries (not sent by
    /// the host, built from content it received; see `check::summaries`).
    pub summaries_returned: u64,
    /// Runs of OpenClaw's own legacy engine (`info.id` "legacy", as CE-COV-001
    /// reads it): keeping nothing and passing the host's messages through is
    /// the baseline there, not a hollow certificate.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub legacy_runs: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Coverage {
    pub fn compacted(&self) -> bool {
        self.compactions > 0 || self.compactions_delegated > 0
    }
    pub fn summarised(&self) -> bool {
        self.summaries_returned > 0 || self.summary_requests > 0
    }
    pub fn turns_on_engine(&self) -> u32 {
        self.turns.saturating_sub(self.turns_on_legacy)
    }

    /// Why the engine did no real work under this profile (`None`: it did).
    pub fn hollow(&self) -> Option<String> {
        if self.runs == 0 {
            return Some("no scenario ran".into());
        }
        if self.turns > 0 && self.turns_on_engine() == 0 {
            return Some(format!("all {} turns ran on legacy", self.turns));
        }
        let assembled = self.methods.get("assemble").copied().unwrap_or(0);
        if assembled == 0 {
            return Some("the engine never returned an assemble result".into());
        }
        if self.messages_stored == 0 && self.messages_returned == 0 {
            return Some("the engine was never handed or returned a message".into());
        }
        // A pass-through that keeps nothing (openclaw-universal-capture under
        // 2026.4.26: it captures in commitTurn, which that release never
        // calls, and declines every ingest): every clause then judges
        // OpenClaw's own behaviour, not the engine's.
        if self.messages_stored == 0 && self.assembles_changed == 0 && self.compactions == 0 && self.summary_requests == 0 && self.legacy_runs < self.runs {
            return Some(format!(
                "the engine kept no message (no ingest acknowledged, no afterTurn, no commitTurn committed), returned the host's messages unchanged from all {assembled} assemble(s) and compacted nothing itself: nothing of the engine was exercised"
            ));
        }
        None
    }

    fn add(&mut self, o: &Coverage) {
        self.runs += o.runs;
        self.turns += o.turns;
        self.turns_on_legacy += o.turns_on_legacy;
        self.quarantined_operations += o.quarantined_operations;
        for (m, n) in &o.methods {
            *self.methods.entry(m.clone()).or_default() += n;
        }
        self.calls_threw += o.calls_threw;
        self.messages_stored += o.messages_stored;
        self.messages_returned += o.messages_returned;
        self.assembles_changed += o.assembles_changed;
        self.compactions += o.compactions;
        self.compactions_delegated += o.compactions_delegated;
        self.summary_requests += o.summary_requests;
        self.summaries_returned += o.summaries_returned;
        self.legacy_runs += o.legacy_runs;
    }
}

/// The messages of a params/result object that are `AgentMessage`s, parsed
/// (shared with the checks: each distinct message is parsed once per trace).
fn messages(t: &Trace, v: &Value) -> Vec<Arc<AgentMessage>> {
    t.parsed(v).unwrap_or_default().into_iter().flatten().collect()
}

/// One trace's coverage.
pub fn of_trace(t: &Trace) -> Coverage {
    let mut c = Coverage { profile: t.profile.clone(), runs: 1, ..Default::default() };
    if t.engine.info.as_ref().and_then(|i| i.get("id")).and_then(Value::as_str) == Some("legacy") {
        c.legacy_runs = 1;
    }
    // Logical turns are the turns that reached the model; the runtime's turn
    // counter also advances for /compact, spawns and the session end.
    let model_turns: std::collections::BTreeSet<u32> = t.events.iter().filter_map(|e| if let Event::Model(m) = e { Some(m.turn) } else { None }).collect();
    c.turns = model_turns.len() as u32;
    for e in &t.events {
        if let Event::Note(n) = e {
            match n.code.as_str() {
                "turn-on-legacy" => c.turns_on_legacy += 1,
                "quarantined" => c.quarantined_operations += 1,
                _ => {}
            }
        }
    }
    let mut received = Received::default();
    for call in t.calls() {
        received.feed_call(t, call);
        for cb in &call.callbacks {
            match cb.method.as_str() {
                "host/llm.complete" => c.summary_requests += 1,
                "host/delegateCompaction" if cb.result.get("compacted").and_then(Value::as_bool) == Some(true) => c.compactions_delegated += 1,
                _ => {}
            }
        }
        let v = match &call.reply {
            ReplyRecord::Ok(v) => v,
            ReplyRecord::Threw { .. } => {
                c.calls_threw += 1;
                continue;
            }
            _ => continue,
        };
        *c.methods.entry(call.method.clone()).or_default() += 1;
        stored_and_returned(&mut c, t, call, v, &received);
    }
    c
}

/// `v`: the call's result.
fn stored_and_returned(c: &mut Coverage, t: &Trace, call: &CallRecord, v: &Value, received: &Received) {
    let p = &call.params;
    let sent = t.store.messages_ref(p).map_or(0, |m| m.len()) as u64;
    match call.method.as_str() {
        "ingest" if v.get("ingested").and_then(Value::as_bool) == Some(true) => c.messages_stored += 1,
        "ingestBatch" => c.messages_stored += v.get("ingestedCount").and_then(Value::as_u64).unwrap_or(0).min(sent),
        "afterTurn" => {
            let pre = p.get("prePromptMessageCount").and_then(Value::as_u64).unwrap_or(0);
            c.messages_stored += sent.saturating_sub(pre);
        }
        "commitTurn" if v.get("status").and_then(Value::as_str) == Some("committed") => c.messages_stored += sent,
        "compact" if v.get("ok").and_then(Value::as_bool) == Some(true) && v.get("compacted").and_then(Value::as_bool) == Some(true) => {
            // A delegated compaction is counted from its callback.
            if !call.callbacks.iter().any(|cb| cb.method == "host/delegateCompaction") {
                c.compactions += 1;
            }
        }
        "assemble" => {
            let (input, output) = (messages(t, p), messages(t, v));
            c.messages_returned += output.len() as u64;
            if input != output {
                c.assembles_changed += 1;
            }
            let from = matching::match_output(&input, &output);
            c.summaries_returned += output
                .iter()
                .zip(&from)
                .filter(|(m, f)| f.is_none() && (matches!(***m, AgentMessage::CompactionSummary(_) | AgentMessage::BranchSummary(_)) || received.summarises(m)))
                .count() as u64;
        }
        _ => {}
    }
}

/// Per-profile coverage of a run, in `profiles` order.
pub fn of_traces(traces: &[Trace], profiles: &[String]) -> Vec<Coverage> {
    profiles
        .iter()
        .map(|p| {
            let mut total = Coverage { profile: p.clone(), ..Default::default() };
            for t in traces.iter().filter(|t| &t.profile == p) {
                total.add(&of_trace(t));
            }
            total
        })
        .collect()
}

/// Shard coverage added up per profile (`clawspec merge`).
pub fn merge(parts: &[Vec<Coverage>], profiles: &[String]) -> Vec<Coverage> {
    profiles
        .iter()
        .map(|p| {
            let mut total = Coverage { profile: p.clone(), ..Default::default() };
            for c in parts.iter().flatten().filter(|c| &c.profile == p) {
                total.add(c);
            }
            total
        })
        .collect()
}

/// One line per profile for terminals and Markdown.
pub fn line(c: &Coverage) -> String {
    let methods: Vec<String> = c.methods.iter().map(|(m, n)| format!("{m} {n}")).collect();
    format!(
        "turns {} on engine / {} on legacy, {} quarantined op(s); messages stored {} / returned {}; assembles changed {}; compacted: {} ({} own, {} delegated); summarised: {} ({} returned, {} llm.complete); methods: {}{}",
        c.turns_on_engine(),
        c.turns_on_legacy,
        c.quarantined_operations,
        c.messages_stored,
        c.messages_returned,
        c.assembles_changed,
        if c.compacted() { "yes" } else { "no" },
        c.compactions,
        c.compactions_delegated,
        if c.summarised() { "yes" } else { "no" },
        c.summaries_returned,
        c.summary_requests,
        if methods.is_empty() { "none".into() } else { methods.join(", ") },
        c.hollow().map(|h| format!(" — HOLLOW: {h}")).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{CallMeta, CallbackRecord, EngineRecord, NoteRecord};
    use serde_json::json;

    fn call(seq: u32, method: &str, params: Value, reply: Value) -> Event {
        Event::Call(CallRecord { seq, turn: 1, attempt: 1, step: 0, method: method.into(), params, meta: CallMeta::default(), callbacks: vec![], output: Default::default(), reply: ReplyRecord::Ok(reply) })
    }
    fn model(turn: u32) -> Event {
        Event::Model(crate::trace::ModelRecord { seq: 900 + turn, turn, attempt: 1, step: 0, provider: "p".into(), model: "m".into(), message_count: 1, prompt_tokens: 1, system_prompt_addition: None, outcome: "text".into(), via: None, error: None })
    }
    fn trace(profile: &str, turns: u32, mut events: Vec<Event>) -> Trace {
        events.extend((1..=turns).map(model));
        let engine = EngineRecord { display: "unit".into(), info: None, methods: vec![], implementation: None, hooks: Value::Null };
        Trace::new("unit".into(), profile.into(), engine, events, crate::trace::Outcome::Completed { turns, failed_turns: vec![] }, Default::default())
    }
    fn user(t: &str) -> Value {
        json!({"role": "user", "content": t})
    }

    #[test]
    fn counts_work_handed_over_returned_and_summarised() {
        let history = "the quarterly numbers must reach the finance channel before the review";
        let mut after = call(1, "afterTurn", json!({"messages": [user(history), user("b")], "prePromptMessageCount": 0}), Value::Null);
        if let Event::Call(c) = &mut after {
            c.callbacks.push(CallbackRecord { method: "host/llm.complete".into(), params: json!({}), result: json!({"text": "Summary of 2 messages (12 words): quarterly numbers"}) });
        }
        let t = trace("p", 2, vec![
            call(0, "ingest", json!({"message": user("a")}), json!({"ingested": true})),
            after,
            call(2, "compact", json!({}), json!({"ok": true, "compacted": true})),
            call(3, "assemble", json!({"messages": [user(history), user("b")]}), json!({"messages": [user("<summary>Summary of 2 messages (12 words): quarterly numbers</summary>"), user("b")]})),
        ]);
        let c = of_trace(&t);
        assert_eq!((c.messages_stored, c.messages_returned, c.assembles_changed), (3, 2, 1));
        assert_eq!((c.compactions, c.summary_requests, c.summaries_returned), (1, 1, 1));
        assert!(c.compacted() && c.summarised() && c.hollow().is_none(), "{c:?}");
        assert_eq!(c.methods.get("assemble"), Some(&1));
    }

    #[test]
    fn an_engine_that_never_served_a_turn_is_hollow() {
        let legacy_note = |seq| Event::Note(NoteRecord { seq, turn: 1, step: 0, code: "turn-on-legacy".into(), text: String::new() });
        let all_legacy = trace("p", 2, vec![legacy_note(0), legacy_note(1), call(2, "bootstrap", json!({}), json!({"bootstrapped": true}))]);
        assert_eq!(of_trace(&all_legacy).hollow().as_deref(), Some("all 2 turns ran on legacy"));
        let no_assemble = trace("p", 1, vec![call(0, "ingest", json!({"message": user("a")}), json!({"ingested": true}))]);
        assert!(of_trace(&no_assemble).hollow().unwrap().contains("never returned an assemble"));
        assert_eq!(Coverage::default().hollow().as_deref(), Some("no scenario ran"));
    }

    #[test]
    fn a_pass_through_that_keeps_nothing_is_hollow_unless_it_is_openclaws_legacy_engine() {
        // openclaw-universal-capture 0.7.0 under 2026.4.26: every ingest
        // declined, assemble hands the host's messages back, no commitTurn.
        let capture = |id: &str| {
            let mut t = trace("openclaw-2026.4.26", 1, vec![
                call(0, "ingest", json!({"message": user("a")}), json!({"ingested": false})),
                call(1, "assemble", json!({"messages": [user("a")]}), json!({"messages": [user("a")]})),
            ]);
            t.engine.info = Some(json!({"id": id, "name": id}));
            t
        };
        let hollow = of_trace(&capture("openclaw-universal-capture")).hollow().expect("hollow");
        assert!(hollow.contains("kept no message") && hollow.contains("all 1 assemble(s)"), "{hollow}");
        assert_eq!(of_trace(&capture("legacy")).hollow(), None, "the legacy engine is the baseline");
        // One kept message, one changed assemble or one own compaction is real work.
        let mut kept = capture("x");
        kept.events.push(call(2, "commitTurn", json!({"messages": [user("a")]}), json!({"status": "committed"})));
        assert_eq!(of_trace(&kept).hollow(), None);
        let mut trimmed = capture("x");
        trimmed.events.push(call(2, "assemble", json!({"messages": [user("a"), user("b")]}), json!({"messages": [user("b")]})));
        assert_eq!(of_trace(&trimmed).hollow(), None);
        // Shards add up: a merged legacy run stays the baseline, a merged capture run stays hollow.
        let profiles = vec!["openclaw-2026.4.26".to_string()];
        assert!(merge(&[of_traces(&[capture("legacy")], &profiles), of_traces(&[capture("legacy")], &profiles)], &profiles)[0].hollow().is_none());
        assert!(merge(&[of_traces(&[capture("legacy")], &profiles), of_traces(&[capture("x")], &profiles)], &profiles)[0].hollow().is_some());
    }

    #[test]
    fn shard_coverage_adds_up_to_the_whole() {
        let t = |p: &str| trace(p, 1, vec![call(0, "assemble", json!({"messages": [user("a")]}), json!({"messages": [user("a")]}))]);
        let profiles = vec!["p".to_string(), "q".to_string()];
        let whole = of_traces(&[t("p"), t("p"), t("q")], &profiles);
        let merged = merge(&[of_traces(&[t("p")], &profiles), of_traces(&[t("p"), t("q")], &profiles)], &profiles);
        assert_eq!(whole, merged);
        assert_eq!(whole[0].runs, 2);
    }
}
