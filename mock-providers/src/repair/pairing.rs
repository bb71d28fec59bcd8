//! A3.10 tool-result pairing (`repairToolUseResultPairing`,
//! `src/agents/session-transcript-repair.ts` + agent-core classifier): every
//! call answered exactly once, right after its assistant, in call order.

use clawspec_contract::*;
use serde_json::json;

use super::util::{is_failed, text};

/// `toolCallId|toolUseId|tool_call_id|tool_use_id|callId|call_id`, trimmed.
pub fn result_id(r: &ToolResultMessage) -> String {
    if !r.tool_call_id.trim().is_empty() {
        return r.tool_call_id.trim().to_string();
    }
    for k in ["toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"] {
        if let Some(s) = r.extra.get(k).and_then(|v| v.as_str()).filter(|s| !s.trim().is_empty()) {
            return s.trim().to_string();
        }
    }
    String::new()
}

pub fn synthetic_result(id: &str, name: &str, synthetic: &str) -> AgentMessage {
    AgentMessage::ToolResult(ToolResultMessage {
        tool_call_id: id.to_string(),
        tool_name: Some(if name.is_empty() { "unknown".into() } else { name.to_string() }),
        content: vec![text(synthetic)],
        is_error: Some(true),
        details: Some(json!({"openclawSyntheticMissingToolResult": true, "reason": "missing_tool_result"})),
        timestamp: None,
        extra: Extra::new(),
    })
}

struct Call {
    id: String,
    name: String,
    answer: Option<usize>,
}

/// Whether the slow path below would return `ms` unchanged: every frame is
/// live and followed directly by its results, in call order, each already
/// carrying its call's id and a name; no other result anywhere.
fn already_paired(ms: &[AgentMessage], frames: &[(usize, Vec<Call>, bool)], frame_at: &[Option<usize>], legacy_fix: &[bool]) -> bool {
    let mut i = 0;
    while i < ms.len() {
        match (&ms[i], frame_at[i]) {
            (AgentMessage::ToolResult(_), _) => return false,
            (AgentMessage::Assistant(_), Some(f)) => {
                let (_, calls, failed) = &frames[f];
                if *failed {
                    return false;
                }
                for (k, c) in calls.iter().enumerate() {
                    let j = i + 1 + k;
                    let fine = c.answer == Some(j)
                        && !legacy_fix[j]
                        && matches!(&ms[j], AgentMessage::ToolResult(r) if r.tool_call_id == c.id && r.tool_name.as_deref().is_some_and(|n| !n.trim().is_empty()));
                    if !fine {
                        return false;
                    }
                }
                i += 1 + calls.len();
            }
            _ => i += 1,
        }
    }
    true
}

/// `synthetic`: text of inserted results (A4: the OpenClaw note, or `aborted`
/// for the Responses family).
pub fn repair_tool_use_result_pairing(ms: Vec<AgentMessage>, synthetic: &str) -> Vec<AgentMessage> {
    pair(ms, synthetic, true, false)
}

/// As [`repair_tool_use_result_pairing`], matching a result's trimmed id
/// against its call's id as stored (openclaw@2026.9.6 agent-core
/// tool-result-pairing-*.mjs: `readToolCall` keeps `record.id`,
/// `extractToolResultIds` trims), so a call id with surrounding spaces never
/// finds its result: it gets the synthetic one and the result is dropped
/// (twin of regression-a8-duplicate-tool-ids).
pub fn repair_tool_use_result_pairing_untrimmed_calls(ms: Vec<AgentMessage>, synthetic: &str) -> Vec<AgentMessage> {
    pair(ms, synthetic, true, true)
}

