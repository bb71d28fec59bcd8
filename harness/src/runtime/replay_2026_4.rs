//! What openclaw@2026.4.26's provider layer does to a session's messages:
//! its own `sanitizeSessionHistory` pass list (dist
//! compaction-successor-transcript-*.js, called by the attempt in
//! selection-*.js before `assemble`), and what its transports record on a
//! provider reply. Kept apart from 2026.9.6's ([`super::replay`]): the two
//! releases differ pass by pass (4.26 keeps a failed assistant as a
//! placeholder, strips unsigned thinking from every assistant, stamps a
//! usage snapshot on every assistant, has no Responses id normalisation).

use clawspec_contract::{AgentMessage, AssistantMessage, ContentBlock};
use clawspec_mock_providers::repair::{self, placeholders, IdMode, Policy};
use clawspec_mock_providers::Provider;
use serde_json::{json, Value};

use crate::scenario::model::Setup;

/// compaction-successor-transcript-*.js `STREAM_ERROR_FALLBACK_TEXT`.
pub const STREAM_ERROR_FALLBACK_TEXT: &str = "[assistant turn failed before producing content]";

/// The replay policy 4.26 resolves (`resolveTranscriptPolicy`): the provider
/// plugin's `buildReplayPolicy` over `DEFAULT_TRANSCRIPT_POLICY`.
/// - anthropic: `buildNativeAnthropicReplayPolicyForModel`
///   (provider-model-shared-*.js): strict ids keeping native `toolu_`,
///   signatures kept, thinking dropped only for Claude ids
///   `shouldPreserveThinkingBlocks` rejects;
/// - openai: `buildOpenAIReplayPolicy` (replay-policy-*.js): strict ids on
///   openai-completions only, no turn validation;
/// - mistral: `buildMistralReplayPolicy` (extensions/mistral/index.js):
///   `strict9` ids, nothing else;
/// - google: `buildGoogleGeminiReplayPolicy`: strict ids, turn ordering.
fn policy(setup: &Setup) -> Option<Policy> {
    let wire = Provider::for_openclaw(&setup.provider, &setup.api)?;
    let base = Policy::for_model(wire, &setup.model);
    Some(match wire {
        Provider::Anthropic => Policy { drop_thinking_blocks: setup.model.to_lowercase().contains("claude") && !preserves_thinking_blocks(&setup.model), ..base },
        Provider::OpenAiChat => Policy { tool_call_id_mode: Some(IdMode::Strict), validate_anthropic_turns: false, validate_gemini_turns: false, ..base },
        Provider::Mistral => Policy { tool_call_id_mode: Some(IdMode::Strict9), validate_anthropic_turns: false, validate_gemini_turns: false, ..base },
        Provider::OpenAiResponses => Policy { tool_call_id_mode: None, ..base },
        Provider::Gemini => base,
        Provider::Bedrock => return None,
    })
}

/// provider-model-shared-*.js `shouldPreserveThinkingBlocks`.
fn preserves_thinking_blocks(model: &str) -> bool {
    let id = model.to_lowercase();
    if !id.contains("claude") {
        return false;
    }
    if ["opus-4", "sonnet-4", "haiku-4"].iter().any(|k| id.contains(k)) {
        return true;
    }
    // /claude-[5-9]/ or /claude-\d{2,}/
    id.match_indices("claude-").any(|(i, _)| {
        let tail = id[i + 7..].as_bytes();
        matches!(tail.first(), Some(b'5'..=b'9')) || (tail.len() >= 2 && tail[0].is_ascii_digit() && tail[1].is_ascii_digit())
    })
}

