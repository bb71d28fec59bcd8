//! `bootstrap` from the SQLite transcript store without re-parsing the
//! whole session each time.
//!
//! OpenClaw 2026.9.6 bootstraps before every turn, and the session only
//! grows between turns, so reading and parsing every event again made each
//! bootstrap cost the whole history. Here every event row is parsed once:
//! each read compares every row's stored bytes with the bytes the previous
//! read of the session found at that place, and parses only rows that
//! differ (rows keyed by their exact stored bytes, so a rewritten transcript
//! is simply new rows). The messages of the visible path that the previous
//! bootstrap of the same session already imported are not offered to
//! [`super::store::Session::add`] again: adding them again stores nothing
//! (their fingerprints are known and fingerprints are never forgotten), so
//! only the rest is imported. Observable behaviour is that of
//! [`super::store::read_sqlite_session`] followed by adding every message
//! (tested below against it).
//!
//! Reading only what is new: the store's rewrite watermark
//! (`transcript_rewrite_watermarks.generation`) rotates with every
//! destructive replacement of a session's rows and holds across pure
//! appends (2026.9.6 dist session-accessor.sqlite-transcript-state-*.mjs
//! `rotateTranscriptGenerationInTransaction`; the reference host does the
//! same, `runtime/transcript.rs` `rewritten`), which is how the host itself
//! versions a transcript (`readTranscriptContextVersionInTransaction`: the
//! last `seq` and the generation). While the generation is the one the
//! previous read saw and the last `seq` has not gone back, the rows up to
//! it are unchanged: only the rows after it are read. Otherwise (a rewrite,
//! no watermark) every row is read and compared as above.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawspec_contract::AgentMessage;
use serde_json::Value;

/// One transcript event, as the visible-path walk needs it.
#[derive(Debug)]
pub struct Row {
    id: Option<String>,
    parent: Option<String>,
    /// `type == "session"` (never a leaf).
    header: bool,
    visible: Visible,
}

/// What a `type: "message"` event contributes to the history.
#[derive(Debug)]
enum Visible {
    /// Not a message event, or one without a `message` field.
    Nothing,
    /// A runtime-context carrier: not history.
    Carrier,
    Message(AgentMessage),
    /// Not an `AgentMessage`: counted as skipped.
    Unreadable,
}

fn parse_row(text: &str) -> Option<Row> {
    let v: Value = serde_json::from_str(text).ok()?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let visible = match (v.get("type").and_then(Value::as_str), v.get("message")) {
        (Some("message"), Some(m)) => match <AgentMessage as serde::Deserialize>::deserialize(m) {
            Ok(m) if m.is_runtime_context_carrier() => Visible::Carrier,
            Ok(m) => Visible::Message(m),
            Err(_) => Visible::Unreadable,
        },
        _ => Visible::Nothing,
    };
    Some(Row { id: s("id"), parent: s("parentId"), header: v["type"] == "session", visible })
}

/// Where a row's stored bytes are in [`Seen::bytes`]: its `event_json`
/// text, or (the real host, for long events) its `event_zstd` frame. Equal
/// bytes, equal event.
#[derive(Clone, Copy, Debug)]
struct Span {
    zstd: bool,
    start: usize,
    end: usize,
}

/// One session's events as the last read found them, in `seq` order.
#[derive(Default)]
struct Seen {
    /// The stored bytes of every row with a payload, end to end: the next
    /// read compares every row with them, and one buffer is read as one
    /// stream (a buffer per row was most of that comparison's cost).
    bytes: Vec<u8>,
    /// Every row with a payload: where its bytes are, and its parse
    /// (`None`: not JSON, left out of the events).
    rows: Vec<(Span, Option<Arc<Row>>)>,
    /// The parsed events (rows that are JSON), and their visible path.
    events: Vec<Arc<Row>>,
    by_id: HashMap<String, usize>,
    /// `None`: a `parentId` cycle.
    path: Option<Vec<Arc<Row>>>,
    /// The store's version of the session when read: (last `seq`, rewrite
    /// generation); `None` when it has no watermark.
    version: Option<(i64, String)>,
}

