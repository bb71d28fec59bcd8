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
// agno-agi/agno#5116 (OpenAI chat completions, 400, param `messages.[8].tool_call_id`):
// two tool results answering one id — what a turn with a repeated call id sends.
#[case::openai_chat_duplicate_tool_call_id(
    OpenAiChat,
    json!({"model": "gpt-4.1", "messages": [
        {"role": "system", "content": "s"}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}, {"role": "user", "content": "look both up"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_gmd4tanjXcwOxfPawOnDmq6R", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
            {"id": "call_gmd4tanjXcwOxfPawOnDmq6R", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_gmd4tanjXcwOxfPawOnDmq6R", "content": "r1"},
        {"role": "tool", "tool_call_id": "call_gmd4tanjXcwOxfPawOnDmq6R", "content": "r2"}
    ]}),
    "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_gmd4tanjXcwOxfPawOnDmq6R', in messages[7] and messages[8]."
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

// ---------- Bodies quoted in OpenClaw issues ----------
//
// OpenClaw shows a rejection to the user as `LLM request rejected: <message>`
// and drops the backticks of Anthropic's message on the way (compare #11087
// with vercel/ai's raw fixture above), so those quotes are compared without
// backticks; every other character is the provider's.

/// `n` alternating user/assistant text messages (user first): the history
/// before the message a quote locates.
fn history(n: usize) -> Vec<Value> {
    (0..n).map(|i| if i % 2 == 0 { json!({"role": "user", "content": format!("question {i}")}) } else { json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {i}")}]}) }).collect()
}

fn anthropic(messages: Vec<Value>, thinking: bool) -> Value {
    let mut body = json!({"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": messages});
    if thinking {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": 1024});
    }
    body
}

/// Rules where the provider minted exactly these signatures (each signing
/// the given thinking text), as a real provider knows its own.
fn minted(sigs: &[(&str, &str)]) -> Rules {
    Rules { known_signatures: Some(sigs.iter().map(|(s, t)| (s.to_string(), t.to_string())).collect()), ..Rules::default() }
}

/// A padded-base64 signature of `len` characters (what Anthropic mints).
fn sig(seed: char, len: usize) -> String {
    std::iter::repeat(seed).take(len).collect()
}

#[rstest]
// https://github.com/openclaw/openclaw/issues/91983 (claude-sonnet-4-6, thinking on):
// `rawError={"type":"error","error":{"type":"invalid_request_error","message":"messages.N.content.K: Invalid `signature` in `thinking` block"}}`
// after an 8 252-character corrupted thinkingSignature (valid ones run ~300–4 300) was
// persisted on an earlier assistant turn and replayed.
#[case::oversized_corrupted_signature_91983(
    Anthropic,
    anthropic(vec![
        json!({"role": "user", "content": "plan the trip"}),
        json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "", "signature": sig('Q', 8252)}, {"type": "text", "text": "Here is the plan."}]}),
        json!({"role": "user", "content": "and the budget?"}),
    ], true),
    minted(&[(&sig('E', 412), "")]),
    "messages.1.content.0: Invalid `signature` in `thinking` block",
)]
// https://github.com/openclaw/openclaw/issues/11087 (Claude Opus 4.5, after history compaction):
// "LLM request rejected: messages.12.content.1: unexpected tool_use_id found in tool_result blocks:
// toolu_01WvDfg7FvA1mB4V1hK9rESF. Each tool_result block must have a corresponding tool_use block in the previous message."
// Compaction cut the assistant's tool_use; its result stays second in message 12.
#[case::result_orphaned_by_compaction_11087(
    Anthropic,
    anthropic({
        let mut m = history(12);
        m.push(json!({"role": "user", "content": [{"type": "text", "text": "continue"}, {"type": "tool_result", "tool_use_id": "toolu_01WvDfg7FvA1mB4V1hK9rESF", "content": "ok"}]}));
        m
    }, false),
    Rules::default(),
    "messages.12.content.1: unexpected tool_use_id found in tool_result blocks: toolu_01WvDfg7FvA1mB4V1hK9rESF. Each tool_result block must have a corresponding tool_use block in the previous message.",
)]
// https://github.com/openclaw/openclaw/issues/25347 (2026.2.23, Claude with thinking, 50+ messages, after compaction):
// "LLM request rejected: messages.51.content.1: thinking or redacted_thinking blocks in the latest assistant
// message cannot be modified. These blocks must remain as they were in the original response."
// The second thinking block of the latest assistant (51) no longer carries the text its signature signed.
#[case::latest_thinking_modified_25347(
    Anthropic,
    anthropic({
        let mut m = history(51);
        m.push(json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "first", "signature": sig('A', 400)},
            {"type": "thinking", "thinking": "second, rewritten", "signature": sig('B', 400)},
            {"type": "text", "text": "done"}
        ]}));
        m.push(json!({"role": "user", "content": "next"}));
        m
    }, true),
    minted(&[(&sig('A', 400), "first"), (&sig('B', 400), "second")]),
    "messages.51.content.1: thinking or redacted_thinking blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
)]
// https://github.com/openclaw/openclaw/issues/58967 (openai-responses, Azure gpt-5.3, reasoning on):
// "400 Item 'rs_XXXX' of type 'reasoning' was provided without its required following item"
// (also #19582, gpt-5.2-codex, with the closing period). The replayed reasoning item is
// followed by the next user message instead of its output item.
#[case::reasoning_without_its_output_58967(
    OpenAiResponses,
    json!({"model": "gpt-5.3-chat", "input": [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_68a1f0c2", "encrypted_content": "gAAAA", "summary": []},
        {"type": "message", "role": "user", "content": "and now?"}
    ]}),
    Rules::default(),
    "Item 'rs_68a1f0c2' of type 'reasoning' was provided without its required following item.",
)]
// https://github.com/openclaw/openclaw/issues/12892 (Bedrock moonshotai.kimi-k2.5, OpenClaw 2026.2.6-3):
// "2 validation errors detected: Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy
// constraint: Member must have length less than or equal to 64; Value at 'messages.73.member.content.2.member.toolUse.name'
// failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"
// (the issue breaks the line after "detected:"; AWS sends one line). A replayed tool call whose
// name has a `.` and more than 64 characters, third block of assistant message 73.
#[case::bedrock_tool_name_length_and_pattern_12892(
    Bedrock,
    {
        let mut m: Vec<Value> = (0..73).map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": [{"text": format!("turn {i}")}]})).collect();
        let name = format!("mcp.{}", "x".repeat(70));
        m.push(json!({"role": "assistant", "content": [{"text": "calling"}, tool_use("tooluseA1"), {"toolUse": {"toolUseId": "tooluseA2", "name": name, "input": {}}}]}));
        m.push(json!({"role": "user", "content": [tool_result("tooluseA1"), tool_result("tooluseA2")]}));
        bedrock(Value::Array(m))
    },
    Rules { strict_tool_names: true, ..Rules::default() },
    "2 validation errors detected: Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: Member must have length less than or equal to 64; Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
)]
// https://github.com/openclaw/openclaw/issues/12277 (OpenClaw 2026.2.6-3, Kimi k2.5 then OpenRouter Claude Opus 4.6):
// {"type":"error","error":{"type":"invalid_request_error","message":"messages.29.content.2.tool_use.id: String should
// match pattern '^[a-zA-Z0-9_-]+$'"},"request_id":"req_011CXwUJWaRY1bSvPnY3DVfu"}
// Kimi's `functions.read:0`-style call id replayed to Claude as the third block of assistant message 29.
#[case::kimi_tool_id_to_claude_12277(
    Anthropic,
    anthropic({
        let mut m = history(29);
        m.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "toolu_01A", "name": "read", "input": {}},
            {"type": "tool_use", "id": "functions.read:0", "name": "read", "input": {}}
        ]}));
        m.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "a"},
            {"type": "tool_result", "tool_use_id": "functions.read:0", "content": "b"}
        ]}));
        m
    }, false),
    Rules::default(),
    "messages.29.content.2.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
)]
// https://github.com/openclaw/openclaw/issues/24615 (OpenClaw 2026.2.22-2, switched to openai-codex/gpt-5.2 mid-session):
// "No tool call found for function call output with call_id call_9f27305b32034a6a9d4d2825."
// The history from the previous model kept the tool output but not its function_call item.
#[case::output_without_its_call_after_model_switch_24615(
    OpenAiResponses,
    json!({"model": "gpt-5.2", "input": [
        {"type": "message", "role": "user", "content": "check the disk"},
        {"type": "function_call_output", "call_id": "call_9f27305b32034a6a9d4d2825", "output": "42% used"},
        {"type": "message", "role": "user", "content": "你好"}
    ]}),
    Rules::default(),
    "No tool call found for function call output with call_id call_9f27305b32034a6a9d4d2825.",
)]
// https://github.com/openclaw/openclaw/issues/10775 (OpenClaw 2026.2.3-1, Bedrock us.anthropic.claude-opus-4-6-v1,
// extended thinking, 219+ messages): "The model returned the following errors: messages.219.content.0.thinking.signature:
// Field required". Bedrock passes Claude's own validation through; the replayed reasoning block lost its signature.
#[case::bedrock_claude_unsigned_reasoning_10775(
    Bedrock,
    {
        let mut m: Vec<Value> = (0..219).map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": [{"text": format!("turn {i}")}]})).collect();
        m.push(json!({"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "let me think"}}}, {"text": "answer"}]}));
        m.push(json!({"role": "user", "content": [{"text": "go on"}]}));
        json!({"modelId": "us.anthropic.claude-opus-4-6-v1", "messages": m})
    },
    Rules::default(),
    "The model returned the following errors: messages.219.content.0.thinking.signature: Field required",
)]
fn openclaw_quoted_error_bodies_are_reproduced(#[case] p: Provider, #[case] body: Value, #[case] rules: Rules, #[case] quoted: &str) {
    let r = validate(p, &body, &rules).expect_err("the provider rejected this request");
    assert_eq!(r.status, 400, "{p}");
    assert_eq!(r.message.replace('`', ""), quoted.replace('`', ""), "{p}");
}

#[test]
fn a_short_bedrock_tool_name_with_a_dot_breaks_the_pattern_only() {
    let body = bedrock(json!([
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluseA1", "name": "fs.read", "input": {}}}]},
        {"role": "user", "content": [tool_result("tooluseA1")]}
    ]));
    let r = validate(Bedrock, &body, &Rules { strict_tool_names: true, ..Rules::default() }).unwrap_err();
    assert_eq!(r.message, "1 validation error detected: Value at 'messages.1.member.content.0.member.toolUse.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+");
}

// https://github.com/openclaw/openclaw/issues/36157 (openai-responses through a Cloudflare AI Gateway, gpt-5.2-pro,
// after an image upload): "400 Item 'fc_0c525c4a4ce4502f0069a8f7c07dc88190b6f50347f7cefd23' of type 'function_call'
// was provided without its required 'reasoning' item: 'rs_0c525c4a4ce4502f0069a8f7ad168881908544e83a9e64b642'."
// The reasoning item was dropped from the replay; the API names the one it minted
// with the call, whose id is not derived from the call's.
#[test]
fn a_call_replayed_without_its_reasoning_names_the_minted_item_36157() {
    let fc = "fc_0c525c4a4ce4502f0069a8f7c07dc88190b6f50347f7cefd23";
    let rs = "rs_0c525c4a4ce4502f0069a8f7ad168881908544e83a9e64b642";
    let body = json!({"model": "openai/gpt-5.2-pro", "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "what is in this picture?"}]},
        {"type": "function_call", "id": fc, "call_id": "call_Xq2", "name": "image", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_Xq2", "output": "ok"}
    ]});
    let rules = Rules { minted_reasoning: [(fc.to_string(), rs.to_string())].into(), ..Rules::default() };
    let r = validate(OpenAiResponses, &body, &rules).unwrap_err();
    assert_eq!(r.status, 400);
    assert_eq!(r.message, format!("Item '{fc}' of type 'function_call' was provided without its required 'reasoning' item: '{rs}'."));
}

/// Mistral's whole error body, as relayed by OpenRouter (which adds
/// `raw_status_code`, the upstream status; not part of Mistral's body).
#[rstest]
// https://github.com/openclaw/openclaw/issues/57672 (OpenClaw 2026.3.28, Mistral Small via OpenRouter, heartbeat exec call):
// 400 Provider returned error {"object":"error","message":"Tool call id was exec1774786568428215 but must be a-z, A-Z, 0-9,
// with a length of 9.","type":"invalid_function_call","param":null,"code":"3280","raw_status_code":400}
#[case::exec_id_57672("exec1774786568428215", r#"{"object":"error","message":"Tool call id was exec1774786568428215 but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280","raw_status_code":400}"#)]
// https://github.com/openclaw/openclaw/issues/52548 (OpenClaw 2026.3.14, openrouter/mistralai/mistral-large-2512, file read):
#[case::read_id_52548("read177411253938138", r#"{"object":"error","message":"Tool call id was read177411253938138 but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","code":"3280","raw_status_code":400}"#)]
fn mistral_tool_call_id_bodies_are_reproduced(#[case] id: &str, #[case] relayed: &str) {
    let body = json!({"model": "mistral-small-latest", "messages": [
        {"role": "user", "content": "heartbeat"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": id, "type": "function", "function": {"name": "exec", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": id, "name": "exec", "content": "ok"}
    ]});
    let r = validate(Mistral, &body, &Rules::default()).unwrap_err();
    assert_eq!(r.status, 400);
    let mut quoted: Value = serde_json::from_str(relayed).unwrap();
    quoted.as_object_mut().unwrap().remove("raw_status_code");
    // #52548 quotes the body without its `"param":null`; every quoted field must match.
    for (k, v) in quoted.as_object().unwrap() {
        assert_eq!(&r.body[k], v, "{k}");
    }
    assert_eq!(r.body["param"], Value::Null);
}

// https://github.com/openclaw/openclaw/issues/72127 (google/gemini-3.1-pro-preview, clean install, exec tool calls):
// {"error": {"code": 400, "message": "Function call is missing a thought_signature in functionCall parts. This is required
// for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data,
// function call default_api:exec , position 75. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures
// for more details.", "status": "INVALID_ARGUMENT"}}
// (backticks around `default_api:exec` lost in the issue, as in the Anthropic quotes). "position" counts
// contents, 1-based: the 75th content is the model turn whose exec call lost its signature, after an
// earlier signed call and its response.
#[test]
fn gemini_missing_thought_signature_names_the_content_position_72127() {
    // The user sent two messages in a row before the tool loop (Gemini takes consecutive user turns).
    let mut contents: Vec<Value> = (0..71).map(|i| json!({"role": if i % 2 == 0 { "user" } else { "model" }, "parts": [{"text": format!("turn {i}")}]})).collect();
    contents.push(json!({"role": "user", "parts": [{"text": "run it"}]}));
    contents.push(json!({"role": "model", "parts": [{"functionCall": {"name": "exec", "args": {"command": "ls"}}, "thoughtSignature": "c2lnbmVk"}]}));
    contents.push(json!({"role": "user", "parts": [{"functionResponse": {"name": "exec", "response": {"output": "a b"}}}]}));
    contents.push(json!({"role": "model", "parts": [{"functionCall": {"name": "exec", "args": {"command": "cat a"}}}]}));
    contents.push(json!({"role": "user", "parts": [{"functionResponse": {"name": "exec", "response": {"output": "x"}}}]}));
    assert_eq!(contents[74]["parts"][0]["functionCall"]["args"]["command"], "cat a");
    let body = json!({"contents": contents});
    let r = validate(Gemini, &body, &Rules { gemini_thought_signatures: true, ..Rules::default() }).unwrap_err();
    assert_eq!(r.status, 400);
    assert_eq!(r.body["error"]["status"], "INVALID_ARGUMENT");
    let quoted = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call default_api:exec , position 75. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.";
    assert_eq!(r.message.replace('`', ""), quoted);
}

// https://github.com/openclaw/openclaw/issues/23771 (gemini-3.1-pro-preview, via WhatsApp):
// 400 Provider returned error {"error": {"code": 400, "message": "Corrupted thought signature.", "status": "INVALID_ARGUMENT"}}
// A replayed functionCall carries a thoughtSignature the provider never minted.
#[test]
fn gemini_corrupted_thought_signature_whole_body_23771() {
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "what time is it?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "exec", "args": {"command": "date"}}, "thoughtSignature": "Q29ycnVwdGVk"}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "exec", "response": {"output": "12:00"}}}]}
    ]});
    let r = validate(Gemini, &body, &minted(&[("bWludGVk", "")])).unwrap_err();
    assert_eq!(r.status, 400);
    assert_eq!(r.body, json!({"error": {"code": 400, "message": "Corrupted thought signature.", "status": "INVALID_ARGUMENT"}}));
}