/// `sanitizeSessionHistory` of 2026.4.26, in its pass order (dist
/// compaction-successor-transcript-*.js). Inter-session annotation and turn
/// validation are the pipeline's (profile flags), not repeated here.
pub fn sanitize_session_history(setup: &Setup, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let Some(mut policy) = policy(setup) else { return ms };
    policy.allowed_tools = (!setup.tools.is_empty()).then(|| setup.tools.iter().chain(&setup.client_tools).cloned().collect());
    let responses = policy.responses_family;
    let ms = normalize_assistant_replay_content(ms);
    let ms = if policy.preserve_signatures { strip_invalid_thinking_signatures(ms) } else { ms };
    let ms = if policy.drop_reasoning_from_history || policy.drop_thinking_blocks { repair::thinking::drop_thinking_blocks(ms) } else { ms };
    let ms = repair::tool_call_inputs::sanitize_tool_call_inputs(&policy, ms);
    let ms = if responses {
        // `sanitizeToolUseResultPairing(…, {missingToolResultText: "aborted"})`
        // then `downgradeOpenAIFunctionCallReasoningPairs`; no id normalisation
        // in this release.
        let ms = if policy.repair_pairing { repair::pairing::repair_tool_use_result_pairing(ms, placeholders::ABORTED) } else { ms };
        super::replay::downgrade_function_call_pairs(ms.into_iter())
    } else {
        ms
    };
    let ms = if policy.tool_call_id_mode.is_some() { repair::tool_call_ids::sanitize_tool_call_ids(&policy, ms) } else { ms };
    let mut ms = if !responses && policy.repair_pairing { repair::pairing::repair_tool_use_result_pairing(ms, placeholders::MISSING_TOOL_RESULT) } else { ms };
    super::replay::strip_details_and_stamp_synthetic(&mut ms, &[placeholders::MISSING_TOOL_RESULT, placeholders::ABORTED]);
    let ms = strip_stale_usage_before_latest_compaction(ms);
    let ms = ensure_assistant_usage_snapshots(ms);
    let ms = if policy.google_turn_ordering { repair::turns::google_turn_ordering(ms) } else { ms };
    validate_replay_turns(&policy, ms)
}

/// `validateReplayTurns` (4.26, run right after `sanitizeSessionHistory` by
/// the attempt, selection-*.js; pi-embedded-helpers-*.js): Gemini merges
/// consecutive assistants; Anthropic strips dangling tool uses and merges
/// consecutive users with `mergeConsecutiveUserTurns`, which keeps only
/// array contents — two string-content users merge into `content: []`
/// (twin of regression-a8-split-tool-pair on 4.26; 2026.9.6 turns a string
/// into a text block first).
fn validate_replay_turns(policy: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    use clawspec_contract::MessageContent;
    let ms = if policy.validate_gemini_turns { repair::turns::merge_consecutive_assistants(ms) } else { ms };
    if !policy.validate_anthropic_turns {
        return ms;
    }
    let mut out: Vec<AgentMessage> = Vec::with_capacity(ms.len());
    for m in repair::turns::strip_dangling_tool_calls(ms) {
        match (out.last_mut(), m) {
            (Some(AgentMessage::User(prev)), AgentMessage::User(mut cur)) => {
                let blocks = |c: &MessageContent| match c {
                    MessageContent::Blocks(b) => b.clone(),
                    MessageContent::Text(_) => Vec::new(),
                };
                let merged = [blocks(&prev.content), blocks(&cur.content)].concat();
                cur.timestamp = cur.timestamp.take().or_else(|| prev.timestamp.take());
                cur.content = MessageContent::Blocks(merged);
                *prev = cur;
            }
            (_, m) => out.push(m),
        }
    }
    out
}

