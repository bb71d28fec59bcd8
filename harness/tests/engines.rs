//! The built-in engines as real processes: `clawspec engine <name>` spawned
//! over real pipes and driven by a small synchronous JSON-RPC client written
//! here (independent of the harness driver), so protocol v1 as the engines
//! speak it is checked from the outside (docs/protocol.md).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// One engine process and its pipes; stderr is kept for failure messages.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Engine {
    fn spawn(name: &str) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_clawspec"))
            .args(["engine", name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn clawspec engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine { child, stdin, stdout, next_id: 0 }
    }

    fn send(&mut self, frame: &Value) {
        let mut line = serde_json::to_vec(frame).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).expect("write to engine");
        self.stdin.flush().unwrap();
    }

    /// The next stdout line, which must be one JSON-RPC 2.0 frame.
    fn read(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read engine stdout");
        assert!(n > 0, "engine closed stdout; stderr: {}", self.stderr());
        assert!(line.ends_with('\n'), "frame not newline-terminated: {line:?}");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("engine wrote a non-JSON line {line:?}: {e}"));
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        v
    }

    /// Send a request; answer engine→host requests with `host` until the
    /// response arrives. Returns (response, engine→host requests seen).
    fn call_with(&mut self, method: &str, params: Value, mut host: impl FnMut(&Value) -> Value) -> (Value, Vec<Value>) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut callbacks = Vec::new();
        loop {
            let frame = self.read();
            if frame.get("method").is_some() {
                let answer = host(&frame);
                self.send(&json!({"jsonrpc": "2.0", "id": frame["id"], "result": answer}));
                callbacks.push(frame);
                continue;
            }
            assert_eq!(frame["id"], id, "response to another request: {frame}");
            return (frame, callbacks);
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let (r, cbs) = self.call_with(method, params, |f| panic!("unexpected host request {f}"));
        assert!(cbs.is_empty());
        r
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let r = self.call(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    fn initialize(&mut self) -> Value {
        self.result(
            "initialize",
            json!({"protocolVersion": 1, "profile": "openclaw-2026.9.6", "host": {"name": "engines-test", "version": "0", "language": "rust"},
                "offers": {"callbacks": ["llm.complete", "rewriteTranscriptEntries", "delegateCompaction"], "capabilities": [], "abortNotifications": true}}),
        )
    }

    /// `shutdown` answers `{}`, nothing else follows on stdout, and the
    /// process exits 0 on its own.
    fn shutdown(mut self) {
        let r = self.result("shutdown", json!({}));
        assert_eq!(r, json!({}));
        drop(self.stdin);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        assert_eq!(rest, "", "stdout after shutdown");
        let status = self.child.wait().unwrap();
        assert_eq!(status.code(), Some(0));
    }

    fn stderr(&mut self) -> String {
        let _ = self.child.kill();
        let mut s = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    }
}

const TEN: &str = "0123456789012345678901234567890123456789";

fn conversation(turns: u64) -> Value {
    json!((0..turns)
        .flat_map(|i| {
            [
                json!({"role": "user", "content": format!("{TEN} q{i}"), "timestamp": 1_767_225_600_000u64 + 2 * i}),
                json!({"role": "assistant", "content": [{"type": "text", "text": format!("{TEN} a{i}")}], "timestamp": 1_767_225_600_001u64 + 2 * i}),
            ]
        })
        .collect::<Vec<_>>())
}

#[test]
fn window_lifecycle_over_real_pipes() {
    let mut e = Engine::spawn("window");
    let init = e.initialize();
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["info"]["id"], "window");
    assert_eq!(init["info"]["transcriptSemantics"]["turnAdvancementIdempotency"], "atomic-idempotent-v1");
    assert!(init["methods"].as_array().unwrap().contains(&json!("commitTurn")));

    let ms = conversation(10);
    for m in ms.as_array().unwrap() {
        assert_eq!(e.result("ingest", json!({"sessionId": "s1", "message": m})), json!({"ingested": true}));
    }
    // Ingesting the same message again is idempotent.
    assert_eq!(e.result("ingest", json!({"sessionId": "s1", "message": ms[0]})), json!({"ingested": false}));

    let mut live = ms.clone();
    live.as_array_mut().unwrap().push(json!({"role": "user", "content": "the current question", "timestamp": 1_767_225_700_000u64}));
    let asm = e.result("assemble", json!({"sessionId": "s1", "messages": live, "tokenBudget": 60, "unknownFutureParam": {"x": 1}}));
    let kept = asm["messages"].as_array().unwrap();
    assert_eq!(kept.last().unwrap()["content"], "the current question", "the live turn is kept");
    assert!(kept.len() < 21, "fitted to the budget");
    let est = asm["estimatedTokens"].as_u64().unwrap();
    assert!(est <= 60, "{est}");

    let (r, callbacks) = e.call_with(
        "compact",
        json!({"sessionId": "s1", "sessionKey": "agent:main:main", "tokenBudget": 100, "force": true, "currentTokenCount": 400, "compactionTarget": "budget", "abortSignal": {"$abortSignal": "sig-1"}}),
        |f| {
            assert_eq!(f["method"], "host/llm.complete");
            json!({"text": "Summary: ten turns of q and a."})
        },
    );
    let compact_id = e.next_id;
    assert_eq!(callbacks.len(), 1);
    assert_eq!(callbacks[0]["params"]["forCall"], compact_id);
    assert!(callbacks[0]["id"].as_u64().unwrap() >= 1_000_000, "engine-chosen ids stay apart from the host's");
    let r = &r["result"];
    assert_eq!(r["ok"], true);
    assert_eq!(r["compacted"], true);
    assert_eq!(r["result"]["summary"], "Summary: ten turns of q and a.");
    assert_eq!(r["result"]["tokensBefore"], 400);
    let after = r["result"]["tokensAfter"].as_u64().unwrap();
    assert!(after < 100, "{after}");

    // The next assemble starts with the summary and is as big as compact said.
    let asm = e.result("assemble", json!({"sessionId": "s1", "messages": ms}));
    assert_eq!(asm["messages"][0]["role"], "compactionSummary");
    assert_eq!(asm["estimatedTokens"].as_u64(), Some(after));

    e.shutdown();
}

