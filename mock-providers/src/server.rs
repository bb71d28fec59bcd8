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
    /// Token usage to report (`{input, output}`); zeros when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// The thinking block's signature as scripted (else one is minted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// A redacted thinking block (opaque `signature` as its data) instead of `thinking`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
    /// The call fails the way the provider fails ([`crate::scripted`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<crate::scripted::Failure>,
    /// The scenario step this reply belongs to ([`STEP_PATH`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// The answer waits for the driver's release ([`crate::hold`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<u64>,
    /// Answers only a request whose message text contains this string — a
    /// subagent's run, recognised by the task message the host gives the
    /// child — in order among the replies addressed alike. A request that
    /// contains any addressed string never takes an unaddressed reply (it
    /// gets the default answer when its own are used up), so a child run
    /// cannot consume the parent's script, whatever order the host asks in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addressed_to: Option<String>,
}

/// The text of a request's system prompt and messages (string contents and
/// text blocks), where [`Reply::addressed_to`] is looked for. The system
/// prompt counts because openclaw@2026.4.26 gives a subagent its task there
/// only (dist/subagent-system-prompt-*.js "You were created to handle: …";
/// its first user message leaves the task out, dist/subagent-spawn-*.js
/// buildSubagentInitialUserMessage).
fn message_text(body: &Value) -> String {
    let mut out = String::new();
    push_text(&mut out, &body["system"]);
    out.push('\n');
    for m in body["messages"].as_array().into_iter().flatten() {
        push_text(&mut out, &m["content"]);
        out.push('\n');
    }
    out
}

/// A string, or the text blocks of a block list one per line.
fn push_text(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => out.push_str(s),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).for_each(|t| {
            out.push_str(t);
            out.push('\n');
        }),
        _ => {}
    }
}

/// `POST {"step": n}` here before driving step `n`: replies of earlier steps
/// the host never asked for are dropped, and a step's extra calls get the
/// default answer instead of a later step's reply, so one divergence does not
/// shift every later turn (only on [`MockProvider::start_scripted_for_model`]).
pub const STEP_PATH: &str = "/__clawspec/step";

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
    /// The request's URL path (Gemini names the model there).
    pub path: String,
    /// Present only with [`ServeOptions::keep_bodies`].
    pub body: Option<Vec<u8>>,
}

struct State {
    rules: Rules,
    script: VecDeque<Reply>,
    minted: u64,
    /// Responses answered so far (each gets its own id, [`response_id`]).
    responses: u64,
    /// When set, only requests for this model consume the script; a host's
    /// side calls on another model (utility tasks) get the default answer.
    script_model: Option<String>,
    /// The step being driven ([`STEP_PATH`]); `None` = no step alignment.
    step: Option<usize>,
    /// Every [`Reply::addressed_to`] of the script, kept after its replies are used.
    addressed: Vec<String>,
    options: ServeOptions,
    log: VecDeque<LoggedRequest>,
    received: u64,
    /// The scripted failure the last request got ([`crate::scripted::retried_failure`]).
    last_failure: Option<Value>,
    /// Times wiremock's kept requests were dropped ([`MockProvider::forget_requests`]).
    forgotten: u64,
}

