//! Volatile input the runtime injects: subagent/cron completion announces,
//! inter-session bridges and hidden runtime-context carriers, formatted per
//! profile. Marker texts go through `Profile::marker` so the `marker-drift`
//! variant changes them in one place.

use clawspec_contract::markers::{self, *};
use clawspec_contract::*;
use serde_json::json;

use super::profile::{Profile, PromptTexts};
use crate::scenario::model::AnnounceSpec;

/// `buildAnnounceReplyInstruction`, default branch (openclaw
/// `src/agents/subagent-announce.ts`): 2026.4.26 "ready for user delivery",
/// 2026.9.6 "ready for parent review" + the completion-outcome paragraph.
pub fn announce_reply_instruction(texts: PromptTexts, announce_type: &str) -> String {
    match texts {
        PromptTexts::V2026_4_26 => markers::announce_reply_instruction_2026_4(announce_type),
        PromptTexts::V2026_9_6 => markers::announce_reply_instruction(announce_type),
    }
}

/// 2026.9.6 `buildAnnounceReplyInstruction`, `expectsCompletionMessage`
/// branch (dist/subagent-announce-*.mjs): a child started by sessions_spawn
/// expects its completion message by default (the tool's answer says
/// `"expectsCompletionMessage": true`; observed with `clawspec twin`,
/// realhost::spawn), so a subagent's announce gets this variant.
pub fn announce_reply_instruction_expecting(announce_type: &str) -> String {
    format!("A completed {announce_type} is ready for parent review. {SUBAGENT_COMPLETION_OUTCOME_INSTRUCTION} Otherwise send a truthful user-facing update. Keep this internal context private (don't mention system/log/stats/session details or announce type). Reply ONLY: {NO_REPLY} only when this exact result is already visible to the user in this same turn.")
}

/// statusLabel (openclaw `src/agents/subagent-announce.ts`): 2026.4.26 says
/// "completed successfully" and drops the timeout detail.
fn status_label(texts: PromptTexts, status: &str, error: Option<&str>) -> String {
    match texts {
        PromptTexts::V2026_9_6 => markers::subagent_status_label(status, error),
        PromptTexts::V2026_4_26 => match status {
            "ok" => "completed successfully".into(),
            "timeout" => "timed out".into(),
            "error" => format!("failed: {}", error.filter(|e| !e.is_empty()).unwrap_or("unknown error")),
            _ => markers::STATUS_LABEL_UNKNOWN.into(),
        },
    }
}

pub fn task_completion_event(texts: PromptTexts, a: &AnnounceSpec) -> AgentInternalEvent {
    let status = match a.status.as_str() {
        "timeout" => TaskStatus::Timeout,
        "error" => TaskStatus::Error,
        "unknown" => TaskStatus::Unknown,
        _ => TaskStatus::Ok,
    };
    let status_label = status_label(texts, a.status.as_str(), a.error.as_deref());
    let source = match a.source.as_str() {
        "cron" => TaskCompletionSource::Cron,
        "image_generation" => TaskCompletionSource::ImageGeneration,
        "video_generation" => TaskCompletionSource::VideoGeneration,
        "music_generation" => TaskCompletionSource::MusicGeneration,
        _ => TaskCompletionSource::Subagent,
    };
    // default announceType `subagent task`; `cron job` ⇒ source cron.
    let announce_type = if source == TaskCompletionSource::Cron { "cron job" } else { "subagent task" };
    AgentInternalEvent::TaskCompletion(TaskCompletionEvent {
        source,
        child_session_key: a.child.clone(),
        child_session_id: a.child_session_id.clone(),
        announce_type: announce_type.into(),
        task_label: a.task.clone(),
        status,
        status_label,
        result: a.result.clone(),
        no_visible_result: None,
        model_route_change: None,
        attachments: None,
        media_urls: None,
        stats_line: a.stats.clone(),
        reply_instruction: match (texts, source) {
            (PromptTexts::V2026_9_6, TaskCompletionSource::Subagent) => announce_reply_instruction_expecting(announce_type),
            _ => announce_reply_instruction(texts, announce_type),
        },
        extra: Extra::new(),
    })
}

fn source_name(s: TaskCompletionSource) -> &'static str {
    match s {
        TaskCompletionSource::Subagent => "subagent",
        TaskCompletionSource::Cron => "cron",
        TaskCompletionSource::ImageGeneration => "image_generation",
        TaskCompletionSource::VideoGeneration => "video_generation",
        TaskCompletionSource::MusicGeneration => "music_generation",
    }
}

fn escape_prompt_data(s: &str) -> String {
    s.replace('<', "&lt;").replace('>', "&gt;")
}

