//! Engine driver: spawns an engine as a real child process and speaks protocol
//! v1 with it (`docs/protocol.md`). Every misbehaviour becomes a named
//! [`EngineFault`]; after a fault the process group is killed and the caller
//! moves on (a fresh process per scenario).
//!
//! One exception: a [`EngineFault::Timeout`] on a request that was fully
//! written leaves the engine running. OpenClaw's compaction safety timeout
//! rejects with "Compaction timed out" and leaves the plugin's `compact()`
//! promise running (openclaw
//! `src/agents/embedded-agent-runner/compaction-safety-timeout.ts`), so a
//! caller may go on with the same engine; the late answer is then dropped by
//! id. Callers that do not want that call [`Engine::kill`] (the runtime does).
//! Every other fault kills the whole process group before it is returned, and
//! every later call on that engine returns the same fault again.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clawspec_contract::protocol::{InitializeParams, RpcError};
use serde_json::Value;

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// argv; `program` is looked up on PATH.
    pub program: String,
    pub args: Vec<String>,
    /// Extra environment, on top of the sandbox's allow-list (or of the whole
    /// parent environment with `--no-sandbox`).
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// Shown in reports: `builtin:window`, the command line, `plugin:path`.
    pub display: String,
}

impl EngineSpec {
    /// A built-in engine served by the `clawspec` executable at `exe`
    /// (`clawspec engine <name>`).
    pub fn builtin_at(exe: &str, name: &str) -> EngineSpec {
        EngineSpec { program: exe.into(), args: vec!["engine".into(), name.into()], env: BTreeMap::new(), cwd: None, display: format!("builtin:{name}") }
    }
}

#[derive(Clone, Debug)]
pub struct DriverConfig {
    /// Default per-call timeout.
    pub call_timeout: Duration,
    /// `compact` timeout: OpenClaw's `compactContextEngineWithSafetyTimeout`
    /// default of 180 s (`agents.defaults.compaction.timeoutSeconds`,
    /// openclaw `src/agents/embedded-agent-runner/compaction-safety-timeout.ts`).
    pub compact_timeout: Duration,
    /// Time allowed for the handshake (process start included).
    pub initialize_timeout: Duration,
    /// After `shutdown` is answered (or after a fault), wait this long for exit
    /// before killing the process group.
    pub shutdown_grace: Duration,
    /// Largest stdout line accepted (bytes).
    pub max_line_bytes: usize,
    /// stderr kept per engine (bytes, ring buffer) and the flood limit: more
    /// than `stderr_flood_bytes` of stderr, or of `$/log` notifications,
    /// during one call is a fault (`stderr-flood`, `log-flood`).
    pub stderr_keep_bytes: usize,
    pub stderr_flood_bytes: usize,
    /// The engine sandbox (docs/protocol.md, "Sandbox").
    pub sandbox: Sandbox,
    /// Reuse engine processes that support it across runs (docs/protocol.md,
    /// "Warm reuse"); `None`: a fresh process per run.
    pub warm: Option<std::sync::Arc<pool::Pool>>,
    /// Offer `messageDelta` in the handshake (docs/protocol.md, "Message
    /// deltas"); engines that accept it receive each message once.
    pub message_delta: bool,
}

impl Default for DriverConfig {
    fn default() -> Self {
        DriverConfig {
            call_timeout: Duration::from_secs(30),
            compact_timeout: Duration::from_secs(180),
            initialize_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(2),
            max_line_bytes: 64 * 1024 * 1024,
            stderr_keep_bytes: 64 * 1024,
            stderr_flood_bytes: 16 * 1024 * 1024,
            sandbox: Sandbox::default(),
            warm: None,
            message_delta: true,
        }
    }
}

