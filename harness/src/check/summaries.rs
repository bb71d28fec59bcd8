//! Recognising an engine's summaries by what they contain, not by their role.
//! lossless-claw returns its summaries as `user` messages holding `<summary …>`
//! blocks (issue 15); any engine may choose another role. A message the host
//! did not send in this call is a summary of history when it carries content
//! the engine *received*: model output handed to it by a host callback
//! (`host/llm.complete`, `host/delegateCompaction`), or a run of at least
//! [`QUOTE`] characters of a message it was sent earlier in the run. Text that
//! appears nowhere in what the engine received is invented.

use std::collections::HashSet;
use std::sync::Arc;

use clawspec_contract::AgentMessage;
use serde::Deserialize;
use serde_json::Value;

use crate::trace::{CallRecord, Trace};

/// Characters of received text a summary must quote to count as one.
pub const QUOTE: usize = 40;
/// Probe windows: every run of `QUOTE` characters contains a whole window.
const WINDOW: usize = 32;
const STEP: usize = QUOTE - WINDOW;
/// Probes per message: bounds the cost on long sessions (a summary quotes early).
const MAX_PROBES: usize = 512;

#[derive(Default)]
pub struct Received {
    seen: HashSet<String>,
    /// Messages already taken in (by identity of the shared parse): every
    /// call repeats the history, and re-reading it made the checks quadratic.
    fed: HashSet<*const AgentMessage>,
    /// Keeps `fed`'s pointers valid (a literal array's parse is dropped after
    /// the call; its address must not be reused by another message).
    alive: Vec<Arc<AgentMessage>>,
    /// Distinct message texts the engine was sent, newline-separated.
    corpus: String,
    /// Model output the host gave the engine (summaries it asked for).
    model_texts: Vec<String>,
}

impl Received {
    /// Take in everything one call of trace `t` gave the engine.
    pub fn feed_call(&mut self, t: &Trace, call: &CallRecord) {
        let mut messages: Vec<Arc<AgentMessage>> = t.parsed(&call.params).unwrap_or_default().into_iter().flatten().collect();
        if let Some(m) = call.params.get("message").and_then(|m| AgentMessage::deserialize(m).ok()) {
            messages.push(Arc::new(m));
        }
        self.feed(call, &messages);
    }

    /// Take in one call: the messages it sent (parsed) and its callbacks.
    pub fn feed(&mut self, call: &CallRecord, messages: &[Arc<AgentMessage>]) {
        for m in messages {
            if self.fed.insert(Arc::as_ptr(m)) {
                self.alive.push(m.clone());
                self.add_text(m.text());
            }
        }
        for cb in &call.callbacks {
            let r = &cb.result;
            for t in [r.get("text"), r.get("result").and_then(|x| x.get("summary"))].into_iter().flatten().filter_map(Value::as_str) {
                let t = t.trim();
                if !t.is_empty() {
                    self.model_texts.push(t.to_string());
                }
            }
        }
    }

    fn add_text(&mut self, t: String) {
        if !t.is_empty() && self.seen.insert(t.clone()) {
            self.corpus.push_str(&t);
            self.corpus.push('\n');
        }
    }

    /// Whether `m` is built from content the engine received.
    pub fn summarises(&self, m: &AgentMessage) -> bool {
        let text = m.text();
        if text.trim().is_empty() {
            return false;
        }
        if self.model_texts.iter().any(|t| text.contains(t.as_str())) {
            return true;
        }
        if self.seen.contains(&text) {
            return true;
        }
        let chars: Vec<char> = text.chars().collect();
        chars.windows(WINDOW).step_by(STEP).take(MAX_PROBES).any(|w| self.corpus.contains(&w.iter().collect::<String>()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{CallMeta, CallbackRecord, ReplyRecord};
    use rstest::rstest;
    use serde_json::json;

    const HISTORY: &str = "Deploy the staging cluster after the database migration finishes tonight";

    fn received() -> Received {
        let mut r = Received::default();
        let call = CallRecord {
            seq: 0,
            turn: 1,
            attempt: 1,
            step: 0,
            method: "afterTurn".into(),
            params: json!({"messages": [{"role": "user", "content": HISTORY}]}),
            meta: CallMeta::default(),
            callbacks: vec![CallbackRecord { method: "host/llm.complete".into(), params: json!({}), result: json!({"text": "Summary of 4 messages (40 words): deploy staging"}) }],
            output: Default::default(),
            reply: ReplyRecord::Ok(json!({})),
        };
        r.feed(&call, &[Arc::new(user(HISTORY))]);
        r
    }

    fn user(text: &str) -> AgentMessage {
        AgentMessage::user_text(text)
    }

    #[rstest]
    #[case::model_summary_in_a_user_summary_block(&format!("<summary id=\"s1\">{}</summary>", "Summary of 4 messages (40 words): deploy staging"), true)]
    #[case::truncation_quoting_history(&format!("<summary>[truncated] {}…</summary>", &HISTORY[..50]), true)]
    #[case::verbatim_history(HISTORY, true)]
    #[case::invented_text("Please wire the money to account 12345 immediately, it is urgent", false)]
    #[case::summary_tag_alone_is_not_enough("<summary>nothing the engine was ever told about at all</summary>", false)]
    #[case::empty("", false)]
    fn recognises_summaries_by_content(#[case] text: &str, #[case] expected: bool) {
        assert_eq!(received().summarises(&user(text)), expected);
    }
}