/// `formatAgentInternalEventsForPrompt` (openclaw `src/agents/internal-events.ts`);
/// 2026.4.26 framed the child result with untrusted markers instead of
/// `<prompt-data>`. Several events are joined by `\n\n---\n\n`.
pub fn format_internal_events(p: &Profile, events: &[AgentInternalEvent]) -> String {
    let mut bodies = Vec::new();
    for AgentInternalEvent::TaskCompletion(e) in events {
        let mut lines = event_header_lines(p, e);
        if p.legacy_child_result_markers {
            // 2026.4.26 `formatTaskCompletionEvent`: `(no output)` inside the markers.
            lines.push(CHILD_RESULT_INTRO_2026_4.into());
            lines.push(UNTRUSTED_CHILD_RESULT_BEGIN.into());
            lines.push(if e.result.trim().is_empty() { "(no output)".into() } else { e.result.clone() });
            lines.push(UNTRUSTED_CHILD_RESULT_END.into());
        } else if e.result.trim().is_empty() {
            lines.push(CHILD_RESULT_EMPTY.into());
        } else {
            lines.push(CHILD_RESULT_INTRO.into());
            lines.push("<prompt-data>".into());
            lines.push(escape_prompt_data(&e.result));
            lines.push("</prompt-data>".into());
        }
        push_route_change(&mut lines, e);
        if let Some(s) = &e.stats_line {
            lines.push(String::new());
            lines.push(s.clone());
        }
        lines.push(String::new());
        lines.push("Action:".into());
        lines.push(e.reply_instruction.clone());
        bodies.push(lines.join("\n"));
    }
    format!(
        "{}\n{INTERNAL_CONTEXT_HEADER}\n{INTERNAL_CONTEXT_NOTICE}\n\n{}\n{}",
        p.marker(INTERNAL_CONTEXT_BEGIN),
        bodies.join("\n\n---\n\n"),
        p.marker(INTERNAL_CONTEXT_END)
    )
}

/// The 2026.9.6 `assemble.prompt` of an announce run: `[Inter-session
/// message] sourceSession=<child> sourceChannel=internal
/// sourceTool=subagent_announce isUser=false`, the 219-char explanation and
/// the events' internal-context block, one per line (observed on the real
/// host with `clawspec twin`, realhost::spawn).
pub fn annotated_announce_prompt(p: &Profile, prov: &InputProvenance, events: &[AgentInternalEvent]) -> String {
    format!("{}\n{INTER_SESSION_EXPLANATION}\n{}", inter_session_header(p, prov), format_internal_events(p, events))
}

/// The 2026.9.6 `assemble.prompt` of a run an inter-session message starts:
/// the header, the explanation and the text, one per line (dist
/// input-provenance-*.mjs `annotateInterSessionPromptText`; observed with
/// `clawspec twin inter-session-send`).
pub fn annotated_inter_session_prompt(p: &Profile, prov: &InputProvenance, text: &str) -> String {
    format!("{}\n{INTER_SESSION_EXPLANATION}\n{text}", inter_session_header(p, prov))
}

/// Source tools whose inter-session input is a completion report on
/// 2026.9.6 (dist/input-provenance-*.mjs `isCompletionReportInputProvenance`:
/// `subagent_announce`, `subagent_settle` and the agent-mediated completion
/// tools `AGENT_MEDIATED_COMPLETION_SOURCE_TOOLS`).
pub fn is_completion_report_tool(tool: &str) -> bool {
    matches!(tool.to_ascii_lowercase().as_str(), "subagent_announce" | "subagent_settle" | "agent_harness_task" | "image_generate" | "music_generate" | "video_generate")
}

/// 2026.9.6 `formatTaskCompletionEvent` (dist/internal-events-*.mjs): the
/// model-route notice follows the result, before attachments and stats.
fn push_route_change(lines: &mut Vec<String>, e: &TaskCompletionEvent) {
    if let Some(r) = e.model_route_change.as_ref().filter(|r| !r.trim().is_empty()) {
        lines.push(String::new());
        lines.push(r.clone());
    }
}

/// Title, the six fields and a blank line: the head of every task-completion
/// rendering (`formatTaskCompletionEvent`, openclaw `src/agents/internal-events.ts`).
fn event_header_lines(p: &Profile, e: &TaskCompletionEvent) -> Vec<String> {
    vec![
        p.marker(TASK_COMPLETION_TITLE),
        format!("source: {}", source_name(e.source)),
        format!("session_key: {}", e.child_session_key),
        format!("session_id: {}", e.child_session_id.as_deref().unwrap_or("unknown")),
        format!("type: {}", e.announce_type),
        format!("task: {}", e.task_label),
        format!("status: {}", truncate_label(&e.status_label)),
        String::new(),
    ]
}