/// Named engine misbehaviours. `kind()` gives the stable kebab-case name used
/// in reports.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EngineFault {
    #[error("engine could not be started: {message}")]
    SpawnFailed { message: String },
    #[error("engine exited during start-up ({status}) before answering initialize")]
    CrashAtStart { status: String, stderr: String },
    #[error("engine exited ({status}) while handling {method}")]
    CrashMidCall { method: String, status: String, stderr: String },
    #[error("engine did not answer {method} within {timeout_ms} ms")]
    Timeout { method: String, timeout_ms: u64, stderr: String },
    #[error("engine wrote a line that is not a JSON-RPC frame while handling {method}: {detail}; the line: {line:?}")]
    NonJsonLine { method: String, line: String, detail: String, stderr: String },
    #[error("engine wrote a partial line and closed stdout while handling {method}; the fragment: {fragment:?}")]
    PartialLine { method: String, fragment: String, stderr: String },
    #[error("engine answered {method} (id {expected}) with id {got}")]
    WrongId { method: String, expected: String, got: String, stderr: String },
    #[error("engine response to {method} exceeds {limit} bytes")]
    OversizedResponse { method: String, limit: usize, stderr: String },
    #[error("engine wrote invalid UTF-8 while handling {method}")]
    InvalidUtf8 { method: String, stderr: String },
    #[error("engine exited with status 0 without answering {method} (before shutdown was answered)")]
    ExitBeforeShutdown { method: String, stderr: String },
    #[error("engine flooded stderr (> {limit} bytes) while handling {method}")]
    StderrFlood { method: String, limit: usize, stderr: String },
    #[error("engine flooded `$/log` notifications (> {limit} bytes) while handling {method}")]
    LogFlood { method: String, limit: usize, stderr: String },
    #[error("engine does not speak protocol version {requested}: {detail}")]
    UnsupportedProtocolVersion { requested: u32, detail: String, stderr: String },
    #[error("engine answered initialize with an invalid result: {detail}")]
    BadHandshake { detail: String, stderr: String },
    #[error("engine did not exit within the grace period after shutdown")]
    NoExitAfterShutdown { stderr: String },
    #[error("engine closed stdout but kept running while handling {method}")]
    ClosedStdout { method: String, stderr: String },
    #[error("engine exited but left {count} process(es) running: {commands}")]
    LeftoverProcesses { count: usize, commands: String, stderr: String },
}

impl EngineFault {
    pub fn kind(&self) -> &'static str {
        match self {
            EngineFault::SpawnFailed { .. } => "spawn-failed",
            EngineFault::CrashAtStart { .. } => "crash-at-start",
            EngineFault::CrashMidCall { .. } => "crash-mid-call",
            EngineFault::Timeout { .. } => "timeout",
            EngineFault::NonJsonLine { .. } => "non-json-line",
            EngineFault::PartialLine { .. } => "partial-line",
            EngineFault::WrongId { .. } => "wrong-id",
            EngineFault::OversizedResponse { .. } => "oversized-response",
            EngineFault::InvalidUtf8 { .. } => "invalid-utf8",
            EngineFault::ExitBeforeShutdown { .. } => "exit-before-shutdown",
            EngineFault::StderrFlood { .. } => "stderr-flood",
            EngineFault::LogFlood { .. } => "log-flood",
            EngineFault::UnsupportedProtocolVersion { .. } => "unsupported-protocol-version",
            EngineFault::BadHandshake { .. } => "bad-handshake",
            EngineFault::NoExitAfterShutdown { .. } => "no-exit-after-shutdown",
            EngineFault::ClosedStdout { .. } => "closed-stdout",
            EngineFault::LeftoverProcesses { .. } => "leftover-processes",
        }
    }

    /// The stderr slice captured for this fault (empty when none).
    pub fn stderr(&self) -> &str {
        match self {
            EngineFault::SpawnFailed { .. } => "",
            EngineFault::CrashAtStart { stderr, .. }
            | EngineFault::CrashMidCall { stderr, .. }
            | EngineFault::Timeout { stderr, .. }
            | EngineFault::NonJsonLine { stderr, .. }
            | EngineFault::PartialLine { stderr, .. }
            | EngineFault::WrongId { stderr, .. }
            | EngineFault::OversizedResponse { stderr, .. }
            | EngineFault::InvalidUtf8 { stderr, .. }
            | EngineFault::ExitBeforeShutdown { stderr, .. }
            | EngineFault::StderrFlood { stderr, .. }
            | EngineFault::LogFlood { stderr, .. }
            | EngineFault::UnsupportedProtocolVersion { stderr, .. }
            | EngineFault::BadHandshake { stderr, .. }
            | EngineFault::ClosedStdout { stderr, .. }
            | EngineFault::LeftoverProcesses { stderr, .. }
            | EngineFault::NoExitAfterShutdown { stderr } => stderr,
        }
    }

    /// Replace the stderr slice (after a kill the slice is re-read once the
    /// pipe has drained, so it holds everything the engine wrote).
    fn set_stderr(&mut self, text: String) {
        match self {
            EngineFault::SpawnFailed { .. } => {}
            EngineFault::CrashAtStart { stderr, .. }
            | EngineFault::CrashMidCall { stderr, .. }
            | EngineFault::Timeout { stderr, .. }
            | EngineFault::NonJsonLine { stderr, .. }
            | EngineFault::PartialLine { stderr, .. }
            | EngineFault::WrongId { stderr, .. }
            | EngineFault::OversizedResponse { stderr, .. }
            | EngineFault::InvalidUtf8 { stderr, .. }
            | EngineFault::ExitBeforeShutdown { stderr, .. }
            | EngineFault::StderrFlood { stderr, .. }
            | EngineFault::LogFlood { stderr, .. }
            | EngineFault::UnsupportedProtocolVersion { stderr, .. }
            | EngineFault::BadHandshake { stderr, .. }
            | EngineFault::ClosedStdout { stderr, .. }
            | EngineFault::LeftoverProcesses { stderr, .. }
            | EngineFault::NoExitAfterShutdown { stderr } => *stderr = text,
        }
    }
}

