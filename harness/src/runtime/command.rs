//! The gateway command path of 2026.9.6: a manual `/compact` sent through
//! `chat.send` never starts an agent attempt. The command handler calls
//! `compactEmbeddedAgentSession` with its own params (dist
//! commands-handlers.runtime-*.mjs, the `trigger: "manual"` call), and the
//! embedded compactor spreads them into the engine's `runtimeContext`
//! (dist embedded-agent-*.mjs `buildCompactionContextEngineRuntimeContext`:
//! the params minus `sessionFile`/`contextEngineAgentId`, the projected
//! `sessionTarget`, `buildEmbeddedCompactionRuntimeContext`, the capability
//! `llm`, `tokenBudget`, `currentTokenCount`; then `forceReason`). So the
//! context carries the command's sender and session entry rather than an
//! attempt's diagnostics (`diagId`, `attempt`, `runId` are absent), and the
//! outer params have no `currentTokenCount` (the command passes none).

use serde_json::{json, Map, Value};

use super::entry::{GATEWAY_CLIENT_ID, GATEWAY_CLIENT_NAME, WEBCHAT};
use super::Sim;

/// `ANTHROPIC_CONTEXT_1M_TOKENS` (dist context-resolution-*.mjs): the fixed
/// window `resolveAnthropicFixedContextWindow` gives a 1M-capable Claude on
/// the `anthropic` provider (anthropic-*.mjs `supportsClaude1MContext`).
pub const ANTHROPIC_CONTEXT_1M_TOKENS: u64 = 1_000_000;

/// `resolveManualCompactContextTokenBudget` with no live count: the model's
/// configured context tokens, where a fixed Anthropic window overrides the
/// configured `contextWindow` (context-resolution-*.mjs
/// `resolveConfiguredContextTokenLimitsForModel`: `fixedContextWindow ?? configuredContextWindow`).
pub fn manual_context_token_budget(provider: &str, model: &str, context_window: u64) -> u64 {
    let family = model.rsplit('/').next().unwrap_or(model);
    let one_m = ["claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-sonnet-5"]
        .iter()
        .any(|m| family == *m || family.starts_with(&format!("{m}-")));
    if provider == "anthropic" && one_m {
        ANTHROPIC_CONTEXT_1M_TOKENS
    } else {
        context_window
    }
}

