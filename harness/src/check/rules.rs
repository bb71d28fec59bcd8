//! One function per clause. Each reads the trace only: `Ok(vec![])` passes,
//! `Ok(problems)` fails with one line per problem, `Err(Skip::NotApplicable)`
//! when nothing in this trace exercises the clause, and `Err(Skip::Caught)`
//! when every call the clause would judge threw (a *caught* error in Bowtie's
//! terms: the engine reported an error instead of a result, so there is
//! nothing to judge — never a silent pass).

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::Arc;

use clawspec_contract::tokens::estimate_messages;
use clawspec_contract::*;
use serde::Deserialize;
use serde_json::Value;

use super::matching::passes_through;
use super::Ctx;
use crate::trace::{CallRecord, ReplyRecord};

pub type Outcome = Result<Vec<String>, Skip>;

/// Why a clause gives neither pass nor fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    NotApplicable(String),
    /// Every call the clause judges threw; the first message is kept.
    Caught(String),
}

impl From<String> for Skip {
    fn from(s: String) -> Skip {
        Skip::NotApplicable(s)
    }
}

impl From<&str> for Skip {
    fn from(s: &str) -> Skip {
        Skip::NotApplicable(s.to_string())
    }
}

/// `Caught` when `cs` is non-empty, none returned, and one threw.
fn all_threw(cs: &[&CallRecord]) -> Result<(), Skip> {
    if !cs.is_empty() && cs.iter().all(|x| returned(x).is_none()) {
        if let Some((x, m)) = cs.iter().find_map(|x| threw(x).map(|m| (x, m))) {
            return Err(Skip::Caught(format!("every {} call threw; first at {}: {m:?}", x.method, at(x))));
        }
    }
    Ok(())
}

/// A call's messages, parsed once per trace and shared (`CallRecord::input`).
pub type Msgs = Vec<Arc<AgentMessage>>;

pub use super::assembly::Assembled;

/// Successful assembles, or why there are none.
fn assembled_or_skip<'a, 't>(c: &'a Ctx<'t>) -> Result<&'a [Assembled<'t>], Skip> {
    all_threw(&calls(c, "assemble"))?;
    let a = assembled(c);
    none_if_empty(&a, "successful assemble")?;
    Ok(a)
}

fn calls<'a>(c: &'a Ctx<'_>, m: &str) -> Vec<&'a CallRecord> {
    c.trace.calls().filter(|x| x.method == m).collect()
}

pub(super) fn returned(c: &CallRecord) -> Option<&Value> {
    match &c.reply {
        ReplyRecord::Ok(v) => Some(v),
        _ => None,
    }
}

pub(super) fn at(c: &CallRecord) -> String {
    format!("turn {} attempt {} {} (call #{})", c.turn, c.attempt, c.method, c.seq)
}

fn none_if_empty<T>(v: &[T], what: &str) -> Result<(), String> {
    if v.is_empty() {
        Err(format!("no {what} in this scenario"))
    } else {
        Ok(())
    }
}

/// assemble calls that returned a well-formed messages array, parsed
/// (once per trace, shared by the clauses).
fn assembled<'a, 't>(c: &'a Ctx<'t>) -> &'a [Assembled<'t>] {
    c.assembled()
}

/// One line per message, ids included (a tool-call-only message is not blank).
fn line(m: &AgentMessage) -> String {
    super::matching::describe(m)
}

/// A unified diff of the host's messages and the engine's assembled output,
/// appended to assemble failures so the report shows what changed.
fn with_diff<M: Borrow<AgentMessage>>(mut problems: Vec<String>, input: &[M], output: &[M]) -> Vec<String> {
    if problems.is_empty() {
        return problems;
    }
    let a: String = input.iter().map(|m| line(m.borrow()) + "\n").collect();
    let b: String = output.iter().map(|m| line(m.borrow()) + "\n").collect();
    if let Some(d) = crate::golden::diff(&a, &b) {
        problems.push(format!("diff (- sent to assemble, + assembled):\n{}", d.trim_end()));
    }
    problems
}

fn text_key(m: &AgentMessage) -> String {
    format!("{}|{}", m.role(), m.text())
}

/// Every returned result of `method` satisfies `ok`, else one line per call.
fn shape(c: &Ctx<'_>, method: &str, expected: &str, ok: impl Fn(&Value) -> bool) -> Outcome {
    let cs = calls(c, method);
    none_if_empty(&cs, &format!("{method} call"))?;
    all_threw(&cs)?;
    Ok(cs.iter().filter_map(|call| returned(call).filter(|v| !ok(v)).map(|v| format!("{}: not {expected}: {}", at(call), short(v)))).collect())
}

/// No call of `methods` threw (filtered by `keep`).
fn no_throws(c: &Ctx<'_>, what: &str, keep: impl Fn(&CallRecord) -> bool) -> Outcome {
    let cs: Vec<&CallRecord> = c.trace.calls().filter(|x| keep(x)).collect();
    none_if_empty(&cs, what)?;
    Ok(cs.iter().filter_map(|x| threw(x).map(|m| format!("{}: threw {m:?}", at(x)))).collect())
}

