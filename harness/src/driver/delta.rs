//! `messageDelta`: send each message once per engine process instead of
//! once per call (docs/protocol.md, "Message deltas").
//!
//! OpenClaw hands an engine the whole history with every `assemble`,
//! `afterTurn` and `commitTurn`, so the bytes on the pipe grow with the
//! square of the session (2 000 steps: 2.2 GB). When both sides agree in the
//! handshake, a request's top-level `params.messages` may instead be
//!
//! ```json
//! {"$delta": {"base": 41, "keep": 812, "append": [ … ]}}
//! ```
//!
//! meaning: the first `keep` messages of the `messages` array that request
//! `41` carried (after its own decoding), then `append`. Both sides keep, for
//! each method, the decoded `messages` of the latest request of that method
//! that carried an array; `base` only ever names one of those requests, so
//! an engine's memory stays bounded by the number of methods.
//!
//! [`Encoder`] is the host's half (the driver), [`Decoder`] the engine's (the
//! built-in engines' server; the Node adapter and the Python example carry
//! their own ports of it).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use clawspec_contract::{AgentMessage, Msg};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::trace::json_eq::json_eq;

/// The `initialize` field naming the encoding: the host offers it in
/// `offers.messageDelta`, the engine accepts with a top-level `messageDelta`
/// in its result. Both carry [`VERSION`].
pub const CAPABILITY: &str = "messageDelta";
/// The only version so far.
pub const VERSION: u64 = 1;
/// The key of an encoded `messages` value.
pub const KEY: &str = "$delta";

/// How `messages` goes on the wire for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// As is: no remembered array shares a prefix with it (or it has none).
    Full,
    /// The first `keep` messages of request `base`'s array, then the rest.
    Delta { base: u64, keep: usize },
}

/// The host's half: chooses, per request, the remembered array sharing the
/// longest prefix with the new one, and remembers what it sent.
#[derive(Debug, Default)]
pub struct Encoder {
    slots: BTreeMap<String, HostSlot>,
}

/// A `messages` array the host sent, as it holds it: the runtime's shared
/// messages ([`Msg`], compared by pointer before by value), or JSON values
/// from a caller that built its params as JSON.
#[derive(Clone, Copy, Debug)]
pub enum Outgoing<'a> {
    Msgs(&'a [Msg]),
    Values(&'a [Value]),
}

impl Outgoing<'_> {
    fn len(&self) -> usize {
        match self {
            Outgoing::Msgs(m) => m.len(),
            Outgoing::Values(v) => v.len(),
        }
    }
}

/// One remembered message of a request.
#[derive(Clone, Debug)]
enum Sent {
    Msg(Msg),
    Value(Arc<Value>),
}

impl Sent {
    /// Equal to the `i`-th message of `new`: the same allocation, else equal
    /// by value (a message and a JSON value are never taken as equal: that
    /// only costs a longer `append`).
    fn same(&self, new: Outgoing<'_>, i: usize) -> bool {
        match (self, new) {
            (Sent::Msg(a), Outgoing::Msgs(b)) => a == &b[i],
            (Sent::Value(a), Outgoing::Values(b)) => json_eq(a, &b[i]),
            _ => false,
        }
    }

