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

use std::borrow::Borrow;

use clawspec_contract::{AgentMessage, ContentBlock, Msg};
use clawspec_mock_providers::repair::{self, Policy};
use clawspec_mock_providers::Provider;

use super::pipeline::MISSING_TOOL_RESULT;
use super::profile::Profile;
use crate::scenario::model::Setup;

/// The wire the setup's provider/api speaks, on the profiles that model it.
fn wire(profile: &Profile, setup: &Setup) -> Option<Provider> {
    profile.attempt_runtime_context_v2026_9.then(|| Provider::for_openclaw(&setup.provider, &setup.api)).flatten()
}

/// Session history as the attempt sees it after the replay policy.
/// Anthropic, Google and openai-completions: the whole `sanitizeSessionHistory` pass list and
/// `validateReplayTurns` (mock-providers `repair`), which also names a
/// result's empty `toolName` after its call and merges consecutive user
/// messages (openai-completions sets `validateGeminiTurns` and
/// `validateAnthropicTurns`, provider-replay-helpers-*.mjs
/// `buildOpenAICompatibleReplayPolicy`; twins of regression-a8-empty-tool-name
/// and regression-a8-consecutive-user). Anthropic too: its pass list drops
/// blank text blocks and the empty stream-error assistant and merges the
/// user turns around it (twin of regression-a8-blank-content). Pairing
/// matches a result's trimmed id against its call's stored id
/// (`untrimmed_call_ids_in_pairing`, twin of regression-a8-duplicate-tool-ids).
///
/// Every API: a tool result's `details` (what the tool reported beside its
/// content) is not replayed (`stripToolResultDetails`, model-context-message-*.mjs,
/// called by `sanitizeSessionHistory`): the session keeps it, the next
/// attempt's history drops it (twin of http-anthropic).
/// The replay policy 2026.9.6 resolves for the session's model.
fn replay_policy(profile: &Profile, setup: &Setup) -> Option<Policy> {
    match wire(profile, setup) {
        Some(Provider::Anthropic) => Some(Policy::for_model(Provider::Anthropic, &setup.model)),
        Some(Provider::Gemini) => Some(Policy::for_model(Provider::Gemini, &setup.model)),
        // Mistral on openai-completions: the openai-completions policy (strict ids,
        // not the 9-character ids of a native Mistral transport).
        Some(Provider::OpenAiChat | Provider::Mistral) => Some(Policy { validate_gemini_turns: true, validate_anthropic_turns: true, ..Policy::for_model(Provider::OpenAiChat, &setup.model) }),
        _ => None,
    }
}

/// Whether 2026.9.6 wraps the model stream with its thinking-rejection
/// recovery: a policy that preserves signatures or drops thinking or
/// reasoning (builtin-openclaw-*.mjs: `session.agent.streamFn =
/// wrapAnthropicStreamWithRecovery(…)` under `transcriptPolicy.preserveSignatures
/// || dropThinkingBlocks || dropReasoningFromHistory`).
pub fn recovers_rejected_thinking(profile: &Profile, setup: &Setup) -> bool {
    profile.attempt_runtime_context_v2026_9 && replay_policy(profile, setup).is_some_and(|p| p.preserve_signatures || p.drop_thinking_blocks || p.drop_reasoning_from_history)
}

/// What 2026.9.6's recovery hook does to the stored history once the retry
/// without thinking is answered (`repairRejectedThinkingReplayInSessionManager`,
/// builtin-openclaw-*.mjs; `stripThinkingBlocksFromMessage`,
/// tool-result-truncation-*.mjs): every assistant on the active branch loses
/// its thinking blocks, one left with nothing reads `[assistant reasoning
/// omitted]`. Returns how many messages changed (the `repaired=N` it logs).
/// Whether [`strip_thinking_for_rejected_replay`] would change `m` (only
/// those are copied out of the shared transcript to be changed).
pub fn has_thinking(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::Assistant(a) if a.content.iter().any(|b| matches!(b, ContentBlock::Thinking(_))))
}