pub fn asm_shape(c: &Ctx<'_>) -> Outcome {
    let cs = calls(c, "assemble");
    none_if_empty(&cs, "assemble call")?;
    all_threw(&cs)?;
    Ok(cs
        .iter()
        .filter_map(|call| {
            let v = returned(call)?;
            // An interned array is a list reference; resolve only to show a bad one.
            let is_array = v.get("messages").is_some_and(|m| m.is_array() || m.get(crate::trace::store::LIST_REF).is_some());
            (!is_array).then(|| format!("{}: result has no `messages` array: {}", at(call), short(&c.trace.resolve(v))))
        })
        .collect())
}

pub fn asm_messages_valid(c: &Ctx<'_>) -> Outcome {
    let cs = calls(c, "assemble");
    none_if_empty(&cs, "assemble call")?;
    all_threw(&cs)?;
    let mut out = Vec::new();
    for call in cs {
        let Some(v) = returned(call) else { continue };
        // The very list the host sent (a stored list of its own messages).
        let list = |x: &Value| x.get("messages").and_then(|m| m.get(crate::trace::store::LIST_REF)).cloned();
        if super::matching::shortcuts() && list(v).is_some() && list(v) == list(&call.params) {
            continue;
        }
        let (Some(raw), Some(parsed)) = (c.trace.store.messages_ref(v), c.trace.parsed(v)) else { continue };
        for (i, (m, p)) in raw.iter().zip(&parsed).enumerate() {
            if p.is_some() {
                continue;
            }
            if let Err(e) = AgentMessage::deserialize(*m) {
                out.push(format!("{}: messages[{i}] is not an AgentMessage ({e}): {}", at(call), short(m)));
            }
        }
    }
    Ok(out)
}

pub fn asm_estimated_tokens(c: &Ctx<'_>) -> Outcome {
    let cs = calls(c, "assemble");
    none_if_empty(&cs, "assemble call")?;
    all_threw(&cs)?;
    Ok(cs
        .iter()
        .filter_map(|call| {
            let v = returned(call)?;
            let ok = v.get("estimatedTokens").and_then(Value::as_f64).is_some_and(|t| t.is_finite() && t >= 0.0);
            (!ok).then(|| format!("{}: estimatedTokens is {}", at(call), v.get("estimatedTokens").map(|t| t.to_string()).unwrap_or_else(|| "missing".into())))
        })
        .collect())
}

/// Calls without results and orphan results in a message list.
pub fn pairing_problems<M: Borrow<AgentMessage>>(ms: &[M]) -> Vec<String> {
    let ms: Vec<&AgentMessage> = ms.iter().map(Borrow::borrow).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < ms.len() {
        if let AgentMessage::ToolResult(r) = ms[i] {
            out.push(format!("messages[{i}]: toolResult {:?} has no toolCall right before it", r.tool_call_id));
            i += 1;
            continue;
        }
        let ids = ms[i].tool_call_ids();
        let mut j = i + 1;
        let mut seen: Vec<&str> = Vec::new();
        while let Some(AgentMessage::ToolResult(r)) = ms.get(j).copied() {
            if !ids.contains(&r.tool_call_id.as_str()) {
                out.push(format!("messages[{j}]: toolResult {:?} answers no call of messages[{i}]", r.tool_call_id));
            }
            seen.push(&r.tool_call_id);
            j += 1;
        }
        for id in &ids {
            if !seen.contains(id) {
                out.push(format!("messages[{i}]: toolCall {id:?} has no toolResult"));
            }
        }
        i = j;
    }
    out
}

pub fn asm_tool_pairing(c: &Ctx<'_>) -> Outcome {
    let a = assembled_or_skip(c)?;
    Ok(a.iter()
        .flat_map(|(call, input, out)| with_diff(pairing_problems(out).into_iter().map(|p| format!("{}: {p}", at(call))).collect(), input, out))
        .collect())
}

pub fn asm_order(c: &Ctx<'_>) -> Outcome {
    let a = assembled_or_skip(c)?;
    let mut out = Vec::new();
    for (call, input, output) in a {
        let matched = super::matching::match_output(input, output);
        // (output index, input index) of the last message taken from the input.
        let mut last: Option<(usize, usize)> = None;
        for (o, p) in matched.iter().enumerate() {
            let Some(p) = *p else { continue };
            if let Some((lo, lp)) = last.filter(|(_, lp)| p < *lp) {
                let msg = format!(
                    "{}: output[{o}] = input[{p}] ({}) comes after output[{lo}] = input[{lp}] ({})",
                    at(call),
                    line(&output[o]),
                    line(&output[lo])
                );
                out.extend(with_diff(vec![msg], input, output));
                break;
            }
            last = Some((o, p));
        }
    }
    Ok(out)
}

