//! Runtime profiles: what a given OpenClaw version does, as data. The turn loop
//! reads these flags; it never compares version strings. Sources per flag are
//! in shared/reference/openclaw-contract.md §1 and §4 (cited per field).

use clawspec_contract::tokens::Estimator;
use serde::Serialize;

/// Which OpenClaw release's prompt texts the runtime writes (abort hint,
/// inbound-metadata labels, reset time line, heartbeat prompt and filter,
/// announce block and reply instruction, collect title). Sources per text in
/// `contract/src/markers.rs` and docs/openclaw-facts.md §3–4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromptTexts {
    V2026_4_26,
    V2026_9_6,
}

/// What the runtime sends after an overflow/timeout recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverflowRetry {
    /// 2026.4.26: the run loop `continue`s with the same `params.prompt`
    /// (`src/agents/pi-embedded-runner/run.ts`; no continuation prompt exists there).
    SamePrompt,
    /// 2026.9.6: `CONTINUATION_PROMPT` (+ `TOOL_FAILURE_INSTRUCTION` after a failed
    /// tool) with `suppressNextUserMessagePersistence` when the user prompt is
    /// already in the transcript (`run/session-prompt-state.ts`).
    ContinueFromTranscript,
}

/// Where the release keeps session transcripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TranscriptStore {
    /// `sessions/<id>.jsonl` files; `sessionFile` is that path (2026.4.26
    /// `SessionManager`).
    Jsonl,
    /// The agent's SQLite database `agents/<agent>/agent/openclaw-agent.sqlite`
    /// (2026.9.6 dist `openclaw-agent-db.paths-*.mjs`); hooks get the session
    /// key as `sessionFile` and `runtimeContext.transcriptStorage: {kind: "sqlite"}`
    /// (dist context-engine-maintenance-*.mjs `buildAfterTurnRuntimeContext`).
    Sqlite,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: String,
    /// The OpenClaw npm version this profile simulates.
    pub openclaw_version: &'static str,
    /// `runtimeSettings` (schemaVersion 1) on every hook (2026.6.11,
    /// `src/context-engine/runtime-settings.ts`).
    pub runtime_settings: bool,
    /// Hidden `openclaw.runtime-context` carriers, stripped before every hook
    /// (`src/agents/internal-runtime-context.ts`, 2026.8+).
    pub runtime_context_carriers: bool,
    /// Inter-session header visible in history user messages
    /// (2026.4.26 `src/agents/pi-embedded-runner/replay-history.ts`).
    pub inter_session_visible_prefix: bool,
    /// Task-completion block of 2026.4.26 (untrusted child-result markers).
    pub legacy_child_result_markers: bool,
    /// `info.acceptedHostParams` projection (2026.8.2, `registry-contract.ts`).
    pub host_param_projection: bool,
    /// Durable turns through `commitTurn` for admitted turns (2026.8.2,
    /// `src/agents/embedded-agent-runner/run/context-engine-admission.ts`).
    pub durable_turns: bool,
    /// A user message steered in through the gateway (`chat.send` queueMode
    /// steer) blocks the durable turn: confirming the steer rewrites the
    /// steered message (`__openclaw.steerTargetRunId`), which bumps the
    /// transcript generation, so the run's terminal anchor no longer shares the
    /// admission's generation and the accepted range reads "session-rebound":
    /// no commitTurn, no maintain(turn) (2026.9.6 dist/user-turn-transcript-*.mjs
    /// confirmPersistedSteerTargetRunId; dist/session-accessor-*.mjs
    /// anchorsShareTarget / readClosedTranscriptTurn; dist/context-engine-turn-attempt-*.mjs
    /// "skipped accepted turn advancement"; seen by `clawspec twin` on steer-user-text).
    pub steer_rebinds_durable_turn: bool,
    /// Classic finalize still runs after a prompt error or abort (true up to
    /// 2026.7.35; 2026.9.6 `finalizeHarnessContextEngineTurn` skips).
    pub finalize_after_error: bool,
    /// Quarantine of engines resolved outside agent runs (2026.9.6
    /// `src/context-engine/registry.ts`).
    pub quarantine: bool,
    /// assemble budget = budget − reserve − rendered prompt (2026.5+); 2026.4.x
    /// passed the full `contextTokenBudget` (`attempt-prompt-preflight.ts`).
    pub reduced_assemble_budget: bool,
    /// `ensureAssembleResultShape` (fix for #75541, after 2026.4.27): invalid
    /// assemble results fall back to pipeline messages instead of failing the turn.
    pub assemble_result_validation: bool,
    /// `promptAuthority` honoured by the precheck (2026.5.7, #74233/#74255).
    pub prompt_authority: bool,
    /// Precheck skipped for owning engines (PR #95342, 2026-06-20).
    pub precheck_skip_for_owners: bool,
    /// Spawn preparation skipped for light isolated spawns (PR #88667, 2026-05-31).
    pub skip_light_isolated_spawn_prep: bool,
    /// `isHeartbeat` on afterTurn (PR #90632, ~2026-06-05) and on ingest /
    /// ingestBatch; 2026.4.26 sends it on none of them (dist
    /// attempt.tool-run-context-*.js `finalizeHarnessContextEngineTurn`).
    pub heartbeat_flag_on_after_turn: bool,
    /// compact params of 2026.8.2+: no `sessionFile`, `agentId` + `sessionTarget`.
    pub compact_params_v2026_8: bool,
    /// RFC #82137 assemble params (seed 000_f952e0e4f4186383.txt §2).
    pub rfc_assemble_fields: bool,
    /// The engine instance resolved for an agent run is disposed when the run
    /// ends, and nothing is disposed at session end (real 2026.9.6 gateway,
    /// observed by `clawspec twin`: `dispose` after every turn's maintain).
    pub dispose_per_run: bool,
    /// `hadSessionFile` = the transcript already holds a message when the
    /// attempt starts — for a durable turn that includes the admitted user
    /// message, so even a new session bootstraps (2026.9.6 builtin-openclaw
    /// `resolveExistingAttemptTranscriptState` → `hasSessionTranscriptMessage`).
    pub bootstrap_after_admission: bool,
    /// Marker texts changed (the RFC's warning); see `contract::markers::drifted`.
    pub marker_drift: bool,
    /// Prompt texts of this release.
    pub prompt_texts: PromptTexts,
    /// Host token estimate (`contract::tokens`): pi-coding-agent era or 2026.9.6.
    #[serde(skip)]
    pub estimator: Estimator,
    /// Announces reach the model as a hidden runtime-context carrier with the
    /// event fragments and the prompt "Continue the OpenClaw runtime event."
    /// (2026.9.6 `buildAgentInternalEventContext`, `resolveInternalEventPromptBody`,
    /// `run/runtime-context-prompt.ts`); 2026.4.26 sent the formatted block as the prompt.
    pub announce_runtime_context: bool,
    /// `shouldSuppressAgentPromptPersistence` exists (2026.9.6
    /// `src/gateway/agent-turn/agent-handler-helpers.ts`; absent from 2026.4.26).
    pub suppress_announce_persistence: bool,
    /// A scripted `sessions_spawn` tool call runs the host's tool: the spawn
    /// is prepared inside the parent's tool call, the announce run of that
    /// child takes the logical-turn lease and the host cleans the child up
    /// after it (`runtime::subagent`; 2026.9.6, twin-observed).
    pub host_spawn_tool: bool,
    /// How 2026.4.26 runs that tool (`runtime::subagent`, twin of
    /// announce-subagent on the real 2026.4.26 gateway): prepareSubagentSpawn
    /// without session files and without a dispose, the 4.26 receipt, a child
    /// run on its own JSONL session finalised by afterTurn and maintain, a
    /// classic announce run (afterTurn, maintain) and `onSubagentEnded`
    /// without `agentDir` on an engine that is never disposed.
    pub host_spawn_v2026_4: bool,
    pub overflow_retry: OverflowRetry,
    /// pi's AgentSession recovers inside the attempt: an overflow is
    /// auto-compacted and retried once per prompt when the engine does not
    /// own compaction (`runtime::pi_session`), and an idle timeout is retried
    /// once on the same model (2026.4.26 dist/pi-embedded-*.js
    /// `MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES`). 2026.9.6 disables pi's
    /// compaction and recovers in its run loop.
    pub pi_session_recovery: bool,
    /// Reserve = min(max(reserve, 20 000), ⌊budget/4⌋) and the assemble budget
    /// subtracts ⌈1.2·(12 + est(system) + 12 + est(prompt))⌉ (2026.9.6
    /// `src/agents/agent-settings.ts`, `agent-compaction-constants.ts`, attempt assemble).
    pub reserve_floor_and_cap: bool,
    /// The attempt context of 2026.9.6 (`buildAfterTurnRuntimeContext`, dist
    /// context-engine-maintenance-*.mjs): `model` (not `modelId`), real agent
    /// and workspace dirs, the entry point's fields (`runtime::entry`),
    /// `transcriptStorage`.
    pub attempt_runtime_context_v2026_9: bool,
    /// bootstrap gets a `runtimeContext` (and runtimeSettings/sessionTarget);
    /// 2026.4.26 passes only `{sessionId, sessionKey, sessionFile}` (dist
    /// attempt.tool-run-context-*.js, audit item 7).
    pub bootstrap_runtime_context: bool,
    /// `runtimeContext.llm.complete` is 2026.9.6's direct provider call to the
    /// session's model (dist runtime-llm.runtime-*.mjs), which fails before
    /// any request for what its transport cannot encode
    /// (`runtime::callbacks::RuntimeLlm::unsendable`); 2026.4.26 has no such
    /// capability, so an engine's `host/llm.complete` is refused.
    pub runtime_llm_v2026_9: bool,
    /// A manual `/compact` delegated to the host is 2026.4.26's pi compaction
    /// (`runtime::compact::Builtin2026_4`): the model's reply as summary, a
    /// hardened boundary that keeps nothing, pi's token counts.
    pub builtin_compaction_v2026_4: bool,
    /// A manual `/compact` delegated to the host is 2026.9.6's pi compaction
    /// under the compaction safeguard (`runtime::compact_2026_9`): structured
    /// sections, preserved recent turns, the split turn's prefix summary.
    pub builtin_compaction_v2026_9: bool,
    /// The gateway WebChat entry of 2026.4.26 (`runtime::entry`, observed by
    /// `clawspec twin`): `chat.send` stamps the body `[Ddd YYYY-MM-DD HH:MM UTC] `
    /// (dist agent-timestamp-*.js `injectTimestamp`), the prompt carries the
    /// client's `Sender (untrusted metadata)` block, the transcript keeps the
    /// stamped body as a text block, and the rest of the prompt is queued as an
    /// `openclaw.runtime-context` custom message persisted after it (dist
    /// runtime-context-prompt-*.js `queueRuntimeContextForNextTurn`, audit item 4).
    /// The assistant message carries the provider's usage and `responseId`.
    pub webchat_entry_v2026_4: bool,
    /// A scripted `read`, `exec` or `write` result is what 2026.4.26's real tool returns
    /// with that output. read and write: the text and no `details` (@mariozechner/pi-coding-agent
    /// dist/core/tools/read.js resolves `{content, details: undefined}`; OpenClaw's
    /// dist/openclaw-tools-*.js createOpenClawReadTool adds none). exec: details
    /// `{status: "completed", exitCode: 0, durationMs, aggregated, cwd}` with the
    /// agent workspace as cwd (dist/bash-tools-*.js buildExecForegroundResult).
    /// 2026.4.26 lets no installed plugin replace a tool's result, so the twin
    /// drives these results through the real tools (realhost::tools workspace
    /// route); `clawspec twin thinking-signed` showed the read without `details`.
    pub real_tool_result_details: bool,
    pub transcript_store: TranscriptStore,
}

