//! pi's compaction arithmetic (@mariozechner/pi-coding-agent 0.70.2
//! dist/core/compaction/compaction.js), the one compaction 2026.4.26 runs
//! both ways:
//! - pi's own overflow recovery inside an attempt (agent-session.js
//!   `_runAutoCompaction` → `prepareCompaction` → `compact`;
//!   runtime::pi_session), and
//! - the built-in engine's delegated compaction (openclaw dist delegate-*.js
//!   → compact-*.js `compactEmbeddedPiSessionDirect` →
//!   `activeSession.compact()` → the same `prepareCompaction`/`compact`; its
//!   own token bookkeeping imports pi's `estimateTokens` too;
//!   runtime::compact::Builtin2026_4).
//!
//! The transcript model keeps a compaction as a `compactionSummary` message
//! where pi's session has a `compaction` entry, and OpenClaw's
//! `custom_message` entries (runtime-context carriers) as `custom` messages;
//! the walk treats them as pi treats those entries.

use clawspec_contract::AgentMessage;
use serde_json::Value;

/// pi's `DEFAULT_COMPACTION_SETTINGS.keepRecentTokens` (settings-manager.js
/// `getCompactionKeepRecentTokens`: `?? 20000`); OpenClaw configures none.
pub const KEEP_RECENT_TOKENS: u64 = 20_000;