    fn ptr_eq(&self, other: &Sent) -> bool {
        match (self, other) {
            (Sent::Msg(a), Sent::Msg(b)) => Msg::ptr_eq(a, b),
            (Sent::Value(a), Sent::Value(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

#[derive(Clone, Debug)]
struct HostSlot {
    id: u64,
    messages: Vec<Sent>,
}

/// How many leading messages of `slot` equal those of `new`, given that the
/// first `known` messages of `new` equal those of `best` (another slot):
/// where `slot` shares `best`'s message no value is compared.
fn sent_prefix(slot: &[Sent], new: Outgoing<'_>, best: Option<(&[Sent], usize)>) -> usize {
    let (best, known) = best.unwrap_or((&[], 0));
    let n = slot.len().min(new.len());
    (0..n).take_while(|&i| (i < known && best.get(i).is_some_and(|b| b.ptr_eq(&slot[i]))) || slot[i].same(new, i)).count()
}

/// `new` as slot messages. Shared messages are remembered as the runtime
/// holds them now (the next call's history is found by pointer in them);
/// JSON values share the first `keep` with `base` and copy the rest.
fn remember(base: &[Sent], keep: usize, new: Outgoing<'_>) -> Vec<Sent> {
    match new {
        Outgoing::Msgs(m) => m.iter().cloned().map(Sent::Msg).collect(),
        Outgoing::Values(v) => {
            let mut out = Vec::with_capacity(v.len());
            out.extend_from_slice(&base[..keep]);
            out.extend(v[keep..].iter().cloned().map(|v| Sent::Value(Arc::new(v))));
            out
        }
    }
}

impl Encoder {
    /// Plan request `id` of `method` whose params carry `messages`, and
    /// remember the array as that method's latest. Call it only for a
    /// request that will be written (the engine decodes every request it
    /// reads, in order).
    pub fn plan(&mut self, id: u64, method: &str, messages: &[Value]) -> Plan {
        self.plan_outgoing(id, method, Outgoing::Values(messages))
    }

    /// [`Self::plan`] of shared messages: those the remembered arrays hold
    /// are found by pointer, so a call that appends k messages to the
    /// history compares O(k) messages by value, not the whole history.
    pub fn plan_msgs(&mut self, id: u64, method: &str, messages: &[Msg]) -> Plan {
        self.plan_outgoing(id, method, Outgoing::Msgs(messages))
    }

    fn plan_outgoing(&mut self, id: u64, method: &str, messages: Outgoing<'_>) -> Plan {
        // Longest shared prefix; among equals the most recent request (the
        // slots are visited newest first, and a later one must be longer).
        let mut order: Vec<&HostSlot> = self.slots.values().collect();
        order.sort_by(|a, b| b.id.cmp(&a.id));
        let mut best: Option<(&HostSlot, usize)> = None;
        for s in order {
            if best.is_some_and(|(_, n)| s.messages.len() <= n) {
                continue;
            }
            let n = sent_prefix(&s.messages, messages, best.map(|(b, n)| (b.messages.as_slice(), n)));
            if n > 0 && best.is_none_or(|(_, bn)| n > bn) {
                best = Some((s, n));
            }
        }
        let plan = match best {
            Some((s, keep)) => Plan::Delta { base: s.id, keep },
            None => Plan::Full,
        };
        let remembered = match best {
            Some((s, keep)) => remember(&s.messages, keep, messages),
            None => remember(&[], 0, messages),
        };
        match self.slots.get_mut(method) {
            Some(s) => *s = HostSlot { id, messages: remembered },
            None => {
                self.slots.insert(method.to_string(), HostSlot { id, messages: remembered });
            }
        }
        plan
    }
}

/// A message of a result the engine sent as a delta: one of the request's
/// own messages it kept (the host's [`Msg`], by pointer), or one it wrote
/// out (as JSON, exactly as it came).
#[derive(Clone, Debug, PartialEq)]
pub enum ResultMessage {
    Sent(Msg),
    Raw(Value),
}

impl ResultMessage {
    /// The message as JSON (a copy).
    pub fn to_value(&self) -> Value {
        match self {
            ResultMessage::Sent(m) => serde_json::to_value(m).expect("an AgentMessage serialises"),
            ResultMessage::Raw(v) => v.clone(),
        }
    }
}

impl Encoder {
    /// The delta-encoded `messages` of a result answering request `id`, when
    /// it decodes: the kept messages of that request, then the appended.
    /// The result's `messages` is then left `null` (its place kept); anything
    /// else, an undecodable delta included, is left as the engine sent it
    /// (the checks then judge it as the invalid result it is).
    pub fn decode_result_items(&self, id: u64, method: &str, result: &mut Value) -> Option<Vec<ResultMessage>> {
        let slot = self.slots.get(method).filter(|s| s.id == id)?;
        let Some(Value::Object(enc)) = result.get_mut("messages") else { return None };
        let Some(Value::Object(d)) = enc.get(KEY).filter(|_| enc.len() == 1) else { return None };
        let (Some(base), Some(keep), Some(Value::Array(_))) = (d.get("base").and_then(Value::as_u64), d.get("keep").and_then(Value::as_u64), d.get("append")) else { return None };
        let keep = keep as usize;
        if base != id || keep > slot.messages.len() {
            return None;
        }
        let Some(Value::Object(mut d)) = enc.remove(KEY) else { return None };
        let Some(Value::Array(append)) = d.remove("append") else { return None };
        let mut items = Vec::with_capacity(keep + append.len());
        items.extend(slot.messages[..keep].iter().map(|m| match m {
            Sent::Msg(m) => ResultMessage::Sent(m.clone()),
            Sent::Value(v) => ResultMessage::Raw(Value::clone(v)),
        }));
        items.extend(append.into_iter().map(ResultMessage::Raw));
        result["messages"] = Value::Null;
        Some(items)
    }

    /// Rebuild a result's `messages` that the engine sent as a delta on the
    /// request it answers, in place, as a JSON array (see
    /// [`Self::decode_result_items`]).
    pub fn decode_result(&self, id: u64, method: &str, result: &mut Value) {
        if let Some(items) = self.decode_result_items(id, method, result) {
            result["messages"] = Value::Array(items.iter().map(ResultMessage::to_value).collect());
        }
    }
}

/// `params` serialised with `messages` written as `plan` says, without
/// copying the params: what the driver puts on the wire. With `shared`, the
/// params' `messages` is a placeholder and these are its messages, each
/// written from its cached JSON.
pub struct Encoded<'a> {
    pub params: &'a Value,
    pub plan: Plan,
    pub shared: Option<&'a [Msg]>,
}

#[derive(Serialize)]
struct DeltaBody<T: Serialize> {
    base: u64,
    keep: usize,
    append: T,
}

#[derive(Serialize)]
struct DeltaValue<T: Serialize> {
    #[serde(rename = "$delta")]
    delta: DeltaBody<T>,
}

/// Shared messages written from their cached JSON.
struct Raw<'a>(&'a [Msg]);

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for m in self.0 {
            seq.serialize_element(m.json())?;
        }
        seq.end()
    }
}

impl Serialize for Encoded<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some(obj) = self.params.as_object().filter(|_| self.shared.is_some() || matches!(self.plan, Plan::Delta { .. })) else {
            return self.params.serialize(s);
        };
        let mut map = s.serialize_map(Some(obj.len()))?;
        for (k, v) in obj {
            match (k.as_str(), v, self.shared, self.plan) {
                ("messages", _, Some(ms), Plan::Delta { base, keep }) => map.serialize_entry(k, &DeltaValue { delta: DeltaBody { base, keep, append: Raw(&ms[keep.min(ms.len())..]) } })?,
                ("messages", _, Some(ms), Plan::Full) => map.serialize_entry(k, &Raw(ms))?,
                ("messages", Value::Array(a), None, Plan::Delta { base, keep }) => map.serialize_entry(k, &DeltaValue { delta: DeltaBody { base, keep, append: &a[keep.min(a.len())..] } })?,
                _ => map.serialize_entry(k, v)?,
            }
        }
        map.end()
    }
}

