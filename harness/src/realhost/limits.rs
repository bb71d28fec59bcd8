//! Plan steps that only some OpenClaw releases can be driven to reproduce.
//! A plan lists the limits its steps rely on; the real-host run (and the
//! drivability census) checks them against the release before starting it.

use serde::Serialize;

use super::plan::NotDrivable;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ReleaseLimit {
    /// Scripted tool results need plugin tool-result middleware (`realhost::tools`).
    ScriptedTools,
    /// A bare `/new` or `/reset` that runs the host's session-reset prompt turn.
    BareResetTurn,
    /// A model context window below 16 000 tokens.
    SmallContextWindow,
}

impl ReleaseLimit {
    pub fn check(self, version: &str) -> Result<(), NotDrivable> {
        let older = version.starts_with("2026.4.");
        match self {
            ReleaseLimit::ScriptedTools => super::tools::release_supports_scripted_tools(version),
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
            ReleaseLimit::BareResetTurn if older => Err(NotDrivable(format!(
                "a bare /new or /reset on openclaw@{version}: the host persists the reset turn's user message as empty text and sends the reset prompt only as runtime context, so the provider request carries no message and Anthropic rejects it (\"messages: at least one message is required\", observed with twin --keep); the scripted reset-prompt reply cannot be reached"
            ))),
            // Observed on openclaw@2026.9.6 (clawspec twin --keep, provider-requests.ndjson): chat.send
            // "/new" is answered by the command layer with "✅ New session started." (dist/commands.runtime-*.mjs)
            // and no agent run; docs/tools/slash-commands.md: "Standalone `/new` and `/reset` acknowledgements
            // do not start a model turn".
            // 2026.4.26 refuses the run before any engine call (dist/context-window-guard-*.js
            // CONTEXT_WINDOW_HARD_MIN_TOKENS = 16e3; observed: clawspec twin --scenario
            // existing-session-bootstrap --profile openclaw-2026.4.26 --keep, "Model context window
            // too small (3000 tokens; source=modelsConfig). Minimum is 16000.").
            ReleaseLimit::SmallContextWindow if older => Err(NotDrivable(format!(
                "a model context window below 16 000 tokens: openclaw@{version} fails the run before any engine call (\"Model context window too small … Minimum is 16000\", dist/context-window-guard-*.js CONTEXT_WINDOW_HARD_MIN_TOKENS); not restructured yet"
            ))),
            ReleaseLimit::SmallContextWindow => Ok(()),
            ReleaseLimit::BareResetTurn => Err(NotDrivable(format!(
                "a bare /new or /reset on openclaw@{version} is acknowledged by the gateway's command layer (\"✅ New session started.\") without a model run, so the scripted reset-prompt turn does not happen on this release"
            ))),
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
        assert!(check_all(&[ReleaseLimit::BareResetTurn], "2026.4.26").unwrap_err().0.contains("carries no message"));
        assert!(check_all(&[ReleaseLimit::BareResetTurn], "2026.9.6").unwrap_err().0.contains("without a model run"));
        assert!(check_all(&[ReleaseLimit::ScriptedTools], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::SmallContextWindow], "2026.4.26").unwrap_err().0.contains("Minimum is 16000"));
        assert!(check_all(&[ReleaseLimit::SmallContextWindow], "2026.9.6").is_ok());
        assert!(check_all(&[ReleaseLimit::ScriptedTools, ReleaseLimit::BareResetTurn], "2026.4.26").unwrap_err().0.contains("only bundled plugins"));
    }
}