/// `normalizeAssistantReplayContent` (4.26): blank user text goes (a blank
/// user message entirely); transcript-only assistants (`openclaw` /
/// `delivery-mirror`, `gateway-injected`) go; an assistant with no content
/// that errored, or stopped with zero usage, is kept with
/// [`STREAM_ERROR_FALLBACK_TEXT`] (2026.9.6 drops it instead).
pub(super) fn normalize_assistant_replay_content<M: clawspec_contract::shared::MessageMut>(ms: Vec<M>) -> Vec<M> {
    use clawspec_contract::MessageContent;
    let blank = |b: &ContentBlock| matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty());
    // Read first, changed only where needed (a shared message is copied
    // only then: this runs over the whole session every attempt).
    ms.into_iter()
        .filter_map(|mut m| {
            match m.borrow() {
                AgentMessage::User(u) => match &u.content {
                    MessageContent::Text(t) if t.trim().is_empty() => return None,
                    MessageContent::Blocks(b) if b.iter().all(blank) => return None,
                    MessageContent::Blocks(b) if b.iter().any(blank) => {
                        if let AgentMessage::User(clawspec_contract::UserMessage { content: MessageContent::Blocks(b), .. }) = m.make_mut() {
                            b.retain(|x| !blank(x));
                        }
                    }
                    _ => {}
                },
                AgentMessage::Assistant(a) => {
                    if a.provider.as_deref() == Some("openclaw") && matches!(a.model.as_deref(), Some("delivery-mirror" | "gateway-injected")) {
                        return None;
                    }
                    if a.content.is_empty() && (a.stop_reason.as_deref() == Some("error") || (a.stop_reason.as_deref() == Some("stop") && zero_token_usage(a))) {
                        if let AgentMessage::Assistant(a) = m.make_mut() {
                            a.content.push(ContentBlock::Text(clawspec_contract::TextBlock { text: STREAM_ERROR_FALLBACK_TEXT.into(), text_signature: None, extra: Default::default() }));
                        }
                    }
                }
                _ => {}
            }
            Some(m)
        })
        .collect()
}

/// `hasZeroTokenUsageSnapshot`.
fn zero_token_usage(a: &AssistantMessage) -> bool {
    let Some(u) = a.usage.as_ref().and_then(Value::as_object) else { return false };
    let n = |k: &str| u.get(k).and_then(Value::as_f64);
    match n("total").or(n("totalTokens")).or(n("total_tokens")) {
        Some(t) => t == 0.0 && ["input", "output", "cacheRead", "cacheWrite"].iter().all(|k| n(k).unwrap_or(0.0) == 0.0),
        None => ["input", "output", "cacheRead", "cacheWrite"].iter().all(|k| n(k).unwrap_or(0.0) == 0.0),
    }
}

/// `stripInvalidThinkingSignatures` (4.26): every assistant, the latest
/// included, loses thinking without a non-blank `signature` /
/// `thinkingSignature` / `thought_signature`; one left with nothing reads
/// `[assistant reasoning omitted]`.
fn strip_invalid_thinking_signatures(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let signed = |t: &clawspec_contract::ThinkingBlock| {
        t.thinking_signature.as_deref().is_some_and(|s| !s.trim().is_empty()) || ["signature", "thought_signature"].iter().any(|k| t.extra.get(*k).and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty()))
    };
    for m in &mut ms {
        if let AgentMessage::Assistant(a) = m {
            let before = a.content.len();
            a.content.retain(|b| !matches!(b, ContentBlock::Thinking(t) if !signed(t)));
            if a.content.is_empty() && before > 0 {
                a.content.push(ContentBlock::Text(clawspec_contract::TextBlock { text: placeholders::REASONING_OMITTED.into(), text_signature: None, extra: Default::default() }));
            }
        }
    }
    ms
}

fn zero_usage() -> Value {
    json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
}

/// `stripStaleAssistantUsageBeforeLatestCompaction`: usage older than the
/// latest compaction summary is zeroed.
fn strip_stale_usage_before_latest_compaction(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let Some(at) = ms.iter().rposition(|m| matches!(m, AgentMessage::CompactionSummary(_))) else { return ms };
    let cut = match &ms[at] {
        AgentMessage::CompactionSummary(c) => c.timestamp.as_ref().and_then(|n| n.as_f64()),
        _ => None,
    };
    for (i, m) in ms.iter_mut().enumerate() {
        if let AgentMessage::Assistant(a) = m {
            let older = cut.zip(a.timestamp.as_ref().and_then(|n| n.as_f64())).is_some_and(|(c, t)| t <= c);
            if a.usage.as_ref().is_some_and(Value::is_object) && (older || i < at) {
                a.usage = Some(zero_usage());
            }
        }
    }
    ms
}

