//! The session transcript as OpenClaw persists it. Up to 2026.4.x: a JSONL file
//! with a `{type:"session",…}` header and `{type:"message",id,parentId,timestamp,message}`
//! lines (shared/reference/real-plugins.md; openclaw `SessionManager`); from
//! 2026.9.6: the agent's SQLite transcript store ([`super::sqlite_store`]).
//! Engines read it in `bootstrap`, so it is real storage in the run's state dir.

use std::io::Write;
use std::path::PathBuf;

use clawspec_contract::*;
use serde_json::{json, Value};

use super::prefix_facts::PrefixFacts;
use super::sqlite_store::{is_custom_message_entry, Flushed, SqliteSession};
use crate::scenario::model::{MessageSpec, ModelReply, ModelStep, Setup, ShortMessage};

#[derive(Clone, Debug)]
pub struct Entry {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: u64,
    /// Shared: every call's history holds the transcript's messages, not copies.
    pub message: Msg,
    /// Left on a dead branch (the session manager branched to its parent):
    /// still in the file, not in the active history.
    pub abandoned: bool,
}

/// A non-message event the 2026.9.6 host writes into the session's event
/// log (`thinking_level_change`, `custom` model snapshots and bootstrap
/// markers): it takes a raw sequence number and a place on the parent chain,
/// so it moves `rawSeq`/`effectiveParentId` of later entries, but it is never
/// a message (`clawspec twin`: the real store's `transcript_events`).
#[derive(Clone, Debug)]
pub struct Marker {
    pub id: String,
    pub parent_id: Option<String>,
    /// Index in `entries` of the first entry written after it.
    pub before: usize,
    pub timestamp: u64,
    /// The event without `id`/`parentId`/`timestamp` (`{"type": …, …}`).
    pub event: Value,
}

/// What is asked of the host events on every call (the last `reset`, the
/// last event of a kind), kept as they are appended: they are many in a
/// long session, and scanning them per call made it quadratic. Markers are
/// only ever appended or all cleared ([`Transcript::clear_markers`]).
#[derive(Debug, Default)]
struct MarkerIndex {
    /// Markers indexed so far.
    seen: usize,
    /// `before` of the last `reset`.
    reset_before: Option<usize>,
    /// The last marker of each (`type`, `customType`).
    last: std::collections::HashMap<(String, Option<String>), usize>,
}

#[derive(Debug)]
pub struct Transcript {
    pub session_id: String,
    pub path: PathBuf,
    pub entries: Vec<Entry>,
    /// Host events between entries (SQLite store only; see [`Marker`]).
    pub markers: Vec<Marker>,
    next_entry: u64,
    /// `next_entry` right after the last compaction was written: while it is
    /// unchanged, the compaction is still the session's last entry (pi's
    /// `prepareCompaction` then has nothing to prepare).
    compacted_at: Option<u64>,
    /// Bumped by compactions that rewrite history (anchors carry it).
    pub generation: u64,
    /// Entries already in the file and the file's length after writing them:
    /// appends only write the new lines, so a long session costs linear, not
    /// quadratic, I/O. `None` forces a full rewrite (history was rewritten).
    flushed: std::cell::Cell<Option<(usize, u64)>>,
    /// Lookups over `markers` (see [`MarkerIndex`]).
    marker_index: std::cell::RefCell<MarkerIndex>,
    /// Where the session lives: `path` as JSONL, or this SQLite session.
    sqlite: Option<SqliteSession>,
    sqlite_flushed: std::cell::Cell<Option<Flushed>>,
    /// Per entry, how many entries up to it are `custom_message` rows and
    /// how many are runtime-context carriers (see [`Transcript::custom_before`], [`Transcript::carriers`]).
    entry_facts: std::cell::RefCell<PrefixFacts<(u32, u32)>>,
    /// Moves each time an entry is abandoned (the store rebuilds its
    /// visible-branch index then; see `SqliteSession::flush_events`).
    abandon_epoch: u64,
}

impl Transcript {
    pub fn new(session_id: String, path: PathBuf) -> Self {
        Transcript {
            session_id,
            path,
            entries: Vec::new(),
            markers: Vec::new(),
            next_entry: 0,
            compacted_at: None,
            generation: 1,
            flushed: std::cell::Cell::new(None),
            marker_index: Default::default(),
            sqlite: None,
            sqlite_flushed: std::cell::Cell::new(None),
            entry_facts: std::cell::RefCell::new(PrefixFacts::new((0, 0))),
            abandon_epoch: 0,
        }
    }

    /// A session kept in an agent's SQLite transcript store (`path` is the database).
    pub fn sqlite(session_id: String, store: SqliteSession) -> Self {
        let path = store.db_path.clone();
        Transcript { sqlite: Some(store), ..Transcript::new(session_id, path) }
    }

