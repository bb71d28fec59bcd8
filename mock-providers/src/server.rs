//! A real HTTP mock per provider (wiremock): every request is validated; an
//! invalid one gets the provider's status and error body, a valid one a reply
//! in the provider's response format. Replies come from the script given to
//! [`MockProvider::start_scripted`] (in order), else from the request's
//! `x-clawspec-reply` header (`{"text": …, "thinking": …, "toolCalls":
//! [{id,name,arguments}]}`), else `{"text":"ok"}`.
//!
//! Before any transcript rule, the envelope is checked ([`crate::shape`]):
//! body size (the provider's limit), JSON content type, an object with a
//! model and a non-empty messages array. Nothing keeps request bodies unless
//! asked ([`ServeOptions::keep_bodies`]); the request log is a bounded ring.
//!
//! Thinking in a reply is signed with a signature the server mints
//! (deterministic: sha256 of provider and sequence number); when the
//! validator config tracks `known_signatures`, minted ones are registered, so
//! replaying them verbatim passes and anything else is "invalid" (B8).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::validate::{validate, Rules};
use crate::Provider;

pub const REPLY_HEADER: &str = "x-clawspec-reply";

/// One scripted model turn.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// `{id, name, arguments}` objects.
    #[serde(default)]
    pub tool_calls: Vec<Value>,
}

/// What the server keeps about the requests it answered.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Keep each logged request's body (off: only size and status).
    pub keep_bodies: bool,
    /// Requests kept in the log (oldest dropped first).
    pub log_capacity: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions { keep_bodies: false, log_capacity: 256 }
    }
}

/// One answered request.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedRequest {
    pub seq: u64,
    pub bytes: usize,
    pub status: u16,
    /// Present only with [`ServeOptions::keep_bodies`].
    pub body: Option<Vec<u8>>,
}

struct State {
    rules: Rules,
    script: VecDeque<Reply>,
    minted: u64,
    options: ServeOptions,
    log: VecDeque<LoggedRequest>,
    received: u64,
}

impl State {
    fn record(&mut self, body: &[u8], status: u16) {
        self.received += 1;
        if self.options.log_capacity == 0 {
            return;
        }
        if self.log.len() == self.options.log_capacity {
            self.log.pop_front();
        }
        let kept = self.options.keep_bodies.then(|| body.to_vec());
        self.log.push_back(LoggedRequest { seq: self.received, bytes: body.len(), status, body: kept });
    }
}

struct Validating {
    provider: Provider,
    state: Arc<Mutex<State>>,
}

impl Respond for Validating {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let p = self.provider;
        let mut st = self.state.lock().unwrap();
        let content_type = req.headers.get("content-type").and_then(|h| h.to_str().ok());
        let checked = crate::shape::check(p, content_type, &req.body).and_then(|body| validate(p, &body, &st.rules).map(|()| body));
        let body = match checked {
            Ok(body) => body,
            Err(r) => {
                st.record(&req.body, r.status);
                let mut t = ResponseTemplate::new(r.status).set_body_json(r.body);
                if p == Provider::Bedrock {
                    t = t.insert_header("x-amzn-ErrorType", "ValidationException");
                }
                return t;
            }
        };
        let _ = body;
        st.record(&req.body, 200);
        let scripted = st.script.pop_front().map(|r| serde_json::to_value(r).unwrap());
        let mut reply: Value = scripted
            .or_else(|| req.headers.get(REPLY_HEADER).and_then(|h| h.to_str().ok()).and_then(|s| serde_json::from_str(s).ok()))
            .unwrap_or_else(|| json!({"text": "ok"}));
        if let Some(t) = reply["thinking"].as_str().map(str::to_string) {
            st.minted += 1;
            let sig = crate::repair::images::digest_hex(&format!("{}:{}", p.name(), st.minted));
            if let Some(known) = st.rules.known_signatures.as_mut() {
                known.insert(sig.clone(), t);
            }
            reply["signature"] = json!(sig);
        }
        ResponseTemplate::new(200).set_body_json(render(p, &reply))
    }
}

/// `GET` here lists the logged requests (bodies only with `keep_bodies`).
pub const LOG_PATH: &str = "/_clawspec/requests";

struct LogView(Arc<Mutex<State>>);

impl Respond for LogView {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let st = self.0.lock().unwrap();
        let entries: Vec<Value> = st
            .log
            .iter()
            .map(|r| {
                let mut e = json!({"seq": r.seq, "bytes": r.bytes, "status": r.status});
                if let Some(b) = &r.body {
                    e["body"] = json!(String::from_utf8_lossy(b));
                }
                e
            })
            .collect();
        ResponseTemplate::new(200).set_body_json(json!({"received": st.received, "keepBodies": st.options.keep_bodies, "requests": entries}))
    }
}

