//! How each lifecycle call's params are built, per profile. One function per
//! hook, so "where is an assemble call built" has one answer: [`assemble_params`].

use clawspec_contract::markers;
use clawspec_contract::*;
use serde_json::{json, Map, Value};

use super::settings::{self, SettingsInput};
use super::{CallParams, Sim};

/// The system prompt the simulated agent sends (its size counts against the budget).
pub const SYSTEM_PROMPT: &str = "You are a personal assistant running inside OpenClaw.";

pub(crate) fn llm_callback() -> Value {
    json!({"complete": {"$callback": "llm.complete"}})
}

impl Sim<'_> {
    /// `runtimeSettings` with per-hook `limits` (real 2026.9.6 host, observed by
    /// `clawspec twin`): bootstrap and maintain(bootstrap) carry `null/null`,
    /// assemble `promptTokenBudget/reserve`, afterTurn and maintain(turn)
    /// `contextTokenBudget/null`, compaction `budget/null`.
    pub fn runtime_settings(&self, limits: (Option<u64>, Option<u64>), degraded: Option<&str>) -> Option<Value> {
        if !self.profile.runtime_settings {
            return None;
        }
        let s = settings::build(&SettingsInput {
            provider: &self.setup.provider,
            // A session model override is what the host requests from then on;
            // a fallback candidate is not (real 2026.9.6 host, twin of model-switch:
            // requested gpt-5.1, mode normal after sessions.patch {model}).
            requested_model: self.session_model.as_deref().unwrap_or(&self.scenario.setup.model),
            resolved_model: &self.setup.model,
            engine_id: &self.info.id,
            prompt_token_budget: limits.0,
            reserve_tokens: limits.1,
            fallback_reason: self.retry_fallback_reason,
            degraded_reason: degraded,
        });
        Some(serde_json::to_value(s).expect("settings"))
    }

    /// `sessionTarget` (2026.8.2+): the agent's session index
    /// (`<state>/agents/<agent>/sessions/sessions.json` on the real 2026.9.6 host).
    pub fn session_target(&self) -> Option<Value> {
        self.profile.compact_params_v2026_8.then(|| {
            json!({"agentId": self.setup.agent_id, "sessionId": self.transcript.session_id,
                   "sessionKey": self.setup.session_key, "storePath": format!("{}/agents/{}/sessions/sessions.json", self.state_str(), self.setup.agent_id)})
        })
    }

    /// The bootstrap-time target also names the session's lifecycle revision
    /// and the run that is writing it (real 2026.9.6 host, `clawspec twin`).
    pub fn writer_session_target(&self) -> Option<Value> {
        self.session_target().map(|mut t| {
            t["expectedLifecycleRevision"] = json!(format!("rev-{}", self.transcript.session_id));
            t["expectedWriterRunId"] = match &self.subagent_of {
                // A spawned child's run writes its session (twin of spawn-fork).
                Some((_, run)) => json!(run),
                None => json!(format!("run-{:04}", self.turn)),
            };
            t
        })
    }

    /// The system prompt of this run (`setup.system_prompt`, else [`SYSTEM_PROMPT`]).
    pub fn system_prompt(&self) -> &str {
        self.hook_system_prompt.as_deref().or(self.setup.system_prompt.as_deref()).unwrap_or(SYSTEM_PROMPT)
    }

    /// The transcript store a durable turn commits to (2026.9.6: the agent's
    /// SQLite database, `<state>/agents/<agent>/agent/openclaw-agent.sqlite`).
    pub fn commit_store_path(&self) -> String {
        format!("{}/agents/{}/agent/openclaw-agent.sqlite", self.state_str(), self.setup.agent_id)
    }

    /// `sessionTarget` of commitTurn and the maintain after it.
    pub fn commit_session_target(&self) -> Option<Value> {
        self.profile.compact_params_v2026_8.then(|| {
            json!({"agentId": self.setup.agent_id, "sessionId": self.transcript.session_id,
                   "sessionKey": self.setup.session_key, "storePath": self.commit_store_path()})
        })
    }

    /// `buildAfterTurnRuntimeContext` subset (openclaw
    /// `src/agents/embedded-agent-runner/run/attempt.prompt-helpers.ts`); pre-turn
    /// hooks get it without `rewriteTranscriptEntries` (`preparePreTurnRuntimeContext`).
    pub fn runtime_context(&self, with_rewrite: bool) -> Value {
        let mut c = Map::new();
        c.insert("sessionKey".into(), json!(self.setup.session_key));
        c.insert("provider".into(), json!(self.setup.provider));
        if self.profile.attempt_runtime_context_v2026_9 {
            c.insert("workspaceDir".into(), json!(self.workspace_dir()));
            c.insert("agentDir".into(), json!(self.agent_dir()));
            // `model: resolved.model` (audit item 6; `modelId` is only the
            // commitTurn context's key).
            c.insert("model".into(), json!(self.setup.model));
            self.entry_context(&mut c);
        } else if self.profile.webchat_entry_v2026_4 {
            c.insert("workspaceDir".into(), json!(self.workspace_dir()));
            c.insert("agentDir".into(), json!(self.agent_dir()));
            c.insert("model".into(), json!(self.setup.model));
            self.entry_context_2026_4(&mut c);
        } else {
            c.insert("workspaceDir".into(), json!("/workspace"));
            c.insert("agentDir".into(), json!("/agent"));
            c.insert("modelId".into(), json!(self.setup.model));
        }
        c.insert("tokenBudget".into(), json!(self.budget()));
        // runtimeContext.llm.complete arrived in 2026.5.28.
        if self.profile.runtime_settings {
            c.insert("llm".into(), llm_callback());
            if let Some(t) = self.session_target() {
                c.insert("sessionTarget".into(), t);
            }
        }
        if with_rewrite {
            c.insert("rewriteTranscriptEntries".into(), json!({"$callback": "rewriteTranscriptEntries"}));
        }
        // 2026.9.6 context-engine-maintenance-*.mjs `buildAfterTurnRuntimeContext`.
        if self.transcript.is_sqlite() {
            c.insert("transcriptStorage".into(), json!({"kind": "sqlite"}));
        }
        Value::Object(c)
    }

    fn put(obj: &mut Map<String, Value>, k: &str, v: Option<Value>) {
        if let Some(v) = v {
            obj.insert(k.into(), v);
        }
    }

    pub fn bootstrap_params(&self) -> Value {
        let mut p = Map::new();
        p.insert("sessionId".into(), json!(self.transcript.session_id));
        p.insert("sessionKey".into(), json!(self.setup.session_key));
        p.insert("sessionFile".into(), json!(self.session_file()));
        if self.profile.bootstrap_runtime_context {
            Self::put(&mut p, "sessionTarget", self.writer_session_target());
            Self::put(&mut p, "runtimeSettings", self.runtime_settings((None, None), None));
            p.insert("runtimeContext".into(), self.runtime_context(false));
        }
        Value::Object(p)
    }

    /// `reason`: `bootstrap` (limits null/null), `turn` (contextTokenBudget/null),
    /// `compaction` (budget/null).
    pub fn maintain_params(&mut self, deferred: bool, reason: &str) -> Value {
        let mut p = Map::new();
        p.insert("sessionId".into(), json!(self.transcript.session_id));
        p.insert("sessionKey".into(), json!(self.setup.session_key));
        let target = if reason == "bootstrap" { self.writer_session_target() } else { self.session_target() };
        Self::put(&mut p, "sessionTarget", target.clone());
        p.insert("sessionFile".into(), json!(self.session_file()));
        let limits = if reason == "bootstrap" { (None, None) } else { (Some(self.budget()), None) };
        Self::put(&mut p, "runtimeSettings", self.runtime_settings(limits, None));
        let mut ctx = self.runtime_context(true);
        if let (Some(t), true) = (target, reason == "bootstrap") {
            ctx["sessionTarget"] = t;
        }
        if deferred {
            ctx["allowDeferredCompactionExecution"] = json!(true);
        }
        p.insert("runtimeContext".into(), ctx);
        // 2026.9.6 passes an abortSignal to maintain only after a compaction
        // and for deferred background maintenance (audit item 13; no signal on
        // maintain(bootstrap) or the post-turn maintain on the real host).
        if self.profile.compact_params_v2026_8 && (reason == "compaction" || deferred) {
            p.insert("abortSignal".into(), json!({"$abortSignal": self.ids.next("sig")}));
        }
        Value::Object(p)
    }

    /// Compaction reserve (= `runtimeSettings.limits.maxOutputTokens`). 2026.9.6:
    /// min(max(reserve, 20 000), ⌊budget·0.25⌋) (`src/agents/agent-settings.ts`
    /// `DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR`, `agent-compaction-constants.ts`
    /// `MAX_COMPACTION_RESERVE_RATIO`). 2026.4.26 (dist pi-settings-*.js
    /// `applyPiCompactionSettingsFromConfig`, audit item 11): max(reserve,
    /// min(20 000, budget − min(8000, max(1, ⌊budget/2⌋)))).
    pub fn reserve(&self) -> u64 {
        if self.profile.reserve_floor_and_cap {
            markers::effective_reserve_tokens(self.budget(), self.setup.reserve_tokens)
        } else {
            let budget = self.budget();
            let min_prompt = 8_000u64.min((budget / 2).max(1));
            let floor = 20_000u64.min(budget.saturating_sub(min_prompt));
            self.setup.reserve_tokens.max(floor)
        }
    }

    /// The assemble budget of an attempt (contract §4.3 step 3). 2026.9.6
    /// (attempt assemble call, docs/openclaw-facts.md §2.5):
    /// `max(1, budget − reserve − ⌈1.2·((12 + est(system)) + 12 + est(prompt))⌉)`;
    /// 2026.4.x passed the full budget.
    pub fn assemble_budget(&self, prompt: &str) -> u64 {
        if !self.profile.reduced_assemble_budget {
            return self.budget();
        }
        let est = |s: &str| self.profile.estimator.text(s);
        let sys = if self.system_prompt().trim().is_empty() { 0 } else { 12 + est(self.system_prompt()) };
        // The host estimates its own absolute paths (a media note's staged
        // attachment): the reference's state dir weighs as the real host's
        // work dir under `twin`, as the fixed `$STATE` otherwise.
        let prompt = prompt.replace(&self.state_str(), self.setup.host_dir.as_deref().unwrap_or("$STATE"));
        let rendered = ((sys + 12 + est(&prompt)) as f64 * 1.2).ceil() as u64;
        let prompt_budget = self.budget().saturating_sub(self.reserve()).max(1);
        prompt_budget.saturating_sub(rendered).max(1)
    }

    /// `runtimeSettings.limits.promptTokenBudget` for the hooks of an attempt:
    /// the attempt's assemble budget, identical on every hook of the attempt
    /// (openclaw `src/context-engine/runtime-settings.ts`; the lifecycle test
    /// `context-engine-lifecycle.test.ts` expects the same settings across hooks).
    pub fn settings_budget(&self) -> u64 {
        self.attempt_budget.unwrap_or_else(|| self.budget())
    }

    /// `availableTools`: capability tool names, client tools excluded
    /// (attempt.spawn-workspace.context-engine.test.ts).
    /// On 2026.4.26 the catalogue follows the session's current model
    /// ([`super::replay_2026_4::offered_tools`]: `apply_patch` for OpenAI).
    pub fn available_tools(&self) -> Vec<String> {
        let tools: Vec<String> = self.setup.tools.iter().filter(|t| !self.setup.client_tools.contains(t)).cloned().collect();
        if self.profile.id == "openclaw-2026.4.26" {
            return super::replay_2026_4::offered_tools(&self.setup.provider, tools);
        }
        tools
    }

    pub fn assemble_params(&self, messages: &[Msg], token_budget: u64, prompt: Option<&str>, attempt_call: bool, boundary: usize) -> CallParams {
        let mut p = Map::new();
        p.insert("sessionId".into(), json!(self.transcript.session_id));
        p.insert("sessionKey".into(), json!(self.setup.session_key));
        // The history goes out of band (shared, not copied: `CallParams`).
        p.insert("messages".into(), Value::Null);
        p.insert("tokenBudget".into(), json!(token_budget));
        if attempt_call {
            p.insert("availableTools".into(), json!(self.available_tools()));
            Self::put(&mut p, "citationsMode", self.setup.citations_mode.clone().map(Value::String));
        }
        p.insert("model".into(), json!(self.setup.model));
        if let (true, Some(pr)) = (attempt_call, prompt) {
            p.insert("prompt".into(), json!(pr));
        }
        Self::put(&mut p, "runtimeSettings", self.runtime_settings((Some(self.settings_budget()), Some(self.reserve())), None));
        if self.profile.rfc_assemble_fields {
            // RFC #82137 (seed 000 §2): three parallel arrays aligned with messages.
            p.insert("prePromptMessageCount".into(), json!(boundary));
            let prov: Vec<Value> = messages
                .iter()
                .map(|m| m.provenance().map(|p| serde_json::to_value(p).unwrap()).unwrap_or(Value::Null))
                .collect();
            let evs: Vec<Value> = messages
                .iter()
                .map(|m| match &**m {
                    AgentMessage::User(_) => self.events_by_text.get(&m.text()).map(|e| serde_json::to_value(e).unwrap()).unwrap_or(Value::Null),
                    _ => Value::Null,
                })
                .collect();
            p.insert("inputProvenance".into(), Value::Array(prov));
            p.insert("internalEvents".into(), Value::Array(evs));
        }
        CallParams::with_messages(Value::Object(p), messages.to_vec())
    }

    /// Overflow/budget/manual compaction params (contract §4.6; ≤2026.7.x shape
    /// keeps `sessionFile` and has no agentId/sessionTarget/abortSignal).
    pub fn compact_params(&mut self, token_budget: u64, current: Option<u64>, target: &str, trigger: &str, attempt: u32) -> Value {
        let mut p = Map::new();
        p.insert("sessionId".into(), json!(self.transcript.session_id));
        p.insert("sessionKey".into(), json!(self.setup.session_key));
        if self.profile.compact_params_v2026_8 {
            p.insert("agentId".into(), json!(self.setup.agent_id));
            Self::put(&mut p, "sessionTarget", self.session_target());
        } else {
            p.insert("sessionFile".into(), json!(self.session_file()));
        }
        p.insert("tokenBudget".into(), json!(token_budget));
        Self::put(&mut p, "currentTokenCount", current.map(|c| json!(c)));
        p.insert("force".into(), json!(true));
        p.insert("compactionTarget".into(), json!(target));
        // 2026.9.6: a recovery compaction carries the run's compaction context
        // (runtime::compact); earlier profiles only the recovery fields.
        let mut ctx = if self.profile.attempt_runtime_context_v2026_9 && super::compact::is_recovery_trigger(trigger) {
            self.recovery_compaction_context()
        } else if self.profile.pi_session_recovery && matches!(trigger, "overflow" | "timeout_recovery") {
            self.recovery_compaction_context_2026_4()
        } else {
            Map::new()
        };
        ctx.insert("trigger".into(), json!(trigger));
        ctx.insert("diagId".into(), json!(format!("diag-{:04}", self.seq + 1)));
        ctx.insert("attempt".into(), json!(attempt));
        // Max 3 overflow compactions per run (openclaw
        // `src/agents/embedded-agent-runner/run/overflow-context-recovery.ts`).
        ctx.insert("maxAttempts".into(), json!(super::turn::MAX_OVERFLOW_COMPACTIONS));
        ctx.insert("runId".into(), json!(format!("run-{:04}", self.turn)));
        Self::put(&mut ctx, "currentTokenCount", current.map(|c| json!(c)));
        if self.profile.runtime_settings {
            ctx.insert("llm".into(), llm_callback());
        }
        p.insert("runtimeContext".into(), Value::Object(ctx));
        let degraded = (trigger == "overflow").then_some("context_overflow");
        Self::put(&mut p, "runtimeSettings", self.runtime_settings((Some(token_budget), None), degraded));
        // compact.abortSignal arrived in 2026.5.28.
        if self.profile.runtime_settings {
            p.insert("abortSignal".into(), json!({"$abortSignal": self.ids.next("sig")}));
        }
        Value::Object(p)
    }

    /// 2026.4.26's run-loop recovery compaction context (dist
    /// pi-embedded-*.js overflow and timeout recovery):
    /// `buildEmbeddedCompactionRuntimeContext` (dist
    /// compaction-runtime-context-*.js: sessionKey, the message's channel
    /// fields, workspace/agent dirs, config, skills snapshot, sender, the
    /// resolved provider/model, think/reasoning levels, bashElevated,
    /// extraSystemPrompt; undefined ones vanish in JSON), then the attempt's
    /// `promptCache` (selection-*.js `buildContextEnginePromptCacheInfo`);
    /// `compact_params` adds runId, trigger, diagId, attempt, maxAttempts.
    /// Twin of overflow-natural (--keep): a precheck overflow carries
    /// `promptCache: {retention: "short"}` and no `currentTokenCount`.
    pub fn recovery_compaction_context_2026_4(&self) -> Map<String, Value> {
        const KEYS: [&str; 14] = [
            "messageChannel", "messageProvider", "agentAccountId", "currentChannelId", "currentThreadTs", "currentMessageId", "config",
            "skillsSnapshot", "senderIsOwner", "senderId", "thinkLevel", "reasoningLevel", "bashElevated", "extraSystemPrompt",
        ];
        let mut attempt = Map::new();
        self.entry_context_2026_4(&mut attempt);
        let mut c = Map::new();
        c.insert("sessionKey".into(), json!(self.setup.session_key));
        for k in KEYS {
            if let Some(v) = attempt.get(k) {
                c.insert(k.into(), v.clone());
            }
        }
        c.insert("workspaceDir".into(), json!(self.workspace_dir()));
        c.insert("agentDir".into(), json!(self.agent_dir()));
        c.insert("provider".into(), json!(self.setup.provider));
        c.insert("model".into(), json!(self.setup.model));
        let cache = match attempt.get("promptCache") {
            Some(pc) => Some(pc.clone()),
            // The failed attempt's cache record without an answered call.
            None => (self.setup.provider == "anthropic").then(|| json!({"retention": "short"})),
        };
        if let Some(pc) = cache {
            c.insert("promptCache".into(), pc);
        }
        c
    }
}