impl State {
    fn record(&mut self, path: &str, body: &[u8], status: u16) {
        self.received += 1;
        if self.options.log_capacity == 0 {
            return;
        }
        if self.log.len() == self.options.log_capacity {
            self.log.pop_front();
        }
        let kept = self.options.keep_bodies.then(|| body.to_vec());
        self.log.push_back(LoggedRequest { seq: self.received, bytes: body.len(), status, path: path.to_string(), body: kept });
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
                st.record(req.url.path(), &req.body, r.status);
                let mut t = ResponseTemplate::new(r.status).set_body_json(r.body);
                if p == Provider::Bedrock {
                    t = t.insert_header("x-amzn-ErrorType", "ValidationException");
                }
                return t;
            }
        };
        st.record(req.url.path(), &req.body, 200);
        // Gemini and Bedrock name the model in the URL.
        let url_path = req.url.path();
        let model = body["model"].as_str().or_else(|| crate::stream::model_in_path(url_path)).unwrap_or("").to_string();
        let for_script = st.script_model.as_deref().is_none_or(|m| model == m);
        let current = st.step;
        let in_step = |r: &Reply| matches!((current, r.step), (Some(c), Some(s)) if s > c);
        // A request carrying an addressed string takes only replies addressed to it.
        let text = message_text(&body);
        let addressed = st.addressed.iter().find(|a| text.contains(a.as_str())).cloned();
        let next = match &addressed {
            Some(a) => st.script.iter().position(|r| r.addressed_to.as_ref() == Some(a)),
            None => st.script.iter().position(|r| r.addressed_to.is_none()).filter(|_| for_script),
        };
        // A client's own immediate retry of a scripted failure meets the same failure.
        let again = crate::scripted::retried_failure(req.headers.get(crate::scripted::RETRY_COUNT_HEADER).and_then(|h| h.to_str().ok()), st.last_failure.as_ref());
        let scripted = match next {
            _ if again.is_some() => again,
            Some(i) if !in_step(&st.script[i]) => st.script.remove(i).map(|r| serde_json::to_value(r).unwrap()),
            _ => None,
        };
        let mut reply: Value = scripted
            .or_else(|| req.headers.get(REPLY_HEADER).and_then(|h| h.to_str().ok()).and_then(|s| serde_json::from_str(s).ok()))
            .unwrap_or_else(|| json!({"text": "ok"}));
        let failure: Option<crate::scripted::Failure> = serde_json::from_value(reply["error"].clone()).ok();
        st.last_failure = failure.is_some().then(|| reply.clone());
        if let Some(t) = failure.as_ref().and_then(|f| crate::scripted::response(p, f)) {
            return t;
        }
        let hold = failure.as_ref().and_then(crate::scripted::hold);
        st.responses += 1;
        if let Some(o) = reply.as_object_mut() {
            o.entry("responseId").or_insert_with(|| json!(response_id(p, st.responses)));
        }
        if let Some(t) = reply["thinking"].as_str().map(str::to_string) {
            let sig = match reply["signature"].as_str() {
                Some(scripted) => scripted.to_string(),
                None => {
                    st.minted += 1;
                    crate::repair::images::digest_hex(&format!("{}:{}", p.name(), st.minted))
                }
            };
            if let Some(known) = st.rules.known_signatures.as_mut() {
                known.insert(sig.clone(), t);
            }
            reply["signature"] = json!(sig);
        }
        let mut rendered = render(p, &reply);
        // A provider names the model that served the request: the one asked for.
        if !model.is_empty() && rendered.get("model").is_some() {
            rendered["model"] = json!(model);
        }
        // The provider knows which reasoning item each function call came with.
        let items = rendered["output"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        if let Some(rs) = items.iter().find(|x| x["type"] == "reasoning").and_then(|x| x["id"].as_str()) {
            for fc in items.iter().filter(|x| x["type"] == "function_call").filter_map(|x| x["id"].as_str()) {
                st.rules.minted_reasoning.insert(fc.to_string(), rs.to_string());
            }
        }
        let streamed = crate::stream::wants_stream(p, url_path, &body).then(|| crate::stream::encode(p, &rendered, &crate::stream::StreamMeta::new(&model, &reply, &body))).flatten();
        let t = if let Some(events) = streamed {
            ResponseTemplate::new(200).set_body_raw(events, "text/event-stream")
        } else {
            ResponseTemplate::new(200).set_body_json(rendered)
        };
        let t = match reply["hold"].as_u64() {
            Some(id) => t.insert_header(crate::hold::HOLD_HEADER, id.to_string().as_str()),
            None => t,
        };
        match hold {
            Some(d) => t.set_delay(d),
            None => t,
        }
    }
}

