//! Small helpers shared by the passes.

use clawspec_contract::*;

pub fn text(t: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: t.into(), text_signature: None, extra: Extra::new() })
}

pub fn is_blank_text(b: &ContentBlock) -> bool {
    matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty())
}

pub fn has_tool_call(a: &AssistantMessage) -> bool {
    a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_)))
}

pub fn has_thinking(a: &AssistantMessage) -> bool {
    a.content.iter().any(|b| matches!(b, ContentBlock::Thinking(_)))
}

/// A thinking block carries a non-blank signature (`signature`,
/// `thinkingSignature`, `thought_signature`; the redacted payload counts).
pub fn is_signed(t: &ThinkingBlock) -> bool {
    t.thinking_signature.as_deref().is_some_and(|s| !s.trim().is_empty())
        || ["signature", "thought_signature", "data"]
            .iter()
            .any(|k| t.extra.get(*k).and_then(|v| v.as_str()).is_some_and(|s| !s.trim().is_empty()))
}

/// Failed assistant turn (`stopReason` error/aborted).
pub fn is_failed(a: &AssistantMessage) -> bool {
    matches!(a.stop_reason.as_deref(), Some("error" | "aborted"))
}

/// The index of the "latest" assistant A3.6/A3.8 exempt: the last message if
/// it is an assistant, or the current tool turn (assistant with a tool call
/// after the last user message, followed by its results).
pub fn latest_exempt_assistant(ms: &[AgentMessage]) -> Option<usize> {
    match ms.last() {
        Some(AgentMessage::Assistant(_)) => return Some(ms.len() - 1),
        None => return None,
        _ => {}
    }
    let last_user = ms.iter().rposition(|m| matches!(m, AgentMessage::User(_)));
    let i = ms.iter().rposition(|m| matches!(m, AgentMessage::Assistant(_)))?;
    let after_user = last_user.is_none_or(|u| i > u);
    let followed_by_results = ms[i + 1..].iter().all(|m| matches!(m, AgentMessage::ToolResult(_))) && i + 1 < ms.len();
    match &ms[i] {
        AgentMessage::Assistant(a) if after_user && has_tool_call(a) && followed_by_results => Some(i),
        _ => None,
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 hex, as OpenClaw's `createHash("sha256")` id suffixes.
pub fn sha256_hex(s: &str) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(s.as_bytes()))
}

/// Keeps, in place and in order, the messages for which `keep(kept, m)`
/// holds, where `kept` is the prefix already kept (a pass may read or merge
/// into its last message). The passes run twice per model call and per fuzz
/// execution; moving every 400-byte message into a fresh vector per pass
/// was a sixth of the fuzz target's time.
pub fn filter_in_place<T>(ms: &mut Vec<T>, mut keep: impl FnMut(&mut [T], &mut T) -> bool) {
    let mut w = 0;
    for r in 0..ms.len() {
        let (kept, rest) = ms.split_at_mut(r);
        if keep(&mut kept[..w], &mut rest[0]) {
            ms.swap(w, r);
            w += 1;
        }
    }
    ms.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::filter_in_place;

    #[test]
    fn filter_in_place_keeps_order_and_sees_the_kept_prefix() {
        let mut v = vec![1, 2, 3, 4, 5, 6];
        let mut seen = Vec::new();
        filter_in_place(&mut v, |kept, x| {
            seen.push(kept.last().copied());
            *x % 2 == 0 || *x == 5
        });
        assert_eq!(v, [2, 4, 5, 6]);
        assert_eq!(seen, [None, None, Some(2), Some(2), Some(4), Some(5)]);
    }
}
