//! Prompt-body construction for an inbound user message, per release. Order of
//! openclaw `src/auto-reply/reply/get-reply-run.ts` (2026.4.26 bundle
//! `get-reply`, `buildReplyPromptBodies` in `src/auto-reply/reply/prompt-prelude.ts`;
//! 2026.9.6 `buildReplyPromptEnvelopeBase`):
//!
//! base (bare reset prompt + time line, or the user body) → inbound metadata
//! (2026.4.26: prepended to the body; 2026.9.6: a hidden `conversation-data`
//! fragment) → abort hint → think level (first word; 2026.4.26 only) → `System:` events →
//! untrusted context → thread history → media note.
//!
//! The model sees the full text; the transcript keeps only the bare body (with
//! the media note): `transcriptBody` / `transcriptCommandBody` in both releases.

use clawspec_contract::markers::{self, INBOUND_CONTEXT_MARKER};
use serde_json::Value;

use super::channel::ChannelMessage;
use super::clock;
use super::profile::{Profile, PromptTexts};
use crate::scenario::model::TurnSpec;

/// 2026.4.26 `REPLY_MEDIA_HINT` (`src/auto-reply/reply/prompt-prelude.ts`);
/// 2026.9.6 sends the media note without it.
pub const MEDIA_REPLY_HINT_2026_4: &str = "To send an image back, prefer the message tool (media/path/filePath). If you must inline, use MEDIA:https://example.com/image.jpg (spaces ok, quote if needed) or a safe relative path like MEDIA:./image.jpg. Absolute and ~ paths only work when they stay inside your allowed file-read boundary; host file:// URLs are blocked. Keep caption in the text body.";
/// Think-level directives (`normalizeThinkLevel`).
const THINK_LEVELS: [&str; 5] = ["off", "low", "medium", "high", "xhigh"];

#[derive(Clone, Debug, PartialEq)]
pub struct PromptBody {
    /// What the model sees (and `assemble.prompt`).
    pub text: String,
    /// What the transcript keeps for this user turn.
    pub transcript: String,
    /// 2026.9.6: inbound metadata as hidden runtime-context fragments (kind, text).
    pub context_fragments: Vec<(&'static str, String)>,
    pub think_level: Option<String>,
    /// `/new` or `/reset` alone: the session is reset first.
    pub session_reset: bool,
}

pub fn is_bare_reset(raw: &str) -> bool {
    matches!(raw.trim(), "/new" | "/reset")
}

/// Bare reset prompt + `appendCronStyleCurrentTimeLine` (openclaw
/// `src/agents/current-time.ts`): 2026.4.26 one line `Current time: … (UTC) / … UTC`,
/// 2026.9.6 a second line `Reference UTC: … UTC`.
pub fn reset_prompt(texts: PromptTexts, now_ms: u64) -> String {
    with_cron_time_line(texts, markers::BARE_SESSION_RESET_PROMPT, now_ms)
}

/// `appendCronStyleCurrentTimeLine` (see [`reset_prompt`]) after `text`.
pub fn with_cron_time_line(texts: PromptTexts, text: &str, now_ms: u64) -> String {
    let local = clock::format_user_time(now_ms);
    let utc = clock::format_utc_minutes(now_ms);
    let line = match texts {
        PromptTexts::V2026_4_26 => format!("Current time: {local} (UTC) / {utc}"),
        PromptTexts::V2026_9_6 => format!("Current time: {local} (UTC)\nReference UTC: {utc}"),
    };
    format!("{text}\n{line}")
}

/// `[label, "```json", JSON.stringify(payload, null, 2), "```"]`; 2026.9.6 labels
/// carry `⟦openclaw:ctx⟧` instead of `(untrusted metadata):` (`strip-inbound-meta.ts`).
fn metadata_label(texts: PromptTexts, name: &str) -> String {
    match texts {
        PromptTexts::V2026_4_26 => format!("{name} (untrusted metadata):"),
        PromptTexts::V2026_9_6 => format!("{name}: {INBOUND_CONTEXT_MARKER}"),
    }
}

fn untrusted_context_header(texts: PromptTexts) -> String {
    match texts {
        PromptTexts::V2026_4_26 => markers::UNTRUSTED_CONTEXT_HEADER_2026_4.to_string(),
        // `CHANNEL_CONTEXT_HEADER` (2026.9.6 `strip-inbound-meta.ts`).
        PromptTexts::V2026_9_6 => format!("Context: {INBOUND_CONTEXT_MARKER}"),
    }
}

fn abort_hint(texts: PromptTexts) -> &'static str {
    match texts {
        PromptTexts::V2026_4_26 => markers::ABORT_HINT_2026_4,
        PromptTexts::V2026_9_6 => markers::ABORT_HINT,
    }
}

