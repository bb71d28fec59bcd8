//! The `window` reference engine, written to be read by engine authors:
//!
//! * keeps its own per-session store ([`store`]) fed by `ingest`,
//!   `ingestBatch`, `afterTurn` (new = `messages[prePromptMessageCount..]`),
//!   idempotent `commitTurn` and idempotent `bootstrap` from the OpenClaw
//!   JSONL session file;
//! * assembles from the host's pipeline history plus its compaction summary,
//!   newest-first within `tokenBudget`, never splitting tool pairs, always
//!   keeping the current turn and volatile live input ([`assemble`], [`fit`],
//!   [`volatile`]);
//! * compacts by asking the host's `llm.complete` for a summary ([`compact`]);
//! * follows subagents with rollback handles.
//!
//! Deterministic: no clocks, no randomness, BTreeMaps only. [`Mutation`]
//! switches in exactly one defect for the mutant engines.

mod assemble;
mod boot;
mod compact;
mod fit;
mod mutation;
mod store;
mod volatile;

use std::collections::BTreeMap;

use clawspec_contract::info::{CURRENT_TURN_FENCE_V1, TURN_ADVANCEMENT_IDEMPOTENCY_V1};
use clawspec_contract::*;
use serde_json::{json, Value};

pub use mutation::{mutation, Mutation, MUTATIONS};

use super::serve::{abort_signal, dispatch, Engine, Fail, HostLink, Outcome, Reply};
use crate::driver::delta::{Messages, Out};
use clawspec_contract::protocol::method;
use store::{AddPolicy, Commit, Session};

pub struct Window {
    mutation: Mutation,
    /// `engineConfig.ownsCompaction` (default false: the host keeps its
    /// overflow precheck and tool-result guard).
    owns_compaction: bool,
    /// `engineConfig.durable` (default true): declare `transcriptSemantics`
    /// and `commitTurn`, so 2026.8.2+ hosts admit durable turns to this engine.
    durable: bool,
    sessions: BTreeMap<String, Session>,
    /// Outstanding rollback handle → the child session it prepared.
    spawned: BTreeMap<String, String>,
    next_handle: u64,
    /// (childSessionKey, reason) of every `onSubagentEnded`, in order.
    ended: Vec<(String, String)>,
    /// What earlier bootstraps read from the SQLite transcript store.
    boot: boot::Reader,
}

/// Read in place: copying the whole history first doubled the cost of every
/// call of a long session.
fn parse_messages(v: &Value) -> Result<Vec<AgentMessage>, Fail> {
    use serde::Deserialize;
    Vec::<AgentMessage>::deserialize(v).map_err(|e| Fail::Threw(format!("window: cannot read messages: {e}")))
}

/// [`parse_messages`] of part of an array.
fn parse_slice(v: &[Value]) -> Result<Vec<AgentMessage>, Fail> {
    v.iter().map(|m| <AgentMessage as serde::Deserialize>::deserialize(m).map_err(|e| Fail::Threw(format!("window: cannot read messages: {e}")))).collect()
}

fn str_param<'a>(params: &'a Value, key: &str) -> &'a str {
    params.get(key).and_then(Value::as_str).unwrap_or_default()
}

impl Window {
    pub fn new(mutation: Mutation) -> Self {
        Window {
            mutation,
            owns_compaction: false,
            durable: true,
            sessions: BTreeMap::new(),
            spawned: BTreeMap::new(),
            next_handle: 0,
            ended: vec![],
            boot: boot::Reader::default(),
        }
    }

    /// Sessions are keyed by `sessionId` (what every lifecycle method carries).
    fn session(&mut self, params: &Value) -> &mut Session {
        let id = params.get("sessionId").and_then(Value::as_str).unwrap_or("default").to_string();
        self.sessions.entry(id).or_default()
    }

    fn policy(&self) -> AddPolicy {
        AddPolicy {
            keep_unpersisted_announces: self.mutation == Mutation::ReingestSuppressed,
            allow_duplicates: self.mutation == Mutation::NonIdempotentBootstrap,
        }
    }

    fn add(&mut self, params: &Value, ms: Vec<AgentMessage>) -> Result<usize, Fail> {
        self.check_custom(&ms)?;
        let policy = self.policy();
        Ok(self.session(params).add(ms, policy))
    }

    /// `assemble` of the shared history: what [`Engine::assemble`] answers,
    /// with the kept messages passed by pointer. `None` when a message is
    /// not an `AgentMessage` (the JSON path then answers the error).
    fn assemble_shared(&mut self, params: &Value, messages: &Messages) -> Option<Result<Reply, Fail>> {
        let sent = messages.msgs(..)?;
        let mutation = self.mutation;
        let a = assemble::assemble_msgs(sent, params, self.session(params), mutation);
        let result = json!({"messages": null, "estimatedTokens": a.estimated_tokens});
        Some(Ok(Reply::Messages { result, messages: a.messages.into_iter().map(Out::Msg).collect() }))
    }

