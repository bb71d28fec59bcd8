//! One regression per real repair bug in provider-rules.md A8: the broken
//! transcript, what repair makes of it, and the provider accepting the result.

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::repair::{passes, repair, Policy};
use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::wire::{to_wire, to_wire_verbatim, RequestOptions};
use clawspec_mock_providers::Provider::{self, *};
use rstest::rstest;
use serde_json::{json, Value};

fn msgs(v: Value) -> Vec<AgentMessage> {
    serde_json::from_value(v).unwrap()
}

fn opts() -> RequestOptions {
    RequestOptions { model: "m".into(), ..Default::default() }
}

/// Broken as sent, fixed after repair; returns the repaired transcript.
fn check(p: Provider, input: Value, broken_message_starts: &str) -> Vec<AgentMessage> {
    check_with(&Policy::for_provider(p), input, broken_message_starts, &opts(), &Rules::default())
}

/// [`check`] for a given policy (model), request options and validator switches.
fn check_with(policy: &Policy, input: Value, broken_message_starts: &str, o: &RequestOptions, rules: &Rules) -> Vec<AgentMessage> {
    let p = policy.provider;
    let t = msgs(input);
    // As older builds sent it: no repair, no transport defences.
    let raw = validate(p, &to_wire_verbatim(p, &t, o), rules).expect_err("the unrepaired transcript is rejected");
    assert!(raw.message.starts_with(broken_message_starts), "{p}: {}", raw.message);
    let fixed = repair(policy, t);
    if let Err(r) = validate(p, &to_wire(p, &fixed, o), rules) {
        panic!("{p} still rejects after repair: {}", r.message);
    }
    fixed
}

fn roles(ms: &[AgentMessage]) -> Vec<&'static str> {
    ms.iter().map(|m| m.role()).collect()
}

#[rstest]
#[case::anthropic_4650(Anthropic, "messages.1: `tool_use` ids were found without `tool_result`")]
#[case::bedrock_93320(Bedrock, "Expected toolResult blocks at messages.2.content")]
#[case::openai_13896(OpenAiChat, "An assistant message with 'tool_calls' must be followed")]
fn cut_call_result_pair(#[case] p: Provider, #[case] err: &str) {
    // #4650/#13896/#93320: limiting cut the result away from its call.
    let fixed = check(p, json!([
        {"role":"user","content":"read it"},
        {"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}}]},
        {"role":"user","content":"hello?"}
    ]), err);
    assert_eq!(fixed[2].text(), passes::MISSING_TOOL_RESULT);
}

#[test]
fn orphan_result_after_compaction_4650() {
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"go"},
        {"role":"toolResult","toolCallId":"toolu_gone","toolName":"read","content":[{"type":"text","text":"stale"}]},
        {"role":"assistant","content":[{"type":"text","text":"ok"}]},
        {"role":"user","content":"next"}
    ]), "messages.1.content.0: unexpected `tool_use_id`");
    assert_eq!(roles(&fixed), ["user", "assistant", "user"]);
}

#[test]
fn leading_spaces_in_tool_ids_12757() {
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"     functions.read:37","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"     functions.read:37","toolName":"read","content":[{"type":"text","text":"r"}]},
        {"role":"user","content":"y"}
    ]), "messages.1.content.0.tool_use.id: String should match pattern");
    assert_eq!(fixed[1].tool_call_ids(), ["functionsread37"], "strict: alphanumerics only (A3.11)");
}

#[test]
fn overlong_tool_id_4718() {
    let id = format!("call_{}", "a".repeat(433));
    let fixed = check(OpenAiChat, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":id,"name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":id,"toolName":"read","content":[{"type":"text","text":"r"}]}
    ]), "Invalid 'messages[1].tool_calls[0].id': string too long");
    assert_eq!(fixed[1].tool_call_ids()[0].len(), 40);
}

#[test]
fn responses_call_id_over_64_25632() {
    let id = format!("call_{}|fc_{}", "b".repeat(70), "c".repeat(40));
    check(OpenAiResponses, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":id,"name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":id,"toolName":"read","content":[{"type":"text","text":"r"}]}
    ]), "Invalid 'input[1].call_id': string too long");
}

#[test]
fn stream_error_empty_assistant_71572() {
    let fixed = check(Bedrock, json!([
        {"role":"user","content":"run"},
        {"role":"assistant","content":[],"stopReason":"error","errorMessage":"stream interrupted"},
        {"role":"user","content":"again"}
    ]), "The content field in the Message object at messages.1 is empty");
    assert_eq!(roles(&fixed), ["user"], "the failed turn is dropped; Bedrock's turn validation merges the two users");
}