/// The engine's answer to one call: a result, or a caught error (a JS throw,
/// `-32000`; abort rejection `-32001`; not implemented `-32601`).
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Ok(Value),
    Threw(RpcError),
}

/// A call's params with its history held out of band: when `messages` is
/// set, `value` holds `"messages": null` where the array goes (so its place
/// among the keys is kept) and `messages` is the array, shared rather than
/// written into the JSON (see [`Engine::call_shared`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CallParams {
    pub value: Value,
    pub messages: Option<Vec<clawspec_contract::Msg>>,
}

impl From<Value> for CallParams {
    fn from(value: Value) -> Self {
        CallParams { value, messages: None }
    }
}

impl CallParams {
    /// `value` with `messages` placed under its `messages` key.
    pub fn with_messages(mut value: Value, messages: Vec<clawspec_contract::Msg>) -> Self {
        value["messages"] = Value::Null;
        CallParams { value, messages: Some(messages) }
    }

    /// The params as one JSON value, the messages written in (a copy).
    pub fn to_value(&self) -> Value {
        let mut v = self.value.clone();
        if let (Some(ms), Some(o)) = (&self.messages, v.as_object_mut()) {
            if let Some(slot) = o.get_mut("messages") {
                *slot = serde_json::to_value(ms).expect("messages serialise");
            }
        }
        v
    }
}

/// Answers engine → host requests (`host/llm.complete`, …) while a call is in
/// flight, and receives engine notifications (`$/log`). Must be deterministic.
pub trait HostHandler: Send {
    fn request(&mut self, method: &str, params: &Value) -> Result<Value, RpcError>;
    fn notification(&mut self, method: &str, params: &Value);
}

/// Options for one call.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    /// Overrides the configured timeout for this call.
    pub timeout: Option<Duration>,
    /// When the timeout fires and this is set, the driver sends
    /// `$/abort {signal, reason:"timeout"}` and reports `Reply::Threw` with code
    /// `-32001` instead of a fault if the engine then answers within the
    /// shutdown grace; otherwise the usual `Timeout` fault. (OpenClaw's
    /// compaction safety timeout races an AbortSignal.)
    pub abort_signal: Option<String>,
}

/// How the process ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ShutdownReport {
    /// Exited on its own within the grace period after `shutdown`.
    pub exited_cleanly: bool,
    pub exit_status: Option<String>,
    pub fault: Option<EngineFault>,
    pub stderr_tail: String,
}

pub mod delta;
mod lines;
mod process;
pub mod pool;
pub mod reaper;
pub mod sandbox;
mod spawn;
mod spec;
mod stderr;
pub use sandbox::Sandbox;
pub use process::{sandboxed_output, total_bytes_sent, Engine, StartFailure, UNKNOWN_API_KEEP, UNKNOWN_API_NAME_CHARS};
pub use spec::{resolve_clawspec_exe, SpecError};
