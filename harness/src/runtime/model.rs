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
    pub messages: &'a [Msg],
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

/// The token count an overflow error names, as OpenClaw reads it (dist
/// errors-*.js `extractObservedOverflowTokenCount`,
/// `OBSERVED_OVERFLOW_TOKEN_PATTERNS`: "prompt is too long: N tokens > M
/// maximum", "requested N tokens", "resulted in N tokens", case-insensitive,
/// commas allowed, positive). The precheck's own error names none.
pub fn observed_overflow_tokens(message: &str) -> Option<u64> {
    let lower = message.to_ascii_lowercase();
    let number_at = |s: &str| -> Option<(u64, usize)> {
        let t = s.trim_start();
        let skipped = s.len() - t.len();
        let len = t.find(|c: char| !(c.is_ascii_digit() || c == ',')).unwrap_or(t.len());
        let n: u64 = t[..len].replace(',', "").parse().ok()?;
        Some((n, skipped + len))
    };
    fn after(n_end: &str, sep_ws: bool) -> Option<&str> {
        // `\s+tokens`: at least one space before "tokens".
        let t = n_end.trim_start();
        (!sep_ws || t.len() < n_end.len()).then_some(())?;
        t.strip_prefix("tokens")
    }
    // /prompt is too long:\s*([\d,]+)\s+tokens\s*>\s*[\d,]+\s+maximum/i
    let first = lower.match_indices("prompt is too long:").find_map(|(i, p)| {
        let rest = &lower[i + p.len()..];
        let (n, used) = number_at(rest)?;
        let rest = after(&rest[used..], true)?.trim_start().strip_prefix('>')?;
        let (_, used2) = number_at(rest)?;
        let tail = &rest[used2..];
        (tail.trim_start().len() < tail.len() && tail.trim_start().starts_with("maximum")).then_some(n)
    });
    // /requested\s+([\d,]+)\s+tokens/i, /resulted in\s+([\d,]+)\s+tokens/i
    let word = |w: &str| {
        lower.match_indices(w).find_map(|(i, p)| {
            let rest = &lower[i + p.len()..];
            (rest.trim_start().len() < rest.len()).then_some(())?;
            let (n, used) = number_at(rest)?;
            after(&rest[used..], true).map(|_| n)
        })
    };
    [first, word("requested"), word("resulted in")].into_iter().flatten().find(|n| *n > 0)
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
        let repaired = repair::repair(&policy, clawspec_contract::shared::unshare(req.messages.iter().cloned()));
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
mod observed_tokens_tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::anthropic("prompt is too long: 24001 tokens > 24000 maximum", Some(24001))]
    #[case::inside_the_sdk_body(r#"400 {"type":"error","error":{"message":"Prompt is too long: 40,001 tokens > 32,000 maximum"}}"#, Some(40001))]
    #[case::requested("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens", Some(9000))]
    #[case::resulted_in("your messages resulted in 12345 tokens", Some(12345))]
    #[case::precheck("Context overflow: prompt too large for the model (precheck).", None)]
    #[case::no_maximum("prompt is too long: 5 tokens", None)]
    #[case::zero("requested 0 tokens", None)]
    fn the_observed_count_is_what_openclaws_patterns_read(#[case] message: &str, #[case] want: Option<u64>) {
        assert_eq!(observed_overflow_tokens(message), want);
    }
}
