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
use clawspec_contract::*;
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

// Messages are built directly (not as JSON values deserialized afterwards):
// decoding is most of a fuzz execution otherwise. `corpus_decodes_to_the_same_transcripts`
// (tests/fuzz_corpus.rs) pins the decoding, so committed corpora keep their meaning.

fn text(t: impl Into<String>) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: t.into(), text_signature: None, extra: Extra::new() })
}

fn thinking(t: &str, sig: &str, redacted: Option<bool>) -> ContentBlock {
    ContentBlock::Thinking(ThinkingBlock { thinking: t.into(), thinking_signature: Some(sig.into()), redacted, extra: Extra::new() })
}

fn call(id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCallBlock { id: id.into(), name: name.into(), arguments, thought_signature: None, extra: Extra::new() })
}

fn user(content: MessageContent, provenance: Option<InputProvenance>) -> AgentMessage {
    AgentMessage::User(UserMessage { content, timestamp: None, provenance, idempotency_key: None, extra: Extra::new() })
}

fn assistant(content: Vec<ContentBlock>, stop: &str, output: Option<u32>, error: Option<&str>) -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content,
        api: None,
        provider: None,
        model: None,
        usage: output.map(|o| json!({ "output": o })),
        stop_reason: Some(stop.into()),
        error_message: error.map(Into::into),
        timestamp: None,
        extra: Extra::new(),
    })
}

fn one(u: &mut Unstructured, st: &mut State) -> AgentMessage {
    st.n += 1;
    let n = st.n;
    let op = u.int_in_range(0u8..=23).unwrap_or(0);
    let flag = u.arbitrary::<bool>().unwrap_or(false);
    match op {
        0..=3 => AgentMessage::user_text(format!("user says {n}")),
        4 => AgentMessage::user_text(if flag { "  " } else { "" }),
        5 => user(MessageContent::Blocks(vec![text("  "), text(format!("blocks {n}"))]), None),
        6 => {
            let data = pick(u, &[PNG, "", "%%%not-base64", "R0lGODlhAQABAAAAACw="]);
            let image = ContentBlock::Image(ImageBlock { data: data.into(), mime_type: if flag { "image/png" } else { "" }.into(), extra: Extra::new() });
            user(MessageContent::Blocks(vec![text(format!("look {n}")), image]), None)
        }
        7 => {
            let provenance = InputProvenance {
                kind: ProvenanceKind::InterSession,
                origin_session_id: None,
                source_session_key: Some("agent:ops:main".into()),
                source_channel: None,
                source_tool: Some("sessions_send".into()),
                source_role: None,
                source_prompt_prefix: None,
                job_id: None,
                run_id: None,
                extra: Extra::new(),
            };
            user(MessageContent::Text(format!("relay {n}")), Some(provenance))
        }
        8..=9 => assistant(vec![text(format!("answer {n}"))], "stop", Some(3), None),
        10..=12 => {
            let k = if flag { 2 } else { 1 };
            st.calls.clear();
            let blocks: Vec<ContentBlock> = (0..k)
                .map(|_| {
                    let id = pick(u, IDS);
                    let name = if u.ratio(1, 6).unwrap_or(false) { pick(u, NAMES) } else { "read" };
                    st.calls.push((id.to_string(), name.to_string()));
                    let args = if u.ratio(1, 10).unwrap_or(false) { Value::Null } else { json!({ "p": n }) };
                    call(id, name, args)
                })
                .collect();
            assistant(blocks, "toolUse", Some(5), None)
        }
        13..=15 => {
            // Usually answers a recent call; sometimes a stray id.
            let (id, name) = if !st.calls.is_empty() && !u.ratio(1, 5).unwrap_or(false) {
                let i = u.choose_index(st.calls.len()).unwrap_or(0);
                st.calls[i].clone()
            } else {
                (pick(u, IDS).to_string(), "read".to_string())
            };
            let t = if u.ratio(1, 5).unwrap_or(false) { String::new() } else { format!("result {n}") };
            AgentMessage::ToolResult(ToolResultMessage {
                tool_call_id: id,
                tool_name: Some(if flag { name } else { String::new() }),
                content: vec![text(t)],
                is_error: Some(u.ratio(1, 6).unwrap_or(false)),
                details: None,
                timestamp: None,
                extra: Extra::new(),
            })
        }
        16 => {
            let sig = pick(u, &["", "c2lnbmF0dXJl", "msg_01abc"]);
            let mut c = vec![thinking("hmm", sig, None)];
            if flag {
                c.push(text(format!("thought {n}")));
            }
            assistant(c, "stop", Some(2), None)
        }
        17 => {
            let rs = json!({"type":"reasoning","id":format!("rs_{n}"),"encrypted_content":"gAAAA","summary":[]}).to_string();
            let id = format!("call_{n}|fc_{n}");
            let mut c = vec![thinking("r", &rs, None)];
            if flag {
                c.push(call(&id, "read", json!({})));
            }
            st.calls = vec![(id, "read".into())];
            assistant(c, if flag { "toolUse" } else { "stop" }, Some(2), None)
        }
        18 => {
            let id = pick(u, IDS);
            st.calls = vec![(id.to_string(), "exec".into())];
            let c = vec![thinking("", "opaque", Some(true)), thinking("x", if flag { "" } else { "sig" }, None), call(id, "exec", json!({}))];
            assistant(c, "toolUse", Some(4), None)
        }
        19 => match u.int_in_range(0u8..=2).unwrap_or(0) {
            0 => assistant(vec![], "error", None, Some("stream interrupted")),
            1 => assistant(vec![text("partial")], "aborted", None, None),
            _ => assistant(vec![call(pick(u, IDS), "read", json!({}))], "error", None, None),
        },
        20 => assistant(vec![text(if flag { "NO_REPLY" } else { " " })], "stop", Some(1), None),
        21 => AgentMessage::Custom(CustomMessage {
            custom_type: "openclaw.system-note".into(),
            content: MessageContent::Text(format!("note {n}")),
            display: None,
            details: None,
            timestamp: None,
            extra: Extra::new(),
        }),
        22 => AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: format!("summary {n}"),
            tokens_before: 100.into(),
            tokens_after: None,
            first_kept_entry_id: None,
            timestamp: Some(n.into()),
            extra: Extra::new(),
        }),
        _ => AgentMessage::BashExecution(BashExecutionMessage {
            command: "ls".into(),
            output: "a".into(),
            exit_code: Some(0),
            cancelled: false,
            truncated: false,
            full_output_path: None,
            timestamp: None,
            extra: Extra::new(),
        }),
    }
}

fn build(u: &mut Unstructured) -> Vec<AgentMessage> {
    let mut st = State { n: 0, calls: Vec::new() };
    let mut out = Vec::new();
    while !u.is_empty() && out.len() < 2000 {
        out.push(one(u, &mut st));
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
