//! Scripted provider failures: what a real provider sends when a scenario
//! says a model call fails, so a real OpenClaw host classifies it exactly as
//! it would in production (`Reply::error`).
//!
//! Bodies are Anthropic's error envelope (`{"type":"error","error":{type,
//! message}}`) with the status Anthropic uses for each kind. OpenClaw's
//! Anthropic transport sets `maxRetries: 0` on the SDK client
//! (`@openclaw/ai/dist/anthropic-*.mjs`), so every scripted failure reaches
//! OpenClaw's own recovery (overflow → compaction + retry, timeout → timeout
//! recovery, failover errors → surfaced) and each retry consumes the next
//! scripted reply, as in the reference runtime.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use crate::Provider;

/// Which failure a scripted model call produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// HTTP 400 `invalid_request_error` "prompt is too long: N tokens > M maximum"
    /// (matched by OpenClaw's overflow classifier, openclaw
    /// `dist/embedded-agent-helpers-*.mjs`).
    Overflow,
    /// HTTP 429 `rate_limit_error`, with `retry-after`.
    RateLimit,
    /// HTTP 500 `api_error`.
    Server,
    /// HTTP 400 `invalid_request_error` on a thinking signature.
    InvalidSignature,
    /// No answer before the host's provider timeout: the response is held for
    /// `delay_ms` (the plan sets it well past `models.providers.<id>.timeoutSeconds`).
    Timeout,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    pub kind: FailureKind,
    /// The provider's error text; the kind's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For `timeout`: how long the answer is held back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
}

/// Default provider texts, the same as the reference runtime's
/// (`harness/src/runtime/model.rs default_error_message`) minus the status
/// prefix the host's error formatter adds.
fn default_message(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Overflow => "prompt is too long",
        FailureKind::RateLimit => "Number of request tokens has exceeded your per-minute rate limit",
        FailureKind::Server => "Internal server error",
        FailureKind::InvalidSignature => "messages.1.content.0: Invalid `signature` in `thinking` block",
        FailureKind::Timeout => "",
    }
}

/// The HTTP answer for a scripted failure, or `None` for a timeout (the
/// caller holds its normal answer back by [`hold`] instead).
pub fn anthropic_response(f: &Failure) -> Option<ResponseTemplate> {
    response(Provider::Anthropic, f)
}

/// The HTTP status and error body `p` answers a scripted failure with
/// (`None` for a timeout, or a Bedrock failure: the mock does not stream
/// Bedrock). Envelopes and statuses per provider:
/// - Anthropic: `{"type":"error","error":{type,message}}`, 400
///   `invalid_request_error` / 429 `rate_limit_error` / 500 `api_error`
///   (Anthropic API reference, "Errors").
/// - OpenAI (Chat Completions and Responses): `{"error":{message,type,param,code}}`,
///   400 `invalid_request_error` (code `context_length_exceeded` on overflow) /
///   429 `rate_limit_exceeded` / 500 `server_error` (OpenAI API reference, "Error codes").
/// - Gemini: `{"error":{code,message,status}}`, 400 `INVALID_ARGUMENT` /
///   429 `RESOURCE_EXHAUSTED` / 500 `INTERNAL` (Gemini API troubleshooting, "Error codes").
/// - Mistral: `{"object":"error",message,type,param,code}` with the same statuses.
pub fn response(p: Provider, f: &Failure) -> Option<ResponseTemplate> {
    let (status, body) = error_body(p, f)?;
    let mut t = ResponseTemplate::new(status).set_body_json(body);
    if f.kind == FailureKind::RateLimit {
        t = t.insert_header("retry-after", "1");
    }
    Some(t)
}

