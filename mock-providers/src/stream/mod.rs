//! Streaming answers for every API a real OpenClaw host streams from.
//!
//! OpenClaw's provider transports always stream, so a mock a real host talks
//! to must answer in the provider's own streaming format, built from the
//! same JSON reply the non-streaming path renders (`server::render`). One
//! module per wire format, each naming the API reference it follows:
//! [`chat`] (OpenAI Chat Completions chunks, and Mistral's variant),
//! [`responses`] (OpenAI Responses events), [`gemini`]
//! (`streamGenerateContent?alt=sse`); Anthropic's lives in [`crate::sse`].
//! Bedrock ConverseStream is not here: its AWS event-stream framing is only
//! needed by a host that ships a `bedrock-converse-stream` transport, and
//! neither release clawspec twins on does without an external plugin (see
//! `harness/src/realhost/plan.rs`).

pub mod chat;
pub mod gemini;
pub mod responses;

use serde_json::Value;

use crate::Provider;

/// What a streamed answer needs besides the rendered reply.
#[derive(Clone, Debug, Default)]
pub struct StreamMeta {
    /// The model the answer names (the requested one, see [`StreamMeta::new`]).
    pub model: String,
    /// Scripted usage: input and output tokens.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// OpenAI chat: the request asked for `stream_options.include_usage`.
    pub include_usage: bool,
    /// The response's id (`crate::server::response_id`); `None`: each API's
    /// fixed mock id.
    pub response_id: Option<String>,
}

impl StreamMeta {
    /// Every answer names the model the request asked for, as a real
    /// provider serving it does (Anthropic `message.model`, OpenAI `model`,
    /// Gemini `modelVersion`); a request naming none gets `mock`. A host then
    /// records `responseModel` equal to the requested model and sees no
    /// reroute (openclaw@2026.9.6 openclaw-state-db-read-connection-*.mjs
    /// `formatAgentRunRouteChange`: "Model route changed: … → …/mock").
    pub fn new(requested: &str, reply: &Value, request: &Value) -> StreamMeta {
        StreamMeta {
            model: if requested.is_empty() { "mock".to_string() } else { requested.to_string() },
            input_tokens: reply["usage"]["input"].as_u64().unwrap_or(0),
            output_tokens: reply["usage"]["output"].as_u64().unwrap_or(0),
            include_usage: request["stream_options"]["include_usage"] == Value::Bool(true),
            response_id: reply["responseId"].as_str().map(str::to_string),
        }
    }
}

/// Whether `request` (sent to `url_path`) asks for a streamed answer:
/// `"stream": true` in the body, or Gemini's streaming method in the URL.
pub fn wants_stream(p: Provider, url_path: &str, request: &Value) -> bool {
    match p {
        Provider::Gemini => url_path.ends_with(":streamGenerateContent"),
        _ => request["stream"] == Value::Bool(true),
    }
}

/// The streamed body and its content type, or `None` for a provider whose
/// streaming format the mock does not speak (Bedrock).
pub fn encode(p: Provider, rendered: &Value, meta: &StreamMeta) -> Option<String> {
    Some(match p {
        Provider::Anthropic => crate::sse::anthropic(rendered),
        Provider::OpenAiChat => chat::openai(rendered, meta),
        Provider::Mistral => chat::mistral(rendered, meta),
        Provider::OpenAiResponses => responses::openai(rendered, meta),
        Provider::Gemini => gemini::stream(rendered, meta),
        Provider::Bedrock => return None,
    })
}

/// The model a Gemini request names in its URL (`/v1beta/models/{model}:method`).
pub fn model_in_path(url_path: &str) -> Option<&str> {
    let rest = url_path.rsplit_once("/models/")?.1;
    Some(rest.split_once(':').map(|(m, _)| m).unwrap_or(rest)).filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gemini_names_its_model_and_method_in_the_url() {
        assert_eq!(model_in_path("/v1beta/models/gemini-2.5-pro:streamGenerateContent"), Some("gemini-2.5-pro"));
        assert!(wants_stream(Provider::Gemini, "/v1beta/models/g:streamGenerateContent", &json!({})));
        assert!(!wants_stream(Provider::Gemini, "/v1beta/models/g:generateContent", &json!({"stream": true})));
        assert!(wants_stream(Provider::OpenAiChat, "/v1/chat/completions", &json!({"stream": true})));
        assert!(!wants_stream(Provider::OpenAiResponses, "/v1/responses", &json!({})));
    }

    #[test]
    fn an_answer_names_the_requested_model() {
        assert_eq!(StreamMeta::new("gpt-4.1", &json!({}), &json!({})).model, "gpt-4.1");
        assert_eq!(StreamMeta::new("", &json!({}), &json!({})).model, "mock");
    }
}
