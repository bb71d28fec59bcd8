//! 2026.9.6's built-in compaction behind `delegateCompactionToRuntime` for a
//! manual `/compact` (the legacy engine delegates; dist delegate-*.mjs →
//! compact.runtime-*.mjs → compact-*.mjs `executePreparedCompactionSession`,
//! `trigger === "manual"` ⇒ `activeSession.compact(customInstructions)`).
//!
//! - Preparation (resource-loader-*.mjs `preflightManualSessionCompaction`,
//!   compaction-*.mjs `prepareCompaction`/`findCutPoint`): pi's cut at
//!   `keepRecentTokens` (20 000); when that keeps everything, again with
//!   `keepRecentTokens: 0`, which cuts at the newest message — an assistant
//!   reply splits its turn, so the turn's user message becomes the *turn
//!   prefix* and everything before it the history. `tokensBefore` is
//!   `estimateContextTokens` (the last valid assistant usage plus estimates of
//!   what follows).
//! - The summary is written by the safeguard extension
//!   (builtin-openclaw-*.mjs `compactionSafeguardExtension`, on by default,
//!   quality guard on: `qualityGuardCfg?.enabled ?? true`):
//!   `splitPreservedRecentTurns` keeps the last 3 user turns of the history
//!   verbatim (`DEFAULT_RECENT_TURNS_PRESERVE`); what is left is summarised by
//!   a model call, or, when nothing is left, is the structured fallback
//!   (`buildStructuredFallbackSummary`: "No prior history." and "None." per
//!   section); a split turn's prefix is summarised by a second model call
//!   (the `turn-prefix` prompt) and appended as `**Turn Context (split
//!   turn):**`; then the preserved turns (`## Recent turns preserved
//!   verbatim`, 600 chars per message), tool failures and file lists
//!   (`assembleSuffix`). The quality retention plan
//!   (`createSummaryQualityRetentionPlan`) puts the latest ask first as
//!   `## Latest user request context` when it sits in the retained turn;
//!   `auditSummaryQuality` checks the sections, identifiers and the ask, and
//!   a failing summary is regenerated once, then the compaction is cancelled.
//! - The result (compact-*.mjs): `tokensBefore: observedTokenCount ??
//!   tokensBefore`; `tokensAfter` the estimate of the compacted context,
//!   dropped above 1.1 × the full session's estimate
//!   (`estimateTokensAfterCompaction`); `details: {readFiles,
//!   modifiedFiles}`; the run's `sessionTarget`.
//!
//! Twinned on the real 2026.9.6 gateway (`clawspec twin manual-compact
//! --engine builtin:legacy`, `compact-state-effect`).

use clawspec_contract::tokens::Estimator;
use clawspec_contract::{AgentMessage, ContentBlock, MessageContent};
use serde_json::{json, Value};

use super::callbacks::CompactionPlan;
use super::compact::{SummaryReply, KEEP_RECENT_TOKENS};
use super::transcript::Entry;

const REQUIRED_SECTIONS: [&str; 5] = ["## Decisions", "## Open TODOs", "## Constraints/Rules", "## Pending user asks", "## Exact identifiers"];
/// `DEFAULT_RECENT_TURNS_PRESERVE` (builtin-openclaw-*.mjs).
const RECENT_TURNS_PRESERVE: usize = 3;
/// `MAX_RECENT_TURN_TEXT_CHARS`.
const MAX_RECENT_TURN_TEXT_CHARS: usize = 600;
/// `MAX_REQUIRED_ASK_CONTEXT_CHARS`.
const MAX_REQUIRED_ASK_CONTEXT_CHARS: usize = 2000;
/// `SPLIT_TURN_SECTION_HEADING`.
const SPLIT_TURN_HEADING: &str = "**Turn Context (split turn):**";
/// `DEFAULT_QUALITY_GUARD_MAX_RETRIES` + 1.
const QUALITY_ATTEMPTS: usize = 2;
/// The cancellation `compactEmbeddedAgentSessionDirect` reports when the
/// quality guard gives up (`setCompactionSafeguardCancellation`).
pub const QUALITY_CANCELLED: &str = "Compaction safeguard finalized summary failed quality checks.";

#[derive(Clone, Debug)]
pub struct Builtin2026_9 {
    pub estimator: Estimator,
    /// The session's last entry is a compaction (`Transcript::compaction_is_last`).
    pub compaction_is_last: bool,
}

impl Builtin2026_9 {
    /// Whether this model answers the request: 2026.9.6 routes only the
    /// manual command through `activeSession.compact`; recovery triggers keep
    /// the runtime's other model (`callbacks::plan_compaction`).
    pub fn handles(params: &Value) -> bool {
        params["runtimeContext"]["trigger"] == "manual"
    }

