//! Strict request validators: the first violated rule is answered exactly as
//! the provider answers it (status, envelope, message), with the index paths
//! OpenClaw's error classifiers match (provider-rules.md B1–B6, B8). Rules
//! marked inferred ("I") in the reference are switches in [`Rules`].

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{Provider, Rejection};

/// Switches for the era/model-dependent and inferred ("I") rules (B8).
#[derive(Clone, Debug)]
pub struct ValidatorConfig {
    /// Anthropic: first message must be user. Off by default: the
    /// first-party API stopped rejecting an assistant-first request in late
    /// 2024 (anthropics/anthropic-sdk-typescript#622, 2024-12-06: the same
    /// assistant-first `messages.create` answers on api.anthropic.com and
    /// fails only on Bedrock with "messages: first message must use the
    /// \"user\" role"; the 400s quoted in lobehub#1601 are from 2024-03).
    /// Bedrock Converse keeps its own start-with-user rule (B5).
    pub anthropic_user_first: bool,
    /// Anthropic: strict role alternation (older API; current combines turns). I.
    pub anthropic_alternation: bool,
    /// Anthropic 4.6+ (and Bedrock Claude 4.6+ passthrough): no assistant prefill.
    pub anthropic_no_prefill: bool,
    /// Anthropic: tool_use id length cap (OpenClaw's normaliser caps 64). I.
    pub anthropic_tool_id_max: Option<usize>,
    /// Tool names must match `^[a-zA-Z0-9_-]{1,64}$` (Anthropic, Bedrock, OpenAI). I.
    pub strict_tool_names: bool,
    /// Bedrock: more toolResults than toolUses is rejected. I.
    pub bedrock_extra_results: bool,
    /// Gemini 3: functionCall parts need a thoughtSignature.
    pub gemini_thought_signatures: bool,
    /// Responses: a function_call with an `fc_` id needs its reasoning item.
    pub responses_reasoning_pairing: bool,
    /// OpenAI-compatible servers with thinking (Moonshot/DeepSeek/GLM):
    /// tool-call assistants need `reasoning_content`.
    pub chat_requires_reasoning_content: bool,
    /// Mistral behind a vLLM/SGLang chat template: strict alternation.
    pub mistral_template_alternation: bool,
    /// Signatures the provider minted, with the thinking text each signs
    /// (B8: the mock cannot verify real signatures). None: any non-blank
    /// signature passes. Some: unknown ones are invalid, a signature verifies
    /// one block only (a duplicated block is invalid, I), and the latest
    /// assistant's signed thinking must be unmodified.
    pub known_signatures: Option<BTreeMap<String, String>>,
    /// Responses: the reasoning item each `fc_` function call was produced
    /// with, as the provider minted them. The real API names that item when
    /// the call is replayed without it (openclaw/openclaw#36157: the `rs_` id
    /// shares no suffix with the `fc_` id). Unknown calls fall back to
    /// `rs_` + the call's suffix (inferred).
    pub minted_reasoning: BTreeMap<String, String>,
}

/// The name the first API used.
pub type Rules = ValidatorConfig;

impl Default for ValidatorConfig {
    fn default() -> Self {
        ValidatorConfig {
            anthropic_user_first: false,
            anthropic_alternation: false,
            anthropic_no_prefill: true,
            anthropic_tool_id_max: Some(64),
            strict_tool_names: false,
            bedrock_extra_results: true,
            gemini_thought_signatures: false,
            responses_reasoning_pairing: true,
            chat_requires_reasoning_content: false,
            mistral_template_alternation: false,
            known_signatures: None,
            minted_reasoning: BTreeMap::new(),
        }
    }
}

impl ValidatorConfig {
    /// Every switch on: the strictest era of every provider.
    pub fn strict() -> Self {
        ValidatorConfig {
            anthropic_user_first: true,
            anthropic_alternation: true,
            strict_tool_names: true,
            gemini_thought_signatures: true,
            chat_requires_reasoning_content: true,
            mistral_template_alternation: true,
            ..ValidatorConfig::default()
        }
    }

