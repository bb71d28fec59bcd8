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
use clawspec_mock_providers::repair::Policy;
use clawspec_mock_providers::Provider;

use super::profile::Profile;
use crate::scenario::model::Setup;

/// The wire the setup's provider/api speaks, on the profiles that model it.
fn wire(profile: &Profile, setup: &Setup) -> Option<Provider> {
    profile.attempt_runtime_context_v2026_9.then(|| Provider::for_openclaw(&setup.provider, &setup.api)).flatten()
}

/// Session history as the attempt sees it after the replay policy.
pub fn sanitize_history(profile: &Profile, setup: &Setup, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let policy = match wire(profile, setup) {
        Some(p @ (Provider::Anthropic | Provider::Gemini | Provider::OpenAiChat)) => Policy::for_model(p, &setup.model),
        // Mistral on openai-completions: the openai-completions fallback (strict, not
        // the 9-character ids of a native Mistral transport).
        Some(Provider::Mistral) => Policy::for_model(Provider::OpenAiChat, &setup.model),
        _ => return ms,
    };
    sanitize_tool_call_ids(&policy, ms)
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