    /// `ask` answers each summarisation model call in the order the safeguard
    /// sends them (history, then the split turn's prefix, per attempt).
    pub fn compact(&self, live: &[&Entry], params: &Value, ask: &mut dyn FnMut() -> SummaryReply) -> (Value, Option<CompactionPlan>) {
        let ms: Vec<&AgentMessage> = live.iter().map(|e| &*e.message).collect();
        if !ms.iter().any(|m| is_real_conversation(m)) {
            return (json!({"ok": true, "compacted": false, "reason": "no real conversation messages"}), None);
        }
        if self.compaction_is_last || matches!(ms.last(), Some(AgentMessage::CompactionSummary(_))) {
            return (json!({"ok": false, "compacted": false, "reason": "Already compacted"}), None);
        }
        let start = ms.iter().rposition(|m| matches!(m, AgentMessage::CompactionSummary(_))).map_or(0, |i| i + 1);
        let previous = ms[..start].iter().rev().find_map(|m| match m {
            AgentMessage::CompactionSummary(s) => Some(s.summary.clone()),
            _ => None,
        });
        let Some(prep) = self.preflight(&ms, start) else {
            return (json!({"ok": false, "compacted": false, "reason": "Nothing to compact (session too small)"}), None);
        };
        let history: Vec<&AgentMessage> = ms[start..prep.history_end].iter().copied().filter(|m| !is_runtime_context(m)).collect();
        let prefix: Vec<&AgentMessage> = prep.turn_start.map(|t| ms[t..prep.first_kept].iter().copied().filter(|m| !is_runtime_context(m)).collect()).unwrap_or_default();
        let mut all = history.clone();
        all.extend(prefix.iter().copied());
        let (read, modified) = super::compact::file_lists(&all);
        let file_ops = super::compact::format_file_operations(&read, &modified);
        let failures = tool_failures_section(&all);

        let split = prep.turn_start.is_some() && !prefix.is_empty();
        let split_ask = if split { latest_user_ask(&prefix) } else { None };
        let latest_ask = split_ask.clone().or_else(|| latest_user_ask(&history));
        let (targets, preserved) = split_preserved_recent_turns(&history);
        let preserved_section = preserved_turns_section(&preserved);
        let required_ask = format_required_ask_context(latest_ask.as_deref().unwrap_or(""));
        let prepared_ask = latest_user_ask(&history);
        // The quality guard summarises the whole history when its newest ask
        // is the run's latest one and the preserved turns would not show it.
        let summarise: Vec<&AgentMessage> =
            if prepared_ask.is_some() && prepared_ask == latest_ask && (!targets.is_empty() || !preserved_section.contains(&required_ask)) { history.clone() } else { targets };
        let identifiers = extract_identifiers(&all[all.len().saturating_sub(10)..].iter().map(|m| message_text(m)).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n"));

        for attempt in 0..QUALITY_ATTEMPTS {
            let history_summary = if summarise.is_empty() {
                Ok(structured_fallback(previous.as_deref()))
            } else {
                ask()
            };
            let prefix_summary = if split { Some(ask()) } else { None };
            let (history_summary, prefix_summary) = match (history_summary, prefix_summary.transpose()) {
                (Ok(h), Ok(p)) => (h, p),
                (Err(e), _) | (_, Err(e)) => {
                    let reason = if attempt > 0 {
                        "Compaction safeguard finalized summary failed quality checks and corrective generation failed.".to_string()
                    } else {
                        format!("Compaction safeguard could not summarize the session: {e}")
                    };
                    return (json!({"ok": false, "compacted": false, "reason": reason}), None);
                }
            };
            let split_section = prefix_summary.as_deref().map(|p| format!("{SPLIT_TURN_HEADING}\n\n{}", nest_headings(p)));
            let audit_summary = match &split_section {
                Some(s) => append_section(&history_summary, &format!("\n\n{s}")),
                None => history_summary.clone(),
            };
            let suffix = assemble_suffix(&[split_section.as_ref().map(|s| format!("\n\n{s}")).unwrap_or_default(), preserved_section.clone(), failures.clone(), file_ops.clone()]);
            let retention = Retention { audit_summary: &audit_summary, latest_ask: latest_ask.as_deref(), in_retained_turn: split_ask.is_some(), required_ask: &required_ask, identifiers: &identifiers };
            let body = retention.render(&history_summary);
            let summary = format!("{body}{suffix}");
            let mut sources = vec![history_summary.as_str()];
            if let Some(p) = prefix_summary.as_deref().filter(|p| !p.is_empty()) {
                sources.push(p);
            }
            let ok = audit(&summary, &body, &sources, &identifiers, latest_ask.as_deref(), split_ask.is_some().then(|| prefix_summary.as_deref().unwrap_or("")));
            if ok {
                return self.result(live, &ms, &prep, params, summary, read, modified);
            }
        }
        (json!({"ok": false, "compacted": false, "reason": QUALITY_CANCELLED}), None)
    }

    #[allow(clippy::too_many_arguments)]
    fn result(&self, live: &[&Entry], ms: &[&AgentMessage], prep: &Prep, params: &Value, summary: String, read: Vec<String>, modified: Vec<String>) -> (Value, Option<CompactionPlan>) {
        let observed = params.get("currentTokenCount").and_then(Value::as_u64).filter(|n| *n > 0);
        let tokens_before = observed.unwrap_or(prep.tokens_before);
        let full: u64 = ms.iter().map(|m| self.estimator.message(m)).sum();
        let after = self.estimator.text(&summary) + ms[prep.first_kept..].iter().map(|m| self.estimator.message(m)).sum::<u64>();
        let over = match observed {
            Some(o) => after > o,
            None => full > 0 && after as f64 > full as f64 * 1.1,
        };
        let tokens_after = (!over).then_some(after);
        let mut result = json!({"summary": summary, "firstKeptEntryId": live[prep.first_kept].id, "tokensBefore": tokens_before});
        if let Some(t) = tokens_after {
            result["tokensAfter"] = json!(t);
        }
        result["details"] = json!({"readFiles": read, "modifiedFiles": modified});
        if let Some(t) = params.get("sessionTarget").or_else(|| params["runtimeContext"].get("sessionTarget")).filter(|t| t.is_object()) {
            let mut target = json!({});
            for k in ["agentId", "sessionId", "sessionKey", "storePath", "threadId"] {
                if let Some(v) = t.get(k) {
                    target[k] = v.clone();
                }
            }
            result["sessionTarget"] = target;
        }
        let plan = CompactionPlan { first_kept: prep.first_kept, summary, tokens_before, tokens_after: tokens_after.unwrap_or(0), pi_message: true };
        (json!({"ok": true, "compacted": true, "result": result}), Some(plan))
    }

    /// `preflightManualSessionCompaction`: the configured tail first, else none.
    fn preflight(&self, ms: &[&AgentMessage], start: usize) -> Option<Prep> {
        self.prepare(ms, start, KEEP_RECENT_TOKENS).or_else(|| self.prepare(ms, start, 0))
    }

    /// `prepareCompaction` (compaction-*.mjs) over the messages after the last
    /// compaction; None when there is nothing to summarise.
    fn prepare(&self, ms: &[&AgentMessage], start: usize, keep_setting: u64) -> Option<Prep> {
        let est = self.estimator;
        let (tokens_before, usage_tokens) = estimate_context_tokens(est, ms);
        let total: u64 = ms.iter().map(|m| est.message(m)).sum();
        // `triggerUnitScale`: estimates are scaled to the provider's units.
        let scale = if total > 0 { (keep_setting.max(1) as f64).min((usage_tokens as f64 / total as f64).max(1.0)) } else { 1.0 };
        let keep = keep_setting as f64 / scale;
        let is_cut = |m: &AgentMessage| match m {
            AgentMessage::Custom(_) => !is_runtime_context(m),
            AgentMessage::ToolResult(_) => false,
            _ => true,
        };
        let mut cut = (start..ms.len()).rev().find(|&i| is_cut(ms[i]))?;
        let mut acc = 0f64;
        for i in (start..ms.len()).rev() {
            if is_cut(ms[i]) {
                cut = i;
            }
            acc += est.message(ms[i]) as f64;
            if acc >= keep {
                break;
            }
        }
        let starts_turn = |m: &AgentMessage| match m {
            AgentMessage::Custom(_) => !is_runtime_context(m),
            AgentMessage::Assistant(_) | AgentMessage::ToolResult(_) => false,
            _ => true,
        };
        let turn_start = if starts_turn(ms[cut]) { None } else { (start..=cut).rev().find(|&i| starts_turn(ms[i])) };
        let history_end = turn_start.unwrap_or(cut);
        let prefix_len = turn_start.map_or(0, |t| cut - t);
        if history_end <= start && prefix_len == 0 {
            return None;
        }
        Some(Prep { first_kept: cut, turn_start, history_end, tokens_before })
    }
}

struct Prep {
    first_kept: usize,
    turn_start: Option<usize>,
    history_end: usize,
    tokens_before: u64,
}

/// compaction-*.mjs `estimateContextTokens`: (tokens, usageTokens). The
/// newest assistant whose usage is unavailable (`contextUsage.state ==
/// "unavailable"` with no tokens) is a barrier: everything is estimated.
fn estimate_context_tokens(est: Estimator, ms: &[&AgentMessage]) -> (u64, u64) {
    let all = || ms.iter().map(|m| est.message(m)).sum::<u64>();
    for (i, m) in ms.iter().enumerate().rev() {
        let AgentMessage::Assistant(a) = m else { continue };
        let Some(u) = &a.usage else { continue };
        let unavailable = u["contextUsage"]["state"] == "unavailable";
        let tokens = super::pi_compaction::usage_tokens(m);
        if unavailable && tokens.unwrap_or(0) == 0 {
            return (all(), 0);
        }
        if let Some(t) = tokens.filter(|_| !unavailable) {
            return (t + ms[i + 1..].iter().map(|m| est.message(m)).sum::<u64>(), t);
        }
    }
    (all(), 0)
}

/// `isRuntimeContextCarrier` (session-*.mjs): a custom message whose details
/// say it carries the prompt's runtime context.
fn is_runtime_context(m: &AgentMessage) -> bool {
    matches!(m, AgentMessage::Custom(c) if c.details.as_ref().is_some_and(|d| d["runtimeContextCarrier"] == true))
}

fn is_real_conversation(m: &AgentMessage) -> bool {
    !message_text(m).is_empty() && matches!(m, AgentMessage::User(_) | AgentMessage::Assistant(_))
}

/// `extractMessageText`: string content trimmed, else the trimmed non-empty
/// text blocks joined by newlines.
fn message_text(m: &AgentMessage) -> String {
    let blocks = |bs: &[ContentBlock]| bs.iter().filter_map(|b| if let ContentBlock::Text(t) = b { Some(t.text.trim()) } else { None }).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n");
    match m {
        AgentMessage::User(u) => match &u.content {
            MessageContent::Text(t) => t.trim().to_string(),
            MessageContent::Blocks(b) => blocks(b),
        },
        AgentMessage::Custom(c) => match &c.content {
            MessageContent::Text(t) => t.trim().to_string(),
            MessageContent::Blocks(b) => blocks(b),
        },
        AgentMessage::Assistant(a) => blocks(&a.content),
        AgentMessage::ToolResult(t) => blocks(&t.content),
        _ => String::new(),
    }
}

/// `extractLatestUserAsk`.
fn latest_user_ask(ms: &[&AgentMessage]) -> Option<String> {
    ms.iter().rev().filter(|m| matches!(m, AgentMessage::User(_))).map(|m| message_text(m)).find(|t| !t.is_empty())
}

/// `splitPreservedRecentTurns`: (to summarise, preserved). The last
/// `RECENT_TURNS_PRESERVE` user turns stay verbatim; with fewer user turns,
/// the user messages plus the newest conversation messages up to twice that.
fn split_preserved_recent_turns<'m>(ms: &[&'m AgentMessage]) -> (Vec<&'m AgentMessage>, Vec<&'m AgentMessage>) {
    let conv: Vec<usize> = (0..ms.len()).filter(|&i| matches!(ms[i], AgentMessage::User(_) | AgentMessage::Assistant(_))).collect();
    if conv.is_empty() {
        return (ms.to_vec(), vec![]);
    }
    let users: Vec<usize> = conv.iter().copied().filter(|&i| matches!(ms[i], AgentMessage::User(_))).collect();
    let mut keep: std::collections::BTreeSet<usize> = match users.len().checked_sub(RECENT_TURNS_PRESERVE) {
        Some(b) => conv.iter().copied().filter(|&i| i >= users[b]).collect(),
        None => users.iter().copied().collect(),
    };
    if users.len() < RECENT_TURNS_PRESERVE {
        for &i in conv.iter().rev() {
            keep.insert(i);
            if keep.len() >= RECENT_TURNS_PRESERVE * 2 {
                break;
            }
        }
    }
    // Tool results of preserved calls stay with them.
    let ids: std::collections::HashSet<&str> = keep
        .iter()
        .filter_map(|&i| if let AgentMessage::Assistant(a) = ms[i] { Some(a) } else { None })
        .flat_map(|a| a.content.iter().filter_map(|b| if let ContentBlock::ToolCall(c) = b { Some(c.id.as_str()) } else { None }))
        .collect();
    if let Some(&first) = keep.iter().next() {
        for (i, m) in ms.iter().enumerate().skip(first) {
            if let AgentMessage::ToolResult(t) = m {
                if ids.contains(t.tool_call_id.as_str()) {
                    keep.insert(i);
                }
            }
        }
    }
    let (mut summarise, mut preserved) = (vec![], vec![]);
    for (i, m) in ms.iter().enumerate() {
        if keep.contains(&i) { preserved.push(*m) } else { summarise.push(*m) }
    }
    (summarise, preserved)
}

