//! Budget fitting: newest-first over tool groups (an assistant toolCall turn
//! and its results never split), must-keep messages always in, original order
//! preserved, and no history that starts with a tool call (#1193).

use clawspec_contract::tokens::estimate_message;
use clawspec_contract::*;

/// Indices of whole groups: an assistant with tool calls plus the toolResults
/// that follow it; every other message alone.
pub fn groups(ms: &[AgentMessage]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let joins = matches!(m, AgentMessage::ToolResult(_))
            && out.last().is_some_and(|g| {
                matches!(ms[g[0]], AgentMessage::Assistant(_)) && !ms[g[0]].tool_call_ids().is_empty()
            });
        if joins {
            out.last_mut().unwrap().push(i);
        } else {
            out.push(vec![i]);
        }
    }
    out
}

/// Choose which messages to keep. Returns kept indices in order.
pub fn fit(ms: &[AgentMessage], budget: u64, must_keep: &[bool], split_pairs: bool) -> Vec<usize> {
    let gs: Vec<Vec<usize>> = if split_pairs { (0..ms.len()).map(|i| vec![i]).collect() } else { groups(ms) };
    let cost: Vec<u64> = ms.iter().map(estimate_message).collect();
    let mut keep = vec![false; ms.len()];
    let mut used: u64 = 0;
    // Must-keep groups first: they are in whatever the budget.
    for g in &gs {
        if g.iter().any(|&i| must_keep[i]) {
            for &i in g {
                keep[i] = true;
                used += cost[i];
            }
        }
    }
    // Then newest-first while it fits; stop at the first group that does not
    // fit so the kept history stays contiguous.
    for g in gs.iter().rev() {
        if g.iter().all(|&i| keep[i]) {
            continue;
        }
        let c: u64 = g.iter().map(|&i| cost[i]).sum();
        if used + c > budget {
            break;
        }
        for &i in g {
            keep[i] = true;
        }
        used += c;
    }
    let mut kept: Vec<usize> = (0..ms.len()).filter(|&i| keep[i]).collect();
    // History must not start with an assistant tool call or a tool result.
    while let Some(&first) = kept.first() {
        let bad = matches!(ms[first], AgentMessage::ToolResult(_))
            || (matches!(ms[first], AgentMessage::Assistant(_)) && !ms[first].tool_call_ids().is_empty());
        if bad && !must_keep[first] {
            let g = gs.iter().find(|g| g.contains(&first)).cloned().unwrap_or_default();
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

    #[rstest]
    #[case::everything_fits(1000, vec![0, 1, 2, 3, 4])]
    #[case::drops_oldest_whole_group(30, vec![3, 4])]
    #[case::only_tail(2, vec![4])]
    fn fits_newest_first(#[case] budget: u64, #[case] expect: Vec<usize>) {
        let ms = conv();
        let must = vec![false, false, false, false, true];
        assert_eq!(fit(&ms, budget, &must, false), expect);
    }

    #[test]
    fn never_starts_with_a_tool_call() {
        let ms = conv();
        // budget admits the tool group + tail but not the first user message
        let kept = fit(&ms, 31, &[false, false, false, false, true], false);
        assert!(!matches!(ms[kept[0]], AgentMessage::Assistant(_) | AgentMessage::ToolResult(_)) || kept[0] == 3, "{kept:?}");
    }

    #[test]
    fn groups_keep_pairs() {
        assert_eq!(groups(&conv()), vec![vec![0], vec![1, 2], vec![3], vec![4]]);
    }
}
