//! Streaming answers. OpenClaw's provider transports stream (`"stream": true`),
//! so a mock a real OpenClaw host talks to must answer a streaming request
//! with the provider's server-sent events, built from the same JSON reply the
//! non-streaming path renders (`server::render`). Event names and order are
//! Anthropic's Messages streaming protocol (message_start, content_block_*,
//! message_delta, message_stop).

use serde_json::{json, Value};

/// One SSE frame.
fn frame(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// A rendered Anthropic message (`server::render`) as its stream of events.
pub fn anthropic(message: &Value) -> String {
    let mut head = message.clone();
    head["content"] = json!([]);
    head["stop_reason"] = Value::Null;
    let usage = message["usage"].clone();
    head["usage"] = json!({"input_tokens": usage["input_tokens"], "output_tokens": 0});
    let mut out = frame("message_start", &json!({"type": "message_start", "message": head}));
    // The rendered message always has a text block; Anthropic streams none
    // when a reply is only tool calls or thinking, and a real host would keep
    // an empty one in the assistant message the engine sees.
    let all: Vec<&Value> = message["content"].as_array().into_iter().flatten().collect();
    let blocks: Vec<&Value> = all.iter().copied().filter(|b| all.len() == 1 || b["type"] != "text" || b["text"].as_str().is_some_and(|t| !t.is_empty())).collect();
    for (i, block) in blocks.into_iter().enumerate() {
        let (start, delta) = match block["type"].as_str() {
            // Redacted thinking arrives whole in its start event (no delta);
            // @openclaw/ai dist/anthropic-stream-reducer-*.mjs keeps `data` as the signature.
            Some("redacted_thinking") => {
                out += &frame("content_block_start", &json!({"type": "content_block_start", "index": i, "content_block": block}));
                out += &frame("content_block_stop", &json!({"type": "content_block_stop", "index": i}));
                continue;
            }
            Some("text") => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": block["text"]})),
            Some("thinking") => (json!({"type": "thinking", "thinking": ""}), json!({"type": "thinking_delta", "thinking": block["thinking"]})),
            Some("tool_use") => (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            ),
            _ => continue,
        };
        out += &frame("content_block_start", &json!({"type": "content_block_start", "index": i, "content_block": start}));
        out += &frame("content_block_delta", &json!({"type": "content_block_delta", "index": i, "delta": delta}));
        if let Some(sig) = block["signature"].as_str().filter(|_| block["type"] == "thinking") {
            out += &frame("content_block_delta", &json!({"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": sig}}));
        }
        out += &frame("content_block_stop", &json!({"type": "content_block_stop", "index": i}));
    }
    out += &frame(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": null}, "usage": {"output_tokens": usage["output_tokens"]}}),
    );
    out += &frame("message_stop", &json!({"type": "message_stop"}));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(sse: &str) -> Vec<Value> {
        sse.split("\n\n").filter(|f| !f.is_empty()).map(|f| serde_json::from_str(f.lines().nth(1).unwrap().trim_start_matches("data: ")).unwrap()).collect()
    }

    #[test]
    fn a_text_and_tool_reply_streams_every_block_in_order() {
        let msg = json!({"id":"msg_mock","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"read","input":{"path":"a"}}],"stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":3}});
        let ev = events(&anthropic(&msg));
        let kinds: Vec<&str> = ev.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]
        );
        assert_eq!(ev[0]["message"]["usage"]["input_tokens"], 12);
        assert_eq!(ev[5]["delta"]["partial_json"], "{\"path\":\"a\"}");
        assert_eq!(ev[7]["delta"]["stop_reason"], "tool_use");
        assert_eq!(ev[7]["usage"]["output_tokens"], 3);
    }

    #[test]
    fn an_empty_text_block_beside_a_tool_call_is_not_streamed_but_an_empty_answer_is() {
        let tool_only = json!({"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":""},{"type":"tool_use","id":"t1","name":"read","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}});
        let ev = events(&anthropic(&tool_only));
        let starts: Vec<_> = ev.iter().filter(|e| e["type"] == "content_block_start").map(|e| (e["index"].as_u64().unwrap(), e["content_block"]["type"].as_str().unwrap().to_string())).collect();
        assert_eq!(starts, [(0, "tool_use".to_string())]);
        let empty = json!({"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":""}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}});
        assert_eq!(events(&anthropic(&empty)).iter().filter(|e| e["type"] == "content_block_start").count(), 1);
    }

    #[test]
    fn signed_thinking_streams_its_signature_and_redacted_thinking_arrives_whole() {
        let msg = json!({"id":"m","type":"message","role":"assistant","model":"m","content":[
            {"type":"thinking","thinking":"plan","signature":"EqQBsigA1"},
            {"type":"redacted_thinking","data":"opaque=="},
            {"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}});
        let ev = events(&anthropic(&msg));
        let kinds: Vec<String> = ev.iter().map(|e| format!("{}{}", e["type"].as_str().unwrap(), e["delta"]["type"].as_str().map(|d| format!(":{d}")).unwrap_or_default())).collect();
        assert_eq!(
            kinds,
            [
                "message_start",
                "content_block_start", "content_block_delta:thinking_delta", "content_block_delta:signature_delta", "content_block_stop",
                "content_block_start", "content_block_stop",
                "content_block_start", "content_block_delta:text_delta", "content_block_stop",
                "message_delta", "message_stop"
            ]
        );
        assert_eq!(ev[3]["delta"]["signature"], "EqQBsigA1");
        assert_eq!(ev[5]["content_block"], json!({"type":"redacted_thinking","data":"opaque=="}));
    }
}
