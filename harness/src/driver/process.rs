//! The running engine process.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawspec_contract::protocol::{code, method, Frame, Id, InitializeResult, Notification, Response};
use clawspec_contract::Msg;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, timeout_at, Instant};

use super::lines::{self, LineEvent};
use super::{delta, pool, reaper, spawn};
use super::stderr::{self, StderrBuf};
use super::*;

/// How long to wait for the stderr pipe to reach EOF once the engine is gone,
/// so a fault carries the engine's last words. Bounded because a grandchild
/// that escaped the group kill could hold the pipe open.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// The same once the engine and all its descendants are killed: EOF is then
/// certain unless a process that escaped them (a daemon that left the group
/// and its state dir) still holds the pipe, so a loaded machine gets time to
/// deliver it — but only while no other process holds the pipe
/// ([`pipe_held_elsewhere`]): an escapee would make every run wait the bound.
const STDERR_DRAIN_AFTER_KILL: Duration = Duration::from_secs(5);

/// How long EOF may take before the pipe's holders are looked for.
const STDERR_EOF_GRACE: Duration = Duration::from_millis(100);

/// How often stderr growth is checked against the flood limit during a call.
const FLOOD_CHECK: Duration = Duration::from_millis(50);

/// A running engine (handshake done).
pub struct Engine {
    pub init: InitializeResult,
    child: Option<Child>,
    pgid: i32,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<LineEvent>,
    stderr: stderr::Shared,
    /// The stderr reader; awaited after an exit so the slice is complete.
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    /// The inode of the engine's stderr pipe (both ends share it).
    stderr_pipe: Option<u64>,
    config: DriverConfig,
    next_id: u64,
    /// Ids of calls that timed out while the engine kept running: their late
    /// answers are dropped, not reported as wrong ids.
    given_up: BTreeSet<u64>,
    /// Exit status seen while waiting (the child may exit before stdout closes).
    exit_status: Option<ExitStatus>,
    /// The fault that ended this engine: every later call reports it again.
    dead: Option<EngineFault>,
    /// Names this engine's processes (`reaper::TOKEN_VAR`).
    token: String,
    /// A state dir the driver made for it (removed with it).
    owned_dir: Option<PathBuf>,
    /// Set when this process is reusable (`pool`).
    warm: Option<Warm>,
    /// stderr offset where the current run began (a warm process's earlier
    /// runs are not this run's).
    run_mark: u64,
    /// Set when the engine accepted `messageDelta` in the handshake.
    delta: Option<delta::Encoder>,
    /// Bytes written to the engine's stdin.
    sent: u64,
    /// stderr that arrived while the last call was in flight (its tail, at
    /// most [`CALL_STDERR_KEEP`] bytes). Best effort: bytes written just
    /// before the answer may still be in the pipe and count for the next call.
    last_stderr: String,
    /// `$/unknownApiMember` names received during this run, in arrival
    /// order, once each (bounded: [`UNKNOWN_API_KEEP`] names of at most
    /// [`UNKNOWN_API_NAME_CHARS`] characters; the engine is untrusted).
    unknown_api: Vec<String>,
}

/// Bounds of [`Engine::unknown_api_members`].
pub const UNKNOWN_API_KEEP: usize = 100;
pub const UNKNOWN_API_NAME_CHARS: usize = 200;

/// stderr kept per call for the report's excerpt (the tail).
pub const CALL_STDERR_KEEP: usize = 4 * 1024;

/// Bytes written to every engine's stdin by this process (benchmarks).
static SENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Bytes the driver has written to engines so far, all engines together
/// (what the long-session benchmark reports as bytes on the wire).
pub fn total_bytes_sent() -> u64 {
    SENT.load(std::sync::atomic::Ordering::Relaxed)
}

/// A reusable process's place in its pool.
struct Warm {
    pool: Arc<pool::Pool>,
    key: String,
    runs: u32,
}

/// The warm-reuse step (docs/protocol.md, "Warm reuse").
const RESET: &str = "reset";

/// What happens to the process after a failed exchange.
enum Fate {
    /// The stream is unusable or the process is gone: kill the group.
    Kill,
    /// A clean timeout: the engine may still answer (late) and be used again.
    KeepRunning,
}

