//! Plan steps that only some OpenClaw releases can be driven to reproduce.
//! A plan lists the limits its steps rely on; the real-host run (and the
//! drivability census) checks them against the release before starting it.

use serde::Serialize;

use super::plan::NotDrivable;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ReleaseLimit {
    /// A scripted tool result (`realhost::tools`): tool-result middleware on
    /// 2026.9, a real tool reading a workspace file on 2026.4.x.
    ScriptedTool(super::tools::ScriptedToolNeed),
    /// A bare `/new` or `/reset` that runs the host's session-reset prompt turn.
    /// `empty_prompt_sent`: the scenario's provider API sends an empty user text
    /// (pi-ai dist/providers/openai-completions.js convertMessages keeps it;
    /// anthropic.js drops it, `b.text.trim().length > 0`).
    BareResetTurn { empty_prompt_sent: bool },
    /// The model's context window (`setup.context_window`), which the host's
    /// context-window guard must accept.
    ContextWindow(u64),
    /// A real `sessions_spawn` tool call and its completion announce (`realhost::spawn`).
    HostSpawn,
    /// A spawn asking for a private completion (`completionTarget: "parent"`).
    PrivateCompletion,
    /// A spawn with `context: "fork"`.
    ForkSpawn,
    /// A spawn after an earlier child of the run has completed.
    LaterSpawn,
    /// An event-free heartbeat poll run on demand through the heartbeat
    /// monitor automation job (`realhost::heartbeat`).
    HeartbeatMonitor,
    /// A message on the bridge's `clawspec` channel (`realhost::channel`).
    ChannelMessage,
    /// A turn whose scripted replies end on a provider timeout: the host
    /// must give up on it.
    TimeoutSurfaced,
}

