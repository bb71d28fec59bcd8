//! The request envelope, checked before any transcript rule: body size,
//! content type, a JSON object, the model, and a non-empty messages array —
//! answered as each provider answers a malformed request.
//!
//! Sources: error bodies quoted in provider-rules.md (B1–B6) are marked V
//! there; the rest (marked "I" below) follow the provider's error style for
//! the same class of mistake (Pydantic-style `field: message` for Anthropic,
//! `Missing required parameter` / `Invalid type` for OpenAI, proto-JSON
//! field errors for Gemini, AWS validation messages for Bedrock).

use serde_json::Value;

use crate::{Provider, Rejection};

/// Largest request body each provider accepts (bytes). Anthropic documents
/// 32 MB for the Messages API; Gemini rejects inline requests above 20 MiB
/// (the 20971520-byte limit quoted in its error); Bedrock's Converse
/// document limit and the others are not documented: 32 MiB (I).
pub fn body_limit(p: Provider) -> usize {
    match p {
        Provider::Anthropic => 32 * 1000 * 1000,
        Provider::Gemini => 20 * 1024 * 1024,
        _ => 32 * 1024 * 1024,
    }
}

/// The provider's answer to a body over [`body_limit`].
pub fn too_large(p: Provider, len: usize) -> Rejection {
    let limit = body_limit(p);
    match p {
        Provider::Anthropic => {
            // 413 with its own error type (Anthropic errors docs: `request_too_large`).
            let message = "Request exceeds the maximum allowed number of bytes.".to_string();
            let body = serde_json::json!({"type":"error","error":{"type":"request_too_large","message":message},"request_id":"req_mock"});
            Rejection { status: 413, body, message }
        }
        Provider::Gemini => Rejection::new(p, format!("Request payload size exceeds the limit: {limit} bytes.")),
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            let mut r = Rejection::with(p, 413, format!("Request too large: {len} bytes > {limit} bytes."), None, Some("request_too_large"));
            r.status = 413;
            r
        }
        Provider::Bedrock => Rejection { status: 413, body: serde_json::json!({"message": "Input is too long for requested model."}), message: "Input is too long for requested model.".into() },
        Provider::Mistral => Rejection::with(p, 413, format!("Request too large: {len} bytes > {limit} bytes."), Some("invalid_request_error"), None),
    }
}

/// The messages field of each provider's request.
pub fn messages_key(p: Provider) -> &'static str {
    match p {
        Provider::OpenAiResponses => "input",
        Provider::Gemini => "contents",
        _ => "messages",
    }
}

/// OpenAI's answer to a body that is not a JSON object (V: the text OpenAI
/// returns for unparsable bodies and non-JSON content types).
const OPENAI_NOT_JSON: &str = "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)";

/// Not JSON, or the wrong content type.
pub fn not_json(p: Provider, detail: &str) -> Rejection {
    match p {
        Provider::OpenAiChat | Provider::OpenAiResponses => Rejection::new(p, OPENAI_NOT_JSON),
        Provider::Anthropic => Rejection::new(p, format!("There was an issue with your request body: {detail}")), // I
        Provider::Gemini => Rejection::new(p, format!("Invalid JSON payload received. {detail}")),                 // I (proto-JSON style)
        Provider::Bedrock => Rejection { status: 400, body: serde_json::json!({"message": "Unable to parse request body"}), message: "Unable to parse request body".into() }, // I
        Provider::Mistral => Rejection::with(p, 400, format!("Invalid JSON body: {detail}"), Some("invalid_request_error"), None), // I
    }
}

fn missing(p: Provider, field: &str) -> Rejection {
    match p {
        Provider::Anthropic => Rejection::new(p, format!("{field}: Field required")),
        Provider::OpenAiChat if field == "model" => Rejection::new(p, "you must provide a model parameter"),
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            Rejection::with(p, 400, format!("Missing required parameter: '{field}'."), Some(field), Some("missing_required_parameter"))
        }
        Provider::Gemini => Rejection::new(p, format!("* GenerateContentRequest.{field}: {field} is not specified\n")),
        Provider::Bedrock => {
            let m = format!("1 validation error detected: Value null at '{field}' failed to satisfy constraint: Member must not be null");
            Rejection { status: 400, body: serde_json::json!({"message": m}), message: m }
        }
        Provider::Mistral => unprocessable(p, field, "missing", "Field required"),
    }
}

/// Mistral validates bodies with Pydantic and answers 422 (I).
fn unprocessable(_: Provider, field: &str, kind: &str, msg: &str) -> Rejection {
    let detail = serde_json::json!({"detail":[{"type":kind,"loc":["body",field],"msg":msg}]});
    let body = serde_json::json!({"object":"error","message":detail,"type":"invalid_request_error","param":null,"code":null});
    Rejection { status: 422, body, message: format!("{field}: {msg}") }
}

fn not_a_list(p: Provider, field: &str, got: &Value) -> Rejection {
    let kind = match got {
        Value::Object(_) => "an object",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        _ => "null",
    };
    match p {
        Provider::Anthropic => Rejection::new(p, format!("{field}: Input should be a valid list")),
        Provider::OpenAiChat => Rejection::with(p, 400, format!("Invalid type for '{field}': expected an array, but got {kind} instead."), Some(field), Some("invalid_type")),
        Provider::OpenAiResponses => Rejection::with(
            p,
            400,
            format!("Invalid type for '{field}': expected one of a string or an array of input items, but got {kind} instead."),
            Some(field),
            Some("invalid_type"),
        ),
        Provider::Gemini => Rejection::new(p, format!("Invalid value at '{field}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), {kind}")),
        Provider::Bedrock => {
            let m = format!("Invalid type for '{field}': expected a list");
            Rejection { status: 400, body: serde_json::json!({"message": m}), message: m }
        }
        Provider::Mistral => unprocessable(p, field, "list_type", "Input should be a valid list"),
    }
}

