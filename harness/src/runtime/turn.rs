//! One logical turn: routing (classic / durable / on legacy), the attempt loop
//! (bootstrap → pipeline → assemble → precheck → model loop), overflow and
//! timeout recovery, and finalize. Call order follows shared/reference/
//! openclaw-contract.md §4.1–4.6 (openclaw `src/agents/embedded-agent-runner/
//! run-loop.ts`, `run/attempt-*.ts`, `src/agents/harness/context-engine-*.ts`).

use std::collections::VecDeque;

use clawspec_contract::*;
use serde_json::{json, Value};

use super::callbacks::plan_compaction;
use super::model::{ModelFailure, ModelRequest};
use super::pipeline::repair_pairing;
use super::profile::{OverflowRetry, PromptTexts};
use clawspec_contract::markers;
use super::transcript::{assistant_message, set_usage, text_block};
use super::tool_result_truncation::{self, Route};
use super::{Abort, CallOutcome, Sim};
use crate::driver::CallOptions;
use crate::scenario::model::{ModelErrorKind, ModelReply, ModelStep, SteerSpec};
use crate::trace::{CallMeta, Event, ModelRecord};

/// Max overflow compactions per run; 4 attempts in all, then `context_overflow`
/// (openclaw `run.overflow-compaction.loop.test.ts`).
pub const MAX_OVERFLOW_COMPACTIONS: u32 = 3;
/// Timeout recovery: at most 2, only when the last prompt used > 65 % of the
/// budget (openclaw `src/agents/embedded-agent-runner/run/timeout-context-recovery.ts`).
pub const MAX_TIMEOUT_RECOVERIES: u32 = 2;
pub const TIMEOUT_RECOVERY_USAGE: f64 = 0.65;
/// Same-model retries of an idle timeout (2026.4.26 dist/pi-embedded-*.js
/// `MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES`).
const MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES: u32 = 1;
/// User-facing overflow error (openclaw assistant error formatter, `isContextOverflowError` branch;
/// verified against gateway transcripts).
pub const CONTEXT_OVERFLOW_ERROR: &str = "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.";
/// `PREEMPTIVE_OVERFLOW_ERROR_TEXT` (openclaw `run/preemptive-compaction.ts`).
pub const PRECHECK_OVERFLOW_ERROR: &str = "Context overflow: prompt too large for the model (precheck).";
/// Tool results longer than this are cut by the truncation fallback.
const TRUNCATE_TOOL_RESULT_CHARS: usize = 2_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnKind {
    User,
    Announce,
    InterSession,
    Heartbeat,
}

pub struct TurnInput {
    pub kind: TurnKind,
    /// Prompt text sent to the model (and as `assemble.prompt`).
    pub prompt: String,
    /// The user message as persisted (the transcript body).
    pub message: AgentMessage,
    /// The same message as the model sees it, when it differs (prompt
    /// wrappers are model-only: `transcriptPrompt` vs prompt, contract §4.3).
    pub model_message: Option<AgentMessage>,
    pub persist: bool,
    pub admitted: bool,
    pub is_heartbeat: bool,
    /// Hidden runtime-context carriers for this turn (2026.8+).
    pub carriers: Vec<AgentMessage>,
    /// Whether the carriers are written to the transcript. A user turn's
    /// current-inbound carrier (inbound metadata, system events) is model-only
    /// on 2026.9.6: the real host's transcript after such a turn holds the user
    /// message, thinking_level_change, model-snapshot and the assistant, no
    /// carrier (twinned; `clawspec twin --keep`, transcript_events).
    pub persist_carriers: bool,
    pub script: Vec<ModelReply>,
    pub steer: Vec<SteerSpec>,
    pub commit_replay: bool,
    pub commit_conflict: bool,
    /// Model-fallback candidate for a failover error (user turns).
    pub fallback: Option<crate::scenario::model::SwitchModelSpec>,
    /// 2026.4.26: the `openclaw.runtime-context` message queued for the next
    /// turn, persisted right after the user message (`runtime::entry`).
    pub next_turn_context: Option<AgentMessage>,
    /// `assemble.prompt` when it is not `prompt`: 2026.9.6 assembles with the
    /// attempt prompt already annotated. The budget keeps `prompt`: the twin
    /// (realhost::spawn) showed neither the plain nor the annotated prompt
    /// reproduces the real announce budget yet (12 544 / 12 073 vs 12 273).
    pub assemble_prompt: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Classic,
    Durable,
    OnLegacy,
    /// 2026.9.6 announce run of a child spawned by the host's sessions_spawn
    /// tool, on a fencing engine: the logical-turn lease is taken (bootstrap,
    /// maintain, assemble as usual) but nothing is admitted and nothing
    /// finalizes it — no afterTurn, commitTurn or maintain(turn) (`clawspec
    /// twin announce-then-followup`, docs/openclaw-facts.md §4.5). Bare
    /// scripted announces keep the classic finalize until their scenarios get
    /// a real-host path (docs/openclaw-facts.md §4.5).
    Leased,
}

pub async fn run_turn(sim: &mut Sim<'_>, mut inp: TurnInput) -> Result<(), Abort> {
    if sim.profile.attempt_runtime_context_v2026_9 && inp.kind == TurnKind::User && inp.admitted {
        // What the gateway stores on a `chat.send` user message (runtime::entry).
        if let AgentMessage::User(u) = &mut inp.message {
            // Merged: a staged attachment's media refs are already there (runtime::steps).
            let mut meta = sim.entry_user_meta();
            if let Some(Value::Object(own)) = u.extra.get("__openclaw") {
                meta.as_object_mut().expect("an object").extend(own.clone());
            }
            u.extra.insert("__openclaw".into(), meta);
        }
    }
    sim.turn += 1;
    sim.attempt = 0;
    sim.run_cache_touch = None;
    sim.retry_fallback_reason = None;
    sim.thinking_replay_rewritten = false;
    let mode = route(sim, &inp).await?;
    sim.on_legacy = mode == Mode::OnLegacy;
    // A fallback candidate serves one run; the next turn starts on the primary
    // again (`runWithModelFallback` walks the candidates per run).
    let primary = (sim.setup.provider.clone(), sim.setup.model.clone(), sim.setup.api.clone());
    let result = attempts(sim, &inp, mode).await;
    if inp.fallback.is_some() {
        (sim.setup.provider, sim.setup.model, sim.setup.api) = primary;
    }
    sim.on_legacy = false;
    sim.attempt_budget = None;
    sim.hook_system_prompt = None;
    result
}

/// Durable-turn admission (openclaw `run/context-engine-admission.ts`, 2026.8.2+).
/// The degrade decision keys on the *registered* engine id (2026.9.6 dist
/// `context-engine-turn-attempt-*.mjs` `createContextEngineLogicalTurnLease`:
/// only `configured.registeredId === fallback.registeredId` is the baseline),
/// so an engine plugged in under test is never the baseline, whatever its
/// `info.id` says: an engine calling itself "legacy" without fencing is
/// degraded like any other (the real host does, `clawspec twin`).
async fn route(sim: &mut Sim<'_>, inp: &TurnInput) -> Result<Mode, Abort> {
    // The real host's announce run of a live child takes the logical-turn
    // lease (gateway log "degraded to \"legacy\" for this logical turn" for a
    // non-fencing engine, which then gets no call).
    // A private completion is admitted and persisted instead (runtime::steps): it routes as a user turn.
    if sim.profile.host_spawn_tool && !sim.profile.host_spawn_v2026_4 && inp.kind == TurnKind::Announce && sim.live_children.iter().any(|c| c.announced) && !inp.admitted {
        if !(sim.info.durable_turns() && sim.has("commitTurn")) {
            let id = sim.info.id.clone();
            sim.note("turn-on-legacy", format!("context engine \"{id}\" does not declare transcriptSemantics {{currentTurnFence, turnAdvancementIdempotency}} and implement commitTurn: this announce run runs on legacy"));
            return Ok(Mode::OnLegacy);
        }
        return Ok(Mode::Leased);
    }
    if !(sim.profile.durable_turns && inp.admitted) {
        return Ok(Mode::Classic);
    }
    if !(sim.info.durable_turns() && sim.has("commitTurn")) {
        let id = sim.info.id.clone();
        sim.note(
            "turn-on-legacy",
            format!("context engine \"{id}\" does not declare transcriptSemantics {{currentTurnFence, turnAdvancementIdempotency}} and implement commitTurn: this admitted logical turn runs on legacy"),
        );
        return Ok(Mode::OnLegacy);
    }
    if let Some(params) = sim.outbox.take() {
        sim.note("outbox-replay", "replaying a queued commitTurn before the turn");
        let out = sim.call("commitTurn", params.clone(), CallMeta::reason("outbox-replay"), CallOptions::default()).await?;
        if let CallOutcome::Threw(m) = out {
            sim.outbox = Some(params);
            sim.note("turn-on-legacy", format!("queued commitTurn still pending ({m}): this logical turn runs on legacy"));
            return Ok(Mode::OnLegacy);
        }
    }
    Ok(Mode::Durable)
}