    /// `afterTurn` of the shared snapshot: only the new messages are read
    /// (and each was parsed once, when it first arrived).
    fn after_turn_shared(&mut self, params: &Value, messages: &Messages) -> Option<Result<Reply, Fail>> {
        let pre = (params["prePromptMessageCount"].as_u64().unwrap_or(0) as usize).min(messages.len());
        let ms = messages.msgs(pre..)?;
        Some(self.add(params, ms.into_iter().map(Msg::into_message).collect()).map(|_| Reply::Value(Value::Null)))
    }

    /// `ingestBatch` of a shared batch.
    fn ingest_batch_shared(&mut self, params: &Value, messages: &Messages) -> Option<Result<Reply, Fail>> {
        let ms = messages.msgs(..)?;
        Some(self.add(params, ms.into_iter().map(Msg::into_message).collect()).map(|n| Reply::Value(json!({"ingestedCount": n}))))
    }

    /// The `crash-on-custom-role` defect: the process dies on a `custom` message.
    fn check_custom(&self, ms: &[AgentMessage]) -> Result<(), Fail> {
        if self.mutation == Mutation::CrashOnCustomRole && ms.iter().any(|m| matches!(m, AgentMessage::Custom(_))) {
            eprintln!("window: custom role — crashing (mutation)");
            std::process::exit(3);
        }
        Ok(())
    }
}

impl Engine for Window {
    fn initialize(&mut self, params: &Value) -> Value {
        let cfg = params.get("engineConfig").cloned().unwrap_or(Value::Null);
        if let Some(b) = cfg.get("ownsCompaction").and_then(Value::as_bool) {
            self.owns_compaction = b;
        }
        if let Some(b) = cfg.get("durable").and_then(Value::as_bool) {
            self.durable = b;
        }
        if self.mutation == Mutation::UndeclaredDurable {
            self.durable = false;
        }
        if self.mutation == Mutation::LeakHelper {
            // The defect: a background indexer started at initialize and never
            // stopped (no dispose/shutdown hook kills it).
            match std::process::Command::new("sleep").arg("3600").stdin(std::process::Stdio::null()).spawn() {
                Ok(child) => std::mem::forget(child),
                Err(e) => eprintln!("window: cannot start the helper: {e}"),
            }
        }
        let mut methods = vec!["bootstrap", "maintain", "ingestBatch", "afterTurn", "prepareSubagentSpawn", "onSubagentEnded", "dispose"];
        if self.mutation == Mutation::IngestBadShape {
            // Without afterTurn the host finalizes through ingestBatch/ingest.
            methods.retain(|m| *m != "afterTurn");
        }
        let mut info = json!({"id": "window", "name": "clawspec window engine", "version": env!("CARGO_PKG_VERSION"), "ownsCompaction": self.owns_compaction});
        if self.durable {
            // Both values, or `context-engine-admission.ts` runs admitted turns on legacy.
            methods.insert(4, "commitTurn");
            info["transcriptSemantics"] = json!({"currentTurnFence": CURRENT_TURN_FENCE_V1, "turnAdvancementIdempotency": TURN_ADVANCEMENT_IDEMPOTENCY_V1});
        }
        json!({
            "info": info,
            "methods": methods,
            "implementation": {"name": "clawspec-window", "version": env!("CARGO_PKG_VERSION"), "language": "rust", "homepage": "https://github.com/clawspec/clawspec"}
        })
    }

    fn call(&mut self, method: &str, params: Value, host: &mut HostLink<'_>) -> Outcome {
        if let Some(r) = self.mutation.before(method, &params) {
            return r;
        }
        let out = dispatch(self, method, params, host)?;
        Ok(self.mutation.after(method, out))
    }

    /// The methods that may be given a whole history (`assemble`,
    /// `afterTurn`, `ingestBatch`) work on the shared messages; each answers
    /// exactly what the JSON path would (`shared_path` tests). Everything
    /// else, every mutant (they read and corrupt params and results as
    /// JSON) and any history with a message that does not parse take the
    /// JSON path.
    fn call_shared(&mut self, m: &str, mut params: Value, messages: Messages, host: &mut HostLink<'_>) -> Result<Reply, Fail> {
        if self.mutation == Mutation::None {
            let shared = match m {
                method::ASSEMBLE => self.assemble_shared(&params, &messages),
                method::AFTER_TURN => self.after_turn_shared(&params, &messages),
                method::INGEST_BATCH => self.ingest_batch_shared(&params, &messages),
                _ => None,
            };
            if let Some(reply) = shared {
                return reply;
            }
        }
        messages.put_into(&mut params);
        self.call(m, params, host).map(Reply::Value)
    }