pub fn asm_current_turn(c: &Ctx<'_>) -> Outcome {
    all_threw(&calls(c, "assemble"))?;
    let a = assembled(c);
    let mut relevant = 0;
    let mut out = Vec::new();
    for (call, input, output) in a {
        let Some(b) = call.meta.boundary else { continue };
        if b >= input.len() {
            continue; // the current turn travels in `prompt`
        }
        relevant += 1;
        if output.len() == input.len() && passes_through(input, output) {
            continue; // every input message came back
        }
        let kept: std::collections::BTreeSet<String> = output.iter().map(|m| text_key(m)).collect();
        let mut here = Vec::new();
        for (i, m) in input.iter().enumerate().skip(b) {
            if call.meta.volatile.contains(&i) {
                continue; // CE-VOL-001's business
            }
            if !kept.contains(&text_key(m)) {
                here.push(format!("{}: live-turn messages[{i}] ({}) missing from the result", at(call), m.role()));
            }
        }
        out.extend(with_diff(here, input, output));
    }
    if relevant == 0 {
        return Err("every assemble delivered the current turn through `prompt`".into());
    }
    Ok(out)
}

pub fn asm_budget(c: &Ctx<'_>) -> Outcome {
    let a = assembled_or_skip(c)?;
    let mut out = Vec::new();
    for (call, _, output) in a {
        let v = returned(call).unwrap();
        if v.get("promptAuthority").and_then(Value::as_str) == Some("preassembly_may_overflow") {
            continue;
        }
        let Some(budget) = call.params.get("tokenBudget").and_then(Value::as_u64) else { continue };
        // The spine's prefix sums when shortcuts are on (the same sum).
        let est = if super::matching::shortcuts() { c.text_keys.spine(output).tokens[output.len()] } else { estimate_messages(output) };
        if est as f64 > budget as f64 * 1.10 {
            out.push(format!("{}: ~{est} tokens assembled for a tokenBudget of {budget}", at(call)));
        }
    }
    Ok(out)
}

pub fn asm_no_leading_tool(c: &Ctx<'_>) -> Outcome {
    let a = assembled_or_skip(c)?;
    Ok(a.iter()
        .filter_map(|(call, input, out)| {
            let first = out.first()?;
            let bad = matches!(**first, AgentMessage::ToolResult(_)) || !first.tool_call_ids().is_empty();
            // Only the engine's doing when the input did not start that way.
            let input_bad = input.first().is_some_and(|f| matches!(**f, AgentMessage::ToolResult(_)) || !f.tool_call_ids().is_empty());
            (bad && !input_bad).then(|| format!("{}: assembled history starts with a {}", at(call), if matches!(**first, AgentMessage::ToolResult(_)) { "tool result" } else { "tool call" }))
        })
        .collect())
}

pub fn vol_kept(c: &Ctx<'_>) -> Outcome {
    all_threw(&calls(c, "assemble"))?;
    let a = assembled(c);
    let mut relevant = 0;
    let mut out = Vec::new();
    for (call, input, output) in a {
        if call.meta.volatile.is_empty() {
            continue;
        }
        relevant += 1;
        if output.len() == input.len() && passes_through(input, output) {
            continue; // every input message came back
        }
        let kept: std::collections::BTreeSet<String> = output.iter().map(|m| text_key(m)).collect();
        let mut here = Vec::new();
        for &i in &call.meta.volatile {
            let Some(m) = input.get(i) else { continue };
            if !kept.contains(&text_key(m)) {
                let head: String = m.text().chars().take(60).collect();
                here.push(format!("{}: volatile messages[{i}] dropped: {head:?}…", at(call)));
            }
        }
        out.extend(with_diff(here, input, output));
    }
    if relevant == 0 {
        return Err("no volatile live input past the boundary in this scenario".into());
    }
    Ok(out)
}

pub fn vol_provenance_kept(c: &Ctx<'_>) -> Outcome {
    all_threw(&calls(c, "assemble"))?;
    let a = assembled(c);
    let mut relevant = 0;
    let mut out = Vec::new();
    for (call, input, output) in a {
        for &i in &call.meta.volatile {
            let Some(m) = input.get(i) else { continue };
            let Some(p) = m.provenance() else { continue };
            relevant += 1;
            if let Some(o) = output.iter().find(|o| text_key(o) == text_key(m)) {
                if o.provenance() != Some(p) {
                    out.push(format!("{}: messages[{i}] kept without its provenance", at(call)));
                }
            }
        }
    }
    if relevant == 0 {
        return Err("no volatile message with provenance".into());
    }
    Ok(out)
}

