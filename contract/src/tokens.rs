//! Token estimation as OpenClaw's host does it for budgets and prechecks: a
//! chars/4 heuristic per *message* (not per block), in two eras:
//!
//! - [`Estimator::OpenClaw`] — 2026.9.6 `estimateTokens(message)` (openclaw
//!   `packages/agent-core/src/harness/compaction/compaction.ts`): UTF-16 length
//!   plus CJK weights (`packages/normalization-core/src/cjk-chars.ts`
//!   `estimateStringChars`), images 8 000 chars (`IMAGE_BLOCK_TOKENS = 2e3`),
//!   text blocks joined by `\n`, one omission note per message with images.
//! - [`Estimator::Pi`] — the `@mariozechner/pi-coding-agent` `estimateTokens` that
//!   2026.4.26 used: UTF-16 length summed over blocks, images 4 800 chars (1 200
//!   tokens). Not bundled in the 4.26 npm package; see docs/openclaw-facts.md §2.6.
//!
//! The module-level functions use the current (2026.9.6) estimator; the runtime
//! picks the profile's.

use crate::message::{AgentMessage, ContentBlock, MessageContent};

/// Tokens per image block, 2026.9.6 (`IMAGE_BLOCK_TOKENS = 2e3`, compaction.ts).
pub const IMAGE_TOKENS: u64 = 2000;
/// Tokens per image block in the pi-coding-agent era (4 800 chars / 4).
pub const IMAGE_TOKENS_PI: u64 = 1200;
/// `[image data omitted from summary input]` + 17, counted once per message
/// with images (compaction.ts `countContentChars`, omission text length + 17).
const IMAGE_OMISSION_CHARS: u64 = "[image data omitted from summary input]".len() as u64 + 17;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Estimator {
    /// pi-coding-agent era (≤ 2026.5.x).
    Pi,
    /// 2026.9.6.
    #[default]
    OpenClaw,
}

/// CJK weight buckets of `WEIGHTED_CJK_RANGES` (cjk-chars.ts); extra chars per
/// code point are 3, 11, 7, 10, 14 (minimumRawWeight 1).
const CJK_BUCKETS: [(&[(u32, u32)], u64); 5] = [
    (&[(183, 183), (12288, 12703), (19968, 40869), (44032, 55215), (65281, 65376)], 3),
    (&[(4352, 4607), (11904, 12287), (12704, 19967), (40870, 40959), (40960, 42239), (42752, 42759), (43360, 43391), (55216, 55295), (63744, 64255)], 11),
    (&[(711, 711), (713, 715), (729, 729), (746, 747), (773, 773), (803, 803), (65040, 65103), (65377, 65500), (65504, 65510)], 7),
    (&[(119648, 119665)], 10),
    (&[(94176, 94207), (110576, 110591), (110592, 110959), (127488, 127743), (131072, 195103), (196608, 210047)], 14),
];

impl Estimator {
    /// `estimateStringChars`: JavaScript `length` (UTF-16 units), plus CJK
    /// weights in the 2026.9.6 era.
    pub fn string_chars(self, s: &str) -> u64 {
        let utf16 = s.encode_utf16().count() as u64;
        if self == Estimator::Pi || s.is_ascii() {
            return utf16;
        }
        let extra: u64 = s
            .chars()
            .filter(|c| !c.is_ascii())
            .map(|c| {
                let cp = c as u32;
                CJK_BUCKETS.iter().find(|(ranges, _)| ranges.iter().any(|&(a, b)| (a..=b).contains(&cp))).map_or(0, |(_, w)| *w)
            })
            .sum();
        utf16 + extra
    }

    pub fn text(self, s: &str) -> u64 {
        self.string_chars(s).div_ceil(4)
    }

    fn image_chars(self) -> u64 {
        match self {
            Estimator::Pi => IMAGE_TOKENS_PI * 4,
            Estimator::OpenClaw => IMAGE_TOKENS * 4,
        }
    }

