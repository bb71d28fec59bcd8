//! The trace of one scenario × profile run: every lifecycle call the runtime
//! sent (method + params as sent, after projection), the engine's answer, the
//! host callbacks served during the call, and host-side facts the checks need.
//! Timing-free: two runs give byte-identical traces. Goldens are traces.
//!
//! Message arrays (`messages` in params, results and callbacks) are stored
//! once per trace in [`MessageStore`] and referenced from the events, so a
//! trace grows linearly with the session; read them through
//! [`Trace::messages`], [`Trace::params`] and [`Trace::result`].

pub mod json_eq;
pub mod store;

use std::borrow::Cow;

use std::collections::BTreeMap;
use std::sync::Arc;

use clawspec_contract::AgentMessage;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use store::MessageStore;

/// Version of the trace (and golden) file format. 2: message arrays are
/// content-addressed in `store` and referenced as `{"$messages": "l-…"}`.
pub const FORMAT_VERSION: u32 = 2;

fn format_version() -> u32 {
    FORMAT_VERSION
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// [`FORMAT_VERSION`] of the writer (absent in version-1 files).
    #[serde(default = "format_version_1")]
    pub format_version: u32,
    pub scenario: String,
    pub profile: String,
    pub engine: EngineRecord,
    pub events: Vec<Event>,
    pub outcome: Outcome,
    /// Members of the plugin API the plugin read that the host does not
    /// provide (the Node adapter's `$/unknownApiMember` notifications, then
    /// its `adapter/report` `unknownApiMembers` asked at the end of a
    /// completed run), in first-read order; kept on a run that ended in an
    /// engine fault. Absent for other engines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_api_members: Vec<String>,
    /// The messages the events reference.
    #[serde(default, skip_serializing_if = "MessageStore::is_empty")]
    pub store: MessageStore,
}

fn format_version_1() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineRecord {
    /// `builtin:window`, the command line, or `plugin:<entry>`.
    pub display: String,
    /// `initialize` result `info` (absent when the handshake failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Value>,
    #[serde(default)]
    pub methods: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<Value>,
    /// Plugin hooks registered with `api.on` (Node adapter), fired at lifecycle points.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub hooks: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum Event {
    /// A lifecycle call to the engine.
    Call(CallRecord),
    /// A model (provider) call made by the runtime.
    Model(ModelRecord),
    /// A runtime decision worth knowing (legacy routing, fallback, recovery…).
    Note(NoteRecord),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    pub seq: u32,
    /// Logical turn (0 = before the first step).
    pub turn: u32,
    pub attempt: u32,
    /// Index of the scenario script step that caused the call.
    pub step: usize,
    pub method: String,
    pub params: Value,
    /// Host-side facts about this call (see [`CallMeta`]).
    #[serde(default, skip_serializing_if = "CallMeta::is_empty")]
    pub meta: CallMeta,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callbacks: Vec<CallbackRecord>,
    /// What the engine said while the call was in flight (`$/log`; stderr
    /// kept in memory only). Absent when it said nothing.
    #[serde(default, skip_serializing_if = "EngineOutput::nothing_serialised")]
    pub output: EngineOutput,
    pub reply: ReplyRecord,
}

/// The engine's own words during one call (docs/reports.md, "What the
/// engine said").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineOutput {
    /// `$/log` notifications, in arrival order (stdout is ordered, so this is
    /// as deterministic as the engine). Bounded: at most
    /// [`LOG_KEEP_BYTES`] of messages per call, then one `dropped` line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<LogLine>,
    /// stderr written during the call (tail, at most 4 KiB). Never
    /// serialised: stderr may carry pids and timestamps (Node warnings), and
    /// which call a byte lands in races the answer on stdout, so it stays out
    /// of the golden-compared trace; reports show it for failing verdicts.
    #[serde(skip)]
    pub stderr: String,
}

/// `$/log` message bytes kept per call in the trace (the driver faults the
/// engine at 16 MiB, `log-flood`; the trace keeps far less).
pub const LOG_KEEP_BYTES: usize = 16 * 1024;

impl EngineOutput {
    pub fn is_empty(&self) -> bool {
        self.log.is_empty() && self.stderr.is_empty()
    }

