//! The SQLite transcript store of OpenClaw 2026.9.6: one database per agent,
//! `<state>/agents/<agentId>/agent/openclaw-agent.sqlite` (dist
//! `openclaw-agent-db.paths-*.mjs` `resolveOpenClawAgentSqlitePath`), in the
//! schema the release creates (`openclaw-agent-schema-2026.9.6.sql`, printed by
//! the real SDK: `harness/tests/sdk/transcript-store.mjs schema`, kept equal by
//! `tests/transcript_store_sdk.rs`). Engines read it through
//! `openclaw/plugin-sdk/session-transcript-runtime`
//! (`readVisibleSessionTranscriptMessageEntries`), so the reference writes the
//! rows that reader and the host's own writer use, as a real gateway leaves
//! them (observed in a `clawspec twin --keep` work dir):
//!
//! - `schema_meta` `primary|agent|23|<agent>|2026.9.6` (once per database);
//! - `session_nodes` (the session key's entry, `session-accessor.sqlite-entry-store-*.mjs`)
//!   and `session_windows` (the session id under that key);
//! - `transcript_events`: seq 0 the `{"type":"session","version":4,…}` header,
//!   then one row per entry `{"type":"message",id,parentId,timestamp,message}`
//!   with ISO-8601 timestamps (`session-accessor.sqlite-transcript-store-*.mjs`);
//! - `transcript_event_identities` (id, seq, type, parentId, the message's
//!   idempotencyKey), `transcript_rewrite_watermarks` (the generation);
//! - `session_transcript_active_events` + `session_transcript_index_state`: the
//!   visible branch, messages numbered (`session-transcript-index-*.mjs`).
//!
//! Appends write only the new entries, in one transaction; a rewritten history
//! (compaction) replaces the session's rows.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Value};

use super::transcript::{Entry, Marker};

/// The DDL the real 2026.9.6 SDK creates for a fresh agent database.
pub const SCHEMA_2026_9_6: &str = include_str!("openclaw-agent-schema-2026.9.6.sql");
/// `schema_meta.schema_version` and `PRAGMA user_version` of that schema.
pub const SCHEMA_VERSION: i64 = 23;
const APP_VERSION: &str = "2026.9.6";

/// The agent database path under a state dir.
pub fn agent_db_path(state_dir: &Path, agent_id: &str) -> PathBuf {
    state_dir
        .join("agents")
        .join(agent_id)
        .join("agent")
        .join("openclaw-agent.sqlite")
}