/// JS `string.length`: UTF-16 code units.
fn js_len(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

/// pi's `estimateTokens`: ⌈chars/4⌉ of the text a message carries (a user's
/// images count nothing, a custom/tool result's 4 800 chars each).
pub fn estimate_tokens(m: &AgentMessage) -> u64 {
    let v = serde_json::to_value(m).unwrap_or(Value::Null);
    let text_blocks = |c: &Value, images: bool| -> u64 {
        match c {
            Value::String(s) => js_len(s),
            Value::Array(bs) => bs
                .iter()
                .map(|b| match b["type"].as_str() {
                    Some("text") => b["text"].as_str().map_or(0, js_len),
                    Some("image") if images => 4800,
                    _ => 0,
                })
                .sum(),
            _ => 0,
        }
    };
    let chars = match v["role"].as_str() {
        Some("user") => text_blocks(&v["content"], false),
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
        Some("custom") | Some("toolResult") => text_blocks(&v["content"], true),
        Some("bashExecution") => v["command"].as_str().map_or(0, js_len) + v["output"].as_str().map_or(0, js_len),
        Some("compactionSummary") | Some("branchSummary") => v["summary"].as_str().map_or(0, js_len),
        _ => 0,
    };
    chars.div_ceil(4)
}

/// pi's `calculateContextTokens` of an assistant that did not end in
/// `error`/`aborted`: `totalTokens || input + output + cacheRead + cacheWrite`.
pub fn usage_tokens(m: &AgentMessage) -> Option<u64> {
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
pub fn estimate_context_tokens<M: std::borrow::Borrow<AgentMessage>>(ms: &[M]) -> u64 {
    match ms.iter().enumerate().rev().find_map(|(i, m)| usage_tokens(m.borrow()).map(|u| (i, u))) {
        Some((i, u)) => u + ms[i + 1..].iter().map(|m| estimate_tokens(m.borrow())).sum::<u64>(),
        None => ms.iter().map(|m| estimate_tokens(m.borrow())).sum(),
    }
}

/// pi's `findCutPoint` result over a message list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutPoint {
    /// The first message kept after the summary.
    pub first_kept: usize,
    /// The message that starts the turn the cut splits (`isSplitTurn`).
    pub turn_start: Option<usize>,
}

/// pi's `findCutPoint` over `ms[start..]`: walk back from the newest,
/// summing message estimates (a `custom_message` or compaction entry is not a
/// message entry, so it adds nothing), until `keep` is reached; cut at the
/// first valid cut point at or after that message (anything but a tool result
/// or a compaction), else at the first one. A cut at a non-user message
/// splits the turn started by the nearest user, bash execution or custom
/// message at or before it (`findTurnStartIndex`).
pub fn find_cut_point<M: std::borrow::Borrow<AgentMessage>>(ms: &[M], start: usize, keep: u64) -> CutPoint {
    let m = |i: usize| ms[i].borrow();
    let cuts: Vec<usize> = (start..ms.len()).filter(|&i| !matches!(m(i), AgentMessage::ToolResult(_) | AgentMessage::CompactionSummary(_))).collect();
    let Some(&first) = cuts.first() else {
        return CutPoint { first_kept: start, turn_start: None };
    };
    let mut cut = first;
    let mut acc = 0;
    for i in (start..ms.len()).rev() {
        if matches!(m(i), AgentMessage::Custom(_) | AgentMessage::CompactionSummary(_)) {
            continue;
        }
        acc += estimate_tokens(m(i));
        if acc >= keep {
            if let Some(&c) = cuts.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    let turn_start = if matches!(m(cut), AgentMessage::User(_)) {
        None
    } else {
        (start..=cut).rev().find(|&i| matches!(m(i), AgentMessage::User(_) | AgentMessage::BashExecution(_) | AgentMessage::Custom(_)))
    };
    CutPoint { first_kept: cut, turn_start }
}

impl CutPoint {
    /// A split turn with a prefix to summarise (`compact`: `isSplitTurn &&
    /// turnPrefixMessages.length > 0`).
    pub fn splits(&self) -> bool {
        self.turn_start.is_some_and(|t| t < self.first_kept)
    }

    /// Where the summarised history ends.
    pub fn history_end(&self) -> usize {
        self.turn_start.unwrap_or(self.first_kept)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
    fn images_weigh_only_in_custom_and_tool_results() {
        let image = json!({"type": "image", "data": "x", "mimeType": "image/png"});
        assert_eq!(estimate_tokens(&msg(json!({"role": "user", "content": [{"type": "text", "text": "abcd"}, image]}))), 1);
        assert_eq!(estimate_tokens(&msg(json!({"role": "toolResult", "toolCallId": "t", "toolName": "read", "content": [image], "isError": false}))), 1200);
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
    fn a_short_session_keeps_everything_and_a_long_one_cuts_at_a_turn() {
        let user = |n: usize| msg(json!({"role": "user", "content": "u".repeat(n)}));
        let reply = |n: usize| msg(json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(n)}]}));
        assert_eq!(find_cut_point(&[user(400), reply(400)], 0, KEEP_RECENT_TOKENS), CutPoint { first_kept: 0, turn_start: None });
        // 4 × 8 000 tokens: the walk back passes 20 000 at index 1 (an assistant).
        let ms = [user(32_000), reply(32_000), user(32_000), reply(32_000)];
        let cut = find_cut_point(&ms, 0, KEEP_RECENT_TOKENS);
        assert_eq!(cut, CutPoint { first_kept: 1, turn_start: Some(0) });
        assert!(cut.splits());
        assert_eq!(cut.history_end(), 0);
    }

    #[test]
    fn a_runtime_context_carrier_weighs_nothing_but_starts_a_turn() {
        let user = |n: usize| msg(json!({"role": "user", "content": "u".repeat(n)}));
        let reply = |n: usize| msg(json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(n)}]}));
        let carrier = msg(json!({"role": "custom", "customType": "openclaw.runtime-context", "content": "c".repeat(80_000), "display": false}));
        // Counted, the carrier's 20 000 tokens would move the cut onto it.
        let ms = [user(40_000), carrier.clone(), reply(60_000)];
        assert_eq!(find_cut_point(&ms, 0, KEEP_RECENT_TOKENS), CutPoint { first_kept: 0, turn_start: None });
        // A cut at the reply splits the turn the carrier started.
        let ms = [user(40_000), carrier, reply(88_000)];
        let cut = find_cut_point(&ms, 0, KEEP_RECENT_TOKENS);
        assert_eq!(cut, CutPoint { first_kept: 2, turn_start: Some(1) });
        assert!(cut.splits() && cut.history_end() == 1);
    }
}