/// `buildPreservedTurnsSection` (no truncation: the scenarios' turns fit the
/// 8 000-char section budget).
fn preserved_turns_section(ms: &[&AgentMessage]) -> String {
    let lines: Vec<String> = ms.iter().filter(|m| !matches!(m, AgentMessage::ToolResult(_))).filter_map(|m| format_context_message(m)).collect();
    if lines.is_empty() {
        return String::new();
    }
    format!("\n\n## Recent turns preserved verbatim\n{}", lines.join("\n"))
}

/// `formatContextMessage`.
fn format_context_message(m: &AgentMessage) -> Option<String> {
    let role = match m {
        AgentMessage::User(_) => "User".to_string(),
        AgentMessage::Assistant(_) => "Assistant".to_string(),
        AgentMessage::ToolResult(t) => format!("Tool result ({})", t.tool_name.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or("tool")),
        _ => return None,
    };
    let text = message_text(m);
    if text.is_empty() {
        return None;
    }
    let text = if utf16_len(&text) > MAX_RECENT_TURN_TEXT_CHARS { format!("{}...", truncate_utf16(&text, MAX_RECENT_TURN_TEXT_CHARS)) } else { text };
    Some(format!("- {role}: {text}"))
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// `truncateUtf16Safe`: at most `n` UTF-16 units, never splitting a pair.
fn truncate_utf16(s: &str, n: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > n {
            return &s[..i];
        }
    }
    s
}