pub fn build(p: &Profile, t: &TurnSpec, is_new_session: bool, now_ms: u64) -> PromptBody {
    build_with_sender(p, t, is_new_session, now_ms, None)
}

/// [`build`] with the entry point's own preformatted `Sender` block
/// (`runtime::entry`), used when the scenario scripts no sender metadata.
pub fn build_with_sender(p: &Profile, t: &TurnSpec, is_new_session: bool, now_ms: u64, entry_sender: Option<&str>) -> PromptBody {
    build_with_channel(p, t, is_new_session, now_ms, entry_sender, None)
}

/// [`build_with_sender`] for a turn that may have arrived on a channel
/// (`runtime::channel`, 2026.9.6 only): the inbound metadata is then the
/// host's own projection of the channel facts, one compact `Conversation
/// info` block (dist/inbound-meta-*.mjs `buildInboundUserContextPrefix`,
/// dist/channel-prompt-context-*.mjs `formatContextJsonBlock`:
/// `JSON.stringify(payload)`), never a separate `Sender` block.
pub fn build_with_channel(p: &Profile, t: &TurnSpec, is_new_session: bool, now_ms: u64, entry_sender: Option<&str>, channel: Option<&ChannelMessage>) -> PromptBody {
    let texts = p.prompt_texts;
    let session_reset = is_bare_reset(&t.user);
    let base = if session_reset { reset_prompt(texts, now_ms) } else { t.user.clone() };

    let mut blocks = Vec::new();
    // 2026.9.6 adds the inbound media's kind to the conversation info
    // (inbound-meta-*.mjs `resolveInboundSourceModality`: the first medium's
    // type, `application/*` and `text/*` as "document"); so an image turn gets
    // a current-inbound carrier of its own (twin of http-mistral, whose
    // carrier then follows the tool result). 2026.4.26 has no such field.
    let modality = (texts == PromptTexts::V2026_9_6).then(|| source_modality(t)).flatten();
    let conversation = match (&t.conversation, modality) {
        (c, Some(m)) => {
            let mut c = c.clone().unwrap_or_default();
            c.entry("source_modality".to_string()).or_insert(Value::String(m.to_string()));
            Some(c)
        }
        (c, None) => c.clone(),
    };
    match (channel, texts) {
        (Some(m), PromptTexts::V2026_9_6) => blocks.push(markers::untrusted_json_block(&metadata_label(texts, "Conversation info"), &m.conversation_info_2026_9().to_string())),
        // 2026.4.26: the host's own projection of the channel facts, pretty-printed, then
        // its Sender block (twinned: prompt-inbound-metadata).
        (Some(m), PromptTexts::V2026_4_26) => {
            let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("json");
            blocks.push(markers::untrusted_json_block(&metadata_label(texts, "Conversation info"), &pretty(&m.conversation_info_2026_4())));
            if let Some(s) = m.sender_info_2026_4() {
                blocks.push(markers::untrusted_json_block(&metadata_label(texts, "Sender"), &pretty(&s)));
            }
        }
        (None, _) => {
            if let Some(c) = &conversation {
                blocks.push(json_block(texts, &metadata_label(texts, "Conversation info"), c));
            }
        }
    }
    if channel.is_some() {
        // The sender is the channel's: part of the blocks above.
    } else if let Some(s) = &t.sender {
        blocks.push(json_block(texts, &metadata_label(texts, "Sender"), s));
    } else if let Some(b) = entry_sender {
        blocks.push(b.to_string());
    }
    let inbound = blocks.join("\n\n");
    let mut context_fragments = Vec::new();
    let mut body = match texts {
        PromptTexts::V2026_4_26 => join_nonempty(&[&inbound, &base], "\n\n"),
        PromptTexts::V2026_9_6 => {
            if session_reset {
                join_nonempty(&[&inbound, &base], "\n\n")
            } else {
                if !inbound.is_empty() {
                    context_fragments.push(("conversation-data", inbound.clone()));
                }
                base.clone()
            }
        }
    };
    if t.abort_hint {
        body = format!("{}\n\n{body}", abort_hint(texts));
    }
    // `normalizeThinkLevel(parts[0])`, then `parts.slice(1).join(" ")`.
    // 2026.9.6 reads the leading word only while no think level is resolved
    // (get-reply-*.mjs `prepareReplyRunAdmission`: `if (!resolvedThinkLevel
    // && prefixedBodyBase)`), and a gateway turn always arrives with the
    // model's default resolved (`createReplyModelLevelResolver` →
    // `resolveDefaultThinkingLevel`): the word stays in the prompt (`clawspec
    // twin prompt-think-level`: "high explain why the cache misses").
    let mut think_level = None;
    let first = body.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    if THINK_LEVELS.contains(&first.as_str()) && !session_reset && texts == PromptTexts::V2026_4_26 {
        think_level = Some(first);
        body = body.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
    }
    // `drainFormattedSystemEvents` (session-system-events.ts, both releases).
    let ts = format!("{} UTC", clock::format_utc(now_ms));
    let events: Vec<String> = t
        .system_events
        .iter()
        .filter_map(|e| markers::compact_system_event(e, None))
        .map(|e| markers::system_event_lines(&ts, &e))
        .collect();
    // `threadContextNote`: thread history whenever the channel sent it (the
    // new-session condition applies only to the thread *starter*).
    let _ = is_new_session;
    let thread_note = t.thread_history.as_ref().map(|h| format!("{}\n{h}", markers::THREAD_HISTORY_HEADER));
    let channel_context = (!t.untrusted_context.is_empty()).then(|| format!("{}\n{}", untrusted_context_header(texts), t.untrusted_context.join("\n")));
    match texts {
        // 2026.9.6: thread note, drained system events and the channel's
        // context are `conversation-data` fragments of the hidden
        // current-inbound carrier, in that order after the inbound metadata,
        // never part of the prompt (dist/get-reply-*.mjs
        // buildReplyPromptEnvelope `sourceContext`; twinned: system events and
        // a channel message's context on the real host).
        PromptTexts::V2026_9_6 if !session_reset => {
            let events = (!events.is_empty()).then(|| events.join("\n"));
            context_fragments.extend([thread_note, events, channel_context].into_iter().flatten().map(|f| ("conversation-data", f)));
        }
        _ => {
            if !events.is_empty() {
                body = format!("{}\n\n{body}", events.join("\n"));
            }
            if let Some(c) = channel_context {
                body = format!("{body}\n\n{c}");
            }
            if let Some(n) = thread_note {
                body = format!("{n}\n\n{body}");
            }
        }
    }
    let note = media_note(t);
    let mut transcript = if session_reset {
        match texts {
            // 2026.4.26: `softResetTail` (empty for a bare reset) ⇒ the prompt is kept.
            PromptTexts::V2026_4_26 => String::new(),
            // 2026.9.6: `[OpenClaw session ${startupAction}]`.
            PromptTexts::V2026_9_6 => format!("[OpenClaw session {}]", t.user.trim().trim_start_matches('/')),
        }
    } else {
        base.clone()
    };
    if let Some(n) = &note {
        let hint = match texts {
            PromptTexts::V2026_4_26 => Some(MEDIA_REPLY_HINT_2026_4),
            PromptTexts::V2026_9_6 => None,
        };
        body = join_nonempty(&[n, hint.unwrap_or(""), &body], "\n").trim().to_string();
        transcript = join_nonempty(&[n, &transcript], "\n");
    }
    if transcript.trim().is_empty() {
        transcript = body.clone();
    }
    PromptBody { text: body, transcript, context_fragments, think_level, session_reset }
}