struct NoHost;
impl HostHandler for NoHost {
    fn request(&mut self, m: &str, _: &Value) -> Result<Value, RpcError> {
        Err(RpcError { code: code::METHOD_NOT_FOUND, message: format!("{m} is not available during initialize or shutdown"), data: None })
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

/// Why an engine did not start, with the unknown-api reads it made first.
#[derive(Debug)]
pub struct StartFailure {
    pub fault: EngineFault,
    /// `$/unknownApiMember` names received before the fault.
    pub unknown_api: Vec<String>,
}

impl From<EngineFault> for StartFailure {
    fn from(fault: EngineFault) -> Self {
        StartFailure { fault, unknown_api: Vec::new() }
    }
}

impl Engine {
    /// Spawn the process (in its own process group) and run `initialize`;
    /// with a warm pool (`DriverConfig::warm`), take a parked process of the
    /// same engine instead when there is one (`pool`).
    pub async fn start(spec: &EngineSpec, config: &DriverConfig, init: &InitializeParams) -> Result<Engine, EngineFault> {
        Self::start_noting(spec, config, init).await.map_err(|f| f.fault)
    }

    /// [`Engine::start`], and on failure also what the plugin read that the
    /// host does not provide before it failed (a plugin that dies in its
    /// `register` often dies of exactly such a read).
    pub async fn start_noting(spec: &EngineSpec, config: &DriverConfig, init: &InitializeParams) -> Result<Engine, StartFailure> {
        if let (Some(pool), Some(state)) = (config.warm.clone(), config.sandbox.state_dir.as_deref()) {
            if let Some(root) = pool::root_of(state) {
                let key = pool::key(spec, &config.sandbox, &root, init);
                match pool.capability(&key) {
                    Some(true) => return Self::start_warm(spec, config, init, pool, key, root).await,
                    Some(false) => {}
                    // The first process of an engine learns whether it can be
                    // reused; it runs confined to its own state dir and is
                    // never reused itself.
                    None => {
                        let e = Self::spawn_and_handshake(spec, config, init, None).await?;
                        pool.learn(key, e.init.extra.get("warm") == Some(&Value::Bool(true)));
                        return Ok(e);
                    }
                }
            }
        }
        Self::spawn_and_handshake(spec, config, init, None).await
    }

    async fn start_warm(spec: &EngineSpec, config: &DriverConfig, init: &InitializeParams, pool: Arc<pool::Pool>, key: String, root: PathBuf) -> Result<Engine, StartFailure> {
        while let Some(mut e) = pool.take(&key) {
            match e.reuse(spec, config, init).await {
                Ok(()) => return Ok(e),
                // A process that cannot be reset is replaced; a fresh one
                // reports whatever is really wrong with the engine.
                Err(_) => e.kill_now().await,
            }
        }
        let mut e = Self::spawn_and_handshake(spec, config, init, Some(&root)).await?;
        if e.init.extra.get("warm") == Some(&Value::Bool(true)) {
            e.warm = Some(Warm { pool, key, runs: 1 });
        }
        Ok(e)
    }

    /// A parked process serves a new run: `reset` with this run's variables,
    /// then the handshake again.
    async fn reuse(&mut self, spec: &EngineSpec, config: &DriverConfig, init: &InitializeParams) -> Result<(), EngineFault> {
        self.config = config.clone();
        self.run_mark = self.stderr_mark();
        let env: BTreeMap<&String, &String> = spec.env.iter().filter(|(k, _)| pool::PER_RUN_ENV.contains(&k.as_str())).collect();
        let opts = CallOptions { timeout: Some(config.initialize_timeout), abort_signal: None };
        match self.call(RESET, json!({ "env": env }), opts, &mut NoHost).await? {
            Reply::Ok(_) => {}
            Reply::Threw(err) => return Err(EngineFault::BadHandshake { detail: format!("reset failed: {} ({})", err.message, err.code), stderr: self.stderr_tail() }),
        }
        // What the previous run's plugin read is not this run's.
        self.unknown_api.clear();
        self.handshake(init).await?;
        if let Some(w) = self.warm.as_mut() {
            w.runs += 1;
        }
        Ok(())
    }

    async fn spawn_and_handshake(spec: &EngineSpec, config: &DriverConfig, init: &InitializeParams, writable_root: Option<&std::path::Path>) -> Result<Engine, StartFailure> {
        reaper::become_subreaper();
        let spawn::Prepared { cmd, token, owned_dir } = spawn::prepare_in(spec, config, writable_root)?;
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(true);
        let child = {
            // Registered under the lock, so a sweep never sees it unregistered.
            let mut live = reaper::live();
            let child = cmd.spawn().map_err(|e| spawn_failed(spec, &e));
            if let Ok(c) = &child {
                live.insert(c.id().map(|p| p as i32).unwrap_or(0));
            }
            child
        };
        let mut child = match child {
            Ok(c) => c,
            Err(f) => {
                remove_owned(&owned_dir);
                return Err(f.into());
            }
        };
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let err = child.stderr.take().expect("piped stderr");
        let stderr_pipe = pipe_inode(std::os::fd::AsRawFd::as_raw_fd(&err));
        let buf: stderr::Shared = Arc::new(Mutex::new(StderrBuf::new(config.stderr_keep_bytes)));
        let stderr_task = stderr::spawn_reader(err, buf.clone());
        let lines = lines::spawn_reader(stdout, config.max_line_bytes);
        let mut e = Engine {
            init: placeholder_init(),
            child: Some(child),
            pgid,
            stdin,
            lines,
            stderr: buf,
            stderr_task: Some(stderr_task),
            stderr_pipe,
            config: config.clone(),
            next_id: 0,
            given_up: BTreeSet::new(),
            exit_status: None,
            dead: None,
            token,
            owned_dir,
            warm: None,
            run_mark: 0,
            delta: None,
            sent: 0,
            last_stderr: String::new(),
            unknown_api: Vec::new(),
        };
        if let Err(fault) = e.handshake(init).await {
            return Err(StartFailure { fault, unknown_api: std::mem::take(&mut e.unknown_api) });
        }
        Ok(e)
    }

    /// `initialize` and its checks; on failure the process is killed.
    async fn handshake(&mut self, init: &InitializeParams) -> Result<(), EngineFault> {
        let e = self;
        let config = e.config.clone();
        let mut params = serde_json::to_value(init).expect("initialize params");
        // A warm process negotiates again on every run: the previous run's
        // delta state is never carried over.
        e.delta = None;
        if config.message_delta {
            // Offered by the driver, not the runtime: it is a wire encoding,
            // invisible above this layer (traces record decoded params).
            params["offers"][delta::CAPABILITY] = json!(delta::VERSION);
        }
        let opts = CallOptions { timeout: Some(config.initialize_timeout), abort_signal: None };
        let reply = match e.call(method::INITIALIZE, params, opts, &mut NoHost).await {
            Ok(r) => r,
            Err(f) => {
                // Exiting before the handshake is a start-up crash, whatever the code.
                let f = match f {
                    EngineFault::CrashMidCall { status, stderr, .. } => EngineFault::CrashAtStart { status, stderr },
                    EngineFault::ExitBeforeShutdown { stderr, .. } => EngineFault::CrashAtStart { status: "exit code 0".into(), stderr },
                    other => other,
                };
                e.kill_now().await;
                e.drain_stderr().await;
                // Everything since the process started, not only since the
                // request was written: a crash at start often speaks first.
                let mut f = f;
                f.set_stderr(e.stderr_tail());
                return Err(f);
            }
        };
        let stderr = e.stderr_tail();
        let result = match reply {
            Reply::Ok(v) => v,
            Reply::Threw(err) if err.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
                e.kill_now().await;
                let supported = err.data.as_ref().and_then(|d| d.get("supported")).map(Value::to_string).unwrap_or_else(|| "not stated".into());
                let detail = format!("{} (supported: {supported})", err.message);
                return Err(EngineFault::UnsupportedProtocolVersion { requested: init.protocol_version, detail, stderr });
            }
            Reply::Threw(err) => {
                e.kill_now().await;
                return Err(EngineFault::BadHandshake { detail: format!("initialize failed: {} ({})", err.message, err.code), stderr });
            }
        };
        // The version is checked before the shape, so an engine speaking a
        // future protocol is named as such even if its result looks different.
        match result.get("protocolVersion") {
            Some(v) if v.as_u64() == Some(init.protocol_version as u64) => {}
            Some(v) if v.is_u64() => {
                e.kill_now().await;
                return Err(EngineFault::UnsupportedProtocolVersion { requested: init.protocol_version, detail: format!("engine answered protocolVersion {v}"), stderr });
            }
            _ => {}
        }
        match serde_json::from_value::<InitializeResult>(result) {
            Ok(r) => {
                if config.message_delta && delta::accepted(&r.extra) {
                    e.delta = Some(delta::Encoder::default());
                }
                e.init = r
            }
            Err(err) => {
                e.kill_now().await;
                return Err(EngineFault::BadHandshake { detail: err.to_string(), stderr });
            }
        }
        Ok(())
    }

    /// The sandbox's state dir (its processes work there).
    fn jail(&self) -> Option<&std::path::Path> {
        self.owned_dir.as_deref().or(self.config.sandbox.state_dir.as_deref()).filter(|_| self.config.sandbox.enabled)
    }

    fn stderr_mark(&self) -> u64 {
        self.stderr.lock().expect("stderr").total
    }

    fn stderr_since(&self, mark: u64) -> String {
        self.stderr.lock().expect("stderr").since(mark)
    }

    /// Let the stderr reader reach EOF (bounded) once the engine is gone.
    /// On timeout the reader is kept, so a later drain (after the kill) can
    /// still collect the last words.
    async fn drain_stderr_within(&mut self, bound: Duration) {
        if let Some(mut t) = self.stderr_task.take() {
            if tokio::time::timeout(bound, &mut t).await.is_err() {
                self.stderr_task = Some(t);
            }
        }
    }

    /// [`Self::drain_stderr_within`] after [`Self::kill_now`]: the long bound
    /// only while nothing but clawspec holds the pipe.
    async fn drain_stderr(&mut self) {
        self.drain_stderr_within(STDERR_EOF_GRACE).await;
        if self.stderr_task.is_none() || self.stderr_pipe.is_some_and(pipe_held_elsewhere) {
            return;
        }
        self.drain_stderr_within(STDERR_DRAIN_AFTER_KILL - STDERR_EOF_GRACE).await;
    }

    /// One whole line per frame, in a single write: the engine never sees a
    /// frame split by another writer, and large payloads are not re-buffered.
    async fn write_line(&mut self, v: &impl serde::Serialize) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec(v).expect("frame serialises");
        bytes.push(b'\n');
        self.write_bytes(&bytes).await
    }