/// `ensureAssistantUsageSnapshots` / `normalizeAssistantUsageSnapshot`: every
/// assistant carries `{input, output, cacheRead, cacheWrite, totalTokens}`
/// (missing counts 0, `totalTokens` their sum), with `cost` when it had one;
/// one without usage gets the zero snapshot with zero cost.
fn ensure_assistant_usage_snapshots(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    for m in &mut ms {
        if let AgentMessage::Assistant(a) = m {
            a.usage = Some(normalized_usage(a.usage.as_ref()));
        }
    }
    ms
}

fn normalized_usage(usage: Option<&Value>) -> Value {
    let Some(u) = usage.filter(|u| u.is_object()) else { return zero_usage() };
    let n = |keys: &[&str]| keys.iter().find_map(|k| u.get(*k).and_then(Value::as_f64).filter(|v| v.is_finite()));
    let (input, output) = (n(&["input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens"]), n(&["output", "outputTokens", "output_tokens", "completionTokens", "completion_tokens"]));
    let (cache_read, cache_write) = (n(&["cacheRead", "cache_read", "cache_read_input_tokens", "cached_tokens"]), n(&["cacheWrite", "cache_write", "cache_creation_input_tokens"]));
    let total = n(&["total", "totalTokens", "total_tokens"]);
    if input.is_none() && output.is_none() && cache_read.is_none() && cache_write.is_none() && total.is_none() {
        return zero_usage();
    }
    let num = |v: f64| if v.fract() == 0.0 { json!(v as i64) } else { json!(v) };
    let (i, o, r, w) = (input.unwrap_or(0.0), output.unwrap_or(0.0), cache_read.unwrap_or(0.0), cache_write.unwrap_or(0.0));
    let mut out = json!({"input": num(i), "output": num(o), "cacheRead": num(r), "cacheWrite": num(w), "totalTokens": num(total.unwrap_or(i + o + r + w))});
    if let Some(c) = u.get("cost").filter(|c| c.is_object()) {
        let f = |k: &str| c.get(k).and_then(Value::as_f64).filter(|v| v.is_finite());
        if ["input", "output", "cacheRead", "cacheWrite", "total"].iter().any(|k| f(k).is_some()) {
            let (ci, co, cr, cw) = (f("input").unwrap_or(0.0), f("output").unwrap_or(0.0), f("cacheRead").unwrap_or(0.0), f("cacheWrite").unwrap_or(0.0));
            out["cost"] = json!({"input": num(ci), "output": num(co), "cacheRead": num(cr), "cacheWrite": num(cw), "total": num(f("total").unwrap_or(ci + co + cr + cw))});
        }
    }
    out
}

/// What 4.26's transports (@mariozechner/pi-ai dist/providers/*.js) record
/// on the mock's reply: the provider's usage (zeros from the mock) with
/// `cost`, and the response id each API carries, numbered per response as
/// the mock mints them (`replay::response_id`; anthropic.js
/// `event.message.id` → `msg_mock`; openai-completions.js
/// `output.responseId ||= chunk.id` → `chatcmpl-mock`, Mistral too;
/// openai-responses-shared.js `response.id` → `resp_mock`; google.js
/// `chunk.responseId` → `mock-response`). No
/// contextUsage/responseModel/runId (observed by `clawspec twin`). On
/// OpenAI Responses the text blocks carry the message item's
/// `textSignature` `{"v":1,"id":"msg_mock"}` and a tool call's id is
/// `call_id|item_id` (`toolu_0001|fc_mock0`): the mock answers one
/// `msg_mock` message item and `fc_mock<i>` function calls, as a real
/// Responses API answers `msg_…`/`fc_…` items (twins of
/// http-openai-responses and model-switch on 4.26).
pub fn record_reply(setup: &Setup, a: &mut AssistantMessage, n: u64) {
    a.usage = Some(zero_usage());
    let wire = Provider::for_openclaw(&setup.provider, &setup.api);
    a.extra.insert("responseId".into(), json!(super::replay::response_id(super::replay::response_id_base(wire), n)));
    if wire == Some(Provider::OpenAiResponses) {
        mark_responses_reply(a);
    }
}

