//! Gemini `streamGenerateContent?alt=sse`: each event is `data: ` + one
//! `GenerateContentResponse` (Gemini API reference, "models.streamGenerateContent";
//! `candidates[0].content.parts`, `finishReason` and `usageMetadata` on the
//! last chunk, `modelVersion`, `responseId`), events separated by a blank
//! line (`\r\n\r\n` as Google's servers send it; @google/genai
//! dist/node/index.mjs `processStreamResponse` splits on `\n\n`, `\r\r` and
//! `\r\n\r\n`). One part per chunk, as the API streams text and function
//! calls. A function call carries its `id` (`FunctionCall.id`, which
//! OpenClaw keeps as the tool call id, @openclaw/ai
//! dist/google-messages-*.mjs `consumeGoogleGenerateContentStream`; without
//! one the host mints `<name>_<Date.now()>_<n>`).

use serde_json::{json, Value};

use super::StreamMeta;

/// A rendered Gemini reply (`server::render`) as its stream of chunks.
pub fn stream(rendered: &Value, meta: &StreamMeta) -> String {
    let candidate = &rendered["candidates"][0];
    let all: Vec<&Value> = candidate["content"]["parts"].as_array().into_iter().flatten().collect();
    // The rendered reply always has a text part; the API streams no empty one.
    let parts: Vec<&Value> = all.iter().copied().filter(|p| all.len() == 1 || p.get("text").is_none_or(|t| t.as_str().is_some_and(|t| !t.is_empty()))).collect();
    let last = parts.len().saturating_sub(1);
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let mut c = json!({"content": {"parts": [part], "role": "model"}, "index": 0});
        let mut chunk = json!({"candidates": [], "modelVersion": meta.model, "responseId": meta.response_id.as_deref().unwrap_or("mock-response")});
        if i == last {
            c["finishReason"] = candidate["finishReason"].clone();
            chunk["usageMetadata"] = json!({"promptTokenCount": meta.input_tokens, "candidatesTokenCount": meta.output_tokens, "totalTokenCount": meta.input_tokens + meta.output_tokens});
        }
        chunk["candidates"] = json!([c]);
        out += &format!("data: {chunk}\r\n\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::render;
    use crate::Provider;

    fn meta() -> StreamMeta {
        StreamMeta { model: "gemini-2.5-pro".into(), input_tokens: 5, output_tokens: 1, include_usage: false, response_id: None }
    }

    #[test]
    fn a_text_reply_is_one_chunk_with_the_finish_reason_and_usage() {
        let s = stream(&render(Provider::Gemini, &json!({"text": "hi"})), &meta());
        assert_eq!(
            s,
            concat!(
                r#"data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"index":0,"finishReason":"STOP"}],"modelVersion":"gemini-2.5-pro","responseId":"mock-response","usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}}"#,
                "\r\n\r\n"
            )
        );
    }

    #[test]
    fn thought_then_function_call_each_in_its_own_chunk_and_the_call_keeps_its_id() {
        let s = stream(&render(Provider::Gemini, &json!({"text": "", "thinking": "plan", "signature": "sig1", "toolCalls": [{"id": "call_1", "name": "read", "arguments": {"path": "a"}}]})), &meta());
        let want = concat!(
            r#"data: {"candidates":[{"content":{"parts":[{"text":"plan","thought":true,"thoughtSignature":"sig1"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-pro","responseId":"mock-response"}"#,
            "\r\n\r\n",
            r#"data: {"candidates":[{"content":{"parts":[{"functionCall":{"id":"call_1","name":"read","args":{"path":"a"}},"thoughtSignature":"sig1"}],"role":"model"},"index":0,"finishReason":"STOP"}],"modelVersion":"gemini-2.5-pro","responseId":"mock-response","usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}}"#,
            "\r\n\r\n",
        );
        assert_eq!(s, want);
    }
}