pub fn per_no_resurrection(c: &Ctx<'_>) -> Outcome {
    all_threw(&calls(c, "assemble"))?;
    let a = assembled(c);
    let mut relevant = 0;
    let mut out = Vec::new();
    for (call, input, output) in a {
        if call.meta.unpersisted.is_empty() {
            continue;
        }
        relevant += 1;
        if passes_through(input, output) {
            continue; // every output message was sent
        }
        let sent: std::collections::BTreeSet<String> = input.iter().map(|m| m.text()).collect();
        for m in output.iter() {
            let t = m.text();
            if call.meta.unpersisted.contains(&t) && !sent.contains(&t) {
                let head: String = t.chars().take(60).collect();
                out.push(format!("{}: an unpersisted announce came back as history: {head:?}…", at(call)));
            }
        }
    }
    if relevant == 0 {
        return Err("no unpersisted input in this scenario".into());
    }
    Ok(out)
}

pub fn per_no_invention(c: &Ctx<'_>) -> Outcome {
    let a = assembled_or_skip(c)?;
    let mut received = super::summaries::Received::default();
    let mut fed = 0usize;
    let all: Vec<&CallRecord> = c.trace.calls().collect();
    let mut out = Vec::new();
    for (call, input, output) in a {
        // Everything the engine received up to and including this call.
        while fed < all.len() && all[fed].seq <= call.seq {
            received.feed_call(c.trace, all[fed]);
            fed += 1;
        }
        if input.same(output) {
            continue; // every message is one the host sent
        }
        let matched = super::matching::match_output(input, output);
        for (m, from) in output.iter().zip(&matched) {
            if from.is_some() || matches!(**m, AgentMessage::CompactionSummary(_) | AgentMessage::BranchSummary(_) | AgentMessage::Custom(_)) {
                continue;
            }
            if received.summarises(m) {
                continue; // the engine's summary of history it received
            }
            out.push(format!("{}: returned a message the host did not send: {}", at(call), line(m)));
        }
    }
    Ok(out)
}

pub fn cmp_shape(c: &Ctx<'_>) -> Outcome {
    shape(c, "compact", "{ok, compacted}", |v| v.get("ok").is_some_and(Value::is_boolean) && v.get("compacted").is_some_and(Value::is_boolean))
}

pub(super) fn compacted(v: &Value) -> bool {
    v.get("ok").and_then(Value::as_bool) == Some(true) && v.get("compacted").and_then(Value::as_bool) == Some(true)
}

pub fn cmp_effective(c: &Ctx<'_>) -> Outcome {
    let all: Vec<&CallRecord> = c.trace.calls().collect();
    let mut relevant = 0;
    let mut out = Vec::new();
    for (k, call) in all.iter().enumerate() {
        if call.method != "compact" || !returned(call).is_some_and(compacted) {
            continue;
        }
        // A compaction the engine handed to the host (delegateCompactionToRuntime)
        // and returned unchanged is the host's own result, not the engine's:
        // 2026.4.26's built-in compaction keeps pi's 20 000-token tail and can
        // report tokensAfter ≥ tokensBefore (twins of compact-state-effect and
        // overflow-natural), as cmp_not_noop already exempts delegation.
        if call.callbacks.iter().any(|cb| cb.method == "host/delegateCompaction" && returned(call) == Some(&cb.result)) {
            continue;
        }
        relevant += 1;
        let r = &returned(call).unwrap()["result"];
        if let (Some(b), Some(a)) = (r.get("tokensBefore").and_then(Value::as_f64), r.get("tokensAfter").and_then(Value::as_f64)) {
            if a >= b {
                out.push(format!("{}: tokensAfter {a} is not below tokensBefore {b}", at(call)));
            }
        }
        if let Some(next) = all[k + 1..].iter().find(|x| x.method == "assemble") {
            let budget = next.params.get("tokenBudget").and_then(Value::as_u64);
            let msgs: Option<Msgs> = returned(next).and_then(|v| c.trace.parsed(v)?.into_iter().collect());
            if let (Some(budget), Some(msgs)) = (budget, msgs) {
                let est = estimate_messages(&msgs);
                if est as f64 > budget as f64 * 1.10 {
                    out.push(format!("{}: after a successful compaction the next assemble still needs ~{est} tokens for a budget of {budget}", at(next)));
                }
            }
        }
    }
    if relevant == 0 {
        return Err("no successful compaction in this scenario".into());
    }
    Ok(out)
}

pub fn cmp_not_noop(c: &Ctx<'_>) -> Outcome {
    if c.owns_compaction {
        return Err("the engine owns compaction".into());
    }
    // A delegated compaction (delegateCompactionToRuntime) is the runtime's
    // decision, not an engine no-op.
    let cs: Vec<&CallRecord> = calls(c, "compact")
        .into_iter()
        .filter(|x| x.meta.reason.as_deref() == Some("overflow") && !x.callbacks.iter().any(|cb| cb.method == "host/delegateCompaction"))
        .collect();
    none_if_empty(&cs, "overflow compaction by the engine itself")?;
    let all_noop = cs.iter().all(|call| returned(call).is_some_and(|v| !compacted(v)));
    let history_tokens = cs.iter().filter_map(|x| x.meta.params_tokens).max().unwrap_or(0);
    // Only a no-op when there was history worth compacting.
    Ok(if all_noop && history_tokens > 200 {
        vec![format!("{} forced overflow compaction(s) over ~{history_tokens} tokens of history, none compacted", cs.len())]
    } else {
        vec![]
    })
}

