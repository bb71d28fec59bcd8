//! The window engine's own per-session store: what it has ingested (from
//! ingest / ingestBatch / afterTurn / commitTurn / bootstrap), what its last
//! compaction covered, and which durable turns it has committed.

use std::collections::{BTreeMap, BTreeSet};

use clawspec_contract::*;
use serde_json::Value;

use super::volatile;

/// How [`Session::add`] treats what it is given (mutations flip these).
#[derive(Clone, Copy, Debug, Default)]
pub struct AddPolicy {
    /// Store subagent announce triggers too (the runtime does not persist them).
    pub keep_unpersisted_announces: bool,
    /// Store a message again even if it is already there.
    pub allow_duplicates: bool,
}

#[derive(Default, Debug)]
pub struct Session {
    /// Ingested messages, oldest first.
    pub store: Vec<AgentMessage>,
    keys: BTreeSet<String>,
    /// Fingerprints of messages replaced by `summary`.
    pub covered: BTreeSet<String>,
    pub summary: Option<String>,
    /// advancementKey → the committed payload (for idempotent replays).
    commits: BTreeMap<String, String>,
}

/// Identity of a message across hooks: the same message reaches the engine
/// through bootstrap, afterTurn snapshots and commitTurn ranges, so a
/// role + timestamp + text key makes every path idempotent.
pub fn fingerprint(m: &AgentMessage) -> String {
    // Read from the field, not from the message serialised to JSON: that
    // was most of the cost of every add.
    let ts = m.timestamp().map_or(Value::Null, |n| Value::Number(n.clone()));
    format!("{}|{ts}|{}", m.role(), m.text())
}

/// What a `commitTurn` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Commit {
    Committed,
    Duplicate,
}

impl Session {
    /// Store the messages not seen before. Returns how many were stored.
    pub fn add(&mut self, ms: impl IntoIterator<Item = AgentMessage>, policy: AddPolicy) -> usize {
        let mut n = 0;
        for m in ms {
            // `shouldSuppressAgentPromptPersistence`: announce triggers are
            // live input, not history (shared/reference/real-plugins.md).
            if volatile::is_unpersisted_announce(&m) && !policy.keep_unpersisted_announces {
                continue;
            }
            if self.keys.insert(fingerprint(&m)) || policy.allow_duplicates {
                self.store.push(m);
                n += 1;
            }
        }
        n
    }

    /// Messages not covered by the compaction summary, oldest first.
    pub fn uncovered(&self) -> Vec<AgentMessage> {
        self.store.iter().filter(|m| !self.covered.contains(&fingerprint(m))).cloned().collect()
    }

    /// Idempotent turn advancement (`transcriptSemantics.turnAdvancementIdempotency:
    /// "atomic-idempotent-v1"`, openclaw `src/context-engine/types.ts`): the
    /// same key with the same payload is a `duplicate`; with another payload
    /// it is a conflict (an error). `payload` identifies what is committed.
    pub fn commit(
        &mut self,
        key: &str,
        payload: String,
        ms: Vec<AgentMessage>,
        policy: AddPolicy,
        always_commit: bool,
    ) -> Result<Commit, String> {
        match self.commits.get(key) {
            Some(prev) if *prev == payload && !always_commit => return Ok(Commit::Duplicate),
            Some(prev) if *prev != payload => {
                return Err(format!("commitTurn: {key} was already committed with a different payload"));
            }
            _ => {}
        }
        self.commits.insert(key.to_string(), payload);
        self.add(ms, policy);
        Ok(Commit::Committed)
    }

    /// The `commit-upsert` defect: the author treats commitTurn as a
    /// key-value upsert, so a second writer's different payload under a
    /// committed key silently wins and is reported `committed`.
    pub fn upsert(&mut self, key: &str, payload: String, ms: Vec<AgentMessage>, policy: AddPolicy) -> Commit {
        let known = self.commits.insert(key.to_string(), payload.clone());
        self.add(ms, policy);
        if known.as_deref() == Some(payload.as_str()) {
            Commit::Duplicate
        } else {
            Commit::Committed
        }
    }
}