async fn attempts(sim: &mut Sim<'_>, inp: &TurnInput, mode: Mode) -> Result<(), Abort> {
    sim.lent_replies_taken = false;
    let mut script: VecDeque<ModelReply> = inp.script.iter().cloned().collect();
    let mut user_persisted = false;
    let mut carriers_persisted = false;
    let mut admission: Option<(usize, String)> = None;
    // `hadSessionFile` is decided before the turn writes anything.
    let existed_before_turn = sim.transcript.exists();
    let entries_before_turn = sim.transcript.entries.len();
    // A 2026.9.6 `agent`-RPC run admits its message after bootstrap, behind
    // the run's thinking-level and model-snapshot events (twin of
    // inter-session-send: bootstrap imports the history without it; the
    // store holds thinking_level_change, model-snapshot, then the message).
    let admit_after_bootstrap = mode == Mode::Durable && sim.agent_rpc_run;
    if mode == Mode::Durable && !admit_after_bootstrap {
        persist_carriers(sim, inp, &mut carriers_persisted);
        let idx = sim.transcript.entries.len();
        let id = sim.persist(inp.message.clone());
        admission = Some((idx, id));
        user_persisted = true;
        persist_queued_carriers(sim, inp, &mut carriers_persisted);
    }
    let mut compactions = 0u32;
    let mut timeout_recoveries = 0u32;
    let mut transient_retries = 0u32;
    let mut truncated = false;
    let mut prompt = inp.prompt.clone();
    // Set after a 2026.9.6 recovery: the retry continues the transcript, which
    // already holds the admitted/persisted user message.
    let mut continuation = false;
    // After an invalid-signature rejection the retry drops thinking blocks.
    let mut strip_thinking = false;
    let mut fell_back = false;
    // 2026.4.26 fallback retry: the marked prompt replaces the persisted message.
    let mut retry_message: Option<AgentMessage> = None;
    let had_history = existed_before_turn && sim.transcript.active().next().is_some();
    let mut idle_retries = 0u32;
    loop {
        sim.attempt += 1;
        sim.pi_compactions = 0;
        // The previous attempt's before_prompt_build context is not part of this
        // attempt's budget: OpenClaw applies the hook only after assemble.
        sim.hook_system_prompt = None;
        // 2026.9.6 orphan repair on a continuation retry: the transcript still
        // ends with the unanswered user message, so the engine gets it merged
        // into the prompt and the history without it (the prompt also sizes
        // the attempt's budget).
        let orphan = if continuation { orphaned_user_text(sim) } else { None };
        let engine_prompt = match &orphan {
            Some(text) if !prompt_includes_queued(&prompt, text) => format!("{}\n{text}\n\n{prompt}", markers::QUEUED_USER_MESSAGE_MARKER),
            _ => prompt.clone(),
        };
                // A leased announce run budgets the annotated attempt prompt it
        // assembles with (twin of announce-then-followup: equal once the
        // announce run's own system prompt and host-shaped ids are used).
        let budget_prompt = match (mode, inp.assemble_prompt.as_deref()) {
            (Mode::Leased | Mode::Durable, Some(p)) => p.to_string(),
            // So does a 2026.9.6 inter-session run: its attempt prompt is the
            // annotated text (dist/agent-turn-service-*.mjs
            // `annotateInterSessionPromptText`; twin of inter-session-send).
            (_, Some(p)) if inp.kind == TurnKind::InterSession => p.to_string(),
            _ => engine_prompt.clone(),
        };
        sim.attempt_budget = Some(sim.assemble_budget(&budget_prompt));
        // 1. bootstrap + maintain(bootstrap), every attempt, only when the
        //    transcript existed before it (`hadSessionFile`).
        let had_session_file = if sim.profile.bootstrap_after_admission {
            sim.transcript.active().any(|m| !m.is_runtime_context_carrier())
        } else if sim.attempt == 1 {
            existed_before_turn
        } else if sim.profile.pi_session_recovery {
            // pi's SessionManager writes a new session file only once it holds
            // an assistant message (session-manager.js `_persist`): a retry
            // after a first attempt that got no answer finds no file (twin
            // timeout-below-threshold: no bootstrap before the retry).
            existed_before_turn || sim.transcript.active().any(|m| matches!(m, AgentMessage::Assistant(_)))
        } else {
            sim.transcript.exists()
        };
        // The admitted user entry is in the store already; the real host
        // fences the engine's reads before it (`Sim::read_fence`).
        let read_fence = admission.as_ref().and_then(|(_, id)| admission_receipt(sim, id));
        if had_session_file {
            if read_fence.is_some() {
                sim.read_fence(read_fence.clone()).await?;
            }
            let p = sim.bootstrap_params();
            // Host-side entry count: lets checks tell a re-import from new entries.
            let entries = sim.transcript.entries.len() - sim.transcript.carriers();
            let facts = [("transcriptEntries".to_string(), json!(entries)), ("transcriptRewrites".to_string(), json!(sim.rewrites))];
            let meta = CallMeta { facts: facts.into_iter().collect(), ..Default::default() };
            sim.call("bootstrap", p, meta, CallOptions::default()).await?;
            let p = sim.maintain_params(false, "bootstrap");
            sim.call("maintain", p, CallMeta::reason("bootstrap"), CallOptions::default()).await?;
            if read_fence.is_some() {
                sim.read_fence(None).await?;
            }
        }
        if admit_after_bootstrap && admission.is_none() {
            host_events_before_model(sim);
            persist_carriers(sim, inp, &mut carriers_persisted);
            let idx = sim.transcript.entries.len();
            let id = sim.persist(inp.message.clone());
            admission = Some((idx, id));
            user_persisted = true;
        }
        // 2. history pipeline
        // The model's history starts at the last reset boundary (`Transcript::context_start`).
        let from = sim.transcript.context_start();
        // Shared: the transcript's own messages, not copies.
        let mut source: Vec<Msg> = match admission {
            Some((idx, _)) if !continuation => sim.transcript.entries[from.min(idx)..idx].iter().map(|e| e.message.clone()).collect(),
            _ => sim.transcript.entries[from..].iter().filter(|e| !e.abandoned).map(|e| e.message.clone()).collect(),
        };
        if orphan.is_some() {
            if let Some(at) = source.iter().rposition(|m| !m.is_runtime_context_carrier()) {
                source.remove(at);
            }
        }
        // A continuation keeps the persisted user turn: it is not an orphan.
        let merge_users = super::replay::merges_consecutive_users(sim.profile, &sim.setup);
        let append_only = super::replay::append_only_runtime_context(sim.profile, &sim.setup);
        // 2026.9.6 admits the user turn before the attempt, so the session's
        // leaf is that turn: orphan repair finds the current message, which
        // `reconcilePrePersistedCurrentUserTurn` matches, and an older
        // unanswered user message stays in the history (dist/builtin-openclaw-*.mjs
        // prepareEmbeddedAttemptSessionBoundary → resolveOrphanRepairPlan;
        // twin of orphan-trailing-user). Only a turn not yet in the store repairs it.
        let admitted_leaf = sim.profile.prompt_texts == PromptTexts::V2026_9_6 && admission.is_some();
        // The pipeline and the sanitiser, per message rather than per attempt
        // (`runtime::history`: what an earlier attempt computed is kept).
        let flags = super::history::Flags { hide_orphan_user: !continuation && !admitted_leaf, merge_users, append_only };
        let prepared = super::history::prepare(&mut sim.history_memo, sim.profile, &sim.setup, &source, flags);
        // 2026.4.26 removes an orphaned trailing user at prompt time, after
        // assemble (selection-*.js: `mergeOrphanedTrailingUserPrompt`, then
        // `sessionManager.branch(parentId)` and `activeSession.agent.state.messages
        // = sessionContext.messages`): the engine assembles with it, the attempt
        // goes on with the session without it (twin of orphan-trailing-user).
        let orphan_after_assemble = (sim.profile.id == "openclaw-2026.4.26" && prepared.notes.iter().any(|(c, _)| *c == "orphan-user-hidden"))
            .then(|| source.iter().rev().find(|m| !m.is_runtime_context_carrier()).cloned())
            .flatten();
        for (code, text) in prepared.notes.iter().cloned() {
            sim.note(code, text);
        }
        // …merging its text into the effective prompt first unless the prompt
        // already carries it (`promptAlreadyIncludesQueuedUserMessage`): the
        // queued block heads the prompt, so `resolveRuntimeContextPromptParts`
        // puts it in this turn's runtime-context message.
        let queued_context = orphan_after_assemble.as_ref().and_then(|o| {
            let text = o.text();
            let text = text.trim();
            let ctx = inp.next_turn_context.as_ref()?;
            (!text.is_empty() && !prompt_includes_queued(&prompt, text)).then(|| super::replay_2026_4::with_queued_user_message(ctx, text))
        });
        let assemble_history = orphan_after_assemble.map(|o| prepared.sanitized_with(sim.profile, &sim.setup, o));
        // 2026.4.26 replaces the session's messages with the sanitized ones
        // only when some are left (selection-*.js `if (limited.length > 0)
        // activeSession.agent.state.messages = limited`): a session holding
        // only the reset notice assembles with it (twin of durable-overflow-retry).
        let history = if sim.profile.pi_session_recovery && prepared.sanitized.is_empty() { prepared.piped() } else { prepared.sanitized };
        // 3. assemble
        let pending: Vec<Msg> = match (mode, continuation) {
            (Mode::Durable, false) => vec![inp.message.clone().into()],
            (Mode::Durable, true) => vec![AgentMessage::user_text(engine_prompt.clone()).into()],
            _ => vec![],
        };
        let assemble_prompt = if orphan.is_some() { engine_prompt.as_str() } else { inp.assemble_prompt.as_deref().unwrap_or(&prompt) };
        if read_fence.is_some() {
            sim.read_fence(read_fence.clone()).await?;
        }
        let assembled = assemble_attempt(sim, assemble_history.as_deref().unwrap_or(&history), assemble_prompt, &pending).await?;
        if read_fence.is_some() {
            sim.read_fence(None).await?;
        }
        let (mut session, spa, authority) = match assembled {
            Ok(a) => a,
            Err(crash) => {
                fail_turn(sim, &crash);
                finalize(sim, inp, mode, None, true, admission.as_ref()).await?;
                return Ok(());
            }
        };
        if assemble_history.is_some() {
            session = history.clone();
        }
        // 3b. the plugin's before_prompt_build, on the assembled view
        sim.before_prompt_build(&prompt, &session).await?;
        // 4. prePromptMessageCount indexes the assembled view.
        let fence = session.len();
        // 5. precheck
        let precheck = precheck(sim, &history, &session, &prompt, authority.as_deref());
        // 2026.4.26 weighs truncating tool results against compacting
        // (runtime::tool_result_truncation); a truncation that helped retries
        // the prompt at once, without compacting.
        let mut route = match &precheck {
            Some(f) if sim.profile.pi_session_recovery => {
                let over = f.observed_tokens.unwrap_or(0).saturating_sub(sim.budget().saturating_sub(sim.reserve()));
                tool_result_truncation::route(over, &shared::unshare(history.iter().cloned()), sim.budget())
            }
            Some(_) => Route::CompactOnly,
            None => Route::Fits,
        };
        if route == Route::TruncateToolResultsOnly {
            let n = tool_result_truncation::truncate_session(sim);
            if n > 0 {
                sim.note("precheck-truncation", format!("[context-overflow-precheck] early recovery route=truncate_tool_results_only truncatedCount={n}; retrying prompt"));
                host_event_after_attempt(sim);
                // The handled attempt has no prompt error: it is finalized
                // with its maintenance (selection-*.js finalizeHarnessContextEngineTurn).
                if mode == Mode::Classic {
                    finalize(sim, inp, mode, Some((session.clone(), fence)), false, admission.as_ref()).await?;
                }
                continue;
            }
            route = Route::CompactOnly;
        }
        // 6. model loop
        let mut loop_start = sim.transcript.entries.len();
        let outcome = match precheck {
            Some(f) => Err(f),
            None => {
                // 2026.4.26 normalizes the assembled view again before the
                // prompt (selection-*.js `normalizeAssistantReplayContent(
                // activeSession.messages)`): a transcript-only assistant the
                // engine handed back goes, after prePromptMessageCount was
                // taken (twin of durable-overflow-retry: the reset notice is
                // assembled, then neither sent nor ingested).
                if sim.profile.pi_session_recovery {
                    session = super::replay_2026_4::normalize_assistant_replay_content(std::mem::take(&mut session));
                }
                if mode != Mode::Durable {
                    persist_carriers(sim, inp, &mut carriers_persisted);
                    let mut msg = retry_message.clone().unwrap_or_else(|| inp.message.clone());
                    if continuation {
                        msg = AgentMessage::user_text(engine_prompt.clone());
                    }
                    let fresh = inp.persist && !user_persisted;
                    if fresh {
                        sim.persist(msg.clone());
                        user_persisted = true;
                        persist_queued_carriers(sim, inp, &mut carriers_persisted);
                    }
                    // 2026.4.26 adds an inter-session message's provenance only to
                    // the copy it writes (dist/compaction-successor-transcript-*.js:
                    // `transformMessageForPersistence: applyInputProvenanceToUserMessage`),
                    // so the run's own messages, and its finalize, carry none
                    // (twin of inter-session-send); later turns read it from history.
                    // The same holds for a live child's completion announce (twin of
                    // announce-subagent): the run's own session, which afterTurn
                    // snapshots, holds it without.
                    if (inp.kind == TurnKind::InterSession && sim.profile.prompt_texts == PromptTexts::V2026_4_26)
                        || (sim.profile.host_spawn_v2026_4 && inp.kind == TurnKind::Announce && sim.live_children.iter().any(|c| c.announced))
                    {
                        if let AgentMessage::User(u) = &mut msg {
                            u.provenance = None;
                        }
                    }
                    session.push(msg.into());
                    if let (true, Some(ctx)) = (fresh, queued_context.as_ref().or(inp.next_turn_context.as_ref())) {
                        sim.persist(super::entry::as_persisted_custom_entry(ctx));
                        session.push(ctx.clone().into());
                    }
                    loop_start = sim.transcript.entries.len();
                } else {
                    session.extend(pending.iter().cloned());
                }
                host_events_before_model(sim);
                model_loop(sim, inp, &mut session, fence, spa.as_deref(), &mut script, strip_thinking, Some(assemble_prompt)).await?
            }
        };
        let failure = match outcome {
            Ok(hook_fence) => {
                host_event_after_attempt(sim);
                finalize(sim, inp, mode, Some((session, hook_fence.unwrap_or(fence))), false, admission.as_ref()).await?;
                return Ok(());
            }
            Err(f) => {
                if sim.profile.attempt_runtime_context_v2026_9 && f.kind == ModelErrorKind::Timeout {
                    super::retry::persist_timeout_trail(sim, &super::retry::idle_timeout_error(crate::realhost::plan::PROVIDER_TIMEOUT_SECONDS));
                    // The idle timeout aborted the attempt, which records no completed
                    // bootstrap turn (dist/attempt-thread-helpers-*.mjs
                    // shouldPersistCompletedBootstrapTurn: false on `promptError || aborted`;
                    // real store, twin of timeout-recovery: no openclaw:bootstrap-context:full
                    // between the guidance and the retry's answer).
                } else {
                    host_event_after_attempt(sim);
                }
                f
            }
        };
        // 2026.4.26 finalizes the failed attempt inside it, before the run
        // loop's recovery (selection-*.js: `finalizeHarnessContextEngineTurn`
        // with `promptError`, so afterTurn/ingest without maintain; audit item 3).
        // A precheck overflow finalizes too: its afterTurn sees the assembled
        // view (finalizeHarnessContextEngineTurn runs after every attempt;
        // twin of timeout-recovery on builtin:window).
        let finalized = sim.profile.pi_session_recovery && mode == Mode::Classic;
        if finalized {
            finalize(sim, inp, mode, Some((session.clone(), fence)), true, admission.as_ref()).await?;
        }
        // Recovery (openclaw `run/overflow-context-recovery.ts`, `run/timeout-context-recovery.ts`).
        let mf = failure;
        // Did the failed attempt persist assistant/tool messages after the prompt?
        let mid_turn = sim.transcript.entries.len() > loop_start;
        // Read before a compaction rewrites the transcript.
        let tool_failed = sim.transcript.entries.get(loop_start..).unwrap_or_default().iter().any(|e| matches!(&*e.message, AgentMessage::ToolResult(r) if r.is_error == Some(true)));
        let recovered = match mf.kind {
            ModelErrorKind::Overflow => {
                if compactions >= MAX_OVERFLOW_COMPACTIONS {
                    false
                } else if sim.profile.pi_session_recovery && sim.pi_compactions > 0 {
                    // The overflow persisted after pi's in-attempt compaction:
                    // retry without another one (pi-embedded-*.js
                    // `hadAttemptLevelCompaction`, MAX_OVERFLOW_COMPACTION_ATTEMPTS).
                    compactions += 1;
                    sim.note("overflow-retry", format!("context overflow persisted after in-attempt compaction (attempt {compactions}/{MAX_OVERFLOW_COMPACTIONS}); retrying prompt without additional compaction"));
                    true
                } else {
                    compactions += 1;
                    sim.note("overflow-compaction", format!("context overflow detected; compaction attempt {compactions}/{MAX_OVERFLOW_COMPACTIONS}"));
                    // 2026.4.26 passes only the count the error text names
                    // (pi-embedded-*.js `observedOverflowTokens`; none for the
                    // precheck's own error, twin of overflow-natural).
                    let current = if sim.profile.pi_session_recovery {
                        super::model::observed_overflow_tokens(&mf.message)
                    } else {
                        Some(mf.observed_tokens.unwrap_or(sim.budget() + 1))
                    };
                    let budget = sim.budget();
                    let mut params = sim.compact_params(budget, current, "budget", "overflow", compactions);
                    if sim.profile.attempt_runtime_context_v2026_9 {
                        // The failed attempt's prompt-cache record (runtime::compact).
                        let last_call = sim.transcript.entries.get(loop_start..).unwrap_or_default().iter().rev().map(|e| &*e.message).find(|m| matches!(m, AgentMessage::Assistant(_)));
                        if let Some(pc) = super::compact::prompt_cache(&sim.setup.provider, last_call) {
                            params["runtimeContext"]["promptCache"] = pc;
                        }
                    }
                    let ok = compact_with_script(sim, params, "overflow", &mut script).await? == CompactVerdict::Compacted;
                    if ok {
                        // pi-embedded-*.js: after the compaction, the
                        // compact_then_truncate route truncates in the session too.
                        if route == Route::CompactThenTruncate {
                            tool_result_truncation::truncate_session(sim);
                        }
                        true
                    } else if !truncated {
                        truncated = true;
                        truncate_tool_results(sim)
                    } else {
                        false
                    }
                }
            }
            ModelErrorKind::Timeout => {
                let v2026_9 = sim.profile.attempt_runtime_context_v2026_9;
                // 2026.9.6: the provider-reported size of the run's last call
                // (runtime::retry); earlier: the size of the request that timed
                // out (`tokenUsedRatio`).
                let used = if v2026_9 { super::retry::reported_prompt_tokens(&sim.transcript.messages()) } else { sim.failed_prompt_tokens };
                let usage = used as f64 / sim.budget().max(1) as f64;
                if timeout_recoveries < MAX_TIMEOUT_RECOVERIES && usage > TIMEOUT_RECOVERY_USAGE {
                    timeout_recoveries += 1;
                    sim.note("timeout-recovery", format!("LLM timeout at {:.0}% of the budget; compaction {timeout_recoveries}/{MAX_TIMEOUT_RECOVERIES}", usage * 100.0));
                    let budget = sim.budget();
                    let params = sim.compact_params(budget, None, "budget", "timeout_recovery", timeout_recoveries);
                    compact_with_script(sim, params, "timeout_recovery", &mut script).await? == CompactVerdict::Compacted
                } else if sim.profile.pi_session_recovery && idle_retries < MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES && inp.fallback.is_none() && !mid_turn {
                    // 2026.4.26 retries an idle timeout once on the same model
                    // (pi-embedded-*.js `sameModelIdleTimeoutRetry`, observed:
                    // "[llm-idle-timeout] … retrying same model"); the retry
                    // takes the next scripted reply, else the mock's unscripted one.
                    idle_retries += 1;
                    sim.note("idle-timeout-retry", "the model produced no reply before the idle watchdog; retrying same model");
                    if !existed_before_turn && !sim.transcript.active().any(|m| matches!(m, AgentMessage::Assistant(_))) {
                        // pi never wrote the new session file (no assistant yet,
                        // session-manager.js `_persist`): the retry starts from
                        // an empty session and persists the prompt again.
                        sim.transcript.entries.truncate(entries_before_turn);
                        user_persisted = false;
                        carriers_persisted = false;
                    }
                    if script.is_empty() {
                        let unscripted = super::pi_session::next_reply(&mut script);
                        script.push_back(unscripted);
                    }
                    true
                } else if v2026_9 && transient_retries < super::retry::MAX_TRANSIENT_RETRIES && !script.is_empty() {
                    // With nothing more scripted the retries count as spent and the
                    // timeout is surfaced (a turn that ends on a timeout is not
                    // twinned on 9.6: realhost::limits::ReleaseLimit::TimeoutSurfaced).
                    transient_retries += 1;
                    sim.retry_fallback_reason = Some("provider_timeout");
                    sim.note("transient-retry", format!("transient same-model retry {transient_retries}/{} reason=timeout", super::retry::MAX_TRANSIENT_RETRIES));
                    true
                } else {
                    false
                }
            }
            // 2026.4.26 has no thinking-signature retry (no such path in its
            // dist selection-*.js run loop; twin of regression-a8-unsigned-thinking):
            // the rejection fails the run.
            ModelErrorKind::InvalidSignature if sim.attempt == 1 && sim.profile.id != "openclaw-2026.4.26" => {
                sim.note("signature-retry", "provider rejected a thinking signature; retrying without it");
                true
            }
            _ => false,
        };
        let failover = matches!(mf.kind, ModelErrorKind::Timeout | ModelErrorKind::RateLimit | ModelErrorKind::Other);
        if !recovered && failover && !fell_back && inp.fallback.is_some() {
            // The failed run ends like any failed run; the agent command then
            // runs the fallback candidate (`runWithModelFallback`, candidateIndex 1).
            fail_turn(sim, &mf.message);
            if !finalized {
                finalize(sim, inp, mode, Some((session, fence)), true, admission.as_ref()).await?;
            }
            let fb = inp.fallback.clone().expect("checked");
            sim.setup.provider = fb.provider.clone();
            sim.setup.model = fb.model.clone();
            if let Some(api) = &fb.api {
                sim.setup.api = api.clone();
            }
            fell_back = true;
            // `resolveFallbackRetryPrompt` (openclaw `src/agents/command/attempt-execution.helpers.ts`):
            // the marker only when the session already had history.
            let marked = markers::fallback_retry_prompt(&inp.prompt, true, had_history);
            prompt = if sim.profile.marker_drift { marked.replacen(markers::RETRY_MARKER, &sim.profile.marker(markers::RETRY_MARKER), 1) } else { marked };
            if sim.profile.overflow_retry == OverflowRetry::ContinueFromTranscript && user_persisted {
                // 2026.9.6 `suppressPromptPersistenceOnRetry`: the user turn is
                // already persisted, the marked prompt goes to the model only.
                continuation = true;
            } else if user_persisted {
                // 2026.4.26: the orphaned user entry is branched away and the
                // marked prompt is persisted as the new user message.
                sim.transcript.abandon_trailing_user();
                sim.flush();
                user_persisted = false;
                retry_message = Some(AgentMessage::user_text(prompt.clone()));
            }
            sim.note("model-fallback", format!("{}: retrying on fallback model {}/{}", mf.message, fb.provider, fb.model));
            continue;
        }
        if !recovered {
            persist_terminal_error(sim, &mf);
            let msg = if mf.kind == ModelErrorKind::Overflow { CONTEXT_OVERFLOW_ERROR.to_string() } else { mf.message.clone() };
            fail_turn(sim, &msg);
            if !finalized {
                finalize(sim, inp, mode, Some((session, fence)), true, admission.as_ref()).await?;
            }
            if sim.profile.pi_session_recovery && mf.kind == ModelErrorKind::Overflow {
                reset_after_compaction_failure_2026_4(sim);
            }
            return Ok(());
        }
        if mf.kind == ModelErrorKind::InvalidSignature {
            strip_thinking = true;
        }
        match sim.profile.overflow_retry {
            // 2026.4.26 (`pi-embedded-runner/run.ts`): the run loop `continue`s with
            // the same prompt; the orphaned user entry is branched away on the
            // next attempt, so the transcript keeps one copy.
            OverflowRetry::SamePrompt => {
                if mid_turn && user_persisted {
                    // A new `prompt()` call after tool results: the same text as a
                    // new user message, persisted after them.
                    let mut again = inp.message.clone();
                    super::steps::set_ts(&mut again, sim.clock.tick());
                    retry_message = Some(again);
                    user_persisted = false;
                    sim.note("retry", "retrying the same prompt after the tool results (a new user message with the same text)");
                } else {
                    // The unanswered user entry is branched away and prompted again.
                    sim.note("retry", "retrying the same prompt (the unanswered user message is not written again)");
                }
            }
            // 2026.9.6 (`run/session-prompt-state.ts`): the user prompt is already
            // in the transcript ⇒ `CONTINUATION_PROMPT`, not persisted
            // (`suppressNextUserMessagePersistence`); + `TOOL_FAILURE_INSTRUCTION`
            // after a failed tool (`tool-outcome-instructions`).
            OverflowRetry::ContinueFromTranscript => {
                if user_persisted {
                    prompt = if tool_failed {
                        format!("{} {}", markers::CONTINUATION_PROMPT, markers::TOOL_FAILURE_INSTRUCTION)
                    } else {
                        markers::CONTINUATION_PROMPT.to_string()
                    };
                    continuation = true;
                    let what = if mid_turn { "mid-turn" } else { "before any reply" };
                    sim.note("retry-continue", format!("retrying {what} from the current transcript; the continuation prompt is not persisted"));
                } else {
                    sim.note("retry", "retrying the prompt");
                }
            }
        }
    }
}

