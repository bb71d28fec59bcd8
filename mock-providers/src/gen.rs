//! Transcript generator for property tests and fuzzing, realistic and
//! hostile: split tool pairs, duplicated/malformed/over-long ids, thinking
//! with and without signatures (Anthropic-style, Responses reasoning JSON,
//! redacted), blank blocks, images (valid, empty, invalid), failed turns,
//! custom roles, role runs, inter-session users, compaction summaries.
//!
//! One decoder serves every front end: [`transcript`] reads raw bytes
//! (libFuzzer, `clawspec fuzz-sanitizer`), [`Transcript`] implements
//! `arbitrary::Arbitrary`, [`arb_transcript`] is the proptest strategy.

use arbitrary::{Arbitrary, Unstructured};
use clawspec_contract::AgentMessage;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A generated transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct Transcript(pub Vec<AgentMessage>);

impl<'a> Arbitrary<'a> for Transcript {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Transcript(build(u)))
    }
}

/// Build a transcript from bytes (never fails; empty bytes → empty transcript).
pub fn transcript(bytes: &[u8]) -> Vec<AgentMessage> {
    build(&mut Unstructured::new(bytes))
}

/// Proptest strategy: up to about `max_messages` messages.
pub fn arb_transcript(max_messages: usize) -> impl Strategy<Value = Vec<AgentMessage>> {
    proptest::collection::vec(any::<u8>(), 0..max_messages * 4).prop_map(|b| transcript(&b))
}

const IDS: &[&str] = &[
    "toolu_01",
    "toolu_02",
    "call_dup",
    "     functions.read:37",
    "functions.exec:0",
    "call_0123456789012345678901234567890123456789abc|fc_x",
    "call_abc|fc_abc",
    "abc",
    "",
    "tooluse_Zk3",
];
const NAMES: &[&str] = &["read", "exec", " read ", "", "functions.read", "sessions_spawn", "toolu_01abc <|tool_call_argument_begin|> {\"command\""];
const PNG: &str = "iVBORw0KGgoAAAANSUhEUg==";

struct State {
    n: u32,
    calls: Vec<(String, String)>,
}

fn pick<'a, T: Copy>(u: &mut Unstructured, xs: &'a [T]) -> T {
    xs[u.choose_index(xs.len()).unwrap_or(0)]
}

fn one(u: &mut Unstructured, st: &mut State) -> Value {
    st.n += 1;
    let n = st.n;
    let op = u.int_in_range(0u8..=23).unwrap_or(0);
    let flag = u.arbitrary::<bool>().unwrap_or(false);
    match op {
        0..=3 => json!({"role":"user","content": format!("user says {n}")}),
        4 => json!({"role":"user","content": if flag { "  " } else { "" }}),
        5 => json!({"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":format!("blocks {n}")}]}),
        6 => {
            let data = pick(u, &[PNG, "", "%%%not-base64", "R0lGODlhAQABAAAAACw="]);
            json!({"role":"user","content":[{"type":"text","text":format!("look {n}")},{"type":"image","data":data,"mimeType": if flag {"image/png"} else {""}}]})
        }
        7 => json!({"role":"user","content":format!("relay {n}"),"provenance":{"kind":"inter_session","sourceSessionKey":"agent:ops:main","sourceTool":"sessions_send"}}),
        8..=9 => json!({"role":"assistant","content":[{"type":"text","text":format!("answer {n}")}],"stopReason":"stop","usage":{"output":3}}),
        10..=12 => {
            let k = if flag { 2 } else { 1 };
            st.calls.clear();
            let blocks: Vec<Value> = (0..k)
                .map(|_| {
                    let id = pick(u, IDS).to_string();
                    let name = if u.ratio(1, 6).unwrap_or(false) { pick(u, NAMES) } else { "read" };
                    st.calls.push((id.clone(), name.to_string()));
                    let args = if u.ratio(1, 10).unwrap_or(false) { Value::Null } else { json!({"p": n}) };
                    json!({"type":"toolCall","id":id,"name":name,"arguments":args})
                })
                .collect();
            json!({"role":"assistant","content":blocks,"stopReason":"toolUse","usage":{"output":5}})
        }
        13..=15 => {
            // Usually answers a recent call; sometimes a stray id.
            let (id, name) = if !st.calls.is_empty() && !u.ratio(1, 5).unwrap_or(false) {
                let i = u.choose_index(st.calls.len()).unwrap_or(0);
                st.calls[i].clone()
            } else {
                (pick(u, IDS).to_string(), "read".to_string())
            };
            let text = if u.ratio(1, 5).unwrap_or(false) { String::new() } else { format!("result {n}") };
            json!({"role":"toolResult","toolCallId":id,"toolName": if flag { name } else { String::new() },"content":[{"type":"text","text":text}],"isError": u.ratio(1, 6).unwrap_or(false)})
        }
        16 => {
            let sig = pick(u, &["", "c2lnbmF0dXJl", "msg_01abc"]);
            let mut c = vec![json!({"type":"thinking","thinking":"hmm","thinkingSignature":sig})];
            if flag {
                c.push(json!({"type":"text","text":format!("thought {n}")}));
            }
            json!({"role":"assistant","content":c,"stopReason":"stop","usage":{"output":2}})
        }
        17 => {
            let rs = json!({"type":"reasoning","id":format!("rs_{n}"),"encrypted_content":"gAAAA","summary":[]}).to_string();
            let id = format!("call_{n}|fc_{n}");
            st.calls = vec![(id.clone(), "read".into())];
            let mut c = vec![json!({"type":"thinking","thinking":"r","thinkingSignature":rs})];
            if flag {
                c.push(json!({"type":"toolCall","id":id,"name":"read","arguments":{}}));
            }
            json!({"role":"assistant","content":c,"stopReason": if flag {"toolUse"} else {"stop"},"usage":{"output":2}})
        }
        18 => {
            let id = pick(u, IDS).to_string();
            st.calls = vec![(id.clone(), "exec".into())];
            json!({"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"opaque","redacted":true},{"type":"thinking","thinking":"x","thinkingSignature": if flag {""} else {"sig"}},{"type":"toolCall","id":id,"name":"exec","arguments":{}}],"stopReason":"toolUse","usage":{"output":4}})
        }
        19 => match u.int_in_range(0u8..=2).unwrap_or(0) {
            0 => json!({"role":"assistant","content":[],"stopReason":"error","errorMessage":"stream interrupted"}),
            1 => json!({"role":"assistant","content":[{"type":"text","text":"partial"}],"stopReason":"aborted"}),
            _ => json!({"role":"assistant","content":[{"type":"toolCall","id":pick(u, IDS),"name":"read","arguments":{}}],"stopReason":"error"}),
        },
        20 => json!({"role":"assistant","content":[{"type":"text","text": if flag {"NO_REPLY"} else {" "}}],"stopReason":"stop","usage":{"output":1}}),
        21 => json!({"role":"custom","customType":"openclaw.system-note","content":format!("note {n}")}),
        22 => json!({"role":"compactionSummary","summary":format!("summary {n}"),"tokensBefore":100,"timestamp":n}),
        _ => json!({"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false}),
    }
}

fn build(u: &mut Unstructured) -> Vec<AgentMessage> {
    let mut st = State { n: 0, calls: Vec::new() };
    let mut out = Vec::new();
    while !u.is_empty() && out.len() < 2000 {
        let v = one(u, &mut st);
        out.push(serde_json::from_value(v).expect("generated message is valid"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_bounded() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(transcript(&bytes), transcript(&bytes));
        assert!(transcript(&[]).is_empty());
        assert!(!transcript(&bytes).is_empty());
    }
}
