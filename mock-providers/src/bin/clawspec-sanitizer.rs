//! An external transcript sanitizer speaking clawspec protocol v1's `sanitize`
//! method, for `clawspec fuzz-sanitizer`:
//!
//!     clawspec-sanitizer reference   # mock-providers' reference repair
//!     clawspec-sanitizer weak        # the same without pairing repair (must be caught)

use std::io::{BufRead, Write};

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::repair::{passes, repair, Policy};
use clawspec_mock_providers::Provider;
use serde_json::{json, Value};

fn sanitize(mode: &str, params: &Value) -> Result<Value, String> {
    let p: Provider = params["provider"].as_str().unwrap_or("").parse()?;
    let ms: Vec<AgentMessage> = serde_json::from_value(params["messages"].clone()).map_err(|e| e.to_string())?;
    let policy = Policy::for_provider(p);
    let out = if mode == "weak" {
        // The defect: no pairing repair, so split tool pairs reach the provider.
        let ms = passes::drop_failed_empty_turns(ms);
        let ms = passes::clean_blank_text(ms);
        let ms = passes::thinking(&policy, ms);
        let ms = passes::sanitize_tool_call_inputs(ms);
        let ms = passes::sanitize_tool_ids(&policy, ms);
        let ms = passes::turn_validators(&policy, ms);
        passes::send_time(&policy, ms)
    } else {
        repair(&policy, ms)
    };
    Ok(json!({"messages": out}))
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "reference".into());
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(req) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = req.get("id").cloned() else { continue };
        let m = req["method"].as_str().unwrap_or("");
        let frame = match m {
            "initialize" => json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":1,
                "info":{"id":format!("sanitizer-{mode}"),"name":format!("clawspec {mode} sanitizer")},
                "methods":["sanitize"],"implementation":{"name":"clawspec-sanitizer","version":env!("CARGO_PKG_VERSION"),"language":"rust"}}}),
            "sanitize" => match sanitize(&mode, &req["params"]) {
                Ok(v) => json!({"jsonrpc":"2.0","id":id,"result":v}),
                Err(e) => json!({"jsonrpc":"2.0","id":id,"error":{"code":-32000,"message":e}}),
            },
            "shutdown" => {
                let _ = writeln!(out, "{}", json!({"jsonrpc":"2.0","id":id,"result":{}}));
                return;
            }
            _ => json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":format!("no method {m}")}}),
        };
        let _ = writeln!(out, "{frame}");
        let _ = out.flush();
    }
}
