//! OpenClaw's transcript hygiene in Rust (shared/reference/provider-rules.md
//! A1–A6): one file per pass, run by [`repair`] in OpenClaw's order under a
//! per-provider [`Policy`] (A6). Placeholders are byte-exact ([`placeholders`]).
//!
//! The pipeline is what `prepareEmbeddedAttemptHistory`
//! (`embedded-agent-runner/run/attempt-history-prepare.ts`) and the send-time
//! wrapper do before a model call: `sanitizeSessionHistory` (A2 #1–#16),
//! `validateReplayTurns`, `limitHistoryTurns` + pairing repair again, then
//! send-time prefill stripping. Transport-level conversion (A3.16–A3.18)
//! lives in [`crate::wire`].

pub mod assistant_replay;
pub mod history;
pub mod images;
pub mod inter_session;
pub mod pairing;
pub mod placeholders;
pub mod responses;
pub mod send_time;
pub mod thinking;
pub mod tool_call_ids;
pub mod tool_call_inputs;
pub mod turns;
mod util;

use std::collections::BTreeSet;

use clawspec_contract::AgentMessage;

use crate::Provider;

/// Kept for callers of the first API: the placeholder constants.
pub use placeholders as passes;

/// `toolCallIdMode` (A3.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdMode {
    Strict,
    Strict9,
}

/// A3.4 thought-signature handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThoughtSignatures {
    /// Default: only Claude message ids (`msg_…`) leaking into Gemini are stripped.
    ClaudeIdsOnly,
    /// Google family: keep only values that round-trip as base64.
    Base64Only,
}

/// The replay policy (A6): which passes run and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub provider: Provider,
    pub model: String,
    /// Responses family (A2 #9, #10, #15): `aborted` results, id normalisation.
    pub responses_family: bool,
    /// `repairToolUseResultPairing` (default true).
    pub repair_pairing: bool,
    pub tool_call_id_mode: Option<IdMode>,
    /// Native Anthropic plugin keeps `toolu_…` ids verbatim.
    pub preserve_native_anthropic_ids: bool,
    /// Anthropic/Bedrock: signatures are kept and checked (A2 #4, #5).
    pub preserve_signatures: bool,
    pub thought_signatures: ThoughtSignatures,
    /// A3.7 `dropReasoningFromHistory`.
    pub drop_reasoning_from_history: bool,
    /// A3.8 `dropThinkingBlocks` (older Claude models).
    pub drop_thinking_blocks: bool,
    pub validate_anthropic_turns: bool,
    pub validate_gemini_turns: bool,
    /// A5 step 3: `validateAnthropicTurns` merges consecutive user turns
    /// unless the policy is `appendOnlyRuntimeContext` on anthropic-messages
    /// (embedded-agent-helpers-*.mjs `shouldMergeConsecutiveUserTurns`), i.e.
    /// only for prefix-binding Claude ids ([`binds_claude_thinking_prefix`]).
    pub merge_user_turns: bool,
    /// A3.14 `applyGoogleTurnOrdering`.
    pub google_turn_ordering: bool,
    /// clawspec deviation (fuzz finding F1): OpenClaw's Anthropic/Bedrock
    /// policies never prepend `(session bootstrap)`, so assistant-first
    /// history is rejected ("first message must use the user role" /
    /// "A conversation must start with a user message"). The reference
    /// repair applies A3.14 for them too; `false` reproduces OpenClaw.
    pub bootstrap_user_first: bool,
    /// A3.9 allowed tool set (None: every valid name).
    pub allowed_tools: Option<BTreeSet<String>>,
    /// A3.12 `historyLimit` (user turns).
    pub history_limit: Option<usize>,
    /// Responses family: timestamp (ms) of the latest model switch, read by
    /// OpenClaw from the session's `model-snapshot` custom entries
    /// (`readModelSnapshotState`, `MODEL_SNAPSHOT_CUSTOM_TYPE`,
    /// builtin-openclaw bundle of 2026.9.6); feeds `dropStaleOpenAIReasoning`.
    pub model_switch_at: Option<f64>,
    /// openclaw@2026.9.6 pairs a result's trimmed id with its call's id as
    /// stored ([`pairing::repair_tool_use_result_pairing_untrimmed_calls`]).
    pub untrimmed_call_ids_in_pairing: bool,
    /// The second line of an inter-session message's replay header (2026.9.6).
    pub inter_session_explanation: Option<String>,
}

