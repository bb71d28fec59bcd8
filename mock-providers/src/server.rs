//! A real HTTP mock per provider (wiremock): every request is validated; an
//! invalid one gets the provider's status and error body, a valid one a reply
//! in the provider's response format. The reply is scripted per request with
//! the `x-clawspec-reply` header (`{"text": …, "toolCalls": [{id,name,arguments}]}`).

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::validate::{validate, Rules};
use crate::Provider;

pub const REPLY_HEADER: &str = "x-clawspec-reply";

struct Validating {
    provider: Provider,
    rules: Rules,
}

impl Respond for Validating {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let p = self.provider;
        let body: Value = match serde_json::from_slice(&req.body) {
            Ok(v) => v,
            Err(e) => {
                let r = crate::Rejection::new(p, format!("Could not parse the JSON body of your request: {e}"));
                return ResponseTemplate::new(400).set_body_json(r.body);
            }
        };
        if let Err(r) = validate(p, &body, &self.rules) {
            let mut t = ResponseTemplate::new(r.status).set_body_json(r.body);
            if p == Provider::Bedrock {
                t = t.insert_header("x-amzn-ErrorType", "ValidationException");
            }
            return t;
        }
        let reply: Value = req
            .headers
            .get(REPLY_HEADER)
            .and_then(|h| h.to_str().ok())
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_else(|| json!({"text": "ok"}));
        ResponseTemplate::new(200).set_body_json(render(p, &reply))
    }
}

/// A scripted reply in the provider's response format.
pub fn render(p: Provider, reply: &Value) -> Value {
    let text = reply["text"].as_str().unwrap_or("");
    let calls = reply["toolCalls"].as_array().cloned().unwrap_or_default();
    let tool = !calls.is_empty();
    match p {
        Provider::Anthropic => {
            let mut content = vec![json!({"type":"text","text":text})];
            content.extend(calls.iter().map(|c| json!({"type":"tool_use","id":c["id"],"name":c["name"],"input":c["arguments"]})));
            json!({"id":"msg_mock","type":"message","role":"assistant","model":"mock","content":content,"stop_reason": if tool {"tool_use"} else {"end_turn"},"usage":{"input_tokens":0,"output_tokens":0}})
        }
        Provider::OpenAiChat | Provider::Mistral => {
            let tc: Vec<Value> = calls.iter().map(|c| json!({"id":c["id"],"type":"function","function":{"name":c["name"],"arguments":c["arguments"].to_string()}})).collect();
            let mut msg = json!({"role":"assistant","content":text});
            if tool {
                msg["tool_calls"] = json!(tc);
            }
            json!({"id":"chatcmpl-mock","object":"chat.completion","model":"mock","choices":[{"index":0,"message":msg,"finish_reason": if tool {"tool_calls"} else {"stop"}}]})
        }
        Provider::OpenAiResponses => {
            let mut output = vec![json!({"type":"message","id":"msg_mock","role":"assistant","content":[{"type":"output_text","text":text}]})];
            output.extend(calls.iter().map(|c| json!({"type":"function_call","id":"fc_mock","call_id":c["id"],"name":c["name"],"arguments":c["arguments"].to_string()})));
            json!({"id":"resp_mock","object":"response","status":"completed","output":output})
        }
        Provider::Gemini => {
            let mut parts = vec![json!({"text":text})];
            parts.extend(calls.iter().map(|c| json!({"functionCall":{"name":c["name"],"args":c["arguments"]}})));
            json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":"STOP"}]})
        }
        Provider::Bedrock => {
            let mut content = vec![json!({"text":text})];
            content.extend(calls.iter().map(|c| json!({"toolUse":{"toolUseId":c["id"],"name":c["name"],"input":c["arguments"]}})));
            json!({"output":{"message":{"role":"assistant","content":content}},"stopReason": if tool {"tool_use"} else {"end_turn"},"usage":{"inputTokens":0,"outputTokens":0}})
        }
    }
}

/// A running mock provider.
pub struct MockProvider {
    pub provider: Provider,
    server: MockServer,
}

impl MockProvider {
    pub async fn start(provider: Provider, rules: Rules) -> MockProvider {
        Self::on(MockServer::start().await, provider, rules).await
    }

    async fn on(server: MockServer, provider: Provider, rules: Rules) -> MockProvider {
        Mock::given(method("POST")).and(path(provider.path())).respond_with(Validating { provider, rules }).mount(&server).await;
        MockProvider { provider, server }
    }

    /// Base URI (`http://127.0.0.1:PORT`).
    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// The full endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("{}{}", self.uri(), self.provider.path())
    }

    /// Requests received so far (method, path, status is not recorded by wiremock).
    pub async fn received(&self) -> usize {
        self.server.received_requests().await.map(|r| r.len()).unwrap_or(0)
    }
}

/// `clawspec serve-provider`: serve until interrupted.
pub async fn serve(provider: Provider, port: u16, rules: Rules) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
    let server = MockServer::builder().listener(listener).start().await;
    let m = MockProvider::on(server, provider, rules).await;
    eprintln!("mock {} provider listening on {} (POST {})", provider, m.uri(), provider.path());
    tokio::signal::ctrl_c().await?;
    Ok(())
}
