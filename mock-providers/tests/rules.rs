//! Every rule of provider-rules.md B1–B6: a violating request gets the exact
//! provider message (and envelope), and OpenClaw-shaped valid transcripts pass.
//! Requests are wire bodies, as the transport sends them.

use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::Provider::{self, *};
use rstest::rstest;
use serde_json::{json, Value};

fn check(p: Provider, body: Value, expect: &str) {
    match validate(p, &body, &Rules::default()) {
        Ok(()) => panic!("{p}: accepted, expected rejection {expect:?}"),
        Err(r) => {
            assert_eq!(r.status, 400);
            assert_eq!(r.message, expect, "{p}");
        }
    }
}

fn u(text: &str) -> Value {
    json!({"role":"user","content":[{"type":"text","text":text}]})
}
fn a(content: Value) -> Value {
    json!({"role":"assistant","content":content})
}

#[rstest]
#[case::non_empty(json!([u("x"), {"role":"assistant","content":[]}, u("y")]), "messages.1: all messages must have non-empty content except for the optional final assistant message")]
#[case::empty_text(json!([{"role":"user","content":[{"type":"text","text":""}]}]), "messages: text content blocks must be non-empty")]
#[case::blank_text(json!([{"role":"user","content":[{"type":"text","text":"  \n"}]}]), "messages: text content blocks must contain non-whitespace text")]
#[case::unanswered(json!([u("x"), a(json!([{"type":"tool_use","id":"toolu_1","name":"read","input":{}}])), u("y")]), "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.")]
#[case::orphan_result(json!([u("x"), a(json!([{"type":"text","text":"ok"}])), {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":[{"type":"text","text":"r"}]}]}]), "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")]
#[case::results_first(json!([u("x"), a(json!([{"type":"tool_use","id":"toolu_1","name":"read","input":{}}])), {"role":"user","content":[{"type":"text","text":"and"},{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"r"}]}]}]), "Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.")]
#[case::unique_ids(json!([u("x"), a(json!([{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t1","name":"b","input":{}}]))]), "messages.1.content.1: `tool_use` ids must be unique")]
#[case::id_charset(json!([u("x"), a(json!([{"type":"tool_use","id":"     functions.read:37","name":"read","input":{}}]))]), "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")]
#[case::error_result_text(json!([u("x"), a(json!([{"type":"tool_use","id":"t1","name":"a","input":{}}])), {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[],"is_error":true}]}]), "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true")]
#[case::signature_required(json!([u("x"), a(json!([{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}])), u("y")]), "messages.1.content.0.thinking.signature: Field required")]
#[case::signature_invalid(json!([u("x"), a(json!([{"type":"thinking","thinking":"t","signature":""},{"type":"text","text":"a"}])), u("y")]), "messages.1.content.0: Invalid `signature` in `thinking` block")]
#[case::thinking_first(json!([u("x"), a(json!([{"type":"text","text":"a"},{"type":"thinking","thinking":"t","signature":"s"}])), u("y")]), "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.")]
#[case::prefill(json!([u("x"), a(json!([{"type":"text","text":"Sure,"}]))]), "This model does not support assistant message prefill. The conversation must end with a user message.")]
#[case::media_type(json!([{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"AA=="}}]}]), "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")]
fn anthropic_rules(#[case] messages: Value, #[case] expect: &str) {
    check(Anthropic, json!({"model":"m","max_tokens":10,"messages":messages}), expect);
}