    fn signature_ok(&self, sig: &str) -> bool {
        !sig.trim().is_empty() && self.known_signatures.as_ref().is_none_or(|k| k.contains_key(sig))
    }
}

/// `^[a-zA-Z0-9_-]{1,64}$`.
fn strict_name(n: &str) -> bool {
    (1..=64).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The provider's verdict on a request body: `Ok` or its exact rejection.
pub fn validate(p: Provider, body: &Value, rules: &ValidatorConfig) -> Result<(), Rejection> {
    match p {
        Provider::Anthropic => anthropic(body, rules),
        Provider::OpenAiChat => openai_chat(body, rules),
        Provider::OpenAiResponses => responses(body, rules),
        Provider::Gemini => gemini(body, rules),
        Provider::Bedrock => bedrock(body, rules),
        Provider::Mistral => mistral(body, rules),
    }
}

fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

// ---------- B1 Anthropic Messages ----------

fn anthropic(body: &Value, r: &Rules) -> Result<(), Rejection> {
    anthropic_messages(&arr(body, "messages"), body.get("thinking").is_some_and(|t| t["type"] == "enabled"), r).map_err(|m| Rejection::new(Provider::Anthropic, m))
}

fn is_thinking(b: &Value) -> bool {
    matches!(s(b, "type"), "thinking" | "redacted_thinking")
}

/// B1 over Anthropic-shaped messages; Bedrock passes Claude's messages
/// through the same checks. Returns the Anthropic message text.
fn anthropic_messages(ms: &[Value], thinking_on: bool, r: &Rules) -> Result<(), String> {
    if r.anthropic_user_first && ms.first().is_some_and(|m| m["role"] != "user") {
        return Err("messages: first message must use the \"user\" role".into());
    }
    let last_assistant = ms.iter().rposition(|m| m["role"] == "assistant");
    let mut seen_ids: Vec<String> = Vec::new();
    let mut seen_signatures: Vec<String> = Vec::new();
    for (n, m) in ms.iter().enumerate() {
        let role = s(m, "role");
        if r.anthropic_alternation && n > 0 && ms[n - 1]["role"] == m["role"] {
            return Err(format!("messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{role}\" roles in a row"));
        }
        // String content is one text block.
        let string_block;
        let content: &[Value] = match m.get("content") {
            Some(Value::String(t)) => {
                string_block = [serde_json::json!({"type":"text","text":t})];
                &string_block
            }
            _ => arr(m, "content"),
        };
        let last = n + 1 == ms.len();
        if content.is_empty() && !(last && role == "assistant") {
            return Err(format!("messages.{n}: all messages must have non-empty content except for the optional final assistant message"));
        }
        let has_thinking = content.iter().any(is_thinking);
        if role == "assistant" && has_thinking && !is_thinking(&content[0]) {
            return Err(format!("messages.{n}.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found {}.", s(&content[0], "type")));
        }
        if role == "assistant" && last && has_thinking && !thinking_on {
            return Err(format!("messages.{n}.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request."));
        }
        for (k, b) in content.iter().enumerate() {
            match s(b, "type") {
                "text" => {
                    let t = s(b, "text");
                    if t.is_empty() && b.get("cache_control").is_some() {
                        return Err(format!("messages.{n}.content.{k}.text: cache_control cannot be set for empty text blocks"));
                    }
                    if t.is_empty() {
                        return Err("messages: text content blocks must be non-empty".into());
                    }
                    if t.trim().is_empty() {
                        return Err("messages: text content blocks must contain non-whitespace text".into());
                    }
                }
                "thinking" => match b.get("signature").and_then(Value::as_str) {
                    None => return Err(format!("messages.{n}.content.{k}.thinking.signature: Field required")),
                    Some(sig) if !r.signature_ok(sig) => return Err(format!("messages.{n}.content.{k}: Invalid `signature` in `thinking` block")),
                    Some(sig) => {
                        // A minted signature signs one block: a copy of it elsewhere
                        // in the request does not verify (inferred; #103587).
                        if r.known_signatures.is_some() && seen_signatures.iter().any(|x| x == sig) {
                            return Err(format!("messages.{n}.content.{k}: Invalid `signature` in `thinking` block"));
                        }
                        seen_signatures.push(sig.to_string());
                        let signed_text = r.known_signatures.as_ref().and_then(|known| known.get(sig));
                        if Some(n) == last_assistant && signed_text.is_some_and(|t| t != s(b, "thinking")) {
                            return Err(format!("messages.{n}.content.{k}: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."));
                        }
                    }
                },
                "redacted_thinking" => {
                    if !b.get("data").and_then(Value::as_str).is_some_and(|d| r.signature_ok(d)) {
                        return Err(format!("messages.{n}.content.{k}: Invalid `signature` in `thinking` block"));
                    }
                }
                "tool_use" => {
                    let id = s(b, "id").to_string();
                    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                        return Err(format!("messages.{n}.content.{k}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"));
                    }
                    if let Some(max) = r.anthropic_tool_id_max.filter(|m| id.len() > *m) {
                        return Err(format!("messages.{n}.content.{k}.tool_use.id: String should have at most {max} characters"));
                    }
                    if r.strict_tool_names && !strict_name(s(b, "name")) {
                        return Err(format!("messages.{n}.content.{k}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"));
                    }
                    if seen_ids.contains(&id) {
                        return Err(format!("messages.{n}.content.{k}: `tool_use` ids must be unique"));
                    }
                    seen_ids.push(id);
                }
                "image" => {
                    let mt = b["source"]["media_type"].as_str().unwrap_or("");
                    if !matches!(mt, "image/jpeg" | "image/png" | "image/gif" | "image/webp") {
                        return Err(format!("messages.{n}.content.{k}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"));
                    }
                    let data = b["source"]["data"].as_str().unwrap_or("");
                    if data.len() > 5_242_880 {
                        return Err(format!("messages.{n}.content.{k}.image.source.base64: image exceeds 5 MB maximum: {} bytes > 5242880 bytes", data.len()));
                    }
                    if crate::repair::images::sniff_mime(data).is_some_and(|sniffed| sniffed != mt) {
                        return Err(format!("messages.{n}.content.{k}.image.source.base64.data: Image does not match the provided media type {mt}"));
                    }
                }
                "tool_result" => {
                    let is_err = b["is_error"].as_bool() == Some(true);
                    let inner = arr(b, "content");
                    // `content` is a string or an array of blocks (Anthropic Messages
                    // API); OpenClaw sends a lone text result as a string.
                    let empty = match &b["content"] {
                        Value::String(t) => t.is_empty(),
                        _ => inner.is_empty(),
                    };
                    if is_err && empty {
                        return Err(format!("messages.{n}.content.{k}.tool_result: content cannot be empty if `is_error` is true"));
                    }
                    if is_err && inner.iter().any(|x| x["type"] != "text") {
                        return Err(format!("messages.{n}.content.{k}.tool_result: all content must be type 'text' if 'is_error' is true"));
                    }
                }
                _ => {}
            }
        }
        // tool_use ↔ tool_result pairing with the next / previous message.
        let uses: Vec<String> = content.iter().filter(|b| b["type"] == "tool_use").map(|b| s(b, "id").to_string()).collect();
        if role == "assistant" && !uses.is_empty() {
            let next = ms.get(n + 1).map(|x| arr(x, "content")).unwrap_or_default();
            let answered: Vec<&str> = next.iter().filter(|b| b["type"] == "tool_result").map(|b| s(b, "tool_use_id")).collect();
            let missing: Vec<&str> = uses.iter().map(String::as_str).filter(|u| !answered.contains(u)).collect();
            if !missing.is_empty() {
                return Err(format!("messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", missing.join(", ")));
            }
            let lead = next.iter().take_while(|b| b["type"] == "tool_result").count();
            if lead < uses.len() {
                return Err(format!("Did not find {} tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.", uses.len()));
            }
        }
        if role == "user" {
            let prev_uses: Vec<String> = if n > 0 { arr(&ms[n - 1], "content").iter().filter(|b| b["type"] == "tool_use").map(|b| s(b, "id").to_string()).collect() } else { vec![] };
            for (k, b) in content.iter().enumerate().filter(|(_, b)| b["type"] == "tool_result") {
                let id = s(b, "tool_use_id");
                if !prev_uses.iter().any(|u| u == id) {
                    return Err(format!("messages.{n}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."));
                }
            }
        }
    }
    // Thinking on, tool loop: the final assistant (before the last tool results) starts with thinking.
    if thinking_on && ms.last().is_some_and(|m| m["role"] == "user" && arr(m, "content").iter().any(|b| b["type"] == "tool_result")) {
        if let Some(i) = last_assistant {
            let c = arr(&ms[i], "content");
            if c.first().is_some_and(|b| !is_thinking(b)) {
                return Err(format!("messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", s(&c[0], "type")));
            }
        }
    }
    if r.anthropic_no_prefill && ms.last().is_some_and(|m| m["role"] == "assistant") {
        return Err("This model does not support assistant message prefill. The conversation must end with a user message.".into());
    }
    Ok(())
}