/// The model OpenClaw scenarios use per provider when none is given.
pub fn default_model(p: Provider) -> &'static str {
    match p {
        Provider::Anthropic => "claude-sonnet-4-6",
        Provider::Bedrock => "anthropic.claude-sonnet-4-6",
        Provider::OpenAiChat => "gpt-4.1",
        Provider::OpenAiResponses => "gpt-5",
        Provider::Gemini => "gemini-2.5-pro",
        Provider::Mistral => "mistral-large-latest",
    }
}

/// Claude ids that keep thinking blocks in history (A3.8).
pub fn claude_keeps_thinking(model: &str) -> bool {
    ["opus-4-5", "opus-4-6", "opus-4-7", "opus-4-8", "sonnet-4-6", "sonnet-5", "opus-5", "fable-5", "mythos-5", "mythos-preview"].iter().any(|k| model.contains(k))
}

/// `bindsClaudeThinkingPrefix` (openclaw@2026.9.6 dist anthropic-*.mjs): Claude
/// Opus 5.5 and Fable 5.1 bind thinking to the prompt prefix, so their replay
/// policy is `appendOnlyRuntimeContext` (provider-replay-helpers-*.mjs,
/// helpers-*.mjs). The id is normalised as `normalizeClaudeModelId` does
/// (lower case, `anthropic/` prefix dropped, `.`/`_`/space runs → `-`) and
/// its `claude-…` tail taken (`resolveClaudeModelIdentity`).
pub fn binds_claude_thinking_prefix(model: &str) -> bool {
    let lower = model.trim().to_lowercase();
    let lower = lower.strip_prefix("anthropic/").unwrap_or(&lower);
    let mut id = String::with_capacity(lower.len());
    let mut in_run = false;
    for c in lower.chars() {
        // `[._\s]+` → one `-` per run.
        let sep = matches!(c, '.' | '_') || c.is_whitespace();
        if !sep {
            id.push(c);
        } else if !in_run {
            id.push('-');
        }
        in_run = sep;
    }
    // `/(?:^|[-/])(claude-[^/]+)$/`: the last `claude-…` segment, when there is one.
    let ident = match id.rfind("claude-").filter(|&i| i == 0 || matches!(id.as_bytes()[i - 1], b'-' | b'/')) {
        Some(i) if !id[i..].contains('/') => &id[i..],
        _ => id.as_str(),
    };
    let prefixed = |p: &str| ident.strip_prefix(p).is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_ascii_alphanumeric()));
    ident == "opus-5-5" || prefixed("claude-opus-5-5") || prefixed("claude-fable-5-1")
}

impl Policy {
    /// The provider's policy for its default model ([`default_model`]).
    pub fn for_provider(p: Provider) -> Policy {
        Policy::for_model(p, default_model(p))
    }

    /// A6 policy matrix (2026.9.6, provider plugin `buildReplayPolicy` over defaults).
    pub fn for_model(p: Provider, model: &str) -> Policy {
        let base = Policy {
            provider: p,
            model: model.to_string(),
            responses_family: false,
            repair_pairing: true,
            tool_call_id_mode: None,
            preserve_native_anthropic_ids: false,
            preserve_signatures: false,
            thought_signatures: ThoughtSignatures::ClaudeIdsOnly,
            drop_reasoning_from_history: false,
            drop_thinking_blocks: false,
            validate_anthropic_turns: false,
            validate_gemini_turns: false,
            merge_user_turns: true,
            google_turn_ordering: false,
            bootstrap_user_first: false,
            allowed_tools: None,
            history_limit: None,
            model_switch_at: None,
            untrimmed_call_ids_in_pairing: false,
            inter_session_explanation: None,
        };
        let claude = model.contains("claude");
        match p {
            // Native Anthropic: strict ids keeping native toolu_, Anthropic turn validation, signatures kept.
            Provider::Anthropic => Policy {
                tool_call_id_mode: Some(IdMode::Strict),
                preserve_native_anthropic_ids: true,
                preserve_signatures: true,
                drop_thinking_blocks: !claude_keeps_thinking(model),
                validate_anthropic_turns: true,
                bootstrap_user_first: true,
                merge_user_turns: !binds_claude_thinking_prefix(model),
                ..base
            },
            // Anthropic-by-model (Bedrock): as above without native ids; users always merged.
            Provider::Bedrock => Policy {
                tool_call_id_mode: Some(IdMode::Strict),
                preserve_signatures: true,
                drop_thinking_blocks: claude && !claude_keeps_thinking(model),
                validate_anthropic_turns: true,
                bootstrap_user_first: true,
                ..base
            },
            // Google family: strict ids, bootstrap + Gemini turn validation, base64-only signatures.
            Provider::Gemini => Policy {
                tool_call_id_mode: Some(IdMode::Strict),
                thought_signatures: ThoughtSignatures::Base64Only,
                validate_gemini_turns: true,
                google_turn_ordering: true,
                ..base
            },
            // OpenAI plugin, openai-completions: strict ids, pairing repair.
            Provider::OpenAiChat => Policy { tool_call_id_mode: Some(IdMode::Strict), ..base },
            // OpenAI plugin, Responses family: no id sanitising, `aborted` results.
            Provider::OpenAiResponses => Policy { responses_family: true, ..base },
            // Mistral: manifest `transcriptToolCallIdMode: "strict9"`.
            Provider::Mistral => Policy { tool_call_id_mode: Some(IdMode::Strict9), ..base },
        }
    }

