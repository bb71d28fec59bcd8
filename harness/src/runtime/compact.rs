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

use clawspec_contract::{AgentMessage, ContentBlock, MessageContent};
use serde_json::{json, Map, Value};

use super::callbacks::CompactionPlan;
use super::pi_compaction;
use super::transcript::Entry;
use super::Sim;

/// What the mock provider answers a model call its step scripts no reply
/// for (mock-providers/src/server.rs: `{"text": "ok"}`). A `/compact` step
/// scripts none, so the real host's summarisation call gets this text.
pub const UNSCRIPTED_REPLY: &str = "ok";

/// 2026.4.26's built-in compaction behind `delegateCompactionToRuntime` for a
/// manual `/compact` (dist delegate-*.js → compact-*.js
/// `compactEmbeddedPiSessionDirect`):
/// - `activeSession.compact(customInstructions)` is pi's compaction
///   (@mariozechner/pi-coding-agent dist/core/compaction/compaction.js
///   `compact`): the summary is the model's reply text as is, plus
///   `formatFileOperations` (`<read-files>`/`<modified-files>` sections) when
///   the summarised turns read or changed files; `details: {readFiles,
///   modifiedFiles}`; `tokensBefore` is `estimateContextTokens` (the last
///   valid assistant usage, `totalTokens || input+output+cacheRead+cacheWrite`,
///   plus pi estimates of what follows it).
/// - `trigger: "manual"` hardens the boundary (`hardenManualCompactionBoundary`,
///   no `keepRecentTokens` configured): `firstKeptEntryId` becomes the
///   compaction entry's own id, so nothing before it stays in context.
/// - `tokensBefore: observedTokenCount ?? result.tokensBefore` (the command
///   passes no `currentTokenCount`); `tokensAfter` is the estimate of what is
///   left (the summary message), dropped when above 1.1 × the full session's
///   estimate (build-*.js `estimateTokensAfterCompaction`).
/// - A session with no real conversation is skipped ("no real conversation
///   messages").
///
/// The summary message pi projects into context is `{role:
/// "compactionSummary", summary, tokensBefore, timestamp}`. Twinned on the
/// real 2026.4.26 gateway (`clawspec twin manual-compact --engine builtin:legacy`:
/// summary "ok", tokensAfter 1, details with empty lists).
#[derive(Clone, Debug)]
pub struct Builtin2026_4 {
    /// The id the compaction entry will get (`Transcript::next_id`).
    pub compaction_entry_id: String,
    /// The session's last entry is a compaction (`Transcript::compaction_is_last`).
    pub compaction_is_last: bool,
}

/// pi's `keepRecentTokens` default (runtime::pi_compaction).
pub use super::pi_compaction::KEEP_RECENT_TOKENS;

/// One summarisation call's answer: its text, or the provider's failure.
pub type SummaryReply = Result<String, String>;

