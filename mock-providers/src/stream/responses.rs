//! OpenAI Responses streaming (`"stream": true`): typed server-sent events
//! (`event: <type>` + `data: <json>` carrying the same `type` and a
//! `sequence_number`), as listed in the OpenAI API reference "Responses →
//! Streaming events": `response.created`, `response.in_progress`, then per
//! output item `response.output_item.added` … `response.output_item.done`
//! (text through `response.content_part.*` and `response.output_text.*`,
//! reasoning summaries through `response.reasoning_summary_part.*` and
//! `response.reasoning_summary_text.*`, function calls through
//! `response.function_call_arguments.*`), and `response.completed` with the
//! whole response and its usage. OpenClaw's reader is
//! @openclaw/ai dist/openai-responses-shared-*.mjs (it keeps the finished
//! reasoning item as the thinking signature and `call_id|id` as a tool call id).

use serde_json::{json, Value};

use super::StreamMeta;

struct Events {
    out: String,
    seq: u64,
}

impl Events {
    fn push(&mut self, ty: &str, fields: Value) {
        let mut v = json!({"type": ty, "sequence_number": self.seq});
        if let (Some(o), Value::Object(f)) = (v.as_object_mut(), fields) {
            o.extend(f);
        }
        self.seq += 1;
        self.out += &format!("event: {ty}\ndata: {v}\n\n");
    }
}

fn response(meta: &StreamMeta, status: &str, output: Vec<Value>, usage: Value) -> Value {
    json!({"id": meta.response_id.as_deref().unwrap_or("resp_mock"), "object": "response", "created_at": 0, "status": status, "model": meta.model, "output": output, "usage": usage})
}

