//! The request envelope, checked before any transcript rule: body size,
//! content type, a JSON object, the model, a non-empty messages array, and
//! each message's shape (an object, a role the API knows, the content its
//! role needs) — answered as each provider answers a malformed request.
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
    // Anthropic requires a token budget (pi-ai always sends one; our
    // `to_wire` sends 4096).
    if p == Provider::Anthropic && body.get("max_tokens").is_none_or(Value::is_null) {
        return Err(missing(p, "max_tokens"));
    }
    if p == Provider::Anthropic && body.get("stream").is_some_and(|v| !v.is_boolean()) {
        return Err(Rejection::new(p, "stream: Input should be a valid boolean"));
    }
    let key = messages_key(p);
    match body.get(key) {
        None | Some(Value::Null) => Err(missing(p, key)),
        // Responses also takes a plain string as input.
        Some(Value::String(_)) if p == Provider::OpenAiResponses => Ok(body),
        Some(Value::Array(a)) if a.is_empty() => Err(empty(p, key)),
        Some(Value::Array(a)) => match a.iter().enumerate().find_map(|(i, m)| element(p, key, i, m)) {
            Some(r) => Err(r),
            None => Ok(body),
        },
        Some(other) => Err(not_a_list(p, key, other)),
    }
}

/// What JSON calls `v` in OpenAI's `got … instead` wording.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    }
}

/// The request-shape rules of one message (element `i` of `key`), before
/// any transcript rule: an object, with a role the API knows and the
/// content it requires. OpenAI's role list is its own error text; the
/// other wordings follow each provider's validation style (I).
fn element(p: Provider, key: &str, i: usize, m: &Value) -> Option<Rejection> {
    let role = m.get("role");
    let path = |field: &str| format!("{key}[{i}].{field}");
    let Some(obj) = m.as_object() else {
        return Some(match p {
            Provider::OpenAiChat | Provider::OpenAiResponses => {
                let field = format!("{key}[{i}]");
                Rejection::with(p, 400, format!("Invalid type for '{field}': expected an object, but got {} instead.", kind_of(m)), Some(&field), Some("invalid_type"))
            }
            Provider::Anthropic => Rejection::new(p, format!("{key}.{i}: Input should be a valid dictionary or object to extract fields from")),
            Provider::Gemini => Rejection::new(p, format!("Invalid value at '{key}[{i}]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), {m}")),
            Provider::Bedrock => {
                let msg = format!("1 validation error detected: Value at '{key}.{}.member' failed to satisfy constraint: Member must be a structure", i + 1);
                Rejection { status: 400, body: serde_json::json!({"message": msg}), message: msg }
            }
            Provider::Mistral => unprocessable(p, &format!("{key}.{i}"), "model_attributes_type", "Input should be a valid dictionary or object to extract fields from"),
        });
    };
    match p {
        Provider::OpenAiChat | Provider::Mistral => {
            let Some(r) = role else {
                return Some(if p == Provider::Mistral { unprocessable(p, &format!("{key}.{i}.role"), "missing", "Field required") } else { missing_at(p, &path("role")) });
            };
            const ROLES: [&str; 6] = ["system", "assistant", "user", "function", "tool", "developer"];
            if !r.as_str().is_some_and(|r| ROLES.contains(&r)) {
                let shown = r.as_str().map(str::to_string).unwrap_or_else(|| r.to_string());
                return Some(if p == Provider::Mistral {
                    unprocessable(p, &format!("{key}.{i}.role"), "literal_error", "Input should be 'system', 'user', 'assistant' or 'tool'")
                } else {
                    Rejection::with(p, 400, format!("Invalid value: '{shown}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."), Some(&path("role")), Some("invalid_value"))
                });
            }
            // Only an assistant message may leave its content out (tool calls instead).
            if r != "assistant" && obj.get("content").is_none_or(Value::is_null) {
                return Some(if p == Provider::Mistral { unprocessable(p, &format!("{key}.{i}.content"), "missing", "Field required") } else { missing_at(p, &path("content")) });
            }
            match obj.get("content") {
                Some(Value::Null | Value::String(_) | Value::Array(_)) | None => None,
                Some(other) if p == Provider::OpenAiChat => Some(Rejection::with(
                    p,
                    400,
                    format!("Invalid type for '{}': expected one of a string or array of objects, but got {} instead.", path("content"), kind_of(other)),
                    Some(&path("content")),
                    Some("invalid_type"),
                )),
                Some(_) => Some(unprocessable(p, &format!("{key}.{i}.content"), "string_type", "Input should be a valid string")),
            }
        }
        // Items without a type are messages; a message's role is one of four.
        Provider::OpenAiResponses => {
            let is_message = obj.get("type").is_none_or(|t| t == "message");
            match role {
                Some(r) if is_message && !r.as_str().is_some_and(|r| ["assistant", "system", "developer", "user"].contains(&r)) => {
                    let shown = r.as_str().map(str::to_string).unwrap_or_else(|| r.to_string());
                    Some(Rejection::with(p, 400, format!("Invalid value: '{shown}'. Supported values are: 'assistant', 'system', 'developer', and 'user'."), Some(&path("role")), Some("invalid_value")))
                }
                None if is_message && obj.get("type").is_none() => Some(missing_at(p, &path("role"))),
                _ if is_message => responses_content(p, &path("content"), obj.get("content")),
                _ => None,
            }
        }
        Provider::Anthropic => match role.and_then(Value::as_str) {
            None if role.is_none() => Some(Rejection::new(p, format!("{key}.{i}.role: Field required"))),
            Some("user" | "assistant") => match obj.get("content") {
                None => Some(Rejection::new(p, format!("{key}.{i}.content: Field required"))),
                // A content block's `type` selects its schema (Pydantic's tagged union).
                Some(Value::Array(blocks)) => blocks.iter().enumerate().find_map(|(k, b)| {
                    let t = b.get("type").and_then(Value::as_str).unwrap_or("");
                    (!ANTHROPIC_BLOCKS.contains(&t)).then(|| {
                        let tags: Vec<String> = ANTHROPIC_BLOCKS.iter().map(|t| format!("'{t}'")).collect();
                        Rejection::new(p, format!("{key}.{i}.content.{k}: Input tag '{t}' found using 'type' does not match any of the expected tags: {}", tags.join(", ")))
                    })
                }),
                Some(_) => None,
            },
            _ => Some(Rejection::new(p, format!("{key}.{i}.role: Input should be 'user' or 'assistant'"))),
        },
        // A content's role, when given, is `user` or `model` (`function`, of
        // older function-response turns, is let through: not verified).
        Provider::Gemini => match role {
            Some(r) if !r.as_str().is_some_and(|r| matches!(r, "user" | "model" | "function")) => Some(Rejection::new(p, "Please use a valid role: user, model.")),
            _ => None,
        },
        Provider::Bedrock => match role.and_then(Value::as_str) {
            Some("user" | "assistant") => None,
            None if role.is_none() => {
                let msg = format!("1 validation error detected: Value null at '{key}.{}.member.role' failed to satisfy constraint: Member must not be null", i + 1);
                Some(Rejection { status: 400, body: serde_json::json!({"message": msg}), message: msg })
            }
            _ => {
                let shown = role.map(|r| r.as_str().map(str::to_string).unwrap_or_else(|| r.to_string())).unwrap_or_default();
                let msg = format!("1 validation error detected: Value '{shown}' at '{key}.{}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]", i + 1);
                Some(Rejection { status: 400, body: serde_json::json!({"message": msg}), message: msg })
            }
        },
    }
}

