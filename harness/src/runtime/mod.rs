//! The reference runtime: a simulation of OpenClaw's embedded runner driving one
//! engine process through a scripted scenario, exactly as a given OpenClaw
//! version (profile) does. The runtime never knows which engine it drives.
//!
//! Where things happen: a step becomes a turn input in [`steps`]; the turn and
//! attempt loop (bootstrap → assemble → model loop → recovery → finalize) is in
//! [`turn`]; every engine call is built in `turn`/`steps`, sent and recorded by
//! [`Sim::call`], and checked later from the trace by `crate::check`.

pub mod callbacks;
pub mod channel;
pub mod clock;
pub mod command;
pub mod compact;
pub mod compact_2026_9;
pub mod entry;
pub mod history;
pub mod hooks;
pub mod inject;
pub mod model;
pub mod pi_compaction;
pub mod pi_session;
pub mod pipeline;
pub mod prefix_facts;
pub mod profile;
pub mod prompt;
pub mod replay;
mod replay_2026_4;
pub mod retry;
pub mod settings;
pub mod sqlite_store;
pub mod steps;
pub mod subagent;
pub mod tool_result_truncation;
pub mod transcript;
pub mod turn;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clawspec_contract::protocol::{method, HostOffers, Implementation, InitializeParams, PROTOCOL_VERSION};
use clawspec_contract::*;
use serde_json::Value;

pub use crate::driver::delta::ResultMessage;
pub use crate::driver::CallParams;
use crate::driver::{CallOptions, DriverConfig, Engine, EngineFault, EngineSpec, Reply};
use crate::scenario::model::{Scenario, Setup};
use crate::trace::*;
use callbacks::Callbacks;
use clock::{Clock, Ids};
use model::ModelClient;
use profile::Profile;
use transcript::Transcript;

/// How to run scenarios.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub engine: EngineSpec,
    pub driver: DriverConfig,
    /// Parent of the per-run state dirs (session files live there).
    pub state_root: PathBuf,
    /// Overrides `initialize.engineConfig` for every scenario.
    pub engine_config: Option<Value>,
    /// Send every model call through the scenario provider's HTTP mock.
    pub via_http: bool,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum Abort {
    Fault(EngineFault),
    Harness(String),
}

impl From<EngineFault> for Abort {
    fn from(f: EngineFault) -> Self {
        Abort::Fault(f)
    }
}

/// What a lifecycle call produced, as the runtime reacts to it.
#[derive(Clone, Debug, PartialEq)]
pub enum CallOutcome {
    /// The result; with the messages of a result the engine sent as a delta
    /// on the request (`messages` is then `null` in the value): the
    /// request's own messages by pointer, then what the engine added.
    Returned(Value, Option<Vec<ResultMessage>>),
    Threw(String),
    /// The engine does not implement the method (or the turn runs on legacy).
    Absent,
}

