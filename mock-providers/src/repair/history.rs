//! A3.12 `limitHistoryTurns` (`embedded-agent-runner/history.ts`).

use clawspec_contract::AgentMessage;

/// How many of `count` user turns survive a limit of `limit`: all while
/// count ≤ ceil(1.5·L); then L + (count − L) mod (ceil(1.5·L) − L + 1), so
/// the cut point moves in steps and the kept prefix stays stable.
pub fn kept_user_turns(count: usize, limit: usize) -> usize {
    let high = (3 * limit).div_ceil(2);
    if limit == 0 || count <= high {
        return count;
    }
    limit + (count - limit) % (high - limit + 1)
}

/// Keeps the leading prelude (compaction/branch summaries before the first
/// user/assistant turn) and the most recent user turns, cut at a user message.
pub fn limit_history_turns(mut ms: Vec<AgentMessage>, limit: usize) -> Vec<AgentMessage> {
    let prelude = ms.iter().position(|m| matches!(m, AgentMessage::User(_) | AgentMessage::Assistant(_))).unwrap_or(ms.len());
    let users: Vec<usize> = ms.iter().enumerate().skip(prelude).filter(|(_, m)| matches!(m, AgentMessage::User(_))).map(|(i, _)| i).collect();
    let keep = kept_user_turns(users.len(), limit);
    if keep >= users.len() {
        return ms;
    }
    let from = users[users.len() - keep];
    ms.drain(prelude..from);
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    #[case(2, 4, 2)]
    #[case(3, 4, 3)]
    #[case(4, 4, 4)]
    #[case(6, 4, 6)]
    #[case(7, 4, 4)]
    #[case(8, 4, 5)]
    #[case(9, 4, 6)]
    #[case(10, 4, 4)]
    fn formula(#[case] count: usize, #[case] limit: usize, #[case] kept: usize) {
        assert_eq!(kept_user_turns(count, limit), kept);
    }

    #[test]
    fn keeps_prelude_and_cuts_at_a_user_turn() {
        let ms = msgs(json!([
            {"role":"compactionSummary","summary":"s","tokensBefore":1},
            {"role":"user","content":"1"},{"role":"assistant","content":[{"type":"text","text":"a"}]},
            {"role":"user","content":"2"},{"role":"user","content":"3"}
        ]));
        assert_eq!(shape(&limit_history_turns(ms, 1)), ["compactionSummary:s", "user:3"]);
    }
}
