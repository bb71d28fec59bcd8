//! Engine side of protocol v1 (docs/protocol.md), shared by every built-in
//! engine: a synchronous server on stdin/stdout. One request line in, one
//! response line out, flushed per line; stdout carries protocol frames only
//! (diagnostics go to stderr). Handlers may call back into the host mid-call
//! through [`HostLink`].
//!
//! A reader thread owns stdin so that a `$/abort` notification is recorded the
//! moment it arrives, even while a handler is busy and not reading: a
//! long-running handler polls [`HostLink::is_aborted`] (OpenClaw's
//! `abortSignal.aborted`). Every other line goes to the serving thread in order.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use clawspec_contract::protocol::{code, method, PROTOCOL_VERSION};

use crate::driver::delta::{self, Messages, Out};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

/// How a handler fails: a JS-style throw (`-32000`), a method the engine does
/// not implement (`-32601`), or an abort rejection (`-32001`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    Threw(String),
    NotImplemented,
    Aborted,
}

pub type Outcome = Result<Value, Fail>;

/// What [`Engine::call_shared`] answers: a result as JSON, or a result
/// whose `messages` are shared messages that the server writes itself, at
/// the place of the result's `messages` key (which holds `null` until
/// then; appended last when absent). The bytes are those of the same
/// result with `messages` as a JSON array, delta-encoded as
/// [`delta::Decoder::encode_result`] would encode it, but a message passed
/// through is matched by pointer and never compared or written.
#[derive(Debug)]
pub enum Reply {
    Value(Value),
    Messages { result: Value, messages: Vec<Out> },
    /// As `Messages`, the messages being all those the request carried, as
    /// sent, in order (a pass-through): kept whole without looking at them.
    Sent { result: Value, messages: Messages },
}

/// Engine→host request ids start here so they can never be mistaken for the
/// host's own small integer ids in a trace.
pub const FIRST_HOST_REQUEST_ID: u64 = 1_000_000;

/// A context engine as the server sees it: one method per OpenClaw lifecycle
/// method. Params are OpenClaw's params object as JSON, untouched, so unknown
/// fields are tolerated (and handlers may move large values such as
/// `messages` out instead of copying them). Only `ingest`, `assemble` and
/// `compact` are required (openclaw `src/context-engine/registry-contract.ts`);
/// every optional method answers `-32601` unless the engine overrides it.
/// The engine must list what it overrides in `initialize`'s `methods`.
pub trait Engine {
    /// The `initialize` result without `protocolVersion`: `info`, `methods`,
    /// `implementation`. `params` is the host's `InitializeParams`.
    fn initialize(&mut self, params: &Value) -> Value;