    pub fn is_sqlite(&self) -> bool {
        self.sqlite.is_some()
    }

    /// The host's "transcript exists": the JSONL file, or the session's window
    /// row in the store.
    pub fn exists(&self) -> bool {
        match &self.sqlite {
            Some(s) => s.exists(&self.session_id),
            None => self.path.exists(),
        }
    }

    pub fn append(&mut self, message: impl Into<Msg>, timestamp: u64) -> String {
        self.next_entry += 1;
        let id = format!("e{}", self.next_entry);
        let parent_id = self.leaf();
        self.entries.push(Entry { id: id.clone(), parent_id, timestamp, message: message.into(), abandoned: false });
        id
    }

    /// A compaction was just written (see `compacted_at`).
    pub fn mark_compacted(&mut self) {
        self.compacted_at = Some(self.next_entry);
    }

    /// Nothing was written since the last compaction.
    pub fn compaction_is_last(&self) -> bool {
        self.compacted_at == Some(self.next_entry)
    }

    /// The id the next [`Transcript::append`] gives.
    pub fn next_id(&self) -> String {
        format!("e{}", self.next_entry + 1)
    }

    /// How many entry ids this transcript has given out (or skipped).
    pub fn entries_numbered(&self) -> u64 {
        self.next_entry
    }

    /// Entry ids of this transcript start after `base`: the host's ids are
    /// unique across sessions (UUIDs), so a second session of the run (a
    /// subagent child's) must not reuse the ids of another.
    pub fn start_ids_after(&mut self, base: u64) {
        self.next_entry = self.next_entry.max(base);
    }

    /// The id the next event hangs from: a marker written after the last
    /// entry, else the last entry on the active branch.
    fn leaf(&self) -> Option<String> {
        if let Some(m) = self.markers.last().filter(|m| m.before == self.entries.len()) {
            return Some(m.id.clone());
        }
        self.entries.iter().rev().find(|e| !e.abandoned).map(|e| e.id.clone())
    }

    /// Append a host event (see [`Marker`]); `event` is `{"type": …, …}`.
    pub fn append_marker(&mut self, event: Value, timestamp: u64) -> String {
        self.next_entry += 1;
        let id = format!("e{}", self.next_entry);
        let parent_id = self.leaf();
        self.markers.push(Marker { id: id.clone(), parent_id, before: self.entries.len(), timestamp, event });
        id
    }

    /// Whether a host event of this `type` (and `customType`, for `custom`) was written.
    pub fn has_marker(&self, kind: &str, custom_type: Option<&str>) -> bool {
        self.markers_indexed().last.keys().any(|(t, c)| t == kind && custom_type.is_none_or(|want| c.as_deref() == Some(want)))
    }

    /// The last host event with this `customType`.
    pub fn last_marker(&self, custom_type: &str) -> Option<&Marker> {
        let at = self.markers_indexed().last.iter().filter(|((_, c), _)| c.as_deref() == Some(custom_type)).map(|(_, &i)| i).max();
        at.map(|i| &self.markers[i])
    }

    /// Drop every host event (a rewritten log).
    pub fn clear_markers(&mut self) {
        self.markers.clear();
        *self.marker_index.borrow_mut() = MarkerIndex::default();
    }