    fn ingest(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        let m = <AgentMessage as serde::Deserialize>::deserialize(&params["message"]).map_err(|e| Fail::Threw(format!("window: cannot read message: {e}")))?;
        let n = self.add(&params, vec![m])?;
        Ok(json!({"ingested": n > 0}))
    }

    fn ingest_batch(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        let ms = parse_messages(&params["messages"])?;
        let n = self.add(&params, ms)?;
        Ok(json!({"ingestedCount": n}))
    }

    /// `messages` is the assembled view plus the new turn; only
    /// `messages[prePromptMessageCount..]` is new (openclaw-contract.md §4.4).
    fn after_turn(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        let sent = params["messages"].as_array().map(Vec::as_slice);
        let pre = (params["prePromptMessageCount"].as_u64().unwrap_or(0) as usize).min(sent.map_or(0, <[Value]>::len));
        // Only the new messages are read: the host sends the whole history
        // every turn, and reading it all made a session quadratic. The
        // crash-on-custom defect looks at every message, as before.
        let ms = match sent {
            Some(sent) if self.mutation != Mutation::CrashOnCustomRole => parse_slice(&sent[pre..])?,
            _ => {
                let mut ms = parse_messages(&params["messages"])?;
                self.check_custom(&ms)?;
                ms.split_off(pre)
            }
        };
        self.add(&params, ms)?;
        Ok(Value::Null)
    }

    fn commit_turn(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        if !self.durable {
            return Err(Fail::NotImplemented);
        }
        let key = str_param(&params, "advancementKey");
        if params["admission"]["logicalTurnId"].as_str() != Some(key) {
            return Err(Fail::Threw(format!("commitTurn: advancementKey {key:?} does not match admission.logicalTurnId")));
        }
        // The committed range and its terminal entry identify the turn; host
        // extras such as runtimeSettings may differ between replays.
        let payload = json!([params["messages"], params["terminal"]["entryId"]]).to_string();
        let ms = parse_messages(&params["messages"])?;
        self.check_custom(&ms)?;
        let (policy, always) = (self.policy(), self.mutation == Mutation::CommitNeverDuplicate);
        let key = key.to_string();
        let done = if self.mutation == Mutation::CommitUpsert {
            self.session(&params).upsert(&key, payload, ms, policy)
        } else {
            self.session(&params).commit(&key, payload, ms, policy, always).map_err(Fail::Threw)?
        };
        match done {
            Commit::Committed => Ok(json!({"status": "committed"})),
            Commit::Duplicate => Ok(json!({"status": "duplicate"})),
        }
    }