/// A Responses message item's content: a string, or a list of typed parts.
/// The part types and the `invalid_value` answer are OpenAI's own, as
/// widely quoted from live 400s (e.g. "Invalid value: 'text'. Supported
/// values are: 'input_text', …" for a Chat Completions part sent to
/// Responses); the missing and wrong-type wordings follow its other
/// parameter errors (I).
fn responses_content(p: Provider, at: &str, content: Option<&Value>) -> Option<Rejection> {
    let parts = match content {
        None | Some(Value::Null) => return Some(missing_at(p, at)),
        Some(Value::String(_)) => return None,
        Some(Value::Array(parts)) => parts,
        Some(other) => {
            return Some(Rejection::with(p, 400, format!("Invalid type for '{at}': expected one of a string or array of objects, but got {} instead.", kind_of(other)), Some(at), Some("invalid_type")))
        }
    };
    parts.iter().enumerate().find_map(|(k, part)| {
        let here = format!("{at}[{k}]");
        let Some(t) = part.get("type") else {
            return Some(if part.is_object() { missing_at(p, &format!("{here}.type")) } else { Rejection::with(p, 400, format!("Invalid type for '{here}': expected an object, but got {} instead.", kind_of(part)), Some(&here), Some("invalid_type")) });
        };
        let shown = t.as_str().map(str::to_string).unwrap_or_else(|| t.to_string());
        (!t.as_str().is_some_and(|t| RESPONSES_PARTS.contains(&t))).then(|| {
            let listed: Vec<String> = RESPONSES_PARTS.iter().map(|t| format!("'{t}'")).collect();
            let (last, rest) = listed.split_last().expect("non-empty");
            let field = format!("{here}.type");
            Rejection::with(p, 400, format!("Invalid value: '{shown}'. Supported values are: {}, and {last}.", rest.join(", ")), Some(&field), Some("invalid_value"))
        })
    })
}