/// `[a, b, …].filter(Boolean).join(sep)`, the shape every OpenClaw prompt part uses.
fn join_nonempty(parts: &[&str], sep: &str) -> String {
    parts.iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join(sep)
}

/// `buildInboundMediaNote` (openclaw `src/auto-reply/media-note.ts`).
fn media_note(t: &TurnSpec) -> Option<String> {
    match t.media.len() {
        0 => None,
        1 => Some(format!("[media attached: {} ({})]", t.media[0].path, t.media[0].mime)),
        n => {
            let mut lines = vec![format!("[media attached: {n} files]")];
            for (i, m) in t.media.iter().enumerate() {
                lines.push(format!("[media attached {}/{n}: {} ({})]", i + 1, m.path, m.mime));
            }
            Some(lines.join("\n"))
        }
    }
}

/// `resolveInboundSourceModality` over the turn's media (inbound-meta-*.mjs).
fn source_modality(t: &TurnSpec) -> Option<&'static str> {
    let kind = |mime: &str| -> Option<&'static str> {
        let k = mime.split('/').next().unwrap_or("").to_ascii_lowercase();
        match k.as_str() {
            "application" | "text" => Some("document"),
            "image" => Some("image"),
            "audio" => Some("audio"),
            "video" => Some("video"),
            _ => None,
        }
    };
    let images = t.image.then_some("image/png");
    t.media.iter().map(|m| m.mime.as_str()).chain(images).find_map(kind)
}