pub fn cmp_token_counts(c: &Ctx<'_>) -> Outcome {
    let cs: Vec<&CallRecord> = calls(c, "compact").into_iter().filter(|x| returned(x).is_some_and(|v| v.get("result").is_some_and(Value::is_object))).collect();
    none_if_empty(&cs, "compact with a result")?;
    let mut out = Vec::new();
    for call in cs {
        let r = &returned(call).unwrap()["result"];
        for k in ["tokensBefore", "tokensAfter"] {
            match r.get(k) {
                None if k == "tokensAfter" => {}
                Some(v) if v.as_f64().is_some_and(|t| t.is_finite() && t >= 0.0) => {}
                other => out.push(format!("{}: result.{k} is {}", at(call), other.map(|v| v.to_string()).unwrap_or_else(|| "missing".into()))),
            }
        }
    }
    Ok(out)
}

pub fn cmp_reason(c: &Ctx<'_>) -> Outcome {
    let cs: Vec<&CallRecord> = calls(c, "compact").into_iter().filter(|x| returned(x).is_some_and(|v| !compacted(v))).collect();
    none_if_empty(&cs, "compaction that did not compact")?;
    Ok(cs.iter().filter(|x| returned(x).unwrap().get("reason").and_then(Value::as_str).is_none()).map(|x| format!("{}: no reason given", at(x))).collect())
}

pub fn boot_idempotent(c: &Ctx<'_>) -> Outcome {
    let cs = calls(c, "bootstrap");
    if cs.len() < 2 {
        return Err("bootstrap ran fewer than twice".into());
    }
    let mut out = Vec::new();
    let mut prev: Option<(u64, u64)> = None;
    let mut prev_session = None;
    for call in cs {
        let fact = |k: &str| call.meta.facts.get(k).and_then(Value::as_u64);
        let now = fact("transcriptEntries").zip(Some(fact("transcriptRewrites").unwrap_or(0)));
        let session = call.params.get("sessionId").cloned();
        if let (Some((pe, pr)), Some((ne, nr)), true) = (prev, now, prev_session == session) {
            let imported = returned(call).and_then(|v| v.get("importedMessages")).and_then(Value::as_u64).unwrap_or(0);
            // New entries plus entries the host rewrote may be imported again.
            let added = ne.saturating_sub(pe) + nr.saturating_sub(pr);
            if imported > added {
                out.push(format!("{}: imported {imported} messages but only {added} were added or rewritten since the previous bootstrap", at(call)));
            }
        }
        prev = now;
        prev_session = session;
    }
    Ok(out)
}

pub fn boot_shape(c: &Ctx<'_>) -> Outcome {
    shape(c, "bootstrap", "{bootstrapped: boolean}", |v| v.get("bootstrapped").is_some_and(Value::is_boolean))
}

pub fn turn_ingest_shape(c: &Ctx<'_>) -> Outcome {
    let mut cs = calls(c, "ingest");
    cs.extend(calls(c, "ingestBatch"));
    none_if_empty(&cs, "ingest or ingestBatch call")?;
    let mut out = Vec::new();
    for call in cs {
        let Some(v) = returned(call) else { continue };
        if call.method == "ingest" {
            if !v.get("ingested").is_some_and(Value::is_boolean) {
                out.push(format!("{}: not {{ingested: boolean}}: {}", at(call), short(v)));
            }
        } else {
            let n = c.trace.store.messages_ref(&call.params).map(|m| m.len()).unwrap_or(0) as f64;
            match v.get("ingestedCount").and_then(Value::as_f64) {
                Some(k) if k.is_finite() && k >= 0.0 && k <= n => {}
                _ => out.push(format!("{}: ingestedCount {} for {n} messages", at(call), v.get("ingestedCount").map(|x| x.to_string()).unwrap_or_else(|| "missing".into()))),
            }
        }
    }
    Ok(out)
}

fn threw(call: &CallRecord) -> Option<&str> {
    match &call.reply {
        ReplyRecord::Threw { message, .. } => Some(message),
        _ => None,
    }
}

pub fn turn_no_throw(c: &Ctx<'_>) -> Outcome {
    no_throws(c, "afterTurn/ingest call", |x| matches!(x.method.as_str(), "afterTurn" | "ingest" | "ingestBatch"))
}