impl Seen {
    fn stored(&self, span: Span) -> (bool, &[u8]) {
        (span.zstd, &self.bytes[span.start..span.end])
    }
}

/// An open read-only connection, and the file it opened (device, inode;
/// `None`: not known, so not reused): a database replaced at the same path
/// is opened afresh.
struct Conn {
    conn: rusqlite::Connection,
    file: Option<(u64, u64)>,
}

/// Parsed rows and the last visible path read per (database, session).
#[derive(Default)]
pub struct Reader {
    /// Per (database, session id).
    seen: HashMap<(String, String), Seen>,
    /// Per (database, session id, the engine's session): the path the last
    /// bootstrap into that engine session imported.
    last: HashMap<(String, String, String), Vec<Arc<Row>>>,
    /// Opening a connection reads and parses the whole schema: once per
    /// database, not once per bootstrap.
    conns: HashMap<PathBuf, Conn>,
}

/// What one bootstrap read: the messages not imported by the previous
/// bootstrap of this session, how many of the whole path were unreadable,
/// and the database path.
pub struct Read {
    pub new: Vec<AgentMessage>,
    pub skipped: usize,
    pub source: String,
}

impl Reader {
    /// The session `params` names ([`super::store::sqlite_db`]); `since_last`
    /// false returns the whole visible path (a policy that stores duplicates
    /// must see every message again).
    pub fn read(&mut self, params: &Value, since_last: bool) -> Result<Read, String> {
        let (db, session_id) = super::store::sqlite_db(params)?;
        let source = db.display().to_string();
        let seen_key = (source.clone(), session_id.clone());
        let prev = self.seen.remove(&seen_key).unwrap_or_default();
        // A failed read keeps nothing: the next one starts afresh.
        let seen = self.events(&db, &session_id, prev)?;
        // A session with a cycle is not remembered: the next read starts afresh.
        let Some(path) = seen.path.clone() else { return Err(format!("{}: parentId cycle in session {session_id}", db.display())) };
        self.seen.insert(seen_key, seen);
        // The engine's own session the messages go to is part of the key.
        let engine_session = params.get("sessionId").and_then(Value::as_str).unwrap_or("default").to_string();
        let key = (source, session_id, engine_session);
        let known = match self.last.get(&key) {
            Some(prev) if since_last => prev.iter().zip(&path).take_while(|(a, b)| Arc::ptr_eq(a, b)).count(),
            _ => 0,
        };
        let skipped = path.iter().filter(|r| matches!(r.visible, Visible::Unreadable)).count();
        let new = path[known..]
            .iter()
            .filter_map(|r| match &r.visible {
                Visible::Message(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        self.last.insert(key.clone(), path);
        Ok(Read { new, skipped, source: key.0 })
    }

    /// The connection to `db`, opened once and reused while the file at
    /// the path is the one it opened (held open, that file keeps its inode,
    /// so another file there has another). Errors as opening it each time.
    fn conn(&mut self, db: &Path) -> Result<&rusqlite::Connection, String> {
        use std::os::unix::fs::MetadataExt;
        let file = std::fs::metadata(db).ok().map(|m| (m.dev(), m.ino()));
        let reuse = file.is_some() && self.conns.get(db).is_some_and(|c| c.file == file);
        if !reuse {
            self.conns.remove(db);
            let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| format!("cannot open {}: {e}", db.display()))?;
            self.conns.insert(db.to_path_buf(), Conn { conn, file });
        }
        Ok(&self.conns[db].conn)
    }

    /// Every event of the session, in `seq` order (what
    /// `runtime::sqlite_store::read_visible_messages` reads), parsed where
    /// its stored bytes differ from what `prev` found at its place, and the
    /// visible path. The real 2026.9.6 host stores events of 1 024 UTF-8
    /// bytes or more as zstd frames with `event_json` NULL
    /// (dist/transcript-payload-*.mjs `MIN_COMPRESS_BYTES`): skipping them
    /// broke the parent chain, so a seeded history of long messages
    /// bootstrapped as one message (`clawspec twin overflow-mid-turn`).
    fn events(&mut self, db: &Path, session_id: &str, prev: Seen) -> Result<Seen, String> {
        let at = |e: rusqlite::Error| format!("{}: {e}", db.display());
        /// Where each row's payload comes from: the previous read's row at
        /// that index, or these bytes (in `fresh_bytes`).
        enum Fresh {
            Same(usize),
            New(Span),
        }
        let mut fresh: Vec<Fresh> = Vec::with_capacity(prev.rows.len() + 16);
        let mut fresh_bytes: Vec<u8> = Vec::new();
        let mut version;
        {
            let conn = self.conn(db)?;
            let read_version = || {
                conn.prepare_cached("SELECT (SELECT MAX(seq) FROM transcript_events WHERE session_id = ?1), (SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?1)")
                    .and_then(|mut s| s.query_row([session_id], |r| Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<String>>(1)?))))
                    .ok()
                    .and_then(|(seq, generation)| Some((seq?, generation?)))
            };
            version = read_version();
            // Unchanged up to the last seq read: only what follows is read.
            let after = match (&prev.version, &version) {
                (Some((was, g0)), Some((now, g1))) if g0 == g1 && now >= was => {
                    fresh.extend((0..prev.rows.len()).map(Fresh::Same));
                    *was
                }
                _ => -1,
            };
            let mut stmt = conn.prepare_cached("SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq").map_err(at)?;
            let mut rows = stmt.query(rusqlite::params![session_id, after]).map_err(at)?;
            while let Some(r) = rows.next().map_err(at)? {
                let (json, zstd) = (r.get_ref(0).map_err(at)?, r.get_ref(1).map_err(at)?);
                // The columns as `Option<String>` and `Option<Vec<u8>>`
                // read them (borrowed): any other type is the error those
                // conversions give.
                let (json, zstd) = match (json.as_str_or_null(), zstd.as_blob_or_null()) {
                    (Ok(j), Ok(z)) => (j, z),
                    _ => {
                        let (_, _): (Option<String>, Option<Vec<u8>>) = (r.get(0).map_err(at)?, r.get(1).map_err(at)?);
                        unreachable!("the borrowed and owned conversions disagree")
                    }
                };
                let (zstd, bytes) = match (json, zstd) {
                    (Some(j), _) => (false, j.as_bytes()),
                    (None, Some(z)) => (true, z),
                    (None, None) => continue,
                };
                let i = fresh.len();
                if prev.rows.get(i).is_some_and(|&(span, _)| prev.stored(span) == (zstd, bytes)) {
                    fresh.push(Fresh::Same(i));
                } else {
                    let start = fresh_bytes.len();
                    fresh_bytes.extend_from_slice(bytes);
                    fresh.push(Fresh::New(Span { zstd, start, end: fresh_bytes.len() }));
                }
            }
            drop(rows);
            drop(stmt);
            // A write between the two reads: not trusted next time.
            if read_version() != version {
                version = None;
            }
        }
        let new_bytes = |span: Span| (span.zstd, &fresh_bytes[span.start..span.end]);
        // Rows that differ where the previous read had one: the session was
        // rewritten. Rows it moved are found by their bytes among the
        // previous read's (each parsed once) before being parsed again.
        let rewritten = fresh.iter().take(prev.rows.len()).any(|f| matches!(f, Fresh::New(_)));
        let moved: HashMap<(bool, &[u8]), &Option<Arc<Row>>> = if rewritten { prev.rows.iter().map(|(span, r)| (prev.stored(*span), r)).collect() } else { HashMap::new() };
        let mut parsed = Vec::with_capacity(fresh.len());
        for f in &fresh {
            parsed.push(match *f {
                Fresh::Same(j) => prev.rows[j].1.clone(),
                Fresh::New(span) => match moved.get(&new_bytes(span)) {
                    Some(row) => Option::clone(row),
                    None => {
                        let text = match new_bytes(span) {
                            (false, b) => std::str::from_utf8(b).expect("read as text").to_string(),
                            (true, frame) => crate::runtime::sqlite_store::decompress_event(frame).map_err(|e| format!("{}: a compressed transcript event: {e}", db.display()))?,
                        };
                        parse_row(&text).map(Arc::new)
                    }
                },
            });
        }
        drop(moved);
        // The session grew (every row the previous read saw is still there,
        // unchanged): its buffer is kept and the new rows' bytes appended.
        // Otherwise the buffer is rebuilt, once per rewrite.
        let grew = !rewritten && fresh.len() >= prev.rows.len();
        let (mut bytes, old) = if grew { (prev.bytes, Vec::new()) } else { (Vec::with_capacity(prev.bytes.len() + fresh_bytes.len()), prev.bytes) };
        let mut rows = Vec::with_capacity(fresh.len());
        for (f, row) in fresh.into_iter().zip(parsed) {
            let span = match f {
                Fresh::Same(j) if grew => prev.rows[j].0,
                Fresh::Same(j) => {
                    let Span { zstd, start, end } = prev.rows[j].0;
                    let from = bytes.len();
                    bytes.extend_from_slice(&old[start..end]);
                    Span { zstd, start: from, end: bytes.len() }
                }
                Fresh::New(Span { zstd, start, end }) => {
                    let from = bytes.len();
                    bytes.extend_from_slice(&fresh_bytes[start..end]);
                    Span { zstd, start: from, end: bytes.len() }
                }
            };
            rows.push((span, row));
        }
        let events: Vec<Arc<Row>> = rows.iter().filter_map(|(_, r)| r.clone()).collect();
        let (by_id, path) = if grew {
            // The previous events lead the new ones unchanged (the session
            // grew): the id index is extended, and the walk may stop at the
            // previous leaf.
            let mut by_id = prev.by_id;
            let mut ids_kept = true;
            for (i, e) in events.iter().enumerate().skip(prev.events.len()) {
                if let Some(id) = &e.id {
                    // Later events win a duplicate id, as a map collected in order does.
                    ids_kept &= by_id.insert(id.clone(), i).is_none();
                }
            }
            let path = visible_path(&events, &by_id, prev.path.as_deref().filter(|_| ids_kept));
            (by_id, path)
        } else {
            let by_id = events.iter().enumerate().filter_map(|(i, e)| Some((e.id.clone()?, i))).collect();
            let path = visible_path(&events, &by_id, None);
            (by_id, path)
        };
        Ok(Seen { bytes, rows, events, by_id, path, version })
    }
}