/// One message of an array the engine decoded: the value the host sent,
/// shared (`Arc<Item>`) by every remembered array and every request that
/// holds it, with its parse as an [`AgentMessage`] worked out at most once
/// per process. A history that grows by a turn per call is then parsed once
/// in all, not once per call.
#[derive(Debug)]
pub struct Item {
    value: Value,
    /// `Some(None)`: the value is not an `AgentMessage`.
    parsed: OnceLock<Option<Msg>>,
    /// Whether `parsed`, written back as JSON, equals `value`: an engine
    /// answering with the parse then answers the message it was given.
    exact: OnceLock<bool>,
}

impl Item {
    fn new(value: Value) -> Self {
        Item { value, parsed: OnceLock::new(), exact: OnceLock::new() }
    }

    /// The message as the host sent it.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The message parsed, once; `None` when it is not an `AgentMessage`.
    pub fn msg(&self) -> Option<&Msg> {
        self.parsed.get_or_init(|| AgentMessage::deserialize(&self.value).ok().map(Msg::new)).as_ref()
    }

    /// Does `m`, written where this item stands in a result, equal this
    /// item as JSON? For the item's own parse (the same allocation) the
    /// answer is worked out once; any other message is compared by value,
    /// as [`Decoder::encode_result`] compares.
    fn equals_msg(&self, m: &Msg) -> bool {
        match self.parsed.get() {
            Some(Some(own)) if Msg::ptr_eq(own, m) => *self.exact.get_or_init(|| json_eq(&self.value, &msg_value(m))),
            _ => json_eq(&self.value, &msg_value(m)),
        }
    }
}