fn empty(p: Provider, field: &str) -> Rejection {
    match p {
        Provider::Anthropic => Rejection::new(p, "messages: at least one message is required"),
        // V (B2): code `empty_array`.
        Provider::OpenAiChat | Provider::OpenAiResponses => Rejection::with(
            p,
            400,
            format!("Invalid '{field}': empty array. Expected an array with minimum length 1, but got an empty array instead."),
            Some(field),
            Some("empty_array"),
        ),
        // V (B4).
        Provider::Gemini => Rejection::new(p, "* GenerateContentRequest.contents: contents is not specified\n"),
        // Converse starts with a user message (B5, V wording).
        Provider::Bedrock => Rejection {
            status: 400,
            body: serde_json::json!({"message": "A conversation must start with a user message. Try again with a conversation that starts with a user message."}),
            message: "A conversation must start with a user message. Try again with a conversation that starts with a user message.".into(),
        },
        Provider::Mistral => unprocessable(p, field, "too_short", "List should have at least 1 item after validation, not 0"),
    }
}

/// Check the envelope and return the parsed body.
pub fn check(p: Provider, content_type: Option<&str>, bytes: &[u8]) -> Result<Value, Rejection> {
    if bytes.len() > body_limit(p) {
        return Err(too_large(p, bytes.len()));
    }
    let json_type = content_type.map(|c| c.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if json_type != Some(true) {
        return Err(not_json(p, &format!("Content-Type must be application/json, got {}", content_type.unwrap_or("none"))));
    }
    let body: Value = serde_json::from_slice(bytes).map_err(|e| not_json(p, &e.to_string()))?;
    if !body.is_object() {
        return Err(match p {
            Provider::Anthropic => Rejection::new(p, "Input should be a valid dictionary or object to extract fields from"),
            Provider::Gemini => Rejection::new(p, "Invalid JSON payload received. Unknown name \"\": Root element must be a message."),
            Provider::Mistral => unprocessable(p, "body", "model_attributes_type", "Input should be a valid dictionary or object to extract fields from"),
            _ => not_json(p, "not an object"),
        });
    }
    // Gemini and Bedrock name the model in the URL.
    if !matches!(p, Provider::Gemini | Provider::Bedrock) && !body.get("model").is_some_and(|m| m.as_str().is_some_and(|s| !s.is_empty())) {
        return Err(missing(p, "model"));
    }
    let key = messages_key(p);
    match body.get(key) {
        None | Some(Value::Null) => Err(missing(p, key)),
        // Responses also takes a plain string as input.
        Some(Value::String(_)) if p == Provider::OpenAiResponses => Ok(body),
        Some(Value::Array(a)) if a.is_empty() => Err(empty(p, key)),
        Some(Value::Array(_)) => Ok(body),
        Some(other) => Err(not_a_list(p, key, other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ALL;

    fn body(p: Provider) -> String {
        let key = messages_key(p);
        format!(r#"{{"model":"m","{key}":[{{"role":"user","content":"hi"}}]}}"#)
    }

    #[test]
    fn every_malformed_envelope_is_rejected_by_every_provider() {
        for p in ALL {
            let key = messages_key(p);
            let json = Some("application/json");
            assert!(check(p, json, body(p).as_bytes()).is_ok(), "{p}: a well-formed body");
            let cases: Vec<(Option<&str>, String)> = vec![
                (json, "{}".into()),
                (json, "[1,2,3]".into()),
                (json, "null".into()),
                (json, "{not json".into()),
                (json, format!(r#"{{"model":"m","{key}":{{"role":"user"}}}}"#)),
                (json, format!(r#"{{"model":"m","{key}":[]}}"#)),
                (Some("text/plain"), body(p)),
                (None, body(p)),
            ];
            for (ct, b) in cases {
                let r = check(p, ct, b.as_bytes()).expect_err(&format!("{p} accepted {ct:?} {b}"));
                assert!(r.status == 400 || r.status == 422, "{p}: {}", r.status);
                assert!(!r.message.is_empty());
            }
            if !matches!(p, Provider::Gemini | Provider::Bedrock) {
                let r = check(p, json, format!(r#"{{"{key}":[{{"role":"user","content":"hi"}}]}}"#).as_bytes()).unwrap_err();
                assert!(r.message.contains("model"), "{p}: {}", r.message);
            }
        }
    }

    #[test]
    fn provider_wording_of_the_verified_cases() {
        let j = Some("application/json");
        assert_eq!(check(Provider::OpenAiChat, j, br#"{"model":"m","messages":[]}"#).unwrap_err().body["error"]["code"], "empty_array");
        assert_eq!(check(Provider::Gemini, j, b"{}").unwrap_err().message, "* GenerateContentRequest.contents: contents is not specified\n");
        assert_eq!(check(Provider::Anthropic, j, br#"{"messages":[]}"#).unwrap_err().message, "model: Field required");
        assert_eq!(check(Provider::OpenAiChat, j, br#"{"messages":[{"role":"user","content":"x"}]}"#).unwrap_err().message, "you must provide a model parameter");
    }

    #[test]
    fn bodies_over_the_limit_get_the_providers_too_large_answer() {
        let big = vec![b' '; body_limit(Provider::Anthropic) + 1];
        let r = check(Provider::Anthropic, Some("application/json"), &big).unwrap_err();
        assert_eq!(r.status, 413);
        assert_eq!(r.body["error"]["type"], "request_too_large");
        let big = vec![b' '; body_limit(Provider::Gemini) + 1];
        assert!(check(Provider::Gemini, Some("application/json"), &big).unwrap_err().message.contains("20971520"));
    }
}