    async fn write_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sent += bytes.len() as u64;
        SENT.fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let stdin = self.stdin.as_mut().ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin.write_all(&bytes).await?;
        stdin.flush().await
    }

    /// The process ended (stdout closed or stdin broken): name how.
    async fn ended(&mut self, m: &str, mark: u64, partial: Option<String>) -> EngineFault {
        if self.exit_status.is_none() {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Ok(s)) = tokio::time::timeout(self.config.shutdown_grace, c.wait()).await {
                    self.exit_status = Some(s);
                }
            }
        }
        if self.exit_status.is_some() {
            self.drain_stderr_within(STDERR_DRAIN).await;
        }
        let stderr = self.stderr_since(mark);
        if let Some(fragment) = partial {
            return EngineFault::PartialLine { method: m.into(), fragment, stderr };
        }
        match self.exit_status {
            Some(s) if s.success() => EngineFault::ExitBeforeShutdown { method: m.into(), stderr },
            Some(s) => EngineFault::CrashMidCall { method: m.into(), status: describe(s), stderr },
            None => EngineFault::ClosedStdout { method: m.into(), stderr },
        }
    }

    /// One request/response round trip; serves host requests meanwhile.
    pub async fn call(&mut self, m: &str, params: Value, opts: CallOptions, host: &mut dyn HostHandler) -> Result<Reply, EngineFault> {
        self.call_ref(m, &params, opts, host).await
    }

    /// [`Self::call`] on borrowed params: a caller that records them (the
    /// runtime's trace) needs no copy of a whole history per call.
    pub async fn call_ref(&mut self, m: &str, params: &Value, opts: CallOptions, host: &mut dyn HostHandler) -> Result<Reply, EngineFault> {
        self.call_with(m, params, None, opts, host).await.map(|(r, _)| r)
    }

    /// A call whose history is held out of band ([`CallParams`]): the
    /// messages go on the wire from their cached JSON, the delta planner
    /// finds what the engine already has by pointer, and a result that
    /// answers with a delta comes back as [`delta::ResultMessage`]s (the request's
    /// own messages by pointer) with its `messages` left `null` — nothing
    /// is copied per message of the history.
    pub async fn call_shared(&mut self, m: &str, params: &CallParams, opts: CallOptions, host: &mut dyn HostHandler) -> Result<(Reply, Option<Vec<delta::ResultMessage>>), EngineFault> {
        self.call_with(m, &params.value, params.messages.as_deref(), opts, host).await
    }

    async fn call_with(&mut self, m: &str, params: &Value, shared: Option<&[Msg]>, opts: CallOptions, host: &mut dyn HostHandler) -> Result<(Reply, Option<Vec<delta::ResultMessage>>), EngineFault> {
        if let Some(f) = &self.dead {
            return Err(f.clone());
        }
        let mark = self.stderr_mark();
        let r = self.exchange(m, params, shared, &opts, host, mark).await;
        self.last_stderr = tail_chars(self.stderr_since(mark), CALL_STDERR_KEEP);
        match r {
            Ok(r) => Ok(r),
            Err((f, Fate::KeepRunning)) => Err(f),
            Err((mut f, Fate::Kill)) => {
                self.kill_now().await;
                self.drain_stderr().await;
                f.set_stderr(self.stderr_since(mark));
                self.dead = Some(f.clone());
                Err(f)
            }
        }
    }

    async fn exchange(&mut self, m: &str, params: &Value, shared: Option<&[Msg]>, opts: &CallOptions, host: &mut dyn HostHandler, mark: u64) -> Result<(Reply, Option<Vec<delta::ResultMessage>>), (EngineFault, Fate)> {
        let timeout = opts.timeout.unwrap_or(if m == method::COMPACT { self.config.compact_timeout } else { self.config.call_timeout });
        let timed_out = |s: &Self| EngineFault::Timeout { method: m.into(), timeout_ms: timeout.as_millis() as u64, stderr: s.stderr_since(mark) };
        if self.exit_status.is_some() {
            // It exited after answering the previous call: nothing can answer this one.
            return Err((self.ended(m, mark, None).await, Fate::Kill));
        }
        let mut deadline = Instant::now() + timeout;
        self.next_id += 1;
        let id = self.next_id;
        // A hung engine that stops reading stdin must not hang the write
        // either (a large request does not fit in the pipe buffer).
        let frame = self.request_line(id, m, params, shared);
        match timeout_at(deadline, self.write_bytes(&frame)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err((self.ended(m, mark, None).await, Fate::Kill)),
            Err(_) => return Err((timed_out(self), Fate::Kill)),
        }
        let mut aborted = false;
        // `$/log` bytes received during this call: capped like stderr, since
        // an engine can flood either channel (5 M logs once held 1.15 GB).
        let mut log_bytes = 0usize;
        let mut tick = tokio::time::interval_at(Instant::now() + FLOOD_CHECK, FLOOD_CHECK);
        loop {
            tokio::select! {
                // Lines first: an answer already in the pipe wins over an exit
                // or a deadline noticed in the same instant.
                biased;
                ev = self.lines.recv() => {
                    let line = match ev.unwrap_or(LineEvent::Eof) {
                        LineEvent::Line(line) => line,
                        LineEvent::Eof => return Err((self.ended(m, mark, None).await, Fate::Kill)),
                        LineEvent::Partial(p) => return Err((self.ended(m, mark, Some(p)).await, Fate::Kill)),
                        LineEvent::InvalidUtf8 => return Err((EngineFault::InvalidUtf8 { method: m.into(), stderr: self.stderr_since(mark) }, Fate::Kill)),
                        LineEvent::Oversized => {
                            let f = EngineFault::OversizedResponse { method: m.into(), limit: self.config.max_line_bytes, stderr: self.stderr_since(mark) };
                            return Err((f, Fate::Kill));
                        }
                    };
                    if line.trim().is_empty() {
                        continue;
                    }
                    match Frame::decode(&line) {
                        Err(detail) => {
                            let shown: String = line.chars().take(200).collect();
                            return Err((EngineFault::NonJsonLine { method: m.into(), line: shown, detail, stderr: self.stderr_since(mark) }, Fate::Kill));
                        }
                        Ok(Frame::Response(r)) => match r.id {
                            Id::Num(n) if n == id => {
                                // The answer can arrive between two ticks: the
                                // flood is judged on what the call wrote, not on
                                // when the timer fell (the engine wrote its
                                // stderr before answering, all but a pipe's worth
                                // of it already read).
                                if self.stderr_mark() - mark > self.config.stderr_flood_bytes as u64 {
                                    let f = EngineFault::StderrFlood { method: m.into(), limit: self.config.stderr_flood_bytes, stderr: self.stderr_since(mark) };
                                    return Err((f, Fate::Kill));
                                }
                                return Ok(match r.error {
                                    Some(e) => (Reply::Threw(e), None),
                                    None => {
                                        let mut result = r.result.unwrap_or(Value::Null);
                                        let items = match (&self.delta, shared) {
                                            (Some(enc), Some(_)) => enc.decode_result_items(id, m, &mut result),
                                            (Some(enc), None) => {
                                                enc.decode_result(id, m, &mut result);
                                                None
                                            }
                                            (None, _) => None,
                                        };
                                        (Reply::Ok(result), items)
                                    }
                                });
                            }
                            // The answer to a call that already timed out: the
                            // caller has moved on, exactly as OpenClaw's
                            // Promise.race drops the loser.
                            Id::Num(n) if self.given_up.remove(&n) => continue,
                            other => {
                                let got = match other { Id::Num(n) => n.to_string(), Id::Str(s) => format!("{s:?}") };
                                let f = EngineFault::WrongId { method: m.into(), expected: id.to_string(), got, stderr: self.stderr_since(mark) };
                                return Err((f, Fate::Kill));
                            }
                        },
                        Ok(Frame::Request(req)) => {
                            let resp = if req.method.starts_with("host/") {
                                match host.request(&req.method, &req.params) {
                                    Ok(v) => Response::ok(req.id, v),
                                    Err(e) => Response::err(req.id, e.code, e.message, e.data),
                                }
                            } else {
                                Response::err(req.id, code::METHOD_NOT_FOUND, format!("the host does not serve {}", req.method), None)
                            };
                            match timeout_at(deadline, self.write_line(&resp)).await {
                                Ok(Ok(())) => {}
                                Ok(Err(_)) => return Err((self.ended(m, mark, None).await, Fate::Kill)),
                                Err(_) => return Err((timed_out(self), Fate::Kill)),
                            }
                        }
                        Ok(Frame::Notification(n)) => {
                            if n.method == method::LOG || n.method == method::UNKNOWN_API_MEMBER {
                                log_bytes += line.len();
                                if log_bytes > self.config.stderr_flood_bytes {
                                    let f = EngineFault::LogFlood { method: m.into(), limit: self.config.stderr_flood_bytes, stderr: self.stderr_since(mark) };
                                    return Err((f, Fate::Kill));
                                }
                            }
                            if n.method == method::UNKNOWN_API_MEMBER {
                                // Kept here, not by the call's host: it may
                                // arrive during `initialize` (the plugin's
                                // `register`), and must outlive a fault.
                                self.note_unknown_api(&n.params);
                            } else {
                                host.notification(&n.method, &n.params)
                            }
                        }
                    }
                }
                st = wait_child(&mut self.child), if self.exit_status.is_none() => {
                    // The process is gone but stdout may stay open (a
                    // grandchild inherited it): read what is left for a short
                    // while, then report the exit instead of a hang.
                    self.exit_status = st;
                    deadline = deadline.min(Instant::now() + self.config.shutdown_grace);
                }
                _ = sleep_until(deadline) => {
                    if self.exit_status.is_some() {
                        return Err((self.ended(m, mark, None).await, Fate::Kill));
                    }
                    match (&opts.abort_signal, aborted) {
                        (Some(sig), false) => {
                            // OpenClaw aborts the compaction's signal when its
                            // safety timeout fires (compaction-safety-timeout.ts:
                            // `timeoutController.abort(timeoutError)`); an engine
                            // that honours it answers -32001.
                            aborted = true;
                            deadline = Instant::now() + self.config.shutdown_grace;
                            let abort = Notification::new(method::ABORT, json!({"signal": sig, "reason": "timeout"}));
                            match timeout_at(deadline, self.write_line(&abort)).await {
                                Ok(Ok(())) => {}
                                Ok(Err(_)) => return Err((self.ended(m, mark, None).await, Fate::Kill)),
                                Err(_) => return Err((timed_out(self), Fate::Kill)),
                            }
                        }
                        _ => {
                            self.given_up.insert(id);
                            return Err((timed_out(self), Fate::KeepRunning));
                        }
                    }
                }
                _ = tick.tick() => {
                    if self.stderr_mark() - mark > self.config.stderr_flood_bytes as u64 {
                        let f = EngineFault::StderrFlood { method: m.into(), limit: self.config.stderr_flood_bytes, stderr: self.stderr_since(mark) };
                        return Err((f, Fate::Kill));
                    }
                }
            }
        }
    }

    /// The request as one line, `messages` delta-encoded when the engine
    /// accepted it (the plan is made here, for a request that is written).
    fn request_line(&mut self, id: u64, m: &str, params: &Value, shared: Option<&[Msg]>) -> Vec<u8> {
        let plan = match (&mut self.delta, shared, params.get("messages").and_then(Value::as_array)) {
            (Some(enc), Some(ms), _) => enc.plan_msgs(id, m, ms),
            (Some(enc), None, Some(ms)) => enc.plan(id, m, ms),
            _ => delta::Plan::Full,
        };
        #[derive(serde::Serialize)]
        struct Out<'a> {
            jsonrpc: &'static str,
            id: u64,
            method: &'a str,
            params: delta::Encoded<'a>,
        }
        let mut bytes = serde_json::to_vec(&Out { jsonrpc: "2.0", id, method: m, params: delta::Encoded { params, plan, shared } }).expect("frame serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Send a notification (e.g. `$/abort`).
    pub async fn notify(&mut self, m: &str, params: Value) -> Result<(), EngineFault> {
        if let Some(f) = &self.dead {
            return Err(f.clone());
        }
        let mark = self.stderr_mark();
        let deadline = Instant::now() + self.config.call_timeout;
        let failed = match timeout_at(deadline, self.write_line(&Notification::new(m, params))).await {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(_)) => self.ended(m, mark, None).await,
            Err(_) => EngineFault::Timeout { method: m.into(), timeout_ms: self.config.call_timeout.as_millis() as u64, stderr: String::new() },
        };
        let mut f = failed;
        self.kill_now().await;
        self.drain_stderr().await;
        f.set_stderr(self.stderr_since(mark));
        self.dead = Some(f.clone());
        Err(f)
    }

    /// `shutdown`: the engine must answer within the grace period and then
    /// exit on its own within the grace period; otherwise the group is killed
    /// and the report says why. The group is killed in every case, so
    /// nothing the engine started outlives it.
    pub async fn shutdown(mut self) -> ShutdownReport {
        if let Some(w) = self.warm.take() {
            return self.park(w).await;
        }
        self.shutdown_process().await
    }

    /// End of a warm process's run: parked for the next run when it is
    /// healthy (no fault, no call left running, nothing it started still
    /// alive), otherwise shut down as usual.
    async fn park(mut self, w: Warm) -> ShutdownReport {
        let reusable = self.dead.is_none() && self.given_up.is_empty() && self.exit_status.is_none() && w.runs < pool::MAX_RUNS;
        if !reusable {
            return self.shutdown_process().await;
        }
        let left: Vec<reaper::Proc> = reaper::members(None, &self.token, self.jail()).into_iter().filter(|p| p.alive() && p.pid != self.pgid).collect();
        if !left.is_empty() {
            let mut commands: Vec<String> = left.iter().map(|p| p.comm.clone()).collect();
            commands.sort();
            let fault = EngineFault::LeftoverProcesses { count: left.len(), commands: commands.join(", "), stderr: self.stderr_tail() };
            self.kill_now().await;
            self.drain_stderr().await;
            return ShutdownReport { exited_cleanly: false, exit_status: self.exit_status.map(describe), fault: Some(fault), stderr_tail: self.stderr_tail() };
        }
        self.release_locks();
        let stderr_tail = self.stderr_tail();
        let pool = w.pool.clone();
        let key = w.key.clone();
        self.warm = Some(w);
        pool.put(key, self);
        ShutdownReport { exited_cleanly: true, exit_status: None, fault: None, stderr_tail }
    }

    /// `shutdown` of the process itself (a warm one at the end of the command).
    pub(super) async fn shutdown_process(mut self) -> ShutdownReport {
        self.warm = None;
        let grace = self.config.shutdown_grace;
        let mark = self.stderr_mark();
        let answer = self.call(method::SHUTDOWN, json!({}), CallOptions { timeout: Some(grace), abort_signal: None }, &mut NoHost).await;
        let mut fault = match answer {
            Ok(_) => None,
            Err(EngineFault::Timeout { .. }) => Some(EngineFault::NoExitAfterShutdown { stderr: self.stderr_since(mark) }),
            // The protocol asks for an answer, then the exit: exiting
            // without one (for instance right after the handshake, in a
            // scenario that never calls the engine) is a fault.
            Err(f) => Some(f),
        };
        // Closing stdin lets engines that read to EOF exit too.
        self.stdin.take();
        if self.exit_status.is_none() && fault.is_none() {
            if let Some(c) = self.child.as_mut() {
                match tokio::time::timeout(grace, c.wait()).await {
                    Ok(Ok(s)) => self.exit_status = Some(s),
                    _ => fault = Some(EngineFault::NoExitAfterShutdown { stderr: self.stderr_since(mark) }),
                }
            }
        }
        if let (None, Some(s)) = (&fault, self.exit_status) {
            if !s.success() {
                fault = Some(EngineFault::CrashMidCall { method: method::SHUTDOWN.into(), status: describe(s), stderr: self.stderr_since(mark) });
            }
        }
        if fault.is_none() {
            // It exited cleanly: anything it started and left running is a fault.
            let left: Vec<reaper::Proc> = reaper::members(None, &self.token, self.jail()).into_iter().filter(reaper::Proc::alive).collect();
            if !left.is_empty() {
                let mut commands: Vec<String> = left.iter().map(|p| p.comm.clone()).collect();
                commands.sort();
                fault = Some(EngineFault::LeftoverProcesses { count: left.len(), commands: commands.join(", "), stderr: self.stderr_since(mark) });
            }
        }
        self.kill_now().await;
        self.drain_stderr().await;
        let exited_cleanly = fault.is_none();
        ShutdownReport { exited_cleanly, exit_status: self.exit_status.map(describe), fault, stderr_tail: self.stderr_tail() }
    }

    /// SIGKILL the whole group (grandchildren included), then reap the child.
    /// Idempotent: the group is only signalled while the child is still ours
    /// (unreaped or just reaped), so a recycled process-group id is never hit.
    async fn kill_now(&mut self) {
        self.stdin.take();
        // Descendants that are still the engine's are found through it, so
        // look before it dies.
        let before = reaper::members(self.child.as_ref().map(|_| self.pgid), &self.token, self.jail());
        if let Some(mut c) = self.child.take() {
            if self.pgid > 0 {
                // SAFETY: plain syscall on our own child's process group.
                unsafe {
                    libc::killpg(self.pgid, libc::SIGKILL);
                }
            }
            let _ = c.start_kill();
            if let Ok(s) = c.wait().await {
                self.exit_status.get_or_insert(s);
            }
            reaper::live().remove(&self.pgid);
        }
        reaper::kill_and_reap(&before);
        reaper::sweep(None, &self.token, self.jail());
        self.release_locks();
        remove_owned(&self.owned_dir);
    }

    /// Lock files the run's databases left in the extra writable dirs (the
    /// OpenClaw SDK's lock directory, `sandbox::openclaw_lock_dir`).
    fn release_locks(&self) {
        if let Some(state) = self.jail() {
            for dir in &self.config.sandbox.extra_writable {
                super::sandbox::remove_locks_of(dir, state);
            }
        }
    }

    /// Kill the process group now (after a fault). Never leaves a zombie.
    /// Returns the stderr tail.
    pub async fn kill(mut self) -> String {
        self.kill_now().await;
        self.drain_stderr().await;
        self.stderr_tail()
    }

    /// The api members the plugin read that the host does not provide, as
    /// `$/unknownApiMember` told them during this run (also after a fault).
    pub fn unknown_api_members(&self) -> &[String] {
        &self.unknown_api
    }

    fn note_unknown_api(&mut self, params: &Value) {
        let Some(name) = params.get("name").and_then(Value::as_str) else { return };
        let name: String = name.chars().take(UNKNOWN_API_NAME_CHARS).collect();
        if self.unknown_api.len() < UNKNOWN_API_KEEP && !self.unknown_api.contains(&name) {
            self.unknown_api.push(name);
        }
    }

    /// The Node adapter's `adapter/report` (adapters/node/README.md), for an
    /// engine whose handshake named `clawspec-node-adapter`; `None` for any
    /// other engine, or when the adapter did not answer with a result.
    pub async fn adapter_report(&mut self) -> Option<Value> {
        if self.init.implementation.name != "clawspec-node-adapter" || self.dead.is_some() {
            return None;
        }
        match self.call_ref("adapter/report", &Value::Null, CallOptions::default(), &mut NoHost).await {
            Ok(Reply::Ok(v)) => Some(v),
            _ => None,
        }
    }

    /// stderr that arrived during the last [`Self::call_ref`] (tail, bounded;
    /// best effort, see `last_stderr`).
    pub fn last_call_stderr(&self) -> &str {
        &self.last_stderr
    }

    /// stderr captured so far (tail).
    pub fn stderr_tail(&self) -> String {
        let buf = self.stderr.lock().expect("stderr");
        if self.run_mark == 0 {
            buf.tail()
        } else {
            buf.since(self.run_mark)
        }
    }

    /// Bytes written to this engine's stdin so far.
    pub fn bytes_sent(&self) -> u64 {
        self.sent
    }

    /// Did the engine accept `messageDelta` (docs/protocol.md)?
    pub fn message_delta(&self) -> bool {
        self.delta.is_some()
    }

    /// The child's process id (= its process group id).
    pub fn pid(&self) -> i32 {
        self.pgid
    }

    /// The fault that ended this engine, if one did (calls then fail with it).
    pub fn fault(&self) -> Option<&EngineFault> {
        self.dead.as_ref()
    }
}