#[test]
fn blank_user_text_and_empty_exec_result_72622() {
    let fixed = check(Bedrock, json!([
        {"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":"run the job"}]},
        {"role":"assistant","content":[{"type":"toolCall","id":"tooluse_1","name":"exec","arguments":{}}]},
        {"role":"toolResult","toolCallId":"tooluse_1","toolName":"exec","content":[{"type":"text","text":""}]},
        {"role":"user","content":"ok?"}
    ]), "The text field in the ContentBlock object at messages.0.content.0 is blank");
    assert_eq!(fixed[2].text(), passes::EMPTY_CONTENT_OMITTED, "A3.2");
    assert_eq!(fixed[0].text(), "run the job", "blank block removed (A3.1)");
}

#[test]
fn empty_tool_name_46717() {
    let fixed = check(Gemini, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"t1","toolName":"","content":[{"type":"text","text":"r"}]}
    ]), "* GenerateContentRequest.contents[2].parts[0].function_response.name: Name cannot be empty.");
    assert!(matches!(&fixed[2], AgentMessage::ToolResult(r) if r.tool_name.as_deref() == Some("read")));
}

#[test]
fn history_starts_with_a_function_call_1193() {
    let fixed = check(Gemini, json!([
        {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"r"}]},
        {"role":"user","content":"and now?"}
    ]), "Please ensure that function call turn comes immediately after a user turn");
    assert_eq!(fixed[0].text(), passes::SESSION_BOOTSTRAP);
}

#[test]
fn mistral_ids_23595() {
    let fixed = check(Mistral, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_1767225600123","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"call_1767225600123","toolName":"read","content":[{"type":"text","text":"r"}]},
        {"role":"user","content":"y"}
    ]), "Tool call id was call_1767225600123 but must be a-z, A-Z, 0-9, with a length of 9.");
    assert!(fixed[1].tool_call_ids()[0].len() == 9, "strict9");
    let wire = to_wire(Mistral, &fixed, &opts());
    assert_eq!(wire["messages"][3], json!({"role":"assistant","content":"I have processed the tool results."}), "the transport bridges tool → user");
}

#[test]
fn assistant_prefill_72739() {
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"text","text":"Sure,"}]}
    ]), "This model does not support assistant message prefill.");
    assert_eq!(roles(&fixed), ["user"]);
}

#[test]
fn duplicate_tool_ids_40897() {
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_dup","name":"a","arguments":{}},{"type":"toolCall","id":"call_dup","name":"b","arguments":{}}]},
        {"role":"toolResult","toolCallId":"call_dup","toolName":"a","content":[{"type":"text","text":"1"}]},
        {"role":"user","content":"y"}
    ]), "messages.1.content.1: `tool_use` ids must be unique");
    let ids = fixed[1].tool_call_ids();
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn unsigned_thinking_8664() {
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"plan"},{"type":"text","text":"done"}]},
        {"role":"user","content":"y"}
    ]), "messages.1.content.0.thinking.signature: Field required");
    assert_eq!(fixed[1].text(), "done");
}

#[test]
fn aborted_parallel_calls_8536() {
    // Two parallel calls; the run was aborted after one result, and a user
    // message came in before the late second result.
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"go"},
        {"role":"assistant","content":[{"type":"toolCall","id":"toolu_a","name":"read","arguments":{}},{"type":"toolCall","id":"toolu_b","name":"exec","arguments":{}}]},
        {"role":"toolResult","toolCallId":"toolu_a","toolName":"read","content":[{"type":"text","text":"a"}]},
        {"role":"user","content":"stop"},
        {"role":"toolResult","toolCallId":"toolu_b","toolName":"exec","content":[{"type":"text","text":"b"}]}
    ]), "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b.");
    assert_eq!(roles(&fixed), ["user", "assistant", "toolResult", "toolResult", "user"], "both results right after their calls");
}