impl ReleaseLimit {
    pub fn check(self, version: &str) -> Result<(), NotDrivable> {
        let older = version.starts_with("2026.4.");
        match self {
            ReleaseLimit::ScriptedTool(need) => super::tools::release_supports_scripted_tools(need, version),
            // 2026.4.26 has no such acknowledgement and runs the bare reset prompt turn
            // (dist/get-reply-*.js isBareSessionReset → BARE_SESSION_RESET_PROMPT), but its
            // transcript prompt is empty (`softResetTail`), so resolveRuntimeContextPromptParts
            // (dist/runtime-context-prompt-*.js) sends the reset prompt as runtime-only system
            // context and the run's user message is an empty text block. Observed (clawspec twin
            // --scenario prompt-bare-new --profile openclaw-2026.4.26 --keep, 6 min into the first
            // turn, after the host prepared its plugins): assemble.prompt is the reset prompt, the
            // engine ingests `{role:user, content:[{type:text,text:""}]}`, and the provider request
            // has no message, which Anthropic rejects (the mock: "messages: at least one message is
            // required"), so the scripted greeting never happens. (The earlier "no model request
            // within 370 s" was the first turn's plugin preparation.)
            // The transport decides: pi-ai's Anthropic conversion drops an empty user text
            // (dist/providers/anthropic.js convertMessages: `b.text.trim().length > 0`, an empty
            // list is skipped), its OpenAI Chat Completions conversion sends it as is
            // (dist/providers/openai-completions.js), so there the reset turn reaches the model.
            ReleaseLimit::BareResetTurn { empty_prompt_sent: false } if older => Err(NotDrivable(format!(
                "a bare /new or /reset on openclaw@{version} over a provider API that drops an empty user text: the host persists the reset turn's user message as empty text and sends the reset prompt only as runtime context (dist/get-reply-*.js transcriptBody = softResetTail; dist/runtime-context-prompt-*.js runtimeOnly), pi-ai's Anthropic conversion drops the empty text (dist/providers/anthropic.js convertMessages), so the request carries no message and Anthropic rejects it (\"messages: at least one message is required\", observed with twin --keep); only the openai-completions transport sends it (script setup.api: openai-completions to drive it)"
            ))),
            // CONTEXT_WINDOW_HARD_MIN_TOKENS is 16e3 in 2026.4.26 (dist/context-window-guard-BIgyEo4u.js:4)
            // and 4e3 in 2026.9.6 (dist/context-window-guard-BHx3Iiy5.mjs:4); below it the run fails before any engine call ("Model context window
            // too small (700 tokens; source=modelsConfig). Minimum is 4000.", observed with twin --keep
            // on regression-lossless-claw-1193 and overflow-provider-tokens).
            ReleaseLimit::ContextWindow(tokens) => {
                // The library's scenarios use windows of 20 000 tokens and more, with
                // messages scaled to match, so both releases accept them (issue 13).
                let min = if older { 16_000 } else { 4_000 };
                if tokens < min {
                    return Err(NotDrivable(format!(
                        "setup.context_window {tokens}: openclaw@{version} refuses a model context window under {min} tokens (\"Model context window too small\", dist/context-window-guard-*); the scenario would need a larger window with proportionally larger messages"
                    )));
                }
                Ok(())
            }
            // The chat.history stall is gone: the announce reads the child's history through
            // callGateway's fixed 10 s (dist/subagent-announce-output-*.js readSubagentOutput,
            // dist/call-*.js resolveGatewayCallTimeout), and chat.history of a fresh child first
            // loads the model catalog (dist/chat-*.js), which host-runner.mjs now loads up front
            // (models.list; twin --keep announce-subagent, 2026-11-24 07:13: models.list 50.5 s,
            // child run, announce run 1 s later, onSubagentEnded, no "Subagent announce failed").
            // What remains is the reference: on 4.26 the child's and the announce's runs end with
            // afterTurn + maintain (not commitTurn) and onSubagentEnded comes "completed" then
            // "swept" (the 04:00 twin of announce-then-followup), none of which the 2026.4.26 profile models.
            // 2026.4.26 runs it as the 2026.4.26 reference models it (runtime::subagent,
            // Profile::host_spawn_v2026_4; twins of announce-subagent, announce-then-followup,
            // spawn-isolated and spawn-light-isolated equal on both engines).
            ReleaseLimit::HostSpawn => Ok(()),
            // 2026.4.26's sessions_spawn has no completionTarget (absent from its dist:
            // dist/subagent-spawn-*.js spawnSubagentDirect, dist/subagent-announce-*.js), so it
            // never makes a completion private.
            ReleaseLimit::PrivateCompletion if older => Err(NotDrivable(format!(
                "a private completion (sessions_spawn completionTarget \"parent\") on openclaw@{version}: the release has no completionTarget (dist/subagent-spawn-*.js, dist/subagent-announce-*.js), so every completion is announced to the user"
            ))),
            // A second child, on a warm host, starts its run as soon as the spawn turn's run ends,
            // before the runner marks the announce step (twin --keep subagent-ended-reasons,
            // 2026-11-24). Its calls belong to the announce step whenever they reach the engine:
            // the announce run names the child (realhost::record HostRunLanes), on both releases.
            ReleaseLimit::PrivateCompletion | ReleaseLimit::ForkSpawn | ReleaseLimit::LaterSpawn => Ok(()),
            // 2026.4.26 has no heartbeat monitor job and its on-demand triggers carry an event
            // text, but its runner's own interval tick is brought due by a hot-reloaded
            // `agents.defaults.heartbeat.every` (realhost::heartbeat::for_release).
            ReleaseLimit::HeartbeatMonitor => Ok(()),
            // Both releases: the bridge's channel registers (2026.4.26 dist/loader-*.js
            // registerChannel / registerGatewayMethod) and dispatches through
            // runtime.channel.reply (dist/provider-dispatcher-*.js); the 2026.4.26 reference
            // models its own channel entry (runtime::entry, twinned equal: prompt-abort-hint,
            // prompt-inbound-metadata, prompt-thread-history, prompt-untrusted-context).
            ReleaseLimit::ChannelMessage => Ok(()),
            // 2026.9.6 does not compact on a timeout when the provider reported no
            // prompt usage (the mock reports none) and retries the same model up to 8
            // times inside a 90 s window with jittered backoff (embedded-agent-*.mjs
            // `maybeRetryTransient`, MAX_TRANSIENT_RETRIES, MAX_TRANSIENT_RETRY_TIME_MS);
            // observed (twin --keep, timeout-recovery-limit): three scripted timeouts are
            // retried 1/8…3/8 and the fourth request gets the mock's unscripted answer.
            ReleaseLimit::TimeoutSurfaced if !older => Err(NotDrivable(format!(
                "a turn that ends on a provider timeout on openclaw@{version}: the host retries a timeout with the same model up to 8 times inside 90 s with jittered backoff (maybeRetryTransient) instead of surfacing it, so the scripted timeouts run out and whether the retries end by count or by the time window depends on the jitter"
            ))),
            ReleaseLimit::TimeoutSurfaced => Ok(()),
            // openclaw@2026.9.6 acknowledges a bare /new or /reset in its command layer ("✅ New
            // session started.", dist/commands.runtime-*.mjs) without an agent run, and the reference
            // runtime's 2026.9.6 profile does the same (runtime::command::acknowledges_bare_reset).
            ReleaseLimit::BareResetTurn { .. } => Ok(()),
        }
    }
}