struct StepMarker(Arc<Mutex<State>>);

impl Respond for StepMarker {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let Some(n) = serde_json::from_slice::<Value>(&req.body).ok().and_then(|v| v["step"].as_u64()) else {
            return ResponseTemplate::new(400).set_body_json(json!({"error": "expected {\"step\": n}"}));
        };
        let mut st = self.0.lock().unwrap();
        let n = n as usize;
        st.step = Some(n);
        let before = st.script.len();
        st.script.retain(|r| r.step.is_none_or(|s| s >= n));
        ResponseTemplate::new(200).set_body_json(json!({"step": n, "dropped": before - st.script.len()}))
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
        ResponseTemplate::new(200).set_body_json(json!({"received": st.received, "keepBodies": st.options.keep_bodies, "forgotten": st.forgotten, "requests": entries}))
    }
}

/// The id of the mock's `n`-th response (from 1): every response its own,
/// as a real provider mints one per response (Anthropic `msg_…`, OpenAI
/// `chatcmpl-…`/`resp_…`, Gemini `responseId`). An engine may key messages
/// by it (lossless-claw's `assistant-response:<responseId>`); one id for every
/// reply made it drop all but the first assistant of a conversation.
pub fn response_id(p: Provider, n: u64) -> String {
    let fixed = match p {
        Provider::Anthropic => "msg_mock",
        Provider::OpenAiChat | Provider::Mistral => "chatcmpl-mock",
        Provider::OpenAiResponses => "resp_mock",
        Provider::Gemini => "mock-response",
        Provider::Bedrock => "bedrock-mock",
    };
    numbered_response_id(fixed, n)
}

/// `base` and the response's number: the one format of every mock response
/// id, here and in the reference runtime's record of a reply.
pub fn numbered_response_id(base: &str, n: u64) -> String {
    format!("{base}-{n:04}")
}

/// A scripted reply in the provider's response format.
pub fn render(p: Provider, reply: &Value) -> Value {
    // A real provider mints an id per response; a scripted reply without one
    // (a fixture) gets the API's fixed mock id.
    let id = |fixed: &'static str| reply["responseId"].as_str().map(str::to_string).unwrap_or_else(|| fixed.to_string());
    let text = reply["text"].as_str().unwrap_or("");
    let calls = reply["toolCalls"].as_array().cloned().unwrap_or_default();
    let tool = !calls.is_empty();
    let thinking = reply["thinking"].as_str();
    let sig = reply["signature"].as_str().unwrap_or("");
    match p {
        Provider::Anthropic => {
            let mut content: Vec<Value> = match (thinking, reply["redacted"] == json!(true)) {
                (_, true) => vec![json!({"type":"redacted_thinking","data":sig})],
                (Some(t), false) => vec![json!({"type":"thinking","thinking":t,"signature":sig})],
                (None, false) => vec![],
            };
            content.push(json!({"type":"text","text":text}));
            content.extend(calls.iter().map(|c| json!({"type":"tool_use","id":c["id"],"name":c["name"],"input":c["arguments"]})));
            let usage = json!({"input_tokens": reply["usage"]["input"].as_u64().unwrap_or(0), "output_tokens": reply["usage"]["output"].as_u64().unwrap_or(0)});
            json!({"id":id("msg_mock"),"type":"message","role":"assistant","model":"mock","content":content,"stop_reason": if tool {"tool_use"} else {"end_turn"},"usage":usage})
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
            json!({"id":id("chatcmpl-mock"),"object":"chat.completion","model":"mock","choices":[{"index":0,"message":msg,"finish_reason": if tool {"tool_calls"} else {"stop"}}]})
        }
        Provider::OpenAiResponses => {
            let mut output: Vec<Value> = thinking.map(|t| json!({"type":"reasoning","id":"rs_mock","encrypted_content":sig,"summary":[{"type":"summary_text","text":t}]})).into_iter().collect();
            output.push(json!({"type":"message","id":"msg_mock","role":"assistant","content":[{"type":"output_text","text":text}]}));
            output.extend(calls.iter().enumerate().map(|(i, c)| json!({"type":"function_call","id":format!("fc_mock{i}"),"call_id":c["id"],"name":c["name"],"arguments":c["arguments"].to_string()})));
            json!({"id":id("resp_mock"),"object":"response","status":"completed","output":output})
        }
        Provider::Gemini => {
            let mut parts: Vec<Value> = thinking.map(|t| json!({"text":t,"thought":true,"thoughtSignature":sig})).into_iter().collect();
            parts.push(json!({"text":text}));
            parts.extend(calls.iter().enumerate().map(|(i, c)| {
                // `FunctionCall.id` (Gemini API reference): a real host keeps it as the tool call id.
                let mut v = json!({"functionCall":{"id":c["id"],"name":c["name"],"args":c["arguments"]}});
                if i == 0 && thinking.is_some() {
                    v["thoughtSignature"] = json!(sig);
                }
                v
            }));
            json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":"STOP"}],"responseId":id("mock-response")})
        }
        Provider::Bedrock => {
            let mut content: Vec<Value> = thinking.map(|t| json!({"reasoningContent":{"reasoningText":{"text":t,"signature":sig}}})).into_iter().collect();
            content.push(json!({"text":text}));
            content.extend(calls.iter().map(|c| json!({"toolUse":{"toolUseId":c["id"],"name":c["name"],"input":c["arguments"]}})));
            json!({"output":{"message":{"role":"assistant","content":content}},"stopReason": if tool {"tool_use"} else {"end_turn"},"usage":{"inputTokens":0,"outputTokens":0}})
        }
    }
}

