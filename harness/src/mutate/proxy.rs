//! `clawspec mutant-proxy --operator ID -- ENGINE…`: a protocol-v1 engine
//! with one mutation operator applied. The proxy starts the real engine as
//! its child (same process group, so the driver's group kill and leak check
//! cover both), relays every line both ways, and lets the operator rewrite a
//! request before the engine sees it or the engine's answer before the host
//! does. Engine → host requests and their answers pass untouched.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::operators::{operator, Before, Operator};

type Pending = Arc<Mutex<BTreeMap<String, (String, Value)>>>;

fn emit(out: &Mutex<std::io::Stdout>, line: &str) {
    let mut o = out.lock().expect("stdout");
    // A closed stdout means the host is gone; the stdin loop ends too.
    let _ = writeln!(o, "{line}").and_then(|_| o.flush());
}

/// Runs the proxy; returns the process exit code.
pub fn run(op_id: &str, argv: &[String]) -> i32 {
    let Some(op) = operator(op_id) else {
        eprintln!("mutant-proxy: unknown operator {op_id:?}; see `clawspec mutate --list`");
        return 2;
    };
    let Some((program, args)) = argv.split_first() else {
        eprintln!("mutant-proxy: no engine command after --");
        return 2;
    };
    let mut child = match Command::new(program).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mutant-proxy: cannot start {program:?}: {e}");
            return 2;
        }
    };
    let mut to_engine = child.stdin.take().expect("piped stdin");
    let from_engine = child.stdout.take().expect("piped stdout");
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let pending: Pending = Arc::default();

    let (out2, pending2) = (out.clone(), pending.clone());
    let relay = std::thread::spawn(move || {
        for line in BufReader::new(from_engine).lines() {
            let Ok(line) = line else { break };
            emit(&out2, &rewrite_answer(op, &pending2, line));
        }
        // The engine closed stdout: exit with its status.
        let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
        std::process::exit(code);
    });

    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let frame: Option<Value> = serde_json::from_str(&line).ok();
        let request = frame.as_ref().and_then(|f| Some((f.get("id")?.clone(), f.get("method")?.as_str()?.to_string())));
        let Some((id, method)) = request.filter(|(_, m)| op.applies_to(m)) else {
            if writeln!(to_engine, "{line}").and_then(|_| to_engine.flush()).is_err() {
                break;
            }
            continue;
        };
        let params = frame.as_ref().and_then(|f| f.get("params")).cloned().unwrap_or(Value::Null);
        match (op.before)(&params) {
            Before::Forward => {
                pending.lock().expect("pending").insert(id.to_string(), (method, params));
                if writeln!(to_engine, "{line}").and_then(|_| to_engine.flush()).is_err() {
                    break;
                }
            }
            Before::Answer(result) => emit(&out, &json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()),
            Before::Throw(message) => {
                let error = json!({"code": clawspec_contract::protocol::code::ENGINE_THREW, "message": message});
                emit(&out, &json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string())
            }
            Before::Crash(code) => {
                eprintln!("mutant-proxy: {} — exiting during {method}", op.what);
                std::process::exit(code);
            }
        }
    }
    // The host closed stdin: so does the engine; the relay exits with it.
    drop(to_engine);
    let _ = relay.join();
    0
}

/// Apply the operator's `after` to an answer of a call it forwarded.
fn rewrite_answer(op: &Operator, pending: &Pending, line: String) -> String {
    let Ok(mut frame) = serde_json::from_str::<Value>(&line) else { return line };
    if frame.get("method").is_some() {
        return line; // an engine → host request or notification
    }
    let Some(id) = frame.get("id").map(Value::to_string) else { return line };
    let Some((_method, params)) = pending.lock().expect("pending").remove(&id) else { return line };
    let Some(result) = frame.get_mut("result") else { return line };
    *result = (op.after)(&params, result.take());
    frame.to_string()
}
