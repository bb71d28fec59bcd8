//! Engine → host requests answered while a call is in flight, deterministically:
//! `host/llm.complete` (2026.9.6 only, [`RuntimeLlm`]: a digest summary, and
//! the request the real host cannot send fails as it does there; 2026.4.26
//! offers no `runtimeContext.llm`, so the call is refused), `host/delegateCompaction`
//! (OpenClaw's built-in compaction, `delegateCompactionToRuntime`,
//! openclaw `src/context-engine/delegate.ts`), `host/rewriteTranscriptEntries`.

use clawspec_contract::protocol::{code, method, RpcError};
use clawspec_contract::*;
use serde_json::{json, Value};

use std::collections::VecDeque;

use crate::driver::HostHandler;
use crate::scenario::model::ModelReply;
use super::transcript::Entry;
use crate::trace::{CallbackRecord, LogLine, LOG_KEEP_BYTES};

/// A transcript rewrite the runtime applies after the call returns.
#[derive(Clone, Debug)]
pub struct CompactionPlan {
    /// Index of the first kept message in the transcript.
    pub first_kept: usize,
    pub summary: String,
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// The session's `compactionSummary` message is pi's projection of the
    /// compaction entry, `{summary, tokensBefore, timestamp}` only (2026.4.26,
    /// `runtime::compact::manual_builtin_2026_4`).
    pub pi_message: bool,
}

pub struct Callbacks<'a> {
    pub records: Vec<CallbackRecord>,
    /// Transcript entries (for delegated compaction), borrowed: copying the
    /// whole transcript for every call made long sessions quadratic.
    pub entries: &'a [Entry],
    pub plan: Option<CompactionPlan>,
    /// `$/log` lines received during the call, up to [`LOG_KEEP_BYTES`].
    pub log: Vec<LogLine>,
    log_bytes: usize,
    /// `$/log` lines past the cap (counted, not kept).
    pub log_dropped: usize,
    /// 2026.4.26's built-in compaction for a manual `/compact`
    /// (`runtime::compact::manual_builtin_2026_4`); None: the digest model.
    pub builtin_2026_4: Option<super::compact::Builtin2026_4>,
    /// 2026.9.6's built-in compaction for a manual `/compact`
    /// (`runtime::compact_2026_9`); other triggers: the digest model.
    pub builtin_2026_9: Option<super::compact_2026_9::Builtin2026_9>,
    /// The model replies the current run has still scripted, lent for a
    /// recovery compaction: 2026.9.6's `llm.complete` is a real model call, so
    /// it takes the next one (the mock answers in order), as the real host's
    /// does. None, or none left: the mock's unscripted answer.
    pub llm_script: Option<VecDeque<ModelReply>>,
    /// The 2026.9.6 host's `runtimeContext.llm`. None: the host has no such
    /// capability (2026.4.26: its dist has no runtime-llm module and no
    /// compaction or attempt context carries `llm`), so `host/llm.complete` is
    /// refused as the twin bridge refuses a callback the host did not offer
    /// (adapters/openclaw-bridge/index.js `hostRequest`: -32601 "… was not
    /// offered on this call", nothing recorded); the engine falls back.
    pub llm: Option<RuntimeLlm>,
}

impl<'a> Callbacks<'a> {
    pub fn new(entries: &'a [Entry]) -> Self {
        Callbacks { records: Vec::new(), entries, plan: None, log: Vec::new(), log_bytes: 0, log_dropped: 0, builtin_2026_4: None, builtin_2026_9: None, llm_script: None, llm: None }
    }

    /// The call's `$/log` lines as a trace records them (`output.log`): those
    /// kept under [`LOG_KEEP_BYTES`], then one `clawspec` line counting the
    /// dropped ones. The real-host record (`realhost::record`) feeds the
    /// bridge's lines through the same [`HostHandler::notification`] and
    /// takes them here, so both hosts cap them the same way.
    pub fn take_log(&mut self) -> Vec<LogLine> {
        let mut log = std::mem::take(&mut self.log);
        if self.log_dropped > 0 {
            log.push(LogLine { level: "clawspec".into(), message: format!("[… {} more `$/log` lines dropped (over {} bytes in this call) …]", self.log_dropped, LOG_KEEP_BYTES) });
        }
        self.log_bytes = 0;
        self.log_dropped = 0;
        log
    }

    pub fn with_builtin_2026_4(mut self, b: Option<super::compact::Builtin2026_4>) -> Self {
        self.builtin_2026_4 = b;
        self
    }

    pub fn with_builtin_2026_9(mut self, b: Option<super::compact_2026_9::Builtin2026_9>) -> Self {
        self.builtin_2026_9 = b;
        self
    }