#[test]
fn window_compact_with_nothing_to_compact_asks_nobody() {
    let mut e = Engine::spawn("window");
    e.initialize();
    let r = e.result("compact", json!({"sessionId": "empty", "tokenBudget": 1000}));
    assert_eq!(r, json!({"ok": true, "compacted": false, "reason": "nothing to compact"}));
    e.shutdown();
}

#[test]
fn window_bootstrap_reads_the_session_file_once() {
    let dir = std::env::temp_dir().join(format!("clawspec-engines-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    let mut text = json!({"type": "session", "version": 3, "id": "s", "timestamp": 0, "cwd": "/w"}).to_string() + "\n";
    for (i, m) in conversation(2).as_array().unwrap().iter().enumerate() {
        text += &(json!({"type": "message", "id": format!("e{i}"), "parentId": null, "timestamp": i, "message": m}).to_string() + "\n");
    }
    std::fs::write(&path, text).unwrap();
    let mut e = Engine::spawn("window");
    e.initialize();
    let p = json!({"sessionId": "s", "sessionFile": path});
    assert_eq!(e.result("bootstrap", p.clone()), json!({"bootstrapped": true, "importedMessages": 4}));
    assert_eq!(e.result("bootstrap", p), json!({"bootstrapped": true, "importedMessages": 0}));
    e.shutdown();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn legacy_is_openclaws_legacy_engine() {
    let mut e = Engine::spawn("legacy");
    let init = e.initialize();
    assert_eq!(init["info"], json!({"id": "legacy", "name": "Legacy Context Engine", "version": "1.0.0"}));
    assert_eq!(init["methods"], json!([]));
    assert_eq!(e.result("ingest", json!({"sessionId": "s", "message": {"role": "user", "content": "hi"}})), json!({"ingested": false}));

    // assemble: the same array, byte for byte, whatever it holds.
    let mut ms = conversation(3);
    ms.as_array_mut().unwrap().push(json!({"role": "custom", "customType": "x", "content": "c", "vendor": [1, {"y": null}]}));
    let asm = e.result("assemble", json!({"sessionId": "s", "messages": ms, "tokenBudget": 1}));
    assert_eq!(asm, json!({"messages": ms, "estimatedTokens": 0}));

    // compact = delegateCompactionToRuntime: the params go to the host, its answer comes back.
    let params = json!({"sessionId": "s", "sessionKey": "k", "tokenBudget": 1000, "force": true, "compactionTarget": "threshold", "customInstructions": "keep names"});
    let runtime = json!({"ok": true, "compacted": true, "result": {"summary": "runtime summary", "firstKeptEntryId": "e7", "tokensBefore": 900, "tokensAfter": 120}});
    let (r, callbacks) = e.call_with("compact", params.clone(), |f| {
        assert_eq!(f["method"], "host/delegateCompaction");
        runtime.clone()
    });
    assert_eq!(callbacks.len(), 1);
    assert_eq!(callbacks[0]["params"], params);
    assert_eq!(r["result"], runtime);

    // Optional methods are not there.
    for m in ["bootstrap", "afterTurn", "commitTurn", "rollback", "maintain", "dispose"] {
        assert_eq!(e.call(m, json!({"sessionId": "s"}))["error"]["code"], -32601, "{m}");
    }
    e.shutdown();
}

#[test]
fn legacy_compact_fails_when_the_runtime_fails() {
    let mut e = Engine::spawn("legacy");
    e.initialize();
    e.next_id += 1;
    let id = e.next_id;
    e.send(&json!({"jsonrpc": "2.0", "id": id, "method": "compact", "params": {"sessionId": "s"}}));
    let cb = e.read();
    assert_eq!(cb["method"], "host/delegateCompaction");
    e.send(&json!({"jsonrpc": "2.0", "id": cb["id"], "error": {"code": -32000, "message": "compaction exploded"}}));
    let r = e.read();
    assert_eq!(r["id"], id);
    assert_eq!(r["error"]["code"], -32000);
    assert_eq!(r["error"]["message"], "compaction exploded");
    e.shutdown();
}

#[test]
fn unsupported_protocol_version_is_refused_then_1_works() {
    for name in ["window", "legacy"] {
        let mut e = Engine::spawn(name);
        let r = e.call("initialize", json!({"protocolVersion": 2}));
        assert_eq!(r["error"]["code"], -32010, "{name}: {r}");
        assert_eq!(r["error"]["data"], json!({"supported": [1]}));
        assert_eq!(e.initialize()["protocolVersion"], 1);
        e.shutdown();
    }
}

#[test]
fn errors_are_named_and_the_engine_keeps_serving() {
    let mut e = Engine::spawn("window");
    e.initialize();
    assert_eq!(e.call("noSuchMethod", json!({}))["error"]["code"], -32601);
    let bad = e.call("assemble", json!({"sessionId": "s", "messages": [{"role": "tool", "content": "x"}]}));
    assert_eq!(bad["error"]["code"], -32000);
    assert!(bad["error"]["message"].as_str().unwrap().contains("cannot read messages"), "{bad}");
    let ok = e.result("assemble", json!({"sessionId": "s", "messages": []}));
    assert_eq!(ok, json!({"messages": [], "estimatedTokens": 0}));
    e.shutdown();
}

#[test]
fn window_mutant_is_served_and_defective() {
    let mut e = Engine::spawn("window:nan-tokens");
    e.initialize();
    let r = e.result("assemble", json!({"sessionId": "s", "messages": [{"role": "user", "content": "hi"}]}));
    assert_eq!(r["estimatedTokens"], Value::Null);
    e.shutdown();
}

#[test]
fn unknown_engines_exit_2_with_a_message() {
    for name in ["nope", "window:no-such-mutation", "legacy:x"] {
        let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(["engine", name]).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unknown") && (err.contains("built-ins: legacy, window") || err.contains("mutations: ")), "{name}: {err}");
    }
}

#[test]
fn eof_without_shutdown_ends_the_engine() {
    let mut e = Engine::spawn("window");
    e.initialize();
    drop(e.stdin);
    let status = e.child.wait().unwrap();
    assert!(status.success());
}
