//! The six providers and how they reject.

use std::fmt;
use std::str::FromStr;

use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    Anthropic,
    OpenAiChat,
    OpenAiResponses,
    Gemini,
    Bedrock,
    Mistral,
}

pub const ALL: [Provider; 6] = [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Gemini, Provider::Bedrock, Provider::Mistral];

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
            Provider::Mistral => "mistral",
        }
    }

    /// The HTTP path the provider serves.
    pub fn path(self) -> &'static str {
        match self {
            Provider::Anthropic => "/v1/messages",
            Provider::OpenAiChat => "/v1/chat/completions",
            Provider::OpenAiResponses => "/v1/responses",
            Provider::Gemini => "/v1beta/models/mock:generateContent",
            Provider::Bedrock => "/model/mock/converse",
            Provider::Mistral => "/v1/chat/completions",
        }
    }

    /// The provider OpenClaw would use for a scenario's `provider`/`api`.
    pub fn for_openclaw(provider: &str, api: &str) -> Option<Provider> {
        Some(match (provider, api) {
            (_, "anthropic-messages") => Provider::Anthropic,
            (_, "openai-responses") | (_, "openai-codex-responses") => Provider::OpenAiResponses,
            (_, "google-generative-ai") | ("google", _) => Provider::Gemini,
            (_, "bedrock-converse-stream") | ("amazon-bedrock", _) => Provider::Bedrock,
            ("mistral", _) => Provider::Mistral,
            (_, "openai-completions") | ("openai", _) => Provider::OpenAiChat,
            ("anthropic", _) => Provider::Anthropic,
            _ => return None,
        })
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ALL.into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown provider {s:?}; providers: {}", ALL.map(|p| p.name()).join(", ")))
    }
}

/// A provider's answer to an invalid request: HTTP status and exact body.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    pub status: u16,
    pub body: Value,
    /// The human message inside the body.
    pub message: String,
}

impl Rejection {
    /// Envelopes per provider (provider-rules.md B1–B6).
    pub fn new(p: Provider, message: impl Into<String>) -> Rejection {
        Rejection::with(p, 400, message, None, None)
    }

    pub fn with(p: Provider, status: u16, message: impl Into<String>, param: Option<&str>, code: Option<&str>) -> Rejection {
        let message = message.into();
        let body = match p {
            Provider::Anthropic => json!({"type":"error","error":{"type":"invalid_request_error","message":message},"request_id":"req_mock"}),
            Provider::OpenAiChat | Provider::OpenAiResponses => {
                json!({"error":{"message":message,"type":"invalid_request_error","param":param,"code":code}})
            }
            Provider::Gemini => json!({"error":{"code":400,"message":message,"status":"INVALID_ARGUMENT"}}),
            Provider::Bedrock => json!({"message":message}),
            Provider::Mistral => json!({"object":"error","message":message,"type":param.unwrap_or("invalid_request_message_order"),"param":null,"code":code}),
        };
        Rejection { status, body, message }
    }
}
