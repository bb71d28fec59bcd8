//! Engine side of protocol v1, shared by every built-in engine: a synchronous
//! line loop on stdin/stdout. Handlers may call back into the host mid-call
//! through [`HostLink`]. stdout carries protocol frames only.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};

use clawspec_contract::protocol::{code, method, PROTOCOL_VERSION};
use serde_json::{json, Value};

/// How a handler fails: a JS-style throw, a missing method, or an abort.
#[derive(Debug)]
pub enum Fail {
    Threw(String),
    NotImplemented,
    Aborted,
}

pub type Outcome = Result<Value, Fail>;

pub trait Engine {
    /// `initialize` result fields (`info`, `methods`, `implementation`).
    fn initialize(&mut self, params: &Value) -> Value;
    fn call(&mut self, method: &str, params: Value, host: &mut HostLink<'_>) -> Outcome;
}

/// Lets a handler send `host/...` requests and see `$/abort` notifications.
pub struct HostLink<'a> {
    input: &'a mut dyn BufRead,
    out: &'a mut dyn Write,
    next_id: u64,
    aborted: &'a mut BTreeSet<String>,
    pub current_call: Value,
}

impl HostLink<'_> {
    pub fn request(&mut self, m: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        write_frame(self.out, &json!({"jsonrpc": "2.0", "id": id, "method": m, "params": params})).map_err(|e| e.to_string())?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.input.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("host closed stdin".into());
            }
            let v: Value = serde_json::from_str(&line).map_err(|e| format!("host sent invalid JSON: {e}"))?;
            if v.get("method").and_then(Value::as_str) == Some(method::ABORT) {
                if let Some(s) = v["params"]["signal"].as_str() {
                    self.aborted.insert(s.to_string());
                }
                continue;
            }
            if v.get("id").and_then(Value::as_u64) == Some(id) {
                return match v.get("error") {
                    Some(e) => Err(e["message"].as_str().unwrap_or("host error").to_string()),
                    None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                };
            }
        }
    }

    pub fn is_aborted(&self, signal: Option<&str>) -> bool {
        signal.is_some_and(|s| self.aborted.contains(s))
    }
}

fn write_frame(out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(v)?;
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}

/// Serve `engine` until `shutdown` or EOF. Returns the process exit code.
pub fn serve(engine: &mut dyn Engine) -> i32 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut input = stdin.lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut aborted = BTreeSet::new();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return 0,
            Ok(_) => {}
            Err(e) => {
                eprintln!("engine: cannot read stdin: {e}");
                return 1;
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let mut req: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("engine: ignoring a line that is not JSON: {e}");
                continue;
            }
        };
        let m = req.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
        let Some(id) = req.get("id").cloned() else {
            if m == method::ABORT {
                if let Some(s) = req["params"]["signal"].as_str() {
                    aborted.insert(s.to_string());
                }
            }
            continue;
        };
        let params = req.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        let result: Outcome = match m.as_str() {
            method::INITIALIZE => {
                let v = params.get("protocolVersion").and_then(Value::as_u64);
                if v != Some(PROTOCOL_VERSION as u64) {
                    let e = json!({"code": code::UNSUPPORTED_PROTOCOL_VERSION, "message": format!("unsupported protocol version {v:?}"), "data": {"supported": [PROTOCOL_VERSION]}});
                    let _ = write_frame(&mut out, &json!({"jsonrpc": "2.0", "id": id, "error": e}));
                    continue;
                }
                let mut r = engine.initialize(&params);
                r["protocolVersion"] = json!(PROTOCOL_VERSION);
                Ok(r)
            }
            method::SHUTDOWN => {
                let _ = write_frame(&mut out, &json!({"jsonrpc": "2.0", "id": id, "result": {}}));
                return 0;
            }
            _ => {
                let mut link = HostLink { input: &mut input, out: &mut out, next_id: 1_000_000, aborted: &mut aborted, current_call: id.clone() };
                engine.call(&m, params, &mut link)
            }
        };
        let frame = match result {
            Ok(v) => json!({"jsonrpc": "2.0", "id": id, "result": v}),
            Err(Fail::Threw(msg)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code::ENGINE_THREW, "message": msg}}),
            Err(Fail::Aborted) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code::ABORTED, "message": "This operation was aborted"}}),
            Err(Fail::NotImplemented) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code::METHOD_NOT_FOUND, "message": format!("method not implemented: {m}")}}),
        };
        if write_frame(&mut out, &frame).is_err() {
            return 1;
        }
    }
}
