//! A deliberately misbehaving engine for the driver's tests and for users who
//! want to see how clawspec reports engine faults: one mode per misbehaviour.
//!
//!     clawspec-fault-engine <mode>
//!
//! Modes: echo (well-behaved: answers every call with its params — the
//! benchmark floor), crash-at-start, crash-mid-call, hang, non-json,
//! partial-line, wrong-id, oversized, invalid-utf8, exit0-early, stderr-flood, log-flood,
//! bad-version, ignore-shutdown, spawn-grandchild-and-hang, abort-aware,
//! llm-callback, throw.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "echo".into());
    if mode == "crash-at-start" {
        eprintln!("fault-engine: crashing at start");
        std::process::exit(7);
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut lines = stdin.lock().lines();
    let mut calls = 0u32;
    while let Some(Ok(line)) = lines.next() {
        let req: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(_) => continue,
        };
        let Some(id) = req.get("id").cloned() else { continue };
        let method = req["method"].as_str().unwrap_or_default().to_string();
        let mut send = |v: Value| {
            let mut b = serde_json::to_vec(&v).unwrap();
            b.push(b'\n');
            let _ = out.write_all(&b);
            let _ = out.flush();
        };
        if method == "initialize" {
            if mode == "bad-version" {
                send(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32010,"message":"unsupported protocol version","data":{"supported":[2]}}}));
                continue;
            }
            send(json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":1,
                "info":{"id":"fault","name":format!("fault engine ({mode})")},"methods":[],
                "implementation":{"name":"clawspec-fault-engine","version":env!("CARGO_PKG_VERSION"),"language":"rust"}}}));
            continue;
        }
        if method == "shutdown" {
            if mode == "ignore-shutdown" {
                send(json!({"jsonrpc":"2.0","id":id,"result":{}}));
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            send(json!({"jsonrpc":"2.0","id":id,"result":{}}));
            return;
        }
        calls += 1;
        let params = req.get("params").cloned().unwrap_or(Value::Null);
        match mode.as_str() {
            "echo" => send(json!({"jsonrpc":"2.0","id":id,"result":params})),
            "throw" => send(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32000,"message":"boom from the engine"}})),
            "crash-mid-call" => {
                eprintln!("fault-engine: panicking inside {method}");
                std::process::exit(101);
            }
            "hang" => {
                eprintln!("fault-engine: hanging in {method}");
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            "non-json" => {
                let _ = writeln!(out, "Loading plugin... done");
                let _ = out.flush();
            }
            "partial-line" => {
                let _ = write!(out, "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"res");
                let _ = out.flush();
                return;
            }
            "wrong-id" => send(json!({"jsonrpc":"2.0","id":9999,"result":{}})),
            "oversized" => {
                let big = "x".repeat(2 * 1024 * 1024);
                send(json!({"jsonrpc":"2.0","id":id,"result":{"blob":big}}));
            }
            "invalid-utf8" => {
                let _ = out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\xfe\"}\n");
                let _ = out.flush();
            }
            "exit0-early" => return,
            "stderr-flood" => {
                let chunk = "e".repeat(64 * 1024);
                let mut err = std::io::stderr().lock();
                for _ in 0..4096 {
                    if writeln!(err, "{chunk}").is_err() {
                        break;
                    }
                }
                send(json!({"jsonrpc":"2.0","id":id,"result":{}}));
            }
            "log-flood" => {
                let chunk = "l".repeat(64 * 1024);
                for _ in 0..4096 {
                    send(json!({"jsonrpc":"2.0","method":"$/log","params":{"level":"info","message":chunk}}));
                }
                send(json!({"jsonrpc":"2.0","id":id,"result":{}}));
            }
            "spawn-grandchild-and-hang" => {
                let child = std::process::Command::new("sleep").arg("3600").spawn().expect("spawn sleep");
                eprintln!("grandchild pid {}", child.id());
                std::mem::forget(child);
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            "abort-aware" => {
                // Wait for `$/abort`, then reject with an abort error.
                for l in lines.by_ref() {
                    let Ok(l) = l else { return };
                    let v: Value = serde_json::from_str(&l).unwrap_or(Value::Null);
                    if v["method"] == "$/abort" {
                        send(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32001,"message":"This operation was aborted"}}));
                        break;
                    }
                }
            }
            "llm-callback" => {
                send(json!({"jsonrpc":"2.0","id":5_000_000 + calls,"method":"host/llm.complete","params":{"forCall":id,"messages":[{"role":"user","content":"summarise"}]}}));
                let answer: Value = lines.next().and_then(|l| l.ok()).and_then(|l| serde_json::from_str(&l).ok()).unwrap_or(Value::Null);
                send(json!({"jsonrpc":"2.0","id":id,"result":{"echo":answer["result"]}}));
            }
            other => {
                eprintln!("fault-engine: unknown mode {other}");
                std::process::exit(2);
            }
        }
    }
}
