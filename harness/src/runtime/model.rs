//! The model behind the runtime. Scenarios script every reply; the provider is
//! simulated as a `ModelClient` (scripted in-process, or HTTP through a mock
//! provider validator). A request larger than the context window fails with the
//! provider's overflow error, whatever the script says: that is how an engine
//! that ignores its budget meets overflow recovery.

use clawspec_contract::*;

use crate::scenario::model::{ModelErrorKind, ModelStep};

pub struct ModelRequest<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub system_prompt: &'a str,
    pub messages: &'a [AgentMessage],
    pub context_window: u64,
    pub prompt_tokens: u64,
    /// The request goes out as openclaw@2026.9.6's transport sends it
    /// (`wire::to_wire_openclaw_2026_9`).
    pub transport_2026_9: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelFailure {
    pub kind: ModelErrorKind,
    /// The provider rejected the request itself (HTTP 4xx from the mock).
    pub rejected: bool,
    /// The provider's error text as OpenClaw would see it.
    pub message: String,
    pub observed_tokens: Option<u64>,
}

pub trait ModelClient: Send {
    /// Answer one model call with the scripted step (already shaped as the
    /// assistant message OpenClaw would record), or fail.
    fn complete(&mut self, req: &ModelRequest<'_>, step: &ModelStep, reply: AgentMessage) -> Result<AgentMessage, ModelFailure>;
    /// The mock provider behind this client, when requests go over HTTP.
    fn via(&self) -> Option<String> {
        None
    }
}

/// Anthropic's overflow error text (shared/reference/provider-rules.md B1),
/// matched by OpenClaw's overflow classifier.
pub fn overflow_message(tokens: u64, max: u64) -> String {
    format!("prompt is too long: {tokens} tokens > {max} maximum")
}

pub fn default_error_message(kind: ModelErrorKind, tokens: u64, max: u64) -> String {
    match kind {
        ModelErrorKind::Overflow => overflow_message(tokens, max),
        ModelErrorKind::Timeout => "LLM request timed out.".into(),
        ModelErrorKind::RateLimit => "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit".into(),
        ModelErrorKind::InvalidSignature => "messages.1.content.0: Invalid `signature` in `thinking` block".into(),
        ModelErrorKind::Other => "500 api_error: Internal server error".into(),
        ModelErrorKind::Aborted => "Request was aborted.".into(),
    }
}

/// What 2026.9.6 shows the user when the provider rejects the message
/// order (dist embedded-agent-*.mjs `resolveBlockedPromptResult`,
/// embedded-agent-helpers-*.mjs: "role_ordering").
pub const ROLE_ORDERING_ERROR: &str = "Message ordering conflict - please try again. If this persists, use /new to start a fresh session.";

/// The mock Anthropic's 400 body for an assistant-first request (what the
/// host keeps as the terminal error's `errorBody`).
pub const ANTHROPIC_USER_FIRST_BODY: &str = r#"{"error":{"message":"messages: first message must use the \"user\" role","type":"invalid_request_error"},"request_id":"req_mock","type":"error"}"#;

/// The assistant message 2026.9.6 writes when a run ends on a provider's
/// rejection (real store, `clawspec twin durable-overflow-retry`): no
/// content, zero usage, `stopReason: "error"`, the HTTP status and body,
/// keyed `<runId>:terminal-error`. It is history: the next bootstrap imports
/// it, and replay drops it (an empty stream-error assistant).
pub fn terminal_error_assistant(api: &str, provider: &str, model: &str, run_id: &str, status: u16, body: &str, ts: u64) -> AgentMessage {
    serde_json::from_value(serde_json::json!({
        "role": "assistant", "content": [], "api": api, "provider": provider, "model": model,
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "error", "timestamp": ts,
        "errorMessage": format!("{status}: {body}"), "errorCode": status.to_string(), "errorBody": body,
        "idempotencyKey": format!("{run_id}:terminal-error"), "__openclaw": {"runId": run_id},
    }))
    .expect("an assistant message")
}

/// Anthropic Messages rejects a request whose first message is not a user
/// message ("messages: first message must use the \"user\" role",
/// mock-providers validate.rs B1 `anthropic_user_first`), and OpenClaw
/// 2026.9.6 sends an engine's assembled view as is: an assistant-first view
/// (a window trimmed right after a user message) fails the attempt with a
/// format error the host surfaces, no retry (gateway log of `clawspec twin
/// overflow-natural`: `failover decision … decision=surface_error
/// reason=format`). The in-process provider has to enforce it like the mock.
pub fn anthropic_user_first(api: &str, messages: &[AgentMessage]) -> Option<ModelFailure> {
    let first = messages.first()?;
    // Every other role reaches the wire as a user turn (carriers, summaries, tool results).
    (api == "anthropic-messages" && matches!(first, AgentMessage::Assistant(_))).then(|| ModelFailure {
        kind: ModelErrorKind::Other,
        rejected: true,
        message: ROLE_ORDERING_ERROR.to_string(),
        observed_tokens: None,
    })
}

/// In-process provider: enforces the context window, otherwise returns the script.
#[derive(Default)]
pub struct ScriptedModel;

impl ModelClient for ScriptedModel {
    fn complete(&mut self, req: &ModelRequest<'_>, step: &ModelStep, reply: AgentMessage) -> Result<AgentMessage, ModelFailure> {
        if req.prompt_tokens > req.context_window {
            return Err(ModelFailure {
                kind: ModelErrorKind::Overflow,
                message: overflow_message(req.prompt_tokens, req.context_window),
                observed_tokens: Some(req.prompt_tokens),
                rejected: false,
            });
        }
        if let Some(e) = &step.error {
            // A scripted overflow without a count reports just over the window.
            let tokens = e.tokens.unwrap_or(match e.kind {
                ModelErrorKind::Overflow => req.prompt_tokens.max(req.context_window + 1),
                _ => req.prompt_tokens,
            });
            return Err(ModelFailure {
                kind: e.kind,
                message: e.message.clone().unwrap_or_else(|| default_error_message(e.kind, tokens, req.context_window)),
                observed_tokens: (e.kind == ModelErrorKind::Overflow).then_some(tokens),
                rejected: false,
            });
        }
        Ok(reply)
    }
}

/// Sends every model call through a mock provider over real HTTP: the host's
/// transcript repair (mock-providers' reference repair, OpenClaw's pass
/// order) runs first, then the request is validated by the provider. A
/// rejection comes back with the provider's real error text.
pub struct HttpModel {
    pub provider: clawspec_mock_providers::Provider,
    pub endpoint: String,
}

impl ModelClient for HttpModel {
    fn complete(&mut self, req: &ModelRequest<'_>, step: &ModelStep, reply: AgentMessage) -> Result<AgentMessage, ModelFailure> {
        use clawspec_mock_providers::{client, repair, server, wire};
        // Provider limits still apply first.
        let mut scripted = ScriptedModel;
        let reply = scripted.complete(req, step, reply)?;
        let policy = repair::Policy::for_provider(self.provider);
        let repaired = repair::repair(&policy, req.messages.to_vec());
        let options = wire::RequestOptions { model: req.model.into(), system: Some(req.system_prompt.into()), thinking: false };
        let body = if req.transport_2026_9 { wire::to_wire_openclaw_2026_9(self.provider, &repaired, &options) } else { wire::to_wire(self.provider, &repaired, &options) };
        let calls: Vec<serde_json::Value> = step.tool_calls.iter().map(|c| serde_json::json!({"id": c.id, "name": c.name, "arguments": c.arguments})).collect();
        let script = serde_json::json!({"text": step.text.clone().unwrap_or_default(), "toolCalls": calls});
        match client::post_json(&self.endpoint, &body, &[(server::REPLY_HEADER, script.to_string())]) {
            Ok((200, _)) => Ok(reply),
            Ok((status, v)) => {
                let msg = v.pointer("/error/message").or_else(|| v.get("message")).and_then(|m| m.as_str()).unwrap_or("provider error").to_string();
                Err(ModelFailure { kind: ModelErrorKind::Other, message: format!("{status} {}: {msg}", self.provider), observed_tokens: None, rejected: true })
            }
            Err(e) => Err(ModelFailure { kind: ModelErrorKind::Other, message: format!("mock provider unreachable: {e}"), observed_tokens: None, rejected: false }),
        }
    }

