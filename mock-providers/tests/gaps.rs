//! The five gaps provider-rules.md B8 hypothesises in OpenClaw's repair,
//! each checked against the mock providers with OpenClaw's own pipeline
//! (`repair::repair` with the deviations switched off where they matter).
//! A test asserts what happens today, so a change in either the repair or
//! the validators shows up here. Summary in docs/providers.md "Five gaps".

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::repair::{repair, repair_assembled, Policy};
use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::wire::{to_wire, RequestOptions};
use clawspec_mock_providers::Provider::{self, *};
use serde_json::{json, Value};

fn msgs(v: Value) -> Vec<AgentMessage> {
    serde_json::from_value(v).unwrap()
}

fn opts(model: &str) -> RequestOptions {
    RequestOptions { model: model.into(), ..Default::default() }
}

/// The provider's verdict on what `fix` makes of `input`.
fn verdict(p: Provider, fixed: &[AgentMessage], o: &RequestOptions, rules: &Rules) -> Result<(), String> {
    validate(p, &to_wire(p, fixed, o), rules).map_err(|r| r.message)
}

#[test]
fn a_assembled_context_skips_turn_ordering_confirmed() {
    // lossless-claw #1193: an engine's assemble() output starting with an
    // assistant tool call gets pairing repair only (A1 1.5).
    let assembled = msgs(json!([
        {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"r"}]},
        {"role":"user","content":"and now?"}
    ]));
    let policy = Policy::for_provider(Gemini);
    let o = opts("gemini-2.5-pro");
    let err = verdict(Gemini, &repair_assembled(&policy, assembled.clone()), &o, &Rules::default()).unwrap_err();
    assert_eq!(err, "Please ensure that function call turn comes immediately after a user turn or after a function response turn.");
    // The same messages as session history are fixed by the full pipeline.
    assert!(verdict(Gemini, &repair(&policy, assembled), &o, &Rules::default()).is_ok());
}

#[test]
fn b_transport_drop_after_turn_validation_confirmed_for_mistral_templates() {
    // An aborted assistant with only thinking survives every repair pass;
    // the transport drops it (A3.16), leaving two user turns in a row.
    // Mistral's policy has no turn validation, so a vLLM/SGLang chat template
    // rejects the request. (Bedrock: the converter merges user runs.)
    let t = msgs(json!([
        {"role":"user","content":"plan it"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"let me think"}],"stopReason":"aborted"},
        {"role":"user","content":"hello?"}
    ]));
    let rules = Rules { mistral_template_alternation: true, ..Rules::default() };
    let o = opts("mistral-large-latest");
    let fixed = repair(&Policy::for_provider(Mistral), t.clone());
    assert_eq!(fixed.iter().map(|m| m.role()).collect::<Vec<_>>(), ["user", "assistant", "user"], "repair keeps the aborted turn");
    let err = verdict(Mistral, &fixed, &o, &rules).unwrap_err();
    assert_eq!(err, "After the optional system message, conversation roles must alternate user/assistant/user/assistant/...");
    // Bedrock: consecutive users are merged at send time, so the same shape passes.
    let b = opts("anthropic.claude-sonnet-4-6");
    assert!(verdict(Bedrock, &repair(&Policy::for_provider(Bedrock), t), &b, &Rules::default()).is_ok());
}

#[test]
fn c_tool_names_with_dots_and_colons_confirmed() {
    // A3.9 admits `[A-Za-z0-9_:.-]`; strict name patterns do not (inferred rule).
    let t = msgs(json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"functions.read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"toolu_1","toolName":"functions.read","content":[{"type":"text","text":"r"}]},
        {"role":"user","content":"y"}
    ]));
    let strict = Rules { strict_tool_names: true, ..Rules::default() };
    let fixed = repair(&Policy::for_provider(Anthropic), t.clone());
    assert_eq!(verdict(Anthropic, &fixed, &opts("claude-sonnet-4-6"), &strict).unwrap_err(), "messages.1.content.0.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
    let fixed = repair(&Policy::for_provider(OpenAiChat), t);
    assert!(verdict(OpenAiChat, &fixed, &opts("gpt-4.1"), &strict).unwrap_err().starts_with("Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern."));
}

#[test]
fn d_no_signature_shape_check_confirmed() {
    // #91983: a corrupted 8 KB signature is neither blank nor missing, so
    // A3.6 keeps it; only the provider can tell (B8: the mock knows the
    // signatures it minted). OpenClaw recovers by retrying without thinking
    // (the runtime's invalid-signature retry), not in repair.
    let corrupt = "Ep".repeat(4096);
    let t = msgs(json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":corrupt},{"type":"text","text":"done"}]},
        {"role":"user","content":"y"}
    ]));
    let rules = Rules { known_signatures: Some(Default::default()), ..Rules::default() };
    let fixed = repair(&Policy::for_provider(Anthropic), t);
    assert!(matches!(&fixed[1], AgentMessage::Assistant(a) if a.content.len() == 2), "the signature passes repair");
    // With thinking on, history thinking is replayed (off: the converter omits it).
    let o = RequestOptions { thinking: true, ..opts("claude-sonnet-4-6") };
    assert_eq!(verdict(Anthropic, &fixed, &o, &rules).unwrap_err(), "messages.1.content.0: Invalid `signature` in `thinking` block");
}

#[test]
fn e_gemini_turn_validation_never_merges_users_refuted() {
    // validateGeminiTurns keeps consecutive users, but Gemini accepts them
    // (roles may repeat, #83419); the OpenAI-compatible family also runs
    // validateAnthropicTurns, which merges them. No rejection follows.
    let t = msgs(json!([
        {"role":"user","content":"one"},
        {"role":"user","content":"two"}
    ]));
    let fixed = repair(&Policy::for_provider(Gemini), t);
    assert_eq!(fixed.len(), 2, "not merged");
    assert!(verdict(Gemini, &fixed, &opts("gemini-2.5-pro"), &Rules::strict()).is_ok());
}
