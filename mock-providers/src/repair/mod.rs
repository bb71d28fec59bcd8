//! OpenClaw's transcript hygiene in Rust (shared/reference/provider-rules.md
//! A2–A6), one function per pass in `passes`, run in OpenClaw's order under a
//! per-provider [`Policy`]. Placeholders are byte-exact (A4).

pub mod passes;

use clawspec_contract::AgentMessage;

use crate::Provider;

/// What a provider needs (the A6 policy matrix, reduced to the passes here).
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub provider: Provider,
    /// Thinking blocks must carry a signature to be replayed (Anthropic, Bedrock).
    pub signed_thinking: bool,
    /// Thinking blocks are not sent at all.
    pub drop_thinking: bool,
    /// Tool-call id rule: charset `[A-Za-z0-9_-]` capped at this length.
    pub max_tool_id: usize,
    /// Mistral: exactly 9 alphanumerics (`strict9`).
    pub strict9_ids: bool,
    /// History must start with a user turn.
    pub user_first: bool,
    /// Merge consecutive assistant turns (validateAnthropicTurns / validateGeminiTurns).
    pub merge_assistants: bool,
    /// Strip a trailing assistant message at send time (no prefill).
    pub strip_prefill: bool,
    /// Mistral: a user message may not follow tool results directly.
    pub assistant_between_tool_and_user: bool,
    /// Text of synthetic results for unanswered calls: `aborted` for the
    /// Responses family (A2 #9), the A4 placeholder elsewhere (A2 #11).
    pub synthetic_result: &'static str,
    /// `limitHistoryTurns`: keep the last N user turns, then repair again (A1).
    pub history_limit: Option<usize>,
}

impl Policy {
    pub fn for_provider(p: Provider) -> Policy {
        let base = Policy {
            provider: p,
            signed_thinking: false,
            drop_thinking: true,
            max_tool_id: 64,
            strict9_ids: false,
            user_first: false,
            merge_assistants: false,
            strip_prefill: false,
            assistant_between_tool_and_user: false,
            synthetic_result: passes::MISSING_TOOL_RESULT,
            history_limit: None,
        };
        match p {
            Provider::Anthropic => Policy { signed_thinking: true, drop_thinking: false, user_first: true, merge_assistants: true, strip_prefill: true, ..base },
            Provider::Bedrock => Policy { signed_thinking: true, drop_thinking: false, user_first: true, merge_assistants: true, strip_prefill: true, ..base },
            Provider::Gemini => Policy { user_first: true, merge_assistants: true, ..base },
            Provider::OpenAiChat => Policy { max_tool_id: 40, ..base },
            Provider::OpenAiResponses => Policy { max_tool_id: 64, synthetic_result: passes::ABORTED, ..base },
            Provider::Mistral => Policy { strict9_ids: true, strip_prefill: true, assistant_between_tool_and_user: true, ..base },
        }
    }
}

/// The full pipeline, in OpenClaw's pass order (A2: inter-session annotation
/// first; then the A5 validators, history limiting with re-repair, and
/// send-time prefill stripping).
pub fn repair(policy: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let ms = passes::annotate_inter_session(ms);
    let ms = passes::drop_failed_empty_turns(ms);
    let ms = passes::clean_blank_text(ms);
    let ms = passes::thinking(policy, ms);
    let ms = passes::sanitize_tool_call_inputs(ms);
    let ms = passes::repair_pairing_with(ms, policy.synthetic_result);
    let ms = passes::sanitize_tool_ids(policy, ms);
    let ms = passes::fill_tool_names(ms);
    let ms = passes::turn_validators(policy, ms);
    // History limiting cuts after repair, so pairing is repaired again (A1).
    let ms = match policy.history_limit {
        Some(n) => passes::turn_validators(policy, passes::repair_pairing_with(passes::limit_history(ms, n), policy.synthetic_result)),
        None => ms,
    };
    passes::send_time(policy, ms)
}