#[test]
fn every_replay_item_filtered_74589() {
    // A stream error and a blank turn were all that was left: OpenAI rejects `messages: []`.
    let t = msgs(json!([{"role":"assistant","content":[],"stopReason":"error","errorMessage":"boom"}]));
    let raw = to_wire_verbatim(OpenAiChat, &clawspec_mock_providers::repair::assistant_replay::normalize_assistant_replay_content(t.clone()), &opts());
    let r = validate(OpenAiChat, &raw, &Rules::default()).unwrap_err();
    assert_eq!(r.message, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.");
    assert_eq!(r.body["error"]["code"], "empty_array");
    let fixed = repair(&Policy::for_provider(OpenAiChat), t);
    assert!(fixed.is_empty(), "repair leaves nothing to send");
    // The prompt OpenClaw appends is what the request carries.
    let call = clawspec_mock_providers::fuzzing::model_call(&fixed);
    assert!(validate(OpenAiChat, &to_wire(OpenAiChat, &call, &opts()), &Rules::default()).is_ok());
}

#[test]
fn reasoning_item_without_follower_18428() {
    // A replayed reasoning item whose output item was lost.
    let fixed = check(OpenAiResponses, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"…","thinkingSignature":"{\"type\":\"reasoning\",\"id\":\"rs_abc\",\"encrypted_content\":\"gAAAAenc\",\"summary\":[]}"}]},
        {"role":"user","content":"y"}
    ]), "Item 'rs_abc' of type 'reasoning' was provided without its required following item.");
    assert!(fixed.iter().all(|m| !m.text().contains("gAAAA")));
}

#[test]
fn responses_synthetic_results_say_aborted() {
    // Responses family: the synthetic result text is `aborted` (A2 #9, A4).
    let fixed = check(OpenAiResponses, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{}}]},
        {"role":"user","content":"y"}
    ]), "Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.");
    assert_eq!(fixed[2].text(), passes::ABORTED);
}

#[test]
fn gemini_result_after_an_interjected_user_turn_296() {
    // #296/#406: history corrupted mid-tool-call — a user message landed
    // between the functionCall and its functionResponse.
    let fixed = check(Gemini, json!([
        {"role":"user","content":"look it up"},
        {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"search","arguments":{"q":"x"}}]},
        {"role":"user","content":"any luck?"},
        {"role":"toolResult","toolCallId":"t1","toolName":"search","content":[{"type":"text","text":"found"}]}
    ]), "Please ensure that function response turn comes immediately after a function call turn.");
    assert_eq!(roles(&fixed), ["user", "assistant", "toolResult", "user"], "the result moves next to its call (A3.10)");
}

#[test]
fn gemini3_call_signature_not_round_tripped_72879() {
    // #72879/#63397: the functionCall's thoughtSignature was not stored. The
    // transport sends the documented bypass for the first call of the step.
    let o = RequestOptions { model: "gemini-3-pro-preview".into(), ..Default::default() };
    let rules = Rules { gemini_thought_signatures: true, ..Rules::default() };
    let fixed = check_with(&Policy::for_model(Gemini, "gemini-3-pro-preview"), json!([
        {"role":"user","content":"weather?"},
        {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"get_weather","arguments":{}}]},
        {"role":"toolResult","toolCallId":"t1","toolName":"get_weather","content":[{"type":"text","text":"sunny"}]}
    ]), "Function call is missing a thought_signature in functionCall parts.", &o, &rules);
    let wire = to_wire(Gemini, &fixed, &o);
    assert_eq!(wire["contents"][1]["parts"][0]["thoughtSignature"], clawspec_mock_providers::wire::SKIP_THOUGHT_SIGNATURE);
}

#[test]
fn compaction_stale_signatures_84430() {
    // #84430 (PR #84448), #92201, #94992: compaction rewrote the signed
    // prefix, so the provider no longer accepts signatures minted before it.
    // The mock knows only the signature minted after the compaction (B8).
    let known = [("sig-after".to_string(), "fresh".to_string())].into_iter().collect();
    let rules = Rules { known_signatures: Some(known), ..Rules::default() };
    let fixed = check_with(&Policy::for_provider(Anthropic), json!([
        {"role":"user","content":"start","timestamp":1},
        {"role":"assistant","content":[{"type":"thinking","thinking":"old plan","thinkingSignature":"sig-before"},{"type":"text","text":"done"}],"timestamp":2},
        {"role":"compactionSummary","summary":"earlier work","tokensBefore":900,"timestamp":3},
        {"role":"user","content":"continue","timestamp":4},
        {"role":"assistant","content":[{"type":"thinking","thinking":"fresh","thinkingSignature":"sig-after"},{"type":"text","text":"ok"}],"timestamp":5},
        {"role":"user","content":"and?","timestamp":6}
    ]), "messages.1.content.0: Invalid `signature` in `thinking` block", &opts(), &rules);
    assert_eq!(fixed[1].text(), "done", "A3.5 strips the stale signature, A3.6 then drops the unsigned block");
    assert_eq!(fixed[4].text(), "fresh\nok", "thinking after the compaction is kept");
}

