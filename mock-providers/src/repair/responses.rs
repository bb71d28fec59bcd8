//! A3.13 OpenAI Responses passes (`embedded-agent-helpers/openai.ts`):
//! `dropStaleOpenAIReasoning`, `normalizeOpenAIResponsesToolCallIds` and
//! `downgradeOpenAIFunctionCallReasoningPairs`. Tool-call ids in this family
//! are `call_id|fc_id`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use clawspec_contract::*;
use serde_json::Value;

use super::util::sha256_hex;

fn tail_ok(s: &str, max: usize) -> bool {
    (1..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `^call_[A-Za-z0-9_-]{1,59}$` and `^fc_[A-Za-z0-9_-]{1,61}$`.
pub fn valid_responses_id(id: &str) -> bool {
    let (call, item) = match id.split_once('|') {
        Some((c, i)) => (c, Some(i)),
        None => (id, None),
    };
    call.strip_prefix("call_").is_some_and(|t| tail_ok(t, 59)) && item.is_none_or(|i| i.strip_prefix("fc_").is_some_and(|t| tail_ok(t, 61)))
}

fn rewrite(prefix: &str, part: &str, whole: &str, n: usize) -> String {
    // `<prefix><sanitized tail>_<10-hex>`, ≤ 64 chars.
    let tail: String = part.trim_start_matches(prefix).chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    let room = 64 - prefix.len() - 11;
    let tail: String = tail.chars().take(room).collect();
    let h = &sha256_hex(&format!("{whole}:{n}"))[..10];
    if tail.is_empty() {
        format!("{prefix}{h}")
    } else {
        format!("{prefix}{tail}_{h}")
    }
}

fn remap(ms: Vec<AgentMessage>, mut f: impl FnMut(&str, usize, &AssistantMessage, usize) -> Option<String>) -> Vec<AgentMessage> {
    let mut pending: BTreeMap<String, VecDeque<String>> = BTreeMap::new();
    let mut occ: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(ms.len());
    for mut m in ms {
        match &mut m {
            AgentMessage::Assistant(a) => {
                let snapshot = a.clone();
                for (k, b) in a.content.iter_mut().enumerate() {
                    let ContentBlock::ToolCall(c) = b else { continue };
                    let n = occ.entry(c.id.clone()).or_default();
                    *n += 1;
                    let new = f(&c.id, *n, &snapshot, k).unwrap_or_else(|| c.id.clone());
                    pending.entry(c.id.clone()).or_default().push_back(new.clone());
                    c.id = new;
                }
            }
            AgentMessage::ToolResult(r) => {
                if let Some(new) = pending.get_mut(&r.tool_call_id).and_then(|q| q.pop_front()) {
                    r.tool_call_id = new;
                }
            }
            _ => {}
        }
        out.push(m);
    }
    out
}

pub fn normalize_responses_tool_call_ids(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    remap(ms, |id, n, _, _| {
        let keep = valid_responses_id(id) && !used.contains(id);
        let new = if keep {
            id.to_string()
        } else {
            let (call, item) = id.split_once('|').map(|(c, i)| (c, Some(i))).unwrap_or((id, None));
            let c = rewrite("call_", call, id, n);
            match item {
                Some(i) => format!("{c}|{}", rewrite("fc_", i, id, n)),
                None => c,
            }
        };
        used.insert(new.clone());
        (new != id).then_some(new)
    })
}

/// The `rs_…` id of a replayable reasoning signature (OpenClaw stores the
/// whole `ResponseReasoningItem` as JSON in `thinkingSignature`).
pub fn reasoning_item(sig: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(sig).ok()?;
    let id = v.get("id")?.as_str()?;
    (id.starts_with("rs_") && v.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("reasoning"))).then_some(v)
}

/// The `phase` of a v1 text signature (`extractTextSignaturePhase`).
fn text_signature_phase(sig: &str) -> Option<String> {
    let v: Value = serde_json::from_str(sig).ok().filter(|_| sig.starts_with('{'))?;
    let phase = v.get("phase")?.as_str()?;
    (v.get("v").and_then(Value::as_u64) == Some(1) && matches!(phase, "commentary" | "final_answer")).then(|| phase.to_string())
}

/// `dropStaleOpenAIReasoning(messages, dropBefore)`: reasoning items belong
/// to the model that produced them, so assistants at or before the latest
/// model switch (or without a timestamp) lose their replayable reasoning;
/// their text blocks then lose the paired `msg_*` id and keep only
/// `{v:1, phase}` (#88019). An emptied assistant is dropped.
pub fn drop_stale_openai_reasoning(ms: Vec<AgentMessage>, drop_before: Option<f64>) -> Vec<AgentMessage> {
    let Some(cut) = drop_before else { return ms };
    ms.into_iter()
        .filter_map(|mut m| {
            let AgentMessage::Assistant(a) = &mut m else { return Some(m) };
            if a.timestamp.as_ref().and_then(|t| t.as_f64()).is_some_and(|t| t > cut) {
                return Some(m);
            }
            let before = a.content.len();
            a.content.retain(|b| !matches!(b, ContentBlock::Thinking(t) if t.thinking_signature.as_deref().and_then(reasoning_item).is_some()));
            if a.content.len() == before {
                return Some(m);
            }
            if a.content.is_empty() {
                return None;
            }
            for b in &mut a.content {
                if let ContentBlock::Text(t) = b {
                    if let Some(sig) = t.text_signature.take() {
                        t.text_signature = text_signature_phase(&sig).map(|phase| serde_json::json!({"v":1,"phase":phase}).to_string());
                    }
                }
            }
            Some(m)
        })
        .collect()
}

pub fn downgrade_function_call_reasoning_pairs(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    remap(ms, |id, _, a, k| {
        let (call, item) = id.split_once('|')?;
        if !item.starts_with("fc_") {
            return None;
        }
        let replayable = a.content[..k].iter().any(|b| matches!(b, ContentBlock::Thinking(t) if t.thinking_signature.as_deref().and_then(reasoning_item).is_some()));
        (!replayable).then(|| call.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::msgs;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    #[case::valid("call_abc|fc_def", true)]
    #[case::no_item("call_abc", true)]
    #[case::anthropic("toolu_01", false)]
    #[case::long(&format!("call_{}|fc_x", "b".repeat(70)), false)]
    #[case::charset("call_a.b", false)]
    fn validity(#[case] id: &str, #[case] ok: bool) {
        assert_eq!(valid_responses_id(id), ok);
    }

    #[test]
    fn ids_rewritten_and_results_follow_25632() {
        let long = format!("call_{}|fc_{}", "b".repeat(70), "c".repeat(40));
        let ms = msgs(json!([
            {"role":"assistant","content":[{"type":"toolCall","id":long,"name":"r","arguments":{}}]},
            {"role":"toolResult","toolCallId":long,"content":[{"type":"text","text":"x"}]}
        ]));
        let out = normalize_responses_tool_call_ids(ms);
        let id = out[0].tool_call_ids()[0].to_string();
        assert!(valid_responses_id(&id), "{id}");
        assert!(matches!(&out[1], AgentMessage::ToolResult(r) if r.tool_call_id == id));
        assert_eq!(normalize_responses_tool_call_ids(out.clone()), out, "idempotent");
    }

    #[test]
    fn model_switch_drops_stale_reasoning_and_message_ids_88019() {
        let rs = json!({"type":"reasoning","id":"rs_old","encrypted_content":"gAAAold","summary":[]}).to_string();
        let ms = msgs(json!([
            {"role":"user","content":"u"},
            {"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":rs},{"type":"text","text":"a","textSignature":"{\"v\":1,\"id\":\"msg_old\",\"phase\":\"final_answer\"}"}],"timestamp":1000},
            {"role":"assistant","content":[{"type":"thinking","thinking":"only","thinkingSignature":rs}],"timestamp":1500},
            {"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":rs},{"type":"text","text":"b"}],"timestamp":3000}
        ]));
        let out = drop_stale_openai_reasoning(ms.clone(), Some(2000.0));
        assert_eq!(out.len(), 3, "the reasoning-only turn before the switch is dropped");
        let AgentMessage::Assistant(a) = &out[1] else { panic!() };
        assert_eq!(a.content.len(), 1);
        assert!(matches!(&a.content[0], ContentBlock::Text(t) if t.text_signature.as_deref() == Some(r#"{"phase":"final_answer","v":1}"#) || t.text_signature.as_deref() == Some(r#"{"v":1,"phase":"final_answer"}"#)), "msg id dropped, phase kept");
        assert_eq!(out[2], ms[3], "after the switch: untouched");
        assert_eq!(drop_stale_openai_reasoning(ms.clone(), None), ms, "no switch, no change");
    }

    #[test]
    fn fc_without_reasoning_is_downgraded_36157() {
        let rs = json!({"type":"reasoning","id":"rs_1","encrypted_content":"gAAA","summary":[]}).to_string();
        let ms = msgs(json!([
            {"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_1","name":"r","arguments":{}}]},
            {"role":"toolResult","toolCallId":"call_1|fc_1","content":[{"type":"text","text":"x"}]},
            {"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":rs},{"type":"toolCall","id":"call_2|fc_2","name":"r","arguments":{}}]},
            {"role":"toolResult","toolCallId":"call_2|fc_2","content":[{"type":"text","text":"y"}]}
        ]));
        let out = downgrade_function_call_reasoning_pairs(ms);
        assert_eq!(out[0].tool_call_ids(), ["call_1"]);
        assert!(matches!(&out[1], AgentMessage::ToolResult(r) if r.tool_call_id == "call_1"));
        assert_eq!(out[2].tool_call_ids(), ["call_2|fc_2"], "kept with its reasoning item");
    }
}