/// Whether 2026.9.6 stores `m` as a `custom_message` event rather than a
/// `message` event: a runtime-context carrier and the interrupted-turn
/// guidance. Both reach the store through the session's `message_end`
/// handler, which appends every `custom` role message with
/// `appendCustomMessageEntry` (dist/resource-loader-*.mjs; the guidance is
/// agent-core-*.mjs `appendInterruptedTurnMessage`). Such an event holds no
/// message position (dist/session-transcript-index-*.mjs
/// `prepareSessionTranscriptProjectionAppend`: `messagePosition` only for an
/// event with a `message`), so transcript anchors do not count it
/// (`turn::active_position`), and a closed turn's range, which reads
/// positioned `message` events only (dist/session-accessor-*.mjs
/// `readClosedTranscriptTurn`), leaves it out of `commitTurn`'s messages
/// (twin of timeout-recovery, builtin:window).
pub fn is_custom_message_entry(m: &clawspec_contract::AgentMessage) -> bool {
    m.is_runtime_context_carrier() || matches!(m, clawspec_contract::AgentMessage::Custom(c) if c.custom_type == crate::runtime::retry::TURN_ABORTED_CUSTOM_TYPE)
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("transcript store {path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("transcript store {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One session of the agent database, as the runtime writes it.
#[derive(Debug)]
pub struct SqliteSession {
    pub db_path: PathBuf,
    pub agent_id: String,
    pub session_key: String,
    conn: RefCell<Option<Connection>>,
}

/// What the last flush left in the database (rows written, which entries
/// were then abandoned): the next flush appends only what is new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flushed {
    /// Rows (entries and host events) written.
    pub entries: usize,
    /// The caller's abandon epoch then (see [`SqliteSession::flush_events`]).
    pub abandon_epoch: u64,
    /// Of those rows, how many were entries and how many host events, and
    /// the latest timestamp among them: a flush that only appends reads
    /// none of the rows before (a long session flushes several times a
    /// turn; walking every row each time made it quadratic).
    pub tail: Tail,
}

/// See [`Flushed::tail`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tail {
    pub entries: usize,
    pub markers: usize,
    pub latest: u64,
}

/// Open (creating when new) an agent database in the release's schema.
pub fn open(path: &Path, agent_id: &str, now_ms: u64) -> Result<Connection, StoreError> {
    let sql = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let conn = Connection::open(path).map_err(sql)?;
    // The host's pragmas (dist openclaw-agent-db-*.mjs: WAL, synchronous
    // NORMAL, foreign keys on; sqlite-wal-*.mjs: 30 s busy timeout). NORMAL
    // also keeps a flush per entry from costing an fsync.
    conn.pragma_update(None, "journal_mode", "WAL").map_err(sql)?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(sql)?;
    conn.pragma_update(None, "foreign_keys", "ON").map_err(sql)?;
    conn.busy_timeout(std::time::Duration::from_secs(30)).map_err(sql)?;
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(sql)?;
    if version == 0 {
        let tx = conn.unchecked_transaction().map_err(sql)?;
        tx.execute_batch(SCHEMA_2026_9_6).map_err(sql)?;
        tx.execute(
            "INSERT INTO schema_meta (meta_key, role, schema_version, agent_id, app_version, created_at, updated_at) VALUES ('primary', 'agent', ?1, ?2, ?3, ?4, ?4)",
            params![SCHEMA_VERSION, agent_id, APP_VERSION, now_ms as i64],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
    }
    Ok(conn)
}

impl SqliteSession {
    pub fn new(db_path: PathBuf, agent_id: String, session_key: String) -> Self {
        SqliteSession {
            db_path,
            agent_id,
            session_key,
            conn: RefCell::new(None),
        }
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.db_path.clone(),
            source,
        }
    }

    fn with_conn<T>(
        &self,
        now_ms: u64,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut slot = self.conn.borrow_mut();
        if slot.is_none() || !self.db_path.exists() {
            *slot = Some(open(&self.db_path, &self.agent_id, now_ms)?);
        }
        f(slot.as_ref().expect("opened"))
    }

    /// Whether the session has a window in the database (OpenClaw's
    /// "transcript exists").
    pub fn exists(&self, session_id: &str) -> bool {
        if !self.db_path.exists() {
            return false;
        }
        self.with_conn(0, |c| self.window_exists(c, session_id)).unwrap_or(false)
    }

    /// Write `entries[from.entries..]` (all of them, replacing the session's
    /// rows, when `from` is `None`), then the visible-branch index.
    pub fn flush(
        &self,
        session_id: &str,
        created_at: u64,
        generation: u64,
        entries: &[Entry],
        from: Option<Flushed>,
    ) -> Result<Flushed, StoreError> {
        // Without an epoch of its own, the count: it moves with each entry abandoned.
        let epoch = entries.iter().filter(|e| e.abandoned).count() as u64;
        self.flush_events(session_id, created_at, generation, entries, &[], epoch, from)
    }

    /// [`Self::flush`] with the host's non-message events (`markers`, each
    /// placed before the entry at its `before` index) interleaved: they take
    /// raw sequence numbers and sit on the parent chain, but are not messages.
    /// `abandon_epoch` moves whenever an entry already written is abandoned
    /// (the visible-branch index is then rebuilt): the transcript keeps it,
    /// since counting the abandoned entries on every flush read every entry
    /// of a long session several times a turn.
    #[allow(clippy::too_many_arguments)]
    pub fn flush_events(
        &self,
        session_id: &str,
        created_at: u64,
        generation: u64,
        entries: &[Entry],
        markers: &[Marker],
        abandon_epoch: u64,
        from: Option<Flushed>,
    ) -> Result<Flushed, StoreError> {
        let total = entries.len() + markers.len();
        // Rows past the last flush, read alone when the log only grew since
        // (entries and host events appended, each event after every entry
        // before it); otherwise every row, as a rewrite needs.
        let appended = from.filter(|f| {
            let t = f.tail;
            t.entries + t.markers == f.entries && t.entries <= entries.len() && t.markers <= markers.len() && markers[t.markers..].iter().all(|m| m.before >= t.entries)
        });
        let (offset, rows, tail) = match appended {
            Some(f) => {
                let rows = interleave_from(entries, markers, f.tail.entries, f.tail.markers);
                (f.entries, rows, f.tail)
            }
            None => (0, interleave(entries, markers), Tail::default()),
        };
        let latest = rows.iter().map(|r| r.timestamp()).fold(tail.latest, u64::max);
        let now = latest.max(created_at);
        let done = Flushed { entries: total, abandon_epoch, tail: Tail { entries: entries.len(), markers: markers.len(), latest } };
        self.with_conn(created_at, |c| {
            let tx = c.unchecked_transaction().map_err(|e| self.err(e))?;
            let mut start = match from {
                Some(f) if f.entries <= total && self.window_exists(&tx, session_id)? => f.entries,
                _ => {
                    self.create_session(&tx, session_id, created_at)?;
                    0
                }
            };
            let active_changed = from.is_none_or(|f| f.abandon_epoch != abandon_epoch) || start == 0;
            // Anything but an append of rows read above reads every row.
            let all;
            let (rows, offset) = if start != offset || active_changed {
                all = interleave(entries, markers);
                start = start.min(all.len());
                (&all[..], 0)
            } else {
                (&rows[..], offset)
            };
            for (i, r) in rows.iter().enumerate().skip(start - offset) {
                let i = i + offset;
                match r {
                    Row::Message(e) => insert_entry(&tx, session_id, i as i64 + 1, e),
                    Row::Marker(m) => insert_marker(&tx, session_id, i as i64 + 1, m),
                }
                .map_err(|e| self.err(e))?;
            }
            // The last row not abandoned, found from the end (a flush with
            // nothing new used to interleave every row to find it).
            let leaf = last_kept(entries, markers).map(str::to_string);
            self.index(&tx, session_id, rows, offset, if active_changed { 0 } else { start }, total, leaf, now).map_err(|e| self.err(e))?;
            tx.execute(
                "INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(session_id) DO UPDATE SET generation = excluded.generation, updated_at = excluded.updated_at",
                params![session_id, format!("{generation:032x}"), now as i64],
            )
            .map_err(|e| self.err(e))?;
            tx.execute(
                "UPDATE session_windows SET updated_at = ?2, transcript_updated_at = ?2, transcript_observed_at = ?2 WHERE session_id = ?1",
                params![session_id, now as i64],
            )
            .map_err(|e| self.err(e))?;
            tx.commit().map_err(|e| self.err(e))?;
            Ok(done)
        })
    }

    fn window_exists(&self, c: &Connection, session_id: &str) -> Result<bool, StoreError> {
        c.query_row(
            "SELECT 1 FROM session_windows WHERE session_id = ?1",
            [session_id],
            |_| Ok(()),
        )
        .optional()
        .map(|r| r.is_some())
        .map_err(|e| self.err(e))
    }

    /// The session key's node, its window and the transcript header (a fresh
    /// start: any earlier rows of this session are dropped).
    fn create_session(
        &self,
        c: &Connection,
        session_id: &str,
        created_at: u64,
    ) -> Result<(), StoreError> {
        let e = |e| self.err(e);
        for table in [
            "session_transcript_active_events",
            "session_transcript_index_state",
            "transcript_event_identities",
            "transcript_events",
            "transcript_rewrite_watermarks",
        ] {
            c.execute(
                &format!("DELETE FROM {table} WHERE session_id = ?1"),
                [session_id],
            )
            .map_err(e)?;
        }
        let ts = created_at as i64;
        let entry = json!({"sessionId": session_id, "createdAt": ts, "updatedAt": ts, "sessionStartedAt": ts,
                           "lifecycleRevision": format!("rev-{session_id}")});
        c.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at, created_via) VALUES (?1, ?2, ?3, ?4, ?4, 'operator')
             ON CONFLICT(session_key) DO UPDATE SET current_session_id = excluded.current_session_id, entry_json = excluded.entry_json, updated_at = excluded.updated_at",
            params![self.session_key, session_id, entry.to_string(), ts],
        )
        .map_err(e)?;
        // The agent's main key is the shared main session (twin observation).
        let scope = if self.session_key == format!("agent:{}:main", self.agent_id) {
            "shared-main"
        } else {
            "conversation"
        };
        c.execute(
            "INSERT OR IGNORE INTO session_windows (session_id, session_key, session_scope, created_at, updated_at, session_entry_provenance) VALUES (?1, ?2, ?3, ?4, ?4, 1)",
            params![session_id, self.session_key, scope, ts],
        )
        .map_err(e)?;
        let header = json!({"type": "session", "version": 4, "id": session_id, "timestamp": iso8601(created_at), "cwd": "/workspace"});
        c.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, 0, ?2, ?3)", params![session_id, header.to_string(), ts]).map_err(e)?;
        c.execute(
            "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, created_at) VALUES (?1, ?1, 0, 'session', ?2)",
            params![session_id, ts],
        )
        .map_err(e)?;
        Ok(())
    }

    /// The visible branch (entries not abandoned), from row `start` on;
    /// `entries` holds the rows from row `offset` on, `total` rows in all,
    /// `leaf` the last one not abandoned.
    #[allow(clippy::too_many_arguments)]
    fn index(
        &self,
        c: &Connection,
        session_id: &str,
        entries: &[Row<'_>],
        offset: usize,
        start: usize,
        total: usize,
        leaf: Option<String>,
        now: u64,
    ) -> rusqlite::Result<()> {
        let (mut position, mut messages) = if start == 0 {
            c.execute(
                "DELETE FROM session_transcript_active_events WHERE session_id = ?1",
                [session_id],
            )?;
            (0i64, 0i64)
        } else {
            c.query_row(
                "SELECT active_event_count, active_message_count FROM session_transcript_index_state WHERE session_id = ?1",
                [session_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?
        };
        for (i, r) in entries
            .iter()
            .enumerate()
            .map(|(i, r)| (i + offset, r))
            .skip(start - offset)
            .filter(|(_, r)| !r.abandoned())
        {
            // Host events hold an active position but no message position
            // (real 2026.9.6 store: `message_position` NULL for them); so does
            // a `custom_message` event (`is_custom_message_entry`), which the
            // admission receipt does not count either (`turn::active_position`):
            // the SDK's read fence compares the two.
            let message_position = matches!(r, Row::Message(e) if !is_custom_message_entry(&e.message)).then_some(messages);
            c.execute(
                "INSERT INTO session_transcript_active_events (session_id, active_position, event_seq, message_position, context_eligible) VALUES (?1, ?2, ?3, ?4, 1)",
                params![session_id, position, i as i64 + 1, message_position],
            )?;
            position += 1;
            if message_position.is_some() {
                messages += 1;
            }
        }
        c.execute(
            "INSERT INTO session_transcript_index_state (session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at)
             VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6)
             ON CONFLICT(session_id) DO UPDATE SET indexed_seq = excluded.indexed_seq, leaf_event_id = excluded.leaf_event_id,
               active_event_count = excluded.active_event_count, active_message_count = excluded.active_message_count, updated_at = excluded.updated_at",
            params![session_id, total as i64, leaf, position, messages, now as i64],
        )?;
        Ok(())
    }
}

/// One row of the session's event log, in raw sequence order.
enum Row<'a> {
    Message(&'a Entry),
    Marker(&'a Marker),
}

impl Row<'_> {
    fn timestamp(&self) -> u64 {
        match self {
            Row::Message(e) => e.timestamp,
            Row::Marker(m) => m.timestamp,
        }
    }
    fn abandoned(&self) -> bool {
        matches!(self, Row::Message(e) if e.abandoned)
    }
    #[cfg(test)]
    fn id(&self) -> &str {
        match self {
            Row::Message(e) => &e.id,
            Row::Marker(m) => &m.id,
        }
    }
}

/// The id of the last row of [`interleave`] not abandoned, without building
/// the rows: a host event follows entry `j` when its `before` is past `j`
/// (markers are in `before` order, host events are never abandoned).
fn last_kept<'a>(entries: &'a [Entry], markers: &'a [Marker]) -> Option<&'a str> {
    let j = entries.iter().rposition(|e| !e.abandoned);
    match (j, markers.last()) {
        (Some(j), Some(m)) if m.before > j => Some(&m.id),
        (Some(j), _) => Some(&entries[j].id),
        (None, m) => m.map(|m| m.id.as_str()),
    }
}

fn interleave<'a>(entries: &'a [Entry], markers: &'a [Marker]) -> Vec<Row<'a>> {
    interleave_from(entries, markers, 0, 0)
}

/// The rows of [`interleave`] after its first `e0` entries and `m0` host
/// events (those rows being exactly these).
fn interleave_from<'a>(entries: &'a [Entry], markers: &'a [Marker], e0: usize, m0: usize) -> Vec<Row<'a>> {
    let mut rows = Vec::with_capacity(entries.len() - e0 + markers.len() - m0);
    let mut ms = markers[m0..].iter().peekable();
    for (i, e) in entries.iter().enumerate().skip(e0) {
        while let Some(m) = ms.next_if(|m| m.before <= i) {
            rows.push(Row::Marker(m));
        }
        rows.push(Row::Message(e));
    }
    rows.extend(ms.map(Row::Marker));
    rows
}


fn insert_marker(c: &Connection, session_id: &str, seq: i64, m: &Marker) -> rusqlite::Result<()> {
    let mut event = m.event.clone();
    event["id"] = json!(m.id);
    event["parentId"] = json!(m.parent_id);
    event["timestamp"] = json!(iso8601(m.timestamp));
    let kind = event["type"].as_str().unwrap_or("custom").to_string();
    let ts = m.timestamp as i64;
    c.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, ?4)", params![session_id, seq, event.to_string(), ts])?;
    c.execute(
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![session_id, m.id, seq, kind, m.parent_id, ts],
    )?;
    Ok(())
}