/// What 2026.4.26's reply runner says after resetting the session
/// (dist agent-runner.runtime-*.js `runAgentTurnWithFallback`).
pub const CONTEXT_LIMIT_RESET_REPLY: &str = "⚠️ Context limit exceeded. I've reset our conversation to start fresh - please try again.\n\nTo prevent this, increase your compaction buffer by setting `agents.defaults.compaction.reserveTokensFloor` to 20000 or higher in your config.";

/// 2026.4.26: a run that gave up on a context overflow makes the reply
/// runner reset the session once (dist agent-runner.runtime-*.js:
/// `isContextOverflowError(embeddedError.message) &&
/// !didResetAfterCompactionFailure && resetSessionAfterCompactionFailure`,
/// gateway log "Auto-compaction failed (…). Restarting session <key> ->
/// <new id> and retrying."); the new session's transcript starts with the
/// reply as a gateway-injected assistant message, which the next turn
/// assembles (twin of durable-overflow-retry --keep: a new session file whose
/// first entry is that message, then the next turn).
fn reset_after_compaction_failure_2026_4(sim: &mut Sim<'_>) {
    sim.new_session();
    let ts = sim.clock.tick();
    let m = json!({"role": "assistant", "content": [{"type": "text", "text": CONTEXT_LIMIT_RESET_REPLY}], "timestamp": ts, "stopReason": "stop",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "api": "openai-responses", "provider": "openclaw", "model": "gateway-injected"});
    match serde_json::from_value::<AgentMessage>(m) {
        Ok(m) => {
            sim.persist(m);
        }
        Err(e) => sim.note("session-reset", format!("cannot build the reset reply: {e}")),
    }
    sim.note("session-reset", "auto-compaction failed: the reply runner restarted the session and replied with the context-limit notice");
}