/// Every limit of `limits` holds for `version`.
pub fn check_all(limits: &[ReleaseLimit], version: &str) -> Result<(), NotDrivable> {
    limits.iter().try_for_each(|l| l.check(version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_names_the_releases_it_holds_for() {
        assert!(check_all(&[], "2026.9.6").is_ok());
        let (dropped, sent) = (ReleaseLimit::BareResetTurn { empty_prompt_sent: false }, ReleaseLimit::BareResetTurn { empty_prompt_sent: true });
        assert!(check_all(&[dropped], "2026.4.26").unwrap_err().0.contains("carries no message"));
        assert!(check_all(&[sent], "2026.4.26").is_ok(), "the reset turn's empty user text reaches an OpenAI Chat Completions model");
        assert!(check_all(&[dropped, sent], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::TimeoutSurfaced], "2026.9.6").unwrap_err().0.contains("maybeRetryTransient"));
        assert!(check_all(&[ReleaseLimit::TimeoutSurfaced], "2026.4.26").is_ok());
        let write = ReleaseLimit::ScriptedTool(crate::realhost::tools::ScriptedToolNeed { tool: "write", is_error: false, image: false, untrimmed: false, real_write_answer: false, real_image_answer: false, blank: false });
        let read = ReleaseLimit::ScriptedTool(crate::realhost::tools::ScriptedToolNeed { tool: "read", is_error: false, image: false, untrimmed: false, real_write_answer: false, real_image_answer: false, blank: false });
        assert!(check_all(&[write, read], "2026.9.6").is_ok());
        assert!(check_all(&[read], "2026.4.26").is_ok());
        assert!(check_all(&[ReleaseLimit::HostSpawn], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::ChannelMessage], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::ChannelMessage], "2026.4.26").is_ok());
        assert!(check_all(&[ReleaseLimit::HeartbeatMonitor], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::HeartbeatMonitor], "2026.4.26").is_ok(), "the runner's interval tick (realhost::heartbeat::for_release)");
        assert!(check_all(&[ReleaseLimit::HostSpawn], "2026.4.26").is_ok(), "twinned equal on 2026.4.26 (runtime::subagent)");
        assert!(check_all(&[ReleaseLimit::PrivateCompletion], "2026.4.26").unwrap_err().0.contains("has no completionTarget"));
        assert!(check_all(&[ReleaseLimit::ForkSpawn], "2026.4.26").is_ok(), "the 2026.4.26 reference forks the JSONL branch (runtime::subagent)");
        assert!(check_all(&[ReleaseLimit::LaterSpawn], "2026.4.26").is_ok(), "the child's calls go to its announce step (realhost::record)");
        assert!(check_all(&[ReleaseLimit::PrivateCompletion, ReleaseLimit::ForkSpawn, ReleaseLimit::LaterSpawn], "2026.9.6").is_ok());
        assert!(check_all(&[write, dropped], "2026.4.26").unwrap_err().0.contains("only bundled plugins"));
        assert!(check_all(&[ReleaseLimit::ContextWindow(4_000)], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::ContextWindow(3_999)], "2026.9.6").unwrap_err().0.contains("under 4000 tokens"));
        assert!(check_all(&[ReleaseLimit::ContextWindow(8_000)], "2026.4.26").unwrap_err().0.contains("under 16000 tokens"));
    }
}