/// `formatToolFailuresSection(collectToolFailures(…))`, without the meta.
fn tool_failures_section(ms: &[&AgentMessage]) -> String {
    let mut seen = std::collections::HashSet::new();
    let lines: Vec<String> = ms
        .iter()
        .filter_map(|m| if let AgentMessage::ToolResult(t) = m { Some(t) } else { None })
        .filter(|t| t.is_error == Some(true) && !t.tool_call_id.is_empty() && seen.insert(t.tool_call_id.clone()))
        .map(|t| {
            let text: String = t.content.iter().filter_map(|b| if let ContentBlock::Text(x) = b { Some(x.text.as_str()) } else { None }).collect::<Vec<_>>().join("\n");
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let text = if text.is_empty() { "failed (no output)".to_string() } else if utf16_len(&text) > 240 { format!("{}...", truncate_utf16(&text, 237)) } else { text };
            format!("- {}: {text}", t.tool_name.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or("tool"))
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut shown: Vec<String> = lines.iter().take(8).cloned().collect();
    if lines.len() > 8 {
        shown.push(format!("- ...and {} more", lines.len() - 8));
    }
    format!("\n\n## Tool Failures\n{}", shown.join("\n"))
}

/// `buildStructuredFallbackSummary`.
fn structured_fallback(previous: Option<&str>) -> String {
    let prev = previous.map(str::trim).unwrap_or("");
    if !prev.is_empty() && has_required_sections(prev) {
        return prev.to_string();
    }
    let first = if prev.is_empty() { "No prior history." } else { prev };
    let values = [first, "None.", "None.", "None.", "None captured."];
    REQUIRED_SECTIONS.iter().zip(values).map(|(h, v)| format!("{h}\n{v}")).collect::<Vec<_>>().join("\n\n")
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect()
}

/// `hasRequiredSummarySections`: every heading, in order.
fn has_required_sections(s: &str) -> bool {
    let ls = lines(s);
    let mut cursor = 0;
    for h in REQUIRED_SECTIONS {
        match ls.iter().enumerate().skip(cursor).find(|(_, l)| **l == h) {
            Some((i, _)) => cursor = i + 1,
            None => return false,
        }
    }
    true
}

/// `nestMarkdownHeadings`: `## x` → `### x`.
fn nest_headings(s: &str) -> String {
    s.split('\n').map(|l| if l.starts_with("##") && l[2..].starts_with([' ', '\t']) && !l[2..].trim().is_empty() { format!("#{l}") } else { l.to_string() }).collect::<Vec<_>>().join("\n")
}

/// `appendSummarySection`.
fn append_section(summary: &str, section: &str) -> String {
    if section.is_empty() {
        summary.to_string()
    } else if summary.trim().is_empty() {
        section.trim_start().to_string()
    } else {
        format!("{summary}{section}")
    }
}

/// `assembleSuffix`: the parts in order, led by a blank line.
fn assemble_suffix(parts: &[String]) -> String {
    let mut text = String::new();
    for p in parts.iter().filter(|p| !p.is_empty()) {
        text = append_section(&text, p);
    }
    if !text.is_empty() && !text.starts_with(char::is_whitespace) {
        text = format!("\n\n{text}");
    }
    text
}

/// `formatRequiredAskContext`.
fn format_required_ask_context(ask: &str) -> String {
    let s = ask.trim();
    if utf16_len(s) <= MAX_REQUIRED_ASK_CONTEXT_CHARS {
        return s.to_string();
    }
    let units: Vec<u16> = s.encode_utf16().collect();
    let tail = String::from_utf16_lossy(&units[units.len() - 978..]);
    format!("{}\n[... split-turn ask context truncated ...]\n{tail}", truncate_utf16(s, 978))
}

/// The quality retention plan's untrimmed rendering
/// (`createSummaryQualityRetentionPlan(…).render`, the summary fits the
/// 16 000-char budget): the body as is when it already carries the ask
/// context and identifiers, else rebuilt from its sections with the ask
/// context block first and the protected tails appended.
struct Retention<'a> {
    audit_summary: &'a str,
    latest_ask: Option<&'a str>,
    in_retained_turn: bool,
    required_ask: &'a str,
    identifiers: &'a [String],
}

impl Retention<'_> {
    fn render(&self, body: &str) -> String {
        let body_has_ask = has_ask_overlap(self.audit_summary, self.latest_ask);
        let block = if (body_has_ask || self.in_retained_turn) && !self.required_ask.is_empty() {
            format!("## Latest user request context\n{}", serde_json::to_string(self.required_ask).expect("string"))
        } else {
            String::new()
        };
        let parsed = if !block.is_empty() && body.starts_with(&format!("{block}\n\n")) { &body[block.len() + 2..] } else { body };
        let Some(contents) = parse_sections(parsed) else { return body.to_string() };
        let pending = &contents[3];
        let protected_ask = if !self.in_retained_turn && !self.required_ask.is_empty() && (!body_has_ask || (has_ask_overlap(pending, self.latest_ask) && !pending.contains(self.required_ask))) {
            format!("Latest user request context:\n{}", serde_json::to_string(self.required_ask).expect("string"))
        } else {
            String::new()
        };
        let has_ids = self.identifiers.iter().all(|i| body.contains(i.as_str()));
        let has_ask_context = if self.required_ask.is_empty() {
            true
        } else if !block.is_empty() {
            body.starts_with(&block)
        } else {
            pending.contains(&protected_ask)
        };
        if has_ask_context && has_ids {
            return body.to_string();
        }
        let sections: Vec<String> = REQUIRED_SECTIONS
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let content = match i {
                    3 if !protected_ask.is_empty() => {
                        let optional = if is_empty_pending(&contents[3]) { "" } else { contents[3].as_str() };
                        [optional, protected_ask.as_str()].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n")
                    }
                    4 => std::iter::once(contents[4].clone()).chain(self.identifiers.iter().filter(|id| !contents[4].contains(id.as_str())).cloned()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n"),
                    _ => contents[i].clone(),
                };
                if content.is_empty() { h.to_string() } else { format!("{h}\n{content}") }
            })
            .collect();
        let mut out: Vec<String> = vec![];
        if !block.is_empty() {
            out.push(block);
        }
        out.extend(sections);
        out.join("\n\n")
    }
}