/// A rendered Responses reply (`server::render`) as its stream of events.
pub fn openai(rendered: &Value, meta: &StreamMeta) -> String {
    let all: Vec<&Value> = rendered["output"].as_array().into_iter().flatten().collect();
    // The rendered reply always has a message item; the API sends none when
    // the model answers with tool calls only.
    let items: Vec<Value> = all
        .iter()
        .filter(|x| all.len() == 1 || x["type"] != "message" || x["content"][0]["text"].as_str().is_some_and(|t| !t.is_empty()))
        .map(|x| (*x).clone())
        .collect();
    let mut e = Events { out: String::new(), seq: 0 };
    e.push("response.created", json!({"response": response(meta, "in_progress", vec![], Value::Null)}));
    e.push("response.in_progress", json!({"response": response(meta, "in_progress", vec![], Value::Null)}));
    let mut done: Vec<Value> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let id = item["id"].clone();
        match item["type"].as_str() {
            Some("reasoning") => {
                e.push("response.output_item.added", json!({"output_index": i, "item": {"id": id, "type": "reasoning", "summary": []}}));
                for (k, part) in item["summary"].as_array().into_iter().flatten().enumerate() {
                    let text = &part["text"];
                    e.push("response.reasoning_summary_part.added", json!({"item_id": id, "output_index": i, "summary_index": k, "part": {"type": "summary_text", "text": ""}}));
                    e.push("response.reasoning_summary_text.delta", json!({"item_id": id, "output_index": i, "summary_index": k, "delta": text}));
                    e.push("response.reasoning_summary_text.done", json!({"item_id": id, "output_index": i, "summary_index": k, "text": text}));
                    e.push("response.reasoning_summary_part.done", json!({"item_id": id, "output_index": i, "summary_index": k, "part": {"type": "summary_text", "text": text}}));
                }
            }
            Some("message") => {
                let text = item["content"][0]["text"].clone();
                e.push("response.output_item.added", json!({"output_index": i, "item": {"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}));
                e.push("response.content_part.added", json!({"item_id": id, "output_index": i, "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": ""}}));
                e.push("response.output_text.delta", json!({"item_id": id, "output_index": i, "content_index": 0, "delta": text, "logprobs": []}));
                e.push("response.output_text.done", json!({"item_id": id, "output_index": i, "content_index": 0, "text": text, "logprobs": []}));
                e.push("response.content_part.done", json!({"item_id": id, "output_index": i, "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": text}}));
            }
            Some("function_call") => {
                let args = item["arguments"].clone();
                e.push("response.output_item.added", json!({"output_index": i, "item": {"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": item["call_id"], "name": item["name"]}}));
                e.push("response.function_call_arguments.delta", json!({"item_id": id, "output_index": i, "delta": args}));
                e.push("response.function_call_arguments.done", json!({"item_id": id, "output_index": i, "arguments": args}));
            }
            _ => continue,
        }
        let finished = finished(item);
        e.push("response.output_item.done", json!({"output_index": i, "item": finished}));
        done.push(finished);
    }
    let usage = json!({"input_tokens": meta.input_tokens, "output_tokens": meta.output_tokens, "total_tokens": meta.input_tokens + meta.output_tokens});
    e.push("response.completed", json!({"response": response(meta, "completed", done, usage)}));
    e.out
}

/// An output item as `response.output_item.done` and `response.completed` carry it.
fn finished(item: &Value) -> Value {
    match item["type"].as_str() {
        Some("message") => json!({"id": item["id"], "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "annotations": [], "text": item["content"][0]["text"]}]}),
        Some("function_call") => json!({"id": item["id"], "type": "function_call", "status": "completed", "arguments": item["arguments"], "call_id": item["call_id"], "name": item["name"]}),
        _ => item.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::render;
    use crate::Provider;

    fn meta() -> StreamMeta {
        StreamMeta { model: "gpt-5.1".into(), input_tokens: 7, output_tokens: 2, include_usage: false, response_id: None }
    }

    fn events(s: &str) -> Vec<(String, Value)> {
        s.split("\n\n")
            .filter(|f| !f.is_empty())
            .map(|f| {
                let (ev, data) = f.split_once('\n').unwrap();
                (ev.strip_prefix("event: ").unwrap().to_string(), serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap())
            })
            .collect()
    }

    #[test]
    fn a_text_reply_is_the_exact_event_sequence() {
        let s = openai(&render(Provider::OpenAiResponses, &json!({"text": "hi"})), &meta());
        let want = concat!(
            "event: response.created\n",
            r#"data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_mock","object":"response","created_at":0,"status":"in_progress","model":"gpt-5.1","output":[],"usage":null}}"#, "\n\n",
            "event: response.in_progress\n",
            r#"data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_mock","object":"response","created_at":0,"status":"in_progress","model":"gpt-5.1","output":[],"usage":null}}"#, "\n\n",
            "event: response.output_item.added\n",
            r#"data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_mock","type":"message","status":"in_progress","role":"assistant","content":[]}}"#, "\n\n",
            "event: response.content_part.added\n",
            r#"data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_mock","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}"#, "\n\n",
            "event: response.output_text.delta\n",
            r#"data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_mock","output_index":0,"content_index":0,"delta":"hi","logprobs":[]}"#, "\n\n",
            "event: response.output_text.done\n",
            r#"data: {"type":"response.output_text.done","sequence_number":5,"item_id":"msg_mock","output_index":0,"content_index":0,"text":"hi","logprobs":[]}"#, "\n\n",
            "event: response.content_part.done\n",
            r#"data: {"type":"response.content_part.done","sequence_number":6,"item_id":"msg_mock","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"hi"}}"#, "\n\n",
            "event: response.output_item.done\n",
            r#"data: {"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_mock","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"hi"}]}}"#, "\n\n",
            "event: response.completed\n",
            r#"data: {"type":"response.completed","sequence_number":8,"response":{"id":"resp_mock","object":"response","created_at":0,"status":"completed","model":"gpt-5.1","output":[{"id":"msg_mock","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"hi"}]}],"usage":{"input_tokens":7,"output_tokens":2,"total_tokens":9}}}"#, "\n\n",
        );
        assert_eq!(s, want);
    }

    #[test]
    fn reasoning_then_a_tool_call_without_an_empty_message() {
        let s = openai(&render(Provider::OpenAiResponses, &json!({"text": "", "thinking": "plan", "signature": "enc", "toolCalls": [{"id": "call_1", "name": "read", "arguments": {"path": "a"}}]})), &meta());
        let ev = events(&s);
        let kinds: Vec<&str> = ev.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "response.created", "response.in_progress",
                "response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
                "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
                "response.completed"
            ]
        );
        assert!(ev.iter().enumerate().all(|(i, (k, v))| v["type"] == json!(k) && v["sequence_number"] == json!(i)), "type and sequence_number on every event");
        assert_eq!(ev[7].1["item"], json!({"type":"reasoning","id":"rs_mock","encrypted_content":"enc","summary":[{"type":"summary_text","text":"plan"}]}));
        assert_eq!(ev[8].1["item"], json!({"id":"fc_mock0","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"read"}));
        assert_eq!(ev[9].1["delta"], "{\"path\":\"a\"}");
        let out = &ev[12].1["response"]["output"];
        assert_eq!(out.as_array().unwrap().iter().map(|x| x["type"].as_str().unwrap()).collect::<Vec<_>>(), ["reasoning", "function_call"]);
    }
}
