//! OpenClaw's legacy engine, exactly (openclaw `src/context-engine/legacy.ts`):
//! ingest does nothing, assemble passes messages through with
//! `estimatedTokens: 0`, compact is `delegateCompactionToRuntime`
//! (`src/context-engine/delegate.ts`).

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

    fn call(&mut self, method: &str, mut params: Value, host: &mut HostLink<'_>) -> Outcome {
        match method {
            "ingest" => Ok(json!({"ingested": false})),
            // The same messages array, untouched (moved, not re-built).
            "assemble" => Ok(json!({"messages": params.get_mut("messages").map(Value::take).unwrap_or(json!([])), "estimatedTokens": 0})),
            "compact" => host.request("host/delegateCompaction", params).map_err(Fail::Threw),
            _ => Err(Fail::NotImplemented),
        }
    }
}
