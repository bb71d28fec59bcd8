//! 2026.4.26's tool-result truncation for context-overflow recovery, and the
//! precheck's choice between truncating and compacting.
//!
//! - The precheck (dist preemptive-compaction-*.js
//!   `shouldPreemptivelyCompactBeforePrompt`) weighs the overflow against what
//!   truncating tool results could free (`estimateToolResultReductionPotential`):
//!   nothing → `compact_only`; at least `max(overflowChars + 512·4,
//!   ⌈1.5·overflowChars⌉)` → `truncate_tool_results_only`; else
//!   `compact_then_truncate` (overflow chars = 4 × overflow tokens).
//! - `truncate_tool_results_only` truncates in the session
//!   (`truncateOversizedToolResultsInSessionManager`) and, when that changed
//!   something, the run loop retries without compacting (selection-*.js
//!   `preflightRecovery: {route, handled: true}`, pi-embedded-*.js
//!   "[context-overflow-precheck] early recovery route=… completed; retrying
//!   prompt"); else it falls back to `compact_only`.
//! - `compact_then_truncate` compacts, then truncates in the session
//!   (pi-embedded-*.js, after a successful overflow compaction).
//!
//! The truncation itself is dist tool-result-truncation-*.js: a tool result
//! whose text passes `resolveLiveToolResultMaxChars` (min(⌊0.3·window⌋·4,
//! 16 000)) is cut to it (`truncateToolResultMessage`, head + tail when the
//! tail looks important); with two or more results over that aggregate
//! budget, the newest are cut first. Recovery keeps no minimum
//! (`RECOVERY_MIN_KEEP_CHARS` 0). Lengths are JS string lengths (UTF-16).
//! Twin of overflow-truncation-fallback on 2026.4.26 (--keep, gateway.log:
//! "route=truncate_tool_results_only truncatedCount=1 … toolResultReducibleChars=17919").

use clawspec_contract::{AgentMessage, ContentBlock};

use super::Sim;

/// `DEFAULT_MAX_LIVE_TOOL_RESULT_CHARS` (no `toolResultMaxChars` configured).
pub const DEFAULT_MAX_LIVE_CHARS: u64 = 16_000;
/// `MAX_TOOL_RESULT_CONTEXT_SHARE`.
const CONTEXT_SHARE: f64 = 0.3;
/// `TRUNCATION_ROUTE_BUFFER_TOKENS`.
const ROUTE_BUFFER_TOKENS: u64 = 512;
/// `MIDDLE_OMISSION_MARKER`.
const MIDDLE_OMISSION_MARKER: &str = "\n\n⚠️ [... middle content omitted — showing head and tail ...]\n\n";

/// The precheck's recovery route (`shouldPreemptivelyCompactBeforePrompt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Fits,
    CompactOnly,
    TruncateToolResultsOnly,
    CompactThenTruncate,
}

/// `resolveLiveToolResultMaxChars` without a configured cap.
pub fn live_max_chars(context_window: u64) -> u64 {
    (((context_window as f64) * CONTEXT_SHARE).floor() as u64 * 4).min(DEFAULT_MAX_LIVE_CHARS).max(1)
}

/// The route for `overflow_tokens` over the prompt budget, given the
/// messages the precheck weighed.
pub fn route(overflow_tokens: u64, messages: &[AgentMessage], context_window: u64) -> Route {
    if overflow_tokens == 0 {
        return Route::Fits;
    }
    let reducible = reduction_potential(messages, context_window);
    let overflow_chars = overflow_tokens * 4;
    let threshold = (overflow_chars + ROUTE_BUFFER_TOKENS * 4).max((overflow_chars as f64 * 1.5).ceil() as u64);
    if reducible == 0 {
        Route::CompactOnly
    } else if reducible >= threshold {
        Route::TruncateToolResultsOnly
    } else {
        Route::CompactThenTruncate
    }
}

/// `estimateToolResultReductionPotential(…).maxReducibleChars`.
pub fn reduction_potential(messages: &[AgentMessage], context_window: u64) -> u64 {
    let before: u64 = messages.iter().map(text_len).sum();
    let after: u64 = plan(messages, live_max_chars(context_window)).iter().zip(messages).map(|(r, m)| r.as_ref().map_or_else(|| text_len(m), text_len)).sum();
    before - after
}