pub fn strip_thinking_for_rejected_replay<'a>(ms: impl Iterator<Item = &'a mut AgentMessage>) -> usize {
    let mut changed = 0;
    for m in ms {
        if let AgentMessage::Assistant(a) = m {
            let before = a.content.len();
            a.content.retain(|b| !matches!(b, ContentBlock::Thinking(_)));
            if a.content.len() != before {
                changed += 1;
                if a.content.is_empty() {
                    a.content.push(ContentBlock::Text(clawspec_contract::TextBlock { text: clawspec_mock_providers::repair::placeholders::REASONING_OMITTED.into(), text_signature: None, extra: Default::default() }));
                }
            }
        }
    }
    changed
}

/// [`sanitize_history`] of shared messages.
pub fn sanitize_shared(profile: &Profile, setup: &Setup, ms: Vec<Msg>) -> Vec<Msg> {
    clawspec_contract::shared::share(sanitize_history(profile, setup, clawspec_contract::shared::unshare(ms)))
}

pub fn sanitize_history(profile: &Profile, setup: &Setup, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    if !profile.attempt_runtime_context_v2026_9 {
        return sanitize_history_2026_4(profile, setup, ms);
    }
    let mut ms = match replay_policy(profile, setup) {
        Some(policy) => {
            // `allowedToolNames` is the session's tool catalogue plus client
            // tools (builtin-openclaw-*.mjs `collectAllowedToolNames`): a stored
            // call of any other tool is dropped before pairing, so it gets no
            // synthetic result (twin of regression-a8-split-tool-pair).
            let allowed = (!setup.tools.is_empty()).then(|| setup.tools.iter().chain(&setup.client_tools).cloned().collect());
            let explanation = Some(clawspec_contract::markers::INTER_SESSION_EXPLANATION.to_string());
            let policy = Policy { untrimmed_call_ids_in_pairing: true, allowed_tools: allowed, inter_session_explanation: explanation, ..policy };
            repair::validate_replay_turns(&policy, repair::sanitize_session_history(&policy, ms))
        }
        None if matches!(wire(profile, setup), Some(Provider::OpenAiResponses)) => normalize_responses_history_ids(ms),
        None => ms,
    };
    strip_details_and_stamp_synthetic(&mut ms, &[MISSING_TOOL_RESULT]);
    ms
}

/// `stripToolResultDetails`, and a time for the pairing repair's synthetic
/// results (texts in `synthetic`): the host stamps them `Date.now()`
/// (tool-result-pairing-*.mjs `makeMissingToolResult`; twins of
/// regression-a8-aborted-parallel-calls and -duplicate-tool-ids); the
/// reference takes its call's time, which keeps runs byte-identical.
pub(super) fn strip_details_and_stamp_synthetic(ms: &mut [AgentMessage], synthetic: &[&str]) {
    let mut last_ts = None;
    for m in ms.iter_mut() {
        match m {
            AgentMessage::Assistant(a) => last_ts = a.timestamp.clone(),
            AgentMessage::ToolResult(r) => {
                r.details = None;
                if r.timestamp.is_none() && r.is_error == Some(true) && r.content.iter().any(|b| matches!(b, ContentBlock::Text(t) if synthetic.contains(&t.text.as_str()))) {
                    r.timestamp = last_ts.clone();
                }
            }
            _ => {}
        }
    }
}

/// OpenAI Responses history as 2026.9.6 hands it to the engine
/// (builtin-openclaw-*.mjs `sanitizeSessionHistory`:
/// `downgradeOpenAIFunctionCallReasoningPairs(normalizeOpenAIResponsesToolCallIds(…))`,
/// embedded-agent-helpers-*.mjs). A stored id is a `call_id|item_id` pair
/// (the host joins them when it reads a Responses `function_call`, @openclaw/ai
/// openai-responses-shared-*.mjs `resolveResponsesToolCallId`). Normalising:
/// when the call part is not a Responses `call_…` id
/// (`^call_[A-Za-z0-9_-]{1,59}$`) or the item part not an `fc_…` id
/// (`^fc_[A-Za-z0-9_-]{1,61}$`), the call part becomes
/// `call_<sanitised tail>_<sha256(whole pair)[..10]>` (≤ 64 characters) and
/// the item part is normalised alike with `fc_`. Downgrading: a call whose
/// item is `fc_…` with no replayable reasoning (`rs_…`) before it in its
/// message loses the `|item` suffix, as do the results right after that
/// message. Twins: http-openai-responses (`call_log 01` →
/// `call_log_01_329852950a`, `toolu_0001|fc_mock0` →
/// `call_toolu_0001_fc_mock0_7c19d3e0a7`) and regression-a8-long-call-ids
/// (a valid `call_…|fc_…` pair keeps its call id byte for byte).
fn normalize_responses_history_ids(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    downgrade_function_call_pairs(ms.into_iter().map(|mut m| {
        match &mut m {
            AgentMessage::Assistant(a) => {
                for b in a.content.iter_mut() {
                    if let ContentBlock::ToolCall(c) = b {
                        c.id = normalize_responses_call_id(&c.id);
                    }
                }
            }
            AgentMessage::ToolResult(r) => r.tool_call_id = normalize_responses_call_id(&r.tool_call_id),
            _ => {}
        }
        m
    }))
}

