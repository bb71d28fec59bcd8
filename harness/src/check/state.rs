//! State-based clauses: where an engine *claims* something (compact says it
//! compacted, commitTurn says committed), a later call must show it; and
//! what the host sent twice must come back twice. These read the trace across
//! calls, unlike the per-call shape rules in `rules.rs`.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet};

use clawspec_contract::*;
use serde_json::Value;

use super::rules::{Outcome, Skip};
use super::Ctx;
use crate::trace::CallRecord;

use super::rules::{at, compacted, returned as ok};

/// (input, output) of an assemble that returned a readable messages array
/// (parsed once per trace: [`Ctx::assembled_of`]).
fn parsed<'a>(c: &'a Ctx<'_>, call: &CallRecord) -> Option<(&'a super::assembly::Shared, &'a super::assembly::Shared)> {
    ok(call)?;
    c.assembled_of(call)
}

fn text_key(m: &impl Borrow<AgentMessage>) -> String {
    let m = m.borrow();
    format!("{}|{}", m.role(), m.text())
}

fn is_summary(m: &impl Borrow<AgentMessage>) -> bool {
    let m = m.borrow();
    matches!(m, AgentMessage::CompactionSummary(_) | AgentMessage::BranchSummary(_))
}

fn head(m: &impl Borrow<AgentMessage>) -> String {
    let m = m.borrow();
    m.text().replace('\n', " ").chars().take(48).collect()
}

/// Each successful compaction with the first assemble after it (same session).
fn compactions_then_assemble<'a>(c: &'a Ctx<'_>) -> Vec<(&'a CallRecord, &'a CallRecord)> {
    let all: Vec<&CallRecord> = c.trace.calls().collect();
    let mut out = Vec::new();
    for (k, call) in all.iter().enumerate() {
        if call.method != "compact" || !ok(call).is_some_and(compacted) {
            continue;
        }
        let session = call.params.get("sessionId");
        if let Some(next) = all[k + 1..].iter().find(|x| x.method == "assemble" && x.params.get("sessionId") == session) {
            out.push((*call, *next));
        }
    }
    out
}

/// CE-CMP-006: a compaction reported as done must change what the next
/// assemble returns — a summary in its place, or history it no longer
/// returns. The host's own compaction (delegated, or a summary already in the
/// host's messages) counts: then the host sent the compacted history.
pub fn cmp_reflected(c: &Ctx<'_>) -> Outcome {
    let pairs = compactions_then_assemble(c);
    if pairs.is_empty() {
        return Err(Skip::NotApplicable("no successful compaction followed by an assemble".into()));
    }
    let mut out = Vec::new();
    let mut judged = 0;
    for (compact, next) in pairs {
        let Some((input, output)) = parsed(c, next) else { continue };
        judged += 1;
        if input.iter().any(is_summary) || compact.callbacks.iter().any(|cb| cb.method == "host/delegateCompaction") {
            continue;
        }
        let sent: std::collections::BTreeSet<String> = input.iter().map(text_key).collect();
        let returned: std::collections::BTreeSet<String> = output.iter().map(text_key).collect();
        let added = output.iter().any(|m| !sent.contains(&text_key(m)));
        let dropped = input.iter().any(|m| !returned.contains(&text_key(m)));
        if !added && !dropped {
            out.push(format!(
                "{}: compact reported ok+compacted, but {} returns all {} messages the host sent and no summary: the compaction left no trace",
                at(compact),
                at(next),
                input.len()
            ));
        }
    }
    if judged == 0 {
        return Err(Skip::NotApplicable("no readable assemble after a successful compaction".into()));
    }
    Ok(out)
}