/// The tool catalogue 2026.4.26 offers on `provider`: `apply_patch` only
/// for OpenAI and OpenAI Codex models, right after the coding tools, when
/// the tool policy allows `write` (pi-tools-*.js `applyPatchEnabled` /
/// `isOpenAIProvider`; tool-policy-match-*.js: `apply_patch` matches an
/// allowed `write`). A switch to or from such a model changes the catalogue
/// (twin of model-switch on 4.26; the twin takes the first assemble's
/// catalogue from the real host, `cli::twin`).
pub fn offered_tools(provider: &str, mut tools: Vec<String>) -> Vec<String> {
    let openai = matches!(provider.trim().to_lowercase().as_str(), "openai" | "openai-codex");
    let has = tools.iter().any(|t| t == "apply_patch");
    if !openai && has {
        tools.retain(|t| t != "apply_patch");
    } else if openai && !has && tools.iter().any(|t| t == "write") {
        let at = tools.iter().rposition(|t| matches!(t.as_str(), "read" | "edit" | "write")).map_or(0, |i| i + 1);
        tools.insert(at, "apply_patch".into());
    }
    tools
}

/// The assistant message 4.26's agent loop records when the provider rejects
/// a request (@mariozechner/pi-ai providers/anthropic.js: the stream's
/// error event carries `output` with `stopReason: "error"` and
/// `errorMessage` the SDK's `` `${status} ${JSON.stringify(body)}` ``): no
/// content, zero usage with cost, no response id. The body is the one the
/// mock answers for the scripted failure (mock-providers `scripted::error_body`).
/// Only a rejected thinking signature is modelled (twin of
/// regression-a8-unsigned-thinking on 4.26, which has no signature retry).
pub fn provider_error_assistant(setup: &Setup, mf: &super::model::ModelFailure, ts: u64) -> Option<AgentMessage> {
    use clawspec_mock_providers::scripted::{error_body, Failure, FailureKind};
    let kind = match mf.kind {
        crate::scenario::model::ModelErrorKind::InvalidSignature => FailureKind::InvalidSignature,
        _ => return None,
    };
    let wire = Provider::for_openclaw(&setup.provider, &setup.api)?;
    let (status, body) = error_body(wire, &Failure { kind, message: Some(mf.message.clone()), delay_ms: None })?;
    serde_json::from_value(json!({
        "role": "assistant", "content": [], "api": setup.api, "provider": setup.provider, "model": setup.model,
        "usage": zero_usage(), "stopReason": "error", "timestamp": ts,
        "errorMessage": format!("{status} {body}"),
    }))
    .ok()
}

/// attempt.prompt-helpers-*.js `QUEUED_USER_MESSAGE_MARKER` (4.26; 2026.9.6
/// words it differently, `markers::QUEUED_USER_MESSAGE_MARKER`).
pub const QUEUED_USER_MESSAGE_MARKER: &str = "[Queued user message that arrived while the previous turn was still active]";