impl Sim<'_> {
    /// The `runtimeContext` of a manual `/compact` on 2026.9.6 (module doc).
    pub fn manual_compact_context(&mut self, token_budget: u64, instructions: Option<&str>) -> Value {
        let mut c = Map::new();
        // The command's own abort signal (`abortSignal: params.opts?.abortSignal`).
        c.insert("abortSignal".into(), json!({"$abortSignal": self.ids.next("sig")}));
        c.insert("sessionId".into(), json!(self.transcript.session_id));
        c.insert("sessionKey".into(), json!(self.setup.session_key));
        if let Some(t) = self.session_target() {
            c.insert("sessionTarget".into(), t);
        }
        c.insert("allowGatewaySubagentBinding".into(), json!(true));
        c.insert("messageChannel".into(), json!(WEBCHAT));
        c.insert("clientCaps".into(), json!([]));
        c.insert("senderId".into(), json!(GATEWAY_CLIENT_ID));
        // `SenderName`/`SenderUsername` of a gateway client: its display name.
        c.insert("senderName".into(), json!(GATEWAY_CLIENT_NAME));
        c.insert("senderUsername".into(), json!(GATEWAY_CLIENT_NAME));
        c.insert("workspaceDir".into(), json!(self.workspace_dir()));
        c.insert("agentDir".into(), json!(self.agent_dir()));
        c.insert("config".into(), json!({}));
        c.insert("chatType".into(), json!("direct"));
        c.insert("provider".into(), json!(self.setup.provider));
        c.insert("model".into(), json!(self.setup.model));
        c.insert("contextTokenBudget".into(), json!(manual_context_token_budget(&self.setup.provider, &self.setup.model, self.setup.context_window)));
        c.insert("agentHarnessId".into(), json!("openclaw"));
        c.insert("sessionEntry".into(), self.command_session_entry());
        // `skillsSnapshot: expectedSession.skillsSnapshot`: the entry has one
        // once an agent run in this session built it (its first run writes
        // the thinking-level event too).
        if self.transcript.has_marker("thinking_level_change", None) {
            c.insert("skillsSnapshot".into(), json!({}));
        }
        c.insert("modelSelectionLocked".into(), json!(false));
        c.insert("thinkLevel".into(), json!("off"));
        c.insert("bashElevated".into(), json!({"enabled": false, "allowed": false, "defaultLevel": "off"}));
        if let Some(i) = instructions {
            c.insert("customInstructions".into(), json!(i));
        }
        c.insert("trigger".into(), json!("manual"));
        c.insert("agentId".into(), json!(self.setup.agent_id));
        c.insert("llm".into(), super::hooks::llm_callback());
        c.insert("tokenBudget".into(), json!(token_budget));
        c.insert("forceReason".into(), json!("manual"));
        Value::Object(c)
    }

    /// The `runtimeContext` of a manual `/compact` on 2026.4.26: the command
    /// handler's `compactEmbeddedPiSession` params (dist
    /// commands-handlers.runtime-*.js, the `trigger: "manual"` call) as the
    /// compactor hands them to the engine, plus `tokenBudget`; no token
    /// count, no diagnostics, no `llm` (observed on the real 2026.4.26
    /// gateway, `clawspec twin manual-compact`; `thinkLevel` is the default
    /// the handler resolves for the session's Claude model).
    pub fn manual_compact_context_2026_4(&self, token_budget: u64, instructions: Option<&str>) -> Value {
        let mut c = Map::new();
        c.insert("sessionId".into(), json!(self.transcript.session_id));
        c.insert("sessionKey".into(), json!(self.setup.session_key));
        c.insert("allowGatewaySubagentBinding".into(), json!(true));
        c.insert("messageChannel".into(), json!(WEBCHAT));
        c.insert("senderId".into(), json!(GATEWAY_CLIENT_ID));
        c.insert("senderName".into(), json!(GATEWAY_CLIENT_NAME));
        c.insert("senderUsername".into(), json!(GATEWAY_CLIENT_NAME));
        c.insert("sessionFile".into(), json!(self.session_file()));
        c.insert("workspaceDir".into(), json!(self.workspace_dir()));
        c.insert("agentDir".into(), json!(self.agent_dir()));
        c.insert("config".into(), json!({}));
        c.insert("provider".into(), json!(self.setup.provider));
        c.insert("model".into(), json!(self.setup.model));
        c.insert("thinkLevel".into(), json!("adaptive"));
        c.insert("bashElevated".into(), json!({"enabled": false, "allowed": false, "defaultLevel": "off"}));
        if let Some(i) = instructions {
            c.insert("customInstructions".into(), json!(i));
        }
        c.insert("trigger".into(), json!("manual"));
        c.insert("senderIsOwner".into(), json!(true));
        c.insert("tokenBudget".into(), json!(token_budget));
        Value::Object(c)
    }

    /// The session store entry the command handler passes (`sessionEntry:
    /// expectedSession`) for a session the gateway has not yet run a turn in.
    fn command_session_entry(&self) -> Value {
        let now = self.clock.now();
        let mut e = json!({
            "sessionId": self.transcript.session_id,
            "updatedAt": now,
            "lifecycleRevision": format!("rev-{}", self.transcript.session_id),
            "delivery": {"kind": "internal"},
            "sessionStartedAt": now,
            "lastInteractionAt": now,
            "systemSent": false,
            "abortedLastRun": false,
            "chatType": "direct",
        });
        let first_user = self.transcript.messages().into_iter().find_map(|m| match m {
            clawspec_contract::AgentMessage::User(u) => Some(u.content.text()),
            _ => None,
        });
        if let Some(title) = first_user.as_deref().and_then(derive_goal_session_title) {
            e["displayName"] = json!(title);
        }
        e
    }
}