/// One scenario × profile run.
pub struct Sim<'a> {
    pub profile: &'a Profile,
    pub scenario: &'a Scenario,
    pub setup: Setup,
    pub engine: Option<Engine>,
    pub info: ContextEngineInfo,
    pub methods: Vec<String>,
    pub clock: Clock,
    pub ids: Ids,
    pub transcript: Transcript,
    pub events: Vec<Event>,
    /// The messages `events` reference (see `trace::store`).
    pub store: crate::trace::MessageStore,
    pub seq: u32,
    pub turn: u32,
    pub attempt: u32,
    pub step: usize,
    pub model: Box<dyn ModelClient + 'a>,
    pub state_dir: PathBuf,
    pub driver: DriverConfig,
    /// Texts the runtime did not persist (suppressed announce triggers).
    pub unpersisted: Vec<String>,
    /// Internal events carried by a message, keyed by its text (RFC alignment).
    pub events_by_text: BTreeMap<String, Vec<AgentInternalEvent>>,
    /// The current turn is served by the built-in legacy engine (2026.8+ durable
    /// admission of a non-durable engine).
    pub on_legacy: bool,
    /// Quarantined after a throw on a standalone path (2026.9.6).
    pub quarantined: bool,
    /// A commitTurn to replay before the next turn (outbox).
    pub outbox: Option<Value>,
    pub rollbacks: BTreeMap<String, String>,
    /// Children spawned by a `sessions_spawn` tool call of this run (`subagent`).
    pub live_children: Vec<subagent::LiveChild>,
    /// The current run is a spawned child's own run: the requester's session
    /// key and the child's run id (the host-minted one its receipt names).
    pub subagent_of: Option<(String, String)>,
    /// 2026.4.26 after a `sessions_spawn` tool call / a completion announce
    /// run in this session (`runtime::subagent::Spawned4x`).
    pub spawned_4x: subagent::Spawned4x,
    pub failed_turns: Vec<String>,
    /// Prompt tokens of the last model request that failed (timeout recovery).
    pub failed_prompt_tokens: u64,
    /// pi auto-compactions of the current attempt (2026.4.26, `runtime::pi_session`).
    pub pi_compactions: u32,
    /// A 2026.4.26 attempt is being finalized: its runtimeContext always
    /// carries the attempt's prompt-cache info (`runtime::entry`).
    pub finalizing: bool,
    /// The current attempt's assemble budget (runtimeSettings on its hooks).
    pub attempt_budget: Option<u64>,
    /// Prompt tokens of the last model call (afterTurn `currentTokenCount`).
    pub last_prompt_tokens: u64,
    /// When the current run's last model call answered (2026.4.26
    /// `runtimeContext.promptCache.lastCacheTouchAt`); reset per run.
    pub run_cache_touch: Option<u64>,
    /// 2026.9.6: the failover reason of the run's transient retry, carried
    /// by the retry attempts' runtimeSettings (`runtime::retry`); reset per run.
    pub retry_fallback_reason: Option<&'static str>,
    /// The current run is a 2026.9.6 heartbeat poll, which comes in through
    /// the heartbeat runner rather than a gateway client (`runtime::entry`).
    pub heartbeat_run: bool,
    /// System events the gateway's command layer queued on the session
    /// (2026.4.26 `/compact`: `enqueueSystemEvent(line)`), drained into the
    /// next user turn's prompt before that turn's own events.
    pub pending_system_events: Vec<String>,
    /// The current run's remaining scripted replies while a recovery
    /// compaction runs (`Callbacks::llm_script`).
    pub llm_script: Option<std::collections::VecDeque<crate::scenario::model::ModelReply>>,
    /// The host's `llm.complete` used up scripted replies of this run: like the
    /// real mock, an exhausted script then answers the run's later model calls
    /// with the unscripted reply instead of ending the scenario.
    pub lent_replies_taken: bool,
    /// A provider rejected a request for the 2026.9.6 host's own carrier
    /// order (`turn::model_loop`, outcome `rejected-host-order`).
    pub host_order_rejected: bool,
    /// 2026.9.6 rewrote this run's stored history after a rejected thinking
    /// replay (`turn::model_loop`): the durable turn is not advanced.
    pub thinking_replay_rewritten: bool,
    /// The current run is a 2026.9.6 run the gateway's `agent` RPC started
    /// for an inter-session message (`steps::inter_session_turn`): no
    /// inbound message, channel or sender in its attempt context, and the
    /// message is admitted after bootstrap (`turn::attempts`).
    pub agent_rpc_run: bool,
    /// 2026.4.26: an `agent` RPC run stored a skills snapshot in the session
    /// entry, so later runs' attempt contexts carry it (`runtime::entry`).
    pub session_skills_snapshot: bool,
    /// 2026.9.6: the current user turn arrived as a message on the `clawspec`
    /// channel (`runtime::channel`), not from the gateway client.
    pub channel_message: Option<channel::ChannelMessage>,
    /// Heartbeat runs so far (`setup.heartbeat_system_prompts` is per run).
    pub heartbeats: usize,
    pub created_at: u64,
    pub session_counter: u32,
    /// Transcript entries rewritten in place or replaced (compaction summary,
    /// tool-result truncation): a bootstrap may legitimately re-import them.
    pub rewrites: u64,
    /// Plugin hooks the engine can have fired (Node adapter).
    pub hooks: Vec<String>,
    /// The system prompt of the current attempt as the plugin's
    /// `before_prompt_build` hook composed it (`None`: the setup's).
    pub hook_system_prompt: Option<String>,
    /// The session's model override (`switch_model`: sessions.patch {model}),
    /// which becomes the requested model (runtimeSettings.model.requested).
    pub session_model: Option<String>,
    /// The attempt history computed so far (`history`: once per message).
    pub history_memo: Option<history::Memo>,
    /// The last model request's running token estimate and whether it
    /// names the state dir ([`Sim::request_weight`]).
    request_facts: std::cell::RefCell<prefix_facts::PrefixFacts<(u64, bool)>>,
}