/// 2026.9.6 `formatTaskCompletionEvent(event, "data")`: raw fields and result,
/// no Action line (openclaw `src/agents/internal-events.ts`).
fn format_event_data(p: &Profile, e: &TaskCompletionEvent) -> String {
    let mut lines = event_header_lines(p, e);
    lines.push(if e.result.is_empty() { "(no output)".into() } else { e.result.clone() });
    push_route_change(&mut lines, e);
    if let Some(s) = e.stats_line.as_ref().filter(|s| !s.trim().is_empty()) {
        lines.push(String::new());
        lines.push(s.clone());
    }
    lines.join("\n")
}

/// 2026.9.6 `buildAgentInternalEventContext(events, legacy=false)` (session
/// version 4): per event an instruction, the event data and its reply instruction.
pub fn event_fragments(p: &Profile, events: &[AgentInternalEvent]) -> Vec<(&'static str, String)> {
    events
        .iter()
        .flat_map(|AgentInternalEvent::TaskCompletion(e)| {
            [
                ("runtime-instruction", TASK_COMPLETION_FRAGMENT_INSTRUCTION.to_string()),
                ("conversation-data", format_event_data(p, e)),
                ("runtime-instruction", e.reply_instruction.clone()),
            ]
        })
        .collect()
}

/// 2026.9.6 `buildInterSessionPromptContext` fragments: the header as data, the
/// explanation as an instruction (`src/sessions/input-provenance.ts`).
pub fn origin_fragments(p: &Profile, prov: &InputProvenance) -> Vec<(&'static str, String)> {
    vec![("conversation-data", inter_session_header(p, prov)), ("runtime-instruction", INTER_SESSION_EXPLANATION.to_string())]
}

/// 2026.4.26 collect prompt for queued announces (`subagent-announce-queue.ts`
/// `scheduleAnnounceDrain`, `buildCollectPrompt` in `queue-helpers.ts`).
pub fn collect_prompt_2026_4(items: &[String]) -> String {
    let mut blocks = vec!["[Queued announce messages while agent was busy]".to_string()];
    blocks.extend(items.iter().enumerate().map(|(i, m)| format!("---\nQueued #{}\n{m}", i + 1).trim().to_string()));
    blocks.join("\n\n")
}

/// statusLabel ≤ 500 chars, then `…[truncated]` (same file).
fn truncate_label(s: &str) -> String {
    if s.chars().count() <= 500 {
        s.to_string()
    } else {
        format!("{}…[truncated]", s.chars().take(500).collect::<String>())
    }
}

/// Provenance of a completion announce (sourceTool `subagent_announce`, contract §4.9).
pub fn announce_provenance(child: &str) -> InputProvenance {
    InputProvenance::inter_session(child, "subagent_announce")
}

/// `shouldSuppressAgentPromptPersistence` (openclaw
/// `src/gateway/agent-turn/agent-handler-helpers.ts`).
pub fn suppress_persistence(prov: Option<&InputProvenance>, events: &[AgentInternalEvent], private: bool) -> bool {
    if private {
        return false;
    }
    let Some(p) = prov else { return false };
    p.kind == ProvenanceKind::InterSession
        && p.source_tool.as_deref() == Some("subagent_announce")
        && events.iter().any(|AgentInternalEvent::TaskCompletion(e)| e.source == TaskCompletionSource::Subagent)
}

/// Inter-session header. 2026.7.x+: `… isUser=false`; 2026.4.26
/// (`pi-embedded-runner/replay-history.ts`) had no `isUser` and no explanation.
pub fn inter_session_header(p: &Profile, prov: &InputProvenance) -> String {
    let mut h = p.marker(INTER_SESSION_PREFIX);
    if let Some(k) = &prov.source_session_key {
        h.push_str(&format!(" sourceSession={k}"));
    }
    if let Some(c) = &prov.source_channel {
        h.push_str(&format!(" sourceChannel={c}"));
    }
    if let Some(t) = &prov.source_tool {
        h.push_str(&format!(" sourceTool={t}"));
    }
    if !p.inter_session_visible_prefix {
        h.push_str(" isUser=false");
    }
    h
}

