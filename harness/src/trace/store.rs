//! Content-addressed message storage for traces.
//!
//! Every `assemble`/`afterTurn` call carries the whole history, so storing
//! params as sent makes a trace grow with the square of the session length
//! (200 steps once gave a 98 MB trace). Instead each distinct message is kept
//! once (`messages`, keyed by a digest of its JSON) and each message array is
//! a *list*: an earlier list's first `baseLen` items plus new `items`. A call
//! whose history extends the previous call's history then costs only the new
//! messages, so a trace grows linearly with the session.
//!
//! In a trace, an interned array reads `{"$messages": "l-…"}`; resolve it with
//! [`MessageStore::resolve`] (or the `Trace`/`CallRecord` helpers).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use clawspec_contract::{AgentMessage, Msg};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The key a list reference uses inside params/results.
pub const LIST_REF: &str = "$messages";

/// Wraps an engine value that would otherwise read as a reference.
pub const LITERAL: &str = "$literal";

/// Params arrays aligned with `messages` that a trace stores by reference
/// ([`MessageStore::intern_aligned`]).
pub const ALIGNED_FIELDS: [&str; 2] = ["inputProvenance", "internalEvents"];

/// Up to this many entries an aligned array stays inline.
pub const ALIGNED_INLINE: usize = 64;

fn one(k: &str, v: Value) -> Value {
    Value::Object(Map::from_iter([(k.to_string(), v)]))
}

/// One stored message array: the first `base_len` items of `base`, then `items`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListNode {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub base_len: usize,
    /// Message keys (into [`MessageStore::messages`]).
    pub items: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageStore {
    /// Each distinct message once, keyed `m-<digest>`.
    #[serde(default)]
    pub messages: BTreeMap<String, Value>,
    /// Message arrays, keyed `l-<digest of the whole array>`.
    #[serde(default)]
    pub lists: BTreeMap<String, ListNode>,
    /// Every prefix of every stored list → (list holding it, prefix length),
    /// so a new array can share the longest prefix already stored. Rebuilt on
    /// demand after deserialising; never written.
    #[serde(skip)]
    #[schemars(skip)]
    prefixes: HashMap<[u8; 32], (String, usize)>,
    /// The store as dense integer ids, for reading lists ([`Index`]). Built
    /// on first read, dropped when a message or a list is added.
    #[serde(skip)]
    #[schemars(skip)]
    index: OnceLock<Index>,
    /// The last few arrays interned, with their keys and digests: a new
    /// array that starts like one of them reuses those by comparing values,
    /// instead of serialising and hashing the whole history again (that
    /// made interning every call's history cost more than the call).
    #[serde(skip)]
    #[schemars(skip)]
    recent: std::collections::VecDeque<Recent>,
    /// Every stored list by the digest of its whole array (see `prefixes`).
    #[serde(skip)]
    #[schemars(skip)]
    wholes: HashMap<[u8; 32], String>,
    /// Shared messages already stored, by allocation ([`Msg::addr`]): their
    /// key and digest, so interning a history the store has seen costs a
    /// lookup per message instead of serialising and hashing it again. Each
    /// entry holds its message, so an address is never reused while it is
    /// here; entries nobody else holds are dropped as the map grows.
    #[serde(skip)]
    #[schemars(skip)]
    by_ptr: HashMap<usize, (Msg, Arc<str>, [u8; 32])>,
    #[serde(skip)]
    #[schemars(skip)]
    by_ptr_swept: usize,
}

/// How many recent arrays [`MessageStore::intern_list`] compares against
/// (a turn interns assemble's, afterTurn's and commitTurn's arrays, the
/// params and the result of each).
const RECENT: usize = 6;

#[derive(Clone, Debug, Default)]
struct Recent {
    /// The array's shared messages (`None` where it held JSON): a new array
    /// starting with the same allocations reuses keys and digests without a
    /// lookup per message.
    msgs: Vec<Option<Msg>>,
    keys: Vec<Arc<str>>,
    /// `chains[i]`: the digest of the first `i + 1` messages.
    chains: Vec<[u8; 32]>,
}