    fn synthetic_text(&self) -> &'static str {
        if self.responses_family {
            placeholders::ABORTED
        } else {
            placeholders::MISSING_TOOL_RESULT
        }
    }
}

fn strip_result_details(mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    for m in &mut ms {
        if let AgentMessage::ToolResult(r) = m {
            r.details = None;
        }
    }
    ms
}

/// `sanitizeSessionHistory` (A2), in its pass order.
pub fn sanitize_session_history(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let ms = inter_session::annotate_inter_session_with(ms, p.inter_session_explanation.as_deref()); // #1
    let ms = assistant_replay::normalize_assistant_replay_content(ms); // #2
    let mut ms = images::sanitize_session_messages_images(p, ms); // #3
    if p.preserve_signatures {
        ms = thinking::strip_stale_signatures_for_compaction(ms); // #4
        ms = thinking::strip_invalid_thinking_signatures(ms); // #5
    }
    if p.drop_reasoning_from_history || p.drop_thinking_blocks {
        ms = thinking::drop_thinking_blocks(ms); // #6, #7
    }
    ms = tool_call_inputs::sanitize_tool_call_inputs(p, ms); // #8
    if p.responses_family {
        if p.repair_pairing {
            ms = pairing::repair_tool_use_result_pairing(ms, placeholders::ABORTED); // #9
        }
        ms = responses::drop_stale_openai_reasoning(ms, p.model_switch_at); // #10
        ms = responses::downgrade_function_call_reasoning_pairs(responses::normalize_responses_tool_call_ids(ms));
    } else {
        if p.repair_pairing {
            ms = if p.untrimmed_call_ids_in_pairing {
                pairing::repair_tool_use_result_pairing_untrimmed_calls(ms, placeholders::MISSING_TOOL_RESULT)
            } else {
                pairing::repair_tool_use_result_pairing(ms, placeholders::MISSING_TOOL_RESULT)
            }; // #11
        }
        ms = tool_call_ids::sanitize_tool_call_ids(p, ms); // #12
    }
    ms = strip_result_details(ms); // #13
    if p.google_turn_ordering {
        ms = turns::google_turn_ordering(ms); // #14 Google plugin hook
    }
    if p.responses_family && p.repair_pairing {
        ms = pairing::repair_tool_use_result_pairing(ms, placeholders::ABORTED); // #15
    }
    if p.google_turn_ordering || p.bootstrap_user_first {
        ms = turns::google_turn_ordering(ms); // #16 (and deviation F1)
    }
    ms
}

/// `validateReplayTurns`: Gemini then Anthropic turn validation (A1 1.2, A5).
pub fn validate_replay_turns(p: &Policy, mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    if p.validate_gemini_turns {
        ms = turns::validate_gemini_turns(ms);
    }
    if p.validate_anthropic_turns {
        ms = turns::validate_anthropic_turns(ms, p.merge_user_turns || p.provider == Provider::Bedrock);
    }
    ms
}

/// The whole host-side pipeline for one model call (A1 1.1–1.4 and 2).
///
/// clawspec deviation (fuzz finding F3): one OpenClaw pass is not always
/// idempotent — turn validation can merge a surviving assistant into a
/// failed one, which the next pass's pairing repair then drops. The
/// reference repair re-runs the pipeline until it is stable (at most 4
/// rounds) so that repairing repaired history changes nothing.
pub fn repair(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    repair_to_fixed_point(p, ms).0
}