pub const PROFILE_IDS: [&str; 3] = ["openclaw-2026.4.26", "openclaw-2026.9.6", "rfc-82137"];
/// Suffix selecting the marker-drift variant of any profile.
pub const MARKER_DRIFT_SUFFIX: &str = "+marker-drift";

/// A profile modelling a proposal no OpenClaw release implements (RFC #82137:
/// neither 2026.4.26 nor 2026.9.6 has its assemble fields). Its verdicts are
/// reported apart and never decide certification of the released contract.
pub fn is_proposal(profile_id: &str) -> bool {
    profile_id.starts_with("rfc-")
}

impl Profile {
    pub fn classic_2026_4_26() -> Profile {
        Profile {
            id: "openclaw-2026.4.26".into(),
            openclaw_version: "2026.4.26",
            runtime_settings: false,
            runtime_context_carriers: false,
            inter_session_visible_prefix: true,
            legacy_child_result_markers: true,
            host_param_projection: false,
            durable_turns: false,
            steer_rebinds_durable_turn: false,
            finalize_after_error: true,
            quarantine: false,
            reduced_assemble_budget: false,
            assemble_result_validation: false,
            prompt_authority: false,
            precheck_skip_for_owners: false,
            skip_light_isolated_spawn_prep: false,
            heartbeat_flag_on_after_turn: false,
            compact_params_v2026_8: false,
            // Observed on the real 2026.4.26 gateway too (`clawspec twin`,
            // new-session-no-bootstrap on builtin:window): dispose after every run.
            dispose_per_run: true,
            bootstrap_after_admission: false,
            rfc_assemble_fields: false,
            marker_drift: false,
            prompt_texts: PromptTexts::V2026_4_26,
            estimator: Estimator::Pi,
            announce_runtime_context: false,
            suppress_announce_persistence: false,
            host_spawn_tool: true,
            host_spawn_v2026_4: true,
            overflow_retry: OverflowRetry::SamePrompt,
            pi_session_recovery: true,
            reserve_floor_and_cap: false,
            attempt_runtime_context_v2026_9: false,
            bootstrap_runtime_context: false,
            runtime_llm_v2026_9: false,
            builtin_compaction_v2026_4: true,
            builtin_compaction_v2026_9: false,
            webchat_entry_v2026_4: true,
            real_tool_result_details: true,
            transcript_store: TranscriptStore::Jsonl,
        }
    }