/// The status and JSON body of [`response`] (what a host's SDK quotes in its
/// error text, e.g. the Anthropic SDK's `` `${status} ${JSON.stringify(body)}` ``).
pub fn error_body(p: Provider, f: &Failure) -> Option<(u16, Value)> {
    let status = match f.kind {
        FailureKind::Overflow | FailureKind::InvalidSignature => 400,
        FailureKind::RateLimit => 429,
        FailureKind::Server => 500,
        FailureKind::Timeout => return None,
    };
    let message = f.message.clone().unwrap_or_else(|| default_message(f.kind).to_string());
    let body = match p {
        Provider::Anthropic => {
            let ty = match status {
                400 => "invalid_request_error",
                429 => "rate_limit_error",
                _ => "api_error",
            };
            json!({"type": "error", "error": {"type": ty, "message": message}, "request_id": "req_mock"})
        }
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            let (ty, code) = match f.kind {
                FailureKind::Overflow => ("invalid_request_error", json!("context_length_exceeded")),
                FailureKind::InvalidSignature => ("invalid_request_error", Value::Null),
                FailureKind::RateLimit => ("requests", json!("rate_limit_exceeded")),
                _ => ("server_error", Value::Null),
            };
            json!({"error": {"message": message, "type": ty, "param": null, "code": code}})
        }
        Provider::Gemini => {
            let st = match status {
                400 => "INVALID_ARGUMENT",
                429 => "RESOURCE_EXHAUSTED",
                _ => "INTERNAL",
            };
            json!({"error": {"code": status, "message": message, "status": st}})
        }
        Provider::Mistral => {
            let ty = match status {
                400 => "invalid_request_error",
                429 => "rate_limited",
                _ => "internal_server_error",
            };
            json!({"object": "error", "message": message, "type": ty, "param": null, "code": status.to_string()})
        }
        Provider::Bedrock => return None,
    };
    Some((status, body))
}

/// The header an Anthropic SDK client numbers its own retries of one request
/// with (`@anthropic-ai/sdk` client.js `buildHeaders`: `X-Stainless-Retry-Count`).
pub const RETRY_COUNT_HEADER: &str = "x-stainless-retry-count";

/// The answer to a client's own retry of a request that got a scripted
/// failure: the same failure again. A scripted failure is the provider's
/// state for that call (a per-day rate limit, a down server, a model that
/// does not answer), and a client retrying within seconds meets it again,
/// so the failure reaches the host as it would in production. 2026.4.26's
/// Anthropic transport leaves the SDK at its default `maxRetries` (2; pi-ai
/// passes `maxRetries` only when set, @mariozechner/pi-ai
/// dist/providers/anthropic.js:304), so without this a single scripted 429, 5xx or timeout was
/// retried away by the SDK and the turn went on with the next reply (twin
/// --keep provider-error-surfaced: three requests, no error, the mock's
/// unscripted "ok" answered); 2026.9.6 sets `maxRetries: 0` and never retries.
/// `None` for a first request (retry count absent or 0) or when the last
/// request did not fail.
pub fn retried_failure(retry_count: Option<&str>, last_failure: Option<&Value>) -> Option<Value> {
    let n: u32 = retry_count?.trim().parse().ok()?;
    (n > 0).then(|| last_failure.cloned()).flatten()
}

