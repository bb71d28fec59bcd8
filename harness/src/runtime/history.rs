//! The attempt's history — the pipeline ([`super::pipeline`]) then the
//! replay sanitiser ([`super::replay::sanitize_history`]) over the session —
//! computed once per message instead of once per attempt.
//!
//! Both hosts run these passes over the whole session on every attempt
//! (2026.9.6 dist/builtin-openclaw-*.mjs `prepareEmbeddedAttemptHistory` →
//! `sanitizeSessionHistory`, `validateReplayTurns`), so repeating them makes
//! a long session cost the square of its length. Their result over a
//! history that ends in a finished plain turn does not change when the
//! session grows, as long as what follows cannot reach back into it; a
//! [`Memo`] keeps that result for the longest such prefix (cut before a
//! plain user message that follows a plain final reply, [`cut_at`]) and the
//! passes run on what follows it only. What could reach back — a
//! compaction summary, an assistant older than one, a tool call id the
//! prefix already used (id sanitising and pairing are occurrence-aware
//! across the session) — sends the attempt down the whole computation
//! ([`Memo::covers`]). Debug builds (every test) compute the whole history
//! as well and assert that the two agree.

use std::collections::HashSet;

use clawspec_contract::markers;
use clawspec_contract::*;

use super::pipeline::{self, PipelineOut};

use super::profile::Profile;
use super::replay;
use crate::scenario::model::Setup;

/// The pipeline's and the sanitiser's output for a prefix of the session.
#[derive(Debug, Default)]
pub struct Memo {
    /// What the passes depend on besides the messages (the release, the
    /// replay policy's inputs, the flags): another key starts over.
    key: String,
    /// The prefix of the session, by allocation.
    source: Vec<Msg>,
    /// Shared with the attempts that read it (most never do: only
    /// 2026.4.26 reads the pipeline's output besides the sanitised one).
    piped: std::sync::Arc<Vec<Msg>>,
    sanitized: Vec<Msg>,
    /// The pipeline repaired tool pairing inside the prefix.
    pairing_repaired: bool,
    facts: Facts,
}

/// What later messages must not meet in a prefix.
#[derive(Debug, Default)]
struct Facts {
    /// Tool call and result ids, as stored, trimmed and as the id sanitiser
    /// reduces them.
    ids: HashSet<String>,
    /// The latest compaction summary's timestamp.
    compaction_ts: Option<f64>,
}

impl Facts {
    fn of(ms: &[Msg]) -> Facts {
        let mut f = Facts::default();
        f.add(ms);
        f
    }