/// Truncate the oversized tool results of `messages` in place
/// (`truncateOversizedToolResultsInSessionManager`); the number rewritten.
pub fn truncate_in_place(messages: &mut [&mut AgentMessage], context_window: u64) -> usize {
    let view: Vec<AgentMessage> = messages.iter().map(|m| (**m).clone()).collect();
    let replacements = plan(&view, live_max_chars(context_window));
    let mut n = 0;
    for (slot, r) in messages.iter_mut().zip(replacements) {
        if let Some(r) = r {
            **slot = r;
            n += 1;
        }
    }
    n
}

/// `truncateOversizedToolResultsInSessionManager` on the session's live
/// branch: the entries are rewritten (the engine reads the new text); the
/// number rewritten.
pub fn truncate_session(sim: &mut Sim<'_>) -> usize {
    let window = sim.budget();
    let from = sim.transcript.context_start();
    let mut live: Vec<&mut AgentMessage> = sim.transcript.entries[from..].iter_mut().filter(|e| !e.abandoned).map(|e| e.message.make_mut()).collect();
    let n = truncate_in_place(&mut live, window);
    if n > 0 {
        sim.rewrites += n as u64;
        sim.transcript.rewritten();
        sim.flush();
        sim.note("tool-result-truncation", format!("[tool-result-truncation] Truncated {n} tool result(s) in session (contextWindow={window} maxChars={})", live_max_chars(window)));
    }
    n
}

/// `buildToolResultReplacementPlan` with no minimum kept: the replacement of
/// each message, oversized ones first, then the aggregate pass over the
/// result.
fn plan(messages: &[AgentMessage], max_chars: u64) -> Vec<Option<AgentMessage>> {
    let mut out: Vec<Option<AgentMessage>> = messages
        .iter()
        .map(|m| (is_tool_result(m) && text_len(m) > max_chars).then(|| truncate_message(m, max_chars, 0)))
        .collect();
    // The aggregate pass sees the oversized-trimmed branch.
    let current = |i: usize, out: &[Option<AgentMessage>]| out[i].clone().unwrap_or_else(|| messages[i].clone());
    let candidates: Vec<usize> = (0..messages.len()).filter(|&i| is_tool_result(&messages[i]) && text_len(&current(i, &out)) > 0).collect();
    if candidates.len() < 2 {
        return out;
    }
    let total: u64 = candidates.iter().map(|&i| text_len(&current(i, &out))).sum();
    // `calculateRecoveryAggregateToolResultChars`: the single-result cap.
    if total <= max_chars {
        return out;
    }
    let min_truncated = js_len(&notice(1));
    let mut remaining = total - max_chars;
    // Newest first (higher index first).
    for &i in candidates.iter().rev() {
        if remaining == 0 {
            break;
        }
        let m = current(i, &out);
        let len = text_len(&m);
        let reducible = len.saturating_sub(min_truncated);
        if reducible == 0 {
            continue;
        }
        let target = min_truncated.max(len - reducible.min(remaining));
        let t = truncate_message(&m, target, 0);
        let actual = len.saturating_sub(text_len(&t));
        if actual == 0 {
            continue;
        }
        out[i] = Some(t);
        remaining = remaining.saturating_sub(actual);
    }
    out
}

fn is_tool_result(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::ToolResult(_))
}

/// `getToolResultTextLength`: the text blocks of a tool result.
fn text_len(m: &AgentMessage) -> u64 {
    match m {
        AgentMessage::ToolResult(r) => r.content.iter().map(|b| if let ContentBlock::Text(t) = b { js_len(&t.text) } else { 0 }).sum(),
        _ => 0,
    }
}