/// CE-CMP-007: compaction keeps a recent tail. The newest message the host
/// sends to the next assemble (the turn in flight, or the end of the last
/// answered one) comes back verbatim, not folded into the summary: OpenClaw's
/// own compaction keeps recent turns (`keepRecentTokens`).
pub fn cmp_keeps_tail(c: &Ctx<'_>) -> Outcome {
    let pairs = compactions_then_assemble(c);
    if pairs.is_empty() {
        return Err(Skip::NotApplicable("no successful compaction followed by an assemble".into()));
    }
    let mut out = Vec::new();
    let mut turns_judged = std::collections::BTreeSet::new();
    for (compact, next) in pairs {
        // The runtime's own compaction (the engine delegated it) is not the
        // engine's to keep a tail in: an assemble that then drops the newest
        // message is an assemble defect, the ASM clauses' to name.
        if compact.callbacks.iter().any(|cb| cb.method == "host/delegateCompaction") {
            continue;
        }
        // Only the first compaction of a turn: when the host forces another
        // one in the same turn it is escalating overflow recovery, and
        // folding the tail is then what it asked for.
        if !turns_judged.insert(compact.turn) {
            continue;
        }
        let Some((input, output)) = parsed(c, next) else { continue };
        let volatile = &next.meta.volatile;
        let newest = input.iter().enumerate().rev().find(|(i, m)| !volatile.contains(i) && !is_summary(*m));
        let Some((i, last)) = newest else { continue };
        if !comes_back(last.borrow(), output) {
            out.push(format!(
                "{}: after {} the newest message the host sent (messages[{i}], {}: {:?}) is gone from the assembled context — the compaction kept no recent tail",
                at(next),
                at(compact),
                last.role(),
                head(last)
            ));
        }
    }
    if turns_judged.is_empty() {
        return Err(Skip::NotApplicable("every compaction followed by an assemble was the runtime's own (delegated)".into()));
    }
    Ok(out)
}

/// Whether `m` is in `output` verbatim, or — a user message the host merged
/// from consecutive ones (per-model Anthropic merging; the engine's store holds
/// them apart) — as the same consecutive user messages, text for text.
fn comes_back(m: &AgentMessage, output: &[impl Borrow<AgentMessage>]) -> bool {
    if output.iter().any(|o| text_key(o) == text_key(m)) {
        return true;
    }
    let AgentMessage::User(_) = m else { return false };
    let want = m.text();
    (0..output.len()).any(|start| {
        let mut joined = String::new();
        for o in output[start..].iter().map(Borrow::borrow) {
            if !matches!(o, AgentMessage::User(_)) {
                return false;
            }
            if !joined.is_empty() {
                joined.push('\n');
            }
            joined.push_str(&o.text());
            if joined == want {
                return true;
            }
            if !want.starts_with(&joined) {
                return false;
            }
        }
        false
    })
}

/// CE-ASM-009: messages the host sent twice (a user who says "yes" twice)
/// both come back. Judged on the suffix of the input the engine kept whole:
/// from the newest message with a unique text that the output dropped
/// (older history may be summarised or trimmed), every user message must be
/// there as often as the host sent it.
pub fn asm_repeats_kept(c: &Ctx<'_>) -> Outcome {
    let calls: Vec<&CallRecord> = c.trace.calls().filter(|x| x.method == "assemble").collect();
    let mut relevant = 0;
    let mut out = Vec::new();
    for call in calls {
        let Some((input, output)) = parsed(c, call) else { continue };
        if input.same(output) {
            // Everything came back as often as sent; relevant when the input
            // holds a user text twice (the spine says).
            relevant += usize::from(c.text_keys.spine(input).first_repeat.is_some_and(|f| f <= input.len()));
            continue;
        }
        // By key id ([`super::text_keys`]): equal ids, equal `role|text`.
        let keyed_in: Vec<_> = input.iter().map(|m| c.text_keys.of(m)).collect();
        let mut count_in: HashMap<u32, usize> = HashMap::new();
        for k in &keyed_in {
            *count_in.entry(k.id).or_default() += 1;
        }
        let mut count_out: HashMap<u32, usize> = HashMap::new();
        for m in output.iter() {
            *count_out.entry(c.text_keys.of(m).id).or_default() += 1;
        }
        let from = keyed_in.iter().rposition(|k| count_in[&k.id] == 1 && !count_out.contains_key(&k.id)).map(|i| i + 1).unwrap_or(0);
        let mut tail: HashMap<u32, usize> = HashMap::new();
        for k in keyed_in[from..].iter().filter(|k| k.user_text) {
            *tail.entry(k.id).or_default() += 1;
        }
        // In key order, as reported before.
        let repeated: BTreeMap<String, (u32, usize)> = tail.iter().filter(|(_, n)| **n > 1).map(|(id, n)| (c.text_keys.key(*id), (*id, *n))).collect();
        if repeated.is_empty() {
            continue;
        }
        relevant += 1;
        for (k, (id, n)) in &repeated {
            let got = count_out.get(id).copied().unwrap_or(0);
            if got < *n {
                let text: String = k.split_once('|').map(|(_, t)| t).unwrap_or(k).chars().take(48).collect();
                out.push(format!("{}: the host sent the user message {text:?} {n} times in the kept history, the engine returned it {got} time(s)", at(call)));
            }
        }
    }
    if relevant == 0 {
        return Err(Skip::NotApplicable("no repeated user message in the kept history".into()));
    }
    Ok(out)
}