/// [`repair`], and whether it reached its fixed point (`repair_once` of the
/// result changes nothing). When it did, `repair` of the result is the
/// result: repair is idempotent on this input without a second run.
pub fn repair_to_fixed_point(p: &Policy, ms: Vec<AgentMessage>) -> (Vec<AgentMessage>, bool) {
    let mut cur = repair_once(p, ms);
    for _ in 0..3 {
        let next = repair_once(p, cur.clone());
        if next == cur {
            return (cur, true);
        }
        cur = next;
    }
    (cur, false)
}

/// One OpenClaw pass: exactly the A1 order, without the fixed point.
pub fn repair_once(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let ms = sanitize_session_history(p, ms);
    let mut ms = validate_replay_turns(p, ms);
    if let Some(limit) = p.history_limit {
        ms = history::limit_history_turns(ms, limit);
    }
    if p.repair_pairing {
        // A1 1.4: limiting used to re-orphan results (#4650, #13896, #38370),
        // and turn validation may strip calls whose results remain.
        ms = pairing::repair_tool_use_result_pairing(ms, p.synthetic_text());
    }
    send_time::send_time(p, ms)
}

/// What a context engine's `assemble()` output gets (A1 1.5): pairing repair
/// only — no turn ordering or validation (lossless-claw #1193), then send time.
pub fn repair_assembled(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let ms = if p.repair_pairing { pairing::repair_tool_use_result_pairing(ms, p.synthetic_text()) } else { ms };
    send_time::send_time(p, ms)
}

#[cfg(test)]
pub(crate) mod test_support {
    use clawspec_contract::AgentMessage;
    use serde_json::Value;

    pub fn msgs(v: Value) -> Vec<AgentMessage> {
        serde_json::from_value(v).unwrap()
    }
    pub fn shape(ms: &[AgentMessage]) -> Vec<String> {
        ms.iter().map(|m| format!("{}:{}", m.role(), m.text())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{msgs, shape};
    use super::*;
    use serde_json::json;

    #[test]
    fn limiting_then_re_repair_never_leaves_an_orphan() {
        let ms = msgs(json!([
            {"role":"user","content":"1"},
            {"role":"assistant","content":[{"type":"toolCall","id":"toolu_a","name":"r","arguments":{}}]},
            {"role":"user","content":"2"},
            {"role":"toolResult","toolCallId":"toolu_a","content":[{"type":"text","text":"late"}]},
            {"role":"user","content":"3"},
            {"role":"user","content":"4"}
        ]));
        let policy = Policy { history_limit: Some(1), merge_user_turns: false, ..Policy::for_provider(Provider::Anthropic) };
        let out = repair(&policy, ms);
        assert_eq!(shape(&out), ["user:3", "user:4"], "4 user turns, limit 1: 1 + (4-1) mod 2 = 2 kept");
    }

    #[rstest::rstest]
    #[case::sonnet_4_6("claude-sonnet-4-6", true)]
    #[case::opus_5("claude-opus-5", true)]
    #[case::fable_5("claude-fable-5", true)]
    #[case::opus_5_5("claude-opus-5-5", false)]
    #[case::opus_5_5_dotted("anthropic/Claude-Opus-5.5", false)]
    #[case::opus_5_5_dated("claude-opus-5-5-20261001", false)]
    #[case::opus_5_5_alias("opus-5.5", false)]
    #[case::fable_5_1("claude-fable-5-1", false)]
    #[case::fable_5_10("claude-fable-5-10", true)]
    #[case::cloud_id("us.anthropic.claude-fable-5-1-v1", false)]
    fn anthropic_messages_merges_users_unless_the_model_binds_the_thinking_prefix(#[case] model: &str, #[case] merge: bool) {
        // helpers-*.mjs `appendOnlyRuntimeContext: bindsClaudeThinkingPrefix(model)`;
        // embedded-agent-helpers-*.mjs `shouldMergeConsecutiveUserTurns`.
        assert_eq!(Policy::for_model(Provider::Anthropic, model).merge_user_turns, merge);
        // Bedrock Converse always merges (the rule is for anthropic-messages only).
        assert!(Policy::for_model(Provider::Bedrock, model).merge_user_turns);
        let two_users = crate::repair::test_support::msgs(serde_json::json!([{"role":"user","content":"u"},{"role":"user","content":"v"}]));
        let out = repair(&Policy::for_model(Provider::Anthropic, model), two_users);
        assert_eq!(out.len(), if merge { 1 } else { 2 });
    }

    #[test]
    fn older_claude_drops_thinking() {
        assert!(Policy::for_model(Provider::Anthropic, "claude-3-7-sonnet").drop_thinking_blocks);
        assert!(!Policy::for_model(Provider::Anthropic, "claude-opus-4-6").drop_thinking_blocks);
    }
}