/// 2026.4.26 pretty-prints (`formatUntrustedJsonBlock`, `JSON.stringify(…, null, 2)`);
/// 2026.9.6 writes compact JSON (channel-prompt-context-*.mjs `formatContextJsonBlock`).
fn json_block(texts: PromptTexts, title: &str, fields: &std::collections::BTreeMap<String, Value>) -> String {
    let v = match texts {
        PromptTexts::V2026_4_26 => serde_json::to_string_pretty(fields).expect("json"),
        PromptTexts::V2026_9_6 => serde_json::to_string(fields).expect("json"),
    };
    markers::untrusted_json_block(title, &v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::clock::EPOCH_MS;
    use crate::scenario::model::MediaSpec;

    fn turn(user: &str) -> TurnSpec {
        TurnSpec { user: user.into(), ..Default::default() }
    }
    fn v4() -> Profile {
        Profile::classic_2026_4_26()
    }
    fn v9() -> Profile {
        Profile::current_2026_9_6()
    }

    #[test]
    fn bare_reset_substitutes_prompt_with_time_line() {
        let p = build(&v4(), &turn("/new"), true, EPOCH_MS);
        assert!(p.session_reset);
        assert_eq!(p.text, format!("{}\nCurrent time: Thursday, January 1st, 2026 - 12:00 AM (UTC) / 2026-01-01 00:00 UTC", markers::BARE_SESSION_RESET_PROMPT));
        let p = build(&v9(), &turn("/reset"), true, EPOCH_MS);
        assert!(p.text.ends_with("(UTC)\nReference UTC: 2026-01-01 00:00 UTC"));
        assert_eq!(p.transcript, "[OpenClaw session reset]");
    }

    #[test]
    fn order_of_wrappers_2026_4_26() {
        let mut t = turn("what now?");
        t.abort_hint = true;
        t.system_events = vec!["Cron job \"x\" completed".into(), "heartbeat poll".into()];
        t.untrusted_context = vec!["Forwarded from: A".into()];
        t.media = vec![MediaSpec { path: "/tmp/a.png".into(), mime: "image/png".into() }];
        let p = build(&v4(), &t, false, EPOCH_MS + 1000);
        let expected = format!(
            "[media attached: /tmp/a.png (image/png)]\n{MEDIA_REPLY_HINT_2026_4}\nSystem: [2026-01-01 00:00:01 UTC] Cron job \"x\" completed\n\n{}\n\nwhat now?\n\n{}\nForwarded from: A",
            markers::ABORT_HINT_2026_4,
            markers::UNTRUSTED_CONTEXT_HEADER_2026_4
        );
        assert_eq!(p.text, expected);
        assert_eq!(p.transcript, "[media attached: /tmp/a.png (image/png)]\nwhat now?");
    }

    #[test]
    fn system_events_are_prompt_text_in_4_26_and_a_conversation_data_fragment_in_9_6() {
        let mut t = turn("anything?");
        t.system_events = vec!["Cron job \"x\" completed".into(), "heartbeat poll".into(), "Backup done".into()];
        let block = "System: [2026-01-01 00:00:01 UTC] Cron job \"x\" completed\nSystem: [2026-01-01 00:00:01 UTC] Backup done";
        let p4 = build(&v4(), &t, false, EPOCH_MS + 1000);
        assert_eq!(p4.text, format!("{block}\n\nanything?"));
        assert!(p4.context_fragments.is_empty());
        let p9 = build(&v9(), &t, false, EPOCH_MS + 1000);
        assert_eq!(p9.text, "anything?", "never in the prompt on 2026.9.6");
        assert_eq!(p9.context_fragments, vec![("conversation-data", block.to_string())]);
    }

    #[test]
    fn inbound_metadata_is_prompt_text_in_4_26_and_a_fragment_in_9_6() {
        let mut t = turn("hi");
        t.sender = Some([("label".to_string(), serde_json::json!("Ann"))].into_iter().collect());
        let p = build(&v4(), &t, false, EPOCH_MS);
        assert_eq!(p.text, "Sender (untrusted metadata):\n```json\n{\n  \"label\": \"Ann\"\n}\n```\n\nhi");
        assert_eq!(p.transcript, "hi");
        let p = build(&v9(), &t, false, EPOCH_MS);
        assert_eq!(p.text, "hi");
        // Compact JSON on 9.6 (channel-prompt-context-*.mjs formatContextJsonBlock; the
        // carrier the real host persisted on http-openai-responses).
        assert_eq!(p.context_fragments, vec![("conversation-data", "Sender: ⟦openclaw:ctx⟧\n```json\n{\"label\":\"Ann\"}\n```".to_string())]);
    }

    #[test]
    fn an_image_turn_names_its_source_modality_on_9_6_only() {
        // inbound-meta-*.mjs resolveInboundSourceModality (twins of http-mistral, http-openai-responses).
        let mut t = turn("look");
        t.image = true;
        let p = build(&v9(), &t, false, EPOCH_MS);
        assert_eq!(p.context_fragments, vec![("conversation-data", "Conversation info: ⟦openclaw:ctx⟧\n```json\n{\"source_modality\":\"image\"}\n```".to_string())]);
        assert!(build(&v4(), &t, false, EPOCH_MS).context_fragments.is_empty());
        let mut doc = turn("read this");
        doc.media = vec![MediaSpec { path: "/tmp/a.pdf".into(), mime: "application/pdf".into() }];
        assert!(build(&v9(), &doc, false, EPOCH_MS).context_fragments[0].1.contains("{\"source_modality\":\"document\"}"));
        assert!(build(&v9(), &turn("plain"), false, EPOCH_MS).context_fragments.is_empty());
    }

    #[test]
    fn abort_hint_per_release() {
        let mut t = turn("go on");
        t.abort_hint = true;
        assert!(build(&v9(), &t, false, EPOCH_MS).text.starts_with("Note: The previous agent run was interrupted."));
        assert!(build(&v4(), &t, false, EPOCH_MS).text.starts_with("Note: The previous agent run was aborted by the user."));
    }

    #[test]
    fn think_level_is_extracted_on_2026_4_only() {
        let p = build(&v4(), &turn("high   explain this"), false, EPOCH_MS);
        assert_eq!(p.think_level.as_deref(), Some("high"));
        assert_eq!(p.text, "explain this");
        // 2026.9.6 gateway turns resolve the default level first: the word stays.
        let p = build(&v9(), &turn("high explain this"), false, EPOCH_MS);
        assert_eq!((p.think_level, p.text.as_str()), (None, "high explain this"));
    }

    #[test]
    fn thread_history_is_prepended_in_4_26_and_hidden_context_in_9_6() {
        let mut t = turn("hi");
        t.thread_history = Some("Alice: ping".into());
        assert_eq!(build(&v4(), &t, true, EPOCH_MS).text, format!("{}\nAlice: ping\n\nhi", markers::THREAD_HISTORY_HEADER));
        // 2026.9.6 `sourceContext`: thread note, system events, channel Context, after the
        // inbound metadata (twinned on the real host: prompt-thread-history, prompt-untrusted-context).
        t.untrusted_context = vec!["Forwarded from: A".into()];
        t.system_events = vec!["Backup done".into()];
        let m = crate::runtime::channel::message(&t).unwrap();
        let p = build_with_channel(&v9(), &t, true, EPOCH_MS, None, Some(&m));
        assert_eq!(p.text, "hi");
        let texts: Vec<&str> = p.context_fragments.iter().map(|(_, f)| f.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Conversation info: \u{27e6}openclaw:ctx\u{27e7}\n```json\n{\"chat_id\":\"clawspec:clawspec-user\"}\n```".to_string(),
                format!("{}\nAlice: ping", markers::THREAD_HISTORY_HEADER),
                "System: [2026-01-01 00:00:00 UTC] Backup done".to_string(),
                "Context: \u{27e6}openclaw:ctx\u{27e7}\nForwarded from: A".to_string(),
            ]
        );
    }
}