impl Builtin2026_4 {
    /// `ask` answers each summarisation model call in the order pi sends
    /// them (the history first, then a split turn's prefix: `Promise.all`
    /// starts them in that order).
    pub fn compact(&self, live: &[&Entry], params: &Value, ask: &mut dyn FnMut() -> SummaryReply) -> (Value, Option<CompactionPlan>) {
        let ms: Vec<&AgentMessage> = live.iter().map(|e| &*e.message).collect();
        if !ms.iter().any(|m| is_real_conversation(m)) {
            return (json!({"ok": true, "compacted": false, "reason": "no real conversation messages"}), None);
        }
        let manual = params["runtimeContext"]["trigger"] == "manual";
        // `prepareCompaction`: nothing after the last compaction ⇒ no preparation
        // (agent-session.js then throws "Already compacted", which
        // compactEmbeddedPiSessionDirect reports as a failed result; twin of
        // overflow-natural on 2026.4.26).
        // (pi appends the compaction entry after the kept tail, so it stays the
        // last entry until something new is written.)
        if self.compaction_is_last || matches!(ms.last(), Some(AgentMessage::CompactionSummary(_))) {
            return (json!({"ok": false, "compacted": false, "reason": "Already compacted"}), None);
        }
        let start = ms.iter().rposition(|m| matches!(m, AgentMessage::CompactionSummary(_))).map_or(0, |i| i + 1);
        let cut = pi_compaction::find_cut_point(&ms, start, KEEP_RECENT_TOKENS);
        let history: Vec<&AgentMessage> = ms[start..cut.history_end()].to_vec();
        let prefix: Vec<&AgentMessage> = cut.turn_start.map(|t| ms[t..cut.first_kept].to_vec()).unwrap_or_default();
        let text = if !prefix.is_empty() {
            let h = if history.is_empty() { Ok("No prior history.".to_string()) } else { ask() };
            let p = ask();
            h.and_then(|h| p.map(|p| format!("{h}\n\n---\n\n**Turn Context (split turn):**\n\n{p}")))
        } else {
            ask()
        };
        let text = match text {
            Ok(t) => t,
            // generateSummary throws on `stopReason: "error"` (compaction.js).
            Err(e) => return (json!({"ok": false, "compacted": false, "reason": format!("Summarization failed: {e}")}), None),
        };
        let mut summarised = history.clone();
        summarised.extend(prefix.iter().copied());
        let (read, modified) = file_lists(&summarised);
        let summary = format!("{text}{}", format_file_operations(&read, &modified));
        let observed = params.get("currentTokenCount").and_then(Value::as_u64).filter(|n| *n > 0);
        let tokens_before = observed.unwrap_or_else(|| pi_compaction::estimate_context_tokens(&ms));
        let full: u64 = ms.iter().map(|m| pi_compaction::estimate_tokens(m)).sum();
        // A manual boundary keeps nothing (module doc); else the kept tail stays.
        let first_kept = if manual { live.len() } else { cut.first_kept };
        let after = js_len(&summary).div_ceil(4) + ms[first_kept..].iter().map(|m| pi_compaction::estimate_tokens(m)).sum::<u64>();
        let baseline = observed.unwrap_or(full);
        let over = match observed {
            Some(o) => after > o,
            None => baseline > 0 && after as f64 > baseline as f64 * 1.1,
        };
        let tokens_after = (!over).then_some(after);
        let first_kept_id = if manual { self.compaction_entry_id.clone() } else { live[first_kept].id.clone() };
        let mut result = json!({"summary": summary, "firstKeptEntryId": first_kept_id, "tokensBefore": tokens_before,
            "details": {"readFiles": read, "modifiedFiles": modified}});
        if let Some(t) = tokens_after {
            result["tokensAfter"] = json!(t);
        }
        let plan = CompactionPlan { first_kept, summary, tokens_before, tokens_after: tokens_after.unwrap_or(0), pi_message: true };
        (json!({"ok": true, "compacted": true, "result": result}), Some(plan))
    }
}

