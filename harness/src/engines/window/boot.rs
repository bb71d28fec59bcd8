//! `bootstrap` from the SQLite transcript store without re-reading the
//! whole session each time.
//!
//! OpenClaw 2026.9.6 bootstraps before every turn, and the session only
//! grows between turns, so reading and parsing every event again made each
//! bootstrap cost the whole history (~14 % of a long session's CPU). Here
//! every event row is parsed once per engine process (rows are keyed by their
//! exact JSON text, so a rewritten transcript is simply new rows), and the
//! messages of the visible path that the previous bootstrap of the same
//! session already imported are not offered to [`super::store::Session::add`]
//! again: adding them again stores nothing (their fingerprints are known and
//! fingerprints are never forgotten), so only the rest is imported.
//! Observable behaviour is that of [`super::store::read_sqlite_session`]
//! followed by adding every message (tested below against it).

use std::collections::HashMap;
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

/// Parsed rows and the last visible path read per (database, session).
#[derive(Default)]
pub struct Reader {
    rows: HashMap<String, Option<Arc<Row>>>,
    last: HashMap<(String, String, String), Vec<Arc<Row>>>,
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
        let texts = event_texts(&db, &session_id)?;
        let events: Vec<Arc<Row>> = texts
            .into_iter()
            .filter_map(|t| self.rows.entry(t).or_insert_with_key(|t| parse_row(t).map(Arc::new)).clone())
            .collect();
        let path = visible_path(&events).ok_or_else(|| format!("{}: parentId cycle in session {session_id}", db.display()))?;
        // The engine's own session the messages go to is part of the key.
        let engine_session = params.get("sessionId").and_then(Value::as_str).unwrap_or("default").to_string();
        let key = (db.display().to_string(), session_id, engine_session);
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
}

/// Every event's JSON text, in `seq` order (what
/// `runtime::sqlite_store::read_visible_messages` reads). The real 2026.9.6
/// host stores events of 1 024 UTF-8 bytes or more as zstd frames with
/// `event_json` NULL (dist/transcript-payload-*.mjs `MIN_COMPRESS_BYTES`):
/// skipping them broke the parent chain, so a seeded history of long
/// messages bootstrapped as one message (`clawspec twin overflow-mid-turn`).
fn event_texts(db: &std::path::Path, session_id: &str) -> Result<Vec<String>, String> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| format!("cannot open {}: {e}", db.display()))?;
    let mut stmt = conn
        .prepare("SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ?1 ORDER BY seq")
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let rows: Vec<(Option<String>, Option<Vec<u8>>)> = stmt
        .query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let mut texts = Vec::with_capacity(rows.len());
    for row in rows {
        match row {
            (Some(json), _) => texts.push(json),
            (None, Some(frame)) => texts.push(
                crate::runtime::sqlite_store::decompress_event(&frame).map_err(|e| format!("{}: a compressed transcript event: {e}", db.display()))?,
            ),
            (None, None) => {}
        }
    }
    Ok(texts)
}

/// The path from the root to the leaf (the last event that is not the
/// session header), following `parentId`; None on a cycle.
fn visible_path(events: &[Arc<Row>]) -> Option<Vec<Arc<Row>>> {
    // Later events win a duplicate id, as a map collected in order does.
    let by_id: HashMap<&str, &Arc<Row>> = events.iter().filter_map(|e| Some((e.id.as_deref()?, e))).collect();
    let Some(mut at) = events.iter().rev().find(|e| !e.header) else { return Some(Vec::new()) };
    let mut path = vec![at.clone()];
    while let Some(parent) = at.parent.as_deref().and_then(|p| by_id.get(p)) {
        if path.len() > events.len() {
            return None;
        }
        at = parent;
        path.push(at.clone());
    }
    path.reverse();
    Some(path)
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

    /// A session that grows, is rewritten (a summary first, then the kept
    /// tail under new ids), branches back and grows again: each bootstrap
    /// imports what reading the whole session and adding it imports.
    #[test]
    fn imports_what_a_full_read_imports() {
        let state = std::env::temp_dir().join(format!("clawspec-window-boot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&state);
        let store = SqliteSession::new(agent_db_path(&state, "main"), "main".into(), "agent:main:main".into());
        let target = json!({"agentId": "main", "sessionId": "s1", "sessionKey": "agent:main:main", "storePath": state.join("agents/main/sessions/sessions.json")});
        let params = json!({"sessionId": "s1", "sessionKey": "agent:main:main", "sessionTarget": target});
        let chain = |from: u64, to: u64, root: Option<u64>| -> Vec<Entry> { (from..to).map(|n| entry(n, if n == from { root } else { Some(n - 1) }, &format!("m{n}"))).collect() };
        let mut grown = chain(1, 4, None);
        let steps: Vec<Vec<Entry>> = vec![
            grown.clone(),
            {
                grown.extend(chain(4, 7, Some(3)));
                grown.clone()
            },
            grown.clone(),
            // Rewritten: a different first message, then the tail again under new ids.
            [vec![entry(100, None, "summary")], chain(101, 104, Some(100))].concat(),
            // A branch off an older entry.
            [vec![entry(100, None, "summary")], chain(101, 104, Some(100)), chain(200, 202, Some(101))].concat(),
        ];
        let (mut reader, mut fast, mut full) = (Reader::default(), Session::default(), Session::default());
        for (i, entries) in steps.iter().enumerate() {
            store.flush("s1", 1, i as u64, entries, None).unwrap();
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

    /// The real host's shape: a long event is a zstd frame with
    /// `event_json` NULL; it is part of the chain and imported.
    #[test]
    fn compressed_events_are_imported() {
        let dir = std::env::temp_dir().join(format!("clawspec-window-boot-zstd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("openclaw-agent.sqlite");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))").unwrap();
        let big = "the nightly pipeline failed. ".repeat(80);
        let e1 = json!({"type": "message", "id": "a", "parentId": null, "message": {"role": "user", "content": big, "timestamp": 1}}).to_string();
        let e2 = json!({"type": "message", "id": "b", "parentId": "a", "message": {"role": "user", "content": "short", "timestamp": 2}}).to_string();
        let frame = ruzstd::encoding::compress_to_vec(e1.as_bytes(), ruzstd::encoding::CompressionLevel::Fastest);
        c.execute("INSERT INTO transcript_events VALUES ('s1', 1, NULL, 0, ?1, ?2, '{}')", rusqlite::params![frame, e1.len() as i64]).unwrap();
        c.execute("INSERT INTO transcript_events VALUES ('s1', 2, ?1, 0, NULL, NULL, NULL)", [e2]).unwrap();
        drop(c);
        let params = json!({"sessionId": "s1", "sessionTarget": {"sessionId": "s1", "storePath": db}});
        let read = Reader::default().read(&params, true).unwrap();
        assert_eq!(read.new.len(), 2, "the compressed event is on the chain");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