/// CE-ASM-011: with room to spare nothing is lost or made up. Before the
/// engine has compacted the session, when the host's messages need at most
/// half of `tokenBudget`, every one of them comes back (as often as it was
/// sent and with its text), and no user/assistant message appears that the
/// host never sent. Trimming and summarising are for budget pressure; a
/// message lost with the budget half empty is a lost turn, and a made-up one
/// puts words in the user's or the model's mouth. A message the host sent
/// to an earlier assemble of the session is history, not made up: 2026.9.6's
/// loop hook gets the engine's own (trimmed) view of the attempt as input, and
/// an engine that assembles from its store may bring back history the host
/// gave the attempt's first assemble (lossless-claw 1.0, budget-tight-volatile).
pub fn asm_nothing_lost_with_room(c: &Ctx<'_>) -> Outcome {
    let mut compacted_sessions = std::collections::BTreeSet::new();
    let mut relevant = 0;
    let mut out = Vec::new();
    // What earlier assembles were sent; this one's input joins it only at the
    // next assemble (amortised, no copy per call: long sessions have thousands).
    // (session, message key id): see [`super::text_keys`].
    let mut sessions: HashMap<String, u32> = HashMap::new();
    let mut sent_before: HashSet<(u32, u32)> = HashSet::new();
    // The previous assemble's input, added to `sent_before` at the next one;
    // per (session, spine) the length added so far (inputs share spines,
    // so each message is added once, not once per call).
    let mut pending: Option<(u32, &super::assembly::Shared)> = None;
    let mut added: HashMap<(u32, usize), usize> = HashMap::new();
    for call in c.trace.calls() {
        let session = call.params.get("sessionId").map(Value::to_string).unwrap_or_default();
        if call.method == "compact" && ok(call).is_some_and(compacted) {
            compacted_sessions.insert(session);
            continue;
        }
        if call.method != "assemble" || compacted_sessions.contains(&session) {
            continue;
        }
        let Some((input, output)) = parsed(c, call) else { continue };
        let next = sessions.len() as u32;
        let sid = *sessions.entry(session.clone()).or_insert(next);
        if let Some((psid, prev)) = pending.take() {
            let done = added.entry((psid, prev.spine_key())).or_default();
            if prev.len() > *done {
                sent_before.extend(prev[*done..].iter().map(|m| (psid, c.text_keys.of(m).id)));
                *done = prev.len();
            }
        }
        pending = Some((sid, input));
        let Some(budget) = call.params.get("tokenBudget").and_then(Value::as_u64) else { continue };
        // `estimate_messages` is the sum of the messages' estimates (the
        // spine's prefix sums when shortcuts are on).
        let estimate: u64 = if super::matching::shortcuts() { c.text_keys.spine(input).tokens[input.len()] } else { input.iter().map(|m| c.text_keys.of(m).tokens).sum() };
        if input.is_empty() || estimate * 2 > budget {
            continue;
        }
        relevant += 1;
        if input.same(output) || (output.len() == input.len() && super::matching::passes_through(input, output)) {
            continue; // everything came back, nothing was made up
        }
        let mut left: BTreeMap<String, usize> = BTreeMap::new();
        for m in output.iter() {
            *left.entry(text_key(m)).or_default() += 1;
        }
        let mut lost = Vec::new();
        // Users the host merged (per-model Anthropic merging) that came back
        // as the consecutive originals the engine's store holds, as CE-CMP-007.
        let mut merged: Vec<String> = Vec::new();
        for (i, m) in input.iter().enumerate() {
            match left.get_mut(&text_key(m)) {
                Some(n) if *n > 0 => *n -= 1,
                _ if matches!(**m, AgentMessage::User(_)) && comes_back(m.borrow(), &output) => merged.push(m.text()),
                _ => lost.push(format!("messages[{i}] ({}: {:?})", m.role(), head(m))),
            }
        }
        let part_of_merged = |o: &AgentMessage| {
            let t = o.text();
            matches!(o, AgentMessage::User(_))
                && merged.iter().any(|w| w.starts_with(&format!("{t}\n")) || w.ends_with(&format!("\n{t}")) || w.contains(&format!("\n{t}\n")))
        };
        if !lost.is_empty() {
            out.push(format!("{}: ~{estimate} of {budget} budget tokens used, yet {} of the host's messages did not come back: {}", at(call), lost.len(), lost.join(", ")));
        }
        let mut sent: BTreeMap<String, usize> = BTreeMap::new();
        for m in input.iter() {
            *sent.entry(text_key(m)).or_default() += 1;
        }
        for (j, m) in output.iter().enumerate() {
            let conversational = matches!(**m, AgentMessage::User(_) | AgentMessage::Assistant(_));
            match sent.get_mut(&text_key(m)) {
                Some(n) if *n > 0 => *n -= 1,
                _ if conversational && !sent_before.contains(&(sid, c.text_keys.of(m).id)) && !part_of_merged(m.borrow()) => out.push(format!("{}: assembled messages[{j}] is a {} message the host never sent: {:?}", at(call), m.role(), head(m))),
                _ => {}
            }
        }
    }
    if relevant == 0 {
        return Err(Skip::NotApplicable("no assemble with the host's messages under half the budget before a compaction".into()));
    }
    Ok(out)
}

