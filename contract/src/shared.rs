//! [`Msg`]: a message of a session, shared instead of copied.
//!
//! OpenClaw hands an engine the whole history with every `assemble` (and
//! 2026.4.x every `afterTurn`), so a host that copies, compares, serialises
//! or estimates each message once per call does work that grows with the
//! square of the session. A `Msg` is an [`AgentMessage`] behind an `Arc`:
//! cloning one is a pointer copy, two calls' arrays holding the same message
//! hold one allocation (so comparing them is comparing pointers), and what a
//! message costs to derive — its JSON, its token estimates — is computed
//! once per message, not once per call.
//!
//! A `Msg` is immutable once shared: [`Msg::make_mut`] copies it first when
//! another array still holds it, and the copy starts with empty caches.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::message::AgentMessage;
use crate::tokens::Estimator;

#[derive(Clone)]
pub struct Msg(Arc<Inner>);

struct Inner {
    message: AgentMessage,
    /// The message as compact JSON, exactly as `serde_json::to_string` of
    /// the message writes it.
    json: OnceLock<Box<RawValue>>,
    /// Token estimates, by [`Estimator`] (`Estimator as usize`).
    tokens: [OnceLock<u64>; 2],
    /// The last [`Msg::json_contains`] answer and what it was asked.
    contains: OnceLock<(Box<str>, bool)>,
}

impl Clone for Inner {
    /// A copy to be changed: the caches describe the old value, so none is kept.
    fn clone(&self) -> Self {
        Inner::new(self.message.clone())
    }
}

impl Inner {
    fn new(message: AgentMessage) -> Self {
        Inner { message, json: OnceLock::new(), tokens: [OnceLock::new(), OnceLock::new()], contains: OnceLock::new() }
    }
}

impl Msg {
    pub fn new(message: AgentMessage) -> Self {
        Msg(Arc::new(Inner::new(message)))
    }

    /// The message, to change: copied first when another holder shares it.
    pub fn make_mut(&mut self) -> &mut AgentMessage {
        let inner = Arc::make_mut(&mut self.0);
        // Not shared, but derived data may be cached from before the change.
        inner.json = OnceLock::new();
        inner.tokens = [OnceLock::new(), OnceLock::new()];
        inner.contains = OnceLock::new();
        &mut inner.message
    }

    /// The message, owned: moved out when this is its only holder.
    pub fn into_message(self) -> AgentMessage {
        match Arc::try_unwrap(self.0) {
            Ok(inner) => inner.message,
            Err(shared) => shared.message.clone(),
        }
    }

    /// Same allocation (and so the same message).
    pub fn ptr_eq(a: &Msg, b: &Msg) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// An address identifying this allocation while it lives (a cache key;
    /// the caller keeps a clone so that it is not reused).
    pub fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The message as compact JSON, computed once.
    pub fn json(&self) -> &RawValue {
        self.0.json.get_or_init(|| serde_json::value::to_raw_value(&self.0.message).expect("an AgentMessage serialises"))
    }

    /// How many handles hold this message (a cache holding one can tell
    /// whether anyone else still does).
    pub fn holders(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// Whether its JSON contains `needle`; the answer for the first needle
    /// asked is kept (a run asks every message the same question — does it
    /// name the run's state dir — once per call).
    pub fn json_contains(&self, needle: &str) -> bool {
        match self.0.contains.get() {
            Some((n, yes)) if **n == *needle => *yes,
            Some(_) => self.json().get().contains(needle),
            None => {
                let yes = self.json().get().contains(needle);
                let _ = self.0.contains.set((needle.into(), yes));
                yes
            }
        }
    }

    /// Its token estimate under `e`, computed once.
    pub fn tokens(&self, e: Estimator) -> u64 {
        *self.0.tokens[e as usize].get_or_init(|| e.message(&self.0.message))
    }
}

impl Deref for Msg {
    type Target = AgentMessage;
    fn deref(&self) -> &AgentMessage {
        &self.0.message
    }
}

impl AsRef<AgentMessage> for Msg {
    fn as_ref(&self) -> &AgentMessage {
        &self.0.message
    }
}

impl Borrow<AgentMessage> for Msg {
    fn borrow(&self) -> &AgentMessage {
        &self.0.message
    }
}

impl From<AgentMessage> for Msg {
    fn from(m: AgentMessage) -> Self {
        Msg::new(m)
    }
}

impl From<&AgentMessage> for Msg {
    fn from(m: &AgentMessage) -> Self {
        Msg::new(m.clone())
    }
}

impl PartialEq for Msg {
    fn eq(&self, other: &Msg) -> bool {
        Msg::ptr_eq(self, other) || self.0.message == other.0.message
    }
}

impl PartialEq<AgentMessage> for Msg {
    fn eq(&self, other: &AgentMessage) -> bool {
        self.0.message == *other
    }
}

impl fmt::Debug for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.message.fmt(f)
    }
}

