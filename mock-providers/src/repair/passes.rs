//! The hygiene passes. Each takes and returns the transcript; each is
//! idempotent on its own output.

use std::collections::{BTreeMap, BTreeSet};

use clawspec_contract::*;

use super::Policy;

/// A4 placeholders (byte-exact).
pub const MISSING_TOOL_RESULT: &str = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";
pub const REASONING_OMITTED: &str = "[assistant reasoning omitted]";
pub const EMPTY_CONTENT_OMITTED: &str = "[empty content omitted]";
pub const SESSION_BOOTSTRAP: &str = "(session bootstrap)";
pub const CONTINUE: &str = "(continue)";
pub const NO_OUTPUT: &str = "(no output)";
pub const TOOL_ERROR_NO_OUTPUT: &str = "[tool error with no output]";
/// Responses-family synthetic result text (A4, A3.10).
pub const ABORTED: &str = "aborted";
/// `INTER_SESSION_PROMPT_PREFIX_BASE` (openclaw `src/sessions/input-provenance.ts`).
pub const INTER_SESSION_PREFIX: &str = "[Inter-session message]";

/// `annotateInterSessionUserMessages` (A2 #1): user turns with inter-session
/// provenance are prefixed `[Inter-session message] sourceSession=… sourceChannel=…
/// sourceTool=… isUser=false`; idempotent.
pub fn annotate_inter_session(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter()
        .map(|mut m| {
            if let AgentMessage::User(u) = &mut m {
                if let Some(p) = u.provenance.as_ref().filter(|p| p.kind == ProvenanceKind::InterSession) {
                    let mut header = INTER_SESSION_PREFIX.to_string();
                    for (k, v) in [("sourceSession", &p.source_session_key), ("sourceChannel", &p.source_channel), ("sourceTool", &p.source_tool)] {
                        if let Some(v) = v {
                            header.push_str(&format!(" {k}={v}"));
                        }
                    }
                    header.push_str(" isUser=false");
                    let text = u.content.text();
                    if !text.starts_with(INTER_SESSION_PREFIX) {
                        match &mut u.content {
                            MessageContent::Text(t) => *t = format!("{header}\n{t}"),
                            MessageContent::Blocks(b) => b.insert(0, text_block_of(&header)),
                        }
                    }
                }
            }
            m
        })
        .collect()
}

fn text_block_of(t: &str) -> ContentBlock {
    text(t)
}

/// `limitHistoryTurns`: keep the last `n` user turns (and what follows them).
pub fn limit_history(ms: Vec<AgentMessage>, n: usize) -> Vec<AgentMessage> {
    let users: Vec<usize> = ms.iter().enumerate().filter(|(_, m)| matches!(m, AgentMessage::User(_))).map(|(i, _)| i).collect();
    if users.len() <= n || n == 0 {
        return ms;
    }
    let from = users[users.len() - n];
    ms.into_iter().skip(from).collect()
}

fn text(t: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: t.into(), text_signature: None, extra: Extra::new() })
}

fn blank(b: &ContentBlock) -> bool {
    matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty())
}

/// Stream-error assistant turns that produced nothing are dropped (A3.15, #71572).
pub fn drop_failed_empty_turns(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter()
        .filter(|m| !matches!(m, AgentMessage::Assistant(a) if a.content.iter().all(blank) && a.content.iter().all(|b| !matches!(b, ContentBlock::ToolCall(_)))))
        .collect()
}

/// Blank text blocks removed; a user message left empty gets
/// `[empty content omitted]`; an empty tool result gets `(no output)` or
/// `[tool error with no output]` (A3.2, A3.17/18; #72622, #73117).
pub fn clean_blank_text(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter()
        .map(|mut m| {
            match &mut m {
                AgentMessage::User(u) => match &mut u.content {
                    MessageContent::Text(t) if t.trim().is_empty() => u.content = MessageContent::Text(EMPTY_CONTENT_OMITTED.into()),
                    MessageContent::Blocks(b) => {
                        b.retain(|x| !blank(x));
                        if b.is_empty() {
                            b.push(text(EMPTY_CONTENT_OMITTED));
                        }
                    }
                    _ => {}
                },
                AgentMessage::Assistant(a) => a.content.retain(|x| !blank(x)),
                AgentMessage::ToolResult(r) => {
                    r.content.retain(|x| !blank(x));
                    if r.content.is_empty() {
                        r.content.push(text(if r.is_error == Some(true) { TOOL_ERROR_NO_OUTPUT } else { NO_OUTPUT }));
                    }
                }
                _ => {}
            }
            m
        })
        .collect()
}