/// A message as the JSON value serde writes for it (what an engine that
/// builds its answer with `json!` puts in it).
fn msg_value(m: &Msg) -> Value {
    serde_json::to_value(&**m).expect("an AgentMessage serialises")
}

/// A request's decoded `messages`, shared with the decoder's slot: cloning
/// it copies a pointer, and its items are the slot's items.
#[derive(Clone, Debug)]
pub struct Messages(Arc<Vec<Arc<Item>>>);

impl Messages {
    pub fn items(&self) -> &[Arc<Item>] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The array as the host sent it (a copy of every message).
    pub fn to_value(&self) -> Value {
        Value::Array(self.0.iter().map(|i| i.value.clone()).collect())
    }

    /// Put the array back at `params.messages` (where
    /// [`Decoder::decode_shared`] left `null`): the params as the host sent
    /// them, decoded.
    pub fn put_into(&self, params: &mut Value) {
        if let Some(obj) = params.as_object_mut() {
            obj.insert("messages".into(), self.to_value());
        }
    }

    /// The messages of `range` parsed (each once per process, shared), or
    /// `None` when one of them is not an `AgentMessage`.
    pub fn msgs(&self, range: impl std::slice::SliceIndex<[Arc<Item>], Output = [Arc<Item>]>) -> Option<Vec<Msg>> {
        self.0[range].iter().map(|i| i.msg().cloned()).collect()
    }
}

/// A message of a result whose `messages` the server writes (see
/// [`Decoder::result_keep`]): one the host sent, passed through as sent, or
/// one the engine built or parsed, written as serde writes it.
#[derive(Clone, Debug)]
pub enum Out {
    Sent(Arc<Item>),
    Msg(Msg),
}

impl Serialize for Out {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Out::Sent(item) => item.value.serialize(s),
            // Exactly what serialising the message (or its JSON value) writes.
            Out::Msg(m) => m.json().serialize(s),
        }
    }
}

/// One remembered array on the engine's side.
#[derive(Debug)]
struct Remembered {
    id: Value,
    messages: Messages,
}

/// The engine's half: rebuilds full arrays and remembers them per method.
/// Ids are kept as the JSON values the host sent. The remembered arrays
/// share their messages ([`Item`]), and so do the arrays handed to the
/// engine ([`Messages`]).
#[derive(Debug, Default)]
pub struct Decoder {
    slots: BTreeMap<String, Remembered>,
}

impl Decoder {
    /// Replace an encoded `params.messages` by the full array, and remember
    /// the array for later requests. An error is the host's protocol
    /// violation (answer it `-32602`).
    pub fn decode(&mut self, id: &Value, method: &str, params: &mut Value) -> Result<(), String> {
        if let Some(messages) = self.decode_shared(id, method, params)? {
            messages.put_into(params);
        }
        Ok(())
    }