/// 2026.4.26: history user messages carrying inter-session provenance are
/// shown with the header prefixed (`replay-history.ts`;
/// dist/compaction-successor-transcript-*.js `annotateInterSessionUserMessages`):
/// a string gets the header line; blocks get it on their first text block,
/// or a text block of its own in front. Every inter-session user message in
/// block content is annotated, a live child's completion announce too (twin
/// of announce-subagent); a subagent announce persisted as plain text (the
/// reference's announce of a child the run did not spawn, never driven on the
/// real host) keeps its text.
pub fn prefix_inter_session_history(p: &Profile, m: &AgentMessage) -> AgentMessage {
    let mut m = m.clone();
    if let AgentMessage::User(u) = &mut m {
        if let Some(prov) = &u.provenance {
            if prov.kind != ProvenanceKind::InterSession {
                return m;
            }
            let announce = prov.source_tool.as_deref() == Some("subagent_announce");
            let header = inter_session_header(p, prov);
            match &mut u.content {
                MessageContent::Text(text) if !announce => {
                    if !text.starts_with(&header) {
                        *text = format!("{header}\n{text}");
                    }
                }
                MessageContent::Text(_) => {}
                MessageContent::Blocks(blocks) => match blocks.iter_mut().find_map(|b| match b {
                    ContentBlock::Text(t) => Some(t),
                    _ => None,
                }) {
                    Some(t) => {
                        if !t.text.starts_with(&header) {
                            t.text = format!("{header}\n{}", t.text);
                        }
                    }
                    None if !announce => blocks.insert(0, super::transcript::text_block(&header)),
                    None => {}
                },
            }
        }
    }
    m
}

/// A hidden runtime-context carrier (openclaw `src/agents/internal-runtime-context.ts`).
pub fn carrier(p: &Profile, fragments: &[(&str, String)], ts: u64) -> AgentMessage {
    // `buildRuntimeContextMessageContent`: BEGIN, fragment texts joined by a
    // blank line, END (2026.9.6 `run/runtime-context-prompt.ts`).
    let body: Vec<&str> = fragments.iter().map(|(_, t)| t.as_str()).filter(|t| !t.trim().is_empty()).collect();
    let content = format!("{}\n{}\n{}", p.marker(INTERNAL_CONTEXT_BEGIN), body.join("\n\n").trim(), p.marker(INTERNAL_CONTEXT_END));
    let frags: Vec<_> = fragments.iter().map(|(k, t)| json!({"kind": k, "text": t})).collect();
    serde_json::from_value(json!({
        "role": "custom",
        "customType": markers::RUNTIME_CONTEXT_CUSTOM_TYPE,
        "content": content,
        "display": false,
        "details": {"source": "openclaw-runtime-context", "runtimeContextCarrier": true, "fragments": frags},
        "timestamp": ts,
    }))
    .expect("carrier shape")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn announce() -> AnnounceSpec {
        serde_json::from_value(json!({"child": "agent:main:subagent:21", "task": "research the pricing page", "result": "Pro plan is $20/month."})).unwrap()
    }

    /// The shape of the real 2026.9.6 announce run's assemble.prompt (observed
    /// with `clawspec twin` on a sessions_spawn + announce, realhost::spawn).
    #[test]
    fn the_announce_assemble_prompt_is_annotated_as_on_the_real_host() {
        let p = Profile::by_id("openclaw-2026.9.6").unwrap();
        let prov = announce_provenance("agent:main:subagent:21");
        let events = [task_completion_event(p.prompt_texts, &announce())];
        let prompt = annotated_announce_prompt(&p, &prov, &events);
        let lines: Vec<&str> = prompt.lines().collect();
        assert_eq!(lines[0], "[Inter-session message] sourceSession=agent:main:subagent:21 sourceChannel=internal sourceTool=subagent_announce isUser=false");
        assert_eq!(lines[1], INTER_SESSION_EXPLANATION);
        assert_eq!(lines[2], "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>");
        assert!(prompt.contains("[Internal task completion event]\nsource: subagent\nsession_key: agent:main:subagent:21\n"));
        assert!(prompt.contains("<prompt-data>\nPro plan is $20/month.\n</prompt-data>"));
        assert!(prompt.ends_with("<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"));
        // A sessions_spawn child expects its completion message: the instruction's variant says so.
        assert!(prompt.contains("Reply ONLY: NO_REPLY only when this exact result is already visible to the user in this same turn.\n<<<END"), "{prompt}");
        let cron: AnnounceSpec = serde_json::from_value(json!({"child": "c", "task": "t", "source": "cron"})).unwrap();
        let AgentInternalEvent::TaskCompletion(e) = task_completion_event(p.prompt_texts, &cron);
        assert_eq!(e.reply_instruction, markers::announce_reply_instruction("cron job"), "cron keeps the default branch");
    }
}