    pub fn current_2026_9_6() -> Profile {
        Profile {
            id: "openclaw-2026.9.6".into(),
            openclaw_version: "2026.9.6",
            runtime_settings: true,
            runtime_context_carriers: true,
            inter_session_visible_prefix: false,
            legacy_child_result_markers: false,
            host_param_projection: true,
            durable_turns: true,
            steer_rebinds_durable_turn: true,
            finalize_after_error: false,
            quarantine: true,
            reduced_assemble_budget: true,
            assemble_result_validation: true,
            prompt_authority: true,
            precheck_skip_for_owners: true,
            skip_light_isolated_spawn_prep: true,
            heartbeat_flag_on_after_turn: true,
            compact_params_v2026_8: true,
            dispose_per_run: true,
            bootstrap_after_admission: true,
            rfc_assemble_fields: false,
            marker_drift: false,
            prompt_texts: PromptTexts::V2026_9_6,
            estimator: Estimator::OpenClaw,
            announce_runtime_context: true,
            suppress_announce_persistence: true,
            host_spawn_tool: true,
            host_spawn_v2026_4: false,
            overflow_retry: OverflowRetry::ContinueFromTranscript,
            pi_session_recovery: false,
            reserve_floor_and_cap: true,
            attempt_runtime_context_v2026_9: true,
            bootstrap_runtime_context: true,
            runtime_llm_v2026_9: true,
            builtin_compaction_v2026_4: false,
            builtin_compaction_v2026_9: true,
            webchat_entry_v2026_4: false,
            real_tool_result_details: false,
            transcript_store: TranscriptStore::Sqlite,
        }
    }