/// The text of the transcript's trailing user message, when the last message
/// (runtime-context carriers aside) is one: what 2026.9.6's orphan repair
/// merges into a retry's prompt (dist builtin-openclaw-*.mjs
/// `resolveOrphanRepairPlan`; context-engine-maintenance-*.mjs
/// `extractUserMessagePromptText`: a string trimmed, text parts joined by
/// newlines). Only 2026.9.6 retries from the transcript.
fn orphaned_user_text(sim: &Sim<'_>) -> Option<String> {
    if sim.profile.overflow_retry != OverflowRetry::ContinueFromTranscript {
        return None;
    }
    let AgentMessage::User(u) = sim.transcript.active().rev().find(|m| !m.is_runtime_context_carrier())? else {
        return None;
    };
    let text = match &u.content {
        MessageContent::Text(t) => t.trim().to_string(),
        MessageContent::Blocks(bs) => bs
            .iter()
            .filter_map(|b| if let ContentBlock::Text(t) = b { Some(t.text.trim()) } else { None })
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    (!text.is_empty()).then_some(text)
}

/// The prompt already carries the orphaned text (a fallback retry's marked
/// prompt repeats the body), so nothing is merged, though the leaf still
/// leaves the history (`promptAlreadyIncludesQueuedUserMessage`).
fn prompt_includes_queued(prompt: &str, orphan: &str) -> bool {
    let prompt = prompt.replace("\r\n", "\n");
    let orphan = orphan.replace("\r\n", "\n");
    let orphan = orphan.trim();
    let block = format!("{}\n{orphan}", markers::QUEUED_USER_MESSAGE_MARKER);
    prompt == block || prompt.starts_with(&format!("{block}\n")) || prompt.contains(&format!("\n{block}\n")) || format!("\n{prompt}\n").contains(&format!("\n{orphan}\n"))
}

/// Under `appendOnlyRuntimeContext` (OpenAI Responses; Claude Opus 5.5 /
/// Fable 5.1) a user turn's current-inbound carrier is queued as prompt
/// context (`agentSessionQueuePromptContext` → `pendingNextTurnMessages`,
/// resource-loader-*.mjs) and persisted with the prompt, right after the user
/// message (twin of http-openai-responses: one more transcript entry, the
/// carrier in later assembles).
fn persist_queued_carriers(sim: &mut Sim<'_>, inp: &TurnInput, done: &mut bool) {
    if *done || inp.persist_carriers || inp.kind != TurnKind::User || inp.carriers.is_empty() {
        return;
    }
    if !(sim.profile.runtime_context_carriers && super::replay::append_only_runtime_context(sim.profile, &sim.setup)) {
        return;
    }
    for c in &inp.carriers {
        sim.persist(c.clone());
    }
    *done = true;
}

fn persist_carriers(sim: &mut Sim<'_>, inp: &TurnInput, done: &mut bool) {
    if !*done && inp.persist_carriers {
        for c in &inp.carriers {
            sim.persist(c.clone());
        }
        *done = true;
    }
}

/// 2026.9.6 keeps a failed logical run's provider error in the session: an
/// empty assistant with `stopReason: "error"` and the provider's error,
/// written once the run gives up (assistant-error-transcript-*.mjs
/// `createAssistantErrorTranscript` → `settle(true)`, idempotency key
/// `<runId>:terminal-error`; twin of http-mistral, whose next turn's
/// bootstrap imports it). Overflow and timeout failures take their own
/// recovery paths and are left as they were.
/// (2026.4.26's rejected thinking signature ends its attempt in `model_loop`.)
fn persist_terminal_error(sim: &mut Sim<'_>, mf: &ModelFailure) {
    if !sim.profile.attempt_runtime_context_v2026_9 || matches!(mf.kind, ModelErrorKind::Overflow | ModelErrorKind::Timeout | ModelErrorKind::Aborted) {
        return;
    }
    let run = format!("run-{:04}", sim.turn);
    let zero = json!({"input": 0, "output": 0, "total": 0, "cacheRead": 0, "cacheWrite": 0});
    let m = json!({
        "role": "assistant",
        "content": [],
        "api": sim.setup.api,
        "provider": sim.setup.provider,
        "model": sim.setup.model,
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": zero},
        "stopReason": "error",
        "timestamp": sim.clock.now(),
        "errorMessage": mf.message,
        "idempotencyKey": format!("{run}:terminal-error"),
        "__openclaw": {"runId": run},
    });
    match serde_json::from_value::<AgentMessage>(m) {
        Ok(m) => {
            sim.persist(m);
        }
        Err(e) => sim.note("terminal-error", format!("could not build the terminal error message: {e}")),
    }
}

fn fail_turn(sim: &mut Sim<'_>, msg: &str) {
    let t = format!("turn {}: {msg}", sim.turn);
    sim.failed_turns.push(t);
    sim.note("turn-failed", msg.to_string());
}

type Assembled = (Vec<Msg>, Option<String>, Option<String>);

/// The attempt's assemble (contract §4.3 step 3). Throw or invalid result ⇒
/// pipeline messages (2026.5+); 2026.4.26 crashed on a result without `messages`.
async fn assemble_attempt(sim: &mut Sim<'_>, history: &[Msg], prompt: &str, pending: &[Msg]) -> Result<Result<Assembled, String>, Abort> {
    // The attempt's message budget, the pending (admitted) user message not
    // subtracted: 2026.9.6 passes `messageBudget = promptBudget − rendered
    // prompt` as is (dist builtin-openclaw-*.mjs `prepareEmbeddedAttemptHistory`,
    // the same value as `limits.promptTokenBudget`; audit item 8, twin-checked).
    let _ = pending;
    let budget = sim.settings_budget();
    let params = sim.assemble_params(history, budget, Some(prompt), true, history.len());
    let meta = CallMeta {
        reason: Some("attempt".into()),
        boundary: Some(history.len()),
        volatile: Vec::new(),
        unpersisted: sim.unpersisted.clone(),
        params_tokens: Some(tokens::estimate_messages(history)),
        facts: [("tokenBudget".to_string(), json!(budget))].into_iter().collect(),
    };
    let out = sim.call("assemble", params, meta, CallOptions::default()).await?;
    let mut result = match out {
        CallOutcome::Absent => (history.to_vec(), None, None),
        CallOutcome::Threw(m) => {
            sim.note("assemble-fallback", format!("context engine assemble failed, using pipeline messages: {m}"));
            (history.to_vec(), None, None)
        }
        CallOutcome::Returned(v, items) => match parse_assemble(&v, items) {
            Ok(r) => r,
            Err(got) => {
                if !sim.profile.assemble_result_validation {
                    return Ok(Err("TypeError: Cannot read properties of undefined (reading 'length')".into()));
                }
                let id = sim.info.id.clone();
                // `ensureAssembleResultShape` (openclaw `src/context-engine/registry-contract.ts`, #75541).
                sim.note("assemble-fallback", format!("context engine \"{id}\" assemble() returned an invalid result: expected an object with a \"messages\" array (got {got})"));
                (history.to_vec(), None, None)
            }
        },
    };
    let (repaired, changed) = repair_pairing(std::mem::take(&mut result.0));
    if changed {
        sim.note("pairing-repaired", "tool-use/result pairing repaired in the assembled messages");
    }
    result.0 = repaired;
    Ok(Ok(result))
}

/// The assemble result as the host reads it. `items`: the messages of a
/// result the engine sent as a delta on the request (those it kept are the
/// request's own, shared: nothing is parsed or copied for them).
fn parse_assemble(v: &Value, items: Option<Vec<super::ResultMessage>>) -> Result<Assembled, String> {
    let got = |v: &Value| match v {
        Value::Null => "null".to_string(),
        Value::Object(o) => format!("object with keys [{}]", o.keys().cloned().collect::<Vec<_>>().join(", ")),
        Value::Array(_) => "array".into(),
        other => format!("{other}"),
    };
    let obj = v.as_object().ok_or_else(|| got(v))?;
    // Messages the model transport cannot read are skipped by the host.
    let read = |m: &Value| <AgentMessage as serde::Deserialize>::deserialize(m).ok().map(Msg::new);
    let ms: Vec<Msg> = match items {
        Some(items) => items
            .into_iter()
            .filter_map(|i| match i {
                super::ResultMessage::Sent(m) => Some(m),
                super::ResultMessage::Raw(v) => read(&v),
            })
            .collect(),
        None => obj.get("messages").and_then(Value::as_array).ok_or_else(|| got(v))?.iter().filter_map(read).collect(),
    };
    let spa = obj.get("systemPromptAddition").and_then(Value::as_str).map(str::to_string);
    let auth = obj.get("promptAuthority").and_then(Value::as_str).map(str::to_string);
    Ok((ms, spa, auth))
}

/// `shouldPreemptivelyCompactBeforePrompt` (openclaw `run/attempt-prompt-preflight.ts`).
fn precheck(sim: &mut Sim<'_>, history: &[Msg], session: &[Msg], prompt: &str, authority: Option<&str>) -> Option<ModelFailure> {
    let may_overflow = authority == Some("preassembly_may_overflow");
    if sim.profile.precheck_skip_for_owners && sim.info.owns_compaction() && !sim.on_legacy && !may_overflow {
        let id = sim.info.id.clone();
        // PR #95342.
        sim.note("precheck-skipped", format!("[context-overflow-precheck] skipped: context engine \"{id}\" owns compaction"));
        return None;
    }
    let est = if !sim.profile.prompt_authority {
        // ≤2026.4.x estimated the pre-assembly history (#74233).
        sim.profile.estimator.messages(history)
    } else if may_overflow {
        sim.profile.estimator.messages(session).max(sim.profile.estimator.messages(history))
    } else {
        sim.profile.estimator.messages(session)
    };
    let total = if sim.profile.prompt_authority {
        est + sim.profile.estimator.text(sim.system_prompt()) + sim.profile.estimator.text(prompt)
    } else {
        // 2026.4.26 `estimatePrePromptTokens` (dist/preemptive-compaction-*.js):
        // the system prompt goes in as a `system` message, which pi's
        // `estimateTokens` counts as 0 (it has no `system` case), the prompt
        // as a user message, and the sum gets `SAFETY_MARGIN` 1.2
        // (dist/compaction-*.js). Twin of overflow-scripted-recover: with a
        // 15 kB system prompt the real host sent the prompt to the provider.
        let user = sim.profile.estimator.text(prompt);
        ((est + user) as f64 * 1.2).ceil() as u64
    };
    let limit = sim.budget().saturating_sub(sim.reserve());
    (total > limit).then(|| ModelFailure {
        kind: ModelErrorKind::Overflow,
        message: PRECHECK_OVERFLOW_ERROR.to_string(),
        observed_tokens: Some(total),
        rejected: false,
    })
}

/// What the provider reported, as the host records it on the assistant
/// message. 2026.9.6 takes the provider's usage as is (the model client is
/// the clawspec mock provider, which reports zeros for a scripted step:
/// mock-providers server.rs `render`), adds `contextUsage` (`unavailable`
/// without prompt usage, @openclaw/ai dist anthropic-stream-reducer-*.mjs),
/// the response's id/model (`responseId`/`responseModel`, same file: the mock
/// answers `msg_mock-<n>`, its own id per response, and names the requested model, as a real provider does) and the run id (`__openclaw.runId`). Earlier
/// profiles keep the runtime's prompt estimate as input usage.
pub(super) fn provider_reply_fields(sim: &mut Sim<'_>, m: &mut AgentMessage, step: &ModelStep, prompt_tokens: u64) {
    if sim.profile.webchat_entry_v2026_4 {
        // 2026.4.26 records the provider's usage (zeros from the mock) with
        // `cost`, and the response id; no contextUsage/responseModel/runId
        // (observed on the real gateway by `clawspec twin`).
        if let AgentMessage::Assistant(a) = m {
            let n = sim.ids.number("response");
            super::replay_2026_4::record_reply(&sim.setup, a, n);
        }
        return;
    }
    if !sim.profile.attempt_runtime_context_v2026_9 {
        set_usage(m, prompt_tokens);
        return;
    }
    let AgentMessage::Assistant(a) = m else { return };
    // Scenario steps script no usage: the mock reports zero tokens.
    let _ = step;
    let wire = super::replay::reply_fields(sim.profile, &sim.setup);
    let mut usage = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "contextUsage": {"state": "unavailable"},
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    if !wire.context_usage {
        usage.as_object_mut().expect("an object").remove("contextUsage");
    }
    if wire.responses_output {
        usage["contextUsage"] = json!({"state": "available", "promptTokens": 0, "totalTokens": 0});
        super::replay_2026_4::mark_responses_reply(a);
        let stop = a.stop_reason.clone().unwrap_or_else(|| "stop".into());
        a.extra.insert(
            "diagnostics".into(),
            json!([{"type": "openai_responses_terminal", "timestamp": sim.clock.now(), "details": {"eventType": "response.completed", "stopReason": stop, "endTurn": "absent"}}]),
        );
    }
    a.usage = Some(usage);
    a.extra.insert("responseId".into(), json!(super::replay::response_id(wire.response_id, sim.ids.number("response"))));
    if wire.response_model_always {
        a.extra.insert("responseModel".into(), json!(sim.setup.model));
    }
    a.extra.insert("__openclaw".into(), json!({"runId": format!("run-{:04}", sim.turn)}));
}

/// The prompt/model loop (contract §4.3 step 6). Returns the owning-engine
/// hook fence when it moved.
async fn model_loop(
    sim: &mut Sim<'_>,
    inp: &TurnInput,
    all: &mut Vec<Msg>,
    fence: usize,
    spa: Option<&str>,
    script: &mut VecDeque<ModelReply>,
    strip_thinking: bool,
    deferred_prompt: Option<&str>,
) -> Result<Result<Option<usize>, ModelFailure>, Abort> {
    let owns = sim.info.owns_compaction() && !sim.on_legacy;
    // 2026.4.26: pi recovers an overflow itself, once per prompt (runtime::pi_session).
    let pi_overflow = sim.profile.pi_session_recovery && !sim.info.owns_compaction();
    let mut overflow_attempted = false;
    let mut pi_retries = 0u32;
    // Set once pi made a call the scenario did not script: an exhausted
    // script then gets the mock's unscripted answer, as on the real host.
    let mut unscripted = false;
    let mut hook_fence = fence;
    let mut hook_view: Option<Vec<Msg>> = None;
    let mut call_index = 0usize;
    // 2026.9.6's thinking recovery: once per request, the rejected call is
    // made again without thinking blocks (`Some(false)`), and once answered
    // the stored history is rewritten (`Some(true)`).
    let mut thinking_retry: Option<bool> = None;
    loop {
        call_index += 1;
        if sim.attempt == 1 {
            for st in inp.steer.iter().filter(|s| s.at == call_index) {
                let m = steer_message(sim, st);
                all.push(m.into());
            }
        }
        // Owning engines: afterTurn + assemble before every model call
        // (`installContextEngineLoopHook`, PR #63555).
        let view = if owns {
            if all.len() > hook_fence {
                if sim.profile.durable_turns && inp.admitted {
                    // deferredTurn mode: no afterTurn.
                } else {
                    ingest_delta(sim, inp.is_heartbeat, all, hook_fence, "loop-hook").await?;
                }
                hook_fence = all.len();
                // A durable turn's hook runs in deferredTurn mode (2026.9.6
                // builtin-openclaw-*.mjs `installContextEngineLoopHook`): the
                // engine gets the history before the prompt, the prompt and
                // the tools, the budget less the pending messages, and the
                // host appends the pending messages (the turn so far, not yet
                // committed) to what the engine returns.
                let deferred = (sim.profile.durable_turns && inp.admitted).then_some(fence.min(all.len()));
                let history = &all[..deferred.unwrap_or(all.len())];
                let pending = &all[history.len()..];
                let budget = match deferred {
                    Some(_) => sim.budget().saturating_sub(sim.profile.estimator.messages(pending)).max(1),
                    None => sim.budget(),
                };
                let mut params = sim.assemble_params(history, budget, deferred_prompt, deferred.is_some(), fence);
                if let Some(p) = params.value.as_object_mut() {
                    // deferredTurn spreads only `prompt` and `availableTools`.
                    p.remove("citationsMode");
                }
                let meta = assemble_meta(sim, history, fence, "loop-hook", budget);
                hook_view = match sim.call("assemble", params, meta, CallOptions::default()).await? {
                    CallOutcome::Returned(v, items) => parse_assemble(&v, items).ok().map(|r| r.0).map(|mut view| {
                        view.extend(pending.iter().cloned());
                        view
                    }),
                    _ => None,
                };
                if hook_view.is_none() {
                    sim.note("loop-hook-fallback", "assemble in the loop hook failed: restoring pre-assembly messages");
                }
            }
            hook_view.clone().unwrap_or_else(|| all.clone())
        } else {
            all.clone()
        };
        let carriers: Vec<Msg> = shared::share(inp.carriers.iter().cloned());
        let mut request = view;
        // 2026.9.6 installs the carrier just before the turn's user message
        // (builtin-openclaw-*.mjs `installRuntimeContextMessageForPrompt`) and
        // `convertToLlm` moves it to the turn's tail; under
        // `appendOnlyRuntimeContext` it is queued after the prompt instead
        // (`agentSessionQueuePromptContext` → `pendingNextTurnMessages`,
        // resource-loader-*.mjs) and stays there for the turn's later calls.
        let v2026_9 = sim.profile.runtime_context_carriers && !carriers.is_empty();
        let append_only = v2026_9 && super::replay::append_only_runtime_context(sim.profile, &sim.setup);
        let current_user = request.iter().rposition(|r| *r == inp.message).filter(|_| v2026_9);
        let insert_at = match current_user {
            Some(i) if append_only => i + 1,
            Some(i) => i,
            None => request.len().saturating_sub(1),
        };
        for (k, c) in carriers.into_iter().enumerate() {
            request.insert(insert_at + k, c);
        }
        if v2026_9 && !append_only {
            request = super::replay::relocate_carriers_to_tail(request);
        }
        // The host's own relocation can put its carrier (a user turn on the
        // wire) right after a tool result, which Mistral rejects (twin of
        // http-mistral; docs/openclaw-facts.md §5), and the failed turn then
        // leaves that tool result unanswered before the next user message:
        // those rejections are the host's doing, not the engine's (CE-WIRE-001
        // leaves them out).
        let host_failed_before = sim.host_order_rejected;
        let host_order = (v2026_9 && !append_only && request.windows(2).any(|w| matches!(*w[0], AgentMessage::ToolResult(_)) && w[1].is_runtime_context_carrier()))
            // (the failed run's empty error assistant is not sent, so the next
            // user message follows the unanswered tool result on the wire)
            || (host_failed_before && request.iter().any(|m| matches!(**m, AgentMessage::ToolResult(_))));
        // Model-only prompt text replaces the persisted body in the request.
        if let Some(mm) = &inp.model_message {
            for r in request.iter_mut().filter(|r| **r == inp.message) {
                *r = mm.clone().into();
            }
        }
        if strip_thinking || thinking_retry == Some(false) {
            for r in request.iter_mut().filter(|r| super::replay::has_thinking(r)) {
                if let AgentMessage::Assistant(a) = r.make_mut() {
                    a.content.retain(|b| !matches!(b, ContentBlock::Thinking(_)));
                }
            }
        }
        let system = format!("{}{}", sim.system_prompt(), spa.map(|s| format!("\n\n{s}")).unwrap_or_default());
        let prompt_tokens = sim.profile.estimator.text(&system) + host_weighted(sim, &request);
        let reply = match script.pop_front() {
            Some(r) => r,
            None if unscripted || sim.lent_replies_taken => super::pi_session::next_reply(script),
            None => return Err(Abort::Harness(format!("scenario script exhausted at turn {} model call {call_index}", sim.turn))),
        };
        let step = match &reply {
            ModelReply::Text(t) => ModelStep { text: Some(t.clone()), ..Default::default() },
            ModelReply::Full(s) => s.clone(),
        };
        host_event_before_stream(sim, &request);
        let ts = sim.clock.tick();
        let seq = sim.seq as u64;
        let mut assistant = assistant_message(&step, &sim.setup, ts, &mut sim.ids, seq);
        let req = ModelRequest {
            provider: &sim.setup.provider,
            model: &sim.setup.model,
            system_prompt: &system,
            messages: &request,
            context_window: sim.setup.context_window,
            prompt_tokens,
            transport_2026_9: sim.profile.attempt_runtime_context_v2026_9,
        };
        // An assistant-first request is sent as is and answered: the
        // first-party Anthropic API accepts it (mock-providers validate.rs
        // `anthropic_user_first`, anthropic-sdk-typescript#622).
        let res = sim.model.complete(&req, &step, assistant.clone());
        sim.seq += 1;
        let outcome = match &res {
            Ok(_) if step.tool_calls.is_empty() => "text".to_string(),
            Ok(_) => "toolUse".to_string(),
            Err(f) if f.rejected && host_order => {
                sim.host_order_rejected = true;
                "rejected-host-order".to_string()
            }
            Err(f) if f.rejected => "rejected".to_string(),
            Err(f) => format!("{:?}", f.kind).to_lowercase(),
        };
        let via = sim.model.via();
        sim.events.push(Event::Model(ModelRecord {
            seq: sim.seq,
            turn: sim.turn,
            attempt: sim.attempt,
            step: sim.step,
            provider: sim.setup.provider.clone(),
            model: sim.setup.model.clone(),
            message_count: request.len(),
            prompt_tokens,
            system_prompt_addition: spa.map(str::to_string),
            outcome,
            via,
            error: res.as_ref().err().map(|f| f.message.clone()),
        }));
        match res {
            Err(f) => {
                sim.failed_prompt_tokens = prompt_tokens;
                // A provider-enforced overflow did not consume the scripted reply.
                if step.error.is_none() {
                    script.push_front(reply);
                }
                if sim.profile.pi_session_recovery && super::pi_session::retryable(&f) && pi_retries < super::pi_session::MAX_RETRIES {
                    // pi's auto-retry: the error stays in the session, leaves the
                    // agent's messages, and the call is made again after a backoff.
                    pi_retries += 1;
                    let ts = sim.clock.tick();
                    let error = super::pi_session::error_assistant(sim, &super::pi_session::anthropic_error_text(f.kind, &f.message), ts);
                    sim.persist(error);
                    sim.note("pi-auto-retry", format!("retryable provider error ({}); pi auto-retry {pi_retries}/{}", f.message, super::pi_session::MAX_RETRIES));
                    unscripted = true;
                    continue;
                }
                if f.kind == ModelErrorKind::InvalidSignature && thinking_retry.is_none() && super::replay::recovers_rejected_thinking(sim.profile, &sim.setup) {
                    // 2026.9.6 retries the rejected request itself, once, with
                    // every thinking block stripped, inside the attempt: no new
                    // attempt, bootstrap or assemble, the prompt unchanged
                    // (tool-result-truncation-*.mjs `wrapAnthropicStreamWithRecovery`,
                    // `retryStreamWithoutThinking`; gateway log "[session-recovery]
                    // Anthropic thinking stream error; retrying once without
                    // thinking blocks", twin of regression-a8-unsigned-thinking).
                    thinking_retry = Some(false);
                    sim.note("thinking-recovery", "provider rejected a thinking block; retrying the request once without thinking blocks");
                    continue;
                }
                if sim.profile.id == "openclaw-2026.4.26" && f.kind == ModelErrorKind::InvalidSignature {
                    // 4.26 has no thinking-signature retry: pi's agent loop ends
                    // the attempt on the rejected call, whose error assistant is
                    // the attempt's last message and stays in the session
                    // (@mariozechner/pi-agent-core agent-loop.js: the stream's
                    // error `output` is pushed to the context and `agent_end`
                    // follows; agent-session.js `appendMessage`). No prompt
                    // error, so the attempt is finalized as any other (afterTurn +
                    // maintain, the call in the prompt cache), and the run loop
                    // surfaces the rejection (failover decision=surface_error).
                    // Twin of regression-a8-unsigned-thinking on 4.26.
                    if let Some(error) = super::replay_2026_4::provider_error_assistant(&sim.setup, &f, sim.clock.tick()) {
                        sim.run_cache_touch = Some(sim.clock.now());
                        sim.persist(error.clone());
                        all.push(error.into());
                        fail_turn(sim, &f.message);
                        return Ok(Ok(owns.then_some(hook_fence)));
                    }
                }
                if pi_overflow && f.kind == ModelErrorKind::Overflow {
                    // pi keeps the failed call in the session (agent-session.js
                    // `_processAgentEvent` message_end → `appendMessage`).
                    let ts = sim.clock.tick();
                    let error = super::pi_session::error_assistant(sim, &super::pi_session::anthropic_error_text(f.kind, &f.message), ts);
                    sim.persist(error.clone());
                    if !overflow_attempted {
                        overflow_attempted = true;
                        if super::pi_session::overflow_compaction(sim, all, script) {
                            sim.pi_compactions += 1;
                            unscripted = true;
                            continue;
                        }
                        // The compaction failed and pi does not retry. The error was
                        // dropped from the agent's messages before compacting, so the
                        // run loop sees the attempt end on the last good assistant: no
                        // prompt error, no overflow recovery, a finalized attempt
                        // (afterTurn + maintain) and the overflow text for the user
                        // (twin overflow-three-compactions --keep: summarisation call
                        // answered by the next scripted overflow, then afterTurn,
                        // maintain, no compact).
                        super::pi_session::clear_stale_assistant_usage(all);
                        fail_turn(sim, CONTEXT_OVERFLOW_ERROR);
                        return Ok(Ok(owns.then_some(hook_fence)));
                    } else {
                        // The second overflow of the prompt is not compacted again
                        // ("Context overflow recovery failed after one
                        // compact-and-retry attempt"): the error stays in the
                        // agent's messages and the attempt ends on it.
                        sim.note("pi-overflow-recovery-failed", "context overflow recovery failed after one compact-and-retry attempt");
                        all.push(error.into());
                        super::pi_session::clear_stale_assistant_usage(all);
                    }
                }
                return Ok(Err(f));
            }
            Ok(a) => {
                assistant = a;
                if thinking_retry == Some(false) {
                    // The answered retry notifies the recovery hook before the
                    // reply is stored: the stored history loses its thinking
                    // (replay::strip_thinking_for_rejected_replay), rewriting
                    // the branch from its first changed entry, the turn's
                    // admitted prompt included, so the run's durable turn no
                    // longer reads as one closed range (finalize: durable-blocked).
                    thinking_retry = Some(true);
                    let n = super::replay::strip_thinking_for_rejected_replay(sim.transcript.entries.iter_mut().filter(|e| !e.abandoned && super::replay::has_thinking(&e.message)).map(|e| e.message.make_mut()));
                    if n > 0 {
                        sim.transcript.rewritten();
                        sim.thinking_replay_rewritten = true;
                        sim.note("thinking-replay-repaired", format!("stripped thinking blocks after provider rejected replay: repaired={n}"));
                    }
                }
                provider_reply_fields(sim, &mut assistant, &step, prompt_tokens);
                sim.last_prompt_tokens = prompt_tokens;
                sim.run_cache_touch = Some(sim.clock.now());
                let assistant = Msg::new(assistant);
                sim.persist(assistant.clone());
                all.push(assistant);
                if step.tool_calls.is_empty() {
                    return Ok(Ok(owns.then_some(hook_fence)));
                }
                let ids = all.last().unwrap().tool_call_ids().iter().map(|s| s.to_string()).collect::<Vec<_>>();
                for (call, id) in step.tool_calls.iter().zip(ids) {
                    // 2026.4.26 (no plugin replaces a tool's result): a failing tool reaches the
                    // engine as the tool adapter's error result (see [`tool_error_result_2026_4`]).
                    let failed_4x = call.is_error && sim.profile.real_tool_result_details;
                    let (text, is_error, error_details) = if failed_4x {
                        let (text, details) = tool_error_result_2026_4(&call.name, &call.result);
                        (text, false, Some(details))
                    } else {
                        (call.result.clone(), call.is_error, None)
                    };
                    let mut content = vec![text_block(&text)];
                    let mut receipt_details = error_details;
                    if sim.profile.host_spawn_tool && call.name == "sessions_spawn" {
                        let (text, receipt) = super::subagent::spawn_tool_call(sim, call).await?;
                        (content, receipt_details) = (vec![text_block(&text)], Some(receipt));
                    }
                    if call.image {
                        content.push(ContentBlock::Image(ImageBlock { data: super::steps::TINY_PNG.into(), mime_type: "image/png".into(), extra: Extra::new() }));
                    }
                    let mut extra = Extra::new();
                    // 2026.9.6 tags tool results with the run too (real store, `clawspec twin tool-loop-multi-step`).
                    if sim.profile.attempt_runtime_context_v2026_9 {
                        extra.insert("__openclaw".into(), json!({"runId": format!("run-{:04}", sim.turn)}));
                    }
                    let r = AgentMessage::ToolResult(ToolResultMessage {
                        tool_call_id: id,
                        tool_name: Some(call.name.clone()),
                        content,
                        is_error: Some(is_error),
                        details: receipt_details.or_else(|| scripted_result_details(sim.profile, &call.name, &call.result, &sim.workspace_dir())),
                        timestamp: Some(sim.clock.tick().into()),
                        extra,
                    });
                    let r = Msg::new(r);
                    sim.persist(r.clone());
                    all.push(r);
                }
            }
        }
    }
}

/// The token estimate of `request` as the host weighs it: the reference's state dir (in a media
/// note's staged path) counts as `assemble_budget` counts it — the real host's
/// work dir under `twin`, the fixed `$STATE` otherwise — so token counts never
/// depend on where a run's state lives (traces are byte-identical across
/// state roots: tests/message_delta.rs, the golden suite).
fn host_weighted(sim: &Sim<'_>, request: &[Msg]) -> u64 {
    // Asked of every model call with the whole history: the memo reads only
    // the messages the last request did not hold (`Sim::request_weight`).
    let (tokens, names_state) = sim.request_weight(request);
    if !names_state {
        return tokens;
    }
    let state = sim.state_str();
    let json = serde_json::to_string(request).expect("messages serialise");
    let to = sim.setup.host_dir.as_deref().unwrap_or("$STATE");
    let weighted: Vec<AgentMessage> = serde_json::from_str(&json.replace(state.as_str(), to)).expect("messages deserialise");
    sim.profile.estimator.messages(&weighted)
}

/// A failing tool on 2026.4.26: the tool adapter catches the thrown error and
/// answers `jsonResult({status: "error", tool, error: message})` — the payload
/// pretty-printed as the text (`JSON.stringify(payload, null, 2)`, key order
/// status, tool, error) and as the details — a normal result, so the message's
/// `isError` stays false (dist/pi-tool-definition-adapter-*.js
/// buildToolExecutionErrorResult, dist/common-*.js jsonResult; twin of
/// tool-loop-multi-step on the real 4.26 gateway, the bridge failing the call
/// with a before_tool_call block whose reason is the scripted text).
pub fn tool_error_result_2026_4(tool: &str, message: &str) -> (String, serde_json::Value) {
    let s = |v: &str| serde_json::to_string(v).expect("a string serialises");
    let text = format!("{{\n  \"status\": \"error\",\n  \"tool\": {},\n  \"error\": {}\n}}", s(tool), s(message));
    (text, json!({"status": "error", "tool": tool, "error": message}))
}

/// The `details` of a scripted tool result as the engine receives it: `{}` as the
/// 2026.9 host's tool-result middleware sets it; on 2026.4.26 the real tool's
/// (`Profile::real_tool_result_details`; the reference takes no time, so
/// `durationMs` is 0 — a measured value, erased by the twin's rule 12).
fn scripted_result_details(profile: &super::profile::Profile, tool: &str, text: &str, workspace: &str) -> Option<serde_json::Value> {
    match (profile.real_tool_result_details, tool) {
        // pi-coding-agent dist/core/tools/write.js resolves `details: undefined` too.
        (true, "read" | "write") => None,
        (true, "exec") => Some(json!({"status": "completed", "exitCode": 0, "durationMs": 0, "aggregated": text, "cwd": workspace})),
        _ => Some(json!({})),
    }
}

fn steer_message(sim: &mut Sim<'_>, st: &SteerSpec) -> AgentMessage {
    let ts = sim.clock.tick();
    if let Some(a) = &st.announce {
        let events = vec![super::inject::task_completion_event(sim.profile.prompt_texts, a)];
        let body = super::inject::format_internal_events(sim.profile, &events);
        sim.events_by_text.insert(body.clone(), events);
        let m = AgentMessage::User(UserMessage {
            content: MessageContent::Text(body.clone()),
            timestamp: Some(ts.into()),
            provenance: Some(super::inject::announce_provenance(&a.child)),
            idempotency_key: None,
            extra: Extra::new(),
        });
        // 2026.4.26 steers with `activeSession.steer(text)` (dist/selection-D9uTvvsw.js
        // queueHandle.queueMessage); pi-coding-agent 0.70.2 `_queueSteer` hands it to
        // `agent.steer`, the agent loop emits `message_end` for it
        // (pi-agent-core dist/agent-loop.js), and AgentSession persists every user
        // message on `message_end` (pi-coding-agent dist/core/agent-session.js).
        // Only profiles with shouldSuppressAgentPromptPersistence keep it out.
        if sim.profile.suppress_announce_persistence {
            sim.unpersisted.push(body);
            sim.note("steer", format!("subagent completion of {} steered into the running turn (not persisted)", a.child));
        } else {
            sim.persist(m.clone());
            sim.note("steer", format!("subagent completion of {} steered into the running turn and persisted on message_end", a.child));
        }
        m
    } else {
        let text = st.text.clone().unwrap_or_default();
        let mut m = if sim.profile.webchat_entry_v2026_4 {
            // 2026.4.26 steers through its reply pipeline: the chat.send's queued body (runtime::entry).
            let body = super::entry::steered_webchat_body_2026_4(&text, ts);
            AgentMessage::User(UserMessage { content: MessageContent::Blocks(vec![text_block(&body)]), timestamp: None, provenance: None, idempotency_key: None, extra: Extra::new() })
        } else {
            AgentMessage::user_text(text)
        };
        super::steps::set_ts(&mut m, ts);
        sim.persist(m.clone());
        sim.note("steer", "a user message was steered into the running turn");
        m
    }
}

fn is_volatile(sim: &Sim<'_>, m: &AgentMessage) -> bool {
    let text = m.text();
    let markers = [
        clawspec_contract::markers::INTER_SESSION_PREFIX,
        clawspec_contract::markers::INTERNAL_CONTEXT_BEGIN,
        clawspec_contract::markers::RETRY_MARKER,
    ];
    m.provenance().is_some_and(|p| p.kind == ProvenanceKind::InterSession)
        || sim.unpersisted.iter().any(|u| *u == text)
        || markers.iter().any(|mk| text.contains(&sim.profile.marker(mk)))
}

fn assemble_meta(sim: &Sim<'_>, messages: &[Msg], boundary: usize, reason: &str, budget: u64) -> CallMeta {
    CallMeta {
        reason: Some(reason.into()),
        boundary: Some(boundary),
        volatile: messages.iter().enumerate().skip(boundary).filter(|(_, m)| is_volatile(sim, m)).map(|(i, _)| i).collect(),
        unpersisted: sim.unpersisted.clone(),
        params_tokens: Some(tokens::estimate_messages(messages)),
        facts: [("tokenBudget".to_string(), json!(budget))].into_iter().collect(),
    }
}

/// afterTurn, else ingestBatch, else ingest per message (contract §4.4).
pub(super) async fn ingest_delta(sim: &mut Sim<'_>, is_heartbeat: bool, all: &[Msg], pre: usize, reason: &str) -> Result<bool, Abort> {
    let snapshot: Vec<&Msg> = all.iter().filter(|m| !(sim.profile.runtime_context_carriers && m.is_runtime_context_carrier())).collect();
    // 2026.4.26 flags no finalize call (attempt.tool-run-context-*.js
    // `finalizeHarnessContextEngineTurn`: afterTurn, ingestBatch and ingest
    // without `isHeartbeat`; twin of heartbeat-ok on builtin:legacy).
    let hb = (is_heartbeat && sim.profile.heartbeat_flag_on_after_turn).then_some(true);
    if sim.has("afterTurn") {
        let mut p = serde_json::Map::new();
        p.insert("sessionId".into(), json!(sim.transcript.session_id));
        p.insert("sessionKey".into(), json!(sim.setup.session_key));
        if let Some(t) = sim.session_target() {
            p.insert("sessionTarget".into(), t);
        }
        p.insert("sessionFile".into(), json!(sim.session_file()));
        // The snapshot goes out of band (shared, not copied: `CallParams`).
        p.insert("messages".into(), Value::Null);
        p.insert("prePromptMessageCount".into(), json!(pre));
        if sim.profile.heartbeat_flag_on_after_turn {
            // 2026.9.6 always sends the flag (false on ordinary turns).
            p.insert("isHeartbeat".into(), json!(hb.unwrap_or(false)));
        }
        p.insert("tokenBudget".into(), json!(sim.budget()));
        if let Some(s) = sim.runtime_settings((Some(sim.budget()), None), None) {
            p.insert("runtimeSettings".into(), s);
        }
        // No rewriteTranscriptEntries: only maintenance adds it (both releases:
        // 2026.4.26 context-engine-maintenance-*.js, 2026.9.6
        // `buildAfterTurnRuntimeContext`; audit item 6).
        let mut ctx = sim.runtime_context(false);
        // 2026.4.26 derives it from the provider-reported usage, zeros from
        // the mock: absent (real gateway, `clawspec twin`).
        if !sim.profile.webchat_entry_v2026_4 {
            ctx["currentTokenCount"] = json!(sim.last_prompt_tokens);
        }
        p.insert("runtimeContext".into(), ctx);
        let meta = CallMeta { reason: Some(reason.into()), boundary: Some(pre), unpersisted: sim.unpersisted.clone(), ..Default::default() };
        let params = super::CallParams::with_messages(Value::Object(p), snapshot.into_iter().cloned().collect());
        let out = sim.call("afterTurn", params, meta, CallOptions::default()).await?;
        return Ok(report_finalize(sim, "afterTurn", out));
    }
    let new: Vec<&Msg> = snapshot.iter().skip(pre).copied().collect();
    if new.is_empty() {
        return Ok(true);
    }
    if sim.has("ingestBatch") {
        let mut p = json!({"sessionId": sim.transcript.session_id, "sessionKey": sim.setup.session_key, "messages": new});
        if let Some(h) = hb {
            p["isHeartbeat"] = json!(h);
        }
        let meta = CallMeta { reason: Some(reason.into()), unpersisted: sim.unpersisted.clone(), ..Default::default() };
        let out = sim.call("ingestBatch", p, meta, CallOptions::default()).await?;
        return Ok(report_finalize(sim, "ingest", out));
    }
    for m in new {
        let mut p = json!({"sessionId": sim.transcript.session_id, "sessionKey": sim.setup.session_key, "message": m});
        if let Some(h) = hb {
            p["isHeartbeat"] = json!(h);
        }
        let meta = CallMeta { reason: Some(reason.into()), unpersisted: sim.unpersisted.clone(), ..Default::default() };
        let out = sim.call("ingest", p, meta, CallOptions::default()).await?;
        if !report_finalize(sim, "ingest", out) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn report_finalize(sim: &mut Sim<'_>, what: &str, out: CallOutcome) -> bool {
    if let CallOutcome::Threw(m) = out {
        // warn("context engine afterTurn failed: …") / "context engine ingest failed: …"
        sim.note("finalize-failed", format!("context engine {what} failed: {m}"));
        return false;
    }
    true
}

/// Classic or durable finalize, then maintain(turn) — skipped when the finalize threw (2026.9.6 dist/context-engine-lifecycle-*.mjs `finalizeHarnessContextEngineTurn`).
async fn finalize(
    sim: &mut Sim<'_>,
    inp: &TurnInput,
    mode: Mode,
    session: Option<(Vec<Msg>, usize)>,
    errored: bool,
    admission: Option<&(usize, String)>,
) -> Result<(), Abort> {
    match mode {
        Mode::OnLegacy => Ok(()),
        Mode::Leased => {
            sim.note("announce-not-finalized", "the announce run of a live child admits no turn: no afterTurn, commitTurn or maintain(turn)");
            Ok(())
        }
        Mode::Durable => {
            if errored {
                sim.note("durable-discard", "the attempt failed: the turn intent is discarded, commitTurn not called");
                return Ok(());
            }
            if sim.thinking_replay_rewritten {
                // 2026.9.6 run-entry-*.mjs `finalizeAcceptedContextEngineTurn`:
                // the admitted range was rewritten under the run (twin of
                // regression-a8-unsigned-thinking on builtin:window: no
                // commitTurn, no maintain, the lease disposed).
                sim.note("durable-blocked", "the stored history was rewritten after a rejected thinking replay: the accepted range is not one closed turn and the turn is not advanced (no commitTurn)");
                return Ok(());
            }
            if sim.profile.steer_rebinds_durable_turn && inp.steer.iter().any(|s| s.announce.is_none()) {
                sim.note("durable-blocked", "a user message was steered in: confirming the steer rewrote it, the accepted range is session-rebound and the turn is not advanced (no commitTurn)");
                return Ok(());
            }
            let (_, entry_id) = admission.cloned().expect("durable turn has an admission");
            // Found by id, never by the position it was admitted at: a
            // compaction inside the turn (delegated by an engine that does
            // not trim, e.g. openclaw-universal-capture on overflow-natural)
            // rewrites the transcript under new entry ids. The admitted entry
            // is then gone, the accepted range reads stale and 2026.9.6 skips
            // the advancement (dist session-accessor-*.mjs
            // readClosedTranscriptTurn; context-engine-turn-attempt-*.mjs
            // finalizeAcceptedContextEngineTurn).
            let Some(idx) = sim.transcript.entries.iter().rposition(|e| e.id == entry_id) else {
                sim.note("durable-stale", "the transcript was rewritten after admission (compaction): the accepted range is stale, commitTurn not called (skipped accepted turn advancement)");
                return Ok(());
            };
            let params = commit_params(sim, idx, &entry_id, inp.is_heartbeat);
            let out = sim.call("commitTurn", params.clone(), CallMeta::reason("turn"), CallOptions::default()).await?;
            match out {
                CallOutcome::Threw(m) => {
                    sim.note("commit-queued", format!("commitTurn failed, kept in the outbox for retry: {m}"));
                    sim.outbox = Some(params);
                }
                _ => {
                    if inp.commit_conflict {
                        commit_conflict_probe(sim, &params).await?;
                    }
                    if inp.commit_replay {
                        sim.note("commit-replay-scheduled", "host crash after commitTurn: the outbox entry will be replayed");
                        sim.outbox = Some(params);
                    }
                    maintain_after_commit(sim).await?;
                }
            }
            Ok(())
        }
        Mode::Classic => {
            if errored && !sim.profile.finalize_after_error {
                sim.note("finalize-skipped", "prompt error or abort: finalize skipped (finalizeHarnessContextEngineTurn)");
                return Ok(());
            }
            let Some((all, pre)) = session else { return Ok(()) };
            sim.finalizing = sim.profile.pi_session_recovery;
            let ok = ingest_delta(sim, inp.is_heartbeat, &all, pre, "finalize").await;
            let done = match ok {
                Ok(true) if !errored => maintain_turn(sim).await,
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            sim.finalizing = false;
            done
        }
    }
}

pub(super) async fn maintain_turn(sim: &mut Sim<'_>) -> Result<(), Abort> {
    let deferred = sim.info.turn_maintenance_mode == Some(TurnMaintenanceMode::Background);
    let p = sim.maintain_params(deferred, "turn");
    sim.call("maintain", p, CallMeta::reason("turn"), CallOptions::default()).await?;
    Ok(())
}

/// maintain(turn) after a committed durable turn, as the real 2026.9.6 host
/// sends it (observed by `clawspec twin`, docs/fidelity.md; audit item 14):
/// `sessionFile` is the admission's session key, no runtimeSettings, no
/// abortSignal, and the commit's small runtimeContext plus llm, sessionTarget
/// and rewriteTranscriptEntries.
pub(super) async fn maintain_after_commit(sim: &mut Sim<'_>) -> Result<(), Abort> {
    let deferred = sim.info.turn_maintenance_mode == Some(TurnMaintenanceMode::Background);
    let mut ctx = commit_runtime_context(sim);
    ctx["llm"] = json!({"complete": {"$callback": "llm.complete"}});
    if let Some(t) = sim.commit_session_target() {
        ctx["sessionTarget"] = t;
    }
    ctx["rewriteTranscriptEntries"] = json!({"$callback": "rewriteTranscriptEntries"});
    if deferred {
        ctx["allowDeferredCompactionExecution"] = json!(true);
    }
    let mut p = json!({"sessionId": sim.transcript.session_id, "sessionKey": sim.setup.session_key});
    if let Some(t) = sim.commit_session_target() {
        p["sessionTarget"] = t;
    }
    p["sessionFile"] = json!(sim.setup.session_key);
    p["runtimeContext"] = ctx;
    sim.call("maintain", p, CallMeta::reason("turn"), CallOptions::default()).await?;
    Ok(())
}

/// The runtimeContext of commitTurn (2026.9.6): provider, model id, the
/// model's context window and the token budget — nothing else.
fn commit_runtime_context(sim: &Sim<'_>) -> Value {
    json!({"provider": sim.setup.provider, "modelId": sim.setup.model, "modelContextWindow": sim.setup.context_window, "tokenBudget": sim.budget()})
}

/// A second writer (e.g. a gateway retry after failover that produced a
/// different reply) commits the same logical turn with another terminal
/// entry. The outbox is keyed by logicalTurnId (openclaw
/// `context-engine-turn-outbox.ts`), so an engine that accepts it has two
/// different histories for one key. Whatever the engine answers, the run goes on.
async fn commit_conflict_probe(sim: &mut Sim<'_>, params: &Value) -> Result<(), Abort> {
    let mut other = params.clone();
    let id = other["terminal"]["entryId"].as_str().unwrap_or_default().to_string();
    other["terminal"]["entryId"] = json!(format!("{id}-rewritten"));
    sim.note("commit-conflict-probe", "a second writer commits the same advancementKey with a different terminal entry");
    sim.call("commitTurn", other, CallMeta::reason("conflict-probe"), CallOptions::default()).await?;
    Ok(())
}

/// 2026.9.6 session-log events before an attempt's first model call: the
/// session's thinking level once (`thinking_level_change`, the run's level
/// "off"), then a `model-snapshot` when the model differs from the last one
/// recorded (real store, `clawspec twin`: user → thinking_level_change →
/// model-snapshot → assistant on a session's first run; none on later runs).
pub(super) fn host_events_before_model(sim: &mut Sim<'_>) {
    if !sim.transcript.is_sqlite() {
        return;
    }
    let ts = sim.clock.now();
    if !sim.transcript.has_marker("thinking_level_change", None) {
        sim.transcript.append_marker(json!({"type": "thinking_level_change", "thinkingLevel": "off"}), ts);
    }
    let (provider, api, model) = (sim.setup.provider.clone(), sim.setup.api.clone(), sim.setup.model.clone());
    let last = sim.transcript.last_marker("model-snapshot");
    if last.is_none_or(|m| m.event["data"]["provider"] != provider.as_str() || m.event["data"]["modelId"] != model.as_str()) {
        sim.transcript.append_marker(json!({"type": "custom", "customType": "model-snapshot", "data": {"timestamp": ts, "provider": provider, "modelApi": api, "modelId": model}}), ts);
    }
    sim.flush();
}

/// 2026.9.6 records the tool results its prompt cache froze (`custom`
/// `openclaw.cache-ttl`) right before each model call, when the frozen set
/// is not empty and differs from the last one written (builtin-openclaw-*.mjs
/// `submitEmbeddedAttemptPrompt` → `persistThenStream`; session-prompt-state-*.mjs
/// `persistToolResultProjections` compares the snapshot's hash). Every tool
/// result of a request is frozen (tool-result-truncation-*.mjs), and the set
/// carries over from the session's last record, so seeded history's results
/// are written before a session's first model call (real store, `clawspec
/// twin http-anthropic`). The result hashes are the host's own (`sourceHash`);
/// the store keeps only the keys here.
pub(super) fn host_event_before_stream(sim: &mut Sim<'_>, request: &[Msg]) {
    if !sim.transcript.is_sqlite() {
        return;
    }
    let last = sim.transcript.last_marker("openclaw.cache-ttl").map(|m| m.event["data"]["frozenToolResults"].clone());
    let keys: Vec<Value> = request
        .iter()
        .filter_map(|m| match &**m {
            AgentMessage::ToolResult(r) => Some(json!({"key": format!("tool:{}:{}", r.tool_call_id, r.timestamp.as_ref().map(|t| t.to_string()).unwrap_or_default())})),
            _ => None,
        })
        .collect();
    // A frozen result the attempt's messages no longer hold (an engine that
    // trimmed it away) leaves the set (builtin-openclaw-*.mjs
    // `prepareEmbeddedAttemptPromptContext` → tool-result-truncation-*.mjs
    // `reconcileToolResultPromptProjectionState`), so the changed set is
    // written again (twin of budget-tight-multiturn × builtin:window on 9.6).
    let frozen = frozen_tool_results(last.as_ref().and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default(), keys);
    if frozen.is_empty() || last.as_ref().and_then(Value::as_array) == Some(&frozen) {
        return;
    }
    let ts = sim.clock.now();
    sim.transcript.append_marker(json!({"type": "custom", "customType": "openclaw.cache-ttl", "data": {"prunedToolResults": [], "ambiguousToolResultBaseKeys": [], "frozenToolResults": frozen}}), ts);
    sim.flush();
}

/// The frozen set a request leaves: the last record's keys the request still
/// holds, in their order, then the request's new ones.
fn frozen_tool_results(last: &[Value], request: Vec<Value>) -> Vec<Value> {
    let mut frozen: Vec<Value> = last.iter().filter(|k| request.contains(k)).cloned().collect();
    for key in request {
        if !frozen.contains(&key) {
            frozen.push(key);
        }
    }
    frozen
}

/// 2026.9.6 marks every finished attempt with an `openclaw:bootstrap-context:full`
/// custom event after its last message (real store, `clawspec twin`; also
/// after a failed attempt, before the retry's messages).
fn host_event_after_attempt(sim: &mut Sim<'_>) {
    // Not after a heartbeat run (dist/builtin-openclaw-*.mjs resolveAttemptBootstrapContext:
    // `shouldRecordCompletedBootstrapTurn` requires `!isHeartbeatLifecycleRun`).
    if !sim.transcript.is_sqlite() || sim.heartbeat_run {
        return;
    }
    let ts = sim.clock.now();
    let data = json!({"timestamp": ts, "runId": format!("run-{:04}", sim.turn), "sessionId": sim.transcript.session_id});
    sim.transcript.append_marker(json!({"type": "custom", "customType": "openclaw:bootstrap-context:full", "data": data}), ts);
    sim.flush();
}

/// A transcript anchor of entry `i` (openclaw's `TranscriptEntryAnchor`).
fn anchor(sim: &Sim<'_>, i: usize) -> Value {
    let e = &sim.transcript.entries[i];
    // The generation is an opaque hex string on the real host.
    json!({"agentId": sim.setup.agent_id, "sessionId": sim.transcript.session_id, "sessionKey": sim.setup.session_key,
           "storePath": sim.commit_store_path(), "generation": format!("{:032x}", sim.transcript.generation),
           "entryId": e.id, "rawSeq": sim.transcript.raw_seq(i), "effectiveParentId": e.parent_id, "activeMessagePosition": active_position(sim, i)})
}

/// The position among the session's active messages, `custom_message`
/// entries (runtime-context carriers, the interrupted-turn guidance;
/// `sqlite_store::is_custom_message_entry`) not counted (twins of
/// http-openai-responses, whose Responses carrier is persisted, and of
/// timeout-recovery).
fn active_position(sim: &Sim<'_>, i: usize) -> usize {
    i - sim.transcript.custom_before(i)
}

/// The admission receipt of the turn whose user entry is `entry_id`, as the
/// store holds it now (the recorder's `getAdmissionReceipt()`; `None` once a
/// rewrite removed the entry).
fn admission_receipt(sim: &Sim<'_>, entry_id: &str) -> Option<Value> {
    // The turn's own entry: near the end of a long session.
    let idx = sim.transcript.entries.iter().rposition(|e| e.id == entry_id)?;
    let mut admission = anchor(sim, idx);
    if let AgentMessage::User(UserMessage { idempotency_key: Some(k), .. }) = &*sim.transcript.entries[idx].message {
        admission["idempotencyKey"] = json!(k);
    }
    admission["logicalTurnId"] = json!(format!("turn-{}-{entry_id}", sim.transcript.session_id));
    admission["role"] = json!("user");
    Some(admission)
}

/// commitTurn params (openclaw `src/agents/harness/context-engine-turn-attempt.ts`):
/// the closed range [admitted user … terminal], `advancementKey = logicalTurnId`.
pub(super) fn commit_params(sim: &Sim<'_>, idx: usize, entry_id: &str, heartbeat: bool) -> Value {
    let entries = &sim.transcript.entries;
    // The closed range holds positioned `message` events only (dist/session-accessor-*.mjs
    // readClosedTranscriptTurn): no `custom_message` entry.
    let range: Vec<&AgentMessage> = entries[idx..].iter().map(|e| &*e.message).filter(|m| !super::sqlite_store::is_custom_message_entry(m)).collect();
    let anchor = |i: usize| anchor(sim, i);
    let logical = format!("turn-{}-{entry_id}", sim.transcript.session_id);
    let mut admission = anchor(idx);
    if let AgentMessage::User(UserMessage { idempotency_key: Some(k), .. }) = &*entries[idx].message {
        admission["idempotencyKey"] = json!(k);
    }
    admission["logicalTurnId"] = json!(logical);
    admission["role"] = json!("user");
    let last = entries.len() - 1;
    let mut p = json!({
        "advancementKey": logical, "admission": admission, "terminal": anchor(last), "messages": range,
        "sessionId": sim.transcript.session_id, "sessionKey": sim.setup.session_key,
    });
    if let Some(t) = sim.commit_session_target() {
        p["sessionTarget"] = t;
    }
    // No runtimeSettings on commitTurn; the flag is always sent (2026.9.6).
    p["isHeartbeat"] = json!(heartbeat);
    p["runtimeContext"] = commit_runtime_context(sim);
    p
}

#[derive(Debug, PartialEq, Eq)]
pub enum CompactVerdict {
    Compacted,
    NotCompacted,
}

/// One `compact` call wrapped in the safety timeout with an AbortSignal
/// (`compactContextEngineWithSafetyTimeout`, 180 s default), then
/// maintain(compaction) on success. Throw/timeout ⇒ failed result.
pub async fn compact(sim: &mut Sim<'_>, params: Value, reason: &str) -> Result<CompactVerdict, Abort> {
    if sim.on_legacy {
        return Ok(runtime_compaction(sim, &params));
    }
    let signal = params.get("abortSignal").and_then(|s| s.get("$abortSignal")).and_then(Value::as_str).map(str::to_string);
    let opts = CallOptions { timeout: Some(sim.driver.compact_timeout), abort_signal: signal };
    let before = sim.profile.estimator.messages(&sim.transcript.messages());
    let meta = CallMeta { reason: Some(reason.into()), params_tokens: Some(before), ..Default::default() };
    // 2026.9.6 maintains with the recovery compaction's own context (runtime::compact).
    let recovery = sim.profile.attempt_runtime_context_v2026_9 && params["runtimeContext"]["trigger"].as_str().is_some_and(super::compact::is_recovery_trigger);
    // A manual `/compact` too: the embedded compactor maintains with the
    // compaction's `runtimeContext` (no `forceReason`, which only the compact
    // call gets) and the successor's `sessionFile`, the command's session key
    // (embedded-agent-*.mjs `runContextEngineMaintenance({… sessionFile:
    // postCompactionSessionFile, reason: "compaction", runtimeContext …})`;
    // commands-handlers.runtime-*.mjs passes `sessionFile: params.sessionKey`;
    // twin of compact-state-effect).
    let manual = sim.profile.attempt_runtime_context_v2026_9 && params["runtimeContext"]["trigger"] == "manual";
    // 2026.4.26 `/compact`: `compactEmbeddedPiSession` maintains with the
    // runtimeContext it compacted with (dist pi-embedded-*.js
    // `runContextEngineMaintenance({… reason: "compaction", runtimeContext})`;
    // twin of compact-state-effect on builtin:window).
    let manual_4x = sim.profile.builtin_compaction_v2026_4 && params["runtimeContext"]["trigger"] == "manual";
    // 2026.4.26's run loop maintains after an overflow compaction with the
    // compaction's runtimeContext, and not at all after a timeout compaction
    // (pi-embedded-*.js: `runContextEngineMaintenance({… reason: "compaction",
    // runtimeContext: overflowCompactionRuntimeContext})` in the overflow branch
    // only; twin of overflow-natural on builtin:window).
    let overflow_4x = sim.profile.pi_session_recovery && params["runtimeContext"]["trigger"] == "overflow";
    let no_maintain = sim.profile.pi_session_recovery && params["runtimeContext"]["trigger"] == "timeout_recovery";
    let maintain = (recovery || manual || manual_4x || overflow_4x).then(|| params.clone());
    let verdict = match sim.call("compact", params, meta, opts).await? {
        CallOutcome::Returned(v, _) => {
            let ok = v.get("ok").and_then(Value::as_bool) == Some(true) && v.get("compacted").and_then(Value::as_bool) == Some(true);
            if !ok {
                let r = v.get("reason").and_then(Value::as_str).unwrap_or("no reason");
                sim.note("compaction-declined", format!("compaction did not compact: {r}"));
            }
            if ok { CompactVerdict::Compacted } else { CompactVerdict::NotCompacted }
        }
        CallOutcome::Threw(m) => {
            sim.note("compaction-failed", format!("context engine compaction failed: {m}"));
            CompactVerdict::NotCompacted
        }
        CallOutcome::Absent => CompactVerdict::NotCompacted,
    };
    if verdict == CompactVerdict::Compacted && !no_maintain {
        let p = match &maintain {
            Some(cp) if manual_4x || overflow_4x => {
                let mut p = sim.maintain_params(false, "compaction");
                p["runtimeContext"] = cp["runtimeContext"].clone();
                p["runtimeContext"]["rewriteTranscriptEntries"] = json!({"$callback": "rewriteTranscriptEntries"});
                p
            }
            Some(cp) => {
                let mut p = super::compact::maintain_after_recovery(sim, cp);
                if manual {
                    if let Some(c) = p["runtimeContext"].as_object_mut() {
                        c.remove("forceReason");
                    }
                    p["sessionFile"] = json!(sim.setup.session_key);
                    // The command's signal again, but a handle is minted per
                    // call (docs/protocol.md `$abortSignal`; the bridge
                    // encodes each call anew): the engine sees a new id.
                    p["runtimeContext"]["abortSignal"] = json!({"$abortSignal": sim.ids.next("sig")});
                }
                p
            }
            None => sim.maintain_params(false, "compaction"),
        };
        sim.call("maintain", p, CallMeta::reason("compaction"), CallOptions::default()).await?;
    }
    Ok(verdict)
}

/// A run's recovery compaction, with the run's remaining scripted replies
/// lent to the host's `llm.complete` (`runtime::callbacks::Callbacks::llm_script`).
async fn compact_with_script(sim: &mut Sim<'_>, params: Value, reason: &str, script: &mut VecDeque<ModelReply>) -> Result<CompactVerdict, Abort> {
    let lent = script.len();
    sim.llm_script = Some(std::mem::take(script));
    let verdict = compact(sim, params, reason).await;
    *script = sim.llm_script.take().unwrap_or_default();
    if script.len() < lent {
        sim.lent_replies_taken = true;
    }
    verdict
}

/// Built-in compaction when the turn runs on legacy.
fn runtime_compaction(sim: &mut Sim<'_>, params: &Value) -> CompactVerdict {
    let budget = params.get("tokenBudget").and_then(Value::as_u64).unwrap_or(sim.budget());
    match plan_compaction(&sim.transcript.messages(), budget) {
        Some(p) => {
            sim.apply_compaction(&p);
            sim.note("legacy-compaction", format!("legacy compaction: {} → {} tokens", p.tokens_before, p.tokens_after));
            CompactVerdict::Compacted
        }
        None => CompactVerdict::NotCompacted,
    }
}

/// The one-time tool-result truncation fallback after a compaction that did
/// not compact (contract §4.6).
fn truncate_tool_results(sim: &mut Sim<'_>) -> bool {
    let mut changed = 0;
    for e in &mut sim.transcript.entries {
        if !matches!(*e.message, AgentMessage::ToolResult(_)) {
            continue;
        }
        if let AgentMessage::ToolResult(r) = e.message.make_mut() {
            for b in &mut r.content {
                if let ContentBlock::Text(t) = b {
                    if t.text.chars().count() > TRUNCATE_TOOL_RESULT_CHARS {
                        let head: String = t.text.chars().take(TRUNCATE_TOOL_RESULT_CHARS).collect();
                        let cut = (t.text.chars().count() - TRUNCATE_TOOL_RESULT_CHARS) as u64;
                        // Recovery suffix (openclaw 2026.9.6 `context-truncation-notice.ts`).
                        t.text = format!("{head}\n{}", markers::tool_result_recovery_truncation_notice(cut));
                        changed += 1;
                    }
                }
            }
        }
    }
    if changed > 0 {
        sim.rewrites += changed as u64;
        sim.transcript.rewritten();
        sim.flush();
        sim.note("tool-result-truncation", format!("compaction did not help: truncated {changed} oversized tool results"));
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::continuation_prompt(markers::CONTINUATION_PROMPT, false)]
    #[case::fallback_marked_prompt("[retry marker]\n\nIs it fixed now?", true)]
    #[case::already_merged(&format!("{}\nIs it fixed now?\n\nContinue.", markers::QUEUED_USER_MESSAGE_MARKER), true)]
    #[case::text_inside_a_line("Well, Is it fixed now? maybe", false)]
    fn a_prompt_already_carrying_the_orphan_is_not_merged_again(#[case] prompt: &str, #[case] included: bool) {
        assert_eq!(prompt_includes_queued(prompt, " Is it fixed now?\r\n"), included);
    }

    #[test]
    fn a_frozen_tool_result_the_request_no_longer_holds_leaves_the_set() {
        let k = |id: &str| json!({"key": format!("tool:{id}:1")});
        // Turn 4 of budget-tight-multiturn × builtin:window on 9.6: the engine
        // trimmed turn 1's result away; the real host wrote the smaller set.
        assert_eq!(frozen_tool_results(&[k("a"), k("b"), k("c")], vec![k("b"), k("c")]), vec![k("b"), k("c")]);
        assert_eq!(frozen_tool_results(&[k("b"), k("a")], vec![k("a"), k("b"), k("d")]), vec![k("b"), k("a"), k("d")]);
        assert_eq!(frozen_tool_results(&[], vec![k("a")]), vec![k("a")]);
    }

    #[test]
    fn a_2026_4_tool_failure_is_the_adapters_pretty_printed_error_payload() {
        let (text, details) = tool_error_result_2026_4("exec", "permission \"denied\"");
        // JSON.stringify(payload, null, 2) in the payload's key order.
        assert_eq!(text, "{\n  \"status\": \"error\",\n  \"tool\": \"exec\",\n  \"error\": \"permission \\\"denied\\\"\"\n}");
        assert_eq!(details, json!({"status": "error", "tool": "exec", "error": "permission \"denied\""}));
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, details, "the text is the same payload");
    }
}