/// `parseRequiredSummarySectionContents`.
fn parse_sections(s: &str) -> Option<Vec<String>> {
    let mut contents: Vec<Vec<&str>> = vec![vec![]; REQUIRED_SECTIONS.len()];
    let mut preamble = vec![];
    let mut idx: isize = -1;
    for line in s.split('\n') {
        if let Some(next) = REQUIRED_SECTIONS.get((idx + 1) as usize) {
            if line.trim() == *next {
                idx += 1;
                continue;
            }
        }
        if idx < 0 { preamble.push(line) } else { contents[idx as usize].push(line) }
    }
    if idx != REQUIRED_SECTIONS.len() as isize - 1 {
        return None;
    }
    let mut first = preamble;
    first.extend(contents[0].iter().copied());
    contents[0] = first;
    Some(contents.iter().map(|ls| ls.join("\n").trim().to_string()).collect())
}

fn is_empty_pending(s: &str) -> bool {
    let first = lines(s).first().copied().unwrap_or("").to_lowercase();
    let first = first.trim_end_matches(['.', '!']);
    matches!(first, "none" | "none captured" | "no pending asks")
}

/// `extractPendingAskSection`.
fn pending_section(s: &str) -> String {
    let mut out = vec![];
    let mut inside = false;
    for line in s.split('\n') {
        if !inside {
            inside = line.trim_end() == "## Pending user asks";
            continue;
        }
        if line.starts_with("##") && line[2..].starts_with([' ', '\t']) {
            break;
        }
        out.push(line);
    }
    out.join("\n").trim().to_string()
}