impl Drop for Engine {
    /// Last resort when an engine is dropped without `shutdown`/`kill`
    /// (a panic, an early return): kill the group and try briefly to reap the
    /// child here; tokio's orphan reaper collects it otherwise.
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            if self.pgid > 0 {
                // SAFETY: as in kill_now.
                unsafe {
                    libc::killpg(self.pgid, libc::SIGKILL);
                }
            }
            let _ = c.start_kill();
            for _ in 0..200 {
                if !matches!(c.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            reaper::live().remove(&self.pgid);
            reaper::sweep(None, &self.token, self.jail());
            remove_owned(&self.owned_dir);
        }
    }
}

/// Run a command in the engine sandbox to completion and return its stdout
/// (`clawspec doctor`'s live check; no protocol).
pub fn sandboxed_output(spec: &EngineSpec, config: &DriverConfig) -> std::io::Result<Vec<u8>> {
    let spawn::Prepared { mut cmd, owned_dir, .. } = spawn::prepare(spec, config).map_err(|f| std::io::Error::other(f.to_string()))?;
    let out = cmd.stdin(std::process::Stdio::null()).output();
    remove_owned(&owned_dir);
    let out = out?;
    if !out.status.success() {
        return Err(std::io::Error::other(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(out.stdout)
}

async fn wait_child(c: &mut Option<Child>) -> Option<ExitStatus> {
    match c {
        Some(c) => c.wait().await.ok(),
        None => std::future::pending().await,
    }
}

fn remove_owned(dir: &Option<PathBuf>) {
    if let Some(d) = dir {
        let _ = std::fs::remove_dir_all(d);
    }
}

fn spawn_failed(spec: &EngineSpec, e: &std::io::Error) -> EngineFault {
    let hint = match e.kind() {
        std::io::ErrorKind::NotFound if !spec.program.contains('/') => " (not found on PATH)",
        std::io::ErrorKind::NotFound => " (no such file)",
        std::io::ErrorKind::PermissionDenied => " (not executable)",
        _ => "",
    };
    let cwd = spec.cwd.as_ref().map(|d| format!(" in {}", d.display())).unwrap_or_default();
    EngineFault::SpawnFailed { message: format!("cannot start `{}`{cwd}: {e}{hint}", spec.program) }
}

fn placeholder_init() -> InitializeResult {
    InitializeResult {
        protocol_version: 0,
        info: clawspec_contract::ContextEngineInfo::new("", ""),
        methods: vec![],
        implementation: clawspec_contract::protocol::Implementation { name: String::new(), version: String::new(), language: None, homepage: None, extra: Default::default() },
        extra: Default::default(),
    }
}

fn describe(s: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => s.to_string(),
    }
}

/// The last `keep` bytes of `s` (on a char boundary), marked when cut.
pub fn tail_chars(s: String, keep: usize) -> String {
    if s.len() <= keep {
        return s;
    }
    let mut start = s.len() - keep;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!("[… {start} earlier bytes dropped …]\n{}", &s[start..])
}

/// The inode of the pipe behind `fd` (`None` when it is not a pipe).
fn pipe_inode(fd: std::os::fd::RawFd) -> Option<u64> {
    // SAFETY: fstat fills the struct it is given for a descriptor we own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat(fd, &mut st) } == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFIFO).then_some(st.st_ino)
}

/// Whether a process other than this one has the pipe `inode` open (its
/// `/proc/<pid>/fd` links read `pipe:[inode]`): after the engine and its
/// descendants are killed, only a process that escaped them can.
fn pipe_held_elsewhere(inode: u64) -> bool {
    let me = std::process::id().to_string();
    let want = format!("pipe:[{inode}]");
    let Ok(procs) = std::fs::read_dir("/proc") else { return false };
    procs.flatten().filter(|p| p.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()) && n != me)).any(|p| {
        std::fs::read_dir(p.path().join("fd")).into_iter().flatten().flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == want.as_str()))
    })
}

#[cfg(test)]
mod pipe_tests {
    use std::os::fd::AsRawFd;

    /// A child given the write end holds the pipe; once it is gone, only
    /// this process does.
    #[test]
    fn a_pipe_held_by_another_process_is_seen() {
        let mut child = std::process::Command::new("sleep").arg("30").stdout(std::process::Stdio::piped()).spawn().expect("sleep runs");
        let out = child.stdout.take().unwrap();
        let inode = super::pipe_inode(out.as_raw_fd()).expect("a pipe");
        assert!(super::pipe_held_elsewhere(inode), "the child holds the write end");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!super::pipe_held_elsewhere(inode), "only this process holds the read end");
    }
}