    /// Chars of user/custom/toolResult content (`countContentChars`).
    fn content_chars(self, c: &MessageContent) -> u64 {
        match c {
            MessageContent::Text(s) => self.string_chars(s),
            MessageContent::Blocks(blocks) => {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) if !t.text.is_empty() => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect();
                let images = blocks.iter().filter(|b| matches!(b, ContentBlock::Image(_))).count() as u64;
                match self {
                    Estimator::Pi => texts.iter().map(|t| self.string_chars(t)).sum::<u64>() + images * self.image_chars(),
                    Estimator::OpenClaw => {
                        let omission = if blocks.iter().any(|b| !matches!(b, ContentBlock::Text(_))) { IMAGE_OMISSION_CHARS } else { 0 };
                        self.string_chars(&texts.join("\n")) + images * self.image_chars() + omission
                    }
                }
            }
        }
    }

    pub fn message(self, m: &AgentMessage) -> u64 {
        let chars = match m {
            AgentMessage::User(u) => {
                if excluded(&u.extra) {
                    return 0;
                }
                self.content_chars(&u.content)
            }
            AgentMessage::Custom(c) => {
                if excluded(&c.extra) {
                    return 0;
                }
                self.content_chars(&c.content)
            }
            AgentMessage::ToolResult(t) => self.content_chars(&MessageContent::Blocks(t.content.clone())),
            AgentMessage::Assistant(a) => a
                .content
                .iter()
                .map(|b| match b {
                    ContentBlock::Text(t) => self.string_chars(&t.text),
                    ContentBlock::Thinking(t) => self.string_chars(&t.thinking),
                    ContentBlock::ToolCall(c) => self.string_chars(&c.name) + self.string_chars(&c.arguments.to_string()),
                    ContentBlock::Image(_) => 0,
                })
                .sum(),
            AgentMessage::CompactionSummary(s) => self.string_chars(&s.summary),
            AgentMessage::BranchSummary(s) => self.string_chars(&s.summary),
            AgentMessage::BashExecution(b) => self.string_chars(&b.command) + self.string_chars(&b.output),
        };
        chars.div_ceil(4)
    }

    pub fn messages<M: Estimable>(self, ms: &[M]) -> u64 {
        ms.iter().map(|m| m.tokens(self)).sum()
    }
}

/// A message whose token estimate can be asked for: computed for a plain
/// message, cached for a shared one ([`crate::Msg`], whose estimate a long
/// session would otherwise recompute on every call).
pub trait Estimable {
    fn tokens(&self, e: Estimator) -> u64;
}

impl Estimable for AgentMessage {
    fn tokens(&self, e: Estimator) -> u64 {
        e.message(self)
    }
}

impl Estimable for crate::Msg {
    fn tokens(&self, e: Estimator) -> u64 {
        crate::Msg::tokens(self, e)
    }
}

impl Estimable for std::sync::Arc<AgentMessage> {
    fn tokens(&self, e: Estimator) -> u64 {
        e.message(self)
    }
}

impl<T: Estimable + ?Sized> Estimable for &T {
    fn tokens(&self, e: Estimator) -> u64 {
        (**self).tokens(e)
    }
}

/// `excludeFromContext: true` ⇒ 0 tokens (2026.9.6 `estimateTokens`).
fn excluded(extra: &crate::Extra) -> bool {
    extra.get("excludeFromContext").and_then(|v| v.as_bool()) == Some(true)
}

pub fn estimate_text(text: &str) -> u64 {
    Estimator::OpenClaw.text(text)
}

pub fn estimate_message(m: &AgentMessage) -> u64 {
    Estimator::OpenClaw.message(m)
}

pub fn estimate_messages<M: Estimable>(ms: &[M]) -> u64 {
    Estimator::OpenClaw.messages(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: serde_json::Value) -> AgentMessage {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn chars_over_four_rounded_up() {
        assert_eq!(estimate_text(""), 0);
        assert_eq!(estimate_text("abcd"), 1);
        assert_eq!(estimate_text("abcde"), 2);
    }

    #[test]
    fn utf16_units_and_cjk_weights() {
        // "é" is one UTF-16 unit, no weight; "😀" is two units, no CJK bucket.
        assert_eq!(Estimator::OpenClaw.string_chars("é"), 1);
        assert_eq!(Estimator::OpenClaw.string_chars("😀"), 2);
        // Common CJK: 1 + 3 each; the pi era counts only the length.
        assert_eq!(Estimator::OpenClaw.string_chars("你好"), 8);
        assert_eq!(Estimator::Pi.string_chars("你好"), 2);
        // Supplementary ideograph U+20000: 2 units + 14.
        assert_eq!(Estimator::OpenClaw.string_chars("\u{20000}"), 16);
    }

    #[test]
    fn rounding_is_per_message_not_per_block() {
        let a = msg(json!({"role":"assistant","content":[{"type":"text","text":"ab"},{"type":"text","text":"cd"}]}));
        assert_eq!(estimate_message(&a), 1);
    }

    #[test]
    fn images_per_era() {
        let u = msg(json!({"role":"user","content":[{"type":"text","text":"abcd"},{"type":"image","data":"x","mimeType":"image/png"}]}));
        assert_eq!(Estimator::OpenClaw.message(&u), (4 + 8000 + 56u64).div_ceil(4));
        assert_eq!(Estimator::Pi.message(&u), 1 + 1200);
    }

    #[test]
    fn excluded_messages_count_zero() {
        let u = msg(json!({"role":"user","content":"hello there","excludeFromContext":true}));
        assert_eq!(estimate_message(&u), 0);
    }
}
