//! The `window` reference engine: keeps its own store (ingest, afterTurn,
//! commitTurn, bootstrap), assembles newest-first within `tokenBudget`, keeps
//! tool pairs, the current turn and volatile live input, and compacts by asking
//! the host's `llm.complete` for a summary. Deterministic. `Mutation` gives the
//! one-defect variants used to prove that each MUST clause catches its defect.

mod fit;
mod volatile;

use std::collections::{BTreeMap, BTreeSet};

use clawspec_contract::info::{CURRENT_TURN_FENCE_V1, TURN_ADVANCEMENT_IDEMPOTENCY_V1};
use clawspec_contract::tokens::{estimate_message, estimate_messages, estimate_text};
use clawspec_contract::*;
use serde_json::{json, Value};

use super::serve::{Engine, Fail, HostLink, Outcome};

/// One deliberate defect each (`clawspec engine window:<name>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    None,
    DropVolatileTail,
    SplitToolPair,
    ExceedBudget,
    NanTokens,
    OmitMessages,
    ReingestSuppressed,
    NonIdempotentBootstrap,
    CommitNeverDuplicate,
    CrashOnCustomRole,
    NoopCompact,
    LaunderProvenance,
    ReorderMessages,
    DropCurrentTurn,
    BadMessage,
    CompactBadShape,
    CompactLies,
    CompactNanCounts,
    BootstrapBadShape,
    IngestBadShape,
    ThrowInAfterTurn,
    MaintainBadShape,
    CommitBadStatus,
    RejectUnknownParams,
    HangInCompact,
    ThrowOnImages,
    ThrowOnRfcFields,
    SpawnBadShape,
    RollbackThrows,
    BadImageType,
}

pub const MUTATIONS: &[(&str, Mutation)] = &[
    ("drop-volatile-tail", Mutation::DropVolatileTail),
    ("split-tool-pair", Mutation::SplitToolPair),
    ("exceed-budget", Mutation::ExceedBudget),
    ("nan-tokens", Mutation::NanTokens),
    ("omit-messages", Mutation::OmitMessages),
    ("reingest-suppressed", Mutation::ReingestSuppressed),
    ("nonidempotent-bootstrap", Mutation::NonIdempotentBootstrap),
    ("commit-never-duplicate", Mutation::CommitNeverDuplicate),
    ("crash-on-custom-role", Mutation::CrashOnCustomRole),
    ("noop-compact", Mutation::NoopCompact),
    ("launder-provenance", Mutation::LaunderProvenance),
    ("reorder-messages", Mutation::ReorderMessages),
    ("drop-current-turn", Mutation::DropCurrentTurn),
    ("bad-message", Mutation::BadMessage),
    ("compact-bad-shape", Mutation::CompactBadShape),
    ("compact-lies", Mutation::CompactLies),
    ("compact-nan-counts", Mutation::CompactNanCounts),
    ("bootstrap-bad-shape", Mutation::BootstrapBadShape),
    ("ingest-bad-shape", Mutation::IngestBadShape),
    ("throw-in-after-turn", Mutation::ThrowInAfterTurn),
    ("maintain-bad-shape", Mutation::MaintainBadShape),
    ("commit-bad-status", Mutation::CommitBadStatus),
    ("reject-unknown-params", Mutation::RejectUnknownParams),
    ("hang-in-compact", Mutation::HangInCompact),
    ("throw-on-images", Mutation::ThrowOnImages),
    ("throw-on-rfc-fields", Mutation::ThrowOnRfcFields),
    ("spawn-bad-shape", Mutation::SpawnBadShape),
    ("rollback-throws", Mutation::RollbackThrows),
    ("bad-image-type", Mutation::BadImageType),
];