    fn via(&self) -> Option<String> {
        Some(self.provider.name().to_string())
    }
}

#[cfg(test)]
mod user_first_tests {
    use super::*;

    #[test]
    fn anthropic_rejects_an_assistant_first_request_only() {
        let user = AgentMessage::user_text("hi");
        let asst: AgentMessage = serde_json::from_value(serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "x"}]})).unwrap();
        let f = anthropic_user_first("anthropic-messages", &[asst.clone(), user.clone()]).expect("rejected");
        assert!(f.rejected && f.kind == ModelErrorKind::Other && f.message == ROLE_ORDERING_ERROR);
        assert_eq!(anthropic_user_first("anthropic-messages", &[user.clone(), asst.clone()]), None);
        assert_eq!(anthropic_user_first("openai-responses", &[asst, user.clone()]), None);
        // A runtime-context carrier first is a user turn on the wire.
        let carrier: AgentMessage = serde_json::from_value(serde_json::json!({"role": "custom", "customType": "openclaw.runtime-context", "content": "ctx"})).unwrap();
        assert_eq!(anthropic_user_first("anthropic-messages", &[carrier, user]), None);
    }

    #[test]
    fn a_terminal_error_is_an_empty_error_assistant() {
        let m = terminal_error_assistant("anthropic-messages", "anthropic", "claude-sonnet-4-6", "run-0001", 400, ANTHROPIC_USER_FIRST_BODY, 5);
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["content"], serde_json::json!([]));
        assert_eq!(v["stopReason"], "error");
        assert_eq!(v["idempotencyKey"], "run-0001:terminal-error");
        assert!(v["errorMessage"].as_str().unwrap().starts_with("400: {\"error\""));
    }
}