fn js_len(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

/// `formatContextLimitTruncationNotice`.
fn notice(truncated: u64) -> String {
    format!("[... {} more characters truncated]", truncated.max(1))
}

/// `truncateToolResultMessage`: each text block gets its share of `max_chars`.
fn truncate_message(m: &AgentMessage, max_chars: u64, min_keep: u64) -> AgentMessage {
    let min_keep = effective_min_keep(max_chars, min_keep);
    let total = text_len(m);
    let mut out = m.clone();
    if total <= max_chars {
        return out;
    }
    if let AgentMessage::ToolResult(r) = &mut out {
        for b in &mut r.content {
            if let ContentBlock::Text(t) = b {
                let len = js_len(&t.text);
                let share = len as f64 / total as f64;
                let proportional = (max_chars as f64 * share).floor() as u64;
                let suffix = js_len(&notice(len.saturating_sub(proportional).max(1)));
                let budget = (min_keep + suffix).max(proportional).min(max_chars).max(1);
                t.text = truncate_text(&t.text, budget, min_keep);
            }
        }
    }
    out
}

/// `resolveEffectiveMinKeepChars`.
fn effective_min_keep(max_chars: u64, min_keep: u64) -> u64 {
    min_keep.min(max_chars.saturating_sub(js_len(&notice(1))))
}

/// `truncateToolResultText`, in UTF-16 units.
fn truncate_text(text: &str, max_chars: u64, min_keep: u64) -> String {
    let min_keep = effective_min_keep(max_chars, min_keep) as i64;
    let u: Vec<u16> = text.encode_utf16().collect();
    let len = u.len() as i64;
    let max = max_chars as i64;
    if len <= max {
        return text.to_string();
    }
    let default_suffix = js_len(&notice((len - max).max(1) as u64)) as i64;
    let budget = min_keep.max(max - default_suffix);
    let s = |a: i64, b: i64| String::from_utf16_lossy(&u[a.clamp(0, len) as usize..b.clamp(0, len) as usize]);
    if has_important_tail(text) && budget > min_keep * 2 {
        let tail_budget = ((budget as f64 * 0.3).floor() as i64).min(4000);
        let head_budget = budget - tail_budget - 63;
        if head_budget > min_keep {
            let mut head_cut = head_budget;
            if let Some(nl) = last_newline_at_or_before(&u, head_budget) {
                if nl as f64 > head_budget as f64 * 0.8 {
                    head_cut = nl;
                }
            }
            let mut tail_start = len - tail_budget;
            if let Some(nl) = u[tail_start.max(0) as usize..].iter().position(|&c| c == b'\n' as u16).map(|p| tail_start.max(0) + p as i64) {
                if (nl as f64) < tail_start as f64 + tail_budget as f64 * 0.2 {
                    tail_start = nl + 1;
                }
            }
            let kept = format!("{}{MIDDLE_OMISSION_MARKER}{}", s(0, head_cut), s(tail_start, len));
            return append_bounded_suffix(kept, len as u64, max_chars);
        }
    }
    let mut cut = budget;
    if let Some(nl) = last_newline_at_or_before(&u, budget) {
        if nl as f64 > budget as f64 * 0.8 {
            cut = nl;
        }
    }
    append_bounded_suffix(s(0, cut), len as u64, max_chars)
}

/// JS `lastIndexOf("\n", from)`.
fn last_newline_at_or_before(u: &[u16], from: i64) -> Option<i64> {
    if from < 0 {
        return None;
    }
    let end = (from as usize).min(u.len().saturating_sub(1));
    (0..=end).rev().find(|&i| u.get(i) == Some(&(b'\n' as u16))).map(|i| i as i64)
}

/// `appendBoundedTruncationSuffix`.
fn append_bounded_suffix(kept: String, original_len: u64, max_chars: u64) -> String {
    let mut kept: Vec<u16> = kept.encode_utf16().collect();
    loop {
        let suffix: Vec<u16> = notice(original_len.saturating_sub(kept.len() as u64).max(1)).encode_utf16().collect();
        let total = kept.len() + suffix.len();
        if total as u64 <= max_chars {
            kept.extend(suffix);
            return String::from_utf16_lossy(&kept);
        }
        if kept.is_empty() {
            return String::from_utf16_lossy(&suffix[..max_chars as usize]);
        }
        let overflow = total - max_chars as usize;
        let next = kept.len().saturating_sub(overflow);
        kept.truncate(if next < kept.len() { next } else { kept.len() - 1 });
    }
}

/// `hasImportantTail`: the last 2 000 chars, trimmed and lower-cased, name an
/// error or a result, or end a JSON object.
fn has_important_tail(text: &str) -> bool {
    let u: Vec<u16> = text.encode_utf16().collect();
    let tail = String::from_utf16_lossy(&u[u.len().saturating_sub(2000)..]).trim().to_lowercase();
    const WORDS: [&str; 15] = [
        "error", "exception", "failed", "fatal", "traceback", "panic", "stack trace", "errno", "exit code", "total", "summary", "result", "complete",
        "finished", "done",
    ];
    WORDS.iter().any(|w| has_word(&tail, w)) || tail.trim_end().ends_with('}')
}

/// `\bword\b` in ASCII word-character terms.
fn has_word(hay: &str, word: &str) -> bool {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    hay.match_indices(word).any(|(i, _)| !is_word(hay[..i].chars().next_back()) && !is_word(hay[i + word.len()..].chars().next()))
}

#[cfg(test)]
mod tests {
    use rstest::rstest;
    use serde_json::json;

    use super::*;

    fn tool_result(text: &str) -> AgentMessage {
        serde_json::from_value(json!({"role": "toolResult", "toolCallId": "t1", "toolName": "read", "content": [{"type": "text", "text": text}], "isError": false}))
            .unwrap()
    }

    fn text(m: &AgentMessage) -> String {
        match m {
            AgentMessage::ToolResult(r) => match &r.content[0] {
                ContentBlock::Text(t) => t.text.clone(),
                _ => unreachable!(),
            },
            _ => unreachable!(),
        }
    }

    #[rstest]
    #[case::small_window(24_000, 16_000)]
    #[case::tiny_window(10_000, 12_000)]
    #[case::large_window(200_000, 16_000)]
    fn the_live_cap_is_three_tenths_of_the_window_capped_at_16k(#[case] window: u64, #[case] want: u64) {
        assert_eq!(live_max_chars(window), want);
    }

    /// The twin's numbers (gateway.log of overflow-truncation-fallback):
    /// a ~33 900-char log over a 24 000-token window frees 17 919 chars,
    /// enough for 2 264 overflow tokens, so the precheck truncates only.
    #[test]
    fn an_oversized_log_is_cut_head_and_tail_to_the_cap() {
        let line = "ERROR integration/test_network.py::test_retry TimeoutError after 5.0s while connecting to 127.0.0.1:8089;";
        let log = vec![line; 325].join(" ");
        let m = tool_result(&log);
        let cut = truncate_message(&m, 16_000, 0);
        let t = text(&cut);
        assert_eq!(js_len(&t), 16_000, "fills the cap exactly");
        assert!(t.contains(MIDDLE_OMISSION_MARKER), "an error tail keeps head and tail");
        assert!(t.ends_with(" more characters truncated]"));
        assert_eq!(reduction_potential(std::slice::from_ref(&m), 24_000), js_len(&log) - 16_000);
        assert_eq!(route(2_264, &[m.clone()], 24_000), Route::TruncateToolResultsOnly);
        assert_eq!(route(2_264, &[AgentMessage::user_text("x")], 24_000), Route::CompactOnly);
        assert_eq!(route(0, &[m], 24_000), Route::Fits);
    }

    #[test]
    fn a_small_reduction_compacts_first() {
        let m = tool_result(&"a".repeat(17_000));
        // 1 000 chars reducible against 10 000 overflow tokens.
        assert_eq!(route(10_000, &[m], 24_000), Route::CompactThenTruncate);
    }

    #[test]
    fn a_plain_tail_keeps_the_head_only() {
        let t = truncate_text(&"x".repeat(5_000), 1_000, 0);
        assert_eq!(js_len(&t), 1_000);
        assert!(t.starts_with("xxx") && t.ends_with("[... 4036 more characters truncated]"), "{t}");
    }

    #[test]
    fn several_results_over_the_aggregate_budget_cut_the_newest_first() {
        let ms = [tool_result(&"a".repeat(9_000)), tool_result(&"b".repeat(9_000))];
        let out = plan(&ms, 16_000);
        assert!(out[0].is_none(), "the older one fits once the newer is cut");
        assert_eq!(text_len(out[1].as_ref().unwrap()), 7_000);
    }

    #[rstest]
    #[case("all tests passed", false)]
    #[case("1 test failed", true)]
    #[case("errors: none", false)]
    #[case("{\"ok\": true}\n", true)]
    fn an_important_tail_names_an_error_or_a_result(#[case] tail: &str, #[case] want: bool) {
        assert_eq!(has_important_tail(tail), want);
    }
}
