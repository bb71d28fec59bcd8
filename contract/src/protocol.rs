//! clawspec stdio engine protocol v1: newline-delimited JSON-RPC 2.0 over the
//! engine's stdin/stdout, bidirectional. See `docs/protocol.md`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::info::ContextEngineInfo;
use crate::Extra;

pub const PROTOCOL_VERSION: u32 = 1;
pub const JSONRPC: &str = "2.0";

/// Lifecycle methods the host calls, in OpenClaw's spelling.
pub mod method {
    pub const INITIALIZE: &str = "initialize";
    pub const BOOTSTRAP: &str = "bootstrap";
    pub const MAINTAIN: &str = "maintain";
    pub const INGEST: &str = "ingest";
    pub const INGEST_BATCH: &str = "ingestBatch";
    pub const AFTER_TURN: &str = "afterTurn";
    pub const COMMIT_TURN: &str = "commitTurn";
    pub const ASSEMBLE: &str = "assemble";
    pub const COMPACT: &str = "compact";
    pub const PREPARE_SUBAGENT_SPAWN: &str = "prepareSubagentSpawn";
    pub const ON_SUBAGENT_ENDED: &str = "onSubagentEnded";
    pub const DISPOSE: &str = "dispose";
    /// Call a rollback handle returned by `prepareSubagentSpawn`.
    pub const ROLLBACK: &str = "rollback";
    /// Transcript repair by an external sanitizer (fuzz-sanitizer).
    pub const SANITIZE: &str = "sanitize";
    pub const SHUTDOWN: &str = "shutdown";
    /// Host → engine notification: an `AbortSignal` fired.
    pub const ABORT: &str = "$/abort";
    /// Engine → host notification: a log line (kept in the trace, never on stdout).
    pub const LOG: &str = "$/log";
    /// Engine → host notification: the plugin read an api member the host
    /// does not provide (`{name}`; the Node adapter, once per name per run).
    /// Kept by the driver as it arrives, so a run that ends in a fault still
    /// records it (docs/reports.md, "What the engine said").
    pub const UNKNOWN_API_MEMBER: &str = "$/unknownApiMember";
    /// Engine → host requests, answered deterministically by the harness.
    pub const HOST_LLM_COMPLETE: &str = "host/llm.complete";
    pub const HOST_REWRITE_TRANSCRIPT: &str = "host/rewriteTranscriptEntries";
    pub const HOST_DELEGATE_COMPACTION: &str = "host/delegateCompaction";

    /// Required by OpenClaw's registry (`registry-contract.ts`): info, ingest, assemble, compact.
    pub const REQUIRED: [&str; 3] = [INGEST, ASSEMBLE, COMPACT];
    pub const OPTIONAL: [&str; 9] = [
        BOOTSTRAP, MAINTAIN, INGEST_BATCH, AFTER_TURN, COMMIT_TURN,
        PREPARE_SUBAGENT_SPAWN, ON_SUBAGENT_ENDED, DISPOSE, SANITIZE,
    ];
}

/// JSON-RPC error codes. Engine-thrown errors are "caught" faults of the engine's
/// method (a JS `throw`), distinct from protocol breakage.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The engine's method threw (message = the thrown error's message).
    pub const ENGINE_THREW: i64 = -32000;
    /// The call was aborted through its AbortSignal (an abort rejection).
    pub const ABORTED: i64 = -32001;
    /// Protocol version not spoken; `data = {"supported": [..]}`.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32010;
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Id {
    Num(u64),
    Str(String),
}