    /// Nothing of it goes to the trace file (stderr never does).
    pub fn nothing_serialised(&self) -> bool {
        self.log.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogLine {
    pub level: String,
    pub message: String,
}

impl CallRecord {
    /// The `messages` the engine received, resolved (`call.messages(&trace)`).
    pub fn messages(&self, t: &Trace) -> Option<Vec<Value>> {
        t.messages(&self.params)
    }

    /// The `messages` the engine received, parsed; `None` when there are none
    /// or one of them is not an `AgentMessage` (the host always sends valid ones).
    pub fn input(&self, t: &Trace) -> Option<Vec<Arc<AgentMessage>>> {
        t.parsed(&self.params)?.into_iter().collect()
    }

    /// The `messages` the engine returned that are `AgentMessage`s, parsed
    /// (those that are not are CE-ASM-002's business).
    pub fn output(&self, t: &Trace) -> Option<Vec<Arc<AgentMessage>>> {
        match &self.reply {
            ReplyRecord::Ok(v) => Some(t.parsed(v)?.into_iter().flatten().collect()),
            _ => None,
        }
    }

    /// The `messages` the engine returned, resolved.
    pub fn result_messages(&self, t: &Trace) -> Option<Vec<Value>> {
        match &self.reply {
            ReplyRecord::Ok(v) => t.messages(v),
            _ => None,
        }
    }
}

/// What the runtime knows about a call that the engine does not see.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallMeta {
    /// Why the host called (`maintain`: bootstrap|turn|compaction; `compact`:
    /// overflow|timeout_recovery|manual|budget; `assemble`: attempt|loop-hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// assemble: index where the live turn starts in `params.messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<usize>,
    /// assemble: indices in `params.messages` of volatile live input the runtime
    /// did not persist or that carry a runtime marker (announces, inter-session,
    /// retry prompts) past the boundary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volatile: Vec<usize>,
    /// Texts the runtime never persisted (suppressed announce triggers); they
    /// must not come back as durable history in later turns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpersisted: Vec<String>,
    /// Host-side token estimate of `params.messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params_tokens: Option<u64>,
    /// The request's key facts for the clause checks (free-form, stable keys).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub facts: BTreeMap<String, Value>,
}

impl CallMeta {
    pub fn is_empty(&self) -> bool {
        *self == CallMeta::default()
    }
    pub fn reason(r: &str) -> CallMeta {
        CallMeta { reason: Some(r.to_string()), ..Default::default() }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallbackRecord {
    pub method: String,
    pub params: Value,
    pub result: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ReplyRecord {
    /// The method returned (the result as received).
    Ok(Value),
    /// The method threw (a caught engine error).
    Threw { code: i64, message: String },
    /// The engine misbehaved (uncaught): the named driver fault.
    Fault { kind: String, message: String },
    /// Not called: the engine died earlier in this run.
    Skipped,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelRecord {
    pub seq: u32,
    pub turn: u32,
    pub attempt: u32,
    pub step: usize,
    pub provider: String,
    pub model: String,
    /// Messages sent (count) and the host's token estimate of the request.
    pub message_count: usize,
    pub prompt_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_addition: Option<String>,
    /// `text`, `toolUse`, `rejected` (the provider refused the request), or the error kind.
    pub outcome: String,
    /// The mock provider the request went to over HTTP, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteRecord {
    pub seq: u32,
    pub turn: u32,
    pub step: usize,
    /// Stable kebab-case code (e.g. `turn-on-legacy`, `assemble-fallback`).
    pub code: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Outcome {
    /// Every step ran.
    Completed { turns: u32, #[serde(default, skip_serializing_if = "Vec::is_empty")] failed_turns: Vec<String> },
    /// An engine fault ended the run early.
    EngineFault { kind: String, message: String, step: usize, #[serde(default)] stderr: String },
    /// The harness itself failed (bad scenario at run time, I/O).
    HarnessError { message: String },
}

impl Trace {
    /// A trace of the current format (events already interned in `store`).
    pub fn new(scenario: String, profile: String, engine: EngineRecord, events: Vec<Event>, outcome: Outcome, store: MessageStore) -> Trace {
        Trace { format_version: format_version(), scenario, profile, engine, events, outcome, unknown_api_members: Vec::new(), store }
    }

    /// `call.params` with its `messages` resolved.
    pub fn params<'a>(&self, call: &'a CallRecord) -> Cow<'a, Value> {
        self.store.resolve(&call.params)
    }

    /// The `messages` of a params/result object (`call.params`, a reply
    /// value, callback params), resolved; `None` when it has none.
    pub fn messages(&self, v: &Value) -> Option<Vec<Value>> {
        self.store.messages_of(v)
    }

    /// The `messages` of a params/result object, parsed once per trace and
    /// shared (see [`MessageStore::parsed_of`]).
    pub fn parsed(&self, v: &Value) -> Option<Vec<store::Parsed>> {
        self.store.parsed_of(v)
    }

    /// Any value of this trace with its `messages` resolved.
    pub fn resolve<'a>(&self, v: &'a Value) -> Cow<'a, Value> {
        self.store.resolve(v)
    }

    pub fn calls(&self) -> impl Iterator<Item = &CallRecord> {
        self.events.iter().filter_map(|e| match e {
            Event::Call(c) => Some(c),
            _ => None,
        })
    }

    pub fn to_pretty_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("trace serialises");
        s.push('\n');
        s
    }
}