/// A running mock provider (clones share the server and its state).
#[derive(Clone)]
pub struct MockProvider {
    pub provider: Provider,
    server: Arc<MockServer>,
    state: Arc<Mutex<State>>,
}

impl MockProvider {
    pub async fn start(provider: Provider, rules: Rules) -> MockProvider {
        Self::mount(Self::unrecorded().await, provider, rules, Vec::new(), None, ServeOptions::default()).await
    }

    /// A server answering valid requests with `script` in order (then `ok`).
    pub async fn start_scripted(provider: Provider, rules: Rules, script: Vec<Reply>) -> MockProvider {
        Self::mount(Self::unrecorded().await, provider, rules, script, None, ServeOptions::default()).await
    }

    /// As [`Self::start_scripted`], but only requests for `model` consume the
    /// script (a real host also calls its utility model: titles, recaps), and
    /// request bodies are kept (a real-host run writes them to its work dir).
    pub async fn start_scripted_for_model(provider: Provider, rules: Rules, script: Vec<Reply>, model: &str) -> MockProvider {
        let options = ServeOptions { keep_bodies: true, log_capacity: 4096 };
        Self::mount(Self::unrecorded().await, provider, rules, script, Some(model.to_string()), options).await
    }

    async fn mount(server: MockServer, provider: Provider, rules: Rules, script: Vec<Reply>, script_model: Option<String>, options: ServeOptions) -> MockProvider {
        let aligned = script_model.is_some();
        let mut addressed: Vec<String> = script.iter().filter_map(|r| r.addressed_to.clone()).collect();
        addressed.dedup();
        let state = Arc::new(Mutex::new(State { rules, script: script.into(), minted: 0, responses: 0, script_model, step: None, addressed, options, log: VecDeque::new(), received: 0, last_failure: None, forgotten: 0 }));
        Self::routes(&server, provider, &state, aligned).await;
        MockProvider { provider, server: Arc::new(server), state }
    }