/// The string-keyed CE-ASM-009 and CE-ASM-011 as they were before
/// [`super::text_keys`], kept to prove the id-keyed ones give the same
/// verdicts on every golden trace (check::tests).
#[cfg(test)]
pub(super) mod reference {
    use super::*;
    use clawspec_contract::tokens::estimate_messages;

    fn text_key(m: &impl Borrow<AgentMessage>) -> String {
        super::text_key(m)
    }

    pub(in crate::check) fn asm_repeats_kept(c: &Ctx<'_>) -> Outcome {
        let calls: Vec<&CallRecord> = c.trace.calls().filter(|x| x.method == "assemble").collect();
        let mut relevant = 0;
        let mut out = Vec::new();
        for call in calls {
            let Some((input, output)) = parsed(c, call) else { continue };
            let mut count_in: BTreeMap<String, usize> = BTreeMap::new();
            for m in input.iter() {
                *count_in.entry(text_key(m)).or_default() += 1;
            }
            let mut count_out: BTreeMap<String, usize> = BTreeMap::new();
            for m in output.iter() {
                *count_out.entry(text_key(m)).or_default() += 1;
            }
            let from = input
                .iter()
                .rposition(|m| count_in[&text_key(m)] == 1 && !count_out.contains_key(&text_key(m)))
                .map(|i| i + 1)
                .unwrap_or(0);
            let mut tail: BTreeMap<String, usize> = BTreeMap::new();
            for m in input[from..].iter().filter(|m| matches!(***m, AgentMessage::User(_)) && !m.text().trim().is_empty()) {
                *tail.entry(text_key(m)).or_default() += 1;
            }
            let repeated: Vec<(&String, &usize)> = tail.iter().filter(|(_, n)| **n > 1).collect();
            if repeated.is_empty() {
                continue;
            }
            relevant += 1;
            for (k, n) in repeated {
                let got = count_out.get(k).copied().unwrap_or(0);
                if got < *n {
                    let text: String = k.split_once('|').map(|(_, t)| t).unwrap_or(k).chars().take(48).collect();
                    out.push(format!("{}: the host sent the user message {text:?} {n} times in the kept history, the engine returned it {got} time(s)", at(call)));
                }
            }
        }
        if relevant == 0 {
            return Err(Skip::NotApplicable("no repeated user message in the kept history".into()));
        }
        Ok(out)
    }

