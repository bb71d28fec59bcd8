//! Turns that arrive as messages on a real channel: the bridge's `clawspec`
//! channel plugin (adapters/openclaw-bridge/lib/channel.js) hands the host
//! an inbound message with the channel facts a platform event carries —
//! sender, group, message id, forwarded context, thread history, media
//! saved on disk — through the host's own inbound dispatch
//! (`runtime.channel.reply.dispatchReplyWithBufferedBlockDispatcher`,
//! openclaw docs/plugins/sdk-channel-inbound.md). That is how inbound
//! metadata, untrusted context, thread history and media notes reach a prompt
//! on the real host (2026.9.6 dist/inbound-meta-*.mjs
//! `buildInboundUserContextPrefix`, dist/get-reply-*.mjs `threadContextNote`,
//! dist/channel-prompt-context-*.mjs `appendChannelPromptContext`); a
//! `chat.send` carries none of them.
//!
//! A channel's `/stop` is the host's text command (dist/commands-handlers.runtime-*.mjs
//! `handleStopCommand` → `persistAbortTargetEntry`), which records
//! `abortedLastRun` on the session: the next turn gets the abort hint
//! (dist/get-reply-*.mjs `applySessionHints`).

use serde::Serialize;
use serde_json::Value;

use super::plan::{self, NotDrivable, Plan, PlanStep};
use crate::scenario::model::Scenario;
use crate::scenario::model::TurnSpec;

/// The sender facts of a channel message (MsgContext SenderId / SenderName / SenderUsername).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sender {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// A media file the channel saved on disk (MsgContext MediaPaths / MediaTypes).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Media {
    pub path: String,
    pub mime: String,
}

/// One inbound channel message: the `clawspec.channel.inbound` RPC's params.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelMessage {
    pub body: String,
    /// "direct" or "group".
    pub chat_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sender: Option<Sender>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was_mentioned: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untrusted_context: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_history: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Media>,
}

/// Does this turn need a channel message (facts a chat.send cannot carry)?
pub fn needs_channel(t: &TurnSpec) -> bool {
    t.conversation.is_some() || t.sender.is_some() || !t.untrusted_context.is_empty() || t.thread_history.is_some() || !t.media.is_empty()
}

fn string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The scenario's inbound facts → the channel message. Conversation and
/// sender keys are the channel facts a platform reports; a key no channel
/// fact carries is not drivable (it would be silently dropped).
pub fn message(t: &TurnSpec) -> Result<ChannelMessage, NotDrivable> {
    let mut m = ChannelMessage { body: t.user.clone(), chat_type: "direct".into(), ..Default::default() };
    let mut sender = Sender::default();
    if let Some(c) = &t.conversation {
        for (k, v) in c {
            let bad = || NotDrivable(format!("conversation.{k} = {v}: not a channel fact the clawspec channel reports (message_id, chat_id, sender_id, group_subject, is_group_chat, was_mentioned)"));
            match k.as_str() {
                "message_id" => m.message_id = Some(string(v).ok_or_else(bad)?),
                "chat_id" => m.chat_id = Some(string(v).ok_or_else(bad)?),
                "sender_id" => sender.id = Some(string(v).ok_or_else(bad)?),
                "group_subject" => m.group_subject = Some(string(v).ok_or_else(bad)?),
                "is_group_chat" => m.chat_type = if v.as_bool().ok_or_else(bad)? { "group".into() } else { "direct".into() },
                "was_mentioned" => m.was_mentioned = Some(v.as_bool().ok_or_else(bad)?),
                _ => return Err(bad()),
            }
        }
        // A group subject is a group chat's (MsgContext GroupSubject is set for groups only).
        if m.group_subject.is_some() {
            m.chat_type = "group".into();
        }
    }
    if let Some(s) = &t.sender {
        for (k, v) in s {
            let bad = || NotDrivable(format!("sender.{k} = {v}: not a sender fact the clawspec channel reports (id, name, username, label)"));
            match k.as_str() {
                "id" => sender.id = Some(string(v).ok_or_else(bad)?),
                "name" => sender.name = Some(string(v).ok_or_else(bad)?),
                "username" => sender.username = Some(string(v).ok_or_else(bad)?),
                // A display label ("Name (@handle)") is the host's own rendering of the facts above.
                "label" => {}
                _ => return Err(bad()),
            }
        }
    }
    if sender != Sender::default() {
        m.sender = Some(sender);
    }
    m.untrusted_context = t.untrusted_context.clone();
    m.thread_history = t.thread_history.clone();
    m.media = t.media.iter().map(|x| Media { path: x.path.clone(), mime: x.mime.clone() }).collect();
    Ok(m)
}

/// The `/stop` a channel user sends before the turn that carries the abort hint.
pub fn stop_message() -> ChannelMessage {
    ChannelMessage { body: "/stop".into(), chat_type: "direct".into(), ..Default::default() }
}

/// A turn with channel facts (or an abort hint) → plan steps: the channel's
/// `/stop` first when the turn carries the abort hint, then the message on
/// the channel (or, without channel facts, the usual `chat.send` turn).
pub(super) fn plan_turn(p: &mut Plan, i: usize, t: &TurnSpec, s: &Scenario) -> Result<(), NotDrivable> {
    plan::turn_drivable(t)?;
    let channel = needs_channel(t);
    if channel && (t.image || !t.steer.is_empty()) {
        return Err(NotDrivable("a channel message with an inline image or steered messages: not mapped yet".into()));
    }
    let session_key = s.setup.session_key.clone();
    if t.abort_hint {
        p.steps.push(PlanStep::ChannelTurn { step: i, session_key: session_key.clone(), timeout_ms: plan::STEP_TIMEOUT_MS, message: stop_message(), system_events: Vec::new() });
    }
    if !channel {
        // The abort hint comes from the session entry, whatever the next turn's entry point.
        let mut plain = t.clone();
        plain.abort_hint = false;
        return plan::map_turn(p, i, &plain, s);
    }
    let message = message(t)?;
    for r in &t.model {
        let planned = plan::model_reply(r, p, s.setup.context_window)?;
        p.replies.push(plan::PlannedReply { step: Some(i), ..planned });
    }
    let system_events = plan::system_events(t)?;
    p.steps.push(PlanStep::ChannelTurn { step: i, session_key, timeout_ms: plan::STEP_TIMEOUT_MS, message, system_events });
    Ok(())
}