/// A message to intern: shared (found by allocation) or JSON.
enum Elem<'a> {
    Shared(&'a Msg),
    Json(&'a Value),
}

/// One message of a resolved array: shared when it came from the store.
pub type Parsed = Option<Arc<AgentMessage>>;

/// No list / an unknown message key.
const NONE: u32 = u32::MAX;

/// The store read side as dense integer ids, built once per store.
///
/// A session's list k is list k−1 plus a turn, so resolving it walks a base
/// chain as long as the session. With string keys every hop was a
/// `BTreeMap<String, _>` lookup and every message two more string-keyed
/// lookups (`messages`, the parsed table): the checks' resolving grew 7.5–8.5×
/// per doubling of the session (`checks_long`), a string compare and a cache
/// miss per message per call. Here a hop is a vector index and a message is
/// a `u32`, so resolving a list costs its length plus its chain's length.
#[derive(Clone, Debug, Default)]
struct Index {
    lists: HashMap<String, u32>,
    nodes: Vec<Node>,
    /// Message id → its JSON (a copy: the store's map is public and keyed
    /// by string) and its parse (`None`: not an `AgentMessage`), shared by
    /// every list that holds it. Parsing per call made the checks quadratic
    /// in time and memory (a 160-turn session: 620 MB, ~10 s per clause).
    values: Vec<Value>,
    parsed: Vec<Parsed>,
}

#[derive(Clone, Debug)]
struct Node {
    base: u32,
    base_len: usize,
    /// Message ids, [`NONE`] for a key the store does not hold.
    items: Vec<u32>,
}

impl Index {
    fn build(messages: &BTreeMap<String, Value>, lists: &BTreeMap<String, ListNode>) -> Index {
        let msg_ids: HashMap<&str, u32> = messages.keys().enumerate().map(|(i, k)| (k.as_str(), i as u32)).collect();
        let list_ids: HashMap<String, u32> = lists.keys().enumerate().map(|(i, k)| (k.clone(), i as u32)).collect();
        let nodes = lists
            .values()
            .map(|n| Node {
                base: n.base.as_deref().and_then(|b| list_ids.get(b)).copied().unwrap_or(NONE),
                base_len: n.base_len,
                items: n.items.iter().map(|k| msg_ids.get(k.as_str()).copied().unwrap_or(NONE)).collect(),
            })
            .collect();
        Index {
            lists: list_ids,
            nodes,
            values: messages.values().cloned().collect(),
            parsed: messages.values().map(|v| AgentMessage::deserialize(v).ok().map(Arc::new)).collect(),
        }
    }

    /// A list's message ids that the store holds, in order (iterative:
    /// chains can be as long as the session; a hand-edited trace whose
    /// chain loops stops after visiting every list once).
    fn ids(&self, list: &str) -> Vec<u32> {
        let Some(&start) = self.lists.get(list) else { return Vec::new() };
        let mut segments: Vec<&[u32]> = Vec::new();
        let (mut cur, mut take) = (start, usize::MAX);
        for _ in 0..=self.nodes.len() {
            let Some(node) = self.nodes.get(cur as usize) else { break };
            if take <= node.base_len {
                cur = node.base;
                continue;
            }
            let own = (take - node.base_len).min(node.items.len());
            segments.push(&node.items[..own]);
            if node.base_len == 0 {
                break;
            }
            (cur, take) = (node.base, node.base_len);
        }
        let mut out = Vec::with_capacity(segments.iter().map(|s| s.len()).sum());
        for s in segments.iter().rev() {
            out.extend(s.iter().copied().filter(|&i| i != NONE));
        }
        out
    }
}

/// Equal when they store the same messages and lists; the prefix index is a
/// cache (empty after deserialising) and does not count.
impl PartialEq for MessageStore {
    fn eq(&self, other: &Self) -> bool {
        self.messages == other.messages && self.lists == other.lists
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn key(prefix: char, d: &[u8; 32]) -> String {
    let hex: String = d[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{hex}")
}

/// The digest of a prefix extended by one message.
fn chain(prev: &[u8; 32], msg: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(prev);
    h.update(msg);
    h.finalize().into()
}

impl MessageStore {
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty() && self.lists.is_empty()
    }

    /// Store one message, returning its key. Same JSON, same key; a (64-bit
    /// prefix) digest collision between different messages gets a longer key.
    fn intern_message(&mut self, m: &Value) -> (Arc<str>, [u8; 32]) {
        let bytes = serde_json::to_vec(m).expect("json serialises");
        self.intern_message_bytes(m, &bytes)
    }

    /// [`Self::intern_message`] of a message whose JSON bytes are known.
    fn intern_message_bytes(&mut self, m: &Value, bytes: &[u8]) -> (Arc<str>, [u8; 32]) {
        let d = digest(bytes);
        let mut k = key('m', &d);
        match self.messages.get(&k) {
            Some(existing) if existing != m => {
                k = format!("m-{}", d.iter().map(|b| format!("{b:02x}")).collect::<String>());
                if !self.messages.contains_key(&k) {
                    self.messages.insert(k.clone(), m.clone());
                }
                self.index = OnceLock::new();
            }
            Some(_) => {}
            None => {
                self.messages.insert(k.clone(), m.clone());
                self.index = OnceLock::new();
            }
        }
        (k.into(), d)
    }

    /// The key and digest of a shared message as the trace records it (the
    /// run's state dir written `$STATE`): by allocation when stored before,
    /// else stored now.
    fn msg_key(&mut self, m: &Msg, state: &str) -> (Arc<str>, [u8; 32]) {
        if let Some((_, k, d)) = self.by_ptr.get(&m.addr()) {
            return (k.clone(), *d);
        }
        let json = m.json().get();
        let (k, d) = if !state.is_empty() && json.contains(state) {
            let mut v: Value = serde_json::from_str(json).expect("a message's JSON parses");
            crate::runtime::normalise(&mut v, state);
            self.intern_message(&v)
        } else {
            let v: Value = serde_json::from_str(json).expect("a message's JSON parses");
            self.intern_message_bytes(&v, json.as_bytes())
        };
        if self.by_ptr.len() >= 2 * self.by_ptr_swept.max(1024) {
            // Drop what only this map still holds (a copy the runtime made
            // and let go); what is left bounds the next sweep.
            self.by_ptr.retain(|_, (m, _, _)| m.holders() > 1);
            self.by_ptr_swept = self.by_ptr.len();
        }
        self.by_ptr.insert(m.addr(), (m.clone(), k.clone(), d));
        (k, d)
    }

    fn rebuild_prefixes(&mut self) {
        if !self.prefixes.is_empty() || self.lists.is_empty() {
            return;
        }
        let ids: Vec<String> = self.lists.keys().cloned().collect();
        for id in ids {
            let digests: Vec<[u8; 32]> = self
                .list_items(&id, usize::MAX)
                .into_iter()
                .filter_map(|k| self.messages.get(k))
                .map(|m| digest(&serde_json::to_vec(m).expect("json")))
                .collect();
            let mut h = [0u8; 32];
            for (i, d) in digests.iter().enumerate() {
                h = chain(&h, d);
                self.prefixes.entry(h).or_insert((id.clone(), i + 1));
            }
            self.wholes.entry(h).or_insert(id);
        }
    }

    /// The longest prefix of `arr` equal to the start of a recent array:
    /// (index into `recent`, length).
    /// The longest wins; among equals the most recent. Only the first
    /// candidate is compared value by value from the start: equal keys mean
    /// equal messages, so another candidate is compared by key up to the
    /// best length so far, and by value only beyond it.
    fn recent_prefix(&self, arr: &[Value]) -> Option<(usize, usize)> {
        let same = |k: &Arc<str>, v: &Value| self.messages.get(&**k).is_some_and(|m| super::json_eq::json_eq(m, v));
        let mut best: Option<(usize, usize)> = None;
        for (r, rec) in self.recent.iter().enumerate().rev() {
            let n = match best {
                None => rec.keys.iter().zip(arr).take_while(|(k, v)| same(k, v)).count(),
                Some((b, bn)) => {
                    if rec.keys.len() <= bn || rec.keys[..bn] != self.recent[b].keys[..bn] {
                        continue;
                    }
                    bn + rec.keys[bn..].iter().zip(&arr[bn.min(arr.len())..]).take_while(|(k, v)| same(k, v)).count()
                }
            };
            if n > 0 && best.is_none_or(|(_, bn)| n > bn) {
                best = Some((r, n));
            }
        }
        best
    }

    /// Remember an interned array's keys and prefix digests as the most
    /// recent, moved rather than copied (two copies of a whole history's
    /// keys per interned array before: every `assemble` interns its params
    /// and its result).
    fn remember(&mut self, msgs: Vec<Option<Msg>>, keys: Vec<Arc<str>>, chains: Vec<[u8; 32]>) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(Recent { msgs, keys, chains });
    }

    /// Store a message array, returning its list key.
    pub fn intern_list(&mut self, arr: Vec<Value>) -> String {
        self.intern_slice(&arr)
    }

    /// [`Self::intern_list`] from borrowed messages: only those not already
    /// stored are copied.
    pub fn intern_slice(&mut self, arr: &[Value]) -> String {
        self.rebuild_prefixes();
        let mut keys = Vec::with_capacity(arr.len());
        let mut hashes = Vec::with_capacity(arr.len());
        let mut h = [0u8; 32];
        let reused = match self.recent_prefix(arr) {
            Some((r, n)) => {
                let rec = &self.recent[r];
                keys.extend_from_slice(&rec.keys[..n]);
                hashes.extend_from_slice(&rec.chains[..n]);
                h = rec.chains[n - 1];
                n
            }
            None => 0,
        };
        for m in &arr[reused..] {
            let (k, d) = self.intern_message(m);
            h = chain(&h, &d);
            keys.push(k);
            hashes.push(h);
        }
        self.store_list(vec![None; keys.len()], keys, hashes)
    }

    /// Store a shared message array (the run's state dir written `$STATE`),
    /// returning its list key: each message found by allocation when the
    /// store has it, the longest recent array sharing its start reused by
    /// key, so a history the store has seen costs a lookup per message.
    pub fn intern_msgs(&mut self, ms: &[Msg], state: &str) -> String {
        let elems: Vec<Elem<'_>> = ms.iter().map(Elem::Shared).collect();
        self.intern_elems(&elems, state)
    }

    /// Store a result's messages: the request's own by allocation, those
    /// the engine wrote as JSON (normalised like params).
    pub fn intern_items(&mut self, items: &[crate::driver::delta::ResultMessage], state: &str) -> String {
        use crate::driver::delta::ResultMessage;
        let elems: Vec<Elem<'_>> = items
            .iter()
            .map(|i| match i {
                ResultMessage::Sent(m) => Elem::Shared(m),
                ResultMessage::Raw(v) => Elem::Json(v),
            })
            .collect();
        self.intern_elems(&elems, state)
    }

    fn intern_elems(&mut self, elems: &[Elem<'_>], state: &str) -> String {
        self.rebuild_prefixes();
        // The most recent array starting with the longest run of the same
        // allocations: its keys and digests are these messages'.
        let mut best: Option<(usize, usize)> = None;
        for (r, rec) in self.recent.iter().enumerate().rev() {
            let n = rec.msgs.iter().zip(elems).take_while(|(a, b)| matches!((a, b), (Some(a), Elem::Shared(b)) if Msg::ptr_eq(a, b))).count();
            if n > 0 && best.is_none_or(|(_, bn)| n > bn) {
                best = Some((r, n));
            }
        }
        let (mut msgs, mut keys, mut hashes) = (Vec::with_capacity(elems.len()), Vec::with_capacity(elems.len()), Vec::with_capacity(elems.len()));
        let mut h = [0u8; 32];
        if let Some((r, n)) = best {
            let rec = &self.recent[r];
            msgs.extend_from_slice(&rec.msgs[..n]);
            keys.extend_from_slice(&rec.keys[..n]);
            hashes.extend_from_slice(&rec.chains[..n]);
            h = rec.chains[n - 1];
        }
        for e in &elems[msgs.len()..] {
            let (k, d) = match e {
                Elem::Shared(m) => self.msg_key(m, state),
                Elem::Json(v) if !state.is_empty() && crate::runtime::mentions(v, state) => {
                    let mut v = (*v).clone();
                    crate::runtime::normalise(&mut v, state);
                    self.intern_message(&v)
                }
                Elem::Json(v) => self.intern_message(v),
            };
            msgs.push(match e {
                Elem::Shared(m) => Some((*m).clone()),
                Elem::Json(_) => None,
            });
            h = chain(&h, &d);
            keys.push(k);
            hashes.push(h);
        }
        self.store_list(msgs, keys, hashes)
    }

    /// Store an array given by its message keys and prefix digests: an
    /// equal stored list is returned as is; else a new list sharing the
    /// longest stored prefix.
    fn store_list(&mut self, msgs: Vec<Option<Msg>>, keys: Vec<Arc<str>>, hashes: Vec<[u8; 32]>) -> String {
        let h = hashes.last().copied().unwrap_or([0u8; 32]);
        if let Some(id) = self.wholes.get(&h).filter(|id| self.lists.get(*id).is_some_and(|n| n.base_len + n.items.len() == keys.len())).cloned() {
            self.remember(msgs, keys, hashes);
            return id;
        }
        let whole = key('l', &h);
        // Longest already-stored prefix.
        let shared = (0..keys.len()).rev().find_map(|i| self.prefixes.get(&hashes[i]).map(|(id, len)| (id.clone(), *len)));
        let (base, base_len) = match shared {
            Some((id, len)) => (Some(id), len),
            None => (None, 0),
        };
        let mut id = whole;
        if self.lists.contains_key(&id) {
            // Digest-prefix collision with a different array: use the full digest.
            id = format!("l-{}", h.iter().map(|b| format!("{b:02x}")).collect::<String>());
        }
        let node = ListNode { base, base_len, items: keys[base_len..].iter().map(|k| k.to_string()).collect() };
        self.lists.insert(id.clone(), node);
        self.index = OnceLock::new();
        for (i, hh) in hashes.iter().enumerate().skip(base_len) {
            self.prefixes.entry(*hh).or_insert((id.clone(), i + 1));
        }
        self.prefixes.entry(h).or_insert((id.clone(), keys.len()));
        self.wholes.entry(h).or_insert(id.clone());
        self.remember(msgs, keys, hashes);
        id
    }

    /// The first `take` message keys of a list (iterative: chains can be as
    /// long as the session). The write side's walk; reads go through [`Index`].
    fn list_items(&self, id: &str, take: usize) -> Vec<&str> {
        let mut segments: Vec<&[String]> = Vec::new();
        let mut cur = Some((id, take));
        // A hand-edited chain may loop: visit at most every list once.
        for _ in 0..=self.lists.len() {
            let Some((id, take)) = cur else { break };
            let Some(node) = self.lists.get(id) else { break };
            if take <= node.base_len {
                cur = node.base.as_deref().map(|b| (b, take));
                continue;
            }
            let own = (take - node.base_len).min(node.items.len());
            segments.push(&node.items[..own]);
            cur = node.base.as_deref().filter(|_| node.base_len > 0).map(|b| (b, node.base_len));
        }
        segments.iter().rev().flat_map(|s| s.iter().map(String::as_str)).collect()
    }

    /// A list's messages (unknown keys resolve to nothing: a hand-edited trace
    /// loses those messages rather than aborting the checks).
    pub fn list(&self, id: &str) -> Vec<Value> {
        let ix = self.index();
        ix.ids(id).into_iter().map(|i| ix.values[i as usize].clone()).collect()
    }

    /// A list's messages resolved by walking string keys, as before the
    /// [`Index`] (tests: the index must read exactly this).
    #[cfg(test)]
    pub(crate) fn list_by_keys(&self, id: &str) -> Vec<&Value> {
        self.list_items(id, usize::MAX).into_iter().filter_map(|k| self.messages.get(k)).collect()
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(&self.messages, &self.lists))
    }

    /// The `messages` array of an object as borrowed JSON values (None when it
    /// has none or it is not an array); no copy of the messages is made.
    pub fn messages_ref<'a>(&'a self, v: &'a Value) -> Option<Vec<&'a Value>> {
        let m = v.get("messages")?;
        match m.get(LIST_REF).and_then(Value::as_str) {
            Some(id) => {
                let ix = self.index();
                Some(ix.ids(id).into_iter().map(|i| &ix.values[i as usize]).collect())
            }
            None => m.as_array().map(|a| a.iter().collect()),
        }
    }

    /// The `messages` array of an object, each message parsed (`None` for one
    /// that is not an `AgentMessage`). Stored messages are parsed once per
    /// store and shared; a literal array is parsed here.
    pub fn parsed_of(&self, v: &Value) -> Option<Vec<Parsed>> {
        let m = v.get("messages")?;
        match m.get(LIST_REF).and_then(Value::as_str) {
            Some(id) => {
                let ix = self.index();
                Some(ix.ids(id).into_iter().map(|i| ix.parsed[i as usize].clone()).collect())
            }
            None => m.as_array().map(|a| a.iter().map(|x| AgentMessage::deserialize(x).ok().map(Arc::new)).collect()),
        }
    }

    /// Replace the `messages` array of an object (params, a result) by a reference.
    /// An engine's own `messages` object that looks like a reference is kept
    /// as `{"$literal": …}`, so an engine cannot forge a reference.
    pub fn intern_field(&mut self, v: &mut Value) {
        let Some(obj) = v.as_object_mut() else { return };
        match obj.get_mut("messages") {
            Some(Value::Array(arr)) => {
                let id = self.intern_slice(arr);
                obj.insert("messages".into(), one(LIST_REF, Value::String(id)));
            }
            Some(m @ Value::Object(_)) if m.as_object().is_some_and(|o| o.keys().any(|k| k.starts_with('$'))) => {
                let literal = m.take();
                *m = one(LITERAL, literal);
            }
            _ => {}
        }
    }

    /// What [`Self::intern_field`] makes of a copy of `v`, without copying
    /// its `messages` first (a result carrying the whole history is recorded
    /// for every call).
    pub fn interned(&mut self, v: &Value) -> Value {
        match v {
            Value::Object(obj) if obj.get("messages").is_some_and(Value::is_array) => {
                let mut out = serde_json::Map::with_capacity(obj.len());
                for (k, x) in obj {
                    match (k.as_str(), x) {
                        ("messages", Value::Array(arr)) => {
                            let id = self.intern_slice(arr);
                            out.insert(k.clone(), one(LIST_REF, Value::String(id)));
                        }
                        _ => {
                            out.insert(k.clone(), x.clone());
                        }
                    }
                }
                Value::Object(out)
            }
            _ => {
                let mut owned = v.clone();
                self.intern_field(&mut owned);
                owned
            }
        }
    }

    /// Replace the host's per-message arrays of params (RFC #82137
    /// `inputProvenance`, `internalEvents`: one entry per message of the
    /// history, so a session's trace would grow with its square) by
    /// references, when longer than [`ALIGNED_INLINE`] (a short scenario's
    /// trace keeps them readable inline).
    pub fn intern_aligned(&mut self, params: &mut Value) {
        for key in ALIGNED_FIELDS {
            if let Some(arr @ Value::Array(_)) = params.get_mut(key) {
                if arr.as_array().is_some_and(|a| a.len() > ALIGNED_INLINE) {
                    let id = self.intern_slice(arr.as_array().expect("an array"));
                    *arr = one(LIST_REF, Value::String(id));
                }
            }
        }
    }

    /// `v` with its `messages` reference (and those of the fields
    /// [`Self::intern_aligned`] stores) expanded (borrowed when there is none).
    pub fn resolve<'a>(&self, v: &'a Value) -> Cow<'a, Value> {
        let mut owned: Option<Value> = None;
        for key in std::iter::once("messages").chain(ALIGNED_FIELDS) {
            let Some(m) = v.get(key) else { continue };
            let resolved = if let Some(id) = m.get(LIST_REF).and_then(Value::as_str) {
                Value::Array(self.list(id))
            } else if let Some(lit) = m.get(LITERAL).filter(|_| key == "messages") {
                lit.clone()
            } else {
                continue;
            };
            owned.get_or_insert_with(|| v.clone())[key] = resolved;
        }
        owned.map_or(Cow::Borrowed(v), Cow::Owned)
    }

    /// The `messages` array of an object, resolved (None when it has none or
    /// it is not an array).
    pub fn messages_of(&self, v: &Value) -> Option<Vec<Value>> {
        let m = v.get("messages")?;
        match m.get(LIST_REF).and_then(Value::as_str) {
            Some(id) => Some(self.list(id)),
            None => m.as_array().cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(n: usize) -> Vec<Value> {
        (0..n).map(|i| json!({"role": "user", "content": format!("message {i}")})).collect()
    }

    /// RFC #82137's arrays aligned with a long history go by reference and
    /// read back as they were; a short one stays inline.
    #[test]
    fn aligned_arrays_of_a_long_history_are_stored_once() {
        let mut s = MessageStore::default();
        let long: Vec<Value> = (0..100).map(|i| if i % 10 == 0 { json!({"kind": "inter_session"}) } else { Value::Null }).collect();
        let params = json!({"messages": [], "inputProvenance": long, "internalEvents": [null, null], "other": vec![Value::Null; 100]});
        let mut stored = params.clone();
        s.intern_aligned(&mut stored);
        assert!(stored["inputProvenance"].get(LIST_REF).is_some());
        assert_eq!(stored["internalEvents"], json!([null, null]), "short: inline");
        assert!(stored["other"].is_array(), "only the aligned fields");
        assert_eq!(s.resolve(&stored).into_owned(), params);
        let mut longer = params.clone();
        longer["inputProvenance"].as_array_mut().unwrap().push(Value::Null);
        s.intern_aligned(&mut longer);
        let node = &s.lists[longer["inputProvenance"][LIST_REF].as_str().unwrap()];
        assert_eq!(node.items.len(), 1, "a grown array stores only what it added");
    }

    #[test]
    fn a_growing_history_stores_each_message_once() {
        let mut s = MessageStore::default();
        let mut ids = Vec::new();
        for n in 1..=50 {
            ids.push(s.intern_list(msgs(n)));
        }
        assert_eq!(s.messages.len(), 50);
        let stored: usize = s.lists.values().map(|l| l.items.len()).sum();
        assert_eq!(stored, 50, "each list adds only its new message");
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(s.list(id), msgs(n + 1));
        }
    }

    #[test]
    fn shares_a_prefix_of_a_longer_list_and_dedups_equal_lists() {
        let mut s = MessageStore::default();
        let long = s.intern_list(msgs(10));
        let mut forked = msgs(4);
        forked.push(json!({"role": "assistant", "content": "other"}));
        let f = s.intern_list(forked.clone());
        assert_eq!(s.lists[&f].base.as_deref(), Some(long.as_str()));
        assert_eq!(s.lists[&f].base_len, 4);
        assert_eq!(s.list(&f), forked);
        assert_eq!(s.intern_list(msgs(10)), long);
        assert_eq!(s.intern_list(msgs(3)), s.intern_list(msgs(3)));
        let three = s.intern_list(msgs(3));
        assert_eq!(s.list(&three), msgs(3));
        let empty = s.intern_list(vec![]);
        assert_eq!(s.list(&empty), Vec::<Value>::new());
    }

    #[test]
    fn survives_a_json_round_trip_and_keeps_sharing() {
        let mut s = MessageStore::default();
        s.intern_list(msgs(5));
        let mut back: MessageStore = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s, "the prefix cache does not count");
        let id = back.intern_list(msgs(6));
        assert_eq!(back.lists[&id].items.len(), 1);
        assert_eq!(back.list(&id), msgs(6));
    }

    #[test]
    fn parsed_messages_are_shared_across_lists_and_refreshed_after_an_intern() {
        let mut s = MessageStore::default();
        let mut a = json!({"messages": msgs(3)});
        let mut b = json!({"messages": msgs(4)});
        s.intern_field(&mut a);
        s.intern_field(&mut b);
        let (pa, pb) = (s.parsed_of(&a).unwrap(), s.parsed_of(&b).unwrap());
        assert_eq!(pb.len(), 4);
        for (x, y) in pa.iter().zip(&pb) {
            assert!(Arc::ptr_eq(x.as_ref().unwrap(), y.as_ref().unwrap()), "one parse per distinct message");
        }
        assert_eq!(pb[3].as_deref().map(AgentMessage::text), Some("message 3".to_string()));
        // A message interned after the first read is parsed too.
        let mut c = json!({"messages": [{"role": "user", "content": "later"}, {"role": "nobody"}]});
        s.intern_field(&mut c);
        let pc = s.parsed_of(&c).unwrap();
        assert_eq!(pc[0].as_deref().map(AgentMessage::text), Some("later".to_string()));
        assert!(pc[1].is_none(), "not an AgentMessage");
        assert_eq!(s.messages_ref(&c).unwrap()[1], &json!({"role": "nobody"}));
        // A literal array is parsed in place.
        let lit = json!({"messages": [{"role": "user", "content": "x"}]});
        assert_eq!(s.parsed_of(&lit).unwrap()[0].as_deref().map(AgentMessage::text), Some("x".to_string()));
    }

    #[test]
    fn interned_equals_intern_field_of_a_copy() {
        let (mut a, mut b) = (MessageStore::default(), MessageStore::default());
        for n in [3, 5, 5, 2, 8, 0] {
            let v = json!({"x": 1, "messages": msgs(n), "y": [1]});
            let mut copy = v.clone();
            a.intern_field(&mut copy);
            assert_eq!(b.interned(&v), copy);
        }
        for v in [json!({"messages": {"$messages": "l-1"}}), json!([1]), json!({"z": 2})] {
            let mut copy = v.clone();
            a.intern_field(&mut copy);
            assert_eq!(b.interned(&v), copy);
        }
        assert_eq!(a, b);
    }

    proptest::proptest! {
        /// Reusing the keys of recent arrays changes nothing: the same ids
        /// and the same store as interning each array from scratch.
        #[test]
        fn reusing_recent_prefixes_is_invisible(lists in proptest::collection::vec(proptest::collection::vec(0usize..9, 0..12), 1..30)) {
            let (mut warm, mut cold) = (MessageStore::default(), MessageStore::default());
            for l in lists {
                let arr: Vec<Value> = l.iter().map(|&i| json!({"role": "user", "content": format!("message {i}")})).collect();
                let id = warm.intern_list(arr.clone());
                cold.recent.clear();
                proptest::prop_assert_eq!(&id, &cold.intern_list(arr.clone()));
                proptest::prop_assert_eq!(warm.list(&id), arr);
            }
            proptest::prop_assert_eq!(&warm, &cold);
            proptest::prop_assert_eq!(warm.prefixes, cold.prefixes);
        }
    }

    proptest::proptest! {
        /// The integer index reads every list exactly as walking its string
        /// keys does, also on a hand-edited store: unknown message keys,
        /// unknown bases, base lengths past their base, a chain that loops.
        #[test]
        fn the_index_reads_lists_as_the_keys_do(
            lists in proptest::collection::vec(proptest::collection::vec(0usize..7, 0..10), 1..20),
            edits in proptest::collection::vec((0usize..40, 0usize..4, 0usize..12), 0..4),
        ) {
            let mut s = MessageStore::default();
            for l in &lists {
                s.intern_list(l.iter().map(|&i| json!({"role": "user", "content": format!("m{i}")})).collect());
            }
            let ids: Vec<String> = s.lists.keys().cloned().collect();
            for (which, how, n) in edits {
                let id = ids[which % ids.len()].clone();
                let other = ids[n % ids.len()].clone();
                let node = s.lists.get_mut(&id).unwrap();
                match how {
                    0 => node.items.push("m-unknown".into()),
                    1 => node.base = Some("l-unknown".into()),
                    2 => node.base_len += n,
                    _ => { node.base = Some(other); node.base_len = n.max(1); }
                }
            }
            s.index = OnceLock::new();
            for id in ids.iter().map(String::as_str).chain(["l-unknown"]) {
                let by_keys: Vec<Value> = s.list_by_keys(id).into_iter().cloned().collect();
                proptest::prop_assert_eq!(&s.list(id), &by_keys);
                let field = json!({"messages": {LIST_REF: id}});
                proptest::prop_assert_eq!(s.messages_ref(&field).unwrap().into_iter().cloned().collect::<Vec<_>>(), by_keys.clone());
                let parsed: Vec<Option<String>> = s.parsed_of(&field).unwrap().iter().map(|p| p.as_deref().map(AgentMessage::text)).collect();
                let expect: Vec<Option<String>> = by_keys.iter().map(|v| AgentMessage::deserialize(v).ok().map(|m| m.text())).collect();
                proptest::prop_assert_eq!(parsed, expect);
            }
        }
    }

    #[test]
    fn a_list_interned_after_a_read_is_read_too() {
        let mut s = MessageStore::default();
        let a = s.intern_list(msgs(3));
        assert_eq!(s.list(&a), msgs(3));
        let b = s.intern_list(msgs(4));
        assert_eq!(s.list(&b), msgs(4), "the index is rebuilt after a new message");
        let c = s.intern_list(msgs(2));
        assert_eq!(s.list(&c), msgs(2), "and after a new list of known messages");
    }

    #[test]
    fn intern_field_and_resolve_round_trip() {
        let mut s = MessageStore::default();
        let orig = json!({"sessionId": "s", "messages": msgs(3), "tokenBudget": 9});
        let mut v = orig.clone();
        s.intern_field(&mut v);
        assert!(v["messages"].get(LIST_REF).is_some());
        assert_eq!(s.resolve(&v).into_owned(), orig);
        assert_eq!(s.messages_of(&v).unwrap(), msgs(3));
        let forged = json!({"messages": {"$messages": "l-0000", "x": 1}});
        let mut f = forged.clone();
        s.intern_field(&mut f);
        assert!(s.messages_of(&f).is_none(), "an engine's object is not a reference");
        assert_eq!(s.resolve(&f).into_owned(), forged);
        let plain = json!({"x": 1});
        assert!(matches!(s.resolve(&plain), Cow::Borrowed(_)));
    }
}
