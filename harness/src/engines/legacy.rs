//! OpenClaw's legacy engine, exactly (openclaw `src/context-engine/legacy.ts`,
//! 2026.9.6): info `{id:"legacy", name:"Legacy Context Engine",
//! version:"1.0.0"}`, no optional methods, `ingest` is a no-op answering
//! `{ingested:false}`, `assemble` passes the same messages array through with
//! `estimatedTokens: 0` ("Caller handles estimation"), and `compact` is
//! `delegateCompactionToRuntime` (openclaw `src/context-engine/delegate.ts`):
//! the host's own compaction answers for it.

use clawspec_contract::protocol::method;
use serde_json::{json, Value};

use super::serve::{Engine, Fail, HostLink, Outcome, Reply};
use crate::driver::delta::Messages;

#[derive(Default)]
pub struct Legacy;

impl Engine for Legacy {
    fn initialize(&mut self, _params: &Value) -> Value {
        json!({
            "info": {"id": "legacy", "name": "Legacy Context Engine", "version": "1.0.0"},
            "methods": [],
            "implementation": {"name": "clawspec-legacy", "version": env!("CARGO_PKG_VERSION"), "language": "rust"}
        })
    }

    fn ingest(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Ok(json!({"ingested": false}))
    }

    /// The params' own `messages` value is moved into the result untouched:
    /// no re-parse, no re-build, one serialisation on the way out.
    fn assemble(&mut self, mut params: Value, _host: &mut HostLink<'_>) -> Outcome {
        let messages = params.get_mut("messages").map(Value::take).unwrap_or_else(|| json!([]));
        Ok(json!({"messages": messages, "estimatedTokens": 0}))
    }

    /// `assemble` of a shared history passes the very messages through: the
    /// server then answers them as kept, by pointer, without copying or
    /// comparing them. Other methods see their params as sent.
    fn call_shared(&mut self, m: &str, mut params: Value, messages: Messages, host: &mut HostLink<'_>) -> Result<Reply, Fail> {
        if m == method::ASSEMBLE {
            let result = json!({"messages": null, "estimatedTokens": 0});
            return Ok(Reply::Sent { result, messages });
        }
        messages.put_into(&mut params);
        self.call(m, params, host).map(Reply::Value)
    }

    /// `delegateCompactionToRuntime(params)`: the runtime's `CompactResult` is
    /// the result; a runtime failure is a throw, as the awaited promise rejects.
    fn compact(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome {
        host.request(method::HOST_DELEGATE_COMPACTION, params).map_err(|e| Fail::Threw(e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::serve::{host_text, serve_text, JsonOnly};

    /// The legacy engine passes whatever it is given through, as sent: the
    /// shared path writes the same bytes as the JSON path, and a pass-through
    /// of the whole history is answered as kept messages.
    #[test]
    fn a_shared_pass_through_writes_what_the_json_path_writes() {
        let history = |n: u64| (0..n).map(|i| json!({"content": format!("m{i}"), "role": "user", "odd": null, "n": i as f64 / 2.0})).collect::<Vec<_>>();
        let mut calls: Vec<(&str, Value)> = (1..6).map(|n| ("assemble", json!({"sessionId": "s", "messages": history(3 * n), "tokenBudget": 9}))).collect();
        calls.push(("assemble", json!({"sessionId": "s", "messages": [1, "not a message", {"role": "tool"}]})));
        calls.push(("ingest", json!({"sessionId": "s", "message": {"role": "user", "content": "x"}})));
        for delta in [true, false] {
            let text = host_text(&calls, delta);
            let shared = String::from_utf8(serve_text(&mut Legacy, text.clone())).unwrap();
            let json = String::from_utf8(serve_text(&mut JsonOnly(Legacy), text)).unwrap();
            assert_eq!(shared, json);
            if delta {
                let fifth = shared.lines().nth(5).unwrap();
                assert!(fifth.contains(r#"{"$delta":{"base":5,"keep":15,"append":[]}}"#), "{fifth}");
            }
        }
    }
}
