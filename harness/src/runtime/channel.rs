//! A turn that arrives as a message on a messaging channel rather than from a
//! gateway client: the scenario's inbound facts (sender, group, message id,
//! forwarded context, thread history, media) are what a channel reports. The
//! twin delivers such turns on the bridge's `clawspec` channel
//! (adapters/openclaw-bridge/lib/channel.js, `realhost::channel`), so the
//! reference models that channel: id `clawspec`, account `default`, and the
//! bridge's default sender `clawspec-user` when the scenario names none.
//!
//! On 2026.9.6 this entry point shapes the attempt context and the stored
//! user message (`runtime::entry`) and the hidden inbound context
//! (`runtime::prompt`), each observed with `clawspec twin` on the real host.

use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::scenario::model::TurnSpec;

/// The channel id (MsgContext Provider / Surface / OriginatingChannel).
pub const CHANNEL: &str = "clawspec";
/// Its one account.
pub const ACCOUNT: &str = "default";
/// The sender the bridge reports when the scenario names none.
pub const DEFAULT_SENDER: &str = "clawspec-user";
/// The chat a group message is in when the scenario names none.
pub const DEFAULT_GROUP: &str = "clawspec-group";

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

/// One inbound channel message (also the bridge's `clawspec.channel.inbound` params).
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
    /// The reference's own bookkeeping, not a channel fact: the message is the
    /// session's first turn (2026.4.26 introduces a group only then).
    #[serde(skip)]
    pub first_in_session: bool,
}