#[test]
fn bedrock_prefill_passthrough_72865() {
    // Bedrock passes Claude 4.6+'s own rejection through.
    let o = RequestOptions { model: "anthropic.claude-sonnet-4-6".into(), ..Default::default() };
    let fixed = check_with(&Policy::for_provider(Bedrock), json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"text","text":"Here is"}]}
    ]), "The model returned the following errors: This model does not support assistant message prefill.", &o, &Rules::default());
    assert_eq!(roles(&fixed), ["user"]);
}

#[test]
fn blank_assistant_text_after_stream_error_73020() {
    let fixed = check(Bedrock, json!([
        {"role":"user","content":"run"},
        {"role":"assistant","content":[{"type":"text","text":" "}],"stopReason":"error","errorMessage":"socket hang up"},
        {"role":"user","content":"retry"}
    ]), "The text field in the ContentBlock object at messages.1.content.0 is blank.");
    assert_eq!(roles(&fixed), ["user"], "dropped (A3.1), users merged (Bedrock)");
}

#[test]
fn invented_output_ids_56021() {
    // #56021, #24649 (PR #24702), #19742: an output whose call id matches no call.
    let fixed = check(OpenAiResponses, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"r"}]},
        {"role":"toolResult","toolCallId":"callfunctionreadtoolresult1","toolName":"read","content":[{"type":"text","text":"ghost"}]},
        {"role":"user","content":"y"}
    ]), "No tool call found for function call output with call_id callfunctionreadtoolresult1.");
    assert!(fixed.iter().all(|m| m.text() != "ghost"), "orphan output dropped (A3.10)");
}

#[test]
fn repeated_native_kimi_ids_stay_distinct_110956() {
    // PR #110956: native Kimi ids repeat across turns (`functions.x:0|fc_tmp…`);
    // normalisation must give each occurrence its own call id. (A Kimi
    // Responses endpoint: no reasoning items to pair.)
    let rules = Rules { responses_reasoning_pairing: false, ..Rules::default() };
    let fixed = check_with(&Policy::for_provider(OpenAiResponses), json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0|fc_tmp","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"functions.read:0|fc_tmp","toolName":"read","content":[{"type":"text","text":"1"}]},
        {"role":"user","content":"again"},
        {"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0|fc_tmp","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"functions.read:0|fc_tmp","toolName":"read","content":[{"type":"text","text":"2"}]}
    ]), "Duplicate item found with id fc_tmp.", &opts(), &rules);
    let (a, b) = (fixed[1].tool_call_ids()[0].to_string(), fixed[4].tool_call_ids()[0].to_string());
    assert_ne!(a, b);
    assert!(matches!(&fixed[2], AgentMessage::ToolResult(r) if r.tool_call_id == a));
    assert!(matches!(&fixed[5], AgentMessage::ToolResult(r) if r.tool_call_id == b));
}

#[test]
fn duplicate_tool_ids_across_turns_84730() {
    // #84730, #51593 (PR #87596): the same id in two turns.
    let fixed = check(Anthropic, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"1"}]},
        {"role":"user","content":"y"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"2"}]}
    ]), "messages.4.content.0: `tool_use` ids must be unique");
    assert_ne!(fixed[1].tool_call_ids(), fixed[4].tool_call_ids());
}

#[test]
fn consecutive_user_messages_77336() {
    // #77336, #25956, #17728: group-chat metadata as its own user message.
    let fixed = check(Bedrock, json!([
        {"role":"user","content":"[group: ops, sender: ana]"},
        {"role":"user","content":"deploy please"}
    ]), "A conversation must alternate between user and assistant roles.");
    assert_eq!(roles(&fixed), ["user"], "Bedrock always merges consecutive users (A5)");
    assert_eq!(fixed[0].text(), "[group: ops, sender: ana]\ndeploy please");
}

#[test]
fn fc_item_without_its_reasoning_36157() {
    // #36157: a replayed `fc_` item whose reasoning item was not kept.
    let fixed = check(OpenAiResponses, json!([
        {"role":"user","content":"x"},
        {"role":"assistant","content":[{"type":"toolCall","id":"call_7|fc_7","name":"read","arguments":{}}]},
        {"role":"toolResult","toolCallId":"call_7|fc_7","toolName":"read","content":[{"type":"text","text":"r"}]},
        {"role":"user","content":"y"}
    ]), "Item 'fc_7' of type 'function_call' was provided without its required 'reasoning' item: 'rs_7'.");
    assert_eq!(fixed[1].tool_call_ids(), ["call_7"], "the item id is dropped (downgradeOpenAIFunctionCallReasoningPairs)");
    assert!(matches!(&fixed[2], AgentMessage::ToolResult(r) if r.tool_call_id == "call_7"));
}