    /// The index, brought up to date with the markers appended since.
    fn markers_indexed(&self) -> std::cell::Ref<'_, MarkerIndex> {
        {
            let mut ix = self.marker_index.borrow_mut();
            if ix.seen > self.markers.len() {
                *ix = MarkerIndex::default();
            }
            for (i, m) in self.markers.iter().enumerate().skip(ix.seen) {
                let kind = m.event["type"].as_str().unwrap_or_default().to_string();
                if kind == "reset" {
                    ix.reset_before = Some(m.before);
                }
                ix.last.insert((kind, m.event["customType"].as_str().map(str::to_string)), i);
            }
            ix.seen = self.markers.len();
        }
        self.marker_index.borrow()
    }

    /// The raw sequence number of `entries[i]` (1-based; the header is 0),
    /// counting the host events before it.
    pub fn raw_seq(&self, i: usize) -> usize {
        i + 1 + self.markers.iter().filter(|m| m.before <= i).count()
    }

    /// How many of the first `i` entries are `custom_message` rows
    /// ([`is_custom_message_entry`]; abandoned or not): asked per anchor,
    /// answered from the entries appended or replaced since the last ask.
    pub fn custom_before(&self, i: usize) -> usize {
        let custom = self.counted().before(i).0 as usize;
        // Debug builds (every golden run) check the memo against a count.
        debug_assert_eq!(custom, self.entries[..i].iter().filter(|e| is_custom_message_entry(&e.message)).count());
        custom
    }

    /// How many entries are runtime-context carriers (asked per bootstrap).
    pub fn carriers(&self) -> usize {
        let memo = self.counted();
        let carriers = memo.before(self.entries.len()).1 as usize;
        debug_assert_eq!(carriers, self.entries.iter().filter(|e| e.message.is_runtime_context_carrier()).count());
        carriers
    }

    /// The running (custom_message, carrier) counts, brought up to date.
    fn counted(&self) -> std::cell::RefMut<'_, PrefixFacts<(u32, u32)>> {
        let mut memo = self.entry_facts.borrow_mut();
        memo.update(self.entries.iter().map(|e| &e.message), |(custom, carriers), m| {
            (custom + is_custom_message_entry(m) as u32, carriers + m.is_runtime_context_carrier() as u32)
        });
        memo
    }

    /// The entry index the model's history starts at: after the last `reset`
    /// boundary (2026.9.6 bare `/new` / `/reset`, `runtime::command`), else 0.
    pub fn context_start(&self) -> usize {
        self.markers_indexed().reset_before.unwrap_or(0)
    }

    /// The active branch, owned copies (for code that changes them).
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.active().cloned().collect()
    }

    /// The active branch, shared (pointer copies).
    pub fn shared(&self) -> Vec<Msg> {
        self.entries.iter().filter(|e| !e.abandoned).map(|e| e.message.clone()).collect()
    }

    /// The active branch, borrowed: for a question about it (is it empty, does
    /// it hold X, how many tokens) a copy of the whole history is not needed.
    pub fn active(&self) -> impl DoubleEndedIterator<Item = &AgentMessage> + Clone {
        self.entries.iter().filter(|e| !e.abandoned).map(|e| &*e.message)
    }

    /// Branch away from a trailing user message that got no reply (the next
    /// entry's parent is its parent).
    pub fn abandon_trailing_user(&mut self) {
        if let Some(e) = self.entries.iter_mut().rev().find(|e| !e.abandoned) {
            if matches!(*e.message, AgentMessage::User(_)) {
                e.abandoned = true;
                self.abandon_epoch += 1;
            }
        }
    }

    /// Write the file so that an engine reading `sessionFile` sees what
    /// OpenClaw would have flushed (called after every change). Appends
    /// only the new entries unless history was rewritten ([`Self::rewritten`])
    /// or the file is not the one last written (an engine touched it, or it is
    /// gone): then the whole file is rewritten from the entries.
    pub fn flush(&self, created_at: u64) -> std::io::Result<()> {
        if let Some(store) = &self.sqlite {
            let done = store.flush_events(&self.session_id, created_at, self.generation, &self.entries, &self.markers, self.abandon_epoch, self.sqlite_flushed.get());
            self.sqlite_flushed.set(done.as_ref().ok().copied());
            return done.map(|_| ()).map_err(std::io::Error::other);
        }
        if let Some((n, len)) = self.flushed.get() {
            let on_disk = std::fs::metadata(&self.path).map(|m| m.len()).ok();
            if n <= self.entries.len() && on_disk == Some(len) {
                let file = std::fs::OpenOptions::new().append(true).open(&self.path)?;
                let mut out = std::io::BufWriter::new(file);
                let mut written = 0u64;
                for e in &self.entries[n..] {
                    written += write_entry(&mut out, e)?;
                }
                out.flush()?;
                self.flushed.set(Some((self.entries.len(), len + written)));
                return Ok(());
            }
        }
        self.flushed.set(None);
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut out = std::io::BufWriter::new(std::fs::File::create(&self.path)?);
        let header = json!({"type":"session","version":3,"id":self.session_id,"timestamp":created_at,"cwd":"/workspace"});
        let mut written = header.to_string().len() as u64 + 1;
        writeln!(out, "{header}")?;
        for e in &self.entries {
            written += write_entry(&mut out, e)?;
        }
        out.flush()?;
        self.flushed.set(Some((self.entries.len(), written)));
        Ok(())
    }

    /// History was changed in place (compaction, truncation, thinking
    /// stripped): the next flush rewrites the whole file, and the
    /// generation rotates. The real 2026.9.6 store rotates its
    /// `transcript_rewrite_watermarks.generation` in the transaction of every
    /// destructive replacement and keeps it on pure appends (dist
    /// session-accessor.sqlite-transcript-state-*.mjs
    /// `rotateTranscriptGenerationInTransaction`, called by
    /// session-accessor.sqlite-transcript-store-*.mjs for replaced, rewritten
    /// and updated event rows): a reader that saw (generation, last seq)
    /// knows the rows up to that seq unchanged while the generation holds.
    pub fn rewritten(&mut self) {
        self.generation += 1;
        self.flushed.set(None);
        self.sqlite_flushed.set(None);
    }
}

