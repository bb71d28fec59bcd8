//! Transcript generators for property tests and fuzzing: realistic and hostile
//! shapes (split tool pairs, duplicated and malformed ids, thinking with and
//! without signatures, blank blocks, images, custom roles, role runs).

use clawspec_contract::AgentMessage;
use serde_json::{json, Value};

/// Build a transcript from a byte string (fuzzers, proptest via `Vec<u8>`).
pub fn transcript(bytes: &[u8]) -> Vec<AgentMessage> {
    let mut out = Vec::new();
    let mut it = bytes.iter().copied();
    let mut n = 0u32;
    let ids = ["toolu_1", "toolu_2", "call_dup", "     functions.read:37", "call_0123456789012345678901234567890123456789abc|fc_x", "abc", ""];
    while let Some(op) = it.next() {
        n += 1;
        let arg = it.next().unwrap_or(0);
        let id = ids[(arg as usize) % ids.len()];
        let v: Value = match op % 12 {
            0 | 1 => json!({"role":"user","content": format!("user says {n}")}),
            2 => json!({"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":format!("blocks {n}")}]}),
            3 => json!({"role":"user","content":[{"type":"text","text":format!("look {n}")},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}),
            4 => json!({"role":"assistant","content":[{"type":"text","text":format!("answer {n}")}],"stopReason":"stop"}),
            5 => json!({"role":"assistant","content":[{"type":"toolCall","id":id,"name":"read","arguments":{"p":n}}],"stopReason":"toolUse"}),
            6 => json!({"role":"toolResult","toolCallId":id,"toolName":"read","content":[{"type":"text","text":format!("result {n}")}],"isError":false}),
            7 => json!({"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":format!("thought {n}")}]}),
            8 => json!({"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"opaque","redacted":true},{"type":"thinking","thinking":"x","thinkingSignature": if arg % 2 == 0 {""} else {"sig"}},{"type":"toolCall","id":id,"name": if arg % 3 == 0 {""} else {"exec"},"arguments":{}}]}),
            9 => json!({"role":"assistant","content":[],"stopReason":"error","errorMessage":"stream interrupted"}),
            10 => json!({"role":"toolResult","toolCallId":id,"content":[{"type":"text","text":""}],"isError": arg % 2 == 0}),
            _ => match arg % 3 {
                0 => json!({"role":"custom","customType":"openclaw.system-note","content":format!("note {n}")}),
                1 => json!({"role":"compactionSummary","summary":format!("summary {n}"),"tokensBefore":100}),
                _ => json!({"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false}),
            },
        };
        out.push(serde_json::from_value(v).expect("generated message is valid"));
    }
    out
}