/// Does this turn carry facts only a channel message has?
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
/// sender keys are channel facts; a key no channel fact carries is an error
/// (it would silently vanish on the real host).
pub fn message(t: &TurnSpec) -> Result<ChannelMessage, String> {
    let mut m = ChannelMessage { body: t.user.clone(), chat_type: "direct".into(), ..Default::default() };
    let mut sender = Sender::default();
    let mut group = None;
    if let Some(c) = &t.conversation {
        for (k, v) in c {
            let bad = || format!("conversation.{k} = {v}: not a channel fact the clawspec channel reports (message_id, chat_id, sender_id, group_subject, is_group_chat, was_mentioned)");
            match k.as_str() {
                "message_id" => m.message_id = Some(string(v).ok_or_else(bad)?),
                "chat_id" => m.chat_id = Some(string(v).ok_or_else(bad)?),
                "sender_id" => sender.id = Some(string(v).ok_or_else(bad)?),
                "group_subject" => m.group_subject = Some(string(v).ok_or_else(bad)?),
                "is_group_chat" => group = Some(v.as_bool().ok_or_else(bad)?),
                "was_mentioned" => m.was_mentioned = Some(v.as_bool().ok_or_else(bad)?),
                _ => return Err(bad()),
            }
        }
    }
    // A group subject belongs to a group chat (MsgContext GroupSubject).
    if group.unwrap_or(m.group_subject.is_some()) {
        m.chat_type = "group".into();
    }
    if let Some(s) = &t.sender {
        for (k, v) in s {
            let bad = || format!("sender.{k} = {v}: not a sender fact the clawspec channel reports (id, name, username, label)");
            match k.as_str() {
                "id" => sender.id = Some(string(v).ok_or_else(bad)?),
                "name" => sender.name = Some(string(v).ok_or_else(bad)?),
                "username" => sender.username = Some(string(v).ok_or_else(bad)?),
                // A display label ("Name (@handle)") is the host's rendering of the facts above.
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

/// The `/stop` a channel user sends (the abort hint's origin on the real host).
pub fn stop_message() -> ChannelMessage {
    ChannelMessage { body: "/stop".into(), chat_type: "direct".into(), ..Default::default() }
}

impl ChannelMessage {
    pub fn is_group(&self) -> bool {
        self.chat_type == "group"
    }

    pub fn sender_id(&self) -> &str {
        self.sender.as_ref().and_then(|s| s.id.as_deref()).unwrap_or(DEFAULT_SENDER)
    }

    /// The conversation's peer: the chat of a group, the sender of a direct chat.
    pub fn peer(&self) -> &str {
        match &self.chat_id {
            Some(c) => c,
            None if self.is_group() => DEFAULT_GROUP,
            None => self.sender_id(),
        }
    }

    /// MsgContext OriginatingTo (the reply route): `runtimeContext.currentChannelId`
    /// and the conversation info's `chat_id`.
    pub fn originating_to(&self) -> String {
        format!("{CHANNEL}:{}", self.peer())
    }

    /// MsgContext From.
    pub fn from(&self) -> String {
        format!("{CHANNEL}:{}", self.sender_id())
    }

    /// `buildConversationRef` (2026.9.6 dist/conversation-ref-*.mjs): the
    /// first 32 hex digits of sha256(JSON [channel, account, kind, peer, parent, thread]).
    pub fn conversation_ref(&self) -> String {
        let key = json!([CHANNEL, ACCOUNT, self.chat_type, self.peer(), "", ""]).to_string();
        let digest = Sha256::digest(key.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("conv_{}", &hex[..32])
    }

    /// The per-peer route key the host resolves for the message (the sandbox
    /// key; the run itself stays on the scenario's session key).
    pub fn route_session_key(&self, agent: &str) -> String {
        format!("agent:{agent}:{CHANNEL}:{ACCOUNT}:{}:{}", self.chat_type, self.from())
    }

    /// MsgContext ConversationLabel as `finalizeInboundContext` resolves it
    /// (dist/conversation-label-*.mjs `resolveConversationLabel`), for a group.
    fn conversation_label(&self) -> String {
        let from = self.from();
        let base = self.group_subject.clone().unwrap_or_else(|| from.clone());
        let id = from.rsplit(':').next().unwrap_or("").to_string();
        let numeric = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
        if numeric && base != id && !base.contains(&id) && !base.to_lowercase().contains(" id:") && !base.starts_with('#') && !base.starts_with('@') {
            format!("{base} id:{id}")
        } else {
            base
        }
    }

    /// The 2026.9.6 `Conversation info` payload (dist/inbound-meta-*.mjs
    /// `buildInboundUserContextPrefix`), in its key order, absent fields dropped.
    pub fn conversation_info_2026_9(&self) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("chat_id".into(), json!(self.originating_to()));
        if let Some(id) = &self.message_id {
            o.insert("message_id".into(), json!(id));
        }
        if self.is_group() {
            o.insert("conversation_label".into(), json!(self.conversation_label()));
        }
        if let Some(s) = &self.sender {
            o.insert("sender".into(), serde_json::to_value(s).expect("sender"));
        }
        if let Some(m) = self.media.iter().find_map(|m| source_modality(&m.mime)) {
            o.insert("source_modality".into(), json!(m));
        }
        self.insert_group_facts(&mut o);
        Value::Object(o)
    }
}

impl ChannelMessage {
    /// The group facts both releases' `Conversation info` payloads end with,
    /// in the same key order.
    fn insert_group_facts(&self, o: &mut serde_json::Map<String, Value>) {
        if let Some(g) = &self.group_subject {
            o.insert("group_subject".into(), json!(g));
        }
        if self.is_group() {
            o.insert("is_group_chat".into(), json!(true));
        }
        if self.was_mentioned == Some(true) {
            o.insert("was_mentioned".into(), json!(true));
        }
    }

    /// The 2026.4.26 `Conversation info` payload (dist/get-reply-*.js
    /// `buildInboundUserContextPrefix`: a non-WebChat channel always includes
    /// it), in its key order, absent fields dropped; printed pretty
    /// (`formatUntrustedJsonBlock`, `JSON.stringify(…, null, 2)`).
    pub fn conversation_info_2026_4(&self) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("chat_id".into(), json!(self.originating_to()));
        if let Some(id) = &self.message_id {
            o.insert("message_id".into(), json!(id));
        }
        let sender = self.sender.clone().unwrap_or_default();
        if let Some(id) = &sender.id {
            o.insert("sender_id".into(), json!(id));
        }
        if self.is_group() {
            o.insert("conversation_label".into(), json!(self.conversation_label()));
        }
        // `SenderName ?? SenderE164 ?? SenderId ?? SenderUsername` (the channel reports no E.164).
        if let Some(name) = sender.name.as_ref().or(sender.id.as_ref()).or(sender.username.as_ref()) {
            o.insert("sender".into(), json!(name));
        }
        self.insert_group_facts(&mut o);
        Value::Object(o)
    }

    /// The 2026.4.26 `Sender` payload (same function): only when the
    /// channel reported a sender fact, labelled by dist/envelope-*.js
    /// `resolveSenderLabel` ("Name (id)").
    pub fn sender_info_2026_4(&self) -> Option<Value> {
        let s = self.sender.as_ref()?;
        let display = s.name.as_ref().or(s.username.as_ref());
        let label = match (display, &s.id) {
            (Some(d), Some(id)) if d != id => format!("{d} ({id})"),
            (Some(d), _) => d.clone(),
            (None, Some(id)) => id.clone(),
            (None, None) => return None,
        };
        let mut o = serde_json::Map::new();
        o.insert("label".into(), json!(label));
        for (k, v) in [("id", &s.id), ("name", &s.name), ("username", &s.username)] {
            if let Some(v) = v {
                o.insert(k.into(), json!(v));
            }
        }
        Some(Value::Object(o))
    }
}

/// `resolveInboundSourceModality`'s media type → modality.
fn source_modality(mime: &str) -> Option<&'static str> {
    let kind = mime.split('/').next().unwrap_or("").to_ascii_lowercase();
    match kind.as_str() {
        "application" | "text" => Some("document"),
        "image" => Some("image"),
        "audio" => Some("audio"),
        "video" => Some("video"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real 2026.9.6 host stored this ref on a direct clawspec message
    /// from the default sender (`clawspec twin prompt-untrusted-context`).
    #[test]
    fn the_conversation_ref_is_the_hosts() {
        let m = ChannelMessage { body: "x".into(), chat_type: "direct".into(), ..Default::default() };
        assert_eq!(m.conversation_ref(), "conv_4657d5e61e3a7faa594a442841650351");
        assert_eq!(m.route_session_key("main"), "agent:main:clawspec:default:direct:clawspec:clawspec-user");
        assert_eq!(m.conversation_info_2026_9(), json!({"chat_id": "clawspec:clawspec-user"}));
    }

    #[test]
    fn scenario_facts_become_channel_facts_and_unknown_ones_are_refused() {
        let t: TurnSpec = serde_json::from_value(json!({"user": "hi", "conversation": {"message_id": "m1", "group_subject": "Ops", "was_mentioned": true}, "sender": {"label": "Mara (@mara)", "name": "Mara"}})).unwrap();
        let m = message(&t).unwrap();
        assert!(m.is_group());
        assert_eq!(m.conversation_info_2026_9().to_string(), r#"{"chat_id":"clawspec:clawspec-group","message_id":"m1","conversation_label":"Ops","sender":{"name":"Mara"},"group_subject":"Ops","is_group_chat":true,"was_mentioned":true}"#);
        let t: TurnSpec = serde_json::from_value(json!({"user": "hi", "conversation": {"topic": "x"}})).unwrap();
        assert!(message(&t).unwrap_err().contains("conversation.topic"));
    }

    /// What the real 2026.4.26 host printed for prompt-inbound-metadata's
    /// group message (`clawspec twin --profile openclaw-2026.4.26`).
    #[test]
    fn the_2026_4_projection_is_the_hosts() {
        let t: TurnSpec = serde_json::from_value(json!({"user": "hi", "conversation": {"message_id": "msg_abc123", "sender_id": "+1234567890", "group_subject": "Team Chat", "was_mentioned": true}, "sender": {"label": "Wayne (+1234567890)", "name": "Wayne"}})).unwrap();
        let m = message(&t).unwrap();
        assert_eq!(m.conversation_info_2026_4().to_string(), r#"{"chat_id":"clawspec:clawspec-group","message_id":"msg_abc123","sender_id":"+1234567890","conversation_label":"Team Chat","sender":"Wayne","group_subject":"Team Chat","is_group_chat":true,"was_mentioned":true}"#);
        assert_eq!(m.sender_info_2026_4().unwrap().to_string(), r#"{"label":"Wayne (+1234567890)","id":"+1234567890","name":"Wayne"}"#);
        // No sender fact: the chat is the default sender's, and there is no Sender block.
        let bare = ChannelMessage { body: "x".into(), chat_type: "direct".into(), ..Default::default() };
        assert_eq!(bare.conversation_info_2026_4(), json!({"chat_id": "clawspec:clawspec-user"}));
        assert_eq!(bare.sender_info_2026_4(), None);
        let id_only = ChannelMessage { sender: Some(Sender { id: Some("42".into()), ..Default::default() }), ..bare };
        assert_eq!(id_only.sender_info_2026_4(), Some(json!({"label": "42", "id": "42"})));
    }
}