/// A scripted reply in the provider's response format.
pub fn render(p: Provider, reply: &Value) -> Value {
    let text = reply["text"].as_str().unwrap_or("");
    let calls = reply["toolCalls"].as_array().cloned().unwrap_or_default();
    let tool = !calls.is_empty();
    let thinking = reply["thinking"].as_str();
    let sig = reply["signature"].as_str().unwrap_or("");
    match p {
        Provider::Anthropic => {
            let mut content: Vec<Value> = thinking.map(|t| json!({"type":"thinking","thinking":t,"signature":sig})).into_iter().collect();
            content.push(json!({"type":"text","text":text}));
            content.extend(calls.iter().map(|c| json!({"type":"tool_use","id":c["id"],"name":c["name"],"input":c["arguments"]})));
            json!({"id":"msg_mock","type":"message","role":"assistant","model":"mock","content":content,"stop_reason": if tool {"tool_use"} else {"end_turn"},"usage":{"input_tokens":0,"output_tokens":0}})
        }
        Provider::OpenAiChat | Provider::Mistral => {
            let tc: Vec<Value> = calls.iter().map(|c| json!({"id":c["id"],"type":"function","function":{"name":c["name"],"arguments":c["arguments"].to_string()}})).collect();
            let mut msg = json!({"role":"assistant","content":text});
            if let Some(t) = thinking {
                msg["reasoning_content"] = json!(t);
            }
            if tool {
                msg["tool_calls"] = json!(tc);
            }
            json!({"id":"chatcmpl-mock","object":"chat.completion","model":"mock","choices":[{"index":0,"message":msg,"finish_reason": if tool {"tool_calls"} else {"stop"}}]})
        }
        Provider::OpenAiResponses => {
            let mut output: Vec<Value> = thinking.map(|t| json!({"type":"reasoning","id":"rs_mock","encrypted_content":sig,"summary":[{"type":"summary_text","text":t}]})).into_iter().collect();
            output.push(json!({"type":"message","id":"msg_mock","role":"assistant","content":[{"type":"output_text","text":text}]}));
            output.extend(calls.iter().enumerate().map(|(i, c)| json!({"type":"function_call","id":format!("fc_mock{i}"),"call_id":c["id"],"name":c["name"],"arguments":c["arguments"].to_string()})));
            json!({"id":"resp_mock","object":"response","status":"completed","output":output})
        }
        Provider::Gemini => {
            let mut parts: Vec<Value> = thinking.map(|t| json!({"text":t,"thought":true,"thoughtSignature":sig})).into_iter().collect();
            parts.push(json!({"text":text}));
            parts.extend(calls.iter().enumerate().map(|(i, c)| {
                let mut v = json!({"functionCall":{"name":c["name"],"args":c["arguments"]}});
                if i == 0 && thinking.is_some() {
                    v["thoughtSignature"] = json!(sig);
                }
                v
            }));
            json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":"STOP"}]})
        }
        Provider::Bedrock => {
            let mut content: Vec<Value> = thinking.map(|t| json!({"reasoningContent":{"reasoningText":{"text":t,"signature":sig}}})).into_iter().collect();
            content.push(json!({"text":text}));
            content.extend(calls.iter().map(|c| json!({"toolUse":{"toolUseId":c["id"],"name":c["name"],"input":c["arguments"]}})));
            json!({"output":{"message":{"role":"assistant","content":content}},"stopReason": if tool {"tool_use"} else {"end_turn"},"usage":{"inputTokens":0,"outputTokens":0}})
        }
    }
}

/// A running mock provider.
pub struct MockProvider {
    pub provider: Provider,
    server: MockServer,
    state: Arc<Mutex<State>>,
}

impl MockProvider {
    pub async fn start(provider: Provider, rules: Rules) -> MockProvider {
        Self::on(Self::unrecorded().await, provider, rules, Vec::new(), ServeOptions::default()).await
    }

    /// A server answering valid requests with `script` in order (then `ok`).
    pub async fn start_scripted(provider: Provider, rules: Rules, script: Vec<Reply>) -> MockProvider {
        Self::on(Self::unrecorded().await, provider, rules, script, ServeOptions::default()).await
    }

    async fn on(server: MockServer, provider: Provider, rules: Rules, script: Vec<Reply>, options: ServeOptions) -> MockProvider {
        let state = Arc::new(Mutex::new(State { rules, script: script.into(), minted: 0, options, log: VecDeque::new(), received: 0 }));
        Mock::given(method("POST")).and(path(provider.path())).respond_with(Validating { provider, state: state.clone() }).mount(&server).await;
        Mock::given(method("GET")).and(path(LOG_PATH)).respond_with(LogView(state.clone())).mount(&server).await;
        MockProvider { provider, server, state }
    }

    /// wiremock keeps every request (body included) unless told not to; the
    /// bounded log in [`State`] replaces it.
    async fn unrecorded() -> MockServer {
        MockServer::builder().disable_request_recording().start().await
    }

    /// Base URI (`http://127.0.0.1:PORT`).
    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// The full endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("{}{}", self.uri(), self.provider.path())
    }

    /// Requests answered so far on the provider's path.
    pub async fn received(&self) -> usize {
        self.state.lock().unwrap().received as usize
    }

    /// The most recent requests (at most [`ServeOptions::log_capacity`]).
    pub fn log(&self) -> Vec<LoggedRequest> {
        self.state.lock().unwrap().log.iter().cloned().collect()
    }
}

/// `clawspec serve-provider`: serve until interrupted.
pub async fn serve(provider: Provider, port: u16, rules: Rules, options: ServeOptions) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
    let server = MockServer::builder().listener(listener).disable_request_recording().start().await;
    let m = MockProvider::on(server, provider, rules, Vec::new(), options).await;
    eprintln!("mock {} provider listening on {} (POST {}; GET {LOG_PATH} lists the last requests)", provider, m.uri(), provider.path());
    tokio::signal::ctrl_c().await?;
    Ok(())
}