    fn ingest(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome;
    fn assemble(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome;
    fn compact(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome;

    fn bootstrap(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn maintain(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn ingest_batch(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn after_turn(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn commit_turn(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn prepare_subagent_spawn(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn on_subagent_ended(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn dispose(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    /// Invoke a `{"$handle"}` returned by `prepareSubagentSpawn` (`{handle}`).
    fn rollback(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }
    fn sanitize(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Err(Fail::NotImplemented)
    }

    /// Entry point for every request other than `initialize`/`shutdown`.
    /// Override to wrap all methods (the window engine's mutations do); call
    /// [`dispatch`] for the per-method behaviour.
    fn call(&mut self, method: &str, params: Value, host: &mut HostLink<'_>) -> Outcome {
        dispatch(self, method, params, host)
    }

    /// Entry point instead of [`Engine::call`] for a request whose
    /// top-level `messages` the server decoded (`messageDelta` accepted):
    /// `messages` is the decoded array, shared with the decoder, and
    /// `params.messages` is `null` at its place. OpenClaw sends the whole
    /// history with every `assemble`, so an engine that reads it as shared
    /// messages (each parsed once per process) and answers with them
    /// ([`Reply::Messages`]) costs a pointer per kept message, not a copy.
    /// The default puts the array back and calls [`Engine::call`]: exactly
    /// the params the engine would see without the capability.
    fn call_shared(&mut self, method: &str, mut params: Value, messages: Messages, host: &mut HostLink<'_>) -> Result<Reply, Fail> {
        messages.put_into(&mut params);
        self.call(method, params, host).map(Reply::Value)
    }
}

/// Route a lifecycle method name to the engine's method.
pub fn dispatch<E: Engine + ?Sized>(e: &mut E, m: &str, params: Value, host: &mut HostLink<'_>) -> Outcome {
    match m {
        method::INGEST => e.ingest(params, host),
        method::ASSEMBLE => e.assemble(params, host),
        method::COMPACT => e.compact(params, host),
        method::BOOTSTRAP => e.bootstrap(params, host),
        method::MAINTAIN => e.maintain(params, host),
        method::INGEST_BATCH => e.ingest_batch(params, host),
        method::AFTER_TURN => e.after_turn(params, host),
        method::COMMIT_TURN => e.commit_turn(params, host),
        method::PREPARE_SUBAGENT_SPAWN => e.prepare_subagent_spawn(params, host),
        method::ON_SUBAGENT_ENDED => e.on_subagent_ended(params, host),
        method::DISPOSE => e.dispose(params, host),
        method::ROLLBACK => e.rollback(params, host),
        method::SANITIZE => e.sanitize(params, host),
        _ => Err(Fail::NotImplemented),
    }
}

/// The host's error answer to an engine→host request.
#[derive(Debug, Clone, PartialEq)]
pub struct HostError {
    pub code: i64,
    pub message: String,
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (host error {})", self.message, self.code)
    }
}

/// Signal ids named by `$/abort` notifications so far.
type Aborted = Arc<Mutex<BTreeSet<String>>>;

/// What a handler can do besides compute: send `host/...` requests and see
/// which abort signals have fired.
pub struct HostLink<'a> {
    lines: &'a Receiver<Vec<u8>>,
    out: &'a mut dyn Write,
    next_id: &'a mut u64,
    aborted: &'a Aborted,
    /// The id of the host request being handled (`forCall` of `host/llm.complete`).
    pub current_call: Value,
}

impl HostLink<'_> {
    /// Send an engine→host request and block until its response. Lines seen
    /// meanwhile that are not that response are reported on stderr and dropped
    /// (the host sends one request at a time; aborts are recorded by the reader).
    pub fn request(&mut self, m: &str, params: Value) -> Result<Value, HostError> {
        let id = *self.next_id;
        *self.next_id += 1;
        let closed = |what: String| HostError { code: code::INTERNAL_ERROR, message: what };
        write_frame(self.out, &json!({"jsonrpc": "2.0", "id": id, "method": m, "params": params}))
            .map_err(|e| closed(format!("cannot write {m}: {e}")))?;
        loop {
            let Ok(line) = self.lines.recv() else {
                return Err(closed(format!("host closed stdin before answering {m}")));
            };
            let v: Value = match serde_json::from_slice(&line) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!("engine: ignoring a host line that is not JSON while waiting for {m}: {e}");
                    continue;
                }
            };
            if v.get("id").and_then(Value::as_u64) != Some(id) || v.get("method").is_some() {
                eprintln!("engine: ignoring an unexpected host frame while waiting for {m} (id {id})");
                continue;
            }
            return match v.get("error") {
                Some(e) => Err(HostError {
                    code: e.get("code").and_then(Value::as_i64).unwrap_or(code::INTERNAL_ERROR),
                    message: e.get("message").and_then(Value::as_str).unwrap_or("host error").to_string(),
                }),
                None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
            };
        }
    }

    /// Has the `$/abort` for `signal` (a `{"$abortSignal": id}` id) arrived?
    pub fn is_aborted(&self, signal: Option<&str>) -> bool {
        signal.is_some_and(|s| self.aborted.lock().map(|set| set.contains(s)).unwrap_or(false))
    }
}

/// The signal id of a params object's `abortSignal` (`{"$abortSignal":"sig-1"}`).
pub fn abort_signal(params: &Value) -> Option<String> {
    params.get("abortSignal")?.get("$abortSignal")?.as_str().map(str::to_string)
}

fn write_frame(out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A result ready to write: as JSON, or with shared `messages`: `keep` of
/// them sent as kept from request `id` (a result delta; 0: none), then
/// `append`.
enum Answer {
    Value(Value),
    Messages { result: Value, keep: usize, append: Vec<Out> },
}

/// [`Answer::Messages`] serialised: the result's entries in order, its
/// `messages` written from the shared messages, as a delta when `keep > 0`.
struct WithMessages<'a> {
    result: &'a Value,
    base: &'a Value,
    keep: usize,
    append: &'a [Out],
}

/// `{"$delta":{"base":…,"keep":…,"append":[…]}}`, key for key what
/// [`delta::Decoder::encode_result`] puts in a JSON result.
#[derive(Serialize)]
struct ResultDelta<'a> {
    #[serde(rename = "$delta")]
    delta: ResultDeltaBody<'a>,
}

#[derive(Serialize)]
struct ResultDeltaBody<'a> {
    base: &'a Value,
    keep: usize,
    append: &'a [Out],
}

impl WithMessages<'_> {
    fn messages<S: SerializeMap>(&self, map: &mut S) -> Result<(), S::Error> {
        if self.keep > 0 {
            map.serialize_entry("messages", &ResultDelta { delta: ResultDeltaBody { base: self.base, keep: self.keep, append: self.append } })
        } else {
            map.serialize_entry("messages", self.append)
        }
    }
}

impl Serialize for WithMessages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let empty = serde_json::Map::new();
        let obj = self.result.as_object().unwrap_or(&empty);
        let mut map = s.serialize_map(None)?;
        for (k, v) in obj {
            if k == "messages" {
                self.messages(&mut map)?;
            } else {
                map.serialize_entry(k, v)?;
            }
        }
        if !obj.contains_key("messages") {
            self.messages(&mut map)?;
        }
        map.end()
    }
}

/// Write a response without building a frame object around a possibly large
/// result (an assemble of 10 000 messages is serialised once, straight out).
fn write_response(out: &mut dyn Write, id: &Value, outcome: Result<&Answer, Value>) -> std::io::Result<()> {
    out.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
    serde_json::to_writer(&mut *out, id)?;
    match outcome {
        Ok(Answer::Value(result)) => {
            out.write_all(br#","result":"#)?;
            serde_json::to_writer(&mut *out, result)?;
        }
        Ok(Answer::Messages { result, keep, append }) => {
            out.write_all(br#","result":"#)?;
            serde_json::to_writer(&mut *out, &WithMessages { result, base: id, keep: *keep, append })?;
        }
        Err(error) => {
            out.write_all(br#","error":"#)?;
            serde_json::to_writer(&mut *out, &error)?;
        }
    }
    out.write_all(b"}\n")?;
    out.flush()
}

fn error(c: i64, message: impl Into<String>) -> Value {
    json!({"code": c, "message": message.into()})
}

/// Start the reader thread: records `$/abort` notifications, forwards every
/// other non-blank line. Ends at EOF or a read error (reported on stderr).
fn spawn_reader<R: BufRead + Send + 'static>(mut input: R, aborted: Aborted) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("engine-stdin".into())
        .spawn(move || loop {
            let mut line = Vec::new();
            match input.read_until(b'\n', &mut line) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) => {
                    eprintln!("engine: cannot read stdin: {e}");
                    return;
                }
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Some(signal) = abort_notification(&line) {
                if let Ok(mut set) = aborted.lock() {
                    set.insert(signal);
                }
                continue;
            }
            if tx.send(line).is_err() {
                return;
            }
        })
        .expect("spawn the stdin reader");
    rx
}

/// `Some(signal)` if the line is a `$/abort` notification. Only lines that
/// mention the method name are parsed here, so big requests are parsed once.
fn abort_notification(line: &[u8]) -> Option<String> {
    const NEEDLE: &[u8] = b"\"$/abort\"";
    if !line.windows(NEEDLE.len()).any(|w| w == NEEDLE) {
        return None;
    }
    let v: Value = serde_json::from_slice(line).ok()?;
    if v.get("method")?.as_str()? != method::ABORT || v.get("id").is_some() {
        return None;
    }
    v.get("params")?.get("signal")?.as_str().map(str::to_string)
}

/// Serve `engine` on this process's stdin/stdout until `shutdown` (exit code
/// 0) or EOF (0: the host went away). Returns the process exit code.
pub fn serve(engine: &mut dyn Engine) -> i32 {
    let input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    serve_on(engine, input, &mut out)
}

/// [`serve`] over any byte streams (tests drive it in memory).
pub fn serve_on<R: BufRead + Send + 'static>(engine: &mut dyn Engine, input: R, out: &mut dyn Write) -> i32 {
    let aborted: Aborted = Arc::default();
    let lines = spawn_reader(input, aborted.clone());
    let mut next_id = FIRST_HOST_REQUEST_ID;
    // Set once the host offered `messageDelta` and we accepted it: handlers
    // then see full arrays, exactly as without it.
    let mut deltas: Option<delta::Decoder> = None;
    while let Ok(line) = lines.recv() {
        let mut req: Value = match serde_json::from_slice(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("engine: a line that is not JSON: {e}");
                if write_response(out, &Value::Null, Err(error(code::PARSE_ERROR, format!("parse error: {e}")))).is_err() {
                    return 1;
                }
                continue;
            }
        };
        let Some(id) = req.get("id").cloned() else {
            // Notifications other than `$/abort` (handled by the reader) carry nothing for us.
            continue;
        };
        if req.get("method").is_none() && (req.get("result").is_some() || req.get("error").is_some()) {
            // A response nobody is waiting for (e.g. to a host request whose
            // handler gave up): JSON-RPC never answers a response.
            eprintln!("engine: ignoring a response to no pending request (id {id})");
            continue;
        }
        let Some(m) = req.get("method").and_then(Value::as_str).map(str::to_string) else {
            eprintln!("engine: a request without a method (id {id})");
            if write_response(out, &id, Err(error(code::INVALID_REQUEST, "request has no method"))).is_err() {
                return 1;
            }
            continue;
        };
        let mut params = req.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        // The decoded array, shared with the decoder, for the engine's
        // `call_shared`; the handshake's own methods get it back in params.
        let mut shared: Option<Messages> = None;
        if let Some(d) = deltas.as_mut() {
            match d.decode_shared(&id, &m, &mut params) {
                Ok(s) => shared = s,
                Err(e) => {
                    eprintln!("engine: {m}: bad message delta: {e}");
                    if write_response(out, &id, Err(error(code::INVALID_PARAMS, format!("bad message delta: {e}")))).is_err() {
                        return 1;
                    }
                    continue;
                }
            }
        }
        if matches!(m.as_str(), method::INITIALIZE | method::SHUTDOWN) {
            if let Some(s) = shared.take() {
                s.put_into(&mut params);
            }
        }
        let outcome: Result<Answer, Value> = match m.as_str() {
            method::INITIALIZE => {
                let v = params.get("protocolVersion");
                if v.and_then(Value::as_u64) != Some(u64::from(PROTOCOL_VERSION)) {
                    let shown = v.map_or("none".to_string(), Value::to_string);
                    eprintln!("engine: refusing protocol version {shown}; this engine speaks {PROTOCOL_VERSION}");
                    let mut e = error(code::UNSUPPORTED_PROTOCOL_VERSION, format!("unsupported protocol version {shown}; supported: [{PROTOCOL_VERSION}]"));
                    e["data"] = json!({"supported": [PROTOCOL_VERSION]});
                    Err(e)
                } else {
                    let mut r = engine.initialize(&params);
                    r["protocolVersion"] = json!(PROTOCOL_VERSION);
                    if delta::offered(&params) {
                        r[delta::CAPABILITY] = json!(delta::VERSION);
                        deltas = Some(delta::Decoder::default());
                    }
                    Ok(Answer::Value(r))
                }
            }
            method::SHUTDOWN => {
                let _ = write_response(out, &id, Ok(&Answer::Value(json!({}))));
                return 0;
            }
            _ => {
                let mut link = HostLink { lines: &lines, out: &mut *out, next_id: &mut next_id, aborted: &aborted, current_call: id.clone() };
                // A Rust panic in a handler is the engine's bug; answer it as
                // a throw (as OpenClaw would see a JS exception) and go on.
                let called = catch_unwind(AssertUnwindSafe(|| match shared {
                    Some(messages) => engine.call_shared(&m, params, messages, &mut link),
                    None => engine.call(&m, params, &mut link).map(Reply::Value),
                }));
                match called {
                    Ok(Ok(Reply::Value(mut v))) => {
                        if let Some(d) = &deltas {
                            d.encode_result(&id, &m, &mut v);
                        }
                        Ok(Answer::Value(v))
                    }
                    Ok(Ok(Reply::Messages { result, mut messages })) => {
                        let keep = deltas.as_ref().map_or(0, |d| d.result_keep(&id, &m, &messages));
                        let append = messages.split_off(keep);
                        Ok(Answer::Messages { result, keep, append })
                    }
                    Ok(Ok(Reply::Sent { result, messages })) => match deltas.as_ref().and_then(|d| d.result_keeps_all(&id, &m, &messages)) {
                        Some(keep) => Ok(Answer::Messages { result, keep, append: Vec::new() }),
                        None => {
                            let mut messages: Vec<Out> = messages.items().iter().cloned().map(Out::Sent).collect();
                            let keep = deltas.as_ref().map_or(0, |d| d.result_keep(&id, &m, &messages));
                            let append = messages.split_off(keep);
                            Ok(Answer::Messages { result, keep, append })
                        }
                    },
                    Ok(Err(Fail::Threw(msg))) => Err(error(code::ENGINE_THREW, msg)),
                    Ok(Err(Fail::Aborted)) => Err(error(code::ABORTED, "This operation was aborted")),
                    Ok(Err(Fail::NotImplemented)) => Err(error(code::METHOD_NOT_FOUND, format!("method not implemented: {m}"))),
                    Err(panic) => {
                        let what = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "unknown panic".into());
                        Err(error(code::ENGINE_THREW, format!("engine panicked in {m}: {what}")))
                    }
                }
            }
        };
        if write_response(out, &id, outcome.as_ref().map_err(Clone::clone)).is_err() {
            return 1;
        }
    }
    0
}