/// `formatTokenCount` (dist token-format-*.mjs over format-*.mjs
/// `formatCompactTokenCount`): "950", "9.5k", "12k", "1.0m".
pub fn format_token_count(v: u64) -> String {
    if v < 1_000 {
        return v.to_string();
    }
    if v < 1_000_000 {
        let precision = if v >= 10_000 { 0 } else { 1 };
        let thousands = format!("{:.*}", precision, v as f64 / 1e3);
        if thousands.parse::<f64>().unwrap_or(1e3) < 1e3 {
            return format!("{thousands}k");
        }
    }
    format!("{:.1}m", v as f64 / 1e6)
}

/// The system event a manual `/compact` queues on 2026.4.26 (dist
/// commands-handlers.runtime-*.js `handleCompactCommand`: the label,
/// `formatCompactionReason`, `formatContextUsageShort` of
/// status-message-*.js, then `enqueueSystemEvent(line)`), for the engine's
/// compact result; the next turn's prompt drains it (`clawspec twin
/// manual-compact` on the real 2026.4.26 gateway: "Compacted (149 → 1) •
/// Context 1/32k (0%)"). With no `tokensAfter` the session's fresh total is
/// not modelled ("?").
pub fn compact_system_event_2026_4(result: &Value, context_tokens: u64) -> String {
    let reason = result["reason"].as_str().map(str::trim).filter(|r| !r.is_empty());
    let lower = reason.unwrap_or("").to_lowercase();
    let skip = ["nothing to compact", "below threshold", "already compacted", "no real conversation messages"].iter().any(|k| lower.contains(k));
    let (before, after) = (result["result"]["tokensBefore"].as_u64(), result["result"]["tokensAfter"].as_u64());
    let label = if result["ok"] == true || skip {
        if result["compacted"] == true {
            match (before, after) {
                (Some(b), Some(a)) => format!("Compacted ({} → {})", format_token_count(b), format_token_count(a)),
                (Some(b), None) if b > 0 => format!("Compacted ({} before)", format_token_count(b)),
                _ => "Compacted".to_string(),
            }
        } else {
            "Compaction skipped".to_string()
        }
    } else {
        "Compaction failed".to_string()
    };
    let ctx = format_token_count(context_tokens);
    let usage = match after.filter(|a| *a > 0) {
        Some(t) => format!("{}/{ctx} ({}%)", format_token_count(t), ((t as f64 / context_tokens as f64) * 100.0).round().min(999.0) as u64),
        None => format!("?/{ctx}"),
    };
    let reason = reason.map(|r| match lower {
        _ if lower.contains("nothing to compact") => "nothing compactable in this session yet".to_string(),
        _ if lower.contains("below threshold") => "context is below the compaction threshold".to_string(),
        _ if lower.contains("already compacted") => "session was already compacted recently".to_string(),
        _ if lower.contains("no real conversation messages") => "no real conversation messages yet".to_string(),
        _ => r.to_string(),
    });
    match reason {
        Some(r) => format!("{label}: {r} • Context {usage}"),
        None => format!("{label} • Context {usage}"),
    }
}

/// The status line a manual `/compact` replies with (dist
/// commands-handlers.runtime-*.mjs after `compactEmbeddedAgentSession`:
/// label, `formatCompactionReason`, `formatContextUsageShort`), for the
/// engine's compact result. The session's fresh total is unknown to a
/// session the gateway has no usage for ("?").
pub fn compact_reply_text(result: &Value, context_tokens: u64) -> String {
    let reason_raw = result["reason"].as_str().unwrap_or("").trim().to_string();
    let lower = reason_raw.to_lowercase();
    // compact-reasons-*.mjs `classifyCompactionReason` (the classes that reword).
    let benign = lower.contains("below threshold") || lower.contains("already under target") || lower.contains("already compacted") || lower.contains("already_compacted");
    let compacted = result["ok"] == true && result["compacted"] == true;
    let (before, after) = (result["result"]["tokensBefore"].as_u64(), result["result"]["tokensAfter"].as_u64());
    let label = if result["ok"] == true || benign {
        if compacted {
            match (after, before) {
                (None, _) => "Compaction finished (resulting context unknown)".to_string(),
                (Some(a), Some(b)) => format!("Compacted ({} → {})", format_token_count(b), format_token_count(a)),
                (Some(_), None) => "Compacted".to_string(),
            }
        } else {
            "Compaction skipped".to_string()
        }
    } else {
        "Compaction failed".to_string()
    };
    let reason = if reason_raw.is_empty() {
        None
    } else if lower.contains("nothing to compact") || lower.contains("no real conversation messages") {
        Some("nothing compactable in this session yet".to_string())
    } else if lower.contains("below threshold") || lower.contains("already under target") {
        Some(if lower.contains("already under target") { "context is already under the compaction target" } else { "context is below the compaction threshold" }.to_string())
    } else if lower.contains("already compacted") || lower.contains("already_compacted") {
        Some("session is already compacted".to_string())
    } else {
        Some(reason_raw.clone())
    };
    let total = if compacted { after.filter(|t| *t > 0) } else { None };
    let ctx = format_token_count(context_tokens);
    let usage = match total {
        None => format!("Context ?/{ctx}"),
        Some(t) => format!("Context {}/{ctx} ({}%)", format_token_count(t), ((t as f64 / context_tokens as f64) * 100.0).round().min(999.0) as u64),
    };
    match reason {
        Some(r) => format!("⚙️ {label}: {r} • {usage}"),
        None => format!("⚙️ {label} • {usage}"),
    }
}