/// The transcript path of a session inside the run's state dir.
fn session_path(state_dir: &Path, session_id: &str) -> PathBuf {
    state_dir.join("sessions").join(format!("{session_id}.jsonl"))
}

/// `$STATE` stands for the run's state dir in traces (paths differ per run).
pub const STATE_PLACEHOLDER: &str = "$STATE";

pub(crate) fn normalise(v: &mut Value, state: &str) {
    match v {
        Value::String(s) if s.contains(state) => *s = s.replace(state, STATE_PLACEHOLDER),
        Value::Array(a) => a.iter_mut().for_each(|x| normalise(x, state)),
        Value::Object(o) => o.values_mut().for_each(|x| normalise(x, state)),
        _ => {}
    }
}

/// A trace's reference to a stored message list.
fn list_ref(id: String) -> Value {
    serde_json::json!({ crate::trace::store::LIST_REF: id })
}

/// Would [`normalise`] change `v`?
pub(crate) fn mentions(v: &Value, state: &str) -> bool {
    match v {
        Value::String(s) => s.contains(state),
        Value::Array(a) => a.iter().any(|x| mentions(x, state)),
        Value::Object(o) => o.values().any(|x| mentions(x, state)),
        _ => false,
    }
}

impl<'a> Sim<'a> {
    pub fn host_offers() -> HostOffers {
        HostOffers {
            callbacks: vec!["llm.complete".into(), "rewriteTranscriptEntries".into(), "delegateCompaction".into()],
            // Embedded host capabilities (openclaw `src/context-engine/host-compat.ts`).
            capabilities: ["bootstrap", "assemble-before-prompt", "after-turn", "maintain", "compact", "runtime-llm-complete"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            abort_notifications: true,
            extra: Extra::new(),
        }
    }

    pub fn initialize_params(profile: &Profile, engine_config: Option<Value>) -> InitializeParams {
        InitializeParams {
            protocol_version: PROTOCOL_VERSION,
            profile: profile.id.clone(),
            host: Implementation {
                name: "clawspec".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                language: Some("rust".into()),
                homepage: None,
                extra: Extra::new(),
            },
            offers: Self::host_offers(),
            engine_config,
            extra: Extra::new(),
        }
    }

    pub fn has(&self, m: &str) -> bool {
        protocol_required(m) || self.methods.iter().any(|x| x == m)
    }

    /// Fire a plugin hook (`api.on(name)`) through the Node adapter's
    /// `adapter/fireHook`, when the plugin registered it (advertised in
    /// `initialize.hooks`): gateway_start at start, session_end and
    /// gateway_stop at the end (before_reset: [`Sim::before_reset`]).
    pub async fn fire_hook(&mut self, name: &str) -> Result<(), Abort> {
        if !self.hooks.iter().any(|h| h == name) {
            return Ok(());
        }
        let event = serde_json::json!({"sessionId": self.transcript.session_id, "sessionKey": self.setup.session_key});
        self.methods.push("adapter/fireHook".into());
        let r = self.call("adapter/fireHook", serde_json::json!({"name": name, "event": event}), CallMeta::reason(name), CallOptions::default()).await;
        self.methods.pop();
        r.map(|_| ())
    }

    /// `before_reset` on a bare `/new` or `/reset`, in the shape both releases
    /// give it (2026.9.6 dist commands-reset-hooks-*.mjs `emitResetCommandHooks`,
    /// 2026.4.26 commands-reset-hooks-*.js): the event is `{sessionFile,
    /// messages, reason}` — the reset command's action ("new" / "reset") and the
    /// session being reset — and the ctx `{agentId, sessionKey, sessionId,
    /// workspaceDir}`. A plugin keys its reset handling on `event.reason` and
    /// `ctx.sessionId` (lossless-claw `src/plugin/index.ts` `before_reset`), so
    /// without them it treats every reset as no reset.
    pub async fn before_reset(&mut self, command: &str) -> Result<(), Abort> {
        if !self.hooks.iter().any(|h| h == "before_reset") {
            return Ok(());
        }
        let reason = if command.trim() == "/reset" { "reset" } else { "new" };
        // 2026.9.6 names a SQLite-backed session by its marker
        // (`formatSqliteSessionFileMarker`: sqlite:<agent>:<session>:<store>).
        let session_file = if self.transcript.is_sqlite() {
            format!("sqlite:{}:{}:{}", self.setup.agent_id, self.transcript.session_id, self.commit_store_path())
        } else {
            self.transcript.path.to_string_lossy().into_owned()
        };
        let event = serde_json::json!({"sessionFile": session_file, "messages": self.transcript.messages(), "reason": reason});
        let ctx = serde_json::json!({"agentId": self.setup.agent_id, "sessionKey": self.setup.session_key,
                                     "sessionId": self.transcript.session_id, "workspaceDir": self.workspace_dir()});
        self.methods.push("adapter/fireHook".into());
        let r = self.call("adapter/fireHook", serde_json::json!({"name": "before_reset", "event": event, "ctx": ctx}), CallMeta::reason("before_reset"), CallOptions::default()).await;
        self.methods.pop();
        // Both releases run it fire-and-forget and only log a failure.
        if let CallOutcome::Threw(m) = r? {
            self.note("hook-failed", format!("before_reset hook failed: {m}"));
        }
        Ok(())
    }

    /// The current turn's transcript read fence (2026.9.6: an admitted turn's
    /// `bootstrap` with its `maintain`, and its attempt's `assemble`, run inside
    /// `runWithSessionTranscriptReadFence(admissionReceipt)`, dist
    /// `builtin-openclaw-*.mjs` → `context-engine-lifecycle-*.mjs`
    /// `bootstrapHarnessContextEngine` / `assembleHarnessContextEngine`, so the
    /// SDK's transcript reads end before the turn's own user entry). Only an
    /// engine that reads the store through that SDK can honour it: one that
    /// answered `initialize` with `transcriptReadFence: 1` (the Node adapter
    /// under the real SDK) gets `$/transcriptReadFence {admission}` before
    /// and `{admission: null}` after; no other engine sees anything.
    pub async fn read_fence(&mut self, admission: Option<Value>) -> Result<(), Abort> {
        let Some(engine) = self.engine.as_mut() else { return Ok(()) };
        if self.on_legacy || engine.init.extra.get("transcriptReadFence") != Some(&serde_json::json!(1)) {
            return Ok(());
        }
        engine.notify("$/transcriptReadFence", serde_json::json!({ "admission": admission })).await?;
        Ok(())
    }

    /// `before_prompt_build`, when the plugin registered it: OpenClaw 2026.9.6
    /// runs it after assemble, on the assembled messages, and composes the
    /// attempt's system prompt from the merged result (dist/builtin-openclaw-*.mjs
    /// prepareEmbeddedAttemptPromptAssembly → composeSystemPromptWithHookContext:
    /// prependSystemContext, base, appendSystemContext joined by blank lines;
    /// `systemPrompt` replaces the base). A throwing hook is logged and ignored
    /// there, and here (noted).
    pub async fn before_prompt_build(&mut self, prompt: &str, messages: &[Msg]) -> Result<(), Abort> {
        self.hook_system_prompt = None;
        if !self.hooks.iter().any(|h| h == "before_prompt_build") {
            return Ok(());
        }
        let event = serde_json::json!({"prompt": prompt, "messages": messages});
        let ctx = serde_json::json!({
            "agentId": self.setup.agent_id, "sessionKey": self.setup.session_key, "sessionId": self.transcript.session_id,
            "modelProviderId": self.setup.provider, "modelId": self.setup.model, "trigger": "user",
        });
        // Plugin hooks run whichever engine serves the turn (also a turn on legacy).
        let on_legacy = std::mem::replace(&mut self.on_legacy, false);
        self.methods.push("adapter/fireHook".into());
        let r = self.call("adapter/fireHook", serde_json::json!({"name": "before_prompt_build", "event": event, "ctx": ctx}), CallMeta::reason("before_prompt_build"), CallOptions::default()).await;
        self.methods.pop();
        self.on_legacy = on_legacy;
        let out = match r? {
            CallOutcome::Returned(v, _) => v.get("result").cloned().unwrap_or(Value::Null),
            CallOutcome::Threw(m) => {
                self.note("hook-failed", format!("before_prompt_build hook failed: {m}"));
                return Ok(());
            }
            CallOutcome::Absent => return Ok(()),
        };
        let text = |k: &str| out.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let base = text("systemPrompt").unwrap_or_else(|| self.system_prompt().to_string());
        let (pre, post) = (text("prependSystemContext"), text("appendSystemContext"));
        if pre.is_some() || post.is_some() || text("systemPrompt").is_some() {
            self.hook_system_prompt = Some([pre, Some(base), post].into_iter().flatten().collect::<Vec<_>>().join("\n\n"));
        }
        Ok(())
    }

    pub fn note(&mut self, code: &str, text: impl Into<String>) {
        self.seq += 1;
        self.events.push(Event::Note(NoteRecord { seq: self.seq, turn: self.turn, step: self.step, code: code.into(), text: text.into() }));
    }

    pub fn state_str(&self) -> String {
        self.state_dir.to_string_lossy().into_owned()
    }

    /// A model request's token estimate and whether a message of it names
    /// the state dir, reading only the messages the last request did not
    /// hold (every model call weighs the whole history).
    pub fn request_weight(&self, request: &[Msg]) -> (u64, bool) {
        let (e, state) = (self.profile.estimator, self.state_str());
        let mut memo = self.request_facts.borrow_mut();
        let facts = memo.update(request, |(t, s), m| (t + m.tokens(e), s || m.json_contains(&state)));
        let weight = facts.last().copied().unwrap_or((0, false));
        // Debug builds (every golden run) check the memo against a scan.
        debug_assert_eq!(weight, (e.messages(request), request.iter().any(|m| m.json_contains(&state))));
        weight
    }

    /// Send one lifecycle call and record it. Host-param projection happens
    /// here (2026.8.2+ `registry-contract.ts`), so the trace shows exactly what
    /// the engine received.
    pub async fn call(&mut self, m: &str, params: impl Into<CallParams>, meta: CallMeta, opts: CallOptions) -> Result<CallOutcome, Abort> {
        if self.on_legacy || !self.has(m) {
            return Ok(CallOutcome::Absent);
        }
        let mut params: CallParams = params.into();
        if self.profile.host_param_projection {
            if let Some(accepted) = &self.info.accepted_host_params {
                project_host_params(m, &mut params.value, accepted);
            }
        }
        let llm = self.profile.runtime_llm_v2026_9.then(|| callbacks::RuntimeLlm { api: self.setup.api.clone(), provider: self.setup.provider.clone(), model: self.setup.model.clone() });
        let builtin = self.profile.builtin_compaction_v2026_4.then(|| compact::Builtin2026_4 { compaction_entry_id: self.transcript.next_id(), compaction_is_last: self.transcript.compaction_is_last() });
        let builtin_9 = self.profile.builtin_compaction_v2026_9.then(|| compact_2026_9::Builtin2026_9 { estimator: self.profile.estimator, compaction_is_last: self.transcript.compaction_is_last() });
        let mut cb = Callbacks::new(&self.transcript.entries).with_runtime_llm(llm).with_builtin_2026_4(builtin).with_builtin_2026_9(builtin_9).with_llm_script(self.llm_script.take());
        let engine = self.engine.as_mut().ok_or_else(|| Abort::Harness("engine not running".into()))?;
        let res = engine.call_shared(m, &params, opts, &mut cb).await;
        let state = self.state_str();
        let CallParams { value: mut params, messages } = params;
        normalise(&mut params, &state);
        self.seq += 1;
        self.llm_script = cb.llm_script.take();
        let mut callbacks = std::mem::take(&mut cb.records);
        for r in &mut callbacks {
            normalise(&mut r.params, &state);
            // A host answer may name the state dir too (2026.9.6's delegated
            // compaction returns the run's `sessionTarget.storePath`).
            normalise(&mut r.result, &state);
        }
        // Message arrays go to the trace's content-addressed store (a trace
        // would otherwise grow with the square of the session length).
        match messages {
            // Shared messages are normalised as the store first sees each.
            Some(ms) => params["messages"] = list_ref(self.store.intern_msgs(&ms, &state)),
            None => self.store.intern_field(&mut params),
        }
        self.store.intern_aligned(&mut params);
        for r in &mut callbacks {
            self.store.intern_field(&mut r.params);
        }
        let (reply, out) = match res {
            Ok((Reply::Ok(v), items)) => {
                // A reply may echo a path under the state dir (a 2026.4.26 exec
                // result's `cwd`); the trace records it as `$STATE` like params.
                // Copied only when there is something to normalise: the
                // result of an assemble carries the whole history.
                let mut recorded = if mentions(&v, &state) {
                    let mut shown = v.clone();
                    normalise(&mut shown, &state);
                    self.store.interned(&shown)
                } else {
                    self.store.interned(&v)
                };
                if let Some(items) = &items {
                    recorded["messages"] = list_ref(self.store.intern_items(items, &state));
                }
                (ReplyRecord::Ok(recorded), Ok(CallOutcome::Returned(v, items)))
            }
            Ok((Reply::Threw(e), _)) => (ReplyRecord::Threw { code: e.code, message: e.message.clone() }, Ok(CallOutcome::Threw(e.message))),
            Err(f) => (ReplyRecord::Fault { kind: f.kind().into(), message: f.to_string() }, Err(Abort::Fault(f))),
        };
        let mut log = cb.take_log();
        for l in &mut log {
            l.message = l.message.replace(&state, STATE_PLACEHOLDER);
        }
        let stderr = self.engine.as_ref().map(|e| e.last_call_stderr().to_string()).unwrap_or_default();
        let output = EngineOutput { log, stderr };
        self.events.push(Event::Call(CallRecord {
            seq: self.seq,
            turn: self.turn,
            attempt: self.attempt,
            step: self.step,
            method: m.to_string(),
            params,
            meta,
            callbacks,
            output,
            reply,
        }));
        if let Some(plan) = cb.plan {
            self.apply_compaction(&plan);
        }
        out
    }

    /// Replace the compacted prefix by a `compactionSummary` entry.
    pub fn apply_compaction(&mut self, plan: &callbacks::CompactionPlan) {
        let first_kept_id = self.transcript.entries.get(plan.first_kept).map(|e| e.id.clone());
        let ts = self.clock.tick();
        let summary = AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: plan.summary.clone(),
            tokens_before: plan.tokens_before.into(),
            tokens_after: (!plan.pi_message).then(|| plan.tokens_after.into()),
            first_kept_entry_id: first_kept_id.filter(|_| !plan.pi_message),
            timestamp: Some(ts.into()),
            extra: Extra::new(),
        });
        let kept: Vec<_> = self.transcript.entries.drain(plan.first_kept..).collect();
        self.transcript.entries.clear();
        // Not modelled: where the host's own events land in a rewritten log.
        self.transcript.clear_markers();
        self.transcript.append(summary, ts);
        for e in kept {
            self.transcript.append(e.message, e.timestamp);
        }
        self.transcript.mark_compacted();
        self.rewrites += 1;
        self.transcript.rewritten();
        self.flush();
    }

    pub fn flush(&self) {
        let _ = self.transcript.flush(self.created_at);
    }

    pub fn persist(&mut self, m: impl Into<Msg>) -> String {
        let ts = self.clock.now();
        let id = self.transcript.append(m, ts);
        self.flush();
        id
    }

    pub fn budget(&self) -> u64 {
        // budget = contextTokenBudget ?? model.contextWindow (attempt-prompt-preflight.ts)
        self.setup.context_token_budget.unwrap_or(self.setup.context_window)
    }

    /// `sessionFile`: the JSONL transcript's path, or with the SQLite store
    /// the session key (real 2026.9.6 host, `clawspec twin`: engines read the
    /// session through the SDK's `session-transcript-runtime` instead).
    pub fn session_file(&self) -> String {
        if self.transcript.is_sqlite() {
            return self.setup.session_key.clone();
        }
        self.transcript.path.to_string_lossy().into_owned()
    }

    pub fn new_session(&mut self) {
        // The host's entry ids are random (4.26: @mariozechner/pi-coding-agent
        // dist/core/session-manager.js `generateId`, `randomUUID().slice(0, 8)`),
        // so in practice unique across sessions: a reset's
        // new session must not reuse the ids of the one it replaces (an
        // engine that keys messages by entry id across a conversation took
        // the new session's first message for one it had stored).
        let ids_so_far = self.transcript.entries_numbered();
        self.session_counter += 1;
        let id = format!("sess-{:04}", self.session_counter);
        self.transcript = match self.profile.transcript_store {
            profile::TranscriptStore::Jsonl => {
                // 2026.4.26 keeps an agent's sessions under `agents/<agent>/sessions/`
                // (docs/concepts/session.md; real gateway, `clawspec twin`).
                let dir = if self.profile.webchat_entry_v2026_4 { self.state_dir.join("agents").join(&self.setup.agent_id) } else { self.state_dir.clone() };
                let path = session_path(&dir, &id);
                Transcript::new(id, path)
            }
            profile::TranscriptStore::Sqlite => {
                let db = sqlite_store::agent_db_path(&self.state_dir, &self.setup.agent_id);
                Transcript::sqlite(id, sqlite_store::SqliteSession::new(db, self.setup.agent_id.clone(), self.setup.session_key.clone()))
            }
        };
        self.transcript.start_ids_after(ids_so_far);
    }
}

