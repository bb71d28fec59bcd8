//! OpenClaw's legacy engine, exactly (openclaw `src/context-engine/legacy.ts`,
//! 2026.9.6): info `{id:"legacy", name:"Legacy Context Engine",
//! version:"1.0.0"}`, no optional methods, `ingest` is a no-op answering
//! `{ingested:false}`, `assemble` passes the same messages array through with
//! `estimatedTokens: 0` ("Caller handles estimation"), and `compact` is
//! `delegateCompactionToRuntime` (openclaw `src/context-engine/delegate.ts`):
//! the host's own compaction answers for it.

use clawspec_contract::protocol::method;
use serde_json::{json, Value};

use super::serve::{Engine, Fail, HostLink, Outcome};

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

    /// `delegateCompactionToRuntime(params)`: the runtime's `CompactResult` is
    /// the result; a runtime failure is a throw, as the awaited promise rejects.
    fn compact(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome {
        host.request(method::HOST_DELEGATE_COMPACTION, params).map_err(|e| Fail::Threw(e.message))
    }
}