/// The messages of an OpenClaw JSONL session file: a `{type:"session",…}`
/// header, then `{type:"message",id,parentId,timestamp,message}` lines
/// (openclaw `SessionManager`; shared/reference/real-plugins.md). Other entry
/// types and runtime-context carriers are not history; lines that are not
/// JSON or not a message are skipped, and counted in the second value.
pub fn read_session_file(text: &str) -> (Vec<AgentMessage>, usize) {
    let mut ms = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            skipped += 1;
            continue;
        };
        if v.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        match serde_json::from_value::<AgentMessage>(v["message"].clone()) {
            Ok(m) if m.is_runtime_context_carrier() => {}
            Ok(m) => ms.push(m),
            Err(_) => skipped += 1,
        }
    }
    (ms, skipped)
}

/// The visible messages of the session `params` names, from the agent's
/// SQLite transcript store (OpenClaw 2026.9.6). The database is the one
/// `sessionTarget.storePath` designates (the `.sqlite` itself, or the agent's
/// `sessions/sessions.json` index, whose sibling `agent/` dir holds it), else
/// `<state>/agents/<agentId>/agent/openclaw-agent.sqlite` as the SDK resolves
/// it, `<state>` being `$CLAWSPEC_OPENCLAW_STATE_DIR` (the reference runtime)
/// or `$OPENCLAW_STATE_DIR`. Returns the messages, how many were unreadable,
/// and the database path. The engine reads through [`super::boot::Reader`],
/// which is tested equal to this whole read.
#[cfg(test)]
pub fn read_sqlite_session(params: &Value) -> Result<(Vec<AgentMessage>, usize, String), String> {
    use crate::runtime::sqlite_store::read_visible_messages;
    let (db, session_id) = sqlite_db(params)?;
    let mut ms = Vec::new();
    let mut skipped = 0;
    for v in read_visible_messages(&db, &session_id)? {
        match serde_json::from_value::<AgentMessage>(v) {
            Ok(m) if m.is_runtime_context_carrier() => {}
            Ok(m) => ms.push(m),
            Err(_) => skipped += 1,
        }
    }
    Ok((ms, skipped, db.display().to_string()))
}