    pub(in crate::check) fn asm_nothing_lost_with_room(c: &Ctx<'_>) -> Outcome {
        let mut compacted_sessions = std::collections::BTreeSet::new();
        let mut relevant = 0;
        let mut out = Vec::new();
        // What earlier assembles were sent; this one's input joins it only at the
        // next assemble (amortised, no copy per call: long sessions have thousands).
        let mut sent_before: std::collections::BTreeSet<(String, String)> = std::collections::BTreeSet::new();
        let mut pending: Vec<(String, String)> = Vec::new();
        for call in c.trace.calls() {
            let session = call.params.get("sessionId").map(Value::to_string).unwrap_or_default();
            if call.method == "compact" && ok(call).is_some_and(compacted) {
                compacted_sessions.insert(session);
                continue;
            }
            if call.method != "assemble" || compacted_sessions.contains(&session) {
                continue;
            }
            let Some((input, output)) = parsed(c, call) else { continue };
            sent_before.extend(std::mem::take(&mut pending));
            pending = input.iter().map(|m| (session.clone(), text_key(m))).collect();
            let Some(budget) = call.params.get("tokenBudget").and_then(Value::as_u64) else { continue };
            if input.is_empty() || estimate_messages(&input) * 2 > budget {
                continue;
            }
            relevant += 1;
            if output.len() == input.len() && crate::check::matching::passes_through(input, output) {
                continue; // everything came back, nothing was made up
            }
            let mut left: BTreeMap<String, usize> = BTreeMap::new();
            for m in output.iter() {
                *left.entry(text_key(m)).or_default() += 1;
            }
            let mut lost = Vec::new();
            // Users the host merged (per-model Anthropic merging) that came back
            // as the consecutive originals the engine's store holds, as CE-CMP-007.
            let mut merged: Vec<String> = Vec::new();
            for (i, m) in input.iter().enumerate() {
                match left.get_mut(&text_key(m)) {
                    Some(n) if *n > 0 => *n -= 1,
                    _ if matches!(**m, AgentMessage::User(_)) && comes_back(m.borrow(), &output) => merged.push(m.text()),
                    _ => lost.push(format!("messages[{i}] ({}: {:?})", m.role(), head(m))),
                }
            }
            let part_of_merged = |o: &AgentMessage| {
                let t = o.text();
                matches!(o, AgentMessage::User(_))
                    && merged.iter().any(|w| w.starts_with(&format!("{t}\n")) || w.ends_with(&format!("\n{t}")) || w.contains(&format!("\n{t}\n")))
            };
            if !lost.is_empty() {
                out.push(format!("{}: ~{} of {budget} budget tokens used, yet {} of the host's messages did not come back: {}", at(call), estimate_messages(&input), lost.len(), lost.join(", ")));
            }
            let mut sent: BTreeMap<String, usize> = BTreeMap::new();
            for m in input.iter() {
                *sent.entry(text_key(m)).or_default() += 1;
            }
            for (j, m) in output.iter().enumerate() {
                let conversational = matches!(**m, AgentMessage::User(_) | AgentMessage::Assistant(_));
                match sent.get_mut(&text_key(m)) {
                    Some(n) if *n > 0 => *n -= 1,
                    _ if conversational && !sent_before.contains(&(session.clone(), text_key(m))) && !part_of_merged(m.borrow()) => out.push(format!("{}: assembled messages[{j}] is a {} message the host never sent: {:?}", at(call), m.role(), head(m))),
                    _ => {}
                }
            }
        }
        if relevant == 0 {
            return Err(Skip::NotApplicable("no assemble with the host's messages under half the budget before a compaction".into()));
        }
        Ok(out)
    }
}
