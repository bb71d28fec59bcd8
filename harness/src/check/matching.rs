//! Which host message an assembled message came from. Engines rebuild
//! messages (lossless-claw drops `timestamp`, `stopReason`, …), so identity is
//! what survives a rebuild: role, visible text and tool-call ids (`toolCall`
//! block ids of an assistant message, `toolCallId` of a tool result). Without
//! the ids every tool-call-only assistant message has the same empty text and
//! they all collide (issue 15: 18 false CE-ASM-004 failures on 4.26). The
//! timestamp only breaks ties between messages of equal identity, and a
//! dropped timestamp is tolerated.

use std::borrow::Borrow;

use clawspec_contract::{AgentMessage, MessageContent};
use serde_json::Value;

/// Timestamp-free identity of a message.
pub fn identity(m: &AgentMessage) -> String {
    let ids = tool_ids(m);
    if ids.is_empty() {
        format!("{}|{}", m.role(), m.text())
    } else {
        format!("{}|{}|{}", m.role(), ids.join(","), m.text())
    }
}

/// Tool-call ids a message issues (assistant) or answers (toolResult).
pub fn tool_ids(m: &AgentMessage) -> Vec<&str> {
    match m {
        AgentMessage::ToolResult(r) => vec![r.tool_call_id.as_str()],
        _ => m.tool_call_ids(),
    }
}

fn timestamp(m: &AgentMessage) -> Option<Value> {
    m.timestamp().map(|n| Value::Number(n.clone()))
}

/// For every output message, the index of the input message it came from
/// (`None`: not taken from the input). Among inputs of equal identity the one
/// with the same timestamp wins; otherwise (timestamp dropped or rewritten)
/// the first one not matched yet, so repeated identical messages pair up in
/// order instead of all pointing at the first.
pub fn match_output<M: Borrow<AgentMessage>>(input: &[M], output: &[M]) -> Vec<Option<usize>> {
    // An output that starts the input, message for message (an engine that
    // passes the history through), matches position for position: output k
    // has input k's identity and timestamp, and inputs 0..k were taken by
    // outputs 0..k, so k is the first candidate left. Skips building every
    // input's identity, which made each assemble of a long session cost its
    // whole history in allocations.
    if passes_through(input, output) {
        return (0..output.len()).map(Some).collect();
    }
    match_output_general(input, output)
}

/// Whether `output` is a prefix of `input`, message for message (the same
/// shared parse, or equal messages).
pub fn passes_through<M: Borrow<AgentMessage>>(input: &[M], output: &[M]) -> bool {
    shortcuts() && output.len() <= input.len() && output.iter().zip(input).all(|(o, i)| std::ptr::eq(o.borrow(), i.borrow()) || o.borrow() == i.borrow())
}