/// The runtime-context message of a turn whose prompt got an orphaned user
/// message merged in (`mergeOrphanedTrailingUserPrompt`: `[marker, orphan,
/// "", prompt].join("\n")`): the queued block precedes the rest of the
/// context (`resolveRuntimeContextPromptParts` keeps everything around the
/// transcript prompt; twin of orphan-trailing-user on 4.26).
pub fn with_queued_user_message(ctx: &AgentMessage, orphan: &str) -> AgentMessage {
    let mut v = serde_json::to_value(ctx).expect("a message");
    if let Some(c) = v["content"].as_str() {
        v["content"] = json!(c.replacen("\n\n", &format!("\n\n{QUEUED_USER_MESSAGE_MARKER}\n{orphan}\n\n"), 1));
    }
    serde_json::from_value(v).expect("a message")
}

/// What pi-ai's OpenAI Responses stream makes of the mock's reply: each text
/// block carries the output message's signature, each call id its `fc_` item
/// id (pi-ai providers/openai-responses*.js); shared by both releases' reply records.
pub(super) fn mark_responses_reply(a: &mut AssistantMessage) {
    let mut calls = 0;
    for b in a.content.iter_mut() {
        match b {
            ContentBlock::Text(t) => t.text_signature = Some(r#"{"v":1,"id":"msg_mock"}"#.to_string()),
            ContentBlock::ToolCall(c) => {
                c.id = format!("{}|fc_mock{calls}", c.id);
                calls += 1;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn msgs(v: Value) -> Vec<AgentMessage> {
        serde_json::from_value(v).unwrap()
    }

    fn setup(provider: &str, api: &str, model: &str) -> Setup {
        Setup { provider: provider.into(), api: api.into(), model: model.into(), ..Setup::default() }
    }

    // Twins of unknown-fields / regression-a8-duplicated-thinking on 4.26: a stored
    // assistant without usage reaches the engine with the zero snapshot and its cost;
    // a partial usage is completed, its missing cost not invented.
    #[test]
    fn every_assistant_carries_a_usage_snapshot() {
        let ms = msgs(json!([
            {"role": "user", "content": "hi", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}], "stopReason": "stop", "timestamp": 2},
            {"role": "user", "content": "more", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "b"}], "stopReason": "stop", "usage": {"input": 0, "output": 4, "totalTokens": 4}, "timestamp": 4}
        ]));
        let v = serde_json::to_value(sanitize_session_history(&Setup::default(), ms)).unwrap();
        assert_eq!(v[1]["usage"], zero_usage());
        assert_eq!(v[3]["usage"], json!({"input": 0, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 4}));
    }

    // Twin of regression-a8-blank-content on 4.26: the blank user block goes, the
    // failed empty assistant stays with the placeholder (2026.9.6 drops it).
    #[test]
    fn a_failed_empty_assistant_becomes_the_placeholder() {
        let ms = msgs(json!([
            {"role": "user", "content": [{"type": "text", "text": "   "}, {"type": "text", "text": "Run the job."}], "timestamp": 1},
            {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "stream interrupted", "timestamp": 2},
            {"role": "user", "content": "Try again.", "timestamp": 3}
        ]));
        let v = serde_json::to_value(sanitize_session_history(&Setup::default(), ms)).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 3, "{v:#}");
        assert_eq!(v[0]["content"], json!([{"type": "text", "text": "Run the job."}]));
        assert_eq!(v[1]["content"], json!([{"type": "text", "text": STREAM_ERROR_FALLBACK_TEXT}]));
    }

    // Twin of thinking-redacted-unsigned on 4.26: unsigned thinking goes from every
    // assistant, the latest included; signed thinking stays.
    #[test]
    fn unsigned_thinking_goes_from_every_assistant() {
        let ms = msgs(json!([
            {"role": "user", "content": "q", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "s", "thinkingSignature": "sig"}, {"type": "text", "text": "a"}], "stopReason": "stop", "timestamp": 2},
            {"role": "user", "content": "q2", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "Consider locks."}, {"type": "text", "text": "b"}], "stopReason": "stop", "timestamp": 4}
        ]));
        let v = serde_json::to_value(sanitize_session_history(&Setup::default(), ms)).unwrap();
        assert_eq!(v[1]["content"][0]["type"], "thinking");
        assert_eq!(v[3]["content"], json!([{"type": "text", "text": "b"}]));
    }

    #[rstest]
    #[case::sonnet_4_6("claude-sonnet-4-6", true)]
    #[case::opus_4("claude-opus-4-1", true)]
    #[case::claude_5("claude-5-haiku", true)]
    #[case::claude_3_7("claude-3-7-sonnet", false)]
    #[case::not_claude("gpt-5.1", false)]
    fn thinking_blocks_kept_per_claude_model(#[case] model: &str, #[case] keeps: bool) {
        assert_eq!(preserves_thinking_blocks(model), keeps);
    }

    // Twins of http-openai-responses / model-switch on 4.26.
    #[test]
    fn responses_replies_carry_item_ids_and_text_signatures() {
        let mut a: AssistantMessage = serde_json::from_value(json!({"role": "assistant", "content": [{"type": "text", "text": "t"}, {"type": "toolCall", "id": "toolu_0001", "name": "read", "arguments": {}}], "timestamp": 1})).unwrap();
        record_reply(&setup("openai", "openai-responses", "gpt-5.1"), &mut a, 1);
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["content"][0]["textSignature"], r#"{"v":1,"id":"msg_mock"}"#);
        assert_eq!(v["content"][1]["id"], "toolu_0001|fc_mock0");
        assert_eq!(v["responseId"], "resp_mock-0001", "each response its own id");
        let mut b: AssistantMessage = serde_json::from_value(json!({"role": "assistant", "content": [{"type": "text", "text": "t"}], "timestamp": 1})).unwrap();
        record_reply(&Setup::default(), &mut b, 2);
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!((v["responseId"].as_str(), v["content"][0].get("textSignature")), (Some("msg_mock-0002"), None));
    }

    // Twin of regression-a8-long-call-ids on 4.26: a `call_…|fc_…` pair without
    // reasoning in its message loses the item part, no id is rehashed.
    #[test]
    fn responses_history_pairs_are_downgraded_not_normalised() {
        let pair = "call_Zq9dP3kLmN8vR2sT6wX1yB4cF7gH0jK5|fc_0a1b2c";
        let ms = msgs(json!([
            {"role": "user", "content": "q", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": pair, "name": "read", "arguments": {}}, {"type": "toolCall", "id": "call_log 01", "name": "read", "arguments": {}}], "stopReason": "toolUse", "timestamp": 2},
            {"role": "toolResult", "toolCallId": pair, "toolName": "read", "content": [{"type": "text", "text": "a"}], "isError": false, "timestamp": 3},
            {"role": "toolResult", "toolCallId": "call_log 01", "toolName": "read", "content": [{"type": "text", "text": "b"}], "isError": false, "timestamp": 4}
        ]));
        let v = serde_json::to_value(sanitize_session_history(&setup("openai", "openai-responses", "gpt-5.1"), ms)).unwrap();
        assert_eq!(v[1]["content"][0]["id"], "call_Zq9dP3kLmN8vR2sT6wX1yB4cF7gH0jK5");
        assert_eq!(v[1]["content"][1]["id"], "call_log 01");
        assert_eq!(v[2]["toolCallId"], "call_Zq9dP3kLmN8vR2sT6wX1yB4cF7gH0jK5");
    }

    // Twin of regression-a8-split-tool-pair on 4.26: the call of a tool outside the
    // catalogue goes, and the two string users around it merge into an empty user.
    #[test]
    fn anthropic_users_merge_losing_string_content() {
        let ms = msgs(json!([
            {"role": "user", "content": "List the files.", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_nores", "name": "ls", "arguments": {}}], "stopReason": "toolUse", "timestamp": 2},
            {"role": "user", "content": "Hello?", "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "a, b, c."}], "stopReason": "stop", "timestamp": 4}
        ]));
        let s = Setup { tools: vec!["read".into(), "exec".into()], ..Setup::default() };
        let v = serde_json::to_value(sanitize_session_history(&s, ms)).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 2, "{v:#}");
        assert_eq!(v[0]["content"], json!([]));
        assert_eq!(v[0]["timestamp"], 3);
        // openai-completions (OpenAI plugin policy): no turn validation.
        let chat = Setup { provider: "openai".into(), api: "openai-completions".into(), model: "gpt-4.1".into(), ..s };
        let users = msgs(json!([{"role": "user", "content": "a", "timestamp": 1}, {"role": "user", "content": "b", "timestamp": 2}]));
        assert_eq!(sanitize_session_history(&chat, users).len(), 2);
    }

    // The merged empty user reaches assemble, then leaves the agent's messages
    // right before the prompt (prePromptMessageCount already taken); the
    // empty error assistant stays, as its placeholder.
    #[test]
    fn the_prompt_time_pass_drops_the_merged_empty_user() {
        let view = msgs(json!([
            {"role": "user", "content": [], "timestamp": 3},
            {"role": "assistant", "content": [{"type": "text", "text": "a, b, c."}], "stopReason": "stop", "timestamp": 4},
            {"role": "assistant", "content": [], "stopReason": "error", "timestamp": 5}
        ]));
        let v = serde_json::to_value(normalize_assistant_replay_content(view)).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 2, "{v:#}");
        assert_eq!(v[0]["content"][0]["text"], "a, b, c.");
        assert_eq!(v[1]["content"][0]["text"], STREAM_ERROR_FALLBACK_TEXT);
    }

    #[rstest]
    #[case::openai("openai", &["read", "write", "exec"], &["read", "write", "apply_patch", "exec"])]
    #[case::codex("openai-codex", &["read", "write", "exec"], &["read", "write", "apply_patch", "exec"])]
    #[case::no_write("openai", &["read", "exec"], &["read", "exec"])]
    #[case::kept_once("openai", &["read", "write", "apply_patch", "exec"], &["read", "write", "apply_patch", "exec"])]
    #[case::back_to_anthropic("anthropic", &["read", "write", "apply_patch", "exec"], &["read", "write", "exec"])]
    fn apply_patch_follows_the_current_provider(#[case] provider: &str, #[case] tools: &[&str], #[case] want: &[&str]) {
        assert_eq!(offered_tools(provider, tools.iter().map(|t| t.to_string()).collect()), want);
    }

    #[test]
    fn a_merged_orphan_heads_the_runtime_context() {
        let ctx = super::super::entry::runtime_context_message_2026_4("Sender (untrusted metadata): x", 5);
        let v = serde_json::to_value(with_queued_user_message(&ctx, "Is the backup done?")).unwrap();
        assert_eq!(
            v["content"],
            format!("OpenClaw runtime context for the immediately preceding user message.\nThis context is runtime-generated, not user-authored. Keep internal details private.\n\n{QUEUED_USER_MESSAGE_MARKER}\nIs the backup done?\n\nSender (untrusted metadata): x")
        );
    }

    #[test]
    fn a_rejected_signature_is_recorded_as_the_sdk_quotes_it() {
        let mf = super::super::model::ModelFailure {
            kind: crate::scenario::model::ModelErrorKind::InvalidSignature,
            rejected: false,
            message: super::super::model::default_error_message(crate::scenario::model::ModelErrorKind::InvalidSignature, 0, 0),
            observed_tokens: None,
        };
        let v = serde_json::to_value(provider_error_assistant(&Setup::default(), &mf, 9).unwrap()).unwrap();
        assert_eq!(v["errorMessage"], r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `signature` in `thinking` block"},"request_id":"req_mock"}"#);
        assert_eq!((v["stopReason"].as_str(), v["content"].clone(), v.get("responseId")), (Some("error"), json!([]), None));
    }
}
