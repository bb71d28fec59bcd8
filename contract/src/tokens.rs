//! Token estimation as OpenClaw's host does it for budgets and prechecks: the
//! chars/4 heuristic (`estimateTokens` in `packages/agent-core`, used by
//! openclaw `src/agents/embedded-agent-runner/run/attempt-prompt-preflight.ts`).

use crate::message::{AgentMessage, ContentBlock, MessageContent};

/// Fixed estimate for an image block (OpenClaw counts images as ~1.2k tokens).
pub const IMAGE_TOKENS: u64 = 1200;

pub fn estimate_text(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

fn estimate_blocks(blocks: &[ContentBlock]) -> u64 {
    blocks
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => estimate_text(&t.text),
            ContentBlock::Thinking(t) => estimate_text(&t.thinking),
            ContentBlock::Image(_) => IMAGE_TOKENS,
            ContentBlock::ToolCall(c) => {
                estimate_text(&c.name) + estimate_text(&c.arguments.to_string())
            }
        })
        .sum()
}

pub fn estimate_message(m: &AgentMessage) -> u64 {
    match m {
        AgentMessage::User(u) => estimate_content(&u.content),
        AgentMessage::Custom(c) => estimate_content(&c.content),
        AgentMessage::Assistant(a) => estimate_blocks(&a.content),
        AgentMessage::ToolResult(t) => estimate_blocks(&t.content),
        AgentMessage::CompactionSummary(s) => estimate_text(&s.summary),
        AgentMessage::BranchSummary(s) => estimate_text(&s.summary),
        AgentMessage::BashExecution(b) => estimate_text(&b.command) + estimate_text(&b.output),
    }
}

fn estimate_content(c: &MessageContent) -> u64 {
    match c {
        MessageContent::Text(s) => estimate_text(s),
        MessageContent::Blocks(b) => estimate_blocks(b),
    }
}

pub fn estimate_messages(ms: &[AgentMessage]) -> u64 {
    ms.iter().map(estimate_message).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn chars_over_four_rounded_up() {
        assert_eq!(estimate_text(""), 0);
        assert_eq!(estimate_text("abcd"), 1);
        assert_eq!(estimate_text("abcde"), 2);
    }
}
