//! The catalogue of generic engine mutation operators. Each is one mistake an
//! engine author makes, applied to any protocol-v1 engine by the proxy
//! ([`super::proxy`]): on a request before the engine sees it (`before`), or
//! on the engine's answer (`after`). Ids are stable and ordered: a mutant's
//! id is its operator's id, so two runs name the same mutants.

use serde_json::{json, Value};

/// What the proxy does with a host request.
pub enum Before {
    /// Forward it to the engine.
    Forward,
    /// Do not forward; answer the host with this result (a skipped state update).
    Answer(Value),
    /// Do not forward; answer the host with a thrown error.
    Throw(String),
    /// Exit the whole engine (a crash) with this status.
    Crash(i32),
}

pub struct Operator {
    pub id: &'static str,
    /// What mistake it models (one line, for the report).
    pub what: &'static str,
    /// The method whose calls it changes (`*` = every method).
    pub method: &'static str,
    pub before: fn(&Value) -> Before,
    pub after: fn(&Value, Value) -> Value,
}

fn forward(_: &Value) -> Before {
    Before::Forward
}

fn keep(_: &Value, out: Value) -> Value {
    out
}

fn messages_mut(out: &mut Value) -> Option<&mut Vec<Value>> {
    out.get_mut("messages").and_then(Value::as_array_mut)
}

fn with_messages(mut out: Value, f: impl FnOnce(&mut Vec<Value>)) -> Value {
    if let Some(ms) = messages_mut(&mut out) {
        f(ms);
    }
    out
}

fn text_of(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(bs) => bs.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}

fn params_messages(p: &Value) -> impl Iterator<Item = &Value> {
    p.get("messages").and_then(Value::as_array).into_iter().flatten()
}

fn edit_last_user(ms: &mut [Value]) {
    if let Some(m) = ms.iter_mut().rev().find(|m| m["role"] == "user") {
        match &mut m["content"] {
            Value::String(s) => s.push_str(" (edited)"),
            Value::Array(bs) => {
                if let Some(b) = bs.iter_mut().find(|b| b["type"] == "text") {
                    b["text"] = json!(format!("{} (edited)", b["text"].as_str().unwrap_or_default()));
                }
            }
            _ => {}
        }
    }
}

fn compaction_claim(p: &Value) -> Before {
    let before = p.get("currentTokenCount").and_then(Value::as_u64).unwrap_or(1000);
    Before::Answer(json!({"ok": true, "compacted": true, "result": {"summary": "Summary of the conversation.", "tokensBefore": before, "tokensAfter": before / 2}}))
}

fn slow(_: &Value) -> Before {
    // Longer than any timeout a mutation run uses; the driver kills the group.
    std::thread::sleep(std::time::Duration::from_secs(3600));
    Before::Forward
}

fn leak(_: &Value) -> Before {
    if let Ok(child) = std::process::Command::new("sleep").arg("3600").stdin(std::process::Stdio::null()).spawn() {
        std::mem::forget(child);
    }
    Before::Forward
}

fn has_block(p: &Value, ty: &str) -> bool {
    params_messages(p).any(|m| m["content"].as_array().is_some_and(|bs| bs.iter().any(|b| b["type"] == ty)))
}

fn has_role(p: &Value, role: &str) -> bool {
    params_messages(p).any(|m| m["role"] == role)
}

const STANDARD_ROLES: &[&str] = &["user", "assistant", "toolResult"];

