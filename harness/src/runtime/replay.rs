//! What the host's provider layer does to a session's messages, per API:
//! the replay policy applied to history before an attempt, and the fields
//! its transport records on a provider reply.
//!
//! 2026.9.6 only (the real-host twin settles these per API; 2026.4.x keeps
//! the behaviour the profile had). Sources: builtin-openclaw-*.mjs
//! `sanitizeSessionHistory` (tool call ids sanitized with the policy's
//! `toolCallIdMode`, never on OpenAI Responses APIs), replay policies in
//! provider-replay-helpers-*.mjs / helpers-*.mjs
//! `buildUnownedProviderTransportReplayFallback` (strict ids for
//! openai-completions and Google; Anthropic strict, keeping native `toolu_`
//! ids), and the transports' readers in `@openclaw/ai` dist.

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::repair::tool_call_ids::sanitize_tool_call_ids;
use clawspec_mock_providers::repair::{self, Policy};
use clawspec_mock_providers::Provider;

use super::profile::Profile;
use crate::scenario::model::Setup;

/// The wire the setup's provider/api speaks, on the profiles that model it.
fn wire(profile: &Profile, setup: &Setup) -> Option<Provider> {
    profile.attempt_runtime_context_v2026_9.then(|| Provider::for_openclaw(&setup.provider, &setup.api)).flatten()
}

/// Session history as the attempt sees it after the replay policy.
/// Anthropic: the tool call ids, tool-result details stripped and
/// `validateAnthropicTurns` (consecutive assistants merged — the twin of
/// announce-then-followup: the parent's reply and the announce run's reply
/// reach the next assemble as one message; dist/embedded-agent-helpers-*.mjs);
/// the rest of its policy is the reference pipeline's own, twinned equal before. Google and
/// openai-completions: the whole `sanitizeSessionHistory` pass list and
/// `validateReplayTurns` (mock-providers `repair`), which also names a
/// result's empty `toolName` after its call and merges consecutive user
/// messages (openai-completions sets `validateGeminiTurns` and
/// `validateAnthropicTurns`, provider-replay-helpers-*.mjs
/// `buildOpenAICompatibleReplayPolicy`; twins of regression-a8-empty-tool-name
/// and regression-a8-consecutive-user).
pub fn sanitize_history(profile: &Profile, setup: &Setup, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let policy = match wire(profile, setup) {
        Some(Provider::Anthropic) => {
            // Users stay apart: `shouldMergeConsecutiveUserTurns` is false for an
            // append-only runtime-context policy on anthropic-messages
            // (dist/embedded-agent-helpers-*.mjs).
            let policy = Policy { merge_user_turns: false, ..Policy::for_model(Provider::Anthropic, &setup.model) };
            return repair::validate_replay_turns(&policy, strip_result_details(sanitize_tool_call_ids(&policy, ms)));
        }
        Some(Provider::Gemini) => Policy::for_model(Provider::Gemini, &setup.model),
        // Mistral on openai-completions: the openai-completions policy (strict ids,
        // not the 9-character ids of a native Mistral transport).
        Some(Provider::OpenAiChat | Provider::Mistral) => Policy { validate_gemini_turns: true, validate_anthropic_turns: true, ..Policy::for_model(Provider::OpenAiChat, &setup.model) },
        _ => return ms,
    };
    repair::validate_replay_turns(&policy, repair::sanitize_session_history(&policy, ms))
}

/// builtin-openclaw-*.mjs `sanitizeSessionHistory` → `stripToolResultDetails`
/// (dist/model-context-message-*.mjs): history tool results reach the attempt
/// without `details` (twin: the sessions_spawn receipt's details are gone from
/// the announce run's and the next turn's assemble, announce-then-followup).
fn strip_result_details(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    for m in &mut ms {
        if let AgentMessage::ToolResult(r) = m {
            r.details = None;
        }
    }
    ms
}

/// What the transport records from the mock's answer (which always names
/// the model `mock`): the response id each API carries, and whether the
/// usage gets a `contextUsage` (the Anthropic reducer's, anthropic-stream-reducer-*.mjs).
pub struct ReplyFields {
    pub response_id: &'static str,
    pub context_usage: bool,
}