#[test]
fn reasoning_replayed_after_a_model_switch_58967() {
    // #58967, #88019: reasoning (and its paired fc_/msg_ ids) from the model
    // used before a switch; the new model cannot verify its encrypted content.
    let rs = json!({"type":"reasoning","id":"rs_old","encrypted_content":"gAAAold","summary":[]}).to_string();
    let known = [("gAAAnew".to_string(), String::new())].into_iter().collect();
    let rules = Rules { known_signatures: Some(known), ..Rules::default() };
    let policy = Policy { model_switch_at: Some(2000.0), ..Policy::for_provider(OpenAiResponses) };
    let fixed = check_with(&policy, json!([
        {"role":"user","content":"x","timestamp":900},
        {"role":"assistant","content":[{"type":"thinking","thinking":"…","thinkingSignature":rs},{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{}}],"timestamp":1000},
        {"role":"toolResult","toolCallId":"call_1|fc_1","toolName":"read","content":[{"type":"text","text":"r"}],"timestamp":1100},
        {"role":"user","content":"now with the other model","timestamp":2500}
    ]), "The encrypted content gAAAold could not be verified.", &opts(), &rules);
    assert_eq!(fixed[1].tool_call_ids(), ["call_1"], "reasoning dropped, so the fc_ item id goes too");
}

#[test]
fn kimi_tool_call_without_reasoning_content_70996() {
    // #70996: a context engine dropped the thinking of a Kimi tool-call turn.
    // OpenClaw's Moonshot payload wrapper backfills `reasoning_content: ""`.
    let o = RequestOptions { model: "kimi-k2-thinking".into(), ..Default::default() };
    let rules = Rules { chat_requires_reasoning_content: true, ..Rules::default() };
    let fixed = check_with(&Policy::for_model(OpenAiChat, "kimi-k2-thinking"), json!([
        {"role":"user","content":"list files"},
        {"role":"assistant","content":[{"type":"toolCall","id":"functions.exec:0","name":"exec","arguments":{"cmd":"ls"}}]},
        {"role":"toolResult","toolCallId":"functions.exec:0","toolName":"exec","content":[{"type":"text","text":"a b"}]},
        {"role":"user","content":"thanks"}
    ]), "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1", &o, &rules);
    assert_eq!(to_wire(OpenAiChat, &fixed, &o)["messages"][1]["reasoning_content"], "");
    // Kept reasoning is replayed in its own field.
    let kept = msgs(json!([
        {"role":"user","content":"list files"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"use ls","thinkingSignature":"reasoning_content"},{"type":"toolCall","id":"functions.exec:0","name":"exec","arguments":{}}]},
        {"role":"toolResult","toolCallId":"functions.exec:0","toolName":"exec","content":[{"type":"text","text":"a b"}]}
    ]));
    assert_eq!(to_wire(OpenAiChat, &kept, &o)["messages"][1]["reasoning_content"], "use ls");
}

#[test]
fn duplicated_signed_thinking_is_not_repaired_103587() {
    // #103587: the store duplicated one signed thinking block many times.
    // OpenClaw's repair has no dedupe (the blocks are signed, A3.6 keeps
    // them); the provider rejects the copy. Recovery is the runtime's
    // invalid-signature retry without thinking (harness runtime, scenario
    // regression-a8-duplicated-thinking), not repair.
    let known = [("EqQBdup".to_string(), "Run df.".to_string())].into_iter().collect();
    let rules = Rules { known_signatures: Some(known), ..Rules::default() };
    let o = RequestOptions { thinking: true, ..opts() };
    let block = json!({"type":"thinking","thinking":"Run df.","thinkingSignature":"EqQBdup"});
    let t = msgs(json!([
        {"role":"user","content":"disk?"},
        {"role":"assistant","content":[block.clone(), block.clone(), block, {"type":"text","text":"80% used"}]},
        {"role":"user","content":"what uses it?"}
    ]));
    let fixed = repair(&Policy::for_provider(Anthropic), t);
    let err = validate(Anthropic, &to_wire(Anthropic, &fixed, &o), &rules).unwrap_err();
    assert_eq!(err.message, "messages.1.content.1: Invalid `signature` in `thinking` block");
    // The retry OpenClaw makes on that error: the same request without thinking.
    let retry = RequestOptions { thinking: false, ..o };
    assert!(validate(Anthropic, &to_wire(Anthropic, &fixed, &retry), &rules).is_ok());
}