pub fn turn_maintain_shape(c: &Ctx<'_>) -> Outcome {
    shape(c, "maintain", "{changed, bytesFreed, rewrittenEntries}", |v| {
        v.get("changed").is_some_and(Value::is_boolean) && v.get("bytesFreed").is_some_and(Value::is_number) && v.get("rewrittenEntries").is_some_and(Value::is_number)
    })
}

pub fn turn_commit_shape(c: &Ctx<'_>) -> Outcome {
    // A conflicting commit must throw (CE-TURN-006): not a valid commit.
    let cs: Vec<&CallRecord> = calls(c, "commitTurn").into_iter().filter(|x| x.meta.reason.as_deref() != Some("conflict-probe")).collect();
    none_if_empty(&cs, "commitTurn call")?;
    let mut out = Vec::new();
    for call in cs {
        match &call.reply {
            ReplyRecord::Ok(v) if matches!(v.get("status").and_then(Value::as_str), Some("committed" | "duplicate")) => {}
            ReplyRecord::Ok(v) => out.push(format!("{}: status is not committed|duplicate: {}", at(call), short(v))),
            ReplyRecord::Threw { message, .. } => out.push(format!("{}: threw {message:?} on a valid commit", at(call))),
            _ => {}
        }
    }
    Ok(out)
}

pub fn turn_commit_replay(c: &Ctx<'_>) -> Outcome {
    let cs: Vec<&CallRecord> = calls(c, "commitTurn").into_iter().filter(|x| x.meta.reason.as_deref() == Some("outbox-replay")).collect();
    none_if_empty(&cs, "replayed commitTurn")?;
    Ok(cs
        .iter()
        .filter(|x| returned(x).and_then(|v| v.get("status")).and_then(Value::as_str) != Some("duplicate"))
        .map(|x| format!("{}: a replay of an already committed turn answered {}", at(x), match &x.reply { ReplyRecord::Ok(v) => short(v), other => format!("{other:?}") }))
        .collect())
}