// ---------- B2 OpenAI Chat Completions ----------

fn openai_chat(body: &Value, r: &Rules) -> Result<(), Rejection> {
    let p = Provider::OpenAiChat;
    let ms = arr(body, "messages");
    if ms.is_empty() {
        return Err(Rejection::with(p, 400, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", Some("messages"), Some("empty_array")));
    }
    for (n, m) in ms.iter().enumerate() {
        for (j, c) in arr(m, "tool_calls").iter().enumerate() {
            let id = s(c, "id");
            if id.chars().count() > 40 {
                return Err(Rejection::with(p, 400, format!("Invalid 'messages[{n}].tool_calls[{j}].id': string too long. Expected a string with maximum length 40, but got a string with length {} instead.", id.chars().count()), Some(&format!("messages[{n}].tool_calls[{j}].id")), Some("string_above_max_length")));
            }
        }
        if r.chat_requires_reasoning_content && m["role"] == "assistant" && !arr(m, "tool_calls").is_empty() && m.get("reasoning_content").is_none() {
            return Err(Rejection::with(p, 400, format!("thinking is enabled but reasoning_content is missing in assistant tool call message at index {n}"), None, None));
        }
        if r.strict_tool_names {
            if let Some((j, _)) = arr(m, "tool_calls").iter().enumerate().find(|(_, c)| !strict_name(s(&c["function"], "name"))) {
                return Err(Rejection::with(p, 400, format!("Invalid 'messages[{n}].tool_calls[{j}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."), Some(&format!("messages[{n}].tool_calls[{j}].function.name")), Some("invalid_value")));
            }
        }
        if m["role"] == "assistant" {
            let ids: Vec<String> = arr(m, "tool_calls").iter().map(|c| s(c, "id").to_string()).collect();
            if !ids.is_empty() {
                let answered: Vec<String> = ms[n + 1..].iter().take_while(|x| x["role"] == "tool").map(|x| s(x, "tool_call_id").to_string()).collect();
                let missing: Vec<&String> = ids.iter().filter(|i| !answered.contains(i)).collect();
                if !missing.is_empty() {
                    let list: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                    return Err(Rejection::with(p, 400, format!("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}", list.join(", ")), Some(&format!("messages.[{n}].role")), None));
                }
            }
        }
        if m["role"] == "tool" {
            // Walk back over the tool run to its assistant message.
            let start = ms[..n].iter().rposition(|x| x["role"] != "tool");
            // Two results for one id (a turn whose calls repeat an id):
            // agno-agi/agno#5116 records OpenAI's body.
            let run = start.map_or(0, |i| i + 1);
            if let Some(a) = (run..n).find(|&a| ms[a]["tool_call_id"] == m["tool_call_id"]) {
                return Err(Rejection::with(p, 400, format!("Invalid parameter: Duplicate value for 'tool_call_id' of '{}', in messages[{a}] and messages[{n}].", s(m, "tool_call_id")), Some(&format!("messages.[{n}].tool_call_id")), None));
            }
            let ok = start.is_some_and(|i| ms[i]["role"] == "assistant" && arr(&ms[i], "tool_calls").iter().any(|c| c["id"] == m["tool_call_id"]));
            if !ok {
                return Err(Rejection::with(p, 400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", Some(&format!("messages.[{n}].role")), None));
            }
        }
    }
    Ok(())
}

// ---------- B3 OpenAI Responses ----------

fn id_ok(id: &str) -> bool {
    !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn responses(body: &Value, r: &Rules) -> Result<(), Rejection> {
    let p = Provider::OpenAiResponses;
    let items = arr(body, "input");
    let rej = |m: String, param: Option<String>, code: Option<&str>| Err(Rejection::with(p, 400, m, param.as_deref(), code));
    let mut ids: Vec<String> = Vec::new();
    let mut calls: Vec<String> = Vec::new();
    let mut outputs: Vec<String> = Vec::new();
    for (n, it) in items.iter().enumerate() {
        if let Some(id) = it.get("id").and_then(Value::as_str) {
            if !id_ok(id) {
                return rej(format!("Invalid 'input[{n}].id': '{id}'. Expected an ID that contains letters, numbers, underscores, or dashes, but this value contained additional characters."), Some(format!("input[{n}].id")), Some("invalid_value"));
            }
            let prefix = match s(it, "type") {
                "function_call" => Some("fc"),
                "reasoning" => Some("rs"),
                "message" if it["role"] == "assistant" => Some("msg"),
                _ => None,
            };
            if let Some(pre) = prefix {
                if !id.starts_with(pre) {
                    return rej(format!("Invalid 'input[{n}].id': '{id}'. Expected an ID that begins with '{pre}'."), Some(format!("input[{n}].id")), Some("invalid_value"));
                }
            }
            if ids.iter().any(|x| x == id) {
                return rej(format!("Duplicate item found with id {id}. Remove duplicate items from your input and try again."), Some("input".into()), None);
            }
            ids.push(id.to_string());
        }
        match s(it, "type") {
            "function_call" | "function_call_output" => {
                let cid = s(it, "call_id");
                if cid.is_empty() {
                    return rej(format!("Invalid 'input[{n}].call_id': empty string"), Some(format!("input[{n}].call_id")), Some("empty_string"));
                }
                if cid.chars().count() > 64 {
                    return rej(format!("Invalid 'input[{n}].call_id': string too long. Expected a string with maximum length 64, but got a string with length {} instead.", cid.chars().count()), Some(format!("input[{n}].call_id")), Some("string_above_max_length"));
                }
                if s(it, "type") == "function_call" {
                    let fc = s(it, "id");
                    // An fc_ item belongs to the reasoning item produced with it,
                    // which must precede it in the same output run.
                    if r.responses_reasoning_pairing && fc.starts_with("fc_") {
                        let run_start = items[..n].iter().rposition(|x| !(x["type"] == "reasoning" || x["type"] == "function_call" || (x["type"] == "message" && x["role"] == "assistant"))).map_or(0, |i| i + 1);
                        if !items[run_start..n].iter().any(|x| x["type"] == "reasoning") {
                            let rs = r.minted_reasoning.get(fc).cloned().unwrap_or_else(|| format!("rs_{}", fc.trim_start_matches("fc_")));
                            return rej(format!("Item '{fc}' of type 'function_call' was provided without its required 'reasoning' item: '{rs}'."), Some("input".into()), None);
                        }
                    }
                    calls.push(cid.to_string());
                } else {
                    if !calls.iter().any(|c| c == cid) {
                        return rej(format!("No tool call found for function call output with call_id {cid}."), Some("input".into()), None);
                    }
                    outputs.push(cid.to_string());
                }
            }
            "reasoning" => {
                if let Some(known) = &r.known_signatures {
                    let enc = s(it, "encrypted_content");
                    if !enc.is_empty() && !known.contains_key(enc) {
                        return rej(format!("The encrypted content {enc} could not be verified."), Some("input".into()), Some("invalid_encrypted_content"));
                    }
                }
                // Its output item (a function call or an assistant message) must follow.
                let next = items.get(n + 1);
                if next.is_none_or(|x| !(x["type"] == "function_call" || (x["type"] == "message" && x["role"] == "assistant"))) {
                    return rej(format!("Item '{}' of type 'reasoning' was provided without its required following item.", s(it, "id")), Some("input".into()), None);
                }
            }
            _ => {}
        }
    }
    if let Some(c) = calls.iter().find(|c| !outputs.contains(c)) {
        // A trailing call is the model's to answer only with previous_response_id.
        return rej(format!("No tool output found for function call {c}."), Some("input".into()), None);
    }
    Ok(())
}

// ---------- B4 Gemini ----------

fn gemini(body: &Value, r: &Rules) -> Result<(), Rejection> {
    let p = Provider::Gemini;
    let cs = arr(body, "contents");
    let rej = |m: String| Err(Rejection::new(p, m));
    if cs.is_empty() {
        return rej("* GenerateContentRequest.contents: contents is not specified\n".into());
    }
    let kind = |c: &Value| -> &'static str {
        let parts = arr(c, "parts");
        if parts.iter().any(|x| x.get("functionCall").is_some()) {
            "call"
        } else if !parts.is_empty() && parts.iter().all(|x| x.get("functionResponse").is_some()) {
            "response"
        } else if c["role"] == "user" {
            "user"
        } else {
            "model"
        }
    };
    for (i, c) in cs.iter().enumerate() {
        let parts = arr(c, "parts");
        if parts.is_empty() {
            return rej(format!("* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty.\n"));
        }
        for (j, part) in parts.iter().enumerate() {
            let fields = ["text", "inlineData", "functionCall", "functionResponse", "fileData"].iter().filter(|f| part.get(**f).is_some()).count();
            if fields != 1 {
                return rej(format!("* GenerateContentRequest.contents[{i}].parts[{j}].data: required oneof field 'data' must have one initialized field\n"));
            }
            if let (Some(sig), Some(known)) = (part.get("thoughtSignature").and_then(Value::as_str), &r.known_signatures) {
                if sig != crate::wire::SKIP_THOUGHT_SIGNATURE && !known.contains_key(sig) {
                    return rej("Corrupted thought signature.".into());
                }
            }
            if let Some(fr) = part.get("functionResponse") {
                if s(fr, "name").is_empty() {
                    return rej(format!("* GenerateContentRequest.contents[{i}].parts[{j}].function_response.name: Name cannot be empty.\n"));
                }
            }
        }
        match kind(c) {
            "call" => {
                let prev = if i == 0 { None } else { Some(kind(&cs[i - 1])) };
                if !matches!(prev, Some("user" | "response")) {
                    return rej("Please ensure that function call turn comes immediately after a user turn or after a function response turn.".into());
                }
                if r.gemini_thought_signatures {
                    // "position" is the 1-based index of the content in `contents`
                    // (#72127 quotes position 75; Vertex says "the 3. content block").
                    if let Some(fc) = parts.iter().find(|x| x.get("functionCall").is_some()) {
                        if fc.get("thoughtSignature").is_none() {
                            return rej(format!("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:{}` , position {}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", s(&fc["functionCall"], "name"), i + 1));
                        }
                    }
                }
            }
            "response" => {
                if i == 0 || kind(&cs[i - 1]) != "call" {
                    return rej("Please ensure that function response turn comes immediately after a function call turn.".into());
                }
                let calls = arr(&cs[i - 1], "parts").iter().filter(|x| x.get("functionCall").is_some()).count();
                if calls != parts.len() {
                    return rej("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.".into());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

// ---------- B5 Bedrock Converse ----------

/// How Bedrock wraps an Anthropic model's own validation error.
pub const PASSTHROUGH: &str = "The model returned the following errors: ";

fn bedrock(body: &Value, r: &Rules) -> Result<(), Rejection> {
    let p = Provider::Bedrock;
    let model = s(body, "modelId");
    let claude = model.contains("claude") || model.contains("anthropic");
    let ms = arr(body, "messages");
    let rej = |m: String| Err(Rejection::new(p, m));
    if ms.first().is_some_and(|m| m["role"] != "user") {
        return rej("A conversation must start with a user message. Try again with a conversation that starts with a user message.".into());
    }
    let mut tools_seen = false;
    for (n, m) in ms.iter().enumerate() {
        if n > 0 && ms[n - 1]["role"] == m["role"] {
            return rej("A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.".into());
        }
        let content = arr(m, "content");
        if content.is_empty() {
            return rej(format!("The content field in the Message object at messages.{n} is empty. Add a ContentBlock object to the content field and try again."));
        }
        // V: vercel/ai packages/amazon-bedrock/src/__fixtures__/amazon-bedrock-cache-point-only-assistant-error.json
        if content.iter().all(|b| b.get("cachePoint").is_some()) {
            return rej("There is nothing available to cache. Please remove the invalid cache point and try again.".into());
        }
        // V: vercel/ai packages/amazon-bedrock/src/__fixtures__/issue-7034-error.json
        if m["role"] == "user" && content.iter().any(|b| b.get("reasoningContent").is_some()) {
            return rej("User messages cannot contain reasoning content. Please remove the reasoning content and try again.".into());
        }
        // V: vercel/ai packages/amazon-bedrock/src/__fixtures__/amazon-bedrock-mistral-duplicate-tool-call-ids-error.json
        // (duplicates in the assistant at N are reported at N+1, where their results go).
        let mut ids: Vec<&str> = Vec::new();
        let mut dups: Vec<&str> = Vec::new();
        for id in content.iter().filter_map(|b| b.get("toolUse")).map(|u| s(u, "toolUseId")) {
            if ids.contains(&id) && !dups.contains(&id) {
                dups.push(id);
            }
            ids.push(id);
        }
        if !dups.is_empty() {
            return rej(format!("The toolUse blocks at messages.{}.content contain duplicate Ids: {}", n + 1, dups.join(", ")));
        }
        for (k, b) in content.iter().enumerate() {
            if let Some(t) = b.get("text").and_then(Value::as_str) {
                if t.trim().is_empty() {
                    return rej(format!("The text field in the ContentBlock object at messages.{n}.content.{k} is blank. Add text to the text field, and try again."));
                }
            }
            tools_seen |= b.get("toolUse").is_some() || b.get("toolResult").is_some();
            if claude {
                // Claude's own checks pass through (#88020, #72865).
                if let Some(rt) = b.get("reasoningContent").and_then(|x| x.get("reasoningText")) {
                    match rt.get("signature").and_then(Value::as_str) {
                        None => return rej(format!("{PASSTHROUGH}messages.{n}.content.{k}.thinking.signature: Field required")),
                        Some(sig) if !r.signature_ok(sig) => return rej(format!("{PASSTHROUGH}messages.{n}.content.{k}: Invalid signature in thinking block")),
                        _ => {}
                    }
                }
            }
            if let Some(u) = b.get("toolUse") {
                if r.strict_tool_names {
                    if let Some(m) = bedrock_tool_name_errors(s(u, "name"), &format!("messages.{n}.member.content.{k}.member.toolUse.name")) {
                        return rej(m);
                    }
                }
            }
        }
        let uses: Vec<&str> = content.iter().filter_map(|b| b.get("toolUse")).map(|u| s(u, "toolUseId")).collect();
        if !uses.is_empty() {
            let next = ms.get(n + 1).map(|x| arr(x, "content")).unwrap_or_default();
            let answered: Vec<String> = next.iter().filter_map(|b| b.get("toolResult")).map(|t| s(t, "toolUseId").to_string()).collect();
            let missing: Vec<&str> = uses.iter().copied().filter(|u| !answered.iter().any(|a| a == u)).collect();
            if !missing.is_empty() {
                return rej(format!("Expected toolResult blocks at messages.{}.content for the following Ids: {}", n + 1, missing.join(", ")));
            }
        }
        let results = content.iter().filter(|b| b.get("toolResult").is_some()).count();
        if r.bedrock_extra_results && results > 0 {
            let prev_uses = if n > 0 { arr(&ms[n - 1], "content").iter().filter(|b| b.get("toolUse").is_some()).count() } else { 0 };
            if results > prev_uses {
                return rej(format!("The number of toolResult blocks at messages.{n}.content exceeds the number of toolUse blocks of previous turn."));
            }
        }
    }
    if tools_seen && body.get("toolConfig").is_none() {
        return rej("The toolConfig field must be defined when using toolUse and toolResult content blocks.".into());
    }
    if claude && r.anthropic_no_prefill && ms.last().is_some_and(|m| m["role"] == "assistant") {
        return rej(format!("{PASSTHROUGH}This model does not support assistant message prefill. The conversation must end with a user message."));
    }
    Ok(())
}

/// Bedrock's (Smithy) answer to a tool name: every violated constraint of the
/// member, length before pattern, counted ("2 validation errors detected: …;
/// …"), as quoted in openclaw/openclaw#12892.
fn bedrock_tool_name_errors(name: &str, at: &str) -> Option<String> {
    let mut errs: Vec<String> = Vec::new();
    if name.is_empty() {
        errs.push(format!("Value at '{at}' failed to satisfy constraint: Member must have length greater than or equal to 1"));
    }
    if name.chars().count() > 64 {
        errs.push(format!("Value at '{at}' failed to satisfy constraint: Member must have length less than or equal to 64"));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') || name.is_empty() {
        errs.push(format!("Value at '{at}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"));
    }
    match errs.len() {
        0 => None,
        1 => Some(format!("1 validation error detected: {}", errs[0])),
        n => Some(format!("{n} validation errors detected: {}", errs.join("; "))),
    }
}

// ---------- B6 Mistral ----------

fn mistral(body: &Value, r: &Rules) -> Result<(), Rejection> {
    let p = Provider::Mistral;
    let ms = arr(body, "messages");
    let order = |m: String| Err(Rejection::with(p, 400, m, Some("invalid_request_message_order"), Some("3230")));
    for (n, m) in ms.iter().enumerate() {
        for c in arr(m, "tool_calls") {
            let id = s(&c, "id");
            if id.len() != 9 || !id.chars().all(|ch| ch.is_ascii_alphanumeric()) {
                return Err(Rejection::with(p, 400, format!("Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9."), Some("invalid_function_call"), Some("3280")));
            }
        }
        if r.mistral_template_alternation {
            let chat: Vec<&str> = ms[..=n].iter().map(|x| s(x, "role")).filter(|r| *r == "user" || *r == "assistant").collect();
            if chat.len() >= 2 && chat[chat.len() - 1] == chat[chat.len() - 2] && matches!(s(m, "role"), "user" | "assistant") {
                return Err(Rejection::with(p, 400, "After the optional system message, conversation roles must alternate user/assistant/user/assistant/...", Some("invalid_request_message_order"), Some("3230")));
            }
        }
        if n > 0 {
            let (prev, cur) = (s(&ms[n - 1], "role"), s(m, "role"));
            if prev == "tool" && cur == "user" {
                return order("Unexpected role 'user' after role 'tool'".into());
            }
            if prev == "user" && cur == "tool" {
                return order("Unexpected role 'tool' after role 'user'".into());
            }
        }
        if m["role"] == "assistant" {
            let calls = arr(m, "tool_calls").len();
            if calls > 0 {
                let results = ms[n + 1..].iter().take_while(|x| x["role"] == "tool").count();
                if results != calls {
                    return order("Not the same number of function calls and responses".into());
                }
            }
        }
    }
    if ms.last().is_some_and(|m| m["role"] == "assistant") {
        return order("Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant".into());
    }
    Ok(())
}