/// Thinking: unsigned blocks cannot be replayed where signatures are required;
/// other providers never receive thinking (A3.6–A3.8). A turn left empty keeps
/// `[assistant reasoning omitted]`.
pub fn thinking(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter()
        .map(|mut m| {
            if let AgentMessage::Assistant(a) = &mut m {
                let before = a.content.len();
                a.content.retain(|b| match b {
                    ContentBlock::Thinking(t) => {
                        !p.drop_thinking && (!p.signed_thinking || t.thinking_signature.as_deref().is_some_and(|s| !s.trim().is_empty()))
                    }
                    _ => true,
                });
                // Thinking first in an assistant turn that has any (B1).
                a.content.sort_by_key(|b| !matches!(b, ContentBlock::Thinking(_)));
                if a.content.is_empty() && before > 0 {
                    a.content.push(text(REASONING_OMITTED));
                }
            }
            m
        })
        .collect()
}

/// `sanitizeToolCallInputs`: calls without a name are dropped (#12832, #46717),
/// non-object arguments wrapped.
pub fn sanitize_tool_call_inputs(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    ms.into_iter()
        .map(|mut m| {
            if let AgentMessage::Assistant(a) = &mut m {
                a.content.retain(|b| !matches!(b, ContentBlock::ToolCall(c) if c.name.trim().is_empty()));
                for b in &mut a.content {
                    if let ContentBlock::ToolCall(c) = b {
                        if !c.arguments.is_object() {
                            c.arguments = serde_json::json!({"value": c.arguments.clone()});
                        }
                    }
                }
                if a.content.is_empty() {
                    a.content.push(text(EMPTY_CONTENT_OMITTED));
                }
            }
            m
        })
        .collect()
}

/// Pairing repair (A3.10): every call answered right after its turn by the
/// first unconsumed result with its id that follows it (a synthetic error
/// result when there is none); orphan and duplicate results dropped. Matching
/// is positional, so ids reused across turns or within a turn stay paired.
pub fn repair_pairing(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    repair_pairing_with(ms, MISSING_TOOL_RESULT)
}

/// Pairing repair with a given synthetic result text.
pub fn repair_pairing_with(ms: Vec<AgentMessage>, synthetic: &str) -> Vec<AgentMessage> {
    let mut consumed = vec![false; ms.len()];
    let mut out = Vec::with_capacity(ms.len());
    for (i, m) in ms.iter().enumerate() {
        match m {
            AgentMessage::ToolResult(_) => {}
            AgentMessage::Assistant(a) => {
                out.push(m.clone());
                for b in &a.content {
                    let ContentBlock::ToolCall(c) = b else { continue };
                    let found = (i + 1..ms.len()).find(|&j| {
                        !consumed[j] && matches!(&ms[j], AgentMessage::ToolResult(r) if r.tool_call_id == c.id)
                    });
                    match found {
                        Some(j) => {
                            consumed[j] = true;
                            out.push(ms[j].clone());
                        }
                        None => out.push(AgentMessage::ToolResult(ToolResultMessage {
                            tool_call_id: c.id.clone(),
                            tool_name: Some(c.name.clone()),
                            content: vec![text(synthetic)],
                            is_error: Some(true),
                            details: None,
                            timestamp: None,
                            extra: Extra::new(),
                        })),
                    }
                }
            }
            _ => out.push(m.clone()),
        }
    }
    out
}

