//! The running engine process.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt as _;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawspec_contract::protocol::{code, method, Frame, Id, InitializeResult, Notification, Request, Response};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};

use super::lines::{self, LineEvent};
use super::stderr::{self, StderrBuf};
use super::*;

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
    config: DriverConfig,
    next_id: u64,
    given_up: BTreeSet<u64>,
    /// stdout closed: every further call fails the same way.
    closed: bool,
}

struct NoHost;
impl HostHandler for NoHost {
    fn request(&mut self, m: &str, _: &Value) -> Result<Value, RpcError> {
        Err(RpcError { code: code::METHOD_NOT_FOUND, message: format!("{m} is not available during initialize"), data: None })
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

impl Engine {
    /// Spawn the process (in its own process group) and run `initialize`.
    pub async fn start(spec: &EngineSpec, config: &DriverConfig, init: &InitializeParams) -> Result<Engine, EngineFault> {
        let mut cmd = std::process::Command::new(&spec.program);
        cmd.args(&spec.args).envs(&spec.env).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(d) = &spec.cwd {
            cmd.current_dir(d);
        }
        // Own process group, so a kill reaches grandchildren too.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setpgid(0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| EngineFault::SpawnFailed { message: format!("cannot start `{}`: {e}", spec.program) })?;
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let err = child.stderr.take().expect("piped stderr");
        let buf: stderr::Shared = Arc::new(Mutex::new(StderrBuf::new(config.stderr_keep_bytes)));
        let stderr_task = stderr::spawn_reader(err, buf.clone());
        let lines = lines::spawn_reader(stdout, config.max_line_bytes);
        let mut e = Engine {
            init: InitializeResult {
                protocol_version: 0,
                info: clawspec_contract::ContextEngineInfo::new("", ""),
                methods: vec![],
                implementation: clawspec_contract::protocol::Implementation {
                    name: String::new(),
                    version: String::new(),
                    language: None,
                    homepage: None,
                    extra: Default::default(),
                },
                extra: Default::default(),
            },
            child: Some(child),
            pgid,
            stdin,
            lines,
            stderr: buf,
            stderr_task: Some(stderr_task),
            config: config.clone(),
            next_id: 0,
            given_up: BTreeSet::new(),
            closed: false,
        };
        let params = serde_json::to_value(init).expect("initialize params");
        let opts = CallOptions { timeout: Some(config.initialize_timeout), abort_signal: None };
        let reply = match e.call(method::INITIALIZE, params, opts, &mut NoHost).await {
            Ok(r) => r,
            Err(f) => {
                let f = match f {
                    EngineFault::CrashMidCall { status, stderr, .. } | EngineFault::ExitBeforeShutdown { stderr, method: status } => {
                        EngineFault::CrashAtStart { status, stderr }
                    }
                    other => other,
                };
                e.kill_now().await;
                return Err(f);
            }
        };
        let stderr = e.stderr_tail();
        let result = match reply {
            Reply::Ok(v) => v,
            Reply::Threw(err) if err.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
                e.kill_now().await;
                let detail = format!("{} (supported: {})", err.message, err.data.map(|d| d.to_string()).unwrap_or_else(|| "?".into()));
                return Err(EngineFault::UnsupportedProtocolVersion { requested: init.protocol_version, detail, stderr });
            }
            Reply::Threw(err) => {
                e.kill_now().await;
                return Err(EngineFault::BadHandshake { detail: format!("initialize failed: {} ({})", err.message, err.code), stderr });
            }
        };
        if let Some(v) = result.get("protocolVersion").and_then(Value::as_u64) {
            if v != init.protocol_version as u64 {
                e.kill_now().await;
                return Err(EngineFault::UnsupportedProtocolVersion { requested: init.protocol_version, detail: format!("engine answered protocolVersion {v}"), stderr });
            }
        }
        match serde_json::from_value::<InitializeResult>(result) {
            Ok(r) => e.init = r,
            Err(err) => {
                e.kill_now().await;
                return Err(EngineFault::BadHandshake { detail: err.to_string(), stderr });
            }
        }
        Ok(e)
    }

    fn stderr_mark(&self) -> u64 {
        self.stderr.lock().expect("stderr").total
    }

    fn stderr_since(&self, mark: u64) -> String {
        self.stderr.lock().expect("stderr").since(mark)
    }

    async fn write_line(&mut self, v: &impl serde::Serialize) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec(v).expect("frame serialises");
        bytes.push(b'\n');
        let stdin = self.stdin.as_mut().ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin.write_all(&bytes).await?;
        stdin.flush().await
    }