/// `splitOpenAIFunctionCallPairing`: the call and item parts of a stored id.
fn split_pairing(id: &str) -> (&str, Option<&str>) {
    match id.find('|') {
        Some(i) if i > 0 && i < id.len() - 1 => (&id[..i], Some(&id[i + 1..])),
        _ => (id, None),
    }
}

fn valid_id(id: &str, prefix: &str, max_tail: usize) -> bool {
    id.strip_prefix(prefix).is_some_and(|t| (1..=max_tail).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
}

/// `normalizeOpenAIResponsesIdPart`.
fn normalize_id_part(value: &str, prefix: &str, max_tail: usize) -> String {
    use sha2::Digest;
    let trimmed = value.trim();
    if valid_id(trimmed, prefix, max_tail) {
        return trimmed.to_string();
    }
    let raw_tail = trimmed.strip_prefix(prefix).unwrap_or(trimmed);
    let hash: String = sha2::Sha256::digest(if trimmed.is_empty() { prefix } else { trimmed }.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    let suffix = format!("_{}", &hash[..10]);
    let sanitized: String = raw_tail.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    let sanitized = sanitized.trim_matches('_');
    let max = 64 - prefix.len();
    let head: String = sanitized.chars().take(max.saturating_sub(suffix.len()).max(1)).collect();
    let tail: String = format!("{}{suffix}", if head.is_empty() { "id" } else { &head }).chars().take(max).collect();
    format!("{prefix}{tail}")
}

/// `shouldNormalizeOpenAIResponsesToolCallId` + `normalizeOpenAIResponsesFunctionCallId`.
fn normalize_responses_call_id(id: &str) -> String {
    let (call, item) = split_pairing(id);
    let call_ok = valid_id(call, "call_", 59);
    if call_ok && item.is_none_or(|i| valid_id(i, "fc_", 61)) {
        return id.to_string();
    }
    match item {
        None => normalize_id_part(call, "call_", 59),
        Some(i) => format!("{}|{}", normalize_id_part(&format!("{call}|{i}"), "call_", 59), normalize_id_part(i, "fc_", 61)),
    }
}

/// `parseOpenAIReasoningSignature`: a thinking block replayable as a
/// Responses reasoning item (`{"id":"rs_…","type":"reasoning…"}`).
fn replayable_reasoning(b: &ContentBlock) -> bool {
    let ContentBlock::Thinking(t) = b else { return false };
    let Some(sig) = t.thinking_signature.as_deref().map(str::trim).filter(|s| s.starts_with('{') && s.ends_with('}')) else { return false };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(sig) else { return false };
    let (id, ty) = (v["id"].as_str().unwrap_or(""), v["type"].as_str().unwrap_or(""));
    id.starts_with("rs_") && (ty == "reasoning" || ty.starts_with("reasoning."))
}

/// `downgradeOpenAIFunctionCallReasoningPairs`.
pub(super) fn downgrade_function_call_pairs(ms: impl Iterator<Item = AgentMessage>) -> Vec<AgentMessage> {
    let mut out = Vec::new();
    let mut pending: std::collections::HashMap<String, String> = Default::default();
    for mut m in ms {
        match &mut m {
            AgentMessage::Assistant(a) => {
                pending.clear();
                let mut seen_reasoning = false;
                for b in a.content.iter_mut() {
                    if replayable_reasoning(b) {
                        seen_reasoning = true;
                    } else if let ContentBlock::ToolCall(c) = b {
                        let (call, item) = split_pairing(&c.id);
                        if !seen_reasoning && item.is_some_and(|i| i.starts_with("fc_")) {
                            let call = call.to_string();
                            pending.insert(std::mem::replace(&mut c.id, call.clone()), call);
                        }
                    }
                }
            }
            AgentMessage::ToolResult(r) if !pending.is_empty() => {
                if let Some(to) = pending.get(&r.tool_call_id) {
                    r.tool_call_id = to.clone();
                }
            }
            _ => pending.clear(),
        }
        out.push(m);
    }
    out
}

/// 2026.4.26: that release's own `sanitizeSessionHistory` on every API
/// ([`super::replay_2026_4`]); other pre-2026.9 profiles are unchanged.
fn sanitize_history_2026_4(profile: &Profile, setup: &Setup, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    if profile.id != "openclaw-2026.4.26" {
        return ms;
    }
    super::replay_2026_4::sanitize_session_history(setup, ms)
}

/// Whether 2026.9.6's `validateReplayTurns` merges consecutive user turns:
/// not on anthropic-messages when the model binds its thinking prefix
/// (`appendOnlyRuntimeContext: bindsClaudeThinkingPrefix(model)`, helpers-*.mjs /
/// provider-replay-helpers-*.mjs; `shouldMergeConsecutiveUserTurns`,
/// embedded-agent-helpers-*.mjs: Claude Opus 5.5 and Fable 5.1 only).
pub fn merges_consecutive_users(profile: &Profile, setup: &Setup) -> bool {
    match wire(profile, setup) {
        Some(Provider::Anthropic) => Policy::for_model(Provider::Anthropic, &setup.model).merge_user_turns,
        _ => true,
    }
}

/// The replay policy's `appendOnlyRuntimeContext` (2026.9.6): OpenAI Responses
/// APIs (extensions/openai replay-policy-*.mjs `buildOpenAIReplayPolicy`) and
/// prefix-binding Claude ids on Anthropic (helpers-*.mjs); false elsewhere.
pub fn append_only_runtime_context(profile: &Profile, setup: &Setup) -> bool {
    match wire(profile, setup) {
        Some(Provider::OpenAiResponses) => true,
        Some(Provider::Anthropic | Provider::Bedrock) => repair::binds_claude_thinking_prefix(&setup.model),
        _ => false,
    }
}

/// 2026.9.6 `convertToLlm` without `appendOnlyRuntimeContext`
/// (builtin-openclaw-*.mjs; internal-runtime-context-*.mjs
/// `relocateCurrentRuntimeContextCarrierToTail`): every runtime-context
/// carrier moves to the end of the current user turn — after the first user
/// message following the first carrier and everything up to the next user
/// message. Mid tool loop that is after the tool results, so a provider that
/// refuses a user turn after a tool turn (Mistral: "Unexpected role 'user'
/// after role 'tool'") rejects the request (twin of http-mistral).
pub fn relocate_carriers_to_tail<M: Borrow<AgentMessage>>(ms: Vec<M>) -> Vec<M> {
    let is_user = |m: &M| matches!(m.borrow(), AgentMessage::User(_));
    let carrier_at = |m: &M| m.borrow().is_runtime_context_carrier();
    let Some(carrier) = ms.iter().position(carrier_at) else { return ms };
    let Some(user) = ms.iter().enumerate().position(|(i, m)| i > carrier && is_user(m)) else { return ms };
    let boundary = ms.iter().enumerate().position(|(i, m)| i > user && is_user(m)).unwrap_or(ms.len());
    let (carriers, rest): (Vec<(usize, M)>, Vec<(usize, M)>) = ms.into_iter().enumerate().partition(|(_, m)| carrier_at(m));
    let (prefix, suffix): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(i, _)| *i < boundary);
    prefix.into_iter().chain(carriers).chain(suffix).map(|(_, m)| m).collect()
}

/// What the transport records from the mock's answer: the response id each API carries, and whether the
/// usage gets a `contextUsage` (the Anthropic reducer's, anthropic-stream-reducer-*.mjs).
pub struct ReplyFields {
    pub response_id: &'static str,
    pub context_usage: bool,
    /// Whether `responseModel` is recorded when the provider names the
    /// requested model: Anthropic (`message.model`, anthropic-stream-reducer-*.mjs)
    /// and Responses (`response.model`, openai-responses-shared-*.mjs) always;
    /// openai-completions, Mistral and Gemini only a different model
    /// (`chunk.model !== model.id`, openai-completions-stream-*.mjs,
    /// mistral-*.mjs; google-messages-*.mjs; twin of regression-a8-consecutive-user).
    pub response_model_always: bool,
    /// OpenAI Responses streams (openai-responses-shared-*.mjs, the mock's
    /// answer: one `msg_mock` message item, `fc_mock<i>` function calls, zero
    /// usage): text blocks carry `textSignature` `{"v":1,"id":"msg_mock"}`
    /// (`encodeTextSignatureV1`), tool call ids are `call_id|item_id`, the
    /// message gets an `openai_responses_terminal` diagnostic
    /// (`finalizeResponse`) and `contextUsage` is `available` with the
    /// reported zeros (diagnostics-*.mjs `mapResponsesTerminalUsage`). Twins
    /// of http-openai-responses and model-switch.
    pub responses_output: bool,
}

/// The id of the run's `n`-th provider response: `base` (the API's mock id
/// prefix, [`response_id_base`]) and the number, in the format the mock
/// provider mints on the real host (mock-providers `server::response_id`), so
/// every response has its own id as with a real provider.
pub fn response_id(base: &str, n: u64) -> String {
    clawspec_mock_providers::server::numbered_response_id(base, n)
}

/// The mock's response id prefix each API's transport records (2026.4.26
/// and 2026.9.6 alike): openai-completions-stream-*.mjs `output.responseId
/// ||= chunk.id`; openai-responses-shared-*.mjs `response.created` →
/// `output.responseId`; google-messages-*.mjs `output.responseId ||=
/// chunk.responseId`; Anthropic `message.id`.
pub fn response_id_base(wire: Option<Provider>) -> &'static str {
    match wire {
        Some(Provider::OpenAiChat | Provider::Mistral) => "chatcmpl-mock",
        Some(Provider::OpenAiResponses) => "resp_mock",
        Some(Provider::Gemini) => "mock-response",
        _ => "msg_mock",
    }
}