/// OpenClaw sends a lone text tool result as a string; an error result with
/// string content is valid (it was once rejected as empty).
#[test]
fn an_error_tool_result_may_carry_string_content() {
    let ms = |content: Value| json!({"model":"m","max_tokens":10,"messages":[u("x"), a(json!([{"type":"tool_use","id":"t1","name":"a","input":{}}])), {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":content,"is_error":true}]}]});
    assert!(validate(Anthropic, &ms(json!("permission denied")), &Rules::default()).is_ok());
    check(Anthropic, ms(json!("")), "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true");
}

#[test]
fn anthropic_envelope_and_thinking_disabled_final() {
    let body = json!({"model":"m","max_tokens":1,"messages":[u("x"), a(json!([{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"a"}]))]});
    let r = validate(Anthropic, &body, &Rules { anthropic_no_prefill: false, ..Rules::default() }).unwrap_err();
    assert_eq!(r.message, "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.");
    assert_eq!(r.body["type"], "error");
    assert_eq!(r.body["error"]["type"], "invalid_request_error");
    // The first-party API answers an assistant-first request
    // (anthropic-sdk-typescript#622); the older rule is a switch.
    let first = json!({"model":"m","max_tokens":1,"messages":[a(json!([{"type":"text","text":"hi"}])), u("x")]});
    assert!(validate(Anthropic, &first, &Rules::default()).is_ok(), "assistant-first is accepted");
    let r = validate(Anthropic, &first, &Rules { anthropic_user_first: true, ..Rules::default() }).unwrap_err();
    assert_eq!(r.message, "messages: first message must use the \"user\" role");
    let alt = json!({"model":"m","max_tokens":1,"messages":[u("x"), u("y")]});
    assert!(validate(Anthropic, &alt, &Rules::default()).is_ok(), "current API combines consecutive turns");
    let r = validate(Anthropic, &alt, &Rules { anthropic_alternation: true, ..Rules::default() }).unwrap_err();
    assert_eq!(r.message, "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"user\" roles in a row");
}

#[rstest]
#[case::unanswered(json!([{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"user","content":"y"}]), "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1")]
#[case::orphan_tool(json!([{"role":"user","content":"x"},{"role":"tool","tool_call_id":"call_9","content":"r"}]), "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")]
#[case::id_length(json!([{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_0123456789012345678901234567890123456789a","type":"function","function":{"name":"a","arguments":"{}"}}]}]), "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 46 instead.")]
#[case::empty(json!([]), "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")]
fn openai_chat_rules(#[case] messages: Value, #[case] expect: &str) {
    check(OpenAiChat, json!({"model":"m","messages":messages}), expect);
}

#[rstest]
#[case::output_without_call(json!([{"type":"function_call_output","call_id":"call_1","output":"r"}]), "No tool call found for function call output with call_id call_1.")]
#[case::call_without_output(json!([{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]},{"type":"function_call","call_id":"call_1","name":"a","arguments":"{}"}]), "No tool output found for function call call_1.")]
#[case::reasoning_alone(json!([{"type":"reasoning","id":"rs_1","encrypted_content":"e","summary":[]}]), "Item 'rs_1' of type 'reasoning' was provided without its required following item.")]
#[case::fc_prefix(json!([{"type":"function_call","id":"call_x","call_id":"call_1","name":"a","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"r"}]), "Invalid 'input[0].id': 'call_x'. Expected an ID that begins with 'fc'.")]
#[case::charset(json!([{"type":"function_call","id":"fc x","call_id":"c","name":"a","arguments":"{}"}]), "Invalid 'input[0].id': 'fc x'. Expected an ID that contains letters, numbers, underscores, or dashes, but this value contained additional characters.")]
#[case::call_id_length(json!([{"type":"function_call","call_id":"call_".to_string() + &"x".repeat(111),"name":"a","arguments":"{}"}]), "Invalid 'input[0].call_id': string too long. Expected a string with maximum length 64, but got a string with length 116 instead.")]
#[case::empty_call_id(json!([{"type":"function_call","call_id":"","name":"a","arguments":"{}"}]), "Invalid 'input[0].call_id': empty string")]
#[case::duplicate(json!([{"type":"reasoning","id":"rs_1","encrypted_content":"e","summary":[]},{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"a"}]},{"type":"reasoning","id":"rs_1","encrypted_content":"e","summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]}]), "Duplicate item found with id rs_1. Remove duplicate items from your input and try again.")]
fn responses_rules(#[case] input: Value, #[case] expect: &str) {
    check(OpenAiResponses, json!({"model":"m","input":input}), expect);
}

fn gu(t: &str) -> Value {
    json!({"role":"user","parts":[{"text":t}]})
}
fn gcall(name: &str) -> Value {
    json!({"role":"model","parts":[{"functionCall":{"name":name,"args":{}}}]})
}
fn gresp(name: &str) -> Value {
    json!({"role":"user","parts":[{"functionResponse":{"name":name,"response":{"output":"r"}}}]})
}

#[rstest]
#[case::empty(json!([]), "* GenerateContentRequest.contents: contents is not specified\n")]
#[case::empty_parts(json!([gu("x"), {"role":"model","parts":[]}]), "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n")]
#[case::call_first(json!([gcall("a"), gresp("a")]), "Please ensure that function call turn comes immediately after a user turn or after a function response turn.")]
#[case::call_after_model(json!([gu("x"), {"role":"model","parts":[{"text":"t"}]}, gcall("a"), gresp("a")]), "Please ensure that function call turn comes immediately after a user turn or after a function response turn.")]
#[case::response_without_call(json!([gu("x"), {"role":"model","parts":[{"text":"t"}]}, gresp("a")]), "Please ensure that function response turn comes immediately after a function call turn.")]
#[case::count(json!([gu("x"), {"role":"model","parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b","args":{}}}]}, gresp("a")]), "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")]
#[case::empty_name(json!([gu("x"), gcall("a"), gresp("")]), "* GenerateContentRequest.contents[2].parts[0].function_response.name: Name cannot be empty.\n")]
#[case::oneof(json!([{"role":"user","parts":[{}]}]), "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n")]
fn gemini_rules(#[case] contents: Value, #[case] expect: &str) {
    check(Gemini, json!({"contents":contents}), expect);
}

#[test]
fn gemini_thought_signatures_are_a_switch() {
    let body = json!({"contents":[gu("x"), gcall("read"), gresp("read")]});
    assert!(validate(Gemini, &body, &Rules::default()).is_ok());
    let r = validate(Gemini, &body, &Rules { gemini_thought_signatures: true, ..Rules::default() }).unwrap_err();
    assert!(r.message.starts_with("Function call is missing a thought_signature in functionCall parts."), "{}", r.message);
    assert_eq!(r.body["error"]["status"], "INVALID_ARGUMENT");
}

fn bu(t: &str) -> Value {
    json!({"role":"user","content":[{"text":t}]})
}

#[rstest]
#[case::start_user(json!([{"role":"assistant","content":[{"text":"a"}]}]), "A conversation must start with a user message. Try again with a conversation that starts with a user message.")]
#[case::alternate(json!([bu("a"), bu("b")]), "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.")]
#[case::empty_content(json!([bu("a"), {"role":"assistant","content":[]}]), "The content field in the Message object at messages.1 is empty. Add a ContentBlock object to the content field and try again.")]
#[case::blank(json!([bu("a"), {"role":"assistant","content":[{"text":" "}]}]), "The text field in the ContentBlock object at messages.1.content.0 is blank. Add text to the text field, and try again.")]
#[case::unanswered(json!([bu("a"), {"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"r","input":{}}},{"toolUse":{"toolUseId":"tooluse_2","name":"r","input":{}}}]}, bu("b")]), "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_1, tooluse_2")]
#[case::extra(json!([bu("a"), {"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"r","input":{}}}]}, {"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"x"}]}},{"toolResult":{"toolUseId":"t9","content":[{"text":"y"}]}}]}]), "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.")]
#[case::tool_config(json!([bu("a"), {"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"r","input":{}}}]}, {"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"x"}]}}]}]), "The toolConfig field must be defined when using toolUse and toolResult content blocks.")]
fn bedrock_rules(#[case] messages: Value, #[case] expect: &str) {
    check(Bedrock, json!({"modelId":"m","messages":messages}), expect);
}

#[rstest]
#[case::id9(json!([{"role":"user","content":"x"},{"role":"assistant","content":"","tool_calls":[{"id":"call_0fypS1hVX","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0fypS1hVX","content":"r"}]), "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.")]
#[case::user_after_tool(json!([{"role":"user","content":"x"},{"role":"assistant","content":"","tool_calls":[{"id":"abcdefghi","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"abcdefghi","content":"r"},{"role":"user","content":"y"}]), "Unexpected role 'user' after role 'tool'")]
#[case::tool_after_user(json!([{"role":"user","content":"x"},{"role":"tool","tool_call_id":"abcdefghi","content":"r"}]), "Unexpected role 'tool' after role 'user'")]
#[case::count(json!([{"role":"user","content":"x"},{"role":"assistant","content":"","tool_calls":[{"id":"abcdefghi","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"abcdefghj","type":"function","function":{"name":"b","arguments":"{}"}}]},{"role":"tool","tool_call_id":"abcdefghi","content":"r"}]), "Not the same number of function calls and responses")]
#[case::last_role(json!([{"role":"user","content":"x"},{"role":"assistant","content":"a"}]), "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant")]
fn mistral_rules(#[case] messages: Value, #[case] expect: &str) {
    check(Mistral, json!({"model":"m","messages":messages}), expect);
}

#[test]
fn mistral_envelope() {
    let r = validate(Mistral, &json!({"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"a"}]}), &Rules::default()).unwrap_err();
    assert_eq!(r.body, json!({"object":"error","message":"Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant","type":"invalid_request_message_order","param":null,"code":"3230"}));
}