/// Drive `engine` in memory with scripted host lines; returns the exit code
/// and every frame it wrote. Host answers must be scripted in advance (engine
/// request ids are deterministic from [`FIRST_HOST_REQUEST_ID`]).
#[cfg(test)]
pub(crate) fn script(engine: &mut dyn Engine, lines: &[Value]) -> (i32, Vec<Value>) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut out = Vec::new();
    let code = serve_on(engine, std::io::Cursor::new(text.into_bytes()), &mut out);
    let frames = String::from_utf8(out).expect("utf-8").lines().map(|l| serde_json::from_str(l).expect("a JSON frame")).collect();
    (code, frames)
}

/// `engine` without its shared path: every request reaches [`Engine::call`]
/// with its params as JSON, as for an engine that does not override
/// [`Engine::call_shared`]. Tests compare the bytes of both paths.
#[cfg(test)]
pub(crate) struct JsonOnly<E>(pub E);

#[cfg(test)]
impl<E: Engine> Engine for JsonOnly<E> {
    fn initialize(&mut self, params: &Value) -> Value {
        self.0.initialize(params)
    }
    fn ingest(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome {
        self.0.ingest(params, host)
    }
    fn assemble(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome {
        self.0.assemble(params, host)
    }
    fn compact(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome {
        self.0.compact(params, host)
    }
    fn call(&mut self, method: &str, params: Value, host: &mut HostLink<'_>) -> Outcome {
        self.0.call(method, params, host)
    }
}

/// The host's side of a session as lines: `initialize` (offering
/// `messageDelta` when `delta`), then each `(method, params)` as request
/// `1, 2, …`, `messages` encoded as the driver encodes them. A method `""`
/// is a frame written as given (a scripted answer to an engine request).
#[cfg(test)]
pub(crate) fn host_text(calls: &[(&str, Value)], delta: bool) -> String {
    let mut enc = delta::Encoder::default();
    let offers = if delta { json!({delta::CAPABILITY: delta::VERSION}) } else { json!({}) };
    let mut text = format!("{}\n", json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": PROTOCOL_VERSION, "offers": offers}}));
    for (i, (m, params)) in calls.iter().enumerate() {
        if m.is_empty() {
            text += &format!("{params}\n");
            continue;
        }
        let id = i as u64 + 1;
        let plan = match (delta, params.get("messages").and_then(Value::as_array)) {
            (true, Some(ms)) => enc.plan(id, m, ms),
            _ => delta::Plan::Full,
        };
        let params = serde_json::to_string(&delta::Encoded { params, plan, shared: None }).expect("params serialise");
        text += &format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":{},\"params\":{params}}}\n", json!(m));
    }
    text
}

/// Serve `engine` on `text` and return what it wrote, byte for byte.
#[cfg(test)]
pub(crate) fn serve_text(engine: &mut dyn Engine, text: String) -> Vec<u8> {
    let mut out = Vec::new();
    serve_on(engine, std::io::Cursor::new(text.into_bytes()), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// Echoes params; `compact` asks the host and returns its answer; `slow`
    /// reports whether its abort signal fired.
    struct Probe;

    impl Engine for Probe {
        fn initialize(&mut self, _: &Value) -> Value {
            json!({"info": {"id": "probe", "name": "probe"}, "methods": ["dispose"], "implementation": {"name": "probe", "version": "0"}})
        }
        fn ingest(&mut self, _: Value, _: &mut HostLink<'_>) -> Outcome {
            Err(Fail::Threw("ingest exploded".into()))
        }
        fn assemble(&mut self, mut p: Value, _: &mut HostLink<'_>) -> Outcome {
            Ok(json!({"messages": p["messages"].take(), "estimatedTokens": 0}))
        }
        fn compact(&mut self, p: Value, host: &mut HostLink<'_>) -> Outcome {
            let first = host.request("host/llm.complete", json!({"forCall": host.current_call})).map_err(|e| Fail::Threw(e.to_string()))?;
            if host.is_aborted(abort_signal(&p).as_deref()) {
                return Err(Fail::Aborted);
            }
            let second = host.request("host/llm.complete", json!({})).map_err(|e| Fail::Threw(e.to_string()))?;
            Ok(json!([first, second]))
        }
        fn dispose(&mut self, _: Value, _: &mut HostLink<'_>) -> Outcome {
            panic!("dispose bug")
        }
        /// Busy without reading stdin until its signal fires (bounded so a
        /// broken reader fails the test instead of hanging it).
        fn maintain(&mut self, p: Value, host: &mut HostLink<'_>) -> Outcome {
            let signal = abort_signal(&p);
            for _ in 0..20_000 {
                if host.is_aborted(signal.as_deref()) {
                    return Err(Fail::Aborted);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok(json!({"changed": false}))
        }
    }

    fn run(lines: &[Value]) -> (i32, Vec<Value>) {
        script(&mut Probe, lines)
    }

    fn req(id: u64, m: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": m, "params": params})
    }

    #[test]
    fn initialize_then_shutdown_exits_zero() {
        let (code, frames) = run(&[req(1, "initialize", json!({"protocolVersion": 1, "extra": true})), req(2, "shutdown", json!({})), req(3, "assemble", json!({}))]);
        assert_eq!(code, 0);
        assert_eq!(frames.len(), 2, "nothing is answered after shutdown: {frames:?}");
        assert_eq!(frames[0]["result"]["protocolVersion"], 1);
        assert_eq!(frames[0]["result"]["info"]["id"], "probe");
        assert_eq!(frames[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    }

    #[rstest::rstest]
    #[case::two(json!(2))]
    #[case::zero(json!(0))]
    #[case::string(json!("1"))]
    #[case::missing(Value::Null)]
    fn refuses_other_protocol_versions(#[case] v: Value) {
        let params = if v.is_null() { json!({}) } else { json!({"protocolVersion": v}) };
        let (_, frames) = run(&[req(7, "initialize", params)]);
        assert_eq!(frames[0]["id"], 7);
        assert_eq!(frames[0]["error"]["code"], -32010);
        assert_eq!(frames[0]["error"]["data"], json!({"supported": [1]}));
    }

    #[rstest::rstest]
    #[case::unknown_method("frobnicate", -32601)]
    #[case::optional_not_implemented("bootstrap", -32601)]
    #[case::rollback_not_implemented("rollback", -32601)]
    #[case::thrown("ingest", -32000)]
    #[case::panicked("dispose", -32000)]
    fn error_codes(#[case] m: &str, #[case] c: i64) {
        let (code, frames) = run(&[req(4, m, json!({"sessionId": "s"}))]);
        assert_eq!(code, 0, "EOF ends the loop");
        assert_eq!(frames[0]["id"], 4);
        assert_eq!(frames[0]["error"]["code"], c, "{frames:?}");
        assert!(frames[0]["error"]["message"].as_str().is_some_and(|s| !s.is_empty()));
    }

    #[test]
    fn thrown_message_is_kept() {
        let (_, frames) = run(&[req(4, "ingest", json!({}))]);
        assert_eq!(frames[0]["error"]["message"], "ingest exploded");
    }

    #[test]
    fn assemble_echoes_the_messages_and_id_verbatim() {
        let ms = json!([{"role": "user", "content": "hi", "unknownField": {"x": [1, 2]}}]);
        let (_, frames) = run(&[json!({"jsonrpc": "2.0", "id": "opaque-9", "method": "assemble", "params": {"messages": ms, "future": 1}})]);
        assert_eq!(frames[0], json!({"jsonrpc": "2.0", "id": "opaque-9", "result": {"messages": ms, "estimatedTokens": 0}}));
    }

    #[test]
    fn host_requests_get_engine_ids_and_wait_for_their_answers() {
        let (_, frames) = run(&[
            req(5, "compact", json!({})),
            json!({"jsonrpc": "2.0", "id": 999, "result": {"text": "stray"}}),
            json!({"jsonrpc": "2.0", "id": 1_000_000, "result": {"text": "one"}}),
            json!({"jsonrpc": "2.0", "id": 1_000_001, "result": {"text": "two"}}),
            req(6, "compact", json!({})),
            json!({"jsonrpc": "2.0", "id": 1_000_002, "error": {"code": -32603, "message": "model down"}}),
        ]);
        assert_eq!(frames[0]["method"], "host/llm.complete");
        assert_eq!(frames[0]["id"], 1_000_000);
        assert_eq!(frames[0]["params"]["forCall"], 5);
        assert_eq!(frames[1]["id"], 1_000_001);
        assert_eq!(frames[2], json!({"jsonrpc": "2.0", "id": 5, "result": [{"text": "one"}, {"text": "two"}]}));
        // Ids keep counting across calls; a host error becomes the handler's throw.
        assert_eq!(frames[3]["id"], 1_000_002);
        assert_eq!(frames[4]["error"]["code"], -32000);
        assert!(frames[4]["error"]["message"].as_str().unwrap().contains("model down"));
    }

    #[test]
    fn abort_seen_while_waiting_is_observed() {
        let (_, frames) = run(&[
            req(5, "compact", json!({"abortSignal": {"$abortSignal": "sig-1"}})),
            json!({"jsonrpc": "2.0", "method": "$/abort", "params": {"signal": "sig-1", "reason": "timeout"}}),
            json!({"jsonrpc": "2.0", "id": 1_000_000, "result": {"text": "one"}}),
        ]);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[1]["error"]["code"], -32001);
    }

    #[test]
    fn a_busy_handler_sees_an_abort_that_arrives_after_its_request() {
        let (_, frames) = run(&[
            req(5, "maintain", json!({"abortSignal": {"$abortSignal": "sig-2"}})),
            json!({"jsonrpc": "2.0", "method": "$/abort", "params": {"signal": "sig-2"}}),
            req(6, "shutdown", json!({})),
        ]);
        assert_eq!(frames[0]["id"], 5);
        assert_eq!(frames[0]["error"]["code"], -32001);
        assert_eq!(frames[1]["result"], json!({}));
    }

    #[test]
    fn an_abort_for_another_signal_does_not_stop_the_call() {
        let (_, frames) = run(&[
            json!({"jsonrpc": "2.0", "method": "$/abort", "params": {"signal": "sig-9"}}),
            req(5, "compact", json!({"abortSignal": {"$abortSignal": "sig-1"}})),
            json!({"jsonrpc": "2.0", "id": 1_000_000, "result": {"text": "one"}}),
            json!({"jsonrpc": "2.0", "id": 1_000_001, "result": {"text": "two"}}),
        ]);
        assert_eq!(frames[2]["result"], json!([{"text": "one"}, {"text": "two"}]));
    }

    #[test]
    fn garbage_gets_a_parse_error_and_the_loop_goes_on() {
        let mut out = Vec::new();
        let input = b"not json\n\n{\"jsonrpc\":\"2.0\",\"id\":3}\n{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}\n".to_vec();
        assert_eq!(serve_on(&mut Probe, Cursor::new(input), &mut out), 0);
        let frames: Vec<Value> = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(frames[0]["error"]["code"], -32700);
        assert_eq!(frames[0]["id"], Value::Null);
        assert_eq!(frames[1]["error"]["code"], -32600);
        assert_eq!(frames[2]["result"], json!({}));
    }

    #[rstest::rstest]
    #[case::abort(r#"{"jsonrpc":"2.0","method":"$/abort","params":{"signal":"sig-3"}}"#, Some("sig-3"))]
    #[case::request_with_id(r#"{"jsonrpc":"2.0","id":1,"method":"$/abort","params":{"signal":"sig-3"}}"#, None)]
    #[case::mentioned_in_text(r#"{"jsonrpc":"2.0","id":1,"method":"assemble","params":{"messages":[{"role":"user","content":"\"$/abort\""}]}}"#, None)]
    #[case::other(r#"{"jsonrpc":"2.0","method":"$/log","params":{}}"#, None)]
    fn recognises_abort_notifications(#[case] line: &str, #[case] expect: Option<&str>) {
        assert_eq!(abort_notification(line.as_bytes()).as_deref(), expect);
    }
}