/// Required methods, plus `rollback`: a handle the engine itself returned.
fn hooks_of(e: &EngineRecord) -> Vec<String> {
    e.hooks.as_array().map(|a| a.iter().filter_map(|h| h.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn protocol_required(m: &str) -> bool {
    method::REQUIRED.contains(&m) || m == method::ROLLBACK
}

/// Run one scenario under one profile against a fresh engine process.
pub async fn run(scenario: &Scenario, profile: &Profile, cfg: &RunConfig, model: Box<dyn ModelClient + '_>) -> Trace {
    // Unique per run (parallel runs of the same pair must not share files);
    // traces show it as `$STATE`. Fixed width: prompts embed the workspace
    // path (2026.4.26's heartbeat hint, media notes) and token estimates count
    // it, so the path's length must not depend on how many runs came before.
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir_name = format!("{}--{}--{n:08}", scenario.id, profile.id.replace('+', "_"));
    let state_dir = cfg.state_root.join(dir_name);
    let _ = std::fs::remove_dir_all(&state_dir);
    let mut engine_rec = EngineRecord { display: cfg.engine.display.clone(), info: None, methods: vec![], implementation: None, hooks: Value::Null };
    if let Err(e) = std::fs::create_dir_all(&state_dir) {
        let outcome = Outcome::HarnessError { message: format!("cannot create {}: {e}", state_dir.display()) };
        return Trace::new(scenario.id.clone(), profile.id.clone(), engine_rec, vec![], outcome, Default::default());
    }
    let mut driver = cfg.driver.clone();
    // The sandbox's one writable directory (also HOME, TMPDIR and cwd).
    driver.sandbox.state_dir = Some(state_dir.clone());
    if let Some(ms) = scenario.setup.compaction_timeout_ms {
        driver.compact_timeout = std::time::Duration::from_millis(ms);
    }
    let config = cfg.engine_config.clone().or_else(|| scenario.setup.engine_config.clone());
    let init = Sim::initialize_params(profile, config);
    // Engines that keep files (the Node adapter's plugin state) get this run's
    // state dir, so their paths normalise to `$STATE` like ours.
    let mut spec = cfg.engine.clone();
    spec.env.insert("CLAWSPEC_STATE_DIR".into(), state_dir.to_string_lossy().into_owned());
    // The SDK finds the agent's transcript store under OPENCLAW_STATE_DIR
    // (dist paths-*.mjs `resolveStateDir`), which a plugin inherits from the
    // gateway process on the real host. Engines see only CLAWSPEC_* beyond
    // the sandbox's allow-list, so it travels under this name; the Node
    // adapter sets OPENCLAW_STATE_DIR from it for the plugin.
    if profile.transcript_store == profile::TranscriptStore::Sqlite {
        spec.env.insert("CLAWSPEC_OPENCLAW_STATE_DIR".into(), state_dir.to_string_lossy().into_owned());
    }
    let engine = match Engine::start_noting(&spec, &driver, &init).await {
        Ok(e) => e,
        Err(crate::driver::StartFailure { fault: f, unknown_api }) => {
            let outcome = Outcome::EngineFault { kind: f.kind().into(), message: f.to_string(), step: 0, stderr: f.stderr().into() };
            let mut t = Trace::new(scenario.id.clone(), profile.id.clone(), engine_rec, vec![], outcome, Default::default());
            t.unknown_api_members = unknown_api;
            return t;
        }
    };
    engine_rec.info = serde_json::to_value(&engine.init.info).ok();
    if let Some(h) = engine.init.extra.get("hooks") {
        engine_rec.hooks = h.clone();
    }
    engine_rec.methods = engine.init.methods.clone();
    engine_rec.implementation = serde_json::to_value(&engine.init.implementation).ok();
    let info = engine.init.info.clone();
    let methods = engine.init.methods.clone();
    let mut sim = Sim {
        profile,
        scenario,
        setup: scenario.setup.clone(),
        engine: Some(engine),
        info,
        methods,
        clock: Clock::default(),
        ids: Ids::default(),
        transcript: Transcript::new(String::new(), PathBuf::new()),
        events: Vec::new(),
        store: Default::default(),
        seq: 0,
        turn: 0,
        attempt: 0,
        step: 0,
        model,
        state_dir: state_dir.clone(),
        driver,
        unpersisted: Vec::new(),
        events_by_text: BTreeMap::new(),
        on_legacy: false,
        quarantined: false,
        outbox: None,
        rollbacks: BTreeMap::new(),
        live_children: Vec::new(),
        subagent_of: None,
        spawned_4x: Default::default(),
        failed_turns: Vec::new(),
        last_prompt_tokens: 0,
        run_cache_touch: None,
        retry_fallback_reason: None,
        heartbeat_run: false,
        pending_system_events: Vec::new(),
        llm_script: None,
        lent_replies_taken: false,
        host_order_rejected: false,
        thinking_replay_rewritten: false,
        agent_rpc_run: false,
        session_skills_snapshot: false,
        channel_message: None,
        heartbeats: 0,
        attempt_budget: None,
        failed_prompt_tokens: 0,
        pi_compactions: 0,
        finalizing: false,
        created_at: clock::EPOCH_MS,
        session_counter: 0,
        rewrites: 0,
        hooks: hooks_of(&engine_rec),
        hook_system_prompt: None,
        session_model: None,
        history_memo: None,
        request_facts: std::cell::RefCell::new(prefix_facts::PrefixFacts::new((0, false))),
    };
    sim.new_session();
    let result = steps::run_script(&mut sim).await;
    let mut unknown_api: Vec<String> = Vec::new();
    let outcome = match result {
        Ok(()) => {
            let mut engine = sim.engine.take().expect("engine");
            // The adapter's unknown-api reads, once per run (engine-supplied
            // names: kept only if they are strings, and bounded): those it
            // notified as they happened, then any only its report names.
            let report = engine.adapter_report().await;
            unknown_api = engine.unknown_api_members().to_vec();
            if let Some(r) = report {
                for name in r["unknownApiMembers"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    let name: String = name.chars().take(crate::driver::UNKNOWN_API_NAME_CHARS).collect();
                    if unknown_api.len() < crate::driver::UNKNOWN_API_KEEP && !unknown_api.contains(&name) {
                        unknown_api.push(name);
                    }
                }
            }
            let report = engine.shutdown().await;
            if let Some(f) = report.fault {
                Outcome::EngineFault { kind: f.kind().into(), message: f.to_string(), step: sim.step, stderr: f.stderr().into() }
            } else {
                Outcome::Completed { turns: sim.turn, failed_turns: sim.failed_turns.clone() }
            }
        }
        Err(Abort::Fault(f)) => {
            if let Some(e) = sim.engine.take() {
                // What the plugin read before the fault (`$/unknownApiMember`,
                // as it happened): the dead engine cannot be asked for its
                // `adapter/report`.
                unknown_api = e.unknown_api_members().to_vec();
                e.kill().await;
            }
            Outcome::EngineFault { kind: f.kind().into(), message: f.to_string(), step: sim.step, stderr: f.stderr().into() }
        }
        Err(Abort::Harness(message)) => {
            if let Some(e) = sim.engine.take() {
                e.kill().await;
            }
            Outcome::HarnessError { message }
        }
    };
    let _ = std::fs::remove_dir_all(&state_dir);
    let mut trace = Trace::new(scenario.id.clone(), profile.id.clone(), engine_rec, sim.events, outcome, sim.store);
    trace.unknown_api_members = unknown_api;
    if let Outcome::EngineFault { stderr, .. } = &mut trace.outcome {
        *stderr = stderr.replace(&state_dir.to_string_lossy().into_owned(), STATE_PLACEHOLDER);
    }
    trace
}