fn insert_entry(c: &Connection, session_id: &str, seq: i64, e: &Entry) -> rusqlite::Result<()> {
    let event = match &*e.message {
        // 2026.9.6 stores the interrupted-turn guidance as a `custom_message`
        // event, not a message event (real store, `clawspec twin timeout-recovery`),
        // and a runtime-context carrier too (`appendCustomMessageEntry`, dist
        // session-manager-*.mjs; it holds no message position, twinned on
        // http-openai-responses): the SDK's visible reader skips both.
        clawspec_contract::AgentMessage::Custom(cm) if is_custom_message_entry(&e.message) => {
            json!({"type": "custom_message", "customType": cm.custom_type, "content": cm.content, "display": cm.display.unwrap_or(false), "id": e.id, "parentId": e.parent_id, "timestamp": iso8601(e.timestamp)})
        }
        _ => json!({"type": "message", "id": e.id, "parentId": e.parent_id, "timestamp": iso8601(e.timestamp), "message": e.message}),
    };
    let ts = e.timestamp as i64;
    c.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, ?4)", params![session_id, seq, event.to_string(), ts])?;
    // The idempotency index is unique per session: a key seen before (a
    // retried prompt) is recorded once, as the host's dedupe keeps it.
    let key = event["message"]
        .get("idempotencyKey")
        .and_then(Value::as_str)
        .map(str::to_string);
    let key = match key {
        Some(k) if c
            .query_row("SELECT 1 FROM transcript_event_identities WHERE session_id = ?1 AND message_idempotency_key = ?2", params![session_id, k], |_| Ok(()))
            .optional()?
            .is_none() =>
        {
            Some(k)
        }
        _ => None,
    };
    c.execute(
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, message_idempotency_key, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![session_id, e.id, seq, event["type"].as_str().unwrap_or("message"), e.parent_id, key, ts],
    )?;
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of a Unix time in ms, as JavaScript's
/// `Date.prototype.toISOString` writes event timestamps.
pub fn iso8601(ms: u64) -> String {
    let (secs, millis) = (ms / 1000, ms % 1000);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A transcript event the host stored compressed: OpenClaw 2026.9.6 writes
/// every event of at least 1 024 UTF-8 bytes as a zstd frame in `event_zstd`
/// with `event_json` NULL (dist/transcript-payload-*.mjs `MIN_COMPRESS_BYTES`,
/// `prepareTranscriptPayload`); the reference runtime's own store never does.
pub(crate) fn decompress_event(frame: &[u8]) -> Result<String, String> {
    use std::io::Read;
    let mut out = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(frame)
        .map_err(|e| e.to_string())?
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The visible messages of a session in an agent database: the parent chain
/// from the last event back to the root (OpenClaw's branch-safe projection,
/// dist session-accessor.sqlite-read-*.mjs `selectVisibleTranscriptEventEntries`),
/// keeping `message` events. Used by the built-in engines.
pub fn read_visible_messages(db_path: &Path, session_id: &str) -> Result<Vec<Value>, String> {
    let conn = Connection::open_with_flags(
        db_path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("cannot open {}: {e}", db_path.display()))?;
    let mut stmt = conn
        .prepare("SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ?1 ORDER BY seq")
        .map_err(|e| format!("{}: {e}", db_path.display()))?;
    let rows: Vec<(Option<String>, Option<Vec<u8>>)> = stmt
        .query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", db_path.display()))?;
    let mut events: Vec<Value> = Vec::with_capacity(rows.len());
    for (json, zstd) in rows {
        let text = match (json, zstd) {
            (Some(j), _) => j,
            (None, Some(z)) => decompress_event(&z).map_err(|e| format!("{}: a compressed transcript event: {e}", db_path.display()))?,
            (None, None) => continue,
        };
        if let Ok(v) = serde_json::from_str(&text) {
            events.push(v);
        }
    }
    let by_id: std::collections::HashMap<&str, &Value> = events
        .iter()
        .filter_map(|e| Some((e.get("id")?.as_str()?, e)))
        .collect();
    let Some(mut at) = events.iter().rev().find(|e| e["type"] != "session") else {
        return Ok(Vec::new());
    };
    let mut path = vec![at];
    while let Some(parent) = at
        .get("parentId")
        .and_then(Value::as_str)
        .and_then(|p| by_id.get(p))
    {
        if path.len() > events.len() {
            return Err(format!(
                "{}: parentId cycle in session {session_id}",
                db_path.display()
            ));
        }
        at = parent;
        path.push(at);
    }
    Ok(path
        .into_iter()
        .rev()
        .filter(|e| e["type"] == "message")
        .filter_map(|e| e.get("message").cloned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawspec_contract::AgentMessage;
    use sha2::{Digest, Sha256};

    fn entry(n: u64, parent: Option<u64>, text: &str) -> Entry {
        Entry {
            id: format!("e{n}"),
            parent_id: parent.map(|p| format!("e{p}")),
            timestamp: 1_795_000_000_000 + n,
            message: AgentMessage::user_text(text).into(),
            abandoned: false,
        }
    }

    /// Every shape of up to 4 entries (each abandoned or not) and up to 3
    /// host events placed anywhere: the leaf found from the end is the last
    /// kept row of the interleaved log.
    #[test]
    fn last_kept_is_the_last_row_not_abandoned() {
        for n in 0..=4usize {
            for abandoned in 0..(1u32 << n) {
                let entries: Vec<Entry> = (0..n).map(|i| Entry { abandoned: abandoned & (1 << i) != 0, ..entry(i as u64 + 1, None, "x") }).collect();
                for befores in [vec![], vec![0], vec![n], vec![0, n], vec![n / 2, n / 2], vec![0, n / 2, n]] {
                    let markers: Vec<Marker> = befores
                        .iter()
                        .enumerate()
                        .map(|(k, &before)| Marker { id: format!("m{k}"), parent_id: None, before, timestamp: 1, event: json!({"type": "custom"}) })
                        .collect();
                    let rows = interleave(&entries, &markers);
                    let want = rows.iter().rev().find(|r| !r.abandoned()).map(|r| r.id());
                    assert_eq!(last_kept(&entries, &markers), want, "{n} entries, abandoned {abandoned:b}, markers before {befores:?}");
                }
            }
        }
    }

    #[test]
    fn iso_timestamps_match_javascript() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // new Date(1795458009779).toISOString() (the twin's header timestamp)
        assert_eq!(iso8601(1_795_458_009_779), "2026-11-23T18:20:09.779Z");
        assert_eq!(iso8601(951_782_400_001), "2000-02-29T00:00:00.001Z");
    }

    #[test]
    fn schema_digest_is_pinned() {
        let dir = tempfile_dir("schema");
        let conn = open(&agent_db_path(&dir, "main"), "main", 1).unwrap();
        let mut stmt = conn.prepare("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name").unwrap();
        let rows: Vec<String> = stmt
            .query_map([], |r| {
                Ok(format!(
                    "{}|{}|{}|{}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        let tables = rows.iter().filter(|r| r.starts_with("table|")).count();
        let digest = format!("{:x}", Sha256::digest(rows.join("\n").as_bytes()));
        insta::assert_snapshot!(format!(
            "user_version {version}\nobjects {}\ntables {tables}\nsha256 {digest}",
            rows.len()
        ));
        let _ = std::fs::remove_dir_all(dir);
    }

    /// The host's own events (2026.9.6: `thinking_level_change`, `custom`)
    /// take raw sequence numbers and sit on the parent chain between
    /// messages, with no message position (real store seen by `clawspec twin`).
    #[test]
    fn host_events_interleave_on_the_chain_but_are_not_messages() {
        use crate::runtime::transcript::Transcript;
        let dir = tempfile_dir("markers");
        let store = SqliteSession::new(agent_db_path(&dir, "main"), "main".into(), "agent:main:main".into());
        let mut t = Transcript::sqlite("sess-0001".into(), store);
        t.append(AgentMessage::user_text("q"), 1_795_000_000_001);
        let tlc = t.append_marker(json!({"type": "thinking_level_change", "thinkingLevel": "off"}), 1_795_000_000_002);
        let snap = t.append_marker(json!({"type": "custom", "customType": "model-snapshot", "data": {}}), 1_795_000_000_003);
        let a = t.append(AgentMessage::user_text("a"), 1_795_000_000_004);
        t.append_marker(json!({"type": "custom", "customType": "openclaw:bootstrap-context:full", "data": {}}), 1_795_000_000_005);
        t.flush(1_795_000_000_000).unwrap();
        // The answer hangs from the snapshot and is the 4th raw event.
        assert_eq!((t.entries[1].id.as_str(), t.entries[1].parent_id.as_deref(), t.raw_seq(1)), (a.as_str(), Some(snap.as_str()), 4));
        assert_eq!(t.markers[1].parent_id.as_deref(), Some(tlc.as_str()));
        let db = agent_db_path(&dir, "main");
        let texts: Vec<String> = read_visible_messages(&db, "sess-0001").unwrap().iter().map(|m| m["content"].as_str().unwrap().to_string()).collect();
        assert_eq!(texts, ["q", "a"]);
        let kinds = event_kinds(&db);
        assert_eq!(kinds, vec![(1, "message".into(), Some(0)), (2, "thinking_level_change".into(), None), (3, "custom".into(), None), (4, "message".into(), Some(1)), (5, "custom".into(), None)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// (seq, event type, message position) of sess-0001's active events.
    fn event_kinds(db: &std::path::Path) -> Vec<(i64, String, Option<i64>)> {
        let c = Connection::open(db).unwrap();
        let rows = c
            .prepare("SELECT i.seq, i.event_type, a.message_position FROM transcript_event_identities i JOIN session_transcript_active_events a ON a.session_id = i.session_id AND a.event_seq = i.seq WHERE i.session_id = 'sess-0001' ORDER BY i.seq")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        rows
    }

    /// A runtime-context carrier has no message position, as the admission
    /// receipt counts it (`turn::active_position`); when the two disagreed the
    /// SDK's read fence threw "Current-turn transcript admission identity
    /// changed" at lossless-claw 1.0's bootstrap (custom-roles-history).
    #[test]
    fn a_runtime_context_carrier_is_a_custom_message_without_a_message_position() {
        use crate::runtime::transcript::Transcript;
        let dir = tempfile_dir("carrier");
        let store = SqliteSession::new(agent_db_path(&dir, "main"), "main".into(), "agent:main:main".into());
        let mut t = Transcript::sqlite("sess-0001".into(), store);
        let carrier: AgentMessage = serde_json::from_value(json!({"role": "custom", "customType": "openclaw.runtime-context", "content": "ctx", "display": false,
            "details": {"source": "openclaw-runtime-context", "runtimeContextCarrier": true}, "timestamp": 1})).unwrap();
        assert!(carrier.is_runtime_context_carrier());
        t.append(AgentMessage::user_text("q"), 1_795_000_000_001);
        t.append(carrier, 1_795_000_000_002);
        t.append(AgentMessage::user_text("a"), 1_795_000_000_003);
        t.flush(1_795_000_000_000).unwrap();
        let db = agent_db_path(&dir, "main");
        let texts: Vec<String> = read_visible_messages(&db, "sess-0001").unwrap().iter().map(|m| m["content"].as_str().unwrap().to_string()).collect();
        assert_eq!(texts, ["q", "a"]);
        let kinds = event_kinds(&db);
        assert_eq!(kinds, vec![(1, "message".into(), Some(0)), (2, "custom_message".into(), None), (3, "message".into(), Some(1))]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The interrupted-turn guidance is a `custom_message` event without a
    /// message position, as the real 2026.9.6 store keeps it (twin --keep
    /// timeout-recovery: `transcript_events` seq 15 `custom_message`,
    /// `message_position` NULL, the next assistant one position after the
    /// aborted one).
    #[test]
    fn the_interrupted_turn_guidance_holds_no_message_position() {
        use crate::runtime::transcript::Transcript;
        let dir = tempfile_dir("guidance");
        let store = SqliteSession::new(agent_db_path(&dir, "main"), "main".into(), "agent:main:main".into());
        let mut t = Transcript::sqlite("sess-0001".into(), store);
        let guidance: AgentMessage = serde_json::from_value(json!({"role": "custom", "customType": crate::runtime::retry::TURN_ABORTED_CUSTOM_TYPE,
            "content": crate::runtime::retry::INTERRUPTED_TURN_GUIDANCE, "display": false, "timestamp": 2})).unwrap();
        assert!(is_custom_message_entry(&guidance) && !guidance.is_runtime_context_carrier());
        assert!(!is_custom_message_entry(&AgentMessage::user_text("q")));
        t.append(AgentMessage::user_text("q"), 1_795_000_000_001);
        t.append(guidance, 1_795_000_000_002);
        t.append(AgentMessage::user_text("a"), 1_795_000_000_003);
        t.flush(1_795_000_000_000).unwrap();
        let db = agent_db_path(&dir, "main");
        assert_eq!(event_kinds(&db), vec![(1, "message".into(), Some(0)), (2, "custom_message".into(), None), (3, "message".into(), Some(1))]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn appends_round_trip_and_only_write_new_rows() {
        let dir = tempfile_dir("roundtrip");
        let s = SqliteSession::new(
            agent_db_path(&dir, "main"),
            "main".into(),
            "agent:main:main".into(),
        );
        assert!(!s.exists("sess-0001"));
        let mut entries = vec![entry(1, None, "one"), entry(2, Some(1), "two")];
        let f = s
            .flush("sess-0001", 1_795_000_000_000, 1, &entries, None)
            .unwrap();
        assert!(s.exists("sess-0001"));
        entries.push(entry(3, Some(2), "three"));
        let f = s
            .flush("sess-0001", 1_795_000_000_000, 1, &entries, Some(f))
            .unwrap();
        assert_eq!(
            f,
            Flushed {
                entries: 3,
                abandon_epoch: 0,
                tail: Tail { entries: 3, markers: 0, latest: f.tail.latest }
            }
        );
        let texts = |ms: Vec<Value>| {
            ms.iter()
                .map(|m| m["content"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            texts(read_visible_messages(&s.db_path, "sess-0001").unwrap()),
            ["one", "two", "three"]
        );
        // An abandoned trailing user leaves the visible branch.
        entries[2].abandoned = true;
        entries.push(entry(4, Some(2), "four"));
        let f = s
            .flush("sess-0001", 1_795_000_000_000, 1, &entries, Some(f))
            .unwrap();
        assert_eq!(
            texts(read_visible_messages(&s.db_path, "sess-0001").unwrap()),
            ["one", "two", "four"]
        );
        let conn = Connection::open(&s.db_path).unwrap();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        assert_eq!(
            count("SELECT count(*) FROM transcript_events"),
            5,
            "header + 4 entries, none written twice"
        );
        assert_eq!(
            count("SELECT count(*) FROM session_transcript_active_events"),
            3
        );
        assert_eq!(
            count("SELECT active_message_count FROM session_transcript_index_state"),
            3
        );
        // A rewrite (compaction) replaces the rows.
        let rewritten = vec![entry(5, None, "summary")];
        s.flush("sess-0001", 1_795_000_000_000, 2, &rewritten, None)
            .unwrap();
        assert_eq!(
            texts(read_visible_messages(&s.db_path, "sess-0001").unwrap()),
            ["summary"]
        );
        assert_eq!(count("SELECT count(*) FROM transcript_events"), 2);
        assert_eq!(
            conn.query_row(
                "SELECT generation FROM transcript_rewrite_watermarks",
                [],
                |r| r.get::<_, String>(0)
            )
            .unwrap(),
            format!("{:032x}", 2)
        );
        let _ = f;
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn compressed_events_are_read_like_plain_ones() {
        // The real host's shape: large events as zstd frames, small ones as JSON text.
        let dir = tempfile_dir("zstd");
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("openclaw-agent.sqlite");
        let c = Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))").unwrap();
        let big = "the nightly pipeline failed. ".repeat(80);
        let e1 = serde_json::json!({"type": "message", "id": "a", "parentId": null, "message": {"role": "user", "content": big}}).to_string();
        let e2 = serde_json::json!({"type": "message", "id": "b", "parentId": "a", "message": {"role": "user", "content": "short"}}).to_string();
        let frame = ruzstd::encoding::compress_to_vec(e1.as_bytes(), ruzstd::encoding::CompressionLevel::Fastest);
        c.execute("INSERT INTO transcript_events VALUES ('s', 1, NULL, 0, ?1, ?2, '{}')", rusqlite::params![frame, e1.len() as i64]).unwrap();
        c.execute("INSERT INTO transcript_events VALUES ('s', 2, ?1, 0, NULL, NULL, NULL)", [e2]).unwrap();
        drop(c);
        let ms = read_visible_messages(&db, "s").unwrap();
        assert_eq!(ms.len(), 2, "the compressed event is on the chain");
        assert_eq!(ms[0]["content"], big);
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "clawspec-sqlite-store-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }
}