    /// [`Self::decode`] without building the array: `params.messages` (an
    /// array, or an encoding of one) is taken out, `null` left at its place,
    /// and the decoded array returned shared with the slot that remembers
    /// it. A delta's kept messages are its base's items (no copy, no
    /// comparison); appended messages are moved in. `None`: the params carry
    /// no `messages` array, and nothing was remembered.
    pub fn decode_shared(&mut self, id: &Value, method: &str, params: &mut Value) -> Result<Option<Messages>, String> {
        let Some(obj) = params.as_object_mut() else { return Ok(None) };
        let items = match obj.get_mut("messages") {
            Some(Value::Object(enc)) if enc.len() == 1 && enc.contains_key(KEY) => self.rebuild(method, enc)?,
            Some(Value::Array(a)) => std::mem::take(a).into_iter().map(|v| Arc::new(Item::new(v))).collect(),
            _ => return Ok(None),
        };
        // An existing key keeps its place (preserve_order): materialising
        // the array later gives the params exactly as sent.
        obj.insert("messages".into(), Value::Null);
        let messages = Messages(Arc::new(items));
        let remembered = Remembered { id: id.clone(), messages: messages.clone() };
        match self.slots.get_mut(method) {
            Some(s) => *s = remembered,
            None => {
                self.slots.insert(method.to_string(), remembered);
            }
        }
        Ok(Some(messages))
    }

    /// Encode a result's `messages` as a delta on the request `id` being
    /// answered, when they start with that request's messages (an engine
    /// that passes the history through, as most do, then answers in a few
    /// bytes).
    pub fn encode_result(&self, id: &Value, method: &str, result: &mut Value) {
        let Some(slot) = self.slots.get(method).filter(|s| s.id == *id) else { return };
        let Some(Value::Array(out)) = result.get_mut("messages") else { return };
        let keep = slot.messages.items().iter().zip(out.iter()).take_while(|(s, v)| json_eq(&s.value, v)).count();
        if keep == 0 {
            return;
        }
        let append = out.split_off(keep);
        result["messages"] = serde_json::json!({KEY: {"base": id, "keep": keep, "append": append}});
    }

    /// [`Self::encode_result`] of a result whose `messages` are `out`: how
    /// many of them to send as kept (0: send them all). The same count
    /// `encode_result` finds on the same messages as JSON values, but a
    /// message passed through (the slot's own item, or its own parse) is
    /// matched by pointer, so a pass-through costs a pointer per message.
    pub fn result_keep(&self, id: &Value, method: &str, out: &[Out]) -> usize {
        let Some(slot) = self.slots.get(method).filter(|s| s.id == *id) else { return 0 };
        slot.messages
            .items()
            .iter()
            .zip(out)
            .take_while(|(s, o)| match o {
                Out::Sent(item) => Arc::ptr_eq(s, item) || json_eq(&s.value, &item.value),
                Out::Msg(m) => s.equals_msg(m),
            })
            .count()
    }

    /// [`Self::result_keep`] of a result whose `messages` are `messages`
    /// as sent: all of them, when they are the very array request `id`
    /// carried (`None` otherwise: match them one by one). A pass-through
    /// then costs nothing per message.
    pub fn result_keeps_all(&self, id: &Value, method: &str, messages: &Messages) -> Option<usize> {
        let slot = self.slots.get(method).filter(|s| s.id == *id)?;
        Arc::ptr_eq(&slot.messages.0, &messages.0).then(|| messages.len())
    }