/// Whether `m` is an OpenClaw-authored transcript artifact never replayed to
/// the model (dist transcript-only-openclaw-assistant-*.mjs
/// `isTranscriptOnlyOpenClawAssistantModel`: provider "openclaw", model
/// "gateway-injected" or "delivery-mirror").
pub fn is_transcript_only_assistant(m: &clawspec_contract::AgentMessage) -> bool {
    matches!(m, clawspec_contract::AgentMessage::Assistant(a)
        if a.provider.as_deref() == Some("openclaw") && matches!(a.model.as_deref(), Some("gateway-injected" | "delivery-mirror")))
}

/// Whether the release answers a bare `/new` or `/reset` in its command layer,
/// without a model run: 2026.9.6 (dist/commands.runtime-*.mjs, the reset
/// command without a tail replies "✅ New session started." / "✅ Session
/// reset." with `shouldContinue: false`; docs/tools/slash-commands.md
/// "Standalone `/new` and `/reset` acknowledgements do not start a model
/// turn"). 2026.4.26 runs the bare reset prompt turn instead.
pub fn acknowledges_bare_reset(profile: &super::profile::Profile) -> bool {
    profile.prompt_texts == super::profile::PromptTexts::V2026_9_6
}

/// The command layer's acknowledgement of a bare reset (see [`acknowledges_bare_reset`]).
pub fn bare_reset_ack(command: &str) -> &'static str {
    if command.trim() == "/reset" {
        "✅ Session reset."
    } else {
        "✅ New session started."
    }
}

/// A bare `/new` or `/reset` on 2026.9.6: the session keeps its id and its
/// event log; the session manager appends a `reset` boundary (dist
/// session-manager-*.mjs `appendResetBoundary`, `reason` the command's
/// action), then the command turn is persisted after it ("/new" and the
/// gateway-injected acknowledgement). The model's history starts at the
/// boundary (`Transcript::context_start`); the engine's own reading of the
/// session and message positions still count every message. Twinned:
/// prompt-bare-new on builtin:window (real store: message, message, reset,
/// "/new", "✅ New session started.", then the next turn; its assemble
/// history is [`/new`], its bootstrap imports all five messages).
pub fn acknowledge_bare_reset(sim: &mut Sim<'_>, user: &str) -> Result<(), super::Abort> {
    sim.turn += 1;
    sim.attempt = 0;
    let command = user.trim().to_string();
    let reason = if command == "/reset" { "reset" } else { "new" };
    let ts = sim.clock.now();
    sim.transcript.append_marker(json!({"type": "reset", "reason": reason}), ts);
    sim.persist_command_turn(&command, bare_reset_ack(&command));
    sim.note("reset-acknowledged", "the gateway's command layer acknowledged the bare reset without a model run; the scripted reply is not used");
    Ok(())
}