    pub fn with_llm_script(mut self, script: Option<VecDeque<ModelReply>>) -> Self {
        self.llm_script = script;
        self
    }

    pub fn with_runtime_llm(mut self, llm: Option<RuntimeLlm>) -> Self {
        self.llm = llm;
        self
    }
}

/// The session's model behind 2026.9.6's `runtimeContext.llm.complete`
/// (dist runtime-llm.runtime-*.mjs `createRuntimeLlm`: a direct provider call
/// to the agent's model, `execution.mode: "direct-provider"`).
#[derive(Clone, Debug)]
pub struct RuntimeLlm {
    pub api: String,
    pub provider: String,
    pub model: String,
}

impl RuntimeLlm {
    /// The host's answer when it cannot send the request at all, else None.
    ///
    /// `buildMessages` (runtime-llm.runtime-*.mjs) passes a user message's
    /// content as is and wraps every other non-system message as an
    /// assistant `[{type: "text", text: message.content}]`, whatever that
    /// content is. The Anthropic transport then calls `block.text.trim()` on
    /// each assistant text block (@openclaw/ai dist/anthropic-stream-reducer-*.mjs
    /// `convertAnthropicMessages`), which throws for a content that is not a
    /// string (an engine's `AgentMessage` block list); the stream turns the
    /// throw into `stopReason: "error"` with no text, before any request goes
    /// out (`clawspec twin existing-session-bootstrap`: no request reached the
    /// mock provider; the engine's compaction got `text: ""`).
    pub fn unsendable(&self, params: &Value) -> Option<Value> {
        if self.api != "anthropic-messages" {
            return None;
        }
        let messages = params.get("messages").and_then(Value::as_array)?;
        let throws = messages.iter().any(|m| !matches!(m["role"].as_str(), Some("system" | "user")) && !m["content"].is_string());
        throws.then(|| {
            json!({
                "text": "",
                "provider": self.provider,
                "model": self.model,
                "stopReason": "error",
                "execution": {"mode": "direct-provider", "owner": {"kind": "provider", "id": self.provider}},
                "usage": {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 0, "cacheWriteTokens": 0, "totalTokens": 0, "costUsd": 0},
            })
        })
    }
}

/// Deterministic stand-in for a summarising model call.
pub fn summarize(messages: &[Value]) -> String {
    let texts: Vec<String> = messages
        .iter()
        .map(|m| match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) => a.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(" "),
            _ => String::new(),
        })
        .collect();
    let all = texts.join(" ");
    let words: Vec<&str> = all.split_whitespace().collect();
    let head: Vec<&str> = words.iter().take(12).copied().collect();
    format!("Summary of {} messages ({} words): {}", messages.len(), words.len(), head.join(" "))
}

/// OpenClaw's built-in compaction, simplified: summarise everything before a
/// kept tail of about a third of the budget, starting at a user message so no
/// tool pair is split.
pub fn plan_compaction(ms: &[AgentMessage], token_budget: u64) -> Option<CompactionPlan> {
    let before = tokens::estimate_messages(ms);
    let keep_budget = (token_budget / 3).max(1);
    let mut kept = 0u64;
    let mut first_kept = ms.len();
    for i in (0..ms.len()).rev() {
        kept += tokens::estimate_message(&ms[i]);
        if kept > keep_budget {
            break;
        }
        if matches!(ms[i], AgentMessage::User(_)) {
            first_kept = i;
        }
    }
    if first_kept == 0 || first_kept >= ms.len() && ms.len() < 2 {
        return None;
    }
    if first_kept >= ms.len() {
        // No user boundary inside the tail budget: keep only the last user turn.
        first_kept = ms.iter().rposition(|m| matches!(m, AgentMessage::User(_)))?;
        if first_kept == 0 {
            return None;
        }
    }
    let prefix: Vec<Value> = ms[..first_kept].iter().map(|m| serde_json::to_value(m).unwrap()).collect();
    let summary = summarize(&prefix);
    let after = tokens::estimate_text(&summary) + tokens::estimate_messages(&ms[first_kept..]);
    if after >= before {
        return None;
    }
    Some(CompactionPlan { first_kept, summary, tokens_before: before, tokens_after: after, pi_message: false })
}

/// A host model call's answer from the run's lent script: the next scripted
/// reply's text (Err: a scripted failure), else the mock's unscripted reply.
fn next_reply(script: &mut Option<VecDeque<ModelReply>>) -> super::compact::SummaryReply {
    match script.as_mut().and_then(VecDeque::pop_front) {
        Some(ModelReply::Text(t)) => Ok(t),
        Some(ModelReply::Full(s)) => match s.error {
            Some(e) => Err(e.message.unwrap_or_else(|| format!("{:?}", e.kind).to_lowercase())),
            None => Ok(s.text.unwrap_or_default()),
        },
        None => Ok(super::compact::UNSCRIPTED_REPLY.to_string()),
    }
}