/// The path from the root to the leaf (the last event that is not the
/// session header), following `parentId` through `by_id` (id → the index of
/// the last event with it); `None` on a cycle. `prev`: the path of the same
/// session's previous read, when every event it was walked over is still
/// there under the same ids — a walk that reaches its leaf would go on as
/// it went then, so it stops there (and that path had no cycle).
fn visible_path(events: &[Arc<Row>], by_id: &HashMap<String, usize>, prev: Option<&[Arc<Row>]>) -> Option<Vec<Arc<Row>>> {
    let Some(mut at) = events.iter().rev().find(|e| !e.header) else { return Some(Vec::new()) };
    let mut tail = vec![at.clone()];
    loop {
        if let Some(prev) = prev.filter(|p| p.last().is_some_and(|leaf| Arc::ptr_eq(leaf, at))) {
            tail.pop();
            let mut path = Vec::with_capacity(prev.len() + tail.len());
            path.extend_from_slice(prev);
            path.extend(tail.into_iter().rev());
            return Some(path);
        }
        let Some(&parent) = at.parent.as_deref().and_then(|p| by_id.get(p)) else { break };
        if tail.len() > events.len() {
            return None;
        }
        at = &events[parent];
        tail.push(at.clone());
    }
    tail.reverse();
    Some(tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::window::store::{read_sqlite_session, AddPolicy, Session};
    use crate::runtime::sqlite_store::{agent_db_path, SqliteSession};
    use crate::runtime::transcript::Entry;
    use serde_json::json;

    fn entry(n: u64, parent: Option<u64>, text: &str) -> Entry {
        let message = serde_json::from_value(json!({"role": if n % 2 == 0 { "user" } else { "assistant" }, "content": [{"type": "text", "text": text}], "timestamp": n})).unwrap();
        Entry { id: format!("e{n}"), parent_id: parent.map(|p| format!("e{p}")), timestamp: n, message, abandoned: false }
    }

    /// The reference host's store for session `s1` in a fresh state dir,
    /// and the bootstrap params that point at it.
    fn reference_store(name: &str) -> (std::path::PathBuf, SqliteSession, serde_json::Value) {
        let state = std::env::temp_dir().join(format!("clawspec-window-boot-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&state);
        let store = SqliteSession::new(agent_db_path(&state, "main"), "main".into(), "agent:main:main".into());
        let target = json!({"agentId": "main", "sessionId": "s1", "sessionKey": "agent:main:main", "storePath": state.join("agents/main/sessions/sessions.json")});
        let params = json!({"sessionId": "s1", "sessionKey": "agent:main:main", "sessionTarget": target});
        (state, store, params)
    }

    /// A session that grows, is rewritten (a summary first, then the kept
    /// tail under new ids), branches back and grows again: each bootstrap
    /// imports what reading the whole session and adding it imports.
    #[test]
    fn imports_what_a_full_read_imports() {
        let (state, store, params) = reference_store("full");
        let chain = |from: u64, to: u64, root: Option<u64>| -> Vec<Entry> { (from..to).map(|n| entry(n, if n == from { root } else { Some(n - 1) }, &format!("m{n}"))).collect() };
        let mut grown = chain(1, 4, None);
        let steps: Vec<Vec<Entry>> = vec![
            grown.clone(),
            {
                grown.extend(chain(4, 7, Some(3)));
                grown.clone()
            },
            grown.clone(),
            // Rewritten in place, as a tool-result truncation does: same
            // ids and seqs, one message's text changed.
            {
                grown[1] = entry(2, Some(1), "m2, truncated");
                grown.clone()
            },
            {
                grown.extend(chain(7, 9, Some(6)));
                grown.clone()
            },
            // Fewer rows than the last read.
            grown[..5].to_vec(),
            grown.clone(),
            // Rewritten: a different first message, then the tail again under new ids.
            [vec![entry(100, None, "summary")], chain(101, 104, Some(100))].concat(),
            // A branch off an older entry.
            [vec![entry(100, None, "summary")], chain(101, 104, Some(100)), chain(200, 202, Some(101))].concat(),
        ];
        // The watermark as the host keeps it: rotated by every rewrite, held
        // across appends (so the reads after an append read only new rows).
        let generations = [1u64, 1, 1, 2, 2, 3, 3, 4, 4];
        let (mut reader, mut fast, mut full) = (Reader::default(), Session::default(), Session::default());
        for (i, entries) in steps.iter().enumerate() {
            store.flush("s1", 1, generations[i], entries, None).unwrap();
            let read = reader.read(&params, true).unwrap();
            let (all, skipped, source) = read_sqlite_session(&params).unwrap();
            assert_eq!((read.skipped, &read.source), (skipped, &source));
            assert!(read.new.len() <= all.len());
            let policy = AddPolicy::default();
            assert_eq!(fast.add(read.new, policy), full.add(all.clone(), policy), "step {i}");
            assert_eq!(fast.store, full.store, "step {i}");
            // The whole path, when asked for it.
            let again = reader.read(&params, false).unwrap();
            assert_eq!(again.new, all, "step {i}");
        }
        let _ = std::fs::remove_dir_all(&state);
    }

    /// While the watermark holds, rows up to the last `seq` read are not read
    /// again: a row changed in place without rotating it (which no host
    /// does) goes unseen, and the rotation that comes with every real
    /// rewrite makes the next read see it.
    #[test]
    fn rows_read_before_are_trusted_while_the_generation_holds() {
        let (state, store, params) = reference_store("gen");
        let mut entries = vec![entry(1, None, "one"), entry(2, Some(1), "two")];
        let texts = |r: &mut Reader| r.read(&params, false).unwrap().new.iter().map(|m| m.text()).collect::<Vec<_>>();
        let mut reader = Reader::default();
        store.flush("s1", 1, 7, &entries, None).unwrap();
        assert_eq!(texts(&mut reader), ["one", "two"]);
        entries[1] = entry(2, Some(1), "two, changed");
        entries.push(entry(3, Some(2), "three"));
        store.flush("s1", 1, 7, &entries, None).unwrap();
        assert_eq!(texts(&mut reader), ["one", "two", "three"], "same generation: only the new row was read");
        store.flush("s1", 1, 8, &entries, None).unwrap();
        assert_eq!(texts(&mut reader), ["one", "two, changed", "three"], "rotated: every row read again");
        let _ = std::fs::remove_dir_all(&state);
    }

    /// A fresh database holding only the real store's `transcript_events`
    /// table, for rows the reference host never writes.
    fn raw_events_db(name: &str) -> (std::path::PathBuf, std::path::PathBuf, rusqlite::Connection) {
        let dir = std::env::temp_dir().join(format!("clawspec-window-boot-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("openclaw-agent.sqlite");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))").unwrap();
        (dir, db, c)
    }

    /// An appended event that reuses the id of one the previous path went
    /// through: the later event wins, so the walk cannot stop at the
    /// previous leaf (it would keep the earlier event). The reference host
    /// never writes such ids (its identity table is unique), hence raw rows.
    #[test]
    fn a_reused_id_is_walked_again() {
        let (dir, db, c) = raw_events_db("ids");
        let event = |id: &str, parent: Option<&str>, text: &str, ts: u64| json!({"type": "message", "id": id, "parentId": parent, "message": {"role": "user", "content": text, "timestamp": ts}}).to_string();
        let insert = |seq: i64, e: String| c.execute("INSERT INTO transcript_events VALUES ('s1', ?1, ?2, 0, NULL, NULL, NULL)", rusqlite::params![seq, e]).unwrap();
        insert(1, event("a", None, "first", 1));
        insert(2, event("b", Some("a"), "second", 2));
        let params = json!({"sessionId": "s1", "sessionTarget": {"sessionId": "s1", "storePath": db}});
        let mut reader = Reader::default();
        assert_eq!(reader.read(&params, false).unwrap().new, read_sqlite_session(&params).unwrap().0);
        insert(3, event("a", None, "first, again", 3));
        insert(4, event("c", Some("b"), "third", 4));
        let all = read_sqlite_session(&params).unwrap().0;
        assert_eq!(all.iter().map(|m| m.text()).collect::<Vec<_>>(), ["first, again", "second", "third"]);
        assert_eq!(reader.read(&params, false).unwrap().new, all);
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The real host's shape: a long event is a zstd frame with
    /// `event_json` NULL; it is part of the chain and imported.
    #[test]
    fn compressed_events_are_imported() {
        let (dir, db, c) = raw_events_db("zstd");
        let big = "the nightly pipeline failed. ".repeat(80);
        let e1 = json!({"type": "message", "id": "a", "parentId": null, "message": {"role": "user", "content": big, "timestamp": 1}}).to_string();
        let e2 = json!({"type": "message", "id": "b", "parentId": "a", "message": {"role": "user", "content": "short", "timestamp": 2}}).to_string();
        let frame = ruzstd::encoding::compress_to_vec(e1.as_bytes(), ruzstd::encoding::CompressionLevel::Fastest);
        c.execute("INSERT INTO transcript_events VALUES ('s1', 1, NULL, 0, ?1, ?2, '{}')", rusqlite::params![frame, e1.len() as i64]).unwrap();
        c.execute("INSERT INTO transcript_events VALUES ('s1', 2, ?1, 0, NULL, NULL, NULL)", [e2]).unwrap();
        drop(c);
        let params = json!({"sessionId": "s1", "sessionTarget": {"sessionId": "s1", "storePath": db}});
        let mut reader = Reader::default();
        let read = reader.read(&params, true).unwrap();
        assert_eq!(read.new.len(), 2, "the compressed event is on the chain");
        // Read again, the frame is matched by its bytes (not decompressed).
        assert_eq!(reader.read(&params, true).unwrap().new.len(), 0);
        assert_eq!(reader.read(&params, false).unwrap().new, read.new);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