impl Sim<'_> {
    /// 2026.9.6 keeps a gateway command in the transcript: the user's
    /// command text, then the reply as a gateway-injected assistant message
    /// (dist chat-transcript-persistence-*.mjs; `clawspec twin
    /// manual-compact`: `/compact …` and "⚙️ Compaction skipped: …" rows).
    /// 2026.4.26's gateway keeps a command's reply, not the command: a
    /// `chat.send` that started no agent run appends the final reply as an
    /// injected assistant message (dist chat-*.js: `!agentRunStarted` ⇒
    /// `appendAssistantTranscriptMessage` → `appendInjectedAssistantMessageToTranscript`:
    /// one text block, `stopReason: "stop"`, zero usage, `api:
    /// "openai-responses"`, `provider: "openclaw"`, `model:
    /// "gateway-injected"`, no idempotency key). Twin of manual-compact on
    /// builtin:window: the next bootstrap imports it.
    pub fn persist_command_reply_2026_4(&mut self, reply: &str) {
        let ts = self.clock.now();
        let usage = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                           "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
        let m = json!({"role": "assistant", "content": [{"type": "text", "text": reply}], "timestamp": ts, "stopReason": "stop",
                       "usage": usage, "api": "openai-responses", "provider": "openclaw", "model": "gateway-injected"});
        match serde_json::from_value::<clawspec_contract::AgentMessage>(m) {
            Ok(m) => {
                self.persist(m);
            }
            Err(e) => self.note("command-turn", format!("cannot build the command reply: {e}")),
        }
    }

    pub fn persist_command_turn(&mut self, text: &str, reply: &str) {
        let n = self.turn;
        let ts = self.clock.now();
        let user = json!({"role": "user", "content": text, "timestamp": ts, "idempotencyKey": format!("cmd-{n:04}:user"), "__openclaw": self.entry_user_meta()});
        let zero = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0});
        let mut usage = zero.clone();
        usage["totalTokens"] = json!(0);
        usage["cost"] = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0});
        let content = json!([{"type": "text", "text": reply}]);
        let assistant = json!({"role": "assistant", "content": content, "openclawDisplayContent": content, "timestamp": ts, "stopReason": "stop",
                               "usage": usage, "api": "openai-responses", "provider": "openclaw", "model": "gateway-injected", "idempotencyKey": format!("cmd-{n:04}")});
        for m in [user, assistant] {
            match serde_json::from_value::<clawspec_contract::AgentMessage>(m) {
                Ok(m) => {
                    self.persist(m);
                }
                Err(e) => self.note("command-turn", format!("cannot build the command turn: {e}")),
            }
        }
    }
}

