//! Thinking passes: A3.5 `stripStaleThinkingSignaturesForCompactionReplay`,
//! A3.6 `stripInvalidThinkingSignatures`, A3.7 `dropReasoningFromHistory`,
//! A3.8 `dropThinkingBlocks` (`embedded-agent-helpers/thinking.ts`).

use clawspec_contract::*;

use super::placeholders::REASONING_OMITTED;
use super::util::{is_signed, latest_exempt_assistant, text};

fn ts(n: &Option<serde_json::Number>) -> Option<f64> {
    n.as_ref().and_then(|n| n.as_f64())
}

/// A3.5: compaction rewrites the signed prefix, so assistants older than the
/// latest timestamped compaction summary lose their thinking signatures.
pub fn strip_stale_signatures_for_compaction(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let Some(cut) = ms.iter().filter_map(|m| if let AgentMessage::CompactionSummary(c) = m { ts(&c.timestamp) } else { None }).reduce(f64::max) else {
        return ms;
    };
    let mut ms = ms;
    for m in &mut ms {
        if let AgentMessage::Assistant(a) = m {
            if ts(&a.timestamp).is_some_and(|t| t < cut) {
                for b in &mut a.content {
                    if let ContentBlock::Thinking(t) = b {
                        t.thinking_signature = None;
                        for k in ["signature", "thought_signature", "data"] {
                            t.extra.remove(k);
                        }
                    }
                }
            }
        }
    }
    ms
}

fn drop_thinking_where(mut ms: Vec<AgentMessage>, keep: impl Fn(&ThinkingBlock) -> bool) -> Vec<AgentMessage> {
    let exempt = latest_exempt_assistant(&ms);
    for (i, m) in ms.iter_mut().enumerate() {
        if let AgentMessage::Assistant(a) = m {
            if Some(i) != exempt {
                let before = a.content.len();
                a.content.retain(|b| !matches!(b, ContentBlock::Thinking(t) if !keep(t)));
                if a.content.is_empty() && before > 0 {
                    a.content.push(text(REASONING_OMITTED));
                }
            }
        }
    }
    ms
}

/// A3.6: unsigned thinking cannot be replayed; the latest assistant is exempt.
pub fn strip_invalid_thinking_signatures(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    drop_thinking_where(ms, is_signed)
}

/// A3.7 and A3.8: all thinking removed except on the latest assistant.
pub fn drop_thinking_blocks(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    drop_thinking_where(ms, |_| false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use rstest::rstest;
    use serde_json::{json, Value};

    #[rstest]
    #[case::older_unsigned(json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"thinking","thinking":"p"},{"type":"text","text":"a"}]},{"role":"user","content":"v"}]), vec!["user:u", "assistant:a", "user:v"])]
    #[case::only_unsigned(json!([{"role":"assistant","content":[{"type":"thinking","thinking":"p"}]},{"role":"user","content":"v"}]), vec!["assistant:[assistant reasoning omitted]", "user:v"])]
    #[case::signed_kept(json!([{"role":"assistant","content":[{"type":"thinking","thinking":"p","thinkingSignature":"s"}]},{"role":"user","content":"v"}]), vec!["assistant:p", "user:v"])]
    #[case::latest_exempt(json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"thinking","thinking":"p"},{"type":"text","text":"a"}]}]), vec!["user:u", "assistant:p\na"])]
    #[case::tool_turn_exempt(json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"thinking","thinking":"p"},{"type":"toolCall","id":"t","name":"r","arguments":{}}]},{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":"x"}]}]), vec!["user:u", "assistant:p", "toolResult:x"])]
    fn invalid_signatures(#[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&strip_invalid_thinking_signatures(msgs(input))), expect);
    }

    #[test]
    fn compaction_makes_older_signatures_stale() {
        let ms = msgs(json!([
            {"role":"assistant","content":[{"type":"thinking","thinking":"old","thinkingSignature":"s1"},{"type":"text","text":"a"}],"timestamp":1},
            {"role":"compactionSummary","summary":"s","tokensBefore":10,"timestamp":5},
            {"role":"assistant","content":[{"type":"thinking","thinking":"new","thinkingSignature":"s2"},{"type":"text","text":"b"}],"timestamp":9},
            {"role":"user","content":"u"}
        ]));
        let out = strip_invalid_thinking_signatures(strip_stale_signatures_for_compaction(ms));
        assert_eq!(shape(&out), ["assistant:a", "compactionSummary:s", "assistant:new\nb", "user:u"]);
    }

    #[test]
    fn drop_thinking_keeps_the_latest() {
        let ms = msgs(json!([
            {"role":"assistant","content":[{"type":"thinking","thinking":"p","thinkingSignature":"s"}]},
            {"role":"user","content":"u"},
            {"role":"assistant","content":[{"type":"thinking","thinking":"q","thinkingSignature":"s"},{"type":"text","text":"b"}]}
        ]));
        assert_eq!(shape(&drop_thinking_blocks(ms)), ["assistant:[assistant reasoning omitted]", "user:u", "assistant:q\nb"]);
    }
}