#[cfg(test)]
thread_local! {
    /// Tests turn the shortcuts off to compare verdicts with the general
    /// path (check/tests.rs, every golden trace).
    pub(crate) static SHORTCUTS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether the checks may take shortcuts proven equal to the general path.
pub fn shortcuts() -> bool {
    #[cfg(test)]
    return SHORTCUTS.with(std::cell::Cell::get);
    #[cfg(not(test))]
    true
}

/// [`match_output`] without the pass-through shortcut.
fn match_output_general<M: Borrow<AgentMessage>>(input: &[M], output: &[M]) -> Vec<Option<usize>> {
    let mut by_identity: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
    for (i, m) in input.iter().enumerate() {
        by_identity.entry(identity(m.borrow())).or_default().push(i);
    }
    let stamps: Vec<Option<Value>> = input.iter().map(|m| timestamp(m.borrow())).collect();
    let mut used = vec![false; input.len()];
    output
        .iter()
        .map(|o| {
            let o = o.borrow();
            let candidates = by_identity.get(&identity(o))?;
            let ts = timestamp(o);
            let same_ts = |i: &&usize| ts.is_some() && stamps[**i] == ts;
            let pick = candidates
                .iter()
                .filter(same_ts)
                .find(|i| !used[**i])
                .or_else(|| candidates.iter().find(same_ts))
                .or_else(|| candidates.iter().find(|i| !used[**i]))
                .or_else(|| candidates.first())
                .copied()?;
            used[pick] = true;
            Some(pick)
        })
        .collect()
}

/// One readable line per message: role, tool-call ids, timestamp and the
/// start of the text, so a tool-call-only message is never blank.
pub fn describe(m: &AgentMessage) -> String {
    let text: String = m.text().replace('\n', " ").chars().take(48).collect();
    let mut s = m.role().to_string();
    let ids = tool_ids(m);
    if !ids.is_empty() {
        let label = if matches!(m, AgentMessage::ToolResult(_)) { "for" } else { "calls" };
        s.push_str(&format!(" [{label} {}]", ids.join(", ")));
    }
    if let Some(t) = timestamp(m) {
        s.push_str(&format!(" @{t}"));
    }
    if !text.is_empty() {
        s.push_str(&format!(" {text:?}"));
    } else if let AgentMessage::User(u) = m {
        if matches!(u.content, MessageContent::Blocks(_)) {
            s.push_str(" (non-text content)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn msg(v: Value) -> AgentMessage {
        serde_json::from_value(v).unwrap()
    }
    fn call(id: &str, ts: Option<u64>) -> AgentMessage {
        let mut v = json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}]});
        if let Some(t) = ts {
            v["timestamp"] = json!(t);
        }
        msg(v)
    }
    fn result(id: &str, ts: Option<u64>) -> AgentMessage {
        let mut v = json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": "ok"}]});
        if let Some(t) = ts {
            v["timestamp"] = json!(t);
        }
        msg(v)
    }
    fn user(text: &str, ts: Option<u64>) -> AgentMessage {
        let mut v = json!({"role": "user", "content": text});
        if let Some(t) = ts {
            v["timestamp"] = json!(t);
        }
        msg(v)
    }

    #[rstest]
    #[case::tool_calls_without_timestamps_keep_their_ids(
        vec![call("a", Some(1)), result("a", Some(2)), call("b", Some(3)), result("b", Some(4))],
        vec![call("a", None), result("a", None), call("b", None), result("b", None)],
        vec![Some(0), Some(1), Some(2), Some(3)])]
    #[case::swapped_tool_calls_are_seen_swapped(
        vec![call("a", Some(1)), call("b", Some(2))],
        vec![call("b", None), call("a", None)],
        vec![Some(1), Some(0)])]
    #[case::equal_texts_without_timestamps_pair_in_order(
        vec![user("ok", Some(1)), user("ok", Some(2)), user("ok", Some(3))],
        vec![user("ok", None), user("ok", None)],
        vec![Some(0), Some(1)])]
    #[case::timestamp_breaks_ties(
        vec![user("ok", Some(1)), user("ok", Some(2))],
        vec![user("ok", Some(2)), user("ok", Some(1))],
        vec![Some(1), Some(0)])]
    #[case::rewritten_timestamp_still_matches(
        vec![user("hello", Some(1))],
        vec![user("hello", Some(99))],
        vec![Some(0)])]
    #[case::invented_message_matches_nothing(
        vec![user("hello", Some(1)), call("a", Some(2))],
        vec![user("bye", Some(1)), call("z", Some(2))],
        vec![None, None])]
    #[case::duplicated_output_points_at_the_same_input(
        vec![user("hello", Some(1))],
        vec![user("hello", Some(1)), user("hello", Some(1))],
        vec![Some(0), Some(0)])]
    fn matches(#[case] input: Vec<AgentMessage>, #[case] output: Vec<AgentMessage>, #[case] expected: Vec<Option<usize>>) {
        assert_eq!(match_output(&input, &output), expected);
    }

    #[rstest]
    #[case::tool_call_only(call("toolu_1", Some(5)), "assistant [calls toolu_1] @5")]
    #[case::tool_result(result("toolu_1", None), "toolResult [for toolu_1] \"ok\"")]
    #[case::user(user("hi there", Some(3)), "user @3 \"hi there\"")]
    fn describes_with_ids(#[case] m: AgentMessage, #[case] expected: &str) {
        assert_eq!(describe(&m), expected);
    }

    proptest::proptest! {
        /// The pass-through shortcut gives what the general matcher gives,
        /// on inputs full of repeats (same identity, same or no timestamp).
        #[test]
        fn the_shortcut_equals_the_general_matcher(
            input in proptest::collection::vec((0u8..3, 0u8..3, proptest::option::of(0u64..3)), 0..12),
            cut in 0usize..13,
            tail in proptest::collection::vec((0u8..3, 0u8..3, proptest::option::of(0u64..3)), 0..3),
        ) {
            let mk = |&(role, text, ts): &(u8, u8, Option<u64>)| {
                let mut v = match role {
                    0 => json!({"role": "user", "content": format!("t{text}")}),
                    1 => json!({"role": "assistant", "content": [{"type": "text", "text": format!("t{text}")}]}),
                    _ => json!({"role": "toolResult", "toolCallId": format!("c{text}"), "content": [{"type": "text", "text": "ok"}]}),
                };
                if let Some(ts) = ts {
                    v["timestamp"] = json!(ts);
                }
                msg(v)
            };
            let input: Vec<AgentMessage> = input.iter().map(mk).collect();
            let prefix: Vec<AgentMessage> = input[..cut.min(input.len())].to_vec();
            let mut other = prefix.clone();
            other.extend(tail.iter().map(mk));
            for output in [&prefix, &other, &input] {
                proptest::prop_assert_eq!(match_output(&input, output), match_output_general(&input, output));
            }
        }
    }
}