/// `auditSummaryQuality` (strict identifier policy, no unresolved request).
fn audit(summary: &str, structural: &str, sources: &[&str], identifiers: &[String], latest_ask: Option<&str>, retained_turn_summary: Option<&str>) -> bool {
    let ls: std::collections::HashSet<&str> = lines(structural).into_iter().collect();
    for h in REQUIRED_SECTIONS {
        if !ls.contains(h) || sources.iter().any(|s| lines(s).iter().filter(|l| **l == h).count() > 1) {
            return false;
        }
    }
    if identifiers.iter().any(|i| !summary.contains(i.as_str())) {
        return false;
    }
    if !has_ask_overlap(summary, latest_ask) {
        return false;
    }
    if let Some(r) = retained_turn_summary {
        if ask_tokens(latest_ask).is_some() && has_ask_overlap(&pending_section(r), latest_ask) {
            return false;
        }
    }
    true
}

/// Stop words the ask-overlap check ignores (the host's `isQueryStopWordToken`
/// list, English part).
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "then", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "it", "its", "this",
    "that", "these", "those", "we", "you", "i", "me", "my", "our", "your", "what", "which", "who", "how", "when", "where", "why", "do", "does", "did", "can", "could", "would", "should",
    "will", "please", "again", "also", "so", "not", "no", "yes",
];