    fn rebuild(&mut self, method: &str, enc: &mut Map<String, Value>) -> Result<Vec<Arc<Item>>, String> {
        let Some(Value::Object(d)) = enc.get_mut(KEY) else { return Err(format!("{KEY} must be an object")) };
        let base = d.get("base").cloned().unwrap_or(Value::Null);
        let keep = d.get("keep").and_then(Value::as_u64).ok_or_else(|| format!("{KEY}.keep must be a non-negative integer"))? as usize;
        let Some(Value::Array(append)) = d.get_mut("append").map(Value::take) else { return Err(format!("{KEY}.append must be an array")) };
        let slot = self.slots.values().find(|s| s.id == base).ok_or_else(|| format!("{KEY}.base {base} is not the latest request of its method that carried messages"))?;
        if keep > slot.messages.len() {
            return Err(format!("{KEY}.keep {keep} exceeds the {} messages of request {base}", slot.messages.len()));
        }
        // A request based on its own method's last array (each `assemble`
        // extends the previous one's history), which nothing holds any more
        // (the engine dropped it when that call ended): the array is grown
        // in place, so a delta appending k messages costs k, not a pointer
        // per message of the history. The slot is replaced by the result.
        if let Some(items) = self.slots.get_mut(method).filter(|s| s.id == base).and_then(|s| Arc::get_mut(&mut s.messages.0)) {
            let mut full = std::mem::take(items);
            full.truncate(keep);
            full.extend(append.into_iter().map(|v| Arc::new(Item::new(v))));
            return Ok(full);
        }
        let slot = self.slots.values().find(|s| s.id == base).expect("found above");
        let mut full = Vec::with_capacity(keep + append.len());
        full.extend_from_slice(&slot.messages.items()[..keep]);
        full.extend(append.into_iter().map(|v| Arc::new(Item::new(v))));
        Ok(full)
    }
}

/// Did the engine accept the encoding in its `initialize` result?
pub fn accepted(result_extra: &Map<String, Value>) -> bool {
    result_extra.get(CAPABILITY).and_then(Value::as_u64) == Some(VERSION)
}