/// Tool-call ids: charset `[A-Za-z0-9_-]`, capped, unique; Mistral `strict9`
/// (exactly 9 alphanumerics). Results follow their call's new id (A3.11, #12757, #4718, #23595).
pub fn sanitize_tool_ids(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    let valid = |id: &str| -> bool {
        if p.strict9_ids {
            id.len() == 9 && id.chars().all(|c| c.is_ascii_alphanumeric())
        } else {
            !id.is_empty() && id.chars().count() <= p.max_tool_id && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        }
    };
    let fresh = |old: &str, used: &mut BTreeSet<String>| -> String {
        // Already valid and unused: keep it (idempotence).
        if valid(old) && !used.contains(old) {
            used.insert(old.to_string());
            return old.to_string();
        }
        let mut base: String = if p.strict9_ids {
            let h = fnv(old);
            let alnum: String = format!("{h:016x}{h:016X}").chars().filter(|c| c.is_ascii_alphanumeric()).collect();
            alnum[..9].to_string()
        } else {
            let s: String = old.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
            let s = if s.is_empty() { "call".to_string() } else { s };
            s.chars().take(p.max_tool_id).collect()
        };
        let mut n = 1;
        while used.contains(&base) {
            let suffix = n.to_string();
            base = if p.strict9_ids {
                format!("{}{suffix}", &base[..9 - suffix.len()])
            } else {
                let keep = base.chars().take(p.max_tool_id.saturating_sub(suffix.len() + 1)).collect::<String>();
                format!("{keep}_{suffix}")
            };
            n += 1;
        }
        used.insert(base.clone());
        base
    };
    // Results follow their calls (repair_pairing ran first): rename them by
    // position against the calls of the turn they answer.
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut out = Vec::with_capacity(ms.len());
    for mut m in ms {
        match &mut m {
            AgentMessage::Assistant(a) => {
                pending.clear();
                for b in &mut a.content {
                    if let ContentBlock::ToolCall(c) = b {
                        let new = fresh(&c.id, &mut used);
                        pending.push((c.id.clone(), new.clone()));
                        c.id = new;
                    }
                }
            }
            AgentMessage::ToolResult(r) => {
                if let Some(k) = pending.iter().position(|(old, _)| *old == r.tool_call_id) {
                    r.tool_call_id = pending.remove(k).1;
                }
            }
            _ => pending.clear(),
        }
        out.push(m);
    }
    out
}

fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Tool results without a name take their call's (Gemini `Name cannot be empty`, #46717).
pub fn fill_tool_names(ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    ms.into_iter()
        .map(|mut m| {
            match &mut m {
                AgentMessage::Assistant(a) => {
                    for b in &a.content {
                        if let ContentBlock::ToolCall(c) = b {
                            names.insert(c.id.clone(), c.name.clone());
                        }
                    }
                }
                AgentMessage::ToolResult(r) if r.tool_name.as_deref().is_none_or(|n| n.trim().is_empty()) => {
                    r.tool_name = names.get(&r.tool_call_id).cloned().or(Some("tool".into()));
                }
                _ => {}
            }
            m
        })
        .collect()
}

/// Turn validators (A5): consecutive assistants merged; history starts with a
/// user turn (`(session bootstrap)`, A3.14); Mistral gets `(continue)` between
/// tool results and a user message.
pub fn turn_validators(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut out: Vec<AgentMessage> = Vec::with_capacity(ms.len());
    for m in ms {
        if p.merge_assistants {
            if let (Some(AgentMessage::Assistant(prev)), AgentMessage::Assistant(cur)) = (out.last_mut(), &m) {
                prev.content.extend(cur.content.iter().cloned());
                prev.content.sort_by_key(|b| !matches!(b, ContentBlock::Thinking(_)));
                continue;
            }
        }
        // Custom roles reach the model as user turns too.
        let user_on_wire = matches!(m, AgentMessage::User(_)) || crate::wire::as_user_text(&m).is_some();
        if p.assistant_between_tool_and_user && user_on_wire && matches!(out.last(), Some(AgentMessage::ToolResult(_))) {
            out.push(assistant_text(CONTINUE));
        }
        out.push(m);
    }
    if p.user_first && !matches!(out.first(), Some(AgentMessage::User(_)) | None) && !out.first().is_some_and(|m| crate::wire::as_user_text(m).is_some()) {
        out.insert(0, AgentMessage::user_text(SESSION_BOOTSTRAP));
    }
    if out.is_empty() {
        out.push(AgentMessage::user_text(SESSION_BOOTSTRAP));
    }
    out
}

fn assistant_text(t: &str) -> AgentMessage {
    serde_json::from_value(serde_json::json!({"role":"assistant","content":[{"type":"text","text":t}],"stopReason":"stop"})).unwrap()
}