/// JS `string.length`: UTF-16 code units.
fn js_len(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

/// `isRealConversationMessage` in short: a user or assistant message with
/// some text (the scenarios' sessions have no other anchors).
fn is_real_conversation(m: &AgentMessage) -> bool {
    match m {
        AgentMessage::User(u) => match &u.content {
            MessageContent::Text(t) => !t.trim().is_empty(),
            MessageContent::Blocks(b) => b.iter().any(|b| matches!(b, ContentBlock::Text(t) if !t.text.trim().is_empty()) || matches!(b, ContentBlock::Image(_))),
        },
        AgentMessage::Assistant(a) => a.content.iter().any(|b| matches!(b, ContentBlock::Text(t) if !t.text.trim().is_empty())),
        _ => false,
    }
}

/// pi's file operations of the summarised turns (compaction/utils.js
/// `extractFileOpsFromMessage`, `computeFileLists`): `read` calls read a
/// path, `write`/`edit` calls modify one; a modified file is not listed as
/// read; both sorted.
pub(super) fn file_lists(ms: &[&AgentMessage]) -> (Vec<String>, Vec<String>) {
    let (mut read, mut modified) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for m in ms {
        if let AgentMessage::Assistant(a) = m {
            for b in &a.content {
                if let ContentBlock::ToolCall(c) = b {
                    let Some(path) = c.arguments.get("path").and_then(Value::as_str) else { continue };
                    match c.name.as_str() {
                        "read" => {
                            read.insert(path.to_string());
                        }
                        "write" | "edit" => {
                            modified.insert(path.to_string());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let read = read.difference(&modified).cloned().collect();
    (read, modified.into_iter().collect())
}

/// pi's `formatFileOperations` (compaction/utils.js).
pub(super) fn format_file_operations(read: &[String], modified: &[String]) -> String {
    let mut sections = Vec::new();
    if !read.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", read.join("\n")));
    }
    if !modified.is_empty() {
        sections.push(format!("<modified-files>\n{}\n</modified-files>", modified.join("\n")));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}

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

    fn entries(ms: Value) -> Vec<Entry> {
        let ms: Vec<AgentMessage> = serde_json::from_value(ms).unwrap();
        ms.into_iter().enumerate().map(|(i, message)| Entry { id: format!("e{}", i + 1), parent_id: None, timestamp: 1, message: message.into(), abandoned: false }).collect()
    }

    fn manual(es: &[Entry], params: Value) -> (Value, Option<CompactionPlan>) {
        let b = Builtin2026_4 { compaction_entry_id: "e9".into(), compaction_is_last: false };
        b.compact(&es.iter().collect::<Vec<_>>(), &params, &mut || Ok(UNSCRIPTED_REPLY.to_string()))
    }

    /// The real 2026.4.26 host on manual-compact (`clawspec twin`): the
    /// mock's unscripted "ok" as summary, tokensBefore the last assistant's
    /// usage, tokensAfter the summary's estimate, nothing kept.
    #[test]
    fn a_2026_4_manual_compaction_summarises_everything_with_the_model_reply() {
        let es = entries(json!([
            {"role": "user", "content": "why did the build fail", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "a flaky test"}], "usage": {"input": 0, "output": 149, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 149}, "stopReason": "stop", "timestamp": 2},
        ]));
        let (r, plan) = manual(&es, json!({"runtimeContext": {"trigger": "manual"}}));
        assert_eq!(r, json!({"ok": true, "compacted": true, "result": {"summary": "ok", "firstKeptEntryId": "e9", "tokensBefore": 149, "tokensAfter": 1,
            "details": {"readFiles": [], "modifiedFiles": []}}}));
        let plan = plan.unwrap();
        assert_eq!((plan.first_kept, plan.pi_message), (2, true));
    }

    #[test]
    fn pi_counts_what_follows_the_last_usage_and_lists_files() {
        let es = entries(json!([
            {"role": "user", "content": "fix it", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.rs"}},
                {"type": "toolCall", "id": "c2", "name": "edit", "arguments": {"path": "b.rs"}}, {"type": "toolCall", "id": "c3", "name": "read", "arguments": {"path": "b.rs"}}],
                "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}, "stopReason": "toolUse", "timestamp": 2},
            {"role": "user", "content": "12345678", "timestamp": 3},
        ]));
        let (r, _) = manual(&es, json!({"runtimeContext": {"trigger": "manual"}}));
        assert_eq!(r["result"]["tokensBefore"], 17, "input+output, then 2 for the trailing user message");
        // Files come from the summarised part only: here pi keeps all of it.
        assert_eq!(r["result"]["details"], json!({"readFiles": [], "modifiedFiles": []}));
        let mut es = es;
        es.extend(entries(json!([{"role": "user", "content": "x".repeat(80_004), "timestamp": 4}])).into_iter().map(|mut e| {
            e.id = "e4".into();
            e
        }));
        let (r, _) = manual(&es, json!({"runtimeContext": {"trigger": "manual"}}));
        assert_eq!(r["result"]["details"], json!({"readFiles": ["a.rs"], "modifiedFiles": ["b.rs"]}));
        assert_eq!(r["result"]["summary"], "ok\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>");
        // An observed count wins, and bounds tokensAfter.
        let (r, _) = manual(&es, json!({"currentTokenCount": 900, "runtimeContext": {"trigger": "manual"}}));
        assert_eq!(r["result"]["tokensBefore"], 900);
    }

    /// A non-manual compaction keeps pi's recent tail (20 000 estimated
    /// tokens, cut at a user/assistant message) and asks the model once per
    /// part: a cut inside a turn adds the turn prefix's summary.
    #[test]
    fn a_2026_4_recovery_compaction_keeps_the_recent_tail_and_splits_a_cut_turn() {
        let big = "x".repeat(50_000); // 12 500 tokens each
        let es = entries(json!([
            {"role": "user", "content": big, "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": big}], "stopReason": "stop", "timestamp": 2},
            {"role": "user", "content": big, "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": big}], "stopReason": "stop", "timestamp": 4},
        ]));
        let b = Builtin2026_4 { compaction_entry_id: "e9".into(), compaction_is_last: false };
        let mut replies = vec![Ok("history".to_string()), Ok("prefix".to_string())].into_iter();
        let (r, plan) = b.compact(&es.iter().collect::<Vec<_>>(), &json!({"runtimeContext": {"trigger": "overflow"}}), &mut || replies.next().unwrap());
        // 12 500 (e4) < 20 000 ≤ 25 000 (e3+e4): the cut is at e3, a user message.
        assert_eq!(r["result"]["firstKeptEntryId"], "e3");
        assert_eq!(r["result"]["summary"], "history");
        assert_eq!(plan.unwrap().first_kept, 2);
        // Only the last assistant fits: cut at it, splitting the turn e3 started.
        let es = entries(json!([
            {"role": "user", "content": "short", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "short"}], "stopReason": "stop", "timestamp": 2},
            {"role": "user", "content": "short", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": big}, {"type": "text", "text": big}], "stopReason": "stop", "timestamp": 4},
        ]));
        let mut replies = vec![Ok("history".to_string()), Ok("prefix".to_string())].into_iter();
        let (r, _) = b.compact(&es.iter().collect::<Vec<_>>(), &json!({"runtimeContext": {"trigger": "overflow"}}), &mut || replies.next().unwrap());
        assert_eq!(r["result"]["firstKeptEntryId"], "e4");
        assert_eq!(r["result"]["summary"], "history\n\n---\n\n**Turn Context (split turn):**\n\nprefix");
        // A scripted provider failure fails the compaction.
        let (r, plan) = b.compact(&es.iter().collect::<Vec<_>>(), &json!({"runtimeContext": {"trigger": "overflow"}}), &mut || Err("boom".into()));
        assert_eq!(r, json!({"ok": false, "compacted": false, "reason": "Summarization failed: boom"}));
        assert!(plan.is_none());
    }

    /// timeout-recovery on the real 2026.4.26 host: a second compaction with
    /// nothing written since the first answers "Already compacted" without
    /// asking the model.
    #[test]
    fn a_2026_4_compaction_right_after_another_is_already_compacted() {
        let es = entries(json!([{"role": "user", "content": "fix it", "timestamp": 1}, {"role": "assistant", "content": [{"type": "text", "text": "done"}], "timestamp": 2}]));
        let b = Builtin2026_4 { compaction_entry_id: "e9".into(), compaction_is_last: true };
        let (r, plan) = b.compact(&es.iter().collect::<Vec<_>>(), &json!({"runtimeContext": {"trigger": "timeout_recovery"}}), &mut || panic!("no model call"));
        assert_eq!(r, json!({"ok": false, "compacted": false, "reason": "Already compacted"}));
        assert!(plan.is_none());
    }

    #[test]
    fn a_2026_4_session_without_conversation_is_skipped() {
        let (r, plan) = manual(&entries(json!([{"role": "user", "content": "  ", "timestamp": 1}])), json!({"runtimeContext": {"trigger": "manual"}}));
        assert_eq!(r, json!({"ok": true, "compacted": false, "reason": "no real conversation messages"}));
        assert!(plan.is_none());
    }

    #[test]
    fn recovery_triggers() {
        assert!(is_recovery_trigger("overflow") && is_recovery_trigger("timeout_recovery"));
        assert!(!is_recovery_trigger("manual"));
    }
}
