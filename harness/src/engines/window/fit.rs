//! Budget fitting: newest-first over tool groups (an assistant toolCall turn
//! and its results are kept or dropped together), must-keep messages always
//! in, original order preserved, no orphan toolResult, and no history that
//! starts with an assistant tool call or a tool result — after assemble
//! OpenClaw only re-runs the pairing repair, not turn validation, so such a
//! start reaches the provider (shared/reference/provider-rules.md, lossless-claw #1193).

use std::borrow::Borrow;
use std::ops::Range;

use clawspec_contract::tokens::{Estimable, Estimator};
use clawspec_contract::*;

fn is_tool_call_turn(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::Assistant(_)) && !m.tool_call_ids().is_empty()
}

/// Indices of whole groups, in order: an assistant with tool calls plus the
/// toolResults directly after it that answer one of its calls; every other
/// message alone. Messages owned or shared ([`Msg`]). A group is a range:
/// its messages are consecutive.
pub fn groups<M: Borrow<AgentMessage>>(ms: &[M]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let joins = match m.borrow() {
            AgentMessage::ToolResult(r) => out.last().is_some_and(|g| {
                let call = ms[g.start].borrow();
                is_tool_call_turn(call) && call.tool_call_ids().contains(&r.tool_call_id.as_str())
            }),
            _ => false,
        };
        match out.last_mut() {
            Some(g) if joins => g.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// A group that is a toolResult without its call: never sent to a provider.
fn is_orphan<M: Borrow<AgentMessage>>(ms: &[M], g: &Range<usize>) -> bool {
    matches!(ms[g.start].borrow(), AgentMessage::ToolResult(_))
}

/// Choose which messages to keep within `budget` tokens. Returns kept indices
/// in order. With `split_pairs` (a mutation) messages are fitted one by one.
/// Costs are the 2026.9.6 estimate of each message (cached on a shared
/// message, so a history passed every call is not re-estimated).
pub fn fit<M: Borrow<AgentMessage> + Estimable>(ms: &[M], budget: u64, must_keep: &[bool], split_pairs: bool) -> Vec<usize> {
    let gs: Vec<Range<usize>> = if split_pairs { (0..ms.len()).map(|i| i..i + 1).collect() } else { groups(ms) };
    let cost: Vec<u64> = ms.iter().map(|m| m.tokens(Estimator::OpenClaw)).collect();
    let mut keep = vec![false; ms.len()];
    let mut used: u64 = 0;
    let orphan = |g: &Range<usize>| !split_pairs && is_orphan(ms, g);
    for g in gs.iter().filter(|g| orphan(g)) {
        eprintln!("window: dropping toolResult {} without its tool call", g.start);
    }
    // Must-keep groups first: they are in whatever the budget.
    for g in gs.iter().filter(|g| !orphan(g)) {
        if g.clone().any(|i| must_keep[i]) {
            for i in g.clone() {
                keep[i] = true;
                used += cost[i];
            }
        }
    }
    // Then newest-first while it fits; stop at the first group that does not
    // fit so the kept history stays contiguous.
    for g in gs.iter().rev().filter(|g| !orphan(g)) {
        if g.clone().all(|i| keep[i]) {
            continue;
        }
        let c: u64 = cost[g.clone()].iter().sum();
        if used + c > budget {
            break;
        }
        for i in g.clone() {
            keep[i] = true;
        }
        used += c;
    }
    let mut kept: Vec<usize> = (0..ms.len()).filter(|&i| keep[i]).collect();
    while let Some(&first) = kept.first() {
        let bad = matches!(ms[first].borrow(), AgentMessage::ToolResult(_)) || is_tool_call_turn(ms[first].borrow());
        let g = gs.iter().find(|g| g.contains(&first)).cloned().unwrap_or_default();
        if bad && !g.clone().any(|i| must_keep[i]) {
            kept.retain(|i| !g.contains(i));
        } else {
            break;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    /// The groups' indices, listed.
    fn groups_of(ms: &[AgentMessage]) -> Vec<Vec<usize>> {
        groups(ms).into_iter().map(Iterator::collect).collect()
    }

    /// user(10 tokens) · assistant call t1 (2+1) · result t1 (10) · assistant text (10) · user (1)
    fn conv() -> Vec<AgentMessage> {
        serde_json::from_value(json!([
            {"role":"user","content":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
            {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},
            {"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}]},
            {"role":"assistant","content":[{"type":"text","text":"cccccccccccccccccccccccccccccccccccccccc"}]},
            {"role":"user","content":"dddd"}
        ]))
        .unwrap()
    }

    /// One assistant turn with two parallel calls and both results.
    fn parallel() -> Vec<AgentMessage> {
        serde_json::from_value(json!([
            {"role":"user","content":"go"},
            {"role":"assistant","content":[{"type":"toolCall","id":"a","name":"x","arguments":{}},{"type":"toolCall","id":"b","name":"x","arguments":{}}]},
            {"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"aaaaaaaaaaaaaaaaaaaa"}]},
            {"role":"toolResult","toolCallId":"b","content":[{"type":"text","text":"bbbbbbbbbbbbbbbbbbbb"}]},
            {"role":"user","content":"next"}
        ]))
        .unwrap()
    }

    #[rstest]
    #[case::everything_fits(1000, vec![0, 1, 2, 3, 4])]
    #[case::drops_oldest_whole_group(30, vec![3, 4])]
    #[case::group_admitted_but_leading_tool_call_dropped(25, vec![3, 4])]
    #[case::only_tail(2, vec![4])]
    #[case::tail_even_over_budget(0, vec![4])]
    fn fits_newest_first(#[case] budget: u64, #[case] expect: Vec<usize>) {
        let ms = conv();
        let must = vec![false, false, false, false, true];
        assert_eq!(fit(&ms, budget, &must, false), expect);
    }

    #[rstest]
    #[case::all(100, vec![0, 1, 2, 3, 4])]
    #[case::parallel_results_go_together(12, vec![4])]
    fn parallel_calls_stay_whole(#[case] budget: u64, #[case] expect: Vec<usize>) {
        let ms = parallel();
        assert_eq!(fit(&ms, budget, &[false, false, false, false, true], false), expect);
    }

    #[test]
    fn a_must_keep_result_pulls_in_its_call() {
        let ms = conv();
        assert_eq!(fit(&ms, 0, &[false, false, true, false, true], false), vec![1, 2, 4]);
    }

    #[test]
    fn orphan_results_are_never_emitted() {
        let ms: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role":"user","content":"q"},
            {"role":"toolResult","toolCallId":"gone","content":[{"type":"text","text":"r"}]},
            {"role":"assistant","content":[{"type":"toolCall","id":"t","name":"x","arguments":{}}]},
            {"role":"toolResult","toolCallId":"other","content":[{"type":"text","text":"r"}]},
            {"role":"user","content":"u"}
        ]))
        .unwrap();
        assert_eq!(groups_of(&ms), vec![vec![0], vec![1], vec![2], vec![3], vec![4]]);
        assert_eq!(fit(&ms, 1000, &[false, true, false, false, true], false), vec![0, 2, 4]);
    }

    #[test]
    fn split_pairs_mutation_can_split() {
        let ms = conv();
        let must = [false, false, true, false, true];
        assert_eq!(fit(&ms, 0, &must, true), vec![2, 4], "the result without its call");
        assert_eq!(fit(&ms, 0, &must, false), vec![1, 2, 4]);
    }

    #[test]
    fn groups_keep_pairs() {
        assert_eq!(groups_of(&conv()), vec![vec![0], vec![1, 2], vec![3], vec![4]]);
        assert_eq!(groups_of(&parallel()), vec![vec![0], vec![1, 2, 3], vec![4]]);
    }
}