/// `deriveGoalSessionTitle` (dist derive-goal-session-title-*.mjs): the first
/// sentence led by a task verb, else the whole text, in sentence case, cut to
/// 60 UTF-16 units at a word boundary past 60 % with "…".
pub fn derive_goal_session_title(text: &str) -> Option<String> {
    const MAX: usize = 60;
    const TASK_VERBS: [&str; 29] = [
        "add", "analyze", "build", "check", "compare", "create", "debug", "design", "draft", "explain", "find", "fix", "give", "help", "implement", "investigate", "list", "make", "plan", "prepare", "recommend", "recover", "rename", "resume", "review", "summarize", "test", "update", "write",
    ];
    let normalized = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if normalized.is_empty() {
        return None;
    }
    let mut sentences = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = normalized.char_indices().collect();
    for (i, &(at, ch)) in chars.iter().enumerate() {
        if ".!?".contains(ch) && chars.get(i + 1).is_some_and(|(_, n)| *n == ' ') {
            sentences.push(&normalized[start..at + 1]);
            start = chars[i + 1].0 + 1;
        }
    }
    sentences.push(&normalized[start..]);
    let goal = sentences
        .iter()
        .find(|s| {
            let lead = s.trim_start_matches(['"', '\'', '`', '(', '[', '{']).split(' ').next().unwrap_or("").to_lowercase();
            TASK_VERBS.contains(&lead.as_str())
        })
        .map(|s| s.trim().to_string())
        .unwrap_or(normalized.clone());
    let mut cased = goal;
    if let Some(first) = cased.chars().next() {
        if first.to_lowercase().to_string() == first.to_string() && first.to_uppercase().to_string() != first.to_string() {
            cased = format!("{}{}", first.to_uppercase(), &cased[first.len_utf8()..]);
        }
    }
    let units: Vec<u16> = cased.encode_utf16().collect();
    if units.len() <= MAX {
        return Some(cased);
    }
    let cut = String::from_utf16_lossy(&units[..MAX - 1]);
    match cut.rfind(' ') {
        Some(sp) if cut[..sp].encode_utf16().count() > MAX * 6 / 10 => Some(format!("{}…", &cut[..sp])),
        _ => Some(format!("{cut}…")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line the real 2026.4.26 gateway queued after `/compact` (`clawspec
    /// twin manual-compact`), and the label's other branches.
    #[rstest::rstest]
    #[case::compacted(json!({"ok": true, "compacted": true, "result": {"tokensBefore": 149, "tokensAfter": 1}}), "Compacted (149 → 1) • Context 1/32k (0%)")]
    #[case::no_after(json!({"ok": true, "compacted": true, "result": {"tokensBefore": 12_400}}), "Compacted (12k before) • Context ?/32k")]
    #[case::failed(json!({"ok": false, "compacted": false, "reason": "boom"}), "Compaction failed: boom • Context ?/32k")]
    #[case::no_conversation(json!({"ok": true, "compacted": false, "reason": "no real conversation messages"}), "Compaction skipped: no real conversation messages yet • Context ?/32k")]
    fn the_2026_4_compact_system_event(#[case] result: Value, #[case] line: &str) {
        assert_eq!(compact_system_event_2026_4(&result, 32_000), line);
    }

    #[test]
    fn the_title_is_the_first_words_in_sentence_case_cut_at_a_word() {
        // Observed on the real 2026.9.6 gateway (`clawspec twin compaction-timeout`).
        let first = "the nightly pipeline failed on the integration stage again; please read the logs, find the failing test and propose a fix.";
        assert_eq!(derive_goal_session_title(first).as_deref(), Some("The nightly pipeline failed on the integration stage…"));
        assert_eq!(derive_goal_session_title("It broke. Fix the login page.").as_deref(), Some("Fix the login page."));
        assert_eq!(derive_goal_session_title("  ").as_deref(), None);
    }

    #[test]
    fn the_compact_reply_reads_like_the_gateway_command() {
        // Observed on the real 2026.9.6 gateway (`clawspec twin manual-compact`).
        let skipped = json!({"ok": true, "compacted": false, "reason": "nothing to compact"});
        assert_eq!(compact_system_event_2026_4(&skipped, 32_000), "Compaction skipped: nothing compactable in this session yet • Context ?/32k");
        assert_eq!(compact_reply_text(&skipped, 1_000_000), "⚙️ Compaction skipped: nothing compactable in this session yet • Context ?/1.0m");
        let done = json!({"ok": true, "compacted": true, "result": {"tokensBefore": 12_400, "tokensAfter": 950}});
        assert_eq!(compact_reply_text(&done, 1_000_000), "⚙️ Compacted (12k → 950) • Context 950/1.0m (0%)");
        assert_eq!(compact_reply_text(&json!({"ok": false, "compacted": false, "reason": "boom"}), 4000), "⚙️ Compaction failed: boom • Context ?/4.0k");
        assert_eq!((format_token_count(9_500), format_token_count(999_999)), ("9.5k".to_string(), "1.0m".to_string()));
    }

    #[test]
    fn only_2026_9_acknowledges_a_bare_reset_without_a_model_run() {
        use super::super::profile::Profile;
        assert!(acknowledges_bare_reset(&Profile::current_2026_9_6()));
        assert!(!acknowledges_bare_reset(&Profile::classic_2026_4_26()));
        assert_eq!((bare_reset_ack("/new"), bare_reset_ack("  /reset  ")), ("✅ New session started.", "✅ Session reset."));
    }

    #[test]
    fn a_1m_claude_on_anthropic_gets_the_fixed_window() {
        assert_eq!(manual_context_token_budget("anthropic", "claude-sonnet-4-6", 4000), 1_000_000);
        assert_eq!(manual_context_token_budget("openai", "gpt-5.1", 4000), 4000);
        assert_eq!(manual_context_token_budget("anthropic", "claude-haiku-4-5", 32_000), 32_000);
    }
}