    async fn routes(server: &MockServer, provider: Provider, state: &Arc<Mutex<State>>, aligned: bool) {
        if aligned {
            Mock::given(method("POST")).and(path(STEP_PATH)).respond_with(StepMarker(state.clone())).mount(server).await;
        }
        if provider == Provider::Gemini {
            // Any model, generateContent or streamGenerateContent (the real host streams).
            let any_model = wiremock::matchers::path_regex(r"^/v1beta/models/[^/:]+:(generateContent|streamGenerateContent)$");
            Mock::given(method("POST")).and(any_model).respond_with(Validating { provider, state: state.clone() }).mount(server).await;
        } else {
            Mock::given(method("POST")).and(path(provider.path())).respond_with(Validating { provider, state: state.clone() }).mount(server).await;
        }
        Mock::given(method("GET")).and(path(LOG_PATH)).respond_with(LogView(state.clone())).mount(server).await;
    }

    /// Drop the requests wiremock kept. Every mounted mock keeps each request
    /// it matched, body included, whatever the server's recording setting
    /// (wiremock 0.6 `MountedMock::matched_requests`): a long-lived server
    /// grew by each body it received (30 MB a request). Resetting unmounts
    /// them; the same routes are mounted again on the same state, so
    /// nothing else changes. Call only with no request in flight.
    pub async fn forget_requests(&self) {
        self.server.reset().await;
        let aligned = {
            let mut st = self.state.lock().unwrap();
            st.forgotten += 1;
            st.script_model.is_some()
        };
        Self::routes(&self.server, self.provider, &self.state, aligned).await;
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

    /// Bodies of the logged requests, in order (JSON; `null` for a body that
    /// is not, or was not kept — see [`ServeOptions::keep_bodies`]).
    pub async fn received_bodies(&self) -> Vec<Value> {
        self.log().iter().map(|r| r.body.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or(Value::Null)).collect()
    }

    /// Requests answered so far on the provider's path.
    pub async fn received(&self) -> usize {
        self.state.lock().unwrap().received as usize
    }

    /// How many times [`Self::forget_requests`] ran.
    pub fn forgotten(&self) -> u64 {
        self.state.lock().unwrap().forgotten
    }

    /// The most recent requests (at most [`ServeOptions::log_capacity`]).
    pub fn log(&self) -> Vec<LoggedRequest> {
        self.state.lock().unwrap().log.iter().cloned().collect()
    }
}

/// `clawspec serve-provider`: serve until interrupted.
/// Serve until SIGINT, SIGTERM or SIGHUP; returns which, so the command
/// exits 128 + it for all three alike (a shell's convention).
pub async fn serve(provider: Provider, port: u16, rules: Rules, options: ServeOptions) -> std::io::Result<i32> {
    use tokio::signal::unix::{signal, SignalKind};
    let (mut int, mut term, mut hup) = (signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?, signal(SignalKind::hangup())?);
    let (_mock, addr, front) = start_served(provider, port, rules, options).await?;
    eprintln!("mock {} provider listening on http://{addr} (POST {}; GET {LOG_PATH} lists the last requests)", provider, provider.path());
    let sig = tokio::select! {
        _ = int.recv() => libc::SIGINT,
        _ = term.recv() => libc::SIGTERM,
        _ = hup.recv() => libc::SIGHUP,
    };
    front.abort();
    Ok(sig)
}

/// What `serve` runs: the mock on an internal port behind the
/// [`crate::front`] door on `port` (0: any). Returns the mock, the public
/// address and the front task.
pub async fn start_served(provider: Provider, port: u16, rules: Rules, options: ServeOptions) -> std::io::Result<(MockProvider, std::net::SocketAddr, tokio::task::JoinHandle<()>)> {
    let public = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = public.local_addr()?;
    let inner = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    let backend = inner.local_addr()?;
    let server = MockServer::builder().listener(inner).disable_request_recording().start().await;
    let m = MockProvider::mount(server, provider, rules, Vec::new(), None, options).await;
    let front = tokio::spawn(crate::front::run(public, backend, provider, m.clone()));
    Ok((m, addr, front))
}