    /// The process ended (stdout closed or stdin broken): name how.
    async fn ended(&mut self, m: &str, mark: u64, partial: Option<String>) -> EngineFault {
        self.closed = true;
        let status = match self.child.as_mut() {
            Some(c) => match tokio::time::timeout(Duration::from_secs(2), c.wait()).await {
                Ok(Ok(s)) => Some(s),
                _ => None,
            },
            None => None,
        };
        // The process is gone: let the stderr reader drain the pipe (bounded,
        // in case a grandchild keeps it open) so the slice is complete.
        if status.is_some() {
            if let Some(t) = self.stderr_task.take() {
                let _ = tokio::time::timeout(Duration::from_millis(500), t).await;
            }
        }
        let stderr = self.stderr_since(mark);
        if let Some(fragment) = partial {
            return EngineFault::PartialLine { method: m.into(), fragment, stderr };
        }
        match status {
            Some(s) if s.success() => EngineFault::ExitBeforeShutdown { method: m.into(), stderr },
            Some(s) => EngineFault::CrashMidCall { method: m.into(), status: describe(s), stderr },
            None => EngineFault::CrashMidCall { method: m.into(), status: "stdout closed".into(), stderr },
        }
    }

    /// One request/response round trip; serves host requests meanwhile.
    pub async fn call(&mut self, m: &str, params: Value, opts: CallOptions, host: &mut dyn HostHandler) -> Result<Reply, EngineFault> {
        let mark = self.stderr_mark();
        if self.closed {
            return Err(self.ended(m, mark, None).await);
        }
        self.next_id += 1;
        let id = self.next_id;
        if self.write_line(&Request::new(id, m, params)).await.is_err() {
            return Err(self.ended(m, mark, None).await);
        }
        let timeout = opts.timeout.unwrap_or(if m == method::COMPACT { self.config.compact_timeout } else { self.config.call_timeout });
        let mut deadline = Instant::now() + timeout;
        let mut aborted = false;
        let mut tick = tokio::time::interval(Duration::from_millis(50));
        loop {
            tokio::select! {
                ev = self.lines.recv() => {
                    let ev = ev.unwrap_or(LineEvent::Eof);
                    match ev {
                        LineEvent::Eof => return Err(self.ended(m, mark, None).await),
                        LineEvent::Partial(p) => return Err(self.ended(m, mark, Some(p)).await),
                        LineEvent::InvalidUtf8 => return Err(EngineFault::InvalidUtf8 { method: m.into(), stderr: self.stderr_since(mark) }),
                        LineEvent::Oversized => return Err(EngineFault::OversizedResponse { method: m.into(), limit: self.config.max_line_bytes, stderr: self.stderr_since(mark) }),
                        LineEvent::Line(line) => {
                            if line.trim().is_empty() {
                                continue;
                            }
                            match Frame::decode(&line) {
                                Err(detail) => {
                                    let shown: String = line.chars().take(200).collect();
                                    return Err(EngineFault::NonJsonLine { method: m.into(), line: shown, detail, stderr: self.stderr_since(mark) });
                                }
                                Ok(Frame::Response(r)) => match r.id {
                                    Id::Num(n) if n == id => {
                                        return Ok(match r.error {
                                            Some(e) => Reply::Threw(e),
                                            None => Reply::Ok(r.result.unwrap_or(Value::Null)),
                                        });
                                    }
                                    Id::Num(n) if self.given_up.contains(&n) => continue,
                                    other => {
                                        let got = match other { Id::Num(n) => n.to_string(), Id::Str(s) => format!("{s:?}") };
                                        return Err(EngineFault::WrongId { method: m.into(), expected: id.to_string(), got, stderr: self.stderr_since(mark) });
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
                                    if self.write_line(&resp).await.is_err() {
                                        return Err(self.ended(m, mark, None).await);
                                    }
                                }
                                Ok(Frame::Notification(n)) => host.notification(&n.method, &n.params),
                            }
                        }
                    }
                }
                _ = sleep_until(deadline) => {
                    match (&opts.abort_signal, aborted) {
                        (Some(sig), false) => {
                            aborted = true;
                            let _ = self.write_line(&Notification::new(method::ABORT, json!({"signal": sig, "reason": "timeout"}))).await;
                            deadline = Instant::now() + self.config.shutdown_grace;
                        }
                        _ => {
                            self.given_up.insert(id);
                            return Err(EngineFault::Timeout { method: m.into(), timeout_ms: timeout.as_millis() as u64, stderr: self.stderr_since(mark) });
                        }
                    }
                }
                _ = tick.tick() => {
                    let flooded = self.stderr_mark() - mark > self.config.stderr_flood_bytes as u64;
                    if flooded {
                        return Err(EngineFault::StderrFlood { method: m.into(), limit: self.config.stderr_flood_bytes, stderr: self.stderr_since(mark) });
                    }
                }
            }
        }
    }

    /// Send a notification (e.g. `$/abort`).
    pub async fn notify(&mut self, m: &str, params: Value) -> Result<(), EngineFault> {
        let mark = self.stderr_mark();
        if self.write_line(&Notification::new(m, params)).await.is_err() {
            return Err(self.ended(m, mark, None).await);
        }
        Ok(())
    }

    /// `shutdown`, wait for exit, kill the process group after the grace period.
    pub async fn shutdown(mut self) -> ShutdownReport {
        let grace = self.config.shutdown_grace;
        let answer = self.call(method::SHUTDOWN, json!({}), CallOptions { timeout: Some(grace), abort_signal: None }, &mut NoHost).await;
        let fault = answer.err();
        // Closing stdin lets engines that read to EOF exit too.
        self.stdin.take();
        let mut exited_cleanly = false;
        let mut exit_status = None;
        if let Some(c) = self.child.as_mut() {
            if let Ok(Ok(s)) = tokio::time::timeout(grace, c.wait()).await {
                exited_cleanly = fault.is_none();
                exit_status = Some(describe(s));
            }
        }
        let fault = match fault {
            Some(f) => Some(f),
            None if exit_status.is_none() => Some(EngineFault::NoExitAfterShutdown { stderr: self.stderr_tail() }),
            None => None,
        };
        self.kill_now().await;
        ShutdownReport { exited_cleanly, exit_status, fault, stderr_tail: self.stderr_tail() }
    }

    async fn kill_now(&mut self) {
        if self.pgid > 0 {
            // SAFETY: plain syscall on our own child's process group.
            unsafe {
                libc::killpg(self.pgid, libc::SIGKILL);
            }
        }
        if let Some(mut c) = self.child.take() {
            let _ = c.start_kill();
            let _ = c.wait().await;
        }
    }

    /// Kill the process group now (after a fault). Never leaves a zombie.
    pub async fn kill(mut self) -> String {
        self.kill_now().await;
        self.stderr_tail()
    }

    /// stderr captured so far (tail).
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().expect("stderr").tail()
    }

    /// The child's process id (= its process group id).
    pub fn pid(&self) -> i32 {
        self.pgid
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if self.child.is_some() && self.pgid > 0 {
            // SAFETY: as in kill_now; the tokio child is reaped by kill_on_drop.
            unsafe {
                libc::killpg(self.pgid, libc::SIGKILL);
            }
        }
    }
}

fn describe(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => s.to_string(),
    }
}