    pub fn rfc_82137() -> Profile {
        Profile { id: "rfc-82137".into(), rfc_assemble_fields: true, ..Profile::current_2026_9_6() }
    }

    /// Resolve `openclaw-2026.9.6`, `rfc-82137+marker-drift`, … .
    pub fn by_id(id: &str) -> Option<Profile> {
        let (base, drift) = match id.strip_suffix(MARKER_DRIFT_SUFFIX) {
            Some(b) => (b, true),
            None => (id, false),
        };
        let mut p = match base {
            "openclaw-2026.4.26" => Profile::classic_2026_4_26(),
            "openclaw-2026.9.6" => Profile::current_2026_9_6(),
            "rfc-82137" => Profile::rfc_82137(),
            _ => return None,
        };
        if drift {
            p.marker_drift = true;
            p.id = id.to_string();
        }
        Some(p)
    }

    /// The three base profiles, in a stable order.
    pub fn all() -> Vec<Profile> {
        PROFILE_IDS.iter().map(|id| Profile::by_id(id).unwrap()).collect()
    }

    /// Apply the marker-drift variant to a marker text.
    pub fn marker(&self, text: &str) -> String {
        if self.marker_drift {
            clawspec_contract::markers::drifted(text)
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_resolve_and_drift_is_explicit() {
        for id in PROFILE_IDS {
            assert_eq!(Profile::by_id(id).unwrap().id, id);
        }
        let p = Profile::by_id("rfc-82137+marker-drift").unwrap();
        assert!(p.marker_drift && p.rfc_assemble_fields);
        assert!(Profile::by_id("openclaw-2026.5.0").is_none());
    }

    #[test]
    fn rfc_differs_from_current_only_in_rfc_fields() {
        let mut rfc = Profile::rfc_82137();
        rfc.rfc_assemble_fields = false;
        rfc.id = "openclaw-2026.9.6".into();
        assert_eq!(rfc, Profile::current_2026_9_6());
    }
}