impl Serialize for Msg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.message.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Msg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AgentMessage::deserialize(d).map(Msg::new)
    }
}

/// A message a pass reads and, only where it has to, changes: owned (changed
/// in place) or shared (copied first, [`Msg::make_mut`]) — so a pass over a
/// shared history copies the messages it changes, not the history.
pub trait MessageMut: Borrow<AgentMessage> {
    fn make_mut(&mut self) -> &mut AgentMessage;
}

impl MessageMut for AgentMessage {
    fn make_mut(&mut self) -> &mut AgentMessage {
        self
    }
}

impl MessageMut for Msg {
    fn make_mut(&mut self) -> &mut AgentMessage {
        Msg::make_mut(self)
    }
}

/// Messages as the shared kind, for code that holds owned ones.
pub fn share(ms: impl IntoIterator<Item = AgentMessage>) -> Vec<Msg> {
    ms.into_iter().map(Msg::new).collect()
}

/// Owned copies of shared messages, for code that changes them.
pub fn unshare(ms: impl IntoIterator<Item = Msg>) -> Vec<AgentMessage> {
    ms.into_iter().map(Msg::into_message).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(text: &str) -> Msg {
        Msg::new(AgentMessage::user_text(text))
    }

    #[test]
    fn json_is_what_serde_writes_for_the_message_and_for_its_value() {
        let m: AgentMessage = serde_json::from_value(json!({"role": "assistant", "content": [{"type": "text", "text": "a\"b"}], "stopReason": "stop", "zeta": 1, "alpha": [1.5, null]})).unwrap();
        let shared = Msg::new(m.clone());
        assert_eq!(shared.json().get(), serde_json::to_string(&m).unwrap());
        assert_eq!(shared.json().get(), serde_json::to_string(&serde_json::to_value(&m).unwrap()).unwrap());
        assert_eq!(serde_json::to_string(&shared).unwrap(), serde_json::to_string(&m).unwrap());
    }

    #[test]
    fn clones_share_and_a_change_copies_and_forgets_the_caches() {
        let a = user("hello there");
        let mut b = a.clone();
        assert!(Msg::ptr_eq(&a, &b));
        assert_eq!(a.tokens(Estimator::OpenClaw), 3);
        let _ = a.json();
        if let AgentMessage::User(u) = b.make_mut() {
            u.content = crate::MessageContent::Text("a much longer text than before".into());
        }
        assert!(!Msg::ptr_eq(&a, &b));
        assert_eq!(a.text(), "hello there");
        assert_eq!(b.tokens(Estimator::OpenClaw), 8);
        assert!(b.json().get().contains("much longer"));
        assert_ne!(a, b);
        assert_eq!(a, user("hello there"), "equal by value when not the same allocation");
    }

    #[test]
    fn json_contains_answers_for_any_needle_and_keeps_the_first() {
        let m = user("see /tmp/state-1/a.png");
        assert!(m.json_contains("/tmp/state-1"));
        assert!(m.json_contains("/tmp/state-1"));
        assert!(!m.json_contains("/tmp/state-2"));
        assert!(m.json_contains("a.png"));
        let mut m = m;
        if let AgentMessage::User(u) = m.make_mut() {
            u.content = crate::MessageContent::Text("nothing".into());
        }
        assert!(!m.json_contains("/tmp/state-1"), "a change forgets the answer");
    }

    #[test]
    fn a_sole_holder_changes_in_place_but_still_forgets_the_caches() {
        let mut a = user("abcd");
        assert_eq!(a.tokens(Estimator::Pi), 1);
        let before = a.addr();
        if let AgentMessage::User(u) = a.make_mut() {
            u.content = crate::MessageContent::Text("abcdefgh".into());
        }
        assert_eq!(a.addr(), before);
        assert_eq!(a.tokens(Estimator::Pi), 2);
    }
}