pub fn reply_fields(profile: &Profile, setup: &Setup) -> ReplyFields {
    match wire(profile, setup) {
        // openai-completions-stream-*.mjs: `output.responseId ||= chunk.id`.
        Some(Provider::OpenAiChat | Provider::Mistral) => ReplyFields { response_id: "chatcmpl-mock", context_usage: false },
        // openai-responses-shared-*.mjs: `response.created` → `output.responseId`.
        Some(Provider::OpenAiResponses) => ReplyFields { response_id: "resp_mock", context_usage: false },
        // google-messages-*.mjs: `output.responseId ||= chunk.responseId`.
        Some(Provider::Gemini) => ReplyFields { response_id: "mock-response", context_usage: false },
        _ => ReplyFields { response_id: "msg_mock", context_usage: true },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn history() -> Vec<AgentMessage> {
        serde_json::from_value(json!([
            {"role": "user", "content": "go", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "call_log 01", "name": "read", "arguments": {}}, {"type": "toolCall", "id": "toolu_0001", "name": "read", "arguments": {}}], "timestamp": 2},
            {"role": "toolResult", "toolCallId": "call_log 01", "toolName": "read", "content": [{"type": "text", "text": "a"}], "isError": false, "timestamp": 3},
            {"role": "toolResult", "toolCallId": "toolu_0001", "toolName": "read", "content": [{"type": "text", "text": "b"}], "isError": false, "timestamp": 4}
        ]))
        .unwrap()
    }

    fn ids(ms: &[AgentMessage]) -> Vec<String> {
        ms.iter()
            .flat_map(|m| match m {
                m @ AgentMessage::Assistant(_) => m.tool_call_ids().iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                AgentMessage::ToolResult(r) => vec![r.tool_call_id.clone()],
                _ => vec![],
            })
            .collect()
    }

    // What the real 2026.9.6 host handed the engine's assemble (twin --keep traces,
    // http-openai-chat / http-gemini / http-anthropic).
    #[rstest]
    #[case::chat("openai", "openai-completions", "gpt-4.1", ["calllog01", "toolu0001"])]
    #[case::mistral("mistral", "openai-completions", "mistral-large-latest", ["calllog01", "toolu0001"])]
    #[case::gemini("google", "google-generative-ai", "gemini-2.5-pro", ["calllog01", "toolu0001"])]
    #[case::anthropic_keeps_native_ids("anthropic", "anthropic-messages", "claude-sonnet-4-6", ["calllog01", "toolu_0001"])]
    #[case::responses_untouched("openai", "openai-responses", "gpt-5.1", ["call_log 01", "toolu_0001"])]
    fn history_tool_call_ids_follow_the_apis_replay_policy(#[case] provider: &str, #[case] api: &str, #[case] model: &str, #[case] want: [&str; 2]) {
        let setup = Setup { provider: provider.into(), api: api.into(), model: model.into(), ..Setup::default() };
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        let out = ids(&sanitize_history(&p96, &setup, history()));
        assert_eq!(out, [want[0], want[1], want[0], want[1]], "each result follows its call");
        let p426 = Profile::by_id("openclaw-2026.4.26").unwrap();
        assert_eq!(ids(&sanitize_history(&p426, &setup, history())), ["call_log 01", "toolu_0001", "call_log 01", "toolu_0001"], "2026.4.26 unchanged");
    }

    #[test]
    fn openai_completions_merges_consecutive_users_and_google_names_empty_results() {
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        let users: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": "meta", "timestamp": 1},
            {"role": "user", "content": "question", "timestamp": 2},
            {"role": "assistant", "content": [{"type": "text", "text": "answer"}], "timestamp": 3}
        ]))
        .unwrap();
        let chat = Setup { provider: "mistral".into(), api: "openai-completions".into(), model: "mistral-large-latest".into(), ..Setup::default() };
        assert_eq!(sanitize_history(&p96, &chat, users.clone()).len(), 2, "the two user messages are one");
        let anthropic = Setup::default();
        assert_eq!(sanitize_history(&p96, &anthropic, users).len(), 3, "anthropic: users are not merged");
        // …but consecutive assistants are (the announce run's reply after the parent's), and history results lose details.
        let replies: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": "go", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_0001", "name": "read", "arguments": {}}], "timestamp": 2},
            {"role": "toolResult", "toolCallId": "toolu_0001", "toolName": "read", "content": [{"type": "text", "text": "a"}], "details": {"k": 1}, "isError": false, "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "Spawned."}], "timestamp": 4},
            {"role": "assistant", "content": [{"type": "text", "text": "The count is 7."}], "timestamp": 5}
        ]))
        .unwrap();
        let out = serde_json::to_value(sanitize_history(&p96, &anthropic, replies)).unwrap();
        assert_eq!(out.as_array().unwrap().len(), 4);
        assert_eq!(out[3]["content"], json!([{"type": "text", "text": "Spawned."}, {"type": "text", "text": "The count is 7."}]));
        assert!(out[2].get("details").is_none(), "{out}");
        let mut h = history();
        if let AgentMessage::ToolResult(r) = &mut h[2] {
            r.tool_name = Some(String::new());
        }
        let gemini = Setup { provider: "google".into(), api: "google-generative-ai".into(), model: "gemini-2.5-pro".into(), ..Setup::default() };
        let out = sanitize_history(&p96, &gemini, h);
        assert!(out.iter().any(|m| matches!(m, AgentMessage::ToolResult(r) if r.tool_call_id == "calllog01" && r.tool_name.as_deref() == Some("read"))), "{out:?}");
    }

    #[test]
    fn reply_fields_name_each_apis_response_id() {
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        let f = |provider: &str, api: &str| reply_fields(&p96, &Setup { provider: provider.into(), api: api.into(), ..Setup::default() });
        assert_eq!((f("openai", "openai-completions").response_id, f("openai", "openai-completions").context_usage), ("chatcmpl-mock", false));
        assert_eq!(f("google", "google-generative-ai").response_id, "mock-response");
        assert_eq!((f("anthropic", "anthropic-messages").response_id, f("anthropic", "anthropic-messages").context_usage), ("msg_mock", true));
    }
}
