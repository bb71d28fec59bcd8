//! An external transcript sanitizer over clawspec protocol v1 on stdio
//! (docs/protocol.md: `initialize`, `sanitize {provider, model?, messages}` →
//! `{messages}`, `shutdown`). Two modes: the reference repair, and a
//! deliberately weakened copy without pairing repair that
//! `clawspec fuzz-sanitizer` must catch.

use std::io::{BufRead, Write};

use clawspec_contract::AgentMessage;
use serde_json::{json, Value};

use crate::repair::{self, Policy};
use crate::Provider;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Reference,
    /// The reference pipeline with every pairing repair left out.
    Weak,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Reference => "reference",
            Mode::Weak => "weak",
        }
    }
}

/// The weakened pipeline: pairing repair disabled, everything else kept.
pub fn weak_repair(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let p = Policy { repair_pairing: false, ..p.clone() };
    repair::repair(&p, ms)
}

pub fn sanitize(mode: Mode, params: &Value) -> Result<Value, String> {
    let p: Provider = params["provider"].as_str().ok_or("sanitize: missing `provider`")?.parse()?;
    let ms: Vec<AgentMessage> = serde_json::from_value(params["messages"].clone()).map_err(|e| format!("sanitize: invalid `messages`: {e}"))?;
    let policy = match params["model"].as_str() {
        Some(m) => Policy::for_model(p, m),
        None => Policy::for_provider(p),
    };
    let out = match mode {
        Mode::Reference => repair::repair(&policy, ms),
        Mode::Weak => weak_repair(&policy, ms),
    };
    Ok(json!({"messages": out}))
}

fn respond(mode: Mode, req: &Value) -> Option<Value> {
    let id = req.get("id")?.clone(); // notifications get no answer
    let m = req["method"].as_str().unwrap_or("");
    Some(match m {
        "initialize" => json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":1,
            "info":{"id":format!("sanitizer-{}", mode.name()),"name":format!("clawspec {} sanitizer", mode.name()),"version":env!("CARGO_PKG_VERSION")},
            "methods":["sanitize"],
            "implementation":{"name":format!("clawspec-sanitizer-{}", mode.name()),"version":env!("CARGO_PKG_VERSION"),"language":"rust"}}}),
        "sanitize" => match sanitize(mode, &req["params"]) {
            Ok(v) => json!({"jsonrpc":"2.0","id":id,"result":v}),
            Err(e) => json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":e}}),
        },
        "shutdown" => json!({"jsonrpc":"2.0","id":id,"result":{}}),
        _ => json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":format!("method not found: {m}")}}),
    })
}

/// Serve requests line by line until `shutdown` or end of input.
pub fn run_stdio(mode: Mode) {
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let req: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(out, "{}", json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":format!("parse error: {e}")}}));
                let _ = out.flush();
                continue;
            }
        };
        if let Some(frame) = respond(mode, &req) {
            let _ = writeln!(out, "{frame}");
            let _ = out.flush();
        }
        if req["method"] == "shutdown" {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_mode_leaves_split_pairs() {
        let params = json!({"provider":"bedrock","messages":[
            {"role":"user","content":"x"},
            {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},
            {"role":"user","content":"y"}]});
        let weak = sanitize(Mode::Weak, &params).unwrap();
        let reference = sanitize(Mode::Reference, &params).unwrap();
        assert_eq!(weak["messages"].as_array().unwrap().len(), 3);
        assert!(reference["messages"].to_string().contains("missing tool result"));
        assert!(sanitize(Mode::Reference, &json!({"provider":"nope","messages":[]})).unwrap_err().contains("unknown provider"));
    }
}