/// Payload identity for CE-TURN-006: what the host asks the engine to make
/// durable — a digest of `messages|terminal` written out as JSON (the
/// messages resolved). A digest, not the text: every committed turn carries
/// the whole history, so holding each payload made the clause's memory
/// quadratic in the session; and stored messages are written from the store
/// without resolving a copy of the params first.
pub(super) fn commit_payload(c: &Ctx<'_>, call: &CallRecord) -> [u8; 32] {
    use sha2::Digest;
    struct Hash(sha2::Sha256);
    impl std::io::Write for Hash {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.update(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Hash(sha2::Sha256::new());
    let write = |h: &mut Hash, v: &Value| serde_json::to_writer(h, v).expect("hashing cannot fail");
    let stored = call.params.get("messages").filter(|m| m.get(crate::trace::store::LIST_REF).is_some()).and_then(|_| c.trace.store.messages_ref(&call.params));
    match stored {
        Some(ms) => {
            h.0.update(b"[");
            for (i, m) in ms.into_iter().enumerate() {
                if i > 0 {
                    h.0.update(b",");
                }
                write(&mut h, m);
            }
            h.0.update(b"]");
        }
        None => write(&mut h, c.trace.params(call).get("messages").unwrap_or(&Value::Null)),
    }
    h.0.update(b"|");
    write(&mut h, call.params.get("terminal").unwrap_or(&Value::Null));
    h.0.finalize().into()
}

pub fn turn_commit_conflict(c: &Ctx<'_>) -> Outcome {
    let mut committed: BTreeMap<String, [u8; 32]> = BTreeMap::new();
    let mut relevant = 0;
    let mut out = Vec::new();
    for call in calls(c, "commitTurn") {
        let Some(key) = call.params.get("advancementKey").and_then(Value::as_str) else { continue };
        let payload = commit_payload(c, call);
        match committed.get(key) {
            Some(first) if *first != payload => {
                relevant += 1;
                if let ReplyRecord::Ok(v) = &call.reply {
                    out.push(format!("{}: a different payload under the committed key {key:?} was answered {}", at(call), short(v)));
                }
            }
            Some(_) => {}
            None => {
                if returned(call).and_then(|v| v.get("status")).and_then(Value::as_str) == Some("committed") {
                    committed.insert(key.to_string(), payload);
                }
            }
        }
    }
    if relevant == 0 {
        return Err("no conflicting commitTurn (same advancementKey, different payload) in this scenario".into());
    }
    Ok(out)
}

pub fn host_unknown_params(c: &Ctx<'_>) -> Outcome {
    let all: Vec<&CallRecord> = c.trace.calls().collect();
    none_if_empty(&all, "call")?;
    let re = ["unrecognized key", "unrecognised key", "unknown key", "unknown param", "unexpected property", "additional properties"];
    Ok(all
        .iter()
        .filter_map(|x| threw(x).filter(|m| re.iter().any(|r| m.to_ascii_lowercase().contains(r))).map(|m| format!("{}: rejected a param: {m:?}", at(x))))
        .collect())
}

pub fn host_fields_kept(c: &Ctx<'_>) -> Outcome {
    let a = assembled_or_skip(c)?;
    let mut out = Vec::new();
    for (call, input, output) in a {
        if input.same(output) {
            continue; // the very messages it was sent: nothing lost
        }
        let raw_in = c.trace.store.messages_ref(&call.params).unwrap_or_default();
        let result = returned(call).unwrap_or(&Value::Null);
        let raw_out = c.trace.store.messages_ref(result).unwrap_or_default();
        // Keep raw indices: an output that is no AgentMessage is CE-ASM-002's business.
        let parsed: Vec<(usize, Arc<AgentMessage>)> = c.trace.parsed(result).unwrap_or_default().into_iter().enumerate().filter_map(|(i, m)| Some((i, m?))).collect();
        let outputs: Msgs = parsed.iter().map(|(_, m)| m.clone()).collect();
        let matched = super::matching::match_output(input, &outputs);
        // One line per call: which fields were lost how often, and an example.
        let mut lost_counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut example = None;
        let mut messages = 0;
        for ((oi, om), from) in parsed.iter().zip(&matched) {
            let Some(ii) = *from else { continue };
            let (Some(io), Some(oo)) = (raw_in.get(ii).and_then(|v| v.as_object()), raw_out[*oi].as_object()) else { continue };
            if std::ptr::eq(io, oo) && super::matching::shortcuts() {
                continue; // the same stored message: nothing lost
            }
            let lost: Vec<&String> = io.keys().filter(|k| !oo.contains_key(*k)).collect();
            if lost.is_empty() {
                continue;
            }
            messages += 1;
            for k in &lost {
                *lost_counts.entry((*k).clone()).or_default() += 1;
            }
            example.get_or_insert_with(|| format!("output[{oi}] = input[{ii}] ({}) lost {lost:?}", line(om)));
        }
        if messages > 0 {
            let fields: Vec<String> = lost_counts.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
            out.push(format!("{}: {messages} kept message(s) lost fields: {}; e.g. {}", at(call), fields.join(", "), example.unwrap()));
        }
    }
    Ok(out)
}

pub fn cov_no_silent_legacy(c: &Ctx<'_>) -> Outcome {
    let info: Option<ContextEngineInfo> = c.trace.engine.info.clone().and_then(|v| serde_json::from_value(v).ok());
    if info.as_ref().is_some_and(|i| i.id == "legacy") {
        return Err("the engine is OpenClaw's legacy engine".into());
    }
    let on_legacy = c.trace.events.iter().filter(|e| matches!(e, crate::trace::Event::Note(n) if n.code == "turn-on-legacy")).count();
    let committed = calls(c, "commitTurn").len();
    if on_legacy == 0 && committed == 0 {
        return Err("no admitted durable-turn candidate in this run".into());
    }
    let mut missing = Vec::new();
    if !info.as_ref().is_some_and(ContextEngineInfo::durable_turns) {
        missing.push(format!("info.transcriptSemantics {{currentTurnFence: {CURRENT_TURN_FENCE_V1:?}, turnAdvancementIdempotency: {TURN_ADVANCEMENT_IDEMPOTENCY_V1:?}}}"));
    }
    if !c.trace.engine.methods.iter().any(|m| m == "commitTurn") {
        missing.push("a commitTurn method".into());
    }
    // A pending outbox also runs a turn on legacy; that follows a commitTurn
    // throw (CE-TURN-004), not a silent fallback.
    if missing.is_empty() || on_legacy == 0 {
        return Ok(vec![]);
    }
    Ok(vec![format!("{on_legacy} admitted turn(s) ran on legacy instead of the engine: it lacks {}", missing.join(" and "))])
}

fn fault_kind<'a>(c: &'a Ctx<'_>) -> Option<&'a str> {
    match &c.trace.outcome {
        crate::trace::Outcome::EngineFault { kind, .. } => Some(kind),
        _ => None,
    }
}

pub fn life_timeouts(c: &Ctx<'_>) -> Outcome {
    Ok(match fault_kind(c) {
        Some("timeout") => vec![format!("a call timed out: {}", outcome_message(c))],
        _ => vec![],
    })
}

pub fn life_no_fault(c: &Ctx<'_>) -> Outcome {
    Ok(match fault_kind(c) {
        Some(k) => vec![format!("engine fault {k}: {}", outcome_message(c))],
        None => vec![],
    })
}

fn outcome_message(c: &Ctx<'_>) -> String {
    match &c.trace.outcome {
        crate::trace::Outcome::EngineFault { message, .. } => message.clone(),
        _ => String::new(),
    }
}

pub fn life_assemble_no_throw(c: &Ctx<'_>) -> Outcome {
    no_throws(c, "assemble call", |x| x.method == "assemble")
}

pub fn prov_not_laundered(c: &Ctx<'_>) -> Outcome {
    all_threw(&calls(c, "assemble"))?;
    let a = assembled(c);
    let mut relevant = 0;
    let mut out = Vec::new();
    for (call, input, _) in a {
        if super::matching::shortcuts() && c.text_keys.spine(input).first_untrusted.is_none_or(|f| f > input.len()) {
            continue; // no untrusted input in this history (the spine says)
        }
        let untrusted: Vec<String> = input
            .iter()
            .filter(|m| m.provenance().is_some_and(|p| p.kind == ProvenanceKind::InterSession) || m.text().contains("(untrusted"))
            .map(|m| m.text())
            .collect();
        if untrusted.is_empty() {
            continue;
        }
        relevant += 1;
        let Some(spa) = returned(call).and_then(|v| v.get("systemPromptAddition")).and_then(Value::as_str) else { continue };
        for t in untrusted {
            // Any 40-character run of the payload inside the system prompt. The
            // provenance header and explanation lines a host prepends on replay
            // (2026.4.26 replay-history.ts; 2026.9.6 annotateInterSessionUserMessages)
            // are not the payload: a laundering engine drops exactly those.
            let payload: String = t
                .lines()
                .filter(|l| !l.contains(clawspec_contract::markers::INTER_SESSION_PREFIX) && !l.contains(clawspec_contract::markers::INTER_SESSION_EXPLANATION))
                .collect::<Vec<_>>()
                .join("\n");
            let chars: Vec<char> = payload.trim().chars().collect();
            let width = chars.len().min(40);
            // Every offset of a short payload (a run is not missed for its alignment); a long one in steps.
            let step = if chars.len() <= 400 { 1 } else { 20 };
            let leaked = width > 0 && chars.windows(width).step_by(step).any(|w| spa.contains(&w.iter().collect::<String>()));
            if leaked && !spa.contains("[Inter-session message]") && !spa.contains("untrusted") {
                let head: String = t.chars().take(50).collect();
                out.push(format!("{}: systemPromptAddition repeats untrusted text without its provenance: {head:?}…", at(call)));
            }
        }
    }
    if relevant == 0 {
        return Err("no inter-session or untrusted input".into());
    }
    Ok(out)
}

pub fn rfc_no_throw(c: &Ctx<'_>) -> Outcome {
    no_throws(c, "assemble with RFC fields", |x| x.method == "assemble" && x.params.get("inputProvenance").is_some())
}

pub fn rfc_info(c: &Ctx<'_>) -> Outcome {
    let Some(base) = c.sibling else { return Err("no openclaw-2026.9.6 run to compare with".into()) };
    // Call by call, borrowed from each store: every result carries the whole
    // history, and holding copies of all of them made the clause's memory
    // quadratic in the session.
    fn outs(t: &crate::trace::Trace) -> impl Iterator<Item = Option<Vec<&Value>>> + '_ {
        t.calls().filter(|x| x.method == "assemble").map(move |x| returned(x).and_then(|v| t.store.messages_ref(v)))
    }
    none_if_empty(&calls(c, "assemble"), "assemble call")?;
    let same = outs(c.trace).count() == outs(base).count() && outs(c.trace).zip(outs(base)).all(|(a, b)| a == b);
    Ok(if same { vec![] } else { vec!["assemble results differ from openclaw-2026.9.6: the engine uses the RFC fields".into()] })
}

pub fn wire_accepted(c: &Ctx<'_>) -> Outcome {
    let calls: Vec<&crate::trace::ModelRecord> = c
        .trace
        .events
        .iter()
        .filter_map(|e| match e {
            crate::trace::Event::Model(m) if m.via.is_some() => Some(m),
            _ => None,
        })
        .collect();
    none_if_empty(&calls, "model call through an HTTP mock provider")?;
    Ok(calls
        .iter()
        // `rejected-host-order`: the host's own carrier placement made the
        // request invalid (runtime::turn, 2026.9.6 on Mistral), not the engine.
        .filter(|m| m.outcome == "rejected")
        .map(|m| format!("turn {} attempt {}: {} rejected the request: {}", m.turn, m.attempt, m.via.as_deref().unwrap_or("?"), m.error.as_deref().unwrap_or("")))
        .collect())
}

pub fn sub_prepare_shape(c: &Ctx<'_>) -> Outcome {
    shape(c, "prepareSubagentSpawn", "null or {rollback: {$handle}}", |v| v.is_null() || v.get("rollback").and_then(|r| r.get("$handle")).is_some_and(Value::is_string))
}

pub fn sub_rollback(c: &Ctx<'_>) -> Outcome {
    no_throws(c, "rollback call", |x| x.method == "rollback")
}

pub fn sub_ended_no_throw(c: &Ctx<'_>) -> Outcome {
    no_throws(c, "onSubagentEnded call", |x| x.method == "onSubagentEnded")
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 160 {
        format!("{}…", &s[..s.char_indices().nth(160).map(|(i, _)| i).unwrap_or(s.len())])
    } else {
        s
    }
}