fn tokens(s: &str) -> Vec<String> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_string).collect()
}

/// `resolveAskOverlapRequirement`: up to 12 distinct meaningful ask tokens;
/// two must match when there are at least three.
fn ask_tokens(ask: Option<&str>) -> Option<(Vec<String>, usize)> {
    let mut seen = std::collections::HashSet::new();
    let all: Vec<String> = tokens(ask?).into_iter().filter(|t| seen.insert(t.clone())).take(12).collect();
    if all.is_empty() {
        return None;
    }
    let meaningful: Vec<String> = all.iter().filter(|t| t.len() > 1 && !STOP_WORDS.contains(&t.as_str())).cloned().collect();
    let check = if meaningful.is_empty() { all } else { meaningful };
    let need = if check.len() >= 3 { 2 } else { 1 };
    Some((check, need))
}

/// `hasAskOverlap`.
fn has_ask_overlap(summary: &str, ask: Option<&str>) -> bool {
    let Some((check, need)) = ask_tokens(ask) else { return true };
    let have: std::collections::HashSet<String> = tokens(summary).into_iter().collect();
    check.iter().filter(|t| have.contains(*t)).count() >= need
}

/// `extractOpaqueIdentifiers`, the common cases: URLs, absolute paths, and
/// tokens carrying a run of 8+ hex digits or 6+ decimal digits (pure hex
/// upper-cased); at least 4 chars, at most 12, first seen first.
fn extract_identifiers(text: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for raw in text.split(|c: char| c.is_whitespace()) {
        let w = raw.trim_start_matches(['(', '"', '\'', '`', '[', '{', '<']).trim_end_matches([')', ']', '"', '\'', '`', ',', ';', ':', '.', '!', '?', '<', '>']);
        let url = w.starts_with("http://") || w.starts_with("https://");
        let path = w.starts_with('/') && w[1..].contains('/') && w.len() > 3;
        let word: String = w.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
        let run = |pred: fn(&char) -> bool, n: usize| word.chars().collect::<Vec<_>>().split(|c| !pred(c)).any(|r| r.len() >= n);
        let opaque = !word.is_empty() && (run(char::is_ascii_hexdigit, 8) || run(char::is_ascii_digit, 6));
        let id = if url || path {
            w.to_string()
        } else if opaque {
            if word.chars().all(|c| c.is_ascii_hexdigit()) && word.len() >= 8 { word.to_uppercase() } else { word }
        } else {
            continue;
        };
        if id.len() >= 4 && !out.contains(&id) {
            out.push(id);
        }
    }
    out.truncate(12);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(ms: Value) -> Vec<Entry> {
        let ms: Vec<AgentMessage> = serde_json::from_value(ms).unwrap();
        ms.into_iter().enumerate().map(|(i, message)| Entry { id: format!("e{}", i + 1), parent_id: None, timestamp: 1, message: message.into(), abandoned: false }).collect()
    }

    fn manual(es: &[Entry], replies: &mut dyn FnMut() -> SummaryReply) -> (Value, Option<CompactionPlan>) {
        let b = Builtin2026_9 { estimator: Estimator::OpenClaw, compaction_is_last: false };
        b.compact(&es.iter().collect::<Vec<_>>(), &json!({"runtimeContext": {"trigger": "manual"},
            "sessionTarget": {"agentId": "main", "sessionId": "s1", "sessionKey": "agent:main:main", "storePath": "/x/sessions.json"}}), replies)
    }

    fn session(turns: usize) -> Value {
        let mut ms = vec![];
        for i in 0..turns {
            ms.push(json!({"role": "user", "content": format!("question {i}: why did the payments suite fail on the runner"), "timestamp": 1}));
            ms.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {i}: the mock server port was reused")}],
                "usage": {"input": 0, "output": 40, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 40}, "stopReason": "stop", "timestamp": 2}));
        }
        Value::Array(ms)
    }

    /// The real 2026.9.6 host on manual-compact (`clawspec twin`): the newest
    /// reply is kept, its user message is the split turn's prefix (one model
    /// call, the mock's "ok"), the earlier turns are preserved verbatim and
    /// the history is the structured fallback with the latest ask first.
    #[test]
    fn a_2026_9_manual_compaction_keeps_the_newest_reply_and_preserves_recent_turns() {
        let es = entries(session(3));
        let mut calls = 0;
        let (r, plan) = manual(&es, &mut || {
            calls += 1;
            Ok("ok".into())
        });
        assert_eq!(calls, 1, "only the turn prefix is summarised");
        let res = &r["result"];
        assert_eq!(res["firstKeptEntryId"], "e6");
        assert_eq!(res["tokensBefore"], 40, "the last assistant's usage, nothing after it");
        assert_eq!(res["sessionTarget"]["storePath"], "/x/sessions.json");
        assert_eq!(res["details"], json!({"readFiles": [], "modifiedFiles": []}));
        let expected = "## Latest user request context\n\"question 2: why did the payments suite fail on the runner\"\n\n## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n\
## Constraints/Rules\nNone.\n\n## Pending user asks\nNone.\n\n## Exact identifiers\nNone captured.\n\n**Turn Context (split turn):**\n\nok\n\n## Recent turns preserved verbatim\n\
- User: question 0: why did the payments suite fail on the runner\n- Assistant: answer 0: the mock server port was reused\n\
- User: question 1: why did the payments suite fail on the runner\n- Assistant: answer 1: the mock server port was reused";
        assert_eq!(res["summary"], expected);
        let plan = plan.unwrap();
        assert_eq!(plan.first_kept, 5);
        // The summary message plus the kept reply, above 1.1 × the session's estimate: dropped.
        assert!(res.get("tokensAfter").is_none(), "{res}");
    }

    /// With more than three earlier turns, the older ones are summarised by a
    /// model call; a reply without the required sections fails the audit,
    /// is regenerated once, and then the compaction is cancelled.
    #[test]
    fn a_2026_9_summary_without_the_required_sections_cancels_after_one_retry() {
        let es = entries(session(6));
        let mut calls = 0;
        let (r, plan) = manual(&es, &mut || {
            calls += 1;
            Ok("ok".into())
        });
        assert_eq!(calls, 4, "history and prefix, twice");
        assert_eq!(r, json!({"ok": false, "compacted": false, "reason": QUALITY_CANCELLED}));
        assert!(plan.is_none());
        // A structured reply passes.
        let good = structured_fallback(Some("Pin the port per run; question 5 payments suite runner."));
        let (r, _) = manual(&es, &mut || Ok(good.clone()));
        assert_eq!(r["compacted"], true, "{r}");
        assert!(r["result"]["summary"].as_str().unwrap().contains("## Recent turns preserved verbatim\n- User: question 2"));
    }

    #[test]
    fn a_2026_9_provider_failure_cancels_the_compaction() {
        let (r, _) = manual(&entries(session(2)), &mut || Err("overloaded".into()));
        assert_eq!(r, json!({"ok": false, "compacted": false, "reason": "Compaction safeguard could not summarize the session: overloaded"}));
    }

    #[test]
    fn preserved_turn_text_is_capped_at_600_chars() {
        let long = "x".repeat(700);
        let m: AgentMessage = serde_json::from_value(json!({"role": "user", "content": long, "timestamp": 1})).unwrap();
        assert_eq!(format_context_message(&m).unwrap(), format!("- User: {}...", "x".repeat(600)));
    }

    #[test]
    fn identifiers_are_urls_paths_and_long_hex_or_digit_runs() {
        let ids = extract_identifiers("see https://ci.example/run/42, /var/log/app.log and commit deadbeef12 in build 1234567; not a word");
        assert_eq!(ids, vec!["https://ci.example/run/42", "/var/log/app.log", "DEADBEEF12", "1234567"]);
    }
}