    fn add(&mut self, ms: &[Msg]) {
        for m in ms {
            match &**m {
                AgentMessage::Assistant(a) => {
                    for b in &a.content {
                        if let ContentBlock::ToolCall(c) = b {
                            self.ids.extend(id_forms(&c.id));
                        }
                    }
                }
                AgentMessage::ToolResult(r) => self.ids.extend(id_forms(&r.tool_call_id)),
                AgentMessage::CompactionSummary(c) => {
                    if let Some(t) = c.timestamp.as_ref().and_then(|t| t.as_f64()) {
                        self.compaction_ts = Some(self.compaction_ts.map_or(t, |x| x.max(t)));
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether `after` leaves the passes' result over the prefix these
    /// facts describe as it is: no summary (the latest one decides which
    /// signatures and usages are stale), no assistant as old as the
    /// prefix's latest summary, no tool id the prefix holds (see the module doc).
    fn kept_by(prefix: &[&Facts], after: &[Msg]) -> bool {
        let cut = prefix.iter().filter_map(|f| f.compaction_ts).reduce(f64::max);
        let seen = |id: &str| id_forms(id).iter().any(|f| prefix.iter().any(|p| p.ids.contains(f)));
        after.iter().all(|m| match &**m {
            AgentMessage::CompactionSummary(_) | AgentMessage::BranchSummary(_) => false,
            AgentMessage::Assistant(a) => {
                let newer = cut.is_none_or(|cut| a.timestamp.as_ref().and_then(|t| t.as_f64()).is_some_and(|t| t > cut));
                newer && a.content.iter().all(|b| !matches!(b, ContentBlock::ToolCall(c) if seen(&c.id)))
            }
            AgentMessage::ToolResult(r) => !seen(&r.tool_call_id),
            _ => true,
        })
    }
}

/// One attempt's history.
#[derive(Debug)]
pub struct Prepared {
    /// The pipeline's notes.
    pub notes: Vec<(&'static str, String)>,
    /// The pipeline's output: the memo's prefix, then the rest.
    piped_prefix: std::sync::Arc<Vec<Msg>>,
    piped_rest: Vec<Msg>,
    /// The pipeline's output after the replay sanitiser.
    pub sanitized: Vec<Msg>,
    /// How many leading messages of `sanitized` are the memo's prefix.
    sanitized_prefix: usize,
}

/// The flags of one attempt's pipeline run.
#[derive(Clone, Copy, Debug)]
pub struct Flags {
    pub hide_orphan_user: bool,
    pub merge_users: bool,
    pub append_only: bool,
}

fn key(profile: &Profile, setup: &Setup, f: Flags) -> String {
    format!("{}|{}|{}|{}|{:?}|{:?}|{}|{}", profile.id, setup.provider, setup.api, setup.model, setup.tools, setup.client_tools, f.merge_users, f.append_only)
}

fn run(profile: &Profile, setup: &Setup, source: &[Msg], hide_orphan_user: bool, f: Flags) -> (PipelineOut<Msg>, Vec<Msg>) {
    let piped = pipeline::run_with_policy(profile, source, hide_orphan_user, f.merge_users, f.append_only);
    let sanitized = replay::sanitize_shared(profile, setup, piped.messages.clone());
    (piped, sanitized)
}

const PAIRING: &str = "pairing-repaired";

/// The attempt's history over `source` (the session as the attempt reads
/// it), from `memo` where it covers it; the memo then extends to the last
/// cut of `source`.
pub fn prepare(memo: &mut Option<Memo>, profile: &Profile, setup: &Setup, source: &[Msg], f: Flags) -> Prepared {
    let k = key(profile, setup, f);
    let usable = memo.as_ref().is_some_and(|m| m.key == k && m.covers(source));
    if !usable {
        *memo = Some(Memo { key: k, ..Memo::default() });
    }
    let m = memo.as_mut().expect("set above");
    let start = m.source.len();
    // Past the memo: up to the last cut that nothing after it reaches back
    // over (kept), then the rest (this attempt's).
    let cut = (start + 1..source.len()).rev().find(|&c| cut_at(source, c)).and_then(|c| {
        let segment = Facts::of(&source[start..c]);
        Facts::kept_by(&[&m.facts, &segment], &source[c..]).then_some((c, segment))
    });
    let mut pairing = m.pairing_repaired;
    let mut from = start;
    if let Some((c, segment)) = cut {
        let (p, s) = run(profile, setup, &source[start..c], false, f);
        pairing |= p.notes.iter().any(|(code, _)| *code == PAIRING);
        m.source.extend_from_slice(&source[start..c]);
        std::sync::Arc::make_mut(&mut m.piped).extend(p.messages);
        m.sanitized.extend(s);
        m.pairing_repaired = pairing;
        m.facts.ids.extend(segment.ids);
        m.facts.compaction_ts = [m.facts.compaction_ts, segment.compaction_ts].into_iter().flatten().reduce(f64::max);
        from = c;
    }
    let (rest, rest_sanitized) = run(profile, setup, &source[from..], f.hide_orphan_user, f);
    let mut sanitized = Vec::with_capacity(m.sanitized.len() + rest_sanitized.len());
    sanitized.extend_from_slice(&m.sanitized);
    sanitized.extend(rest_sanitized);
    let mut notes = rest.notes;
    if pairing && !notes.iter().any(|(code, _)| *code == PAIRING) {
        notes.push((PAIRING, "tool-use/result pairing repaired in history".into()));
    }
    let out = Prepared { notes, piped_prefix: m.piped.clone(), piped_rest: rest.messages, sanitized, sanitized_prefix: m.sanitized.len() };
    #[cfg(debug_assertions)]
    {
        let (whole, whole_sanitized) = run(profile, setup, source, f.hide_orphan_user, f);
        assert_eq!(out.piped(), whole.messages, "history memo: the pipeline's output differs from the whole computation");
        assert_eq!(out.notes, whole.notes, "history memo: the pipeline's notes differ from the whole computation");
        assert_eq!(out.sanitized, whole_sanitized, "history memo: the sanitised history differs from the whole computation");
    }
    out
}

impl Prepared {
    /// The pipeline's output (a copy).
    pub fn piped(&self) -> Vec<Msg> {
        self.piped_prefix.iter().chain(&self.piped_rest).cloned().collect()
    }

    /// The sanitiser over the pipeline's output with `extra` appended
    /// (2026.4.26's orphaned user, assembled with the history).
    pub fn sanitized_with(&self, profile: &Profile, setup: &Setup, extra: Msg) -> Vec<Msg> {
        let tail: Vec<Msg> = self.piped_rest.iter().cloned().chain([extra.clone()]).collect();
        let mut out = self.sanitized[..self.sanitized_prefix].to_vec();
        out.extend(replay::sanitize_shared(profile, setup, tail));
        #[cfg(debug_assertions)]
        {
            let whole = replay::sanitize_shared(profile, setup, self.piped().into_iter().chain([extra]).collect());
            assert_eq!(out, whole, "history memo: the sanitised history with the orphan differs from the whole computation");
        }
        out
    }
}

impl Memo {
    /// Whether the memo's prefix is where `source` starts and nothing after
    /// it reaches back over it.
    fn covers(&self, source: &[Msg]) -> bool {
        source.len() >= self.source.len() && self.source.iter().zip(source).all(|(a, b)| Msg::ptr_eq(a, b)) && Facts::kept_by(&[&self.facts], &source[self.source.len()..])
    }
}

/// An id as stored, trimmed, and reduced to its alphanumerics (what the
/// id sanitiser and the pairing repair compare).
fn id_forms(id: &str) -> [String; 3] {
    [id.to_string(), id.trim().to_string(), id.chars().filter(|c| c.is_ascii_alphanumeric()).collect()]
}

/// Whether the passes' result over `source[..c]` is final: `source[c]` is a
/// plain user message, `source[c - 1]` a plain final reply (kept by every
/// pass, no tool call or thinking to pair or strip), and the user message
/// that reply answers is plain too (so no heartbeat span covers it) with no
/// assistant right before the reply (which a zero-usage repeat would be
/// merged into).
pub fn cut_at(source: &[Msg], c: usize) -> bool {
    if c < 2 || c >= source.len() || !plain_user(&source[c]) || !plain_reply(&source[c - 1]) || matches!(*source[c - 2], AgentMessage::Assistant(_)) {
        return false;
    }
    source[..c - 1].iter().rev().find(|m| matches!(***m, AgentMessage::User(_))).is_some_and(plain_user)
}

/// Text no pass treats specially: not blank, no heartbeat prompt or ack
/// (any mention of a heartbeat is taken for one), no silent reply.
fn plain_text(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty() && !t.to_ascii_lowercase().contains("heartbeat") && !t.contains(markers::NO_REPLY) && !t.contains(markers::HEARTBEAT_OK)
}

fn plain_user(m: &Msg) -> bool {
    let AgentMessage::User(u) = &**m else { return false };
    let text_only = match &u.content {
        MessageContent::Text(t) => plain_text(t),
        MessageContent::Blocks(b) => !b.is_empty() && b.iter().all(|b| matches!(b, ContentBlock::Text(t) if plain_text(&t.text) && t.text_signature.is_none() && t.extra.is_empty())),
    };
    text_only && u.provenance.is_none() && !u.extra.contains_key("excludeFromContext")
}

fn plain_reply(m: &Msg) -> bool {
    let AgentMessage::Assistant(a) = &**m else { return false };
    !a.content.is_empty()
        && a.content.iter().all(|b| matches!(b, ContentBlock::Text(t) if plain_text(&t.text)))
        && a.stop_reason.as_deref() == Some("stop")
        && a.error_message.is_none()
        && a.timestamp.is_some()
        && a.provider.as_deref() != Some("openclaw")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// A message from a small alphabet of what sessions hold: plain turns,
    /// heartbeats and their acks, silent replies, tool calls (ids from a
    /// small set, so repeats happen) and results, thinking, a compaction
    /// summary, blank and inter-session users, runtime-context carriers.
    fn message(kind: u8, n: u64) -> Msg {
        let ts = 1_000 + n;
        let id = format!("call_{}", n % 3);
        let v = match kind % 19 {
            0 | 1 => json!({"role": "user", "content": format!("question {n}"), "timestamp": ts}),
            2 | 3 => json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {n}")}], "stopReason": "stop", "timestamp": ts, "provider": "anthropic"}),
            4 => json!({"role": "user", "content": markers::HEARTBEAT_PROMPT, "timestamp": ts}),
            5 => json!({"role": "assistant", "content": [{"type": "text", "text": if n % 2 == 0 { markers::HEARTBEAT_OK } else { markers::NO_REPLY }}], "stopReason": "stop", "timestamp": ts}),
            6 => json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}], "stopReason": "toolUse", "timestamp": ts}),
            7 => json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "ok"}], "isError": false, "timestamp": ts}),
            8 => json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"}, {"type": "text", "text": "x"}], "stopReason": "stop", "timestamp": ts}),
            9 => json!({"role": "compactionSummary", "summary": "so far", "tokensBefore": 10, "timestamp": ts}),
            10 => json!({"role": "user", "content": "  ", "timestamp": ts}),
            11 => json!({"role": "user", "content": "from another session", "provenance": {"kind": "inter_session", "sourceSessionKey": "agent:main:other"}, "timestamp": ts}),
            12 => json!({"role": "custom", "customType": RUNTIME_CONTEXT_CUSTOM_TYPE, "content": "ctx", "display": false, "timestamp": ts}),
            14 => json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "boom", "timestamp": ts}),
            15 => json!({"role": "assistant", "content": [{"type": "text", "text": "✅ New session started."}], "stopReason": "stop", "provider": "openclaw", "model": "gateway-injected", "timestamp": ts}),
            16 => json!({"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], "timestamp": ts}),
            17 => json!({"role": "toolResult", "toolCallId": format!(" {id} "), "toolName": "", "content": [{"type": "text", "text": ""}], "isError": true, "timestamp": ts}),
            _ => json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {}", n / 2)}], "stopReason": "stop", "timestamp": ts, "usage": {"input": 0, "output": 0, "totalTokens": 0}}),
        };
        Msg::new(serde_json::from_value(v).expect("an AgentMessage"))
    }

    fn setups() -> Vec<Setup> {
        [("anthropic", "anthropic-messages"), ("openai", "openai-completions"), ("google", "google-generative-ai"), ("openai", "openai-responses"), ("mistral", "openai-completions")]
            .into_iter()
            .map(|(provider, api)| Setup { provider: provider.into(), api: api.into(), tools: vec!["read".into()], ..Setup::default() })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// A session grown a few messages at a time, an attempt after each
        /// growth: every attempt's history through the memo is the whole
        /// computation's (the debug assertion in `prepare` compares the
        /// two; this drives it over histories the scenario library lacks).
        #[test]
        fn the_memo_agrees_with_the_whole_computation(kinds in proptest::collection::vec(0u8..19, 1..60), steps in proptest::collection::vec(1usize..6, 1..20), setup in 0usize..5, profile in 0usize..3, flags in 0u8..8) {
            let profile = Profile::all().swap_remove(profile);
            let setup = setups().swap_remove(setup);
            let f = Flags { hide_orphan_user: flags & 1 != 0, merge_users: flags & 2 != 0, append_only: flags & 4 != 0 };
            let session: Vec<Msg> = kinds.iter().enumerate().map(|(i, k)| message(*k, i as u64)).collect();
            let mut memo = None;
            let mut len = 0;
            for s in steps.iter().cycle().take(session.len()) {
                len = (len + s).min(session.len());
                let out = prepare(&mut memo, &profile, &setup, &session[..len], f);
                let (whole, sanitized) = run(&profile, &setup, &session[..len], f.hide_orphan_user, f);
                prop_assert_eq!(out.piped(), whole.messages);
                prop_assert_eq!(out.sanitized, sanitized);
                if len == session.len() {
                    break;
                }
            }
        }
    }

    #[test]
    fn a_plain_session_is_memoised_up_to_its_last_turn() {
        let session: Vec<Msg> = (0..40).map(|i| message((i % 2 * 2) as u8, i)).collect();
        let (profile, setup) = (Profile::current_2026_9_6(), Setup::default());
        let f = Flags { hide_orphan_user: true, merge_users: true, append_only: false };
        let mut memo = None;
        for len in (2..=40).step_by(2) {
            prepare(&mut memo, &profile, &setup, &session[..len], f);
        }
        let m = memo.expect("a memo");
        assert_eq!(m.source.len(), 38, "cut before the last user message");
        assert!(m.source.iter().zip(&session).all(|(a, b)| Msg::ptr_eq(a, b)));
    }
}