    /// Import the session transcript; running it again imports nothing new.
    /// From whichever store the host keeps: the SQLite transcript store when
    /// `runtimeContext.transcriptStorage.kind` says so (2026.9.6, where
    /// `sessionFile` is the session key), else the JSONL `sessionFile`.
    fn bootstrap(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        let (ms, skipped, source) = if params["runtimeContext"]["transcriptStorage"]["kind"] == "sqlite" {
            // Only what the last bootstrap of this session did not import
            // (the rest would be known already: boot.rs).
            match self.boot.read(&params, !self.policy().allow_duplicates) {
                Ok(read) => (read.new, read.skipped, read.source),
                Err(e) => return Ok(json!({"bootstrapped": false, "reason": format!("cannot read the transcript store: {e}")})),
            }
        } else {
            let Some(path) = params.get("sessionFile").and_then(Value::as_str) else {
                return Ok(json!({"bootstrapped": false, "reason": "no sessionFile"}));
            };
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => return Ok(json!({"bootstrapped": false, "reason": format!("cannot read session file: {e}")})),
            };
            let (ms, skipped) = store::read_session_file(&text);
            (ms, skipped, path.to_string())
        };
        if skipped > 0 {
            eprintln!("window: bootstrap skipped {skipped} unreadable message(s) of {source}");
        }
        let n = self.add(&params, ms)?;
        Ok(json!({"bootstrapped": true, "importedMessages": n}))
    }

    fn assemble(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        if self.mutation == Mutation::CrashOnCustomRole {
            self.check_custom(&parse_messages(&params["messages"])?)?;
        }
        let mutation = self.mutation;
        let session = self.session(&params);
        assemble::assemble_owned(params, session, mutation).map_err(Fail::Threw)
    }

    fn compact(&mut self, params: Value, host: &mut HostLink<'_>) -> Outcome {
        let signal = abort_signal(&params);
        if self.mutation == Mutation::NoopCompact {
            return Ok(json!({"ok": true, "compacted": false, "reason": "not implemented"}));
        }
        if host.is_aborted(signal.as_deref()) {
            return Err(Fail::Aborted);
        }
        let mutation = self.mutation;
        let (kept_from, tokens_before) = match compact::plan(self.session(&params), &params, mutation) {
            compact::Plan::Nothing { reason } => return Ok(json!({"ok": true, "compacted": false, "reason": reason})),
            compact::Plan::Cover { kept_from, tokens_before } => (kept_from, tokens_before),
        };
        let request = compact::summary_request(self.session(&params), kept_from, &params, &host.current_call.clone());
        let summary = match host.request(clawspec_contract::protocol::method::HOST_LLM_COMPLETE, request) {
            Ok(v) => v.get("text").and_then(Value::as_str).unwrap_or_default().to_string(),
            Err(e) => {
                eprintln!("window: llm.complete failed ({e}); summarising by truncation");
                compact::fallback_summary(self.session(&params), kept_from)
            }
        };
        // An abort that fired while the model was summarising wins: the
        // store is left as it was.
        if host.is_aborted(signal.as_deref()) {
            return Err(Fail::Aborted);
        }
        let save = self.mutation != Mutation::CompactUnsavedSummary;
        Ok(compact::apply(self.session(&params), kept_from, tokens_before, summary, save))
    }

    fn maintain(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Ok(json!({"changed": false, "bytesFreed": 0, "rewrittenEntries": 0}))
    }

    fn prepare_subagent_spawn(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        self.next_handle += 1;
        let handle = format!("rb-{}", self.next_handle);
        self.spawned.insert(handle.clone(), str_param(&params, "childSessionKey").to_string());
        Ok(json!({"rollback": {"$handle": handle}}))
    }

    /// Undo a `prepareSubagentSpawn`: forget the child it recorded.
    fn rollback(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        let handle = str_param(&params, "handle");
        match self.spawned.remove(handle) {
            Some(_child) => Ok(Value::Null),
            None => Err(Fail::Threw(format!("unknown rollback handle {handle:?}"))),
        }
    }

    fn on_subagent_ended(&mut self, params: Value, _host: &mut HostLink<'_>) -> Outcome {
        self.ended.push((str_param(&params, "childSessionKey").into(), str_param(&params, "reason").into()));
        Ok(Value::Null)
    }

    /// The engine instance is done; the store is not. OpenClaw 2026.9.6
    /// resolves an engine per agent run and disposes it when the run ends
    /// (seen by `clawspec twin`), so a plugin keeps its sessions outside the
    /// instance (lossless-claw: SQLite). This process is the plugin, so its
    /// store outlives `dispose`, as do outstanding rollback handles.
    fn dispose(&mut self, _params: Value, _host: &mut HostLink<'_>) -> Outcome {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::serve::{script, FIRST_HOST_REQUEST_ID};
    use rstest::rstest;

    fn req(id: u64, m: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": m, "params": params})
    }

    fn init() -> Value {
        req(0, "initialize", json!({"protocolVersion": 1}))
    }

    /// Run `calls` (after initialize) and return each call's result or error, by id.
    fn drive(mutation: Mutation, calls: &[Value]) -> BTreeMap<u64, Value> {
        let mut lines = vec![init()];
        lines.extend_from_slice(calls);
        let (_, frames) = script(&mut Window::new(mutation), &lines);
        frames
            .into_iter()
            .filter_map(|f| {
                let id = f["id"].as_u64()?;
                (id < FIRST_HOST_REQUEST_ID).then(|| (id, f.get("result").cloned().unwrap_or_else(|| json!({"error": f["error"]}))))
            })
            .collect()
    }

    fn session_file(name: &str, lines: &[Value]) -> String {
        let dir = std::env::temp_dir().join(format!("clawspec-window-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        path.to_string_lossy().into_owned()
    }

    fn transcript() -> Vec<Value> {
        vec![
            json!({"type": "session", "version": 3, "id": "s1", "timestamp": 1, "cwd": "/w"}),
            json!({"type": "message", "id": "e1", "parentId": null, "timestamp": 2, "message": {"role": "user", "content": "hello", "timestamp": 2}}),
            json!({"type": "message", "id": "e2", "parentId": "e1", "timestamp": 3, "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "timestamp": 3}}),
        ]
    }

    #[test]
    fn declares_what_it_implements() {
        let (_, frames) = script(&mut Window::new(Mutation::None), &[init()]);
        let r = &frames[0]["result"];
        assert_eq!(r["protocolVersion"], 1);
        assert_eq!(r["info"]["id"], "window");
        assert_eq!(r["info"]["ownsCompaction"], false);
        assert_eq!(r["info"]["transcriptSemantics"], json!({"currentTurnFence": CURRENT_TURN_FENCE_V1, "turnAdvancementIdempotency": TURN_ADVANCEMENT_IDEMPOTENCY_V1}));
        assert_eq!(r["methods"], json!(["bootstrap", "maintain", "ingestBatch", "afterTurn", "commitTurn", "prepareSubagentSpawn", "onSubagentEnded", "dispose"]));
        // Every declared method answers (none is -32601).
        let calls: Vec<Value> = r["methods"].as_array().unwrap().iter().enumerate().map(|(i, m)| req(i as u64 + 1, m.as_str().unwrap(), json!({"sessionId": "s", "messages": [], "advancementKey": "k", "admission": {"logicalTurnId": "k"}, "terminal": {"entryId": "e"}}))).collect();
        for (id, r) in drive(Mutation::None, &calls) {
            assert_ne!(r["error"]["code"], -32601, "call {id}: {r}");
        }
    }

    #[test]
    fn non_durable_config_drops_commit_turn() {
        let (_, frames) = script(&mut Window::new(Mutation::None), &[req(0, "initialize", json!({"protocolVersion": 1, "engineConfig": {"durable": false, "ownsCompaction": true}})), req(1, "commitTurn", json!({}))]);
        assert!(frames[0]["result"]["info"].get("transcriptSemantics").is_none());
        assert_eq!(frames[0]["result"]["info"]["ownsCompaction"], true);
        assert!(!frames[0]["result"]["methods"].as_array().unwrap().contains(&json!("commitTurn")));
        assert_eq!(frames[1]["error"]["code"], -32601);
    }

    #[rstest]
    #[case::idempotent(Mutation::None, 2, 0)]
    #[case::nonidempotent_mutant(Mutation::NonIdempotentBootstrap, 2, 2)]
    fn bootstrap_twice(#[case] m: Mutation, #[case] first: u64, #[case] second: u64) {
        let path = session_file(&format!("boot-{m:?}.jsonl"), &transcript());
        let p = json!({"sessionId": "s1", "sessionFile": path});
        let r = drive(m, &[req(1, "bootstrap", p.clone()), req(2, "bootstrap", p.clone()), req(3, "compact", json!({"sessionId": "s1", "compactionTarget": "threshold"}))]);
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir(std::path::Path::new(&path).parent().unwrap());
        assert_eq!(r[&1], json!({"bootstrapped": true, "importedMessages": first}));
        assert_eq!(r[&2]["importedMessages"], second);
    }

    /// 2026.9.6: `sessionFile` is the session key; the session is read from the
    /// agent's SQLite store that `sessionTarget.storePath` points next to.
    #[test]
    fn bootstrap_reads_the_sqlite_transcript_store() {
        use crate::runtime::sqlite_store::{agent_db_path, SqliteSession};
        use crate::runtime::transcript::Entry;
        let state = std::env::temp_dir().join(format!("clawspec-window-sqlite-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&state);
        let store = SqliteSession::new(agent_db_path(&state, "main"), "main".into(), "agent:main:main".into());
        let entries: Vec<Entry> = transcript()[1..]
            .iter()
            .map(|l| Entry { id: l["id"].as_str().unwrap().into(), parent_id: l["parentId"].as_str().map(Into::into), timestamp: 2, message: serde_json::from_value(l["message"].clone()).unwrap(), abandoned: false })
            .collect();
        store.flush("s1", 1, 1, &entries, None).unwrap();
        let target = json!({"agentId": "main", "sessionId": "s1", "sessionKey": "agent:main:main", "storePath": state.join("agents/main/sessions/sessions.json")});
        let p = json!({"sessionId": "s1", "sessionKey": "agent:main:main", "sessionFile": "agent:main:main", "sessionTarget": target, "runtimeContext": {"transcriptStorage": {"kind": "sqlite"}}});
        let r = drive(Mutation::None, &[req(1, "bootstrap", p.clone()), req(2, "bootstrap", p)]);
        assert_eq!(r[&1], json!({"bootstrapped": true, "importedMessages": 2}));
        assert_eq!(r[&2]["importedMessages"], 0);
        let missing = json!({"sessionId": "s1", "sessionFile": "agent:main:main", "sessionTarget": {"sessionId": "s1", "storePath": "/nonexistent/clawspec/agents/main/sessions/sessions.json"}, "runtimeContext": {"transcriptStorage": {"kind": "sqlite"}}});
        let r = drive(Mutation::None, &[req(1, "bootstrap", missing)]);
        assert_eq!(r[&1]["bootstrapped"], false, "{}", r[&1]);
        let _ = std::fs::remove_dir_all(&state);
    }

    #[test]
    fn bootstrap_without_a_file() {
        let r = drive(Mutation::None, &[req(1, "bootstrap", json!({"sessionId": "s", "sessionFile": "/nonexistent/clawspec/x.jsonl"})), req(2, "bootstrap", json!({"sessionId": "s"}))]);
        assert_eq!(r[&1]["bootstrapped"], false);
        assert!(r[&1]["reason"].as_str().unwrap().contains("cannot read session file"));
        assert_eq!(r[&2], json!({"bootstrapped": false, "reason": "no sessionFile"}));
    }

    fn commit(id: u64, key: &str, turn: &str, text: &str) -> Value {
        req(id, "commitTurn", json!({"sessionId": "s", "advancementKey": key, "admission": {"logicalTurnId": turn}, "terminal": {"entryId": "e9"},
            "messages": [{"role": "user", "content": text, "timestamp": 5}], "runtimeSettings": {"id": id}}))
    }

    #[rstest]
    #[case::replay(Mutation::None, "t1", "a", json!({"status": "duplicate"}))]
    #[case::conflict(Mutation::None, "t1", "b", json!({"error": {"code": -32000, "message": "commitTurn: t1 was already committed with a different payload"}}))]
    #[case::next_turn(Mutation::None, "t2", "b", json!({"status": "committed"}))]
    #[case::never_duplicate_mutant(Mutation::CommitNeverDuplicate, "t1", "a", json!({"status": "committed"}))]
    fn commit_turn_is_idempotent(#[case] m: Mutation, #[case] key: &str, #[case] text: &str, #[case] second: Value) {
        let r = drive(m, &[commit(1, "t1", "t1", "a"), commit(2, key, key, text)]);
        assert_eq!(r[&1], json!({"status": "committed"}));
        assert_eq!(r[&2], second);
    }

    #[test]
    fn commit_turn_checks_the_admission() {
        let r = drive(Mutation::None, &[commit(1, "t1", "t0", "a")]);
        assert_eq!(r[&1]["error"]["code"], -32000);
        assert!(r[&1]["error"]["message"].as_str().unwrap().contains("admission.logicalTurnId"));
    }

    #[test]
    fn after_turn_stores_only_the_new_messages() {
        let ms = json!([{"role": "user", "content": "old", "timestamp": 1}, {"role": "user", "content": "new", "timestamp": 2}]);
        let mut w = Window::new(Mutation::None);
        let (_, frames) = script(&mut w, &[init(), req(1, "afterTurn", json!({"sessionId": "s", "messages": ms, "prePromptMessageCount": 1}))]);
        assert_eq!(frames[1]["result"], Value::Null);
        let texts: Vec<String> = w.sessions["s"].store.iter().map(AgentMessage::text).collect();
        assert_eq!(texts, ["new"]);
    }

    #[test]
    fn spawn_rollback_and_end() {
        let mut w = Window::new(Mutation::None);
        let (_, frames) = script(
            &mut w,
            &[
                init(),
                req(1, "prepareSubagentSpawn", json!({"parentSessionKey": "p", "childSessionKey": "c1"})),
                req(2, "prepareSubagentSpawn", json!({"parentSessionKey": "p", "childSessionKey": "c2"})),
                req(3, "rollback", json!({"handle": "rb-1"})),
                req(4, "rollback", json!({"handle": "rb-1"})),
                req(5, "onSubagentEnded", json!({"childSessionKey": "c2", "reason": "completed"})),
            ],
        );
        assert_eq!(frames[1]["result"], json!({"rollback": {"$handle": "rb-1"}}));
        assert_eq!(frames[2]["result"], json!({"rollback": {"$handle": "rb-2"}}));
        assert_eq!(frames[3]["result"], Value::Null);
        assert_eq!(frames[4]["error"]["code"], -32000, "a handle rolls back once");
        assert_eq!(w.spawned.values().collect::<Vec<_>>(), ["c2"]);
        assert_eq!(w.ended, [("c2".to_string(), "completed".to_string())]);
    }

    fn ten_turns() -> Value {
        let t = "0123456789012345678901234567890123456789";
        json!((0..20).map(|i| if i % 2 == 0 { json!({"role": "user", "content": t, "timestamp": i}) } else { json!({"role": "assistant", "content": [{"type": "text", "text": t}], "timestamp": i}) }).collect::<Vec<_>>())
    }

    #[test]
    fn compact_asks_the_host_then_assemble_uses_the_summary() {
        let ms = ten_turns();
        let (_, frames) = script(
            &mut Window::new(Mutation::None),
            &[
                init(),
                req(1, "ingestBatch", json!({"sessionId": "s", "messages": ms})),
                req(2, "compact", json!({"sessionId": "s", "tokenBudget": 100, "compactionTarget": "budget", "currentTokenCount": 250, "abortSignal": {"$abortSignal": "sig-1"}})),
                json!({"jsonrpc": "2.0", "id": FIRST_HOST_REQUEST_ID, "result": {"text": "the summary"}}),
                req(3, "assemble", json!({"sessionId": "s", "messages": ms, "tokenBudget": 100})),
            ],
        );
        assert_eq!(frames[1]["result"], json!({"ingestedCount": 20}));
        assert_eq!(frames[2]["method"], "host/llm.complete");
        assert_eq!(frames[2]["params"]["forCall"], 2);
        assert_eq!(frames[2]["params"]["messages"].as_array().unwrap().len(), 15);
        let r = &frames[3]["result"];
        assert_eq!(r["compacted"], true);
        assert_eq!(r["result"]["tokensBefore"], 250);
        assert_eq!(r["result"]["tokensAfter"], 3 + 50);
        let asm = &frames[4]["result"];
        assert_eq!(asm["messages"][0], json!({"role": "compactionSummary", "summary": "the summary", "tokensBefore": 0}));
        assert_eq!(asm["estimatedTokens"], 53);
    }

    #[test]
    fn an_aborted_compact_changes_nothing() {
        // The reader records the abort whenever it reads it: before the call
        // starts or while the model summarises; both end in an abort rejection.
        let ms = ten_turns();
        let r = drive(
            Mutation::None,
            &[
                req(1, "ingestBatch", json!({"sessionId": "s", "messages": ms})),
                req(2, "compact", json!({"sessionId": "s", "tokenBudget": 100, "abortSignal": {"$abortSignal": "sig-1"}})),
                json!({"jsonrpc": "2.0", "method": "$/abort", "params": {"signal": "sig-1", "reason": "timeout"}}),
                json!({"jsonrpc": "2.0", "id": FIRST_HOST_REQUEST_ID, "result": {"text": "late"}}),
                req(3, "assemble", json!({"sessionId": "s", "messages": ms})),
            ],
        );
        assert_eq!(r[&2]["error"]["code"], -32001);
        assert_eq!(r[&3]["messages"], ms, "no summary was recorded");
    }

    #[test]
    fn compact_with_nothing_to_compact() {
        let r = drive(Mutation::None, &[req(1, "compact", json!({"sessionId": "s", "tokenBudget": 100}))]);
        assert_eq!(r[&1], json!({"ok": true, "compacted": false, "reason": "nothing to compact"}));
    }

    #[test]
    fn a_failing_model_falls_back_to_truncation() {
        let ms = ten_turns();
        let r = drive(
            Mutation::None,
            &[
                req(1, "ingestBatch", json!({"sessionId": "s", "messages": ms})),
                req(2, "compact", json!({"sessionId": "s", "tokenBudget": 100})),
                json!({"jsonrpc": "2.0", "id": FIRST_HOST_REQUEST_ID, "error": {"code": -32603, "message": "model down"}}),
            ],
        );
        assert_eq!(r[&2]["compacted"], true);
        assert!(r[&2]["result"]["summary"].as_str().unwrap().starts_with("0123"));
    }

    #[test]
    fn unpersisted_announces_are_not_stored() {
        let announce = json!({"role": "user", "content": "child done", "timestamp": 1,
            "provenance": {"kind": "inter_session", "sourceSessionKey": "agent:main:subagent:1", "sourceChannel": "internal", "sourceTool": "subagent_announce"}});
        let r = drive(Mutation::None, &[req(1, "ingest", json!({"sessionId": "s", "message": announce})), req(2, "ingest", json!({"sessionId": "s", "message": {"role": "user", "content": "x"}}))]);
        assert_eq!(r[&1], json!({"ingested": false}));
        assert_eq!(r[&2], json!({"ingested": true}));
        let r = drive(Mutation::ReingestSuppressed, &[req(1, "ingest", json!({"sessionId": "s", "message": announce}))]);
        assert_eq!(r[&1], json!({"ingested": true}));
    }

    #[rstest]
    #[case::maintain("maintain", json!({"changed": false, "bytesFreed": 0, "rewrittenEntries": 0}))]
    #[case::dispose("dispose", Value::Null)]
    #[case::unknown("frobnicate", json!({"error": {"code": -32601, "message": "method not implemented: frobnicate"}}))]
    #[case::bad_message("ingest", json!({"error": {"code": -32000, "message": "window: cannot read message: missing field `role`"}}))]
    fn simple_methods(#[case] m: &str, #[case] expect: Value) {
        let r = drive(Mutation::None, &[req(1, m, json!({"sessionId": "s", "message": {"content": "x"}}))]);
        assert_eq!(r[&1], expect);
    }

    mod shared_path {
        //! The shared path (`call_shared`) answers byte for byte what the
        //! JSON path answers, with and without `messageDelta`.
        use super::*;
        use crate::engines::serve::{host_text, serve_text, JsonOnly};
        use proptest::prelude::*;

        /// The message(s) of one kind, numbered `n`: what a history holds,
        /// including messages serde does not write back as sent (keys in
        /// another order, a `null` optional field) and one that is not an
        /// `AgentMessage` at all.
        fn messages(kind: u8, n: u64) -> Vec<Value> {
            let text = "0123456789".repeat(1 + (n % 4) as usize);
            match kind {
                0 => vec![json!({"role": "user", "content": format!("q{n} {text}"), "timestamp": n})],
                1 => vec![json!({"role": "assistant", "content": [{"type": "text", "text": format!("a{n} {text}")}], "stopReason": "stop", "timestamp": n})],
                2 => vec![
                    json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("t{n}"), "name": "read", "arguments": {"path": text}}], "timestamp": n}),
                    json!({"role": "toolResult", "toolCallId": format!("t{n}"), "toolName": "read", "content": [{"type": "text", "text": text}], "isError": false, "timestamp": n}),
                ],
                3 => vec![json!({"content": format!("r{n}"), "timestamp": n, "role": "user"})],
                4 => vec![json!({"role": "assistant", "content": [{"type": "text", "text": format!("x{n}")}], "api": null, "timestamp": n})],
                5 => vec![json!({"role": "user", "vendor": {"k": [1, 2.5]}, "content": format!("v{n}"), "timestamp": n})],
                6 => vec![json!({"role": "user", "content": format!("f{n}"), "timestamp": n as f64 + 0.5})],
                7 => vec![json!({"role": "custom", "customType": "note", "content": format!("c{n}"), "display": false, "timestamp": n})],
                8 => vec![json!({"role": "user", "content": format!("{} from agent:main:subagent:1\n{text}", clawspec_contract::markers::INTER_SESSION_PREFIX), "timestamp": n})],
                9 => vec![json!({"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "timestamp": n})],
                _ => vec![json!({"role": "tool", "content": format!("not a message {n}")})],
            }
        }

        /// A session: per step, a prompt (assemble with the history), then
        /// the turn (afterTurn, sometimes ingestBatch of the new messages).
        fn session(steps: &[(Vec<u8>, u64, u8)]) -> Vec<(&'static str, Value)> {
            let mut history: Vec<Value> = Vec::new();
            let mut calls = Vec::new();
            for (i, (kinds, budget, style)) in steps.iter().enumerate() {
                let n = 100 * i as u64;
                let new: Vec<Value> = kinds.iter().enumerate().flat_map(|(j, &k)| messages(k, n + j as u64)).collect();
                let sent: Vec<Value> = history.iter().chain(&new).cloned().collect();
                let mut p = json!({"sessionId": "s", "messages": sent, "tokenBudget": budget});
                match style % 3 {
                    0 => p["prePromptMessageCount"] = json!(history.len()),
                    1 => p["prompt"] = json!("go on"),
                    _ => {}
                }
                calls.push(("assemble", p));
                let mut after = sent.clone();
                after.extend(messages(1, n + 99));
                calls.push(("afterTurn", json!({"sessionId": "s", "messages": after, "prePromptMessageCount": history.len()})));
                if style % 2 == 0 {
                    calls.push(("ingestBatch", json!({"sessionId": "s", "messages": new})));
                }
                history = after;
            }
            calls
        }

        fn both_paths(calls: &[(&str, Value)], delta: bool) -> (String, String) {
            let text = host_text(calls, delta);
            let shared = serve_text(&mut Window::new(Mutation::None), text.clone());
            let json = serve_text(&mut JsonOnly(Window::new(Mutation::None)), text);
            (String::from_utf8(shared).unwrap(), String::from_utf8(json).unwrap())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            #[test]
            fn same_bytes_as_the_json_path(steps in proptest::collection::vec((proptest::collection::vec(0u8..11, 1..4), 0u64..400, 0u8..6), 1..8)) {
                for delta in [true, false] {
                    let (shared, json) = both_paths(&session(&steps), delta);
                    prop_assert_eq!(shared, json);
                }
            }
        }

        /// Passed through, the history is answered as kept messages (the
        /// shared path is taken), and a compaction summary in front of it
        /// is answered in full, as by the JSON path.
        #[test]
        fn a_pass_through_is_a_delta_and_a_summary_is_not() {
            let steps: Vec<(Vec<u8>, u64, u8)> = (0..6).map(|i| (vec![0, 2], 100_000, i)).collect();
            let mut calls = session(&steps);
            let (shared, json) = both_paths(&calls, true);
            assert_eq!(shared, json);
            let last_assemble = shared.lines().filter(|l| l.contains("estimatedTokens")).last().unwrap().to_string();
            assert!(last_assemble.contains(r#""messages":{"$delta":{"base":"#), "{last_assemble}");
            // Compact what the engine stored, then assemble the same history.
            let history = calls.iter().rev().find(|(m, _)| *m == "afterTurn").unwrap().1["messages"].clone();
            calls.push(("compact", json!({"sessionId": "s", "tokenBudget": 100, "compactionTarget": "budget", "currentTokenCount": 5000})));
            calls.push(("", json!({"jsonrpc": "2.0", "id": FIRST_HOST_REQUEST_ID, "result": {"text": "the summary"}})));
            calls.push(("assemble", json!({"sessionId": "s", "messages": history, "tokenBudget": 100_000})));
            let (shared, json) = both_paths(&calls, true);
            assert_eq!(shared, json);
            let last = shared.lines().last().unwrap();
            assert!(last.contains(r#""messages":[{"role":"compactionSummary","summary":"the summary""#), "{last}");
        }
    }
}