/// Send time: no trailing assistant prefill where the provider forbids it (#72739).
pub fn send_time(p: &Policy, mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    if p.strip_prefill {
        while matches!(ms.last(), Some(AgentMessage::Assistant(_))) {
            ms.pop();
        }
        if ms.is_empty() {
            ms.push(AgentMessage::user_text(SESSION_BOOTSTRAP));
        }
    }
    ms
}

#[cfg(test)]
mod tests {
    //! One table per pass: input transcript → expected roles/texts.
    use super::*;
    use crate::repair::Policy;
    use crate::Provider;
    use rstest::rstest;
    use serde_json::{json, Value};

    fn msgs(v: Value) -> Vec<AgentMessage> {
        serde_json::from_value(v).unwrap()
    }
    fn shape(ms: &[AgentMessage]) -> Vec<String> {
        ms.iter().map(|m| format!("{}:{}", m.role(), m.text())).collect()
    }

    #[rstest]
    #[case::plain(json!([{"role":"user","content":"hi"}]), vec!["user:hi"])]
    #[case::inter_session(json!([{"role":"user","content":"ops done","provenance":{"kind":"inter_session","sourceSessionKey":"agent:ops:main","sourceChannel":"internal","sourceTool":"sessions_send"}}]),
        vec!["user:[Inter-session message] sourceSession=agent:ops:main sourceChannel=internal sourceTool=sessions_send isUser=false\nops done"])]
    #[case::already(json!([{"role":"user","content":"[Inter-session message] x isUser=false\nops","provenance":{"kind":"inter_session"}}]), vec!["user:[Inter-session message] x isUser=false\nops"])]
    fn annotate(#[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&annotate_inter_session(msgs(input))), expect);
    }

    #[rstest]
    #[case::failed_empty(json!([{"role":"user","content":"a"},{"role":"assistant","content":[],"stopReason":"error"},{"role":"user","content":"b"}]), vec!["user:a", "user:b"])]
    #[case::blank_only(json!([{"role":"assistant","content":[{"type":"text","text":" "}]}]), Vec::<&str>::new())]
    #[case::kept_with_call(json!([{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"r","arguments":{}}]}]), vec!["assistant:"])]
    fn failed_turns(#[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&drop_failed_empty_turns(msgs(input))), expect);
    }

    #[rstest]
    #[case::blank_user(json!([{"role":"user","content":"  "}]), vec!["user:[empty content omitted]"])]
    #[case::blank_block(json!([{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"x"}]}]), vec!["user:x"])]
    #[case::empty_result(json!([{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":""}]}]), vec!["toolResult:(no output)"])]
    #[case::empty_error(json!([{"role":"toolResult","toolCallId":"t","content":[],"isError":true}]), vec!["toolResult:[tool error with no output]"])]
    fn blank_text(#[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&clean_blank_text(msgs(input))), expect);
    }

    #[rstest]
    #[case::anthropic_unsigned(Provider::Anthropic, json!([{"role":"assistant","content":[{"type":"thinking","thinking":"p"},{"type":"text","text":"a"}]}]), vec!["assistant:a"])]
    #[case::anthropic_signed(Provider::Anthropic, json!([{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"p","thinkingSignature":"s"}]}]), vec!["assistant:p\na"])]
    #[case::anthropic_only_unsigned(Provider::Anthropic, json!([{"role":"assistant","content":[{"type":"thinking","thinking":"p"}]}]), vec!["assistant:[assistant reasoning omitted]"])]
    #[case::openai_drops(Provider::OpenAiChat, json!([{"role":"assistant","content":[{"type":"thinking","thinking":"p","thinkingSignature":"s"},{"type":"text","text":"a"}]}]), vec!["assistant:a"])]
    fn thinking_pass(#[case] p: Provider, #[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&thinking(&Policy::for_provider(p), msgs(input))), expect);
    }

    #[rstest]
    #[case::missing(json!([{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r","arguments":{}}]}]), MISSING_TOOL_RESULT, vec!["assistant:", "toolResult:[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."])]
    #[case::responses_aborted(json!([{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r","arguments":{}}]}]), ABORTED, vec!["assistant:", "toolResult:aborted"])]
    #[case::moved_next_to_call(json!([{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r","arguments":{}}]},{"role":"user","content":"u"},{"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"r"}]}]), MISSING_TOOL_RESULT, vec!["assistant:", "toolResult:r", "user:u"])]
    #[case::orphan_dropped(json!([{"role":"toolResult","toolCallId":"x","content":[{"type":"text","text":"r"}]},{"role":"user","content":"u"}]), MISSING_TOOL_RESULT, vec!["user:u"])]
    #[case::duplicate_dropped(json!([{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r","arguments":{}}]},{"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"1"}]},{"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"2"}]}]), MISSING_TOOL_RESULT, vec!["assistant:", "toolResult:1"])]
    fn pairing(#[case] input: Value, #[case] synthetic: &str, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&repair_pairing_with(msgs(input), synthetic)), expect);
    }

    #[rstest]
    #[case::strict(Provider::Anthropic, "     functions.read:37", "functions_read_37")]
    #[case::cap40(Provider::OpenAiChat, "call_0123456789012345678901234567890123456789xyz", "call_01234567890123456789012345678901234")]
    #[case::valid_kept(Provider::Anthropic, "toolu_01", "toolu_01")]
    #[case::strict9(Provider::Mistral, "call_1767225600123", "")]
    fn tool_ids(#[case] p: Provider, #[case] id: &str, #[case] expect: &str) {
        let input = msgs(json!([{"role":"assistant","content":[{"type":"toolCall","id":id,"name":"r","arguments":{}}]},{"role":"toolResult","toolCallId":id,"content":[{"type":"text","text":"x"}]}]));
        let out = sanitize_tool_ids(&Policy::for_provider(p), input);
        let new = out[0].tool_call_ids()[0].to_string();
        if expect.is_empty() {
            assert!(new.len() == 9 && new.chars().all(|c| c.is_ascii_alphanumeric()), "{new}");
        } else {
            assert_eq!(new, expect);
        }
        assert!(matches!(&out[1], AgentMessage::ToolResult(r) if r.tool_call_id == new), "the result follows its call");
    }

    #[rstest]
    #[case::merge_assistants(Provider::Anthropic, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]), vec!["user:u", "assistant:a\nb"])]
    #[case::bootstrap_first(Provider::Gemini, json!([{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["user:(session bootstrap)", "assistant:a"])]
    #[case::mistral_continue(Provider::Mistral, json!([{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":"r"}]},{"role":"user","content":"u"}]), vec!["toolResult:r", "assistant:(continue)", "user:u"])]
    #[case::openai_untouched(Provider::OpenAiChat, json!([{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["assistant:a"])]
    fn turns(#[case] p: Provider, #[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&turn_validators(&Policy::for_provider(p), msgs(input))), expect);
    }

    #[rstest]
    #[case::keeps_last_two(json!([{"role":"user","content":"1"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":"2"},{"role":"user","content":"3"}]), 2, vec!["user:2", "user:3"])]
    #[case::short(json!([{"role":"user","content":"1"}]), 5, vec!["user:1"])]
    fn limiting(#[case] input: Value, #[case] n: usize, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&limit_history(msgs(input), n)), expect);
    }

    #[test]
    fn limiting_then_re_repair_never_leaves_an_orphan() {
        let ms = msgs(json!([
            {"role":"user","content":"1"},
            {"role":"assistant","content":[{"type":"toolCall","id":"a","name":"r","arguments":{}}]},
            {"role":"user","content":"2"},
            {"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"late"}]},
            {"role":"user","content":"3"}
        ]));
        let policy = Policy { history_limit: Some(2), ..Policy::for_provider(Provider::Anthropic) };
        let out = crate::repair::repair(&policy, ms);
        assert!(out.iter().all(|m| !matches!(m, AgentMessage::ToolResult(_))), "{:?}", shape(&out));
    }

    #[rstest]
    #[case::strips_trailing(Provider::Anthropic, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["user:u"])]
    #[case::openai_keeps(Provider::OpenAiChat, json!([{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]), vec!["user:u", "assistant:a"])]
    fn prefill(#[case] p: Provider, #[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&send_time(&Policy::for_provider(p), msgs(input))), expect);
    }
}