/// Did the host offer it in `initialize` params?
pub fn offered(params: &Value) -> bool {
    params.get("offers").and_then(|o| o.get(CAPABILITY)).and_then(Value::as_u64) == Some(VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn msg(n: u32) -> Value {
        json!({"role": if n % 2 == 0 { "user" } else { "assistant" }, "content": format!("message {n}"), "timestamp": n})
    }

    /// What one call sends: a method and its `messages` (None: no array).
    fn calls() -> impl Strategy<Value = Vec<(usize, Option<Vec<u32>>)>> {
        // Lists built from a small alphabet so prefixes are often shared,
        // sometimes forked, sometimes empty or absent.
        let list = proptest::option::weighted(0.85, proptest::collection::vec(0u32..12, 0..14));
        proptest::collection::vec((0usize..4, list), 1..40)
    }

    const METHODS: [&str; 4] = ["assemble", "afterTurn", "commitTurn", "ingestBatch"];

    proptest! {
        /// Whatever the sequence of calls, the engine decodes exactly the
        /// params the host meant to send, through real serialisation.
        #[test]
        fn decoded_params_equal_full_params(seq in calls()) {
            let (mut enc, mut dec) = (Encoder::default(), Decoder::default());
            let mut history: Vec<u32> = Vec::new();
            for (i, (m, list)) in seq.into_iter().enumerate() {
                let id = i as u64 + 1;
                let method = METHODS[m];
                let mut params = json!({"sessionId": "s", "tokenBudget": 9});
                if let Some(list) = list {
                    // Grow a shared history now and then, as a session does.
                    history.extend(list.iter().take(2));
                    let ms: Vec<Value> = if m % 2 == 0 { history.iter().chain(&list).map(|&n| msg(n)).collect() } else { list.iter().map(|&n| msg(n)).collect() };
                    params["messages"] = Value::Array(ms);
                }
                let plan = match params.get("messages").and_then(Value::as_array) {
                    Some(a) => enc.plan(id, method, a),
                    None => Plan::Full,
                };
                let wire = serde_json::to_string(&Encoded { params: &params, plan, shared: None }).unwrap();
                let mut got: Value = serde_json::from_str(&wire).unwrap();
                if let Plan::Delta { keep, .. } = plan {
                    prop_assert!(keep > 0);
                    prop_assert!(got["messages"].get(KEY).is_some(), "{wire}");
                }
                dec.decode(&json!(id), method, &mut got).unwrap();
                prop_assert_eq!(&got, &params);
                prop_assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&params).unwrap(), "key order is kept");
                // The engine answers with a prefix of what it got plus its own.
                if let Some(ms) = params.get("messages").and_then(Value::as_array) {
                    let cut = (id as usize * 7) % (ms.len() + 1);
                    let mut out: Vec<Value> = ms[..cut].to_vec();
                    out.push(msg(99));
                    let full = json!({"messages": out, "estimatedTokens": 3});
                    let mut answer = full.clone();
                    dec.encode_result(&json!(id), method, &mut answer);
                    let mut back: Value = serde_json::from_str(&serde_json::to_string(&answer).unwrap()).unwrap();
                    enc.decode_result(id, method, &mut back);
                    prop_assert_eq!(back, full);
                }
            }
        }
    }

    #[test]
    fn a_growing_history_sends_only_the_new_messages() {
        let (mut enc, mut dec) = (Encoder::default(), Decoder::default());
        let mut wire_bytes = 0;
        for n in 1..=200u32 {
            let params = json!({"messages": (0..n).map(msg).collect::<Vec<_>>()});
            let plan = enc.plan(n as u64, "assemble", params["messages"].as_array().unwrap());
            let wire = serde_json::to_string(&Encoded { params: &params, plan, shared: None }).unwrap();
            wire_bytes += wire.len();
            let mut got: Value = serde_json::from_str(&wire).unwrap();
            dec.decode(&json!(n), "assemble", &mut got).unwrap();
            assert_eq!(got, params);
        }
        let full: usize = (1..=200u32).map(|n| serde_json::to_string(&json!({"messages": (0..n).map(msg).collect::<Vec<_>>()})).unwrap().len()).sum();
        assert!(wire_bytes * 50 < full, "linear, not quadratic: {wire_bytes} vs {full}");
    }

    /// Both halves remember a message once however many methods' arrays
    /// hold it: a new array is compared by pointer with what the slots share
    /// and by value only past it, so a call appending k messages compares
    /// O(k) values, not the whole history.
    #[test]
    fn slots_share_the_messages_they_have_in_common() {
        let (mut enc, mut dec) = (Encoder::default(), Decoder::default());
        let history = |n: u32| (0..n).map(msg).collect::<Vec<_>>();
        for (id, method, n) in [(1u64, "assemble", 3u32), (2, "afterTurn", 4), (3, "assemble", 5), (4, "afterTurn", 6)] {
            let params = json!({"messages": history(n)});
            let plan = enc.plan(id, method, params["messages"].as_array().unwrap());
            let mut got: Value = serde_json::from_str(&serde_json::to_string(&Encoded { params: &params, plan, shared: None }).unwrap()).unwrap();
            dec.decode(&json!(id), method, &mut got).unwrap();
            assert_eq!(got, params);
        }
        let (a, t) = (&enc.slots["assemble"].messages, &enc.slots["afterTurn"].messages);
        assert!((0..5).all(|i| a[i].ptr_eq(&t[i])), "host: the afterTurn array shares the assemble array's messages");
        let (a, t) = (dec.slots["assemble"].messages.items(), dec.slots["afterTurn"].messages.items());
        assert!((0..5).all(|i| Arc::ptr_eq(&a[i], &t[i])), "engine: likewise");
    }

    /// A delta on its own method's last array grows that array in place
    /// when nothing else holds it, and copies its prefix when something
    /// does (an engine that kept the array it was handed sees it unchanged).
    #[test]
    fn an_array_still_held_is_not_grown_in_place() {
        let (mut enc, mut dec) = (Encoder::default(), Decoder::default());
        let mut held = Vec::new();
        for (id, n, keep_it) in [(1u64, 3u32, false), (2, 5, true), (3, 6, false), (4, 4, false), (5, 7, true), (6, 9, false)] {
            let params = json!({"messages": (0..n).map(msg).collect::<Vec<_>>()});
            let plan = enc.plan(id, "assemble", params["messages"].as_array().unwrap());
            let mut got: Value = serde_json::from_str(&serde_json::to_string(&Encoded { params: &params, plan, shared: None }).unwrap()).unwrap();
            let shared = dec.decode_shared(&json!(id), "assemble", &mut got).unwrap().unwrap();
            assert_eq!(shared.to_value(), params["messages"], "request {id}");
            assert_eq!(dec.slots["assemble"].messages.items().len(), n as usize);
            if keep_it {
                held.push((shared, params["messages"].clone()));
            }
        }
        for (shared, sent) in &held {
            assert_eq!(&shared.to_value(), sent, "what the engine kept is unchanged");
        }
    }

    #[test]
    fn the_most_recent_of_equally_long_bases_is_chosen() {
        let mut enc = Encoder::default();
        let ms: Vec<Value> = (0..4).map(msg).collect();
        enc.plan(1, "assemble", &ms[..3]);
        enc.plan(2, "afterTurn", &ms[..3]);
        assert_eq!(enc.plan(3, "commitTurn", &ms), Plan::Delta { base: 2, keep: 3 });
        // A longer, older base wins over a shorter, newer one.
        enc.plan(4, "assemble", &ms[..1]);
        assert_eq!(enc.plan(5, "ingestBatch", &ms), Plan::Delta { base: 3, keep: 4 });
        // Equal by value though not shared: still found.
        let mut other = Encoder::default();
        other.plan(1, "assemble", &ms);
        assert_eq!(other.plan(2, "afterTurn", &serde_json::from_str::<Vec<Value>>(&serde_json::to_string(&ms).unwrap()).unwrap()), Plan::Delta { base: 1, keep: 4 });
    }

    #[test]
    fn a_result_delta_that_does_not_decode_is_left_as_sent() {
        let mut enc = Encoder::default();
        enc.plan(5, "assemble", &[msg(1), msg(2)]);
        for bad in [
            json!({"messages": {"$delta": {"base": 4, "keep": 1, "append": []}}}),
            json!({"messages": {"$delta": {"base": 5, "keep": 3, "append": []}}}),
            json!({"messages": {"$delta": {"base": 5, "keep": 1}}}),
            json!({"messages": {"$delta": {"base": 5, "keep": 1, "append": []}, "x": 1}}),
        ] {
            let mut r = bad.clone();
            enc.decode_result(5, "assemble", &mut r);
            assert_eq!(r, bad);
        }
        let mut r = json!({"messages": {"$delta": {"base": 5, "keep": 1, "append": [msg(7)]}}, "estimatedTokens": 0});
        enc.decode_result(5, "assemble", &mut r);
        assert_eq!(r, json!({"messages": [msg(1), msg(7)], "estimatedTokens": 0}));
    }

    #[test]
    fn bad_deltas_are_named() {
        let mut dec = Decoder::default();
        let mut p = json!({"messages": [msg(1), msg(2)]});
        dec.decode(&json!(1), "assemble", &mut p).unwrap();
        for (bad, why) in [
            (json!({"$delta": {"base": 7, "keep": 1, "append": []}}), "base 7"),
            (json!({"$delta": {"base": 1, "keep": 3, "append": []}}), "exceeds the 2 messages"),
            (json!({"$delta": {"base": 1, "keep": -1, "append": []}}), "keep must be"),
            (json!({"$delta": {"base": 1, "keep": 1}}), "append must be"),
        ] {
            let mut p = json!({"messages": bad});
            let e = dec.decode(&json!(2), "afterTurn", &mut p).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        // An engine-looking object with other keys is not an encoding.
        let mut p = json!({"messages": {"$delta": 1, "x": 2}});
        dec.decode(&json!(3), "assemble", &mut p).unwrap();
        assert_eq!(p, json!({"messages": {"$delta": 1, "x": 2}}));
    }
}