/// How long a timeout failure holds the answer back.
pub fn hold(f: &Failure) -> Option<Duration> {
    (f.kind == FailureKind::Timeout).then(|| Duration::from_millis(f.delay_ms.unwrap_or(30_000)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{MockProvider, Reply};

    async fn post(uri: &str) -> (u16, serde_json::Value, std::time::Duration) {
        let body = json!({"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]});
        let url = format!("{uri}{}", Provider::Anthropic.path());
        let t0 = std::time::Instant::now();
        let (status, v) = tokio::task::spawn_blocking(move || crate::client::post_json(&url, &body, &[])).await.unwrap().unwrap();
        (status, v, t0.elapsed())
    }

    fn failing(kind: FailureKind, message: Option<&str>) -> Reply {
        Reply { error: Some(Failure { kind, message: message.map(str::to_string), delay_ms: Some(300) }), ..Default::default() }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn scripted_failures_answer_with_the_providers_status_and_envelope_then_the_script_goes_on() {
        let script = vec![
            failing(FailureKind::Overflow, Some("prompt is too long: 40001 tokens > 32000 maximum")),
            failing(FailureKind::RateLimit, None),
            failing(FailureKind::Server, None),
            Reply { text: "after".into(), ..Default::default() },
        ];
        let m = MockProvider::start_scripted(Provider::Anthropic, Default::default(), script).await;
        let (s, b, _) = post(&m.uri()).await;
        assert_eq!((s, b["error"]["type"].as_str(), b["error"]["message"].as_str()), (400, Some("invalid_request_error"), Some("prompt is too long: 40001 tokens > 32000 maximum")));
        let (s, b, _) = post(&m.uri()).await;
        assert_eq!((s, b["error"]["type"].as_str()), (429, Some("rate_limit_error")));
        let (s, b, _) = post(&m.uri()).await;
        assert_eq!((s, b["type"].as_str(), b["error"]["type"].as_str()), (500, Some("error"), Some("api_error")));
        let (s, _, _) = post(&m.uri()).await;
        assert_eq!(s, 200, "the script continues after the failures");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_scripted_model_consumes_the_script() {
        let m = MockProvider::start_scripted_for_model(Provider::Anthropic, Default::default(), vec![failing(FailureKind::Server, None)], "main").await;
        let url = format!("{}{}", m.uri(), Provider::Anthropic.path());
        let send = |model: &'static str| {
            let url = url.clone();
            tokio::task::spawn_blocking(move || crate::client::post_json(&url, &json!({"model":model,"max_tokens":16,"messages":[{"role":"user","content":"hi"}]}), &[]).unwrap().0)
        };
        assert_eq!(send("utility").await.unwrap(), 200, "a side call gets the default answer");
        assert_eq!(send("main").await.unwrap(), 500, "the scripted call still gets its scripted failure");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_subagent_run_takes_only_the_replies_addressed_to_it() {
        let r = |text: &str, to: Option<&str>| Reply { text: text.into(), addressed_to: to.map(str::to_string), ..Default::default() };
        // The child's reply sits between the parent's two calls, as a spawn turn scripts it.
        let script = vec![r("spawning", None), r("child result", Some("[Subagent Task]\n\nresearch")), r("parent done", None)];
        let m = MockProvider::start_scripted_for_model(Provider::Anthropic, Default::default(), script, "main").await;
        let url = format!("{}{}", m.uri(), Provider::Anthropic.path());
        let ask = |model: &'static str, content: serde_json::Value| {
            let url = url.clone();
            async move { tokio::task::spawn_blocking(move || crate::client::post_json(&url, &json!({"model":model,"max_tokens":16,"messages":[{"role":"user","content":content}]}), &[]).unwrap().1["content"][0]["text"].as_str().unwrap_or_default().to_string()).await.unwrap() }
        };
        let child = || json!([{"type": "text", "text": "[Subagent Context] …\n\n[Subagent Task]\n\nresearch the pricing page"}]);
        assert_eq!(ask("main", json!("go")).await, "spawning");
        assert_eq!(ask("main", child()).await, "child result", "the child's request takes its addressed reply first");
        assert_eq!(ask("main", child()).await, "ok", "and, its replies used up, never the parent's");
        assert_eq!(ask("main", json!("research")).await, "parent done", "text without the whole address is the parent's");
        assert_eq!(ask("utility", child()).await, "ok");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_address_in_the_system_prompt_counts() {
        // openclaw@2026.4.26 names a subagent's task in its system prompt only.
        let r = |text: &str, to: Option<&str>| Reply { text: text.into(), addressed_to: to.map(str::to_string), ..Default::default() };
        let script = vec![r("child result", Some("- You were created to handle: research\n")), r("parent done", None)];
        let m = MockProvider::start_scripted_for_model(Provider::Anthropic, Default::default(), script, "main").await;
        let url = format!("{}{}", m.uri(), Provider::Anthropic.path());
        let ask = |system: serde_json::Value| {
            let url = url.clone();
            async move { tokio::task::spawn_blocking(move || crate::client::post_json(&url, &json!({"model":"main","max_tokens":16,"system":system,"messages":[{"role":"user","content":"Begin."}]}), &[]).unwrap().1["content"][0]["text"].as_str().unwrap_or_default().to_string()).await.unwrap() }
        };
        assert_eq!(ask(json!("You are the main agent.")).await, "parent done");
        assert_eq!(ask(json!([{"type": "text", "text": "## Your Role\n- You were created to handle: research\n- Complete this task."}])).await, "child result");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn step_markers_keep_each_steps_replies_to_that_step() {
        let r = |text: &str, step| Reply { text: text.into(), step: Some(step), ..Default::default() };
        let script = vec![r("a0", 0), r("b0-unused", 0), r("a1", 1), r("a2", 2)];
        let m = MockProvider::start_scripted_for_model(Provider::Anthropic, Default::default(), script, "main").await;
        let base = m.uri();
        let call = |path: &'static str, body: serde_json::Value| {
            let url = format!("{base}{path}");
            async move { tokio::task::spawn_blocking(move || crate::client::post_json(&url, &body, &[]).unwrap()).await.unwrap() }
        };
        let ask = || call("/v1/messages", json!({"model":"main","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}));
        let text = |v: (u16, serde_json::Value)| v.1["content"][0]["text"].as_str().unwrap_or_default().to_string();
        call(crate::server::STEP_PATH, json!({"step": 0})).await;
        assert_eq!(text(ask().await), "a0");
        let (_, marked) = call(crate::server::STEP_PATH, json!({"step": 1})).await;
        assert_eq!(marked["dropped"], 1, "step 0's unasked reply is dropped");
        assert_eq!(text(ask().await), "a1");
        assert_eq!(text(ask().await), "ok", "an extra call in step 1 does not take step 2's reply");
        call(crate::server::STEP_PATH, json!({"step": 2})).await;
        assert_eq!(text(ask().await), "a2");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_clients_own_retry_meets_the_same_failure_and_a_new_call_takes_the_next_reply() {
        let script = vec![failing(FailureKind::RateLimit, Some("per-day rate limit")), Reply { text: "next".into(), ..Default::default() }];
        let m = MockProvider::start_scripted(Provider::Anthropic, Default::default(), script).await;
        let url = format!("{}{}", m.uri(), Provider::Anthropic.path());
        let send = |retry: Option<&'static str>| {
            let url = url.clone();
            async move {
                let headers: Vec<(&str, String)> = retry.map(|n| vec![(RETRY_COUNT_HEADER, n.to_string())]).unwrap_or_default();
                let body = json!({"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]});
                tokio::task::spawn_blocking(move || crate::client::post_json(&url, &body, &headers).unwrap()).await.unwrap()
            }
        };
        assert_eq!(send(Some("0")).await.0, 429);
        let (s, b) = send(Some("1")).await;
        assert_eq!((s, b["error"]["message"].as_str()), (429, Some("per-day rate limit")), "the SDK's retry meets the same limit");
        assert_eq!(send(Some("2")).await.0, 429);
        let (s, b) = send(None).await;
        assert_eq!((s, b["content"][0]["text"].as_str()), (200, Some("next")), "the host's own next call takes the next reply");
        let (s, b) = send(Some("1")).await;
        assert_eq!((s, b["content"][0]["text"].as_str()), (200, Some("ok")), "a retry after a success is a plain unscripted call");
    }

    #[test]
    fn only_a_numbered_retry_repeats_the_failure() {
        let f = json!({"error": {"kind": "server"}});
        assert_eq!(retried_failure(Some("1"), Some(&f)), Some(f.clone()));
        assert_eq!(retried_failure(Some("0"), Some(&f)), None);
        assert_eq!(retried_failure(None, Some(&f)), None);
        assert_eq!(retried_failure(Some("x"), Some(&f)), None);
        assert_eq!(retried_failure(Some("2"), None), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_scripted_timeout_holds_the_answer_back() {
        let m = MockProvider::start_scripted(Provider::Anthropic, Default::default(), vec![failing(FailureKind::Timeout, None)]).await;
        let (s, _, took) = post(&m.uri()).await;
        assert_eq!(s, 200);
        assert!(took >= std::time::Duration::from_millis(300), "held back only {took:?}");
    }
}