impl HostHandler for Callbacks<'_> {
    fn request(&mut self, m: &str, params: &Value) -> Result<Value, RpcError> {
        let result = match m {
            method::HOST_LLM_COMPLETE => match self.llm.as_ref().map(|l| l.unsendable(params)) {
                None => {
                    return Err(RpcError { code: code::METHOD_NOT_FOUND, message: format!("{m} was not offered on this call"), data: None });
                }
                Some(Some(failed)) => failed,
                // `createRuntimeLlm` sends the request to the session's model
                // (runtime-llm.runtime-*.mjs, `execution.mode: "direct-provider"`):
                // the text is the model's answer, "" for a failed call
                // (`clawspec twin overflow-provider-tokens` on builtin:window:
                // the summary is the scripted reply after the overflow).
                Some(None) => json!({"text": next_reply(&mut self.llm_script).unwrap_or_default()}),
            },
            method::HOST_DELEGATE_COMPACTION if self.builtin_2026_4.is_some() => {
                let b = self.builtin_2026_4.as_ref().expect("checked");
                let live: Vec<&Entry> = self.entries.iter().filter(|e| !e.abandoned).collect();
                let script = &mut self.llm_script;
                let (r, plan) = b.compact(&live, params, &mut || next_reply(script));
                // Indexes into the live entries; the transcript's own index.
                self.plan = plan.map(|mut p| {
                    p.first_kept = live.get(p.first_kept).and_then(|e| self.entries.iter().position(|x| x.id == e.id)).unwrap_or(self.entries.len());
                    p
                });
                r
            }
            method::HOST_DELEGATE_COMPACTION if self.builtin_2026_9.is_some() && super::compact_2026_9::Builtin2026_9::handles(params) => {
                let b = self.builtin_2026_9.as_ref().expect("checked");
                let live: Vec<&Entry> = self.entries.iter().filter(|e| !e.abandoned).collect();
                let script = &mut self.llm_script;
                let (r, plan) = b.compact(&live, params, &mut || next_reply(script));
                self.plan = plan.map(|mut p| {
                    p.first_kept = live.get(p.first_kept).and_then(|e| self.entries.iter().position(|x| x.id == e.id)).unwrap_or(self.entries.len());
                    p
                });
                r
            }
            method::HOST_DELEGATE_COMPACTION => {
                let budget = params.get("tokenBudget").and_then(Value::as_u64).unwrap_or(u64::MAX / 4);
                let transcript: Vec<AgentMessage> = self.entries.iter().filter(|e| !e.abandoned).map(|e| (*e.message).clone()).collect();
                match plan_compaction(&transcript, budget) {
                    Some(p) => {
                        let r = json!({"ok": true, "compacted": true, "result": {
                            "summary": p.summary, "firstKeptEntryId": self.entries.get(p.first_kept).map(|e| &e.id),
                            "tokensBefore": p.tokens_before, "tokensAfter": p.tokens_after}});
                        self.plan = Some(p);
                        r
                    }
                    None => json!({"ok": true, "compacted": false, "reason": "nothing to compact"}),
                }
            }
            method::HOST_REWRITE_TRANSCRIPT => json!({"changed": false, "bytesFreed": 0, "rewrittenEntries": 0}),
            other => {
                return Err(RpcError { code: code::METHOD_NOT_FOUND, message: format!("unknown host method {other}"), data: None });
            }
        };
        self.records.push(CallbackRecord { method: m.to_string(), params: params.clone(), result: result.clone() });
        Ok(result)
    }

    fn notification(&mut self, m: &str, params: &Value) {
        if m == method::LOG {
            if self.log_bytes >= LOG_KEEP_BYTES {
                self.log_dropped += 1;
                return;
            }
            let field = |k: &str| match params.get(k) {
                Some(Value::String(s)) => s.clone(),
                None | Some(Value::Null) => String::new(),
                Some(other) => other.to_string(),
            };
            // The engine is untrusted: a level is a short word.
            let level: String = field("level").chars().take(32).collect();
            let mut message = field("message");
            let room = LOG_KEEP_BYTES.saturating_sub(self.log_bytes + level.len());
            if message.len() > room {
                let mut cut = room;
                while !message.is_char_boundary(cut) {
                    cut -= 1;
                }
                message.truncate(cut);
                message.push_str(" [… cut …]");
            }
            let line = LogLine { level, message };
            self.log_bytes += line.message.len() + line.level.len();
            self.log.push(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    /// `$/log` kept per call is bounded; the rest is counted.
    #[test]
    fn log_lines_past_the_cap_are_counted_not_kept() {
        let mut cb = Callbacks::new(&[]);
        let line = "x".repeat(1000);
        for _ in 0..40 {
            cb.notification(method::LOG, &json!({"level": "info", "message": line}));
        }
        let kept: usize = cb.log.iter().map(|l| l.level.len() + l.message.len()).sum();
        assert!(kept <= LOG_KEEP_BYTES + " [… cut …]".len(), "{kept}");
        assert_eq!(cb.log.len() + cb.log_dropped, 40);
        assert!(cb.log_dropped > 0);
        assert!(cb.log.last().unwrap().message.ends_with(" [… cut …]"));
        cb.notification(method::LOG, &json!({"level": 3, "message": null}));
        assert_eq!(cb.log_dropped, 24);
    }

    fn llm(api: &str) -> RuntimeLlm {
        RuntimeLlm { api: api.into(), provider: "anthropic".into(), model: "claude-sonnet-4-6".into() }
    }

    fn complete(llm: Option<RuntimeLlm>, messages: Value) -> Value {
        let mut cb = Callbacks::new(&[]).with_runtime_llm(llm);
        cb.request(method::HOST_LLM_COMPLETE, &json!({"systemPrompt": "Summarize the conversation so far.", "messages": messages, "maxTokens": 512})).unwrap()
    }

    const BLOCKS: &str = r#"[{"role": "user", "content": "why did the build fail"}, {"role": "assistant", "content": [{"type": "text", "text": "a flaky test"}]}]"#;
    const STRINGS: &str = r#"[{"role": "system", "content": "be brief"}, {"role": "user", "content": [{"type": "text", "text": "why"}]}, {"role": "assistant", "content": "a flaky test"}]"#;

    #[rstest]
    #[case::assistant_blocks_on_anthropic("anthropic-messages", BLOCKS, true)]
    #[case::tool_result_blocks_on_anthropic("anthropic-messages", r#"[{"role": "toolResult", "content": [{"type": "text", "text": "3 retries"}]}]"#, true)]
    #[case::string_contents_on_anthropic("anthropic-messages", STRINGS, false)]
    #[case::assistant_blocks_on_openai_responses("openai-responses", BLOCKS, false)]
    fn the_2026_9_host_fails_what_its_anthropic_transport_cannot_encode(#[case] api: &str, #[case] messages: &str, #[case] fails: bool) {
        let out = complete(Some(llm(api)), serde_json::from_str(messages).unwrap());
        if fails {
            assert_eq!((out["text"].as_str(), out["stopReason"].as_str()), (Some(""), Some("error")), "{out}");
        } else {
            assert_eq!(out, json!({"text": "ok"}), "a model call, unscripted");
        }
    }

    /// A sendable request is a model call: it takes the run's next scripted
    /// reply, else the mock's unscripted "ok".
    #[test]
    fn the_2026_9_llm_answers_a_sendable_request_with_the_next_scripted_reply() {
        let script: VecDeque<ModelReply> = [ModelReply::Text("Integration tests are the slowest stage.".into()), ModelReply::Text("second".into())].into();
        let mut cb = Callbacks::new(&[]).with_runtime_llm(Some(llm("openai-responses"))).with_llm_script(Some(script));
        let req = json!({"messages": serde_json::from_str::<Value>(BLOCKS).unwrap(), "maxTokens": 512});
        assert_eq!(cb.request(method::HOST_LLM_COMPLETE, &req).unwrap(), json!({"text": "Integration tests are the slowest stage."}));
        assert_eq!(cb.llm_script.as_ref().unwrap().len(), 1, "the reply is used up");
        assert_eq!(complete(Some(llm("openai-responses")), serde_json::from_str(BLOCKS).unwrap()), json!({"text": "ok"}));
    }

    /// 2026.4.26 has no `runtimeContext.llm`: the request is refused and not
    /// recorded (real 2026.4.26 gateway, `clawspec twin compact-state-effect`
    /// on builtin:window: the engine's compaction summary is its truncation
    /// fallback, and the bridge recorded no llm.complete callback).
    #[test]
    fn without_a_runtime_llm_the_request_is_refused_and_not_recorded() {
        let mut cb = Callbacks::new(&[]).with_runtime_llm(None);
        let err = cb.request(method::HOST_LLM_COMPLETE, &json!({"messages": [], "maxTokens": 512})).unwrap_err();
        assert_eq!(err.code, code::METHOD_NOT_FOUND);
        assert!(err.message.contains("not offered"), "{}", err.message);
        assert!(cb.records.is_empty());
    }
}
