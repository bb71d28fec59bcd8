//! Each distinct message's `role|text` key as a small integer, computed once
//! per message per evaluation.
//!
//! CE-ASM-009 and CE-ASM-011 count every assemble's messages by that key.
//! Building the key string (a `format!` of the message's whole text) and
//! counting in string-keyed maps for every message of every call made them
//! the checks' largest cost and grew faster than the square of the session
//! (`checks_long --per-clause`: CE-ASM-009 0.15 / 0.78 / 5.1 s at 500 / 1 000
//! / 2 000 steps). A message is shared by every list that holds it (the
//! trace store parses it once), so its key is worked out once, by identity.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use clawspec_contract::tokens::estimate_message;
use clawspec_contract::AgentMessage;

/// What the clauses need of one message, by identity.
#[derive(Clone, Copy, Debug)]
pub struct Keyed {
    /// Equal iff the `role|text` keys are equal.
    pub id: u32,
    /// A user message whose text is not blank.
    pub user_text: bool,
    /// Its token estimate (`estimate_message`; a list's estimate is the sum).
    pub tokens: u64,
    /// Inter-session or untrusted input (CE-PROV-001).
    pub untrusted: bool,
}

/// What is worked out once over a spine of assembled messages
/// ([`super::assembly::Shared`]) for every list that is a prefix of it:
/// summed and counted per call, a session's checks cost the square of its
/// length.
#[derive(Debug, Default)]
pub struct SpineFacts {
    /// `tokens[i]`: the estimate of the first `i` messages.
    pub tokens: Vec<u64>,
    /// The shortest prefix holding a user text twice (CE-ASM-009), if any.
    pub first_repeat: Option<usize>,
    /// The shortest prefix holding untrusted input (CE-PROV-001), if any.
    pub first_untrusted: Option<usize>,
}

#[derive(Default)]
pub struct TextKeys {
    inner: RefCell<Inner>,
}

#[derive(Default)]
struct Inner {
    /// By address; the `Arc` keeps the address from being reused.
    by_ptr: HashMap<usize, (Arc<AgentMessage>, Keyed)>,
    /// By spine address (the spine outlives the evaluation's context).
    spines: HashMap<usize, std::rc::Rc<SpineFacts>>,
    ids: HashMap<String, u32>,
    keys: Vec<String>,
}

pub fn text_key(m: &AgentMessage) -> String {
    format!("{}|{}", m.role(), m.text())
}

impl TextKeys {
    pub fn of(&self, m: &Arc<AgentMessage>) -> Keyed {
        let mut inner = self.inner.borrow_mut();
        let ptr = Arc::as_ptr(m) as usize;
        if let Some((_, k)) = inner.by_ptr.get(&ptr) {
            return *k;
        }
        let key = text_key(m);
        let next = inner.keys.len() as u32;
        let id = *inner.ids.entry(key.clone()).or_insert(next);
        if id == next {
            inner.keys.push(key);
        }
        let text = m.text();
        let untrusted = m.provenance().is_some_and(|p| p.kind == clawspec_contract::ProvenanceKind::InterSession) || text.contains("(untrusted");
        let k = Keyed { id, user_text: matches!(**m, AgentMessage::User(_)) && !text.trim().is_empty(), tokens: estimate_message(m), untrusted };
        inner.by_ptr.insert(ptr, (m.clone(), k));
        k
    }

    /// The facts of the spine `list` is a prefix of, worked out on first ask.
    pub fn spine(&self, list: &super::assembly::Shared) -> std::rc::Rc<SpineFacts> {
        if let Some(f) = self.inner.borrow().spines.get(&list.spine_key()) {
            return f.clone();
        }
        let mut f = SpineFacts { tokens: vec![0], ..Default::default() };
        let mut users = std::collections::HashSet::new();
        for (i, m) in list.spine_all().iter().enumerate() {
            let k = self.of(m);
            f.tokens.push(f.tokens[i] + k.tokens);
            if k.user_text && !users.insert(k.id) && f.first_repeat.is_none() {
                f.first_repeat = Some(i + 1);
            }
            if k.untrusted && f.first_untrusted.is_none() {
                f.first_untrusted = Some(i + 1);
            }
        }
        let f = std::rc::Rc::new(f);
        self.inner.borrow_mut().spines.insert(list.spine_key(), f.clone());
        f
    }

    /// The `role|text` key of an id.
    pub fn key(&self, id: u32) -> String {
        self.inner.borrow().keys[id as usize].clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: serde_json::Value) -> Arc<AgentMessage> {
        Arc::new(serde_json::from_value(v).unwrap())
    }

    #[test]
    fn equal_keys_share_an_id_whatever_the_allocation() {
        let t = TextKeys::default();
        let a = msg(json!({"role": "user", "content": "yes", "timestamp": 1}));
        let b = msg(json!({"role": "user", "content": [{"type": "text", "text": "yes"}], "timestamp": 2}));
        let c = msg(json!({"role": "user", "content": "  "}));
        let d = msg(json!({"role": "assistant", "content": [{"type": "text", "text": "yes"}]}));
        let (ka, kb, kc, kd) = (t.of(&a), t.of(&b), t.of(&c), t.of(&d));
        assert_eq!(ka.id, kb.id);
        assert_ne!(ka.id, kc.id);
        assert_ne!(ka.id, kd.id);
        assert!(ka.user_text && !kc.user_text && !kd.user_text);
        assert_eq!(t.key(kd.id), text_key(&d));
        assert_eq!(ka.tokens, estimate_message(&a));
        assert_eq!(t.of(&a).id, ka.id, "asked again");
    }
}