pub fn mutation(name: &str) -> Option<Mutation> {
    MUTATIONS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

#[derive(Default)]
struct Session {
    store: Vec<AgentMessage>,
    keys: BTreeSet<String>,
    /// Fingerprints of messages replaced by `summary`.
    covered: BTreeSet<String>,
    summary: Option<String>,
    commits: BTreeMap<String, String>,
}

pub struct Window {
    mutation: Mutation,
    owns_compaction: bool,
    durable: bool,
    sessions: BTreeMap<String, Session>,
    rollbacks: BTreeMap<String, String>,
    next_handle: u64,
    ended: Vec<(String, String)>,
}

impl Window {
    pub fn new(mutation: Mutation) -> Self {
        Window { mutation, owns_compaction: false, durable: true, sessions: BTreeMap::new(), rollbacks: BTreeMap::new(), next_handle: 0, ended: vec![] }
    }

    fn session(&mut self, params: &Value) -> &mut Session {
        let id = params.get("sessionId").and_then(Value::as_str).unwrap_or("default").to_string();
        self.sessions.entry(id).or_default()
    }
}

fn fingerprint(m: &AgentMessage) -> String {
    let ts = serde_json::to_value(m).ok().and_then(|v| v.get("timestamp").cloned()).unwrap_or(Value::Null);
    format!("{}|{ts}|{}", m.role(), m.text())
}

fn parse_messages(v: &Value) -> Result<Vec<AgentMessage>, Fail> {
    serde_json::from_value(v.clone()).map_err(|e| Fail::Threw(format!("window: cannot read messages: {e}")))
}

fn store(s: &mut Session, ms: impl IntoIterator<Item = AgentMessage>, mutation: Mutation) -> usize {
    let mut n = 0;
    for m in ms {
        if volatile::is_unpersisted_announce(&m) && mutation != Mutation::ReingestSuppressed {
            continue;
        }
        if s.keys.insert(fingerprint(&m)) || mutation == Mutation::NonIdempotentBootstrap {
            s.store.push(m);
            n += 1;
        }
    }
    n
}

impl Engine for Window {
    fn initialize(&mut self, params: &Value) -> Value {
        let cfg = params.get("engineConfig").cloned().unwrap_or(Value::Null);
        if let Some(b) = cfg.get("ownsCompaction").and_then(Value::as_bool) {
            self.owns_compaction = b;
        }
        if let Some(b) = cfg.get("durable").and_then(Value::as_bool) {
            self.durable = b;
        }
        let mut methods = vec!["bootstrap", "maintain", "ingestBatch", "afterTurn", "prepareSubagentSpawn", "onSubagentEnded", "dispose"];
        if self.mutation == Mutation::IngestBadShape {
            // Without afterTurn the host finalizes through ingestBatch/ingest.
            methods.retain(|m| *m != "afterTurn");
        }
        let mut info = json!({"id": "window", "name": "clawspec window engine", "version": env!("CARGO_PKG_VERSION"), "ownsCompaction": self.owns_compaction});
        if self.durable {
            methods.insert(4, "commitTurn");
            info["transcriptSemantics"] = json!({"currentTurnFence": CURRENT_TURN_FENCE_V1, "turnAdvancementIdempotency": TURN_ADVANCEMENT_IDEMPOTENCY_V1});
        }
        json!({
            "info": info,
            "methods": methods,
            "implementation": {"name": "clawspec-window", "version": env!("CARGO_PKG_VERSION"), "language": "rust", "homepage": "https://github.com/clawspec/clawspec"}
        })
    }

    fn call(&mut self, method: &str, params: Value, host: &mut HostLink<'_>) -> Outcome {
        if let Some(r) = self.mutate_before(method, &params) {
            return r;
        }
        let out = self.dispatch(method, params, host)?;
        Ok(self.mutate_after(method, out))
    }
}

impl Window {
    /// Mutations that replace a call's behaviour outright.
    fn mutate_before(&self, method: &str, params: &Value) -> Option<Outcome> {
        use Mutation::*;
        match (self.mutation, method) {
            (RejectUnknownParams, _) if params.get("runtimeSettings").is_some() => {
                Some(Err(Fail::Threw("Unrecognized key(s) in object: 'runtimeSettings'".into())))
            }
            (ThrowInAfterTurn, "afterTurn") => Some(Err(Fail::Threw("afterTurn exploded".into()))),
            (HangInCompact, "compact") => {
                std::thread::sleep(std::time::Duration::from_secs(3600));
                Option::None
            }
            (ThrowOnImages, "assemble") if params["messages"].to_string().contains("\"type\":\"image\"") => {
                Some(Err(Fail::Threw("cannot handle image blocks".into())))
            }
            (ThrowOnRfcFields, "assemble") if params.get("inputProvenance").is_some() => {
                Some(Err(Fail::Threw("unexpected field inputProvenance".into())))
            }
            (RollbackThrows, "rollback") => Some(Err(Fail::Threw("rollback failed".into()))),
            _ => Option::None,
        }
    }

    /// Mutations that corrupt a call's result.
    fn mutate_after(&self, method: &str, mut out: Value) -> Value {
        use Mutation::*;
        match (self.mutation, method) {
            (BadMessage, "assemble") => {
                if let Some(a) = out["messages"].as_array_mut() {
                    a.push(json!({"role": "tool", "content": "tool output in the wrong shape"}));
                }
            }
            (BadImageType, "assemble") => {
                // Re-encodes images as BMP, which no provider accepts.
                for m in out["messages"].as_array_mut().into_iter().flatten() {
                    for b in m["content"].as_array_mut().into_iter().flatten() {
                        if b["type"] == "image" {
                            b["mimeType"] = json!("image/bmp");
                        }
                    }
                }
            }
            (CompactBadShape, "compact") => out = json!({"done": true}),
            (CompactLies, "compact") => {
                out = json!({"ok": true, "compacted": true, "result": {"summary": "(nothing)", "tokensBefore": 100, "tokensAfter": 5000}})
            }
            (CompactNanCounts, "compact") => {
                out = json!({"ok": true, "compacted": false, "reason": "skipped", "result": {"tokensBefore": null}})
            }
            (BootstrapBadShape, "bootstrap") => out = json!({}),
            (IngestBadShape, "ingest") => out = json!({}),
            (IngestBadShape, "ingestBatch") => out = json!({"ingestedCount": 1_000_000}),
            (MaintainBadShape, "maintain") => out = json!({"ok": true}),
            (CommitBadStatus, "commitTurn") => out = json!({"status": "ok"}),
            (SpawnBadShape, "prepareSubagentSpawn") => out = json!({"rollback": "function"}),
            _ => {}
        }
        out
    }

    fn dispatch(&mut self, method: &str, params: Value, host: &mut HostLink<'_>) -> Outcome {
        match method {
            "bootstrap" => self.bootstrap(&params),
            "ingest" => {
                let m: AgentMessage = serde_json::from_value(params["message"].clone()).map_err(|e| Fail::Threw(e.to_string()))?;
                self.check_custom(std::slice::from_ref(&m))?;
                let mu = self.mutation;
                let n = store(self.session(&params), [m], mu);
                Ok(json!({"ingested": n > 0}))
            }
            "ingestBatch" => {
                let ms = parse_messages(&params["messages"])?;
                self.check_custom(&ms)?;
                let mu = self.mutation;
                let n = store(self.session(&params), ms, mu);
                Ok(json!({"ingestedCount": n}))
            }
            "afterTurn" => {
                let ms = parse_messages(&params["messages"])?;
                self.check_custom(&ms)?;
                let pre = params["prePromptMessageCount"].as_u64().unwrap_or(0) as usize;
                let mu = self.mutation;
                store(self.session(&params), ms.into_iter().skip(pre), mu);
                Ok(Value::Null)
            }
            "commitTurn" => self.commit_turn(&params),
            "assemble" => self.assemble(&params),
            "compact" => self.compact(&params, host),
            "maintain" => Ok(json!({"changed": false, "bytesFreed": 0, "rewrittenEntries": 0})),
            "prepareSubagentSpawn" => {
                self.next_handle += 1;
                let h = format!("rb-{}", self.next_handle);
                let child = params["childSessionKey"].as_str().unwrap_or_default().to_string();
                self.rollbacks.insert(h.clone(), child);
                Ok(json!({"rollback": {"$handle": h}}))
            }
            "rollback" => {
                let h = params["handle"].as_str().unwrap_or_default();
                match self.rollbacks.remove(h) {
                    Some(_) => Ok(Value::Null),
                    None => Err(Fail::Threw(format!("unknown rollback handle {h}"))),
                }
            }
            "onSubagentEnded" => {
                self.ended.push((params["childSessionKey"].as_str().unwrap_or_default().into(), params["reason"].as_str().unwrap_or_default().into()));
                Ok(Value::Null)
            }
            "dispose" => {
                self.sessions.clear();
                Ok(Value::Null)
            }
            _ => Err(Fail::NotImplemented),
        }
    }

    fn check_custom(&self, ms: &[AgentMessage]) -> Result<(), Fail> {
        if self.mutation == Mutation::CrashOnCustomRole && ms.iter().any(|m| matches!(m, AgentMessage::Custom(_))) {
            eprintln!("window: custom role — crashing (mutation)");
            std::process::exit(3);
        }
        Ok(())
    }

    /// Import the OpenClaw JSONL transcript; idempotent (fingerprints).
    fn bootstrap(&mut self, params: &Value) -> Outcome {
        let Some(path) = params.get("sessionFile").and_then(Value::as_str) else {
            return Ok(json!({"bootstrapped": false, "reason": "no sessionFile"}));
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return Ok(json!({"bootstrapped": false, "reason": format!("cannot read session file: {e}")})),
        };
        let mut ms = Vec::new();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            if v.get("type").and_then(Value::as_str) == Some("message") {
                if let Ok(m) = serde_json::from_value::<AgentMessage>(v["message"].clone()) {
                    if !m.is_runtime_context_carrier() {
                        ms.push(m);
                    }
                }
            }
        }
        self.check_custom(&ms)?;
        let mu = self.mutation;
        let n = store(self.session(params), ms, mu);
        Ok(json!({"bootstrapped": true, "importedMessages": n}))
    }

    fn commit_turn(&mut self, params: &Value) -> Outcome {
        let key = params["advancementKey"].as_str().unwrap_or_default().to_string();
        if params["admission"]["logicalTurnId"].as_str() != Some(key.as_str()) {
            return Err(Fail::Threw(format!("commitTurn: advancementKey {key:?} does not match admission.logicalTurnId")));
        }
        let payload = serde_json::to_string(&json!([params["messages"], params["terminal"]["entryId"]])).unwrap();
        let ms = parse_messages(&params["messages"])?;
        self.check_custom(&ms)?;
        let mu = self.mutation;
        let s = self.session(params);
        match s.commits.get(&key) {
            Some(prev) if *prev == payload && mu != Mutation::CommitNeverDuplicate => return Ok(json!({"status": "duplicate"})),
            Some(prev) if *prev != payload => {
                return Err(Fail::Threw(format!("commitTurn: {key} was already committed with a different payload")));
            }
            _ => {}
        }
        s.commits.insert(key, payload);
        store(s, ms, mu);
        Ok(json!({"status": "committed"}))
    }

    fn assemble(&mut self, params: &Value) -> Outcome {
        let mut ms = parse_messages(&params["messages"])?;
        self.check_custom(&ms)?;
        let budget = params.get("tokenBudget").and_then(Value::as_u64).unwrap_or(u64::MAX / 4);
        let mutation = self.mutation;
        let (summary, covered) = {
            let s = self.session(params);
            (s.summary.clone(), s.covered.clone())
        };
        // Replace what the last compaction covered by its summary.
        let mut with_summary = Vec::with_capacity(ms.len() + 1);
        let mut summary_inserted = false;
        let mut origin = Vec::with_capacity(ms.len() + 1);
        for (i, m) in ms.drain(..).enumerate() {
            if covered.contains(&fingerprint(&m)) {
                if !summary_inserted {
                    if let Some(s) = &summary {
                        with_summary.push(summary_message(s));
                        origin.push(None);
                    }
                    summary_inserted = true;
                }
                continue;
            }
            with_summary.push(m);
            origin.push(Some(i));
        }
        let ms = with_summary;
        // The live turn: from prePromptMessageCount (RFC) if given; with a
        // separate `prompt` nothing in messages is live; otherwise everything
        // after the last final assistant answer.
        let n = ms.len();
        let last_final = ms.iter().rposition(|m| matches!(m, AgentMessage::Assistant(_)) && m.tool_call_ids().is_empty());
        let boundary = match params.get("prePromptMessageCount").and_then(Value::as_u64) {
            Some(b) => origin.iter().position(|o| o.is_some_and(|i| i >= b as usize)).unwrap_or(n),
            None if params.get("prompt").is_some() => n,
            None => last_final.map(|i| i + 1).unwrap_or(0),
        };
        let tail_start = last_final.map(|i| i + 1).unwrap_or(0).min(boundary);
        let mut must = vec![false; n];
        for i in 0..n {
            let live = i >= boundary;
            let vol = i >= tail_start && origin[i].is_some_and(|o| volatile::is_volatile(&ms[i], o, params));
            must[i] = match mutation {
                Mutation::DropVolatileTail => live && !vol,
                Mutation::DropCurrentTurn => false,
                _ => live || vol,
            };
        }
        if mutation == Mutation::DropVolatileTail {
            // The defect: rebuild from the store and drop unrecognised live input.
            for i in 0..n {
                if i >= tail_start && origin[i].is_some_and(|o| volatile::is_volatile(&ms[i], o, params)) {
                    must[i] = false;
                }
            }
        }
        let fit_budget = if mutation == Mutation::ExceedBudget { u64::MAX / 4 } else { budget };
        let mut kept = fit::fit(&ms, fit_budget, &must, mutation == Mutation::SplitToolPair);
        if mutation == Mutation::DropVolatileTail {
            kept.retain(|&i| !(i >= tail_start && origin[i].is_some_and(|o| volatile::is_volatile(&ms[i], o, params))));
        }
        if mutation == Mutation::DropCurrentTurn {
            kept.retain(|&i| i < boundary);
        }
        if mutation == Mutation::SplitToolPair {
            // Drop the first tool result that follows a kept call.
            if let Some(pos) = kept.iter().position(|&i| matches!(ms[i], AgentMessage::ToolResult(_))) {
                kept.remove(pos);
            }
        }
        let mut out: Vec<AgentMessage> = kept.iter().map(|&i| ms[i].clone()).collect();
        if mutation == Mutation::ReingestSuppressed {
            // The defect: stored announce triggers come back as history.
            let sent: BTreeSet<String> = ms.iter().map(fingerprint).collect();
            let s = self.session(params);
            out.extend(s.store.iter().filter(|m| volatile::is_unpersisted_announce(m) && !sent.contains(&fingerprint(m))).cloned());
        }
        if mutation == Mutation::ReorderMessages && out.len() >= 2 {
            let last = out.len() - 1;
            out.swap(0, last);
        }
        let total = estimate_messages(&out);
        if total > budget && mutation == Mutation::None {
            eprintln!("window: the must-keep messages need {total} tokens, over the {budget} budget");
        }
        let mut result = json!({"messages": out, "estimatedTokens": total});
        match mutation {
            Mutation::NanTokens => result["estimatedTokens"] = Value::Null,
            Mutation::OmitMessages => {
                result.as_object_mut().unwrap().remove("messages");
            }
            Mutation::LaunderProvenance => {
                let texts: Vec<String> = params["messages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|m| m.get("provenance").is_some())
                    .filter_map(|m| serde_json::from_value::<AgentMessage>(m.clone()).ok())
                    .map(|m| m.text())
                    .collect();
                if !texts.is_empty() {
                    result["systemPromptAddition"] = json!(format!("Remember: {}", texts.join(" ")));
                }
            }
            _ => {}
        }
        Ok(result)
    }

    fn compact(&mut self, params: &Value, host: &mut HostLink<'_>) -> Outcome {
        let signal = params.get("abortSignal").and_then(|s| s.get("$abortSignal")).and_then(Value::as_str).map(str::to_string);
        if self.mutation == Mutation::NoopCompact {
            return Ok(json!({"ok": true, "compacted": false, "reason": "not implemented"}));
        }
        let budget = params.get("tokenBudget").and_then(Value::as_u64).unwrap_or(u64::MAX / 4);
        let target = params.get("compactionTarget").and_then(Value::as_str).unwrap_or("budget");
        let live: Vec<AgentMessage> = {
            let s = self.session(params);
            s.store.iter().filter(|m| !s.covered.contains(&fingerprint(m))).cloned().collect()
        };
        let prior = self.session(params).summary.clone();
        let before_est = estimate_messages(&live) + prior.as_deref().map(estimate_text).unwrap_or(0);
        let before = params.get("currentTokenCount").and_then(Value::as_u64).unwrap_or(before_est);
        // "budget": get well under the budget; when the host reports more than
        // we estimate (it overflowed anyway), halve what we hold.
        let goal = if target == "threshold" { before_est / 2 } else { (budget / 2).min(before_est / 2) };
        // Keep a newest-first tail within the goal, at whole groups, at least
        // the last user turn; cover the rest.
        let gs = fit::groups(&live);
        let mut kept_from = live.len();
        let mut used = 0;
        for g in gs.iter().rev() {
            let c: u64 = g.iter().map(|&i| estimate_message(&live[i])).sum();
            if used + c > goal {
                break;
            }
            used += c;
            kept_from = g[0];
        }
        // Keep at least the newest group, even if it alone exceeds the goal.
        if kept_from == live.len() {
            kept_from = gs.last().map(|g| g[0]).unwrap_or(0);
        }
        if kept_from == 0 {
            return Ok(json!({"ok": true, "compacted": false, "reason": "nothing to compact"}));
        }
        let to_cover = &live[..kept_from];
        let mut request: Vec<Value> = Vec::new();
        if let Some(p) = &prior {
            request.push(json!({"role": "user", "content": format!("Previous summary: {p}")}));
        }
        request.extend(to_cover.iter().map(|m| serde_json::to_value(m).unwrap()));
        let instructions = params.get("customInstructions").and_then(Value::as_str).unwrap_or("Summarize the conversation so far.");
        let summary = match host.request("host/llm.complete", json!({"forCall": host.current_call, "systemPrompt": instructions, "messages": request, "maxTokens": 512})) {
            Ok(v) => v.get("text").and_then(Value::as_str).unwrap_or_default().to_string(),
            Err(e) => {
                eprintln!("window: llm.complete failed ({e}); summarising by truncation");
                to_cover.iter().map(|m| m.text()).collect::<Vec<_>>().join(" ").chars().take(400).collect()
            }
        };
        if host.is_aborted(signal.as_deref()) {
            return Err(Fail::Aborted);
        }
        let after = estimate_text(&summary) + estimate_messages(&live[kept_from..]);
        if after >= before {
            return Ok(json!({"ok": true, "compacted": false, "reason": "summary would not be smaller"}));
        }
        let s = self.session(params);
        for m in to_cover {
            s.covered.insert(fingerprint(m));
        }
        s.summary = Some(summary.clone());
        Ok(json!({"ok": true, "compacted": true, "result": {"summary": summary, "tokensBefore": before, "tokensAfter": after}}))
    }
}

fn summary_message(s: &str) -> AgentMessage {
    serde_json::from_value(json!({"role": "compactionSummary", "summary": s, "tokensBefore": 0})).expect("summary message")
}