pub fn reply_fields(profile: &Profile, setup: &Setup) -> ReplyFields {
    let w = wire(profile, setup);
    let response_id = response_id_base(w);
    match w {
        Some(Provider::OpenAiChat | Provider::Mistral) => ReplyFields { response_id, context_usage: false, response_model_always: false, responses_output: false },
        Some(Provider::OpenAiResponses) => ReplyFields { response_id, context_usage: false, response_model_always: true, responses_output: true },
        Some(Provider::Gemini) => ReplyFields { response_id, context_usage: false, response_model_always: false, responses_output: false },
        _ => ReplyFields { response_id, context_usage: true, response_model_always: true, responses_output: false },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    // Twin of regression-a8-unsigned-thinking on 2026.9.6: the rejected replay's
    // stored assistants lose their thinking (repaired=2), a thinking-only one
    // reads the placeholder, users are left alone; the recovery is installed for
    // the Anthropic policy (preserveSignatures) and never on 2026.4.26.
    #[test]
    fn a_rejected_thinking_replay_strips_stored_thinking() {
        let mut ms: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": "q", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "a"}], "timestamp": 2},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "u", "thinkingSignature": ""}], "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "b"}], "timestamp": 4}
        ]))
        .unwrap();
        assert_eq!(strip_thinking_for_rejected_replay(ms.iter_mut()), 2);
        let v = serde_json::to_value(&ms).unwrap();
        assert_eq!(v[1]["content"], json!([{"type": "text", "text": "a"}]));
        assert_eq!(v[2]["content"][0]["text"], "[assistant reasoning omitted]");
        assert_eq!(v[3]["content"], json!([{"type": "text", "text": "b"}]));
        let setup = Setup { provider: "anthropic".into(), api: "anthropic-messages".into(), model: "claude-sonnet-4-6".into(), ..Setup::default() };
        assert!(recovers_rejected_thinking(&Profile::current_2026_9_6(), &setup));
        assert!(!recovers_rejected_thinking(&Profile::classic_2026_4_26(), &setup));
    }

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
    #[case::responses_normalised("openai", "openai-responses", "gpt-5.1", ["call_log_01_329852950a", "call_toolu_0001_173eb042ef"])]
    fn history_tool_call_ids_follow_the_apis_replay_policy(#[case] provider: &str, #[case] api: &str, #[case] model: &str, #[case] want: [&str; 2]) {
        let setup = Setup { provider: provider.into(), api: api.into(), model: model.into(), ..Setup::default() };
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        let out = ids(&sanitize_history(&p96, &setup, history()));
        assert_eq!(out, [want[0], want[1], want[0], want[1]], "each result follows its call");
        let p426 = Profile::classic_2026_4_26();
        // 2026.4.26 runs its own sanitizeSessionHistory on every API: strict ids (native toolu_ kept on
        // anthropic-messages; Mistral's strict9 gives the same 9-character ids here), none on Responses
        // (twins of http-openai-chat, http-mistral, regression-a8-empty-tool-name on 4.26).
        let want_426: [&str; 4] = match api {
            "openai-responses" => ["call_log 01", "toolu_0001", "call_log 01", "toolu_0001"],
            "anthropic-messages" => ["calllog01", "toolu_0001", "calllog01", "toolu_0001"],
            _ => ["calllog01", "toolu0001", "calllog01", "toolu0001"],
        };
        assert_eq!(ids(&sanitize_history(&p426, &setup, history())), want_426);
    }

    // Twin of regression-a8-consecutive-user (claude-sonnet-4-6: merged); Opus 5.5 /
    // Fable 5.1 keep the turns apart (bindsClaudeThinkingPrefix, anthropic-*.mjs).
    #[rstest]
    #[case::sonnet_4_6("claude-sonnet-4-6", 1)]
    #[case::opus_5("claude-opus-5", 1)]
    #[case::opus_5_5("claude-opus-5-5", 2)]
    #[case::fable_5_1("claude-fable-5-1", 2)]
    fn anthropic_history_merges_consecutive_users_per_model(#[case] model: &str, #[case] users: usize) {
        let setup = Setup { provider: "anthropic".into(), api: "anthropic-messages".into(), model: model.into(), ..Setup::default() };
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        let ms: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": "meta", "timestamp": 1},
            {"role": "user", "content": "question", "timestamp": 2},
            {"role": "assistant", "content": [{"type": "text", "text": "answer"}], "timestamp": 3}
        ]))
        .unwrap();
        let piped = super::super::pipeline::run_with(&p96, &ms, false, merges_consecutive_users(&p96, &setup));
        let out = sanitize_history(&p96, &setup, piped.messages);
        assert_eq!(out.iter().filter(|m| matches!(m, AgentMessage::User(_))).count(), users);
    }

    #[test]
    fn responses_history_ids_are_normalised_as_the_real_host_hands_them_over() {
        let msgs: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_0001|fc_mock0", "name": "read", "arguments": {}}, {"type": "toolCall", "id": "call_ok-1", "name": "read", "arguments": {}}], "timestamp": 1},
            {"role": "toolResult", "toolCallId": "toolu_0001|fc_mock0", "toolName": "read", "content": [{"type": "text", "text": "a"}], "isError": false, "timestamp": 2}
        ]))
        .unwrap();
        // Observed on openclaw@2026.9.6 (twin --keep of http-openai-responses).
        assert_eq!(ids(&normalize_responses_history_ids(msgs)), ["call_toolu_0001_fc_mock0_7c19d3e0a7", "call_ok-1", "call_toolu_0001_fc_mock0_7c19d3e0a7"]);
    }

    /// regression-a8-long-call-ids on openclaw@2026.9.6 (twin --keep): a valid
    /// `call_…|fc_…` pair keeps its call id byte for byte and loses the item
    /// (no reasoning in its message), its result too; after a replayable
    /// `rs_…` reasoning block the pair stays whole.
    #[test]
    fn valid_responses_pairs_are_split_not_rehashed() {
        let pair = "call_Zq9dP3kLmN8vR2sT6wX1yB4cF7gH0jK5|fc_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";
        let rs = r#"{"id":"rs_1","type":"reasoning"}"#;
        let msgs: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": pair, "name": "read", "arguments": {}}], "timestamp": 1},
            {"role": "toolResult", "toolCallId": pair, "toolName": "read", "content": [{"type": "text", "text": "a"}], "isError": false, "timestamp": 2},
            {"role": "user", "content": "next", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "thinkingSignature": rs}, {"type": "toolCall", "id": "call_b|fc_b", "name": "read", "arguments": {}}], "timestamp": 4},
            {"role": "toolResult", "toolCallId": "call_b|fc_b", "toolName": "read", "content": [{"type": "text", "text": "b"}], "isError": false, "timestamp": 5}
        ]))
        .unwrap();
        let call = "call_Zq9dP3kLmN8vR2sT6wX1yB4cF7gH0jK5";
        assert_eq!(ids(&normalize_responses_history_ids(msgs)), [call, call, "call_b|fc_b", "call_b|fc_b"]);
    }

    #[test]
    fn carriers_move_to_the_end_of_the_current_turn() {
        let carrier = |t: &str| serde_json::from_value::<AgentMessage>(json!({"role": "custom", "customType": "openclaw.runtime-context", "content": t, "display": false, "timestamp": 0})).unwrap();
        let ms: Vec<AgentMessage> = vec![
            AgentMessage::user_text("old"),
            carrier("ctx"),
            AgentMessage::user_text("now"),
            serde_json::from_value(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}], "timestamp": 1})).unwrap(),
            serde_json::from_value(json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "r"}], "isError": false, "timestamp": 2})).unwrap(),
        ];
        let out = relocate_carriers_to_tail(ms.clone());
        let roles: Vec<&str> = out.iter().map(|m| if m.is_runtime_context_carrier() { "carrier" } else { m.role() }).collect();
        assert_eq!(roles, ["user", "user", "assistant", "toolResult", "carrier"]);
        // A later user message bounds the turn; no user after the carrier: unchanged.
        let mut with_next = ms.clone();
        with_next.push(AgentMessage::user_text("next"));
        let roles: Vec<String> = relocate_carriers_to_tail(with_next).iter().map(|m| if m.is_runtime_context_carrier() { "carrier".into() } else { m.role().to_string() }).collect();
        assert_eq!(roles, ["user", "user", "assistant", "toolResult", "carrier", "user"]);
        let tail_only = vec![AgentMessage::user_text("u"), carrier("ctx")];
        assert_eq!(relocate_carriers_to_tail(tail_only.clone()), tail_only);
    }

    #[rstest]
    #[case::mistral("mistral", "openai-completions", "mistral-large-latest", false)]
    #[case::sonnet("anthropic", "anthropic-messages", "claude-sonnet-4-6", false)]
    #[case::opus_5_5("anthropic", "anthropic-messages", "claude-opus-5-5", true)]
    #[case::responses("openai", "openai-responses", "gpt-5.1", true)]
    fn append_only_runtime_context_follows_the_replay_policy(#[case] provider: &str, #[case] api: &str, #[case] model: &str, #[case] want: bool) {
        let setup = Setup { provider: provider.into(), api: api.into(), model: model.into(), ..Setup::default() };
        assert_eq!(append_only_runtime_context(&Profile::by_id("openclaw-2026.9.6").unwrap(), &setup), want);
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
        assert_eq!(sanitize_history(&p96, &anthropic, users).len(), 2, "anthropic-messages merges them too (twin of regression-a8-blank-content)");
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

    #[rstest]
    #[case::anthropic("anthropic", "anthropic-messages")]
    #[case::responses("openai", "openai-responses")]
    #[case::chat("openai", "openai-completions")]
    fn history_drops_tool_result_details_on_2026_9(#[case] provider: &str, #[case] api: &str) {
        let setup = Setup { provider: provider.into(), api: api.into(), ..Setup::default() };
        let mut h = history();
        for m in &mut h {
            if let AgentMessage::ToolResult(r) = m {
                r.details = Some(json!({"exitCode": 0}));
            }
        }
        let details = |ms: &[AgentMessage]| ms.iter().filter(|m| matches!(m, AgentMessage::ToolResult(r) if r.details.is_some())).count();
        assert_eq!(details(&sanitize_history(&Profile::by_id("openclaw-2026.9.6").unwrap(), &setup, h.clone())), 0);
        // 2026.4.26 strips them too (`stripToolResultDetails` in its sanitizeSessionHistory, every API).
        assert_eq!(details(&sanitize_history(&Profile::classic_2026_4_26(), &setup, h)), 0);
    }

    // Twin of regression-a8-blank-content: on anthropic-messages the whole
    // pass list runs (blank text blocks and the empty stream-error assistant
    // go, the two user turns around it merge, an empty result reads
    // `[empty content omitted]`), not only the id rewrite.
    #[test]
    fn anthropic_replay_runs_the_whole_sanitize_pass_list() {
        let h: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": [{"type": "text", "text": "   "}, {"type": "text", "text": "Run the job."}], "timestamp": 1},
            {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "stream interrupted", "timestamp": 2},
            {"role": "user", "content": "Try again.", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_exec1", "name": "exec", "arguments": {}}], "timestamp": 4},
            {"role": "toolResult", "toolCallId": "toolu_exec1", "toolName": "exec", "content": [{"type": "text", "text": ""}], "isError": false, "timestamp": 5}
        ]))
        .unwrap();
        let out = sanitize_history(&Profile::by_id("openclaw-2026.9.6").unwrap(), &Setup::default(), h);
        let v = serde_json::to_value(&out).unwrap();
        assert_eq!(v[0]["content"], json!([{"type": "text", "text": "Run the job."}, {"type": "text", "text": "Try again."}]), "{v:#}");
        assert_eq!(v[1]["role"], "assistant");
        assert_eq!(v[2]["content"][0]["text"], "[empty content omitted]");
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn stored_calls_of_tools_outside_the_catalogue_are_dropped() {
        let h: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": "List the files.", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_nores", "name": "ls", "arguments": {}}], "stopReason": "toolUse", "timestamp": 2},
            {"role": "user", "content": "Hello?", "timestamp": 3}
        ]))
        .unwrap();
        let setup = |tools: &[&str]| Setup { tools: tools.iter().map(|t| t.to_string()).collect(), ..Setup::default() };
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        assert_eq!(sanitize_history(&p96, &setup(&["read", "exec"]), h.clone()).len(), 1, "the call goes, the users merge");
        assert_eq!(sanitize_history(&p96, &setup(&["read", "ls"]), h).len(), 4, "call kept with its synthetic result");
    }

    #[test]
    fn the_synthetic_missing_result_is_stamped() {
        let calls: Vec<AgentMessage> = serde_json::from_value(json!([
            {"role": "user", "content": "go", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_p1", "name": "read", "arguments": {}}], "timestamp": 7}
        ]))
        .unwrap();
        let (repaired, _) = super::super::pipeline::repair_pairing(calls);
        let stamp = |p: &str| match &sanitize_history(&Profile::by_id(p).unwrap(), &Setup::default(), repaired.clone())[2] {
            AgentMessage::ToolResult(r) => r.timestamp.as_ref().map(|t| t.to_string()),
            other => panic!("{other:?}"),
        };
        assert_eq!(stamp("openclaw-2026.9.6"), Some("7".into()));
        // 2026.4.26's makeMissingToolResult stamps it too (twin of regression-a8-aborted-parallel-calls on 4.26).
        assert_eq!(stamp("openclaw-2026.4.26"), Some("7".into()));
    }

    #[test]
    fn reply_fields_name_each_apis_response_id() {
        let p96 = Profile::by_id("openclaw-2026.9.6").unwrap();
        let f = |provider: &str, api: &str| reply_fields(&p96, &Setup { provider: provider.into(), api: api.into(), ..Setup::default() });
        assert_eq!((f("openai", "openai-completions").response_id, f("openai", "openai-completions").context_usage), ("chatcmpl-mock", false));
        assert_eq!(f("google", "google-generative-ai").response_id, "mock-response");
        assert_eq!([f("anthropic", "anthropic-messages"), f("openai", "openai-responses"), f("mistral", "openai-completions"), f("google", "google-generative-ai")].map(|r| r.response_model_always), [true, true, false, false]);
        assert_eq!((f("anthropic", "anthropic-messages").response_id, f("anthropic", "anthropic-messages").context_usage), ("msg_mock", true));
    }
}