fn pair(ms: Vec<AgentMessage>, synthetic: &str, fast_path: bool, untrimmed_calls: bool) -> Vec<AgentMessage> {
    let key = |c: &Call| if untrimmed_calls { c.id.clone() } else { c.id.trim().to_string() };
    if !ms.iter().any(|m| match m {
        AgentMessage::ToolResult(_) => true,
        AgentMessage::Assistant(a) => a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(_))),
        _ => false,
    }) {
        return ms; // nothing to pair
    }
    // Frames: assistants with ≥1 tool call. Failed ones are dropped with
    // their results ("drop" policy of every ForModel caller).
    let mut frame_of: Vec<Option<usize>> = vec![None; ms.len()];
    let mut frames: Vec<(usize, Vec<Call>, bool)> = Vec::new();
    let mut current: Option<usize> = None;
    for (i, m) in ms.iter().enumerate() {
        if let AgentMessage::Assistant(a) = m {
            let calls: Vec<Call> = a
                .content
                .iter()
                .filter_map(|b| if let ContentBlock::ToolCall(c) = b { Some(Call { id: c.id.clone(), name: c.name.clone(), answer: None }) } else { None })
                .collect();
            if !calls.is_empty() {
                frames.push((i, calls, is_failed(a)));
                current = Some(frames.len() - 1);
            }
        }
        frame_of[i] = current;
    }
    let mut assigned = vec![false; ms.len()];
    let mut legacy_fix = vec![false; ms.len()];
    for (i, m) in ms.iter().enumerate() {
        let AgentMessage::ToolResult(r) = m else { continue };
        let Some(f) = frame_of[i] else { continue }; // before the first frame: orphan
        let id = result_id(r);
        let (_, calls, _) = &mut frames[f];
        if id.is_empty() {
            // Legacy result without id in a single-call frame with a compatible name.
            if calls.len() == 1 && calls[0].answer.is_none() && r.tool_name.as_deref().is_none_or(|n| n == calls[0].name) {
                calls[0].answer = Some(i);
                assigned[i] = true;
                legacy_fix[i] = true;
            }
            continue;
        }
        if let Some(c) = calls.iter_mut().find(|c| key(c) == id && c.answer.is_none()) {
            c.answer = Some(i);
            assigned[i] = true;
            continue;
        }
        if calls.iter().any(|c| key(c) == id) {
            continue; // duplicate within its frame
        }
        // Displaced: the unique earlier unresolved occurrence with that id.
        let earlier: Vec<(usize, usize)> = frames[..f]
            .iter()
            .enumerate()
            .flat_map(|(fi, (_, cs, _))| cs.iter().enumerate().filter(|(_, c)| key(c) == id && c.answer.is_none()).map(move |(ci, _)| (fi, ci)))
            .collect();
        if let [(fi, ci)] = earlier[..] {
            frames[fi].1[ci].answer = Some(i);
            assigned[i] = true;
        }
    }
    let mut frame_at: Vec<Option<usize>> = vec![None; ms.len()];
    for (fi, (i, _, _)) in frames.iter().enumerate() {
        frame_at[*i] = Some(fi);
    }
    if fast_path && already_paired(&ms, &frames, &frame_at, &legacy_fix) {
        return ms; // the usual case on a second pass: nothing to move
    }
    // Messages are moved, not cloned: a result is taken out of its slot
    // when its call's assistant is emitted.
    let mut slots: Vec<Option<AgentMessage>> = ms.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        let Some(m) = slots[i].take() else { continue };
        match m {
            AgentMessage::ToolResult(_) => {}
            AgentMessage::Assistant(_) if frame_at[i].is_some() => {
                let (_, calls, failed) = &frames[frame_at[i].unwrap()];
                if *failed {
                    continue;
                }
                out.push(m);
                for c in calls {
                    match c.answer.and_then(|j| slots[j].take()) {
                        Some(AgentMessage::ToolResult(mut r)) => {
                            let j = c.answer.unwrap_or_default();
                            r.tool_call_id = c.id.clone();
                            // An empty toolName becomes Gemini's `function_response.name: ""`
                            // (#12832, #16263, #46717; PR #48748 names it after its call).
                            if r.tool_name.as_deref().is_none_or(|n| n.trim().is_empty()) {
                                r.tool_name = Some(if c.name.is_empty() { "unknown".into() } else { c.name.clone() });
                            }
                            if legacy_fix[j] {
                                r.is_error = Some(true);
                            }
                            out.push(AgentMessage::ToolResult(r));
                        }
                        _ => out.push(synthetic_result(&c.id, &c.name, synthetic)),
                    }
                }
            }
            m => out.push(m),
        }
    }
    let _ = assigned;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path returns exactly what the rebuild would: over generated
    /// transcripts, raw (mostly unpaired) and once repaired (mostly paired).
    #[test]
    fn fast_path_agrees_with_the_rebuild() {
        let mut fast = 0;
        for seed in 0..3000u32 {
            let bytes: Vec<u8> = (0..48u32).map(|i| (seed.wrapping_mul(2654435761).wrapping_add(i.wrapping_mul(40503)) >> 9) as u8).collect();
            let raw = crate::gen::transcript(&bytes);
            let once = pair(raw.clone(), MISSING_TOOL_RESULT, false, false);
            for ms in [raw, once] {
                let slow = pair(ms.clone(), MISSING_TOOL_RESULT, false, false);
                let quick = pair(ms.clone(), MISSING_TOOL_RESULT, true, false);
                fast += usize::from(slow == ms);
                assert_eq!(quick, slow, "seed {seed}");
            }
        }
        assert!(fast > 1000, "the fast path is exercised ({fast} identities)");
    }
    use crate::repair::placeholders::{ABORTED, MISSING_TOOL_RESULT};
    use crate::repair::test_support::{msgs, shape};
    use rstest::rstest;
    use serde_json::{json, Value};

    fn call(ids: &[&str]) -> Value {
        json!({"role":"assistant","content":ids.iter().map(|id| json!({"type":"toolCall","id":id,"name":"r","arguments":{}})).collect::<Vec<_>>()})
    }
    fn res(id: &str, t: &str) -> Value {
        json!({"role":"toolResult","toolCallId":id,"toolName":"r","content":[{"type":"text","text":t}]})
    }

    #[rstest]
    #[case::missing(json!([call(&["a"])]), MISSING_TOOL_RESULT, vec!["assistant:", "toolResult:[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."])]
    #[case::responses_aborted(json!([call(&["a"])]), ABORTED, vec!["assistant:", "toolResult:aborted"])]
    #[case::moved_next_to_call(json!([call(&["a"]), {"role":"user","content":"u"}, res("a","r")]), MISSING_TOOL_RESULT, vec!["assistant:", "toolResult:r", "user:u"])]
    #[case::call_order(json!([call(&["a","b"]), res("b","2"), res("a","1")]), ABORTED, vec!["assistant:", "toolResult:1", "toolResult:2"])]
    #[case::orphan_dropped(json!([res("x","r"), {"role":"user","content":"u"}]), ABORTED, vec!["user:u"])]
    #[case::orphan_in_frame(json!([call(&["a"]), res("a","1"), res("zz","2")]), ABORTED, vec!["assistant:", "toolResult:1"])]
    #[case::duplicate_dropped(json!([call(&["a"]), res("a","1"), res("a","2")]), ABORTED, vec!["assistant:", "toolResult:1"])]
    #[case::displaced_to_earlier(json!([call(&["a"]), {"role":"user","content":"u"}, call(&["b"]), res("b","2"), res("a","1")]), ABORTED, vec!["assistant:", "toolResult:1", "user:u", "assistant:", "toolResult:2"])]
    #[case::repeated_ids_per_occurrence(json!([call(&["a","a"]), res("a","1"), res("a","2")]), ABORTED, vec!["assistant:", "toolResult:1", "toolResult:2"])]
    #[case::errored_dropped(json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r","arguments":{}}],"stopReason":"error"}, res("a","1"), {"role":"user","content":"v"}]), ABORTED, vec!["user:u", "user:v"])]
    #[case::legacy_no_id(json!([call(&["a"]), {"role":"toolResult","toolCallId":"","toolName":"r","content":[{"type":"text","text":"old"}]}]), ABORTED, vec!["assistant:", "toolResult:old"])]
    fn pairing(#[case] input: Value, #[case] synthetic: &str, #[case] expect: Vec<&str>) {
        let out = repair_tool_use_result_pairing(msgs(input), synthetic);
        assert_eq!(shape(&out), expect);
        assert_eq!(repair_tool_use_result_pairing(out.clone(), synthetic), out, "idempotent");
    }

    #[test]
    fn a_spaced_call_id_misses_its_trimmed_result_on_2026_9() {
        let input = json!([call(&["  f:1"]), res("  f:1", "body")]);
        assert_eq!(shape(&repair_tool_use_result_pairing(msgs(input.clone()), MISSING_TOOL_RESULT)), ["assistant:", "toolResult:body"], "trimmed on both sides");
        let out = repair_tool_use_result_pairing_untrimmed_calls(msgs(input), MISSING_TOOL_RESULT);
        assert_eq!(shape(&out), ["assistant:", &format!("toolResult:{MISSING_TOOL_RESULT}")]);
    }

    #[test]
    fn synthetic_result_shape() {
        let out = repair_tool_use_result_pairing(msgs(json!([call(&["a"])])), MISSING_TOOL_RESULT);
        assert_eq!(serde_json::to_value(&out[1]).unwrap(), json!({"role":"toolResult","toolCallId":"a","toolName":"r","content":[{"type":"text","text":MISSING_TOOL_RESULT}],"isError":true,"details":{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"}}));
    }
}