/// Content part types a Responses message takes (OpenAI's list in its
/// `invalid_value` answer).
const RESPONSES_PARTS: [&str; 7] = ["input_text", "input_image", "output_text", "refusal", "input_file", "computer_screenshot", "summary_text"];

/// Content block types the Messages API takes in a request (I: its
/// documented block types; the error lists the API's own set).
const ANTHROPIC_BLOCKS: [&str; 10] = ["text", "image", "document", "search_result", "thinking", "redacted_thinking", "tool_use", "tool_result", "server_tool_use", "web_search_tool_result"];

/// OpenAI's answer to a missing field inside an element.
fn missing_at(p: Provider, field: &str) -> Rejection {
    Rejection::with(p, 400, format!("Missing required parameter: '{field}'."), Some(field), Some("missing_required_parameter"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ALL;

    fn body(p: Provider) -> String {
        let key = messages_key(p);
        format!(r#"{{"model":"m","max_tokens":16,"{key}":[{{"role":"user","content":"hi"}}]}}"#)
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

    /// Each message is checked too: an element that is not an object, has
    /// no role or one the API does not know, or lacks the content its role
    /// needs (every one answered 200 before).
    #[test]
    fn every_provider_checks_each_message() {
        let j = Some("application/json");
        for p in ALL {
            let key = messages_key(p);
            let mut bad = vec!["1", "null", r#"{"role":"wizard","content":"hi","parts":[{"text":"hi"}]}"#];
            if p != Provider::Gemini {
                bad.push(r#"{"content":"hi"}"#);
            }
            if matches!(p, Provider::OpenAiChat | Provider::Mistral | Provider::Anthropic) {
                bad.push(r#"{"role":"user"}"#);
            }
            for m in bad {
                let b = format!(r#"{{"model":"m","max_tokens":16,"{key}":[{m}]}}"#);
                let r = check(p, j, b.as_bytes()).expect_err(&format!("{p} accepted {b}"));
                assert!(r.status == 400 || r.status == 422, "{p}: {}", r.status);
                assert!(!r.message.contains("max_tokens"), "{p}: {}", r.message);
            }
        }
        let r = check(Provider::OpenAiChat, j, br#"{"model":"m","messages":[{"role":"wizard","content":"hi"}]}"#).unwrap_err();
        assert_eq!(r.body["error"]["param"], "messages[0].role");
        assert_eq!(r.body["error"]["code"], "invalid_value");
        let r = check(Provider::OpenAiChat, j, br#"{"model":"m","messages":[{"role":"user","content":"x"},1]}"#).unwrap_err();
        assert_eq!(r.message, "Invalid type for 'messages[1]': expected an object, but got an integer instead.");
        assert_eq!(check(Provider::Anthropic, j, br#"{"model":"m","max_tokens":16,"messages":[{"content":"hi"}]}"#).unwrap_err().message, "messages.0.role: Field required");
        assert_eq!(check(Provider::Anthropic, j, br#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#).unwrap_err().message, "max_tokens: Field required");
        assert!(check(Provider::Anthropic, j, br#"{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"wizard"}]}]}"#).unwrap_err().message.starts_with("messages.0.content.0: Input tag 'wizard' found using 'type'"));
        assert_eq!(check(Provider::Anthropic, j, br#"{"model":"m","max_tokens":1,"stream":"yes","messages":[{"role":"user","content":"hi"}]}"#).unwrap_err().message, "stream: Input should be a valid boolean");
        // Responses: a message item needs content, of known part types.
        let r = |b: &[u8]| check(Provider::OpenAiResponses, j, b);
        assert_eq!(r(br#"{"model":"m","input":[{"role":"user"}]}"#).unwrap_err().message, "Missing required parameter: 'input[0].content'.");
        assert_eq!(r(br#"{"model":"m","input":[{"role":"user","content":5}]}"#).unwrap_err().body["error"]["code"], "invalid_type");
        let e = r(br#"{"model":"m","input":[{"role":"user","content":[{"type":"text","text":"x"}]}]}"#).unwrap_err();
        assert_eq!(e.message, "Invalid value: 'text'. Supported values are: 'input_text', 'input_image', 'output_text', 'refusal', 'input_file', 'computer_screenshot', and 'summary_text'.");
        assert_eq!(e.body["error"]["param"], "input[0].content[0].type");
        r(br#"{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"y"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}"#).unwrap();
        // An assistant turn of tool calls has no content; that is fine.
        check(Provider::OpenAiChat, j, br#"{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[]}]}"#).unwrap();
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
