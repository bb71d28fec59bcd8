//! Validators against error bodies recorded from the real providers. Each
//! case rebuilds the request that produced a recorded body and names where the
//! body was recorded; the mock must answer with the same message.

use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::Provider::{self, *};
use rstest::rstest;
use serde_json::{json, Value};

fn bedrock(messages: Value) -> Value {
    json!({"modelId": "mistral.ministral-3-8b-instruct", "messages": messages, "toolConfig": {"tools": [{"toolSpec": {"name": "lookup", "inputSchema": {"json": {}}}}]}})
}

fn tool_use(id: &str) -> Value {
    json!({"toolUse": {"toolUseId": id, "name": "lookup", "input": {}}})
}

fn tool_result(id: &str) -> Value {
    json!({"toolResult": {"toolUseId": id, "content": [{"text": "r"}]}})
}

#[rstest]
// vercel/ai packages/amazon-bedrock/src/__fixtures__/amazon-bedrock-mistral-duplicate-tool-call-ids-error.json
// (request: vercel/ai issue #16182 reproduction, both call ids shortened to the same 9 characters).
#[case::duplicate_tool_use_ids(
    Bedrock,
    bedrock(json!([
        {"role": "user", "content": [{"text": "Look up both values."}]},
        {"role": "assistant", "content": [tool_use("tooluseAc"), tool_use("tooluseAc")]},
        {"role": "user", "content": [tool_result("tooluseAc"), tool_result("tooluseAc")]}
    ])),
    "The toolUse blocks at messages.2.content contain duplicate Ids: tooluseAc"
)]
// vercel/ai packages/amazon-bedrock/src/__fixtures__/issue-7034-error.json
#[case::reasoning_in_user_message(
    Bedrock,
    bedrock(json!([
        {"role": "user", "content": [{"reasoningContent": {"reasoningText": {"text": "thinking", "signature": "sig"}}}, {"text": "continue"}]}
    ])),
    "User messages cannot contain reasoning content. Please remove the reasoning content and try again."
)]
// vercel/ai packages/amazon-bedrock/src/__fixtures__/issue-7830-empty-assistant-content-error.json and
// amazon-bedrock-empty-message-validation-error.json (recorded 2026-08-05, us.amazon.nova-2-lite-v1:0)
#[case::empty_assistant_content(
    Bedrock,
    bedrock(json!([
        {"role": "user", "content": [{"text": "hi"}]},
        {"role": "assistant", "content": []},
        {"role": "user", "content": [{"text": "again"}]}
    ])),
    "The content field in the Message object at messages.1 is empty. Add a ContentBlock object to the content field and try again."
)]
// vercel/ai packages/amazon-bedrock/src/__fixtures__/amazon-bedrock-cache-point-only-assistant-error.json
#[case::cache_point_only_message(
    Bedrock,
    bedrock(json!([
        {"role": "user", "content": [{"text": "hi"}]},
        {"role": "assistant", "content": [{"cachePoint": {"type": "default"}}]},
        {"role": "user", "content": [{"text": "again"}]}
    ])),
    "There is nothing available to cache. Please remove the invalid cache point and try again."
)]
// vercel/ai packages/anthropic/src/__fixtures__/anthropic-issue-21832-unexpected-tool-use-id.json
#[case::anthropic_result_without_a_call(
    Anthropic,
    json!({"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "continue"}, {"type": "tool_result", "tool_use_id": "T1", "content": [{"type": "text", "text": "r"}]}]}
    ]}),
    "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: T1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)]
fn recorded_error_bodies_are_reproduced(#[case] p: Provider, #[case] body: Value, #[case] recorded: &str) {
    let r = validate(p, &body, &Rules::default()).expect_err("the provider rejected this request");
    assert_eq!(r.status, 400);
    assert_eq!(r.message, recorded, "{p}");
}

#[test]
fn distinct_tool_use_ids_still_pass_on_bedrock() {
    let body = bedrock(json!([
        {"role": "user", "content": [{"text": "Look up both values."}]},
        {"role": "assistant", "content": [tool_use("tooluseA1"), tool_use("tooluseA2")]},
        {"role": "user", "content": [tool_result("tooluseA1"), tool_result("tooluseA2")]}
    ]));
    validate(Bedrock, &body, &Rules::default()).unwrap();
}
