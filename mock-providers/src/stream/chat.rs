//! OpenAI Chat Completions streaming (`"stream": true`): `data: <chunk>`
//! lines of `chat.completion.chunk` objects, then `data: [DONE]` (OpenAI API
//! reference, "The chat completion chunk object" and "Streaming"). The first
//! chunk carries the role; text arrives as `delta.content`; a tool call's
//! first delta names `index`, `id`, `type` and `function.name`, later ones
//! append `function.arguments`; the last choice chunk has `finish_reason`;
//! with `stream_options.include_usage` a final chunk with empty `choices`
//! carries `usage`. Reasoning streams as `delta.reasoning_content` (the
//! DeepSeek-style field OpenClaw reads, @openclaw/ai
//! dist/openai-completions-stream-*.mjs).
//!
//! Mistral (`https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post`,
//! streaming `CompletionEvent`s) uses the same chunk shape, but sends each
//! tool call whole in one delta and its `usage` in the chunk that finishes.

use serde_json::{json, Value};

use super::StreamMeta;

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn chunk(meta: &StreamMeta, delta: Value, finish: Option<&Value>) -> Value {
    json!({
        "id": meta.response_id.as_deref().unwrap_or("chatcmpl-mock"), "object": "chat.completion.chunk", "created": 0, "model": meta.model,
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish.cloned().unwrap_or(Value::Null)}]
    })
}

fn usage(meta: &StreamMeta) -> Value {
    json!({"prompt_tokens": meta.input_tokens, "completion_tokens": meta.output_tokens, "total_tokens": meta.input_tokens + meta.output_tokens})
}

/// A rendered chat completion (`server::render`) as OpenAI streams it.
pub fn openai(rendered: &Value, meta: &StreamMeta) -> String {
    let choice = &rendered["choices"][0];
    let msg = &choice["message"];
    let text = msg["content"].as_str().unwrap_or("");
    let calls: &[Value] = msg["tool_calls"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut out = String::new();
    let mut first = json!({"role": "assistant", "content": if text.is_empty() && !calls.is_empty() { Value::Null } else { json!("") }});
    if let Some(r) = msg["reasoning_content"].as_str() {
        out += &data(&chunk(meta, first.take(), None));
        out += &data(&chunk(meta, json!({"reasoning_content": r}), None));
        first = Value::Null;
    }
    if !text.is_empty() {
        if !first.is_null() {
            out += &data(&chunk(meta, first.take(), None));
            first = Value::Null;
        }
        out += &data(&chunk(meta, json!({"content": text}), None));
    }
    for (i, c) in calls.iter().enumerate() {
        let head = json!({"tool_calls": [{"index": i, "id": c["id"], "type": "function", "function": {"name": c["function"]["name"], "arguments": ""}}]});
        let head = if first.is_null() { head } else { merge(first.take(), head) };
        first = Value::Null;
        out += &data(&chunk(meta, head, None));
        out += &data(&chunk(meta, json!({"tool_calls": [{"index": i, "function": {"arguments": c["function"]["arguments"]}}]}), None));
    }
    if !first.is_null() {
        out += &data(&chunk(meta, first, None));
    }
    out += &data(&chunk(meta, json!({}), Some(&choice["finish_reason"])));
    if meta.include_usage {
        out += &data(&json!({"id": meta.response_id.as_deref().unwrap_or("chatcmpl-mock"), "object": "chat.completion.chunk", "created": 0, "model": meta.model, "choices": [], "usage": usage(meta)}));
    }
    out + "data: [DONE]\n\n"
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

/// A rendered chat completion as Mistral streams it.
pub fn mistral(rendered: &Value, meta: &StreamMeta) -> String {
    let choice = &rendered["choices"][0];
    let msg = &choice["message"];
    let text = msg["content"].as_str().unwrap_or("");
    let mut out = data(&chunk(meta, json!({"role": "assistant", "content": ""}), None));
    if !text.is_empty() {
        out += &data(&chunk(meta, json!({"content": text}), None));
    }
    if let Some(calls) = msg["tool_calls"].as_array().filter(|c| !c.is_empty()) {
        let whole: Vec<Value> = calls.iter().enumerate().map(|(i, c)| json!({"id": c["id"], "type": "function", "function": c["function"], "index": i})).collect();
        out += &data(&chunk(meta, json!({"tool_calls": whole}), None));
    }
    let mut last = chunk(meta, json!({"content": ""}), Some(&choice["finish_reason"]));
    last["usage"] = usage(meta);
    out += &data(&last);
    out + "data: [DONE]\n\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::render;
    use crate::Provider;

    fn meta(include_usage: bool) -> StreamMeta {
        StreamMeta { model: "gpt-4.1".into(), input_tokens: 12, output_tokens: 3, include_usage, response_id: None }
    }

    /// One chunk frame exactly as written on the wire (`delta` and `finish` raw JSON).
    fn frame(delta: &str, finish: &str) -> String {
        format!("data: {{\"id\":\"chatcmpl-mock\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"gpt-4.1\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]}}\n\n")
    }

    #[test]
    fn a_text_reply_streams_role_then_content_then_finish_then_usage_and_done() {
        let r = render(Provider::OpenAiChat, &json!({"text": "hi"}));
        let want = [
            frame(r#"{"role":"assistant","content":""}"#, "null"),
            frame(r#"{"content":"hi"}"#, "null"),
            frame("{}", r#""stop""#),
            r#"data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":0,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#.to_string() + "\n\n",
            "data: [DONE]\n\n".to_string(),
        ]
        .concat();
        assert_eq!(openai(&r, &meta(true)), want);
        assert!(!openai(&r, &meta(false)).contains("usage"), "usage only when asked for");
    }

    #[test]
    fn a_tool_call_streams_its_header_then_its_arguments() {
        let r = render(Provider::OpenAiChat, &json!({"text": "", "toolCalls": [{"id": "call_1", "name": "read", "arguments": {"path": "a"}}]}));
        let want = [
            frame(r#"{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]}"#, "null"),
            frame(r#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"a\"}"}}]}"#, "null"),
            frame("{}", r#""tool_calls""#),
            "data: [DONE]\n\n".to_string(),
        ]
        .concat();
        assert_eq!(openai(&r, &meta(false)), want);
    }

    #[test]
    fn reasoning_streams_before_the_text() {
        let r = render(Provider::OpenAiChat, &json!({"text": "done", "thinking": "plan"}));
        let deltas: Vec<Value> = openai(&r, &meta(false))
            .split("\n\n")
            .filter_map(|f| f.strip_prefix("data: ").and_then(|d| serde_json::from_str::<Value>(d).ok()))
            .map(|c| c["choices"][0]["delta"].clone())
            .collect();
        assert_eq!(deltas, [json!({"role":"assistant","content":""}), json!({"reasoning_content":"plan"}), json!({"content":"done"}), json!({})]);
    }

    #[test]
    fn mistral_sends_each_tool_call_whole_and_usage_with_the_finish() {
        let r = render(Provider::Mistral, &json!({"text": "", "toolCalls": [{"id": "abcDEF123", "name": "read", "arguments": {"path": "a"}}]}));
        let want = [
            frame(r#"{"role":"assistant","content":""}"#, "null"),
            frame(r#"{"tool_calls":[{"id":"abcDEF123","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"},"index":0}]}"#, "null"),
            r#"data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":0,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#.to_string() + "\n\n",
            "data: [DONE]\n\n".to_string(),
        ]
        .concat();
        assert_eq!(mistral(&r, &meta(false)), want);
    }
}