/// The database and the session id [`read_sqlite_session`] reads.
pub fn sqlite_db(params: &Value) -> Result<(std::path::PathBuf, String), String> {
    use crate::runtime::sqlite_store::agent_db_path;
    let target = &params["sessionTarget"];
    let session_id = target["sessionId"].as_str().or_else(|| params["sessionId"].as_str()).ok_or("no sessionId")?;
    let agent = target["agentId"].as_str().map(str::to_string).or_else(|| {
        let key = params["sessionKey"].as_str()?;
        key.strip_prefix("agent:")?.split(':').next().map(str::to_string)
    });
    let from_store_path = target["storePath"].as_str().map(std::path::Path::new).and_then(|p| {
        if p.extension().is_some_and(|e| e == "sqlite") {
            return Some(p.to_path_buf());
        }
        let agent_dir = p.parent()?.parent()?;
        (p.file_name()? == "sessions.json").then(|| agent_dir.join("agent").join("openclaw-agent.sqlite"))
    });
    let db = from_store_path
        .filter(|p| p.exists())
        .or_else(|| {
            let state = std::env::var_os("CLAWSPEC_OPENCLAW_STATE_DIR").or_else(|| std::env::var_os("OPENCLAW_STATE_DIR"))?;
            Some(agent_db_path(std::path::Path::new(&state), agent.as_deref()?))
        })
        .ok_or("no sessionTarget.storePath naming an existing store, and no OPENCLAW_STATE_DIR")?;
    Ok((db, session_id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn msg(v: Value) -> AgentMessage {
        serde_json::from_value(v).unwrap()
    }

    fn user(text: &str, ts: u64) -> AgentMessage {
        msg(json!({"role": "user", "content": text, "timestamp": ts}))
    }

    fn announce() -> AgentMessage {
        msg(json!({"role": "user", "content": "child done", "timestamp": 9,
            "provenance": {"kind": "inter_session", "sourceSessionKey": "agent:main:subagent:1", "sourceChannel": "internal", "sourceTool": "subagent_announce"}}))
    }

    #[rstest]
    #[case::new_messages(vec![user("a", 1), user("b", 2)], AddPolicy::default(), 2)]
    #[case::same_message_twice(vec![user("a", 1), user("a", 1)], AddPolicy::default(), 1)]
    #[case::same_text_other_time(vec![user("a", 1), user("a", 2)], AddPolicy::default(), 2)]
    #[case::announce_not_persisted(vec![announce()], AddPolicy::default(), 0)]
    #[case::announce_kept_by_mutation(vec![announce()], AddPolicy { keep_unpersisted_announces: true, ..Default::default() }, 1)]
    #[case::duplicates_by_mutation(vec![user("a", 1), user("a", 1)], AddPolicy { allow_duplicates: true, ..Default::default() }, 2)]
    fn add(#[case] ms: Vec<AgentMessage>, #[case] policy: AddPolicy, #[case] stored: usize) {
        let mut s = Session::default();
        assert_eq!(s.add(ms, policy), stored);
        assert_eq!(s.store.len(), stored);
    }

    #[rstest]
    #[case::first_commit(&[("t1", "p")], Ok(Commit::Committed))]
    #[case::replay_is_duplicate(&[("t1", "p"), ("t1", "p")], Ok(Commit::Duplicate))]
    #[case::conflict(&[("t1", "p"), ("t1", "q")], Err(()))]
    #[case::other_key(&[("t1", "p"), ("t2", "q")], Ok(Commit::Committed))]
    fn commit(#[case] calls: &[(&str, &str)], #[case] last: Result<Commit, ()>) {
        let mut s = Session::default();
        let mut got = Ok(Commit::Committed);
        for (i, (k, p)) in calls.iter().enumerate() {
            got = s.commit(k, p.to_string(), vec![user(p, i as u64)], AddPolicy::default(), false).map_err(|_| ());
        }
        assert_eq!(got, last);
    }

    #[test]
    fn a_duplicate_commit_stores_nothing_twice() {
        let mut s = Session::default();
        for _ in 0..3 {
            s.commit("t1", "p".into(), vec![user("a", 1), user("b", 2)], AddPolicy::default(), false).unwrap();
        }
        assert_eq!(s.store.len(), 2);
    }

    #[test]
    fn the_never_duplicate_defect_recommits() {
        let mut s = Session::default();
        s.commit("t1", "p".into(), vec![], AddPolicy::default(), true).unwrap();
        assert_eq!(s.commit("t1", "p".into(), vec![], AddPolicy::default(), true), Ok(Commit::Committed));
    }

    #[test]
    fn reads_openclaw_session_files() {
        let text = [
            json!({"type": "session", "version": 3, "id": "s1", "timestamp": 1, "cwd": "/w"}).to_string(),
            json!({"type": "message", "id": "e1", "parentId": null, "timestamp": 2, "message": {"role": "user", "content": "hi", "timestamp": 2}}).to_string(),
            json!({"type": "model_change", "id": "e2", "provider": "x"}).to_string(),
            "not json".to_string(),
            String::new(),
            json!({"type": "message", "id": "e3", "parentId": "e1", "timestamp": 3, "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}], "timestamp": 3}}).to_string(),
            json!({"type": "message", "id": "e4", "parentId": "e3", "timestamp": 4, "message": {"nope": true}}).to_string(),
        ]
        .join("\n");
        let (ms, skipped) = read_session_file(&text);
        assert_eq!(ms.iter().map(|m| m.text()).collect::<Vec<_>>(), ["hi", "hello"]);
        assert_eq!(skipped, 2);
    }

    #[test]
    fn uncovered_skips_what_the_summary_covers() {
        let mut s = Session::default();
        s.add([user("a", 1), user("b", 2)], AddPolicy::default());
        s.covered.insert(fingerprint(&user("a", 1)));
        assert_eq!(s.uncovered().iter().map(|m| m.text()).collect::<Vec<_>>(), ["b"]);
    }
}