fn write_entry(out: &mut impl Write, e: &Entry) -> std::io::Result<u64> {
    let line = json!({"type":"message","id":e.id,"parentId":e.parent_id,"timestamp":e.timestamp,"message":e.message}).to_string();
    writeln!(out, "{line}")?;
    Ok(line.len() as u64 + 1)
}

/// Expand a scenario message (shorthand or full JSON) into an `AgentMessage`.
pub fn expand_message(spec: &MessageSpec, setup: &Setup, seq: u64) -> Result<AgentMessage, String> {
    let ts = super::clock::EPOCH_MS - 1_000_000 + seq * 1_000;
    match spec {
        MessageSpec::Full(v) => {
            if v.get("role").is_none() {
                return Err(format!("not a message: {v} (no `role`, and not a shorthand)"));
            }
            serde_json::from_value(v.clone()).map_err(|e| format!("invalid OpenClaw message: {e}"))
        }
        MessageSpec::Short(ShortMessage::User(text)) => {
            let mut m = AgentMessage::user_text(text.clone());
            if let AgentMessage::User(u) = &mut m {
                u.timestamp = Some(ts.into());
            }
            Ok(m)
        }
        MessageSpec::Short(ShortMessage::Assistant(reply)) => {
            let step = match reply {
                ModelReply::Text(t) => ModelStep { text: Some(t.clone()), ..Default::default() },
                ModelReply::Full(s) => s.clone(),
            };
            let mut ids = super::clock::Ids::default();
            Ok(assistant_message(&step, setup, ts, &mut ids, seq))
        }
        MessageSpec::Short(ShortMessage::ToolResult(t)) => Ok(AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: t.id.clone(),
            tool_name: t.name.clone(),
            content: vec![text_block(&t.text)],
            is_error: Some(t.is_error),
            details: None,
            timestamp: Some(ts.into()),
            extra: Extra::new(),
        })),
        MessageSpec::Short(ShortMessage::Summary(s)) => Ok(AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: s.clone(),
            tokens_before: (tokens::estimate_text(s) * 10).into(),
            tokens_after: Some(tokens::estimate_text(s).into()),
            first_kept_entry_id: None,
            timestamp: Some(ts.into()),
            extra: Extra::new(),
        })),
    }
}

pub fn text_block(text: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: text.to_string(), text_signature: None, extra: Extra::new() })
}

/// The assistant message a provider returns for a scripted step, shaped as
/// OpenClaw records it (api/provider/model/usage/stopReason).
pub fn assistant_message(step: &ModelStep, setup: &Setup, ts: u64, ids: &mut super::clock::Ids, seq: u64) -> AgentMessage {
    let mut content = Vec::new();
    if step.redacted {
        content.push(ContentBlock::Thinking(ThinkingBlock {
            thinking: String::new(),
            thinking_signature: Some(step.signature.clone().unwrap_or_else(|| format!("redacted-{seq:04}"))),
            redacted: Some(true),
            extra: Extra::new(),
        }));
    }
    if let Some(t) = &step.thinking {
        content.push(ContentBlock::Thinking(ThinkingBlock {
            thinking: t.clone(),
            thinking_signature: step.signature.clone(),
            redacted: None,
            extra: Extra::new(),
        }));
    }
    if let Some(t) = &step.text {
        content.push(text_block(t));
    }
    for c in &step.tool_calls {
        content.push(ContentBlock::ToolCall(ToolCallBlock {
            id: c.id.clone().unwrap_or_else(|| ids.next("toolu")),
            name: c.name.clone(),
            arguments: if c.arguments.is_null() { json!({}) } else { c.arguments.clone() },
            thought_signature: None,
            extra: Extra::new(),
        }));
    }
    let stop = if step.tool_calls.is_empty() { "stop" } else { "toolUse" };
    let output = tokens::estimate_text(&step.text.clone().unwrap_or_default()) + step.tool_calls.len() as u64 * 10;
    AgentMessage::Assistant(AssistantMessage {
        content,
        api: Some(setup.api.clone()),
        provider: Some(setup.provider.clone()),
        model: Some(setup.model.clone()),
        usage: Some(json!({"input":0,"output":output,"cacheRead":0,"cacheWrite":0,"totalTokens":output,
            "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}})),
        stop_reason: Some(stop.into()),
        error_message: None,
        timestamp: Some(ts.into()),
        extra: Extra::new(),
    })
}

/// Set the usage of an assistant message once the prompt size is known.
pub fn set_usage(m: &mut AgentMessage, input: u64) {
    if let AgentMessage::Assistant(a) = m {
        if let Some(Value::Object(u)) = &mut a.usage {
            let output = u.get("output").and_then(Value::as_u64).unwrap_or(0);
            u.insert("input".into(), input.into());
            u.insert("totalTokens".into(), (input + output).into());
        }
    }
}
