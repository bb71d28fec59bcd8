//! A1 step 2, `wrapStreamFnSanitizeMalformedToolCalls`
//! (`run/attempt-tool-call-replay-sanitization.ts`): where Anthropic or Gemini
//! turn validation applies, trailing assistant turns without tool calls
//! ("prefill") are stripped before every model call (#72739), then turn
//! validation runs again if anything changed.

use clawspec_contract::AgentMessage;

use super::util::has_tool_call;
use super::Policy;

pub fn strip_trailing_prefill(ms: &mut Vec<AgentMessage>) -> bool {
    let mut changed = false;
    while matches!(ms.last(), Some(AgentMessage::Assistant(a)) if !has_tool_call(a)) {
        ms.pop();
        changed = true;
    }
    changed
}

pub fn send_time(p: &Policy, mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    if (p.validate_anthropic_turns || p.validate_gemini_turns) && strip_trailing_prefill(&mut ms) {
        ms = super::validate_replay_turns(p, ms);
    }
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use crate::Provider;
    use rstest::rstest;
    use serde_json::{json, Value};

    #[rstest]
    #[case::strips_trailing(Provider::Anthropic, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["user:u"])]
    #[case::gemini_strips(Provider::Gemini, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]), vec!["user:u"])]
    #[case::keeps_tool_turn(Provider::Bedrock, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"r","arguments":{}}]}]), vec!["user:u", "assistant:"])]
    #[case::openai_keeps(Provider::OpenAiChat, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["user:u", "assistant:a"])]
    fn prefill(#[case] p: Provider, #[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&send_time(&Policy::for_provider(p), msgs(input))), expect);
    }
}