/// Any line on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Frame {
    Request(Request),
    Response(Response),
    Notification(Notification),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    pub jsonrpc: String,
    pub id: Id,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Notification {
    pub jsonrpc: String,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Response {
    pub jsonrpc: String,
    pub id: Id,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Request {
    pub fn new(id: u64, method: &str, params: Value) -> Self {
        Request { jsonrpc: JSONRPC.into(), id: Id::Num(id), method: method.into(), params }
    }
}

impl Notification {
    pub fn new(method: &str, params: Value) -> Self {
        Notification { jsonrpc: JSONRPC.into(), method: method.into(), params }
    }
}

impl Response {
    pub fn ok(id: Id, result: Value) -> Self {
        Response { jsonrpc: JSONRPC.into(), id, result: Some(result), error: None }
    }
    pub fn err(id: Id, code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        Response {
            jsonrpc: JSONRPC.into(),
            id,
            result: None,
            error: Some(RpcError { code, message: message.into(), data }),
        }
    }
}

impl Frame {
    /// Decode one line. Requests need `id`+`method`, responses `id` and exactly
    /// one of `result`/`error`, notifications `method` without `id`.
    pub fn decode(line: &str) -> Result<Frame, String> {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
        let obj = v.as_object().ok_or("not a JSON object")?;
        if obj.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC) {
            return Err("missing \"jsonrpc\": \"2.0\"".into());
        }
        let has_id = obj.contains_key("id");
        let has_method = obj.contains_key("method");
        let frame = if has_method && has_id {
            serde_json::from_value(v).map(Frame::Request)
        } else if has_method {
            serde_json::from_value(v).map(Frame::Notification)
        } else if has_id {
            if obj.contains_key("result") == obj.contains_key("error") {
                return Err("response must carry exactly one of \"result\" and \"error\"".into());
            }
            serde_json::from_value(v).map(Frame::Response)
        } else {
            return Err("neither a request, a response nor a notification".into());
        };
        frame.map_err(|e| e.to_string())
    }
}

/// What the host offers the engine in `initialize`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostOffers {
    /// Host requests the engine may send (`host/<name>`): `llm.complete`,
    /// `rewriteTranscriptEntries`, `delegateCompaction`.
    pub callbacks: Vec<String>,
    /// Host capabilities in OpenClaw's `hostRequirements` vocabulary.
    pub capabilities: Vec<String>,
    /// The host sends `$/abort` notifications for `abortSignal`s.
    pub abort_notifications: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub protocol_version: u32,
    /// Runtime profile id, e.g. `openclaw-2026.9.6`.
    pub profile: String,
    pub host: Implementation,
    pub offers: HostOffers,
    /// Engine/plugin configuration from the scenario or the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_config: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    pub protocol_version: u32,
    pub info: ContextEngineInfo,
    /// Optional lifecycle methods the engine implements (required ones are implied).
    pub methods: Vec<String>,
    pub implementation: Implementation,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `$/abort` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AbortParams {
    pub signal: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `host/llm.complete` params (openclaw `runtimeContext.llm.complete` /
/// `api.runtime.llm.complete`). `forCall` is the id of the host request being handled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LlmCompleteParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_call: Option<Id>,
    #[serde(default)]
    pub messages: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LlmCompleteResult {
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `sanitize` params: repair a transcript for a provider policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SanitizeParams {
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub messages: Vec<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SanitizeResult {
    pub messages: Vec<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(r#"{"jsonrpc":"2.0","id":1,"method":"assemble","params":{}}"#, "request")]
    #[case(r#"{"jsonrpc":"2.0","id":"a","result":null}"#, "response")]
    #[case(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"boom"}}"#, "response")]
    #[case(r#"{"jsonrpc":"2.0","method":"$/log","params":{"line":"x"}}"#, "notification")]
    fn decodes(#[case] line: &str, #[case] kind: &str) {
        let f = Frame::decode(line).unwrap();
        let got = match f {
            Frame::Request(_) => "request",
            Frame::Response(_) => "response",
            Frame::Notification(_) => "notification",
        };
        assert_eq!(got, kind);
    }

    #[rstest]
    #[case("hello", "not JSON")]
    #[case("[1]", "not a JSON object")]
    #[case(r#"{"id":1,"result":1}"#, "jsonrpc")]
    #[case(r#"{"jsonrpc":"2.0","id":1}"#, "exactly one")]
    #[case(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}"#, "exactly one")]
    #[case(r#"{"jsonrpc":"2.0"}"#, "neither")]
    fn rejects(#[case] line: &str, #[case] needle: &str) {
        let e = Frame::decode(line).unwrap_err();
        assert!(e.contains(needle), "{e}");
    }
}
