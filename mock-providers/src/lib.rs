//! Mock LLM providers and OpenClaw's transcript repair, for clawspec.
//!
//! Source of truth: `shared/reference/provider-rules.md` (A1–A8, B1–B8).
//!
//! # API
//!
//! - [`Provider`] — `anthropic`, `openai-chat`, `openai-responses`, `gemini`,
//!   `bedrock`, `mistral` (`FromStr`/`Display` use these names;
//!   [`Provider::for_openclaw`] maps OpenClaw's provider/api pair).
//! - [`wire::to_wire`]`(provider, &[AgentMessage], &RequestOptions) -> Value` —
//!   the request body OpenClaw's transport sends (`transformMessages` + the
//!   provider converter). [`wire::to_wire_verbatim`] converts without the
//!   transport's defences, to show what an unrepaired transcript looks like.
//! - [`validate::validate`]`(provider, &body, &ValidatorConfig)` →
//!   `Result<(), Rejection>`; a [`Rejection`] carries the HTTP status, the
//!   exact error body (envelope per provider) and the message. Inferred and
//!   era-dependent rules are switches in [`validate::ValidatorConfig`]
//!   (`Rules` is the same type).
//! - [`repair::repair`]`(&Policy, Vec<AgentMessage>)` — OpenClaw's hygiene
//!   pipeline in pass order, one file per pass under `src/repair/`;
//!   [`repair::Policy::for_model`]`(provider, model)` is the A6 matrix
//!   ([`repair::Policy::for_provider`] uses the provider's default model).
//!   [`repair::repair_assembled`] is the thinner path a context engine's
//!   `assemble()` output gets (A1 1.5).
//! - [`server::MockProvider::start`]`(provider, config)` /
//!   [`server::MockProvider::start_scripted`]`(provider, config, replies)` — a
//!   wiremock HTTP server validating every request and answering with the
//!   scripted reply (text, tool calls, thinking in the provider's response
//!   format) or the provider's rejection; `uri()`/`endpoint()` give its
//!   address. [`server::serve`]`(provider, port, config, options)` runs one until
//!   Ctrl-C (`clawspec serve-provider`).
//! - [`validate_transcript_file`]`(provider, path)` for `clawspec validate`
//!   (a JSON array, JSONL, or a fixture object with `messages`; repair only
//!   through [`validate_transcript_file_with`]).
//! - Fuzzing: [`gen`] (bytes / `arbitrary` / proptest transcript generator),
//!   [`fuzzing`] (the repair-then-validate check, [`fuzzing::shrink`] for a
//!   `FnMut(&[AgentMessage]) -> bool` predicate, [`fuzzing::write_fixture`]),
//!   [`sanitizer`] (the stdio `sanitize` server behind the
//!   `clawspec-sanitizer-reference` and `clawspec-sanitizer-weak` binaries).
//! - [`client::post_json`] — a tiny blocking HTTP client for loopback mocks.
//! - [`hold::HoldFront`] — a front door that keeps a scripted answer tagged
//!   with [`server::Reply::hold`] back until the driver releases it (real-host
//!   steering and aborts, no fixed sleeps).

pub mod client;
pub mod front;
pub mod fuzzing;
pub mod gen;
pub mod hold;
pub mod provider;
pub mod repair;
pub mod sanitizer;
pub mod scripted;
pub mod server;
pub mod sse;
pub mod stream;
pub mod shape;
pub mod validate;
pub mod wire;

use std::fmt;
use std::path::Path;

use clawspec_contract::AgentMessage;

pub use provider::{Provider, Rejection};
pub use validate::ValidatorConfig;

/// Why `clawspec validate` could not accept a transcript file.
#[derive(Debug)]
pub enum TranscriptFileError {
    Io(std::io::Error),
    /// Not a JSON array / JSONL of messages / fixture object; line is 1-based (JSONL).
    Parse { line: Option<usize>, message: String },
    /// The provider's answer to the request built from the file.
    Rejected(Rejection),
}

impl fmt::Display for TranscriptFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscriptFileError::Io(e) => write!(f, "cannot read transcript: {e}"),
            TranscriptFileError::Parse { line: Some(l), message } => write!(f, "line {l}: not an AgentMessage: {message}"),
            TranscriptFileError::Parse { line: None, message } => write!(f, "not a transcript: {message}"),
            TranscriptFileError::Rejected(r) => write!(f, "HTTP {} {}", r.status, r.body),
        }
    }
}

impl std::error::Error for TranscriptFileError {}

/// A JSON array of messages, a fixture object `{messages: […]}`, or JSONL.
pub fn read_transcript_file(path: &Path) -> Result<Vec<AgentMessage>, TranscriptFileError> {
    let text = std::fs::read_to_string(path).map_err(TranscriptFileError::Io)?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || (trimmed.starts_with('{') && serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v.get("messages").is_some())) {
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| TranscriptFileError::Parse { line: None, message: e.to_string() })?;
        let arr = if v.is_array() { v } else { v["messages"].clone() };
        return serde_json::from_value(arr).map_err(|e| TranscriptFileError::Parse { line: None, message: e.to_string() });
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| TranscriptFileError::Parse { line: Some(i + 1), message: e.to_string() }))
        .collect()
}

/// Validate a transcript file as sent (no repair) with the default rules.
pub fn validate_transcript_file(p: Provider, path: &Path) -> Result<(), TranscriptFileError> {
    validate_transcript_file_with(p, path, false, &ValidatorConfig::default())
}

/// As [`validate_transcript_file`], optionally after the host's repair.
pub fn validate_transcript_file_with(p: Provider, path: &Path, repair: bool, cfg: &ValidatorConfig) -> Result<(), TranscriptFileError> {
    let ms = read_transcript_file(path)?;
    let ms = if repair { repair::repair(&repair::Policy::for_provider(p), ms) } else { ms };
    let body = wire::to_wire(p, &ms, &fuzzing::request_options(p));
    validate::validate(p, &body, cfg).map_err(TranscriptFileError::Rejected)
}
