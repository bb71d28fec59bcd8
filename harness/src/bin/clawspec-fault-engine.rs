//! A deliberately misbehaving engine for the driver's tests and for users who
//! want to see how clawspec reports engine faults: one mode per misbehaviour.
//!
//!     clawspec-fault-engine <mode>
//!
//! Modes: echo (well-behaved: answers every call with its params — the
//! benchmark floor), crash-at-start, crash-mid-call, hang, non-json,
//! partial-line, wrong-id, oversized, invalid-utf8, exit0-early, stderr-flood, log-flood,
//! bad-version, ignore-shutdown, spawn-grandchild-and-hang, abort-aware,
//! llm-callback, throw, close-stdout (closes stdout, keeps running),
//! exit0-after-handshake, hang-in-handshake, hostile (answers every call with
//! what it could see and do: environment, writes outside its state dir,
//! `/proc/<ppid>/environ`, signalling its parent), setsid-child (starts a
//! `setsid sleep` and otherwise behaves), daemon-child (a double-forked,
//! environment-scrubbed sleep), daemon-away (the same, also leaving the
//! state dir: nothing ties it to a run), stderr-burst (20 MiB on stderr, then
//! an immediate answer), escapes-at-start (terminal escapes on stderr, then
//! exit).

use std::io::{BufRead, Write};

use serde_json::{json, Value};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "echo".into());
    if mode == "crash-at-start" {
        eprintln!("fault-engine: crashing at start");
        std::process::exit(7);
    }
    if mode == "escapes-at-start" {
        eprintln!("fault-engine: \u{1b}]0;PWNED\u{7}\u{1b}[2J\rCERTIFIED");
        std::process::exit(3);
    }
    if mode == "daemon-away" {
        let _ = std::process::Command::new("sh").args(["-c", "(setsid env -i sh -c 'cd / && exec sleep 3600' &) ; exit 0"]).status();
    }
    if mode == "daemon-child" {
        // The classic daemon: fork, setsid, fork again, the middle one exits,
        // and the grandchild scrubs its environment.
        let _ = std::process::Command::new("sh").args(["-c", "(setsid env -i sleep 3600 &) ; exit 0"]).status();
    }
    if mode == "setsid-child" {
        let c = std::process::Command::new("setsid").args(["sleep", "3600"]).spawn().expect("setsid sleep");
        eprintln!("setsid child pid {}", c.id());
        std::mem::forget(c);
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
            if mode == "hang-in-handshake" {
                eprintln!("fault-engine: hanging in initialize");
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            // Refuses one release's profile only: it speaks the protocol under the others.
            let refused_here = mode == "bad-version-under-2026.4.26" && req["params"]["profile"] == "openclaw-2026.4.26";
            if mode == "bad-version" || refused_here {
                send(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32010,"message":"unsupported protocol version","data":{"supported":[2]}}}));
                continue;
            }
            send(json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":1,
                "info":{"id":"fault","name":format!("fault engine ({mode})")},"methods":[],
                "implementation":{"name":"clawspec-fault-engine","version":env!("CARGO_PKG_VERSION"),"language":"rust"}}}));
            if mode == "exit0-after-handshake" {
                return;
            }
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
            "echo" | "setsid-child" | "daemon-child" | "daemon-away" | "bad-version-under-2026.4.26" | "ignore-shutdown" => send(json!({"jsonrpc":"2.0","id":id,"result":params})),
            "hostile" => send(json!({"jsonrpc":"2.0","id":id,"result":hostile_probe()})),
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
            "close-stdout" => {
                eprintln!("fault-engine: stdout closed, still running");
                // SAFETY: closing our own stdout descriptor.
                unsafe {
                    libc::close(1);
                }
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
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
            "stderr-burst" => {
                // Past the 16 MiB cap, but fast: the answer follows at once,
                // likely before the driver's periodic check.
                let chunk = "b".repeat(64 * 1024);
                let mut err = std::io::stderr().lock();
                for _ in 0..320 {
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

/// What an untrusted engine can see and do. Every attempt is reported, so a
/// test can assert on each one.
fn hostile_probe() -> Value {
    let env: std::collections::BTreeMap<String, String> = std::env::vars().collect();
    let try_write = |p: &std::path::Path| match std::fs::write(p, "pwned") {
        Ok(()) => {
            let _ = std::fs::remove_file(p);
            "written".to_string()
        }
        Err(e) => e.to_string(),
    };
    let outside: Vec<Value> = std::env::args()
        .skip(2)
        .map(|p| json!({"path": p, "result": try_write(std::path::Path::new(&p))}))
        .collect();
    let home = std::env::var("HOME").unwrap_or_default();
    let cwd = std::env::current_dir().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
    let ppid = std::os::unix::process::parent_id();
    let parent_environ = match std::fs::read(format!("/proc/{ppid}/environ")) {
        Ok(b) => String::from_utf8_lossy(&b).replace('\0', "\n"),
        Err(e) => format!("error: {e}"),
    };
    let own_environ = std::fs::read(format!("/proc/self/environ")).map(|b| String::from_utf8_lossy(&b).replace('\0', "\n")).unwrap_or_default();
    // Signal 0 only checks permission: nothing is delivered.
    // SAFETY: kill with signal 0 has no effect on the target.
    let signal_parent = if unsafe { libc::kill(ppid as i32, 0) } == 0 { "allowed".to_string() } else { std::io::Error::last_os_error().to_string() };
    let in_state = std::path::Path::new(&cwd).join("engine-wrote-this");
    json!({
        "env": env,
        "home": home,
        "cwd": cwd,
        "tmpdir": std::env::var("TMPDIR").unwrap_or_default(),
        "writeOutside": outside,
        "writeHome": try_write(&std::path::Path::new(&home).join("x")),
        "writeStateDir": try_write(&in_state),
        "parentEnviron": parent_environ,
        "ownEnviron": own_environ,
        "signalParent": signal_parent,
    })
}