pub static OPERATORS: &[Operator] = &[
    // assemble: messages
    Operator { id: "asm-drop-first", what: "assemble drops the oldest message", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| if !ms.is_empty() { ms.remove(0); }) },
    Operator { id: "asm-drop-last", what: "assemble drops the newest message", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| { ms.pop(); }) },
    Operator { id: "asm-drop-middle", what: "assemble drops the message in the middle", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| if ms.len() > 2 { ms.remove(ms.len() / 2); }) },
    Operator { id: "asm-drop-tool-results", what: "assemble drops every tool result (\"they are big\")", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| ms.retain(|m| m["role"] != "toolResult")) },
    Operator { id: "asm-drop-user-repeats", what: "assemble drops a user message whose text repeats an earlier one", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| { let mut seen = std::collections::BTreeSet::new(); ms.retain(|m| m["role"] != "user" || seen.insert(text_of(m))); }) },
    Operator { id: "asm-drop-volatile", what: "assemble drops messages that carry provenance (inter-session, announces)", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| ms.retain(|m| m.get("provenance").is_none())) },
    Operator { id: "asm-drop-custom-roles", what: "assemble keeps only user/assistant/toolResult messages", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| ms.retain(|m| m["role"].as_str().is_some_and(|r| STANDARD_ROLES.contains(&r)))) },
    Operator { id: "asm-swap-last-two", what: "assemble swaps the two newest messages", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| { let n = ms.len(); if n >= 2 { ms.swap(n - 1, n - 2); } }) },
    Operator { id: "asm-reverse", what: "assemble returns messages newest first", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| ms.reverse()) },
    Operator { id: "asm-duplicate-last", what: "assemble returns the newest message twice", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| if let Some(m) = ms.last().cloned() { ms.push(m); }) },
    Operator { id: "asm-double-history", what: "assemble appends its stored copy of the history to the host's", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| { let c = ms.clone(); ms.extend(c); }) },
    Operator { id: "asm-alter-user-text", what: "assemble rewrites the newest user message's text", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| edit_last_user(ms)) },
    Operator { id: "asm-invent-user", what: "assemble prepends a user message the host never sent", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| ms.insert(0, json!({"role": "user", "content": "Continue from where we left off.", "timestamp": 0}))) },
    Operator { id: "asm-strip-fields", what: "assemble rebuilds messages from role + content only", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| for m in ms.iter_mut() { *m = json!({"role": m["role"], "content": m["content"]}); }) },
    Operator { id: "asm-tool-role", what: "assemble writes tool results as role \"tool\" (OpenAI style)", method: "assemble", before: forward, after: |_, o| with_messages(o, |ms| for m in ms.iter_mut().filter(|m| m["role"] == "toolResult") { m["role"] = json!("tool"); }) },
    // assemble: result fields and counts
    Operator { id: "asm-drop-messages-field", what: "assemble returns no `messages` field", method: "assemble", before: forward, after: |_, mut o| { if let Some(x) = o.as_object_mut() { x.remove("messages"); } o } },
    Operator { id: "asm-drop-estimate", what: "assemble returns no `estimatedTokens`", method: "assemble", before: forward, after: |_, mut o| { if let Some(x) = o.as_object_mut() { x.remove("estimatedTokens"); } o } },
    Operator { id: "asm-negative-estimate", what: "assemble reports estimatedTokens -1", method: "assemble", before: forward, after: |_, mut o| { o["estimatedTokens"] = json!(-1); o } },
    Operator { id: "asm-ignore-budget", what: "assemble returns the host's whole history, ignoring tokenBudget", method: "assemble", before: forward, after: |p, mut o| { if let Some(ms) = p.get("messages") { o["messages"] = ms.clone(); } o } },
    Operator { id: "asm-launder-provenance", what: "assemble copies inter-session text into systemPromptAddition", method: "assemble", before: forward, after: |p, mut o| { let t: Vec<String> = params_messages(p).filter(|m| m.get("provenance").is_some()).map(text_of).collect(); if !t.is_empty() { o["systemPromptAddition"] = json!(format!("Context: {}", t.join(" "))); } o } },
    // assemble: throws on a message kind
    Operator { id: "asm-throw-on-image", what: "assemble throws on image blocks", method: "assemble", before: |p| if has_block(p, "image") { Before::Throw("unsupported content block: image".into()) } else { Before::Forward }, after: keep },
    Operator { id: "asm-throw-on-thinking", what: "assemble throws on thinking blocks", method: "assemble", before: |p| if has_block(p, "thinking") || has_block(p, "redactedThinking") { Before::Throw("unsupported content block: thinking".into()) } else { Before::Forward }, after: keep },
    Operator { id: "asm-throw-on-custom-role", what: "assemble throws on a role it does not know", method: "assemble", before: |p| if params_messages(p).any(|m| m["role"].as_str().is_some_and(|r| !STANDARD_ROLES.contains(&r))) { Before::Throw("unknown message role".into()) } else { Before::Forward }, after: keep },
    Operator { id: "asm-throw-on-tool-result", what: "assemble throws on tool results", method: "assemble", before: |p| if has_role(p, "toolResult") { Before::Throw("cannot assemble tool results".into()) } else { Before::Forward }, after: keep },
    // compact
    Operator { id: "cmp-claim-without-state", what: "compact reports ok+compacted but never runs (skipped state update)", method: "compact", before: compaction_claim, after: keep },
    Operator { id: "cmp-never", what: "compact always answers ok, not compacted", method: "compact", before: |_| Before::Answer(json!({"ok": true, "compacted": false, "reason": "not supported"})), after: keep },
    Operator { id: "cmp-tokens-grow", what: "compact reports tokensAfter above tokensBefore", method: "compact", before: forward, after: |_, mut o| { if let Some(b) = o["result"]["tokensBefore"].as_f64() { o["result"]["tokensAfter"] = json!(b + 1.0); } o } },
    Operator { id: "cmp-drop-compacted", what: "compact returns no `compacted` field", method: "compact", before: forward, after: |_, mut o| { if let Some(x) = o.as_object_mut() { x.remove("compacted"); } o } },
    Operator { id: "cmp-null-tokens", what: "compact reports tokensBefore null", method: "compact", before: forward, after: |_, mut o| { if o["result"].is_object() { o["result"]["tokensBefore"] = Value::Null; } o } },
    Operator { id: "cmp-slow", what: "compact never answers (a hung summariser)", method: "compact", before: slow, after: keep },
    Operator { id: "cmp-crash", what: "the engine exits during compact", method: "compact", before: |_| Before::Crash(70), after: keep },
    // turns
    Operator { id: "skip-after-turn", what: "afterTurn answers without storing the turn", method: "afterTurn", before: |_| Before::Answer(Value::Null), after: keep },
    Operator { id: "after-turn-throws", what: "afterTurn throws", method: "afterTurn", before: |_| Before::Throw("afterTurn failed".into()), after: keep },
    Operator { id: "ingest-batch-overcount", what: "ingestBatch reports one more message than it was given", method: "ingestBatch", before: forward, after: |p, mut o| { o["ingestedCount"] = json!(params_messages(p).count() + 1); o } },
    Operator { id: "ingest-drop-field", what: "ingest returns no `ingested`", method: "ingest", before: forward, after: |_, _| json!({}) },
    Operator { id: "commit-skip", what: "commitTurn answers committed without storing (skipped state update)", method: "commitTurn", before: |_| Before::Answer(json!({"status": "committed"})), after: keep },
    Operator { id: "commit-never-duplicate", what: "commitTurn answers committed for a replay", method: "commitTurn", before: forward, after: |_, mut o| { if o["status"] == "duplicate" { o["status"] = json!("committed"); } o } },
    Operator { id: "commit-bad-status", what: "commitTurn answers status \"ok\"", method: "commitTurn", before: forward, after: |_, mut o| { o["status"] = json!("ok"); o } },
    Operator { id: "maintain-drop-field", what: "maintain returns no `rewrittenEntries`", method: "maintain", before: forward, after: |_, mut o| { if let Some(x) = o.as_object_mut() { x.remove("rewrittenEntries"); } o } },
    Operator { id: "bootstrap-overcount", what: "bootstrap reports re-importing the whole session every time", method: "bootstrap", before: forward, after: |_, mut o| { if let Some(n) = o["importedMessages"].as_u64() { o["importedMessages"] = json!(n + 10); } o } },
    Operator { id: "bootstrap-drop-field", what: "bootstrap returns no `bootstrapped`", method: "bootstrap", before: forward, after: |_, _| json!({}) },
    // subagents
    Operator { id: "spawn-bad-rollback", what: "prepareSubagentSpawn returns a rollback that is not a handle", method: "prepareSubagentSpawn", before: forward, after: |_, o| if o.is_null() { o } else { json!({"rollback": true}) } },
    Operator { id: "rollback-throws", what: "the rollback handle throws", method: "rollback", before: |_| Before::Throw("rollback failed".into()), after: keep },
    Operator { id: "subagent-ended-throws", what: "onSubagentEnded throws", method: "onSubagentEnded", before: |_| Before::Throw("cleanup failed".into()), after: keep },
    // lifecycle and host params
    Operator { id: "reject-unknown-params", what: "a strict schema rejects host params it does not know", method: "*", before: |p| if p.get("runtimeSettings").is_some() { Before::Throw("Unrecognized key(s) in object: 'runtimeSettings'".into()) } else { Before::Forward }, after: keep },
    Operator { id: "leak-process", what: "initialize starts a helper process that is never stopped", method: "initialize", before: leak, after: keep },
];

pub fn operator(id: &str) -> Option<&'static Operator> {
    OPERATORS.iter().find(|o| o.id == id)
}

impl Operator {
    pub fn applies_to(&self, method: &str) -> bool {
        self.method == "*" && method != "initialize" && method != "shutdown" || self.method == method
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for o in OPERATORS {
            assert!(seen.insert(o.id), "duplicate operator {}", o.id);
            assert!(o.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", o.id);
            assert_eq!(operator(o.id).map(|x| x.id), Some(o.id));
        }
    }

    #[test]
    fn drop_user_repeats_keeps_other_roles() {
        let op = operator("asm-drop-user-repeats").unwrap();
        let out = (op.after)(&Value::Null, json!({"messages": [{"role": "user", "content": "yes"}, {"role": "assistant", "content": "yes"}, {"role": "user", "content": [{"type": "text", "text": "yes"}]}]}));
        assert_eq!(out["messages"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn star_skips_handshake() {
        let op = operator("reject-unknown-params").unwrap();
        assert!(op.applies_to("assemble") && !op.applies_to("initialize") && !op.applies_to("shutdown"));
    }
}
