//! Scripted tool results on the real host.
//!
//! The scripted model (the mock provider) calls a real built-in tool; the
//! bridge plugin (`adapters/openclaw-bridge/lib/tools.js`) then makes that
//! real call return the scenario's scripted result through two documented
//! OpenClaw plugin seams:
//!
//! - `before_tool_call` rewrites the call's parameters to a harmless stand-in
//!   input that succeeds (or fails, for a scripted `is_error`) the same way on
//!   every machine (openclaw docs/plugins/hooks/tool-policy.md "Return `params`
//!   to rewrite host-owned tool parameters"). The model's tool call as recorded
//!   in the transcript keeps the scripted arguments; only the execution changes,
//!   so no scripted `exec` command ever runs on the machine.
//! - tool-result middleware (`api.registerAgentToolResultMiddleware`,
//!   docs/plugins/sdk-agent-harness/attempt-runtime.md "Tool-result middleware")
//!   replaces the real output with the scripted text before OpenClaw feeds it
//!   back to the model and persists it (dist/builtin-openclaw-*.mjs
//!   `buildAgentToolResultMiddlewareFactory`). The host keeps the error flag
//!   of the real execution (`event.isError || isToolResultError(input)`), which
//!   is why the stand-in must fail exactly when the script says the tool fails.

use serde::Serialize;

use super::plan::NotDrivable;
use crate::scenario::model::ToolCallSpec;

/// What the bridge makes one real tool call return.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptedToolResult {
    /// The tool_use id the mock provider sends (the reference runtime's id).
    pub tool_call_id: String,
    pub tool_name: String,
    pub text: String,
    pub is_error: bool,
    /// A PNG image block follows the text (the reference runtime's TINY_PNG).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_png_base64: Option<String>,
    /// The call finishes only when the driver releases this hold
    /// (`realhost::in_flight`): a tool still running while the user steers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold: Option<u64>,
}

/// Core tools with a stand-in input in `lib/tools.js` (STAND_INS): both
/// releases build them for every agent run (openclaw dist/agent-tools-*.mjs
/// core coding tools). Other tool names would need their own provider,
/// channel or device (browser, camera, web_search) to run at all.
pub const STAND_IN_TOOLS: &[&str] = &["read", "exec", "write"];

/// The string arguments each stand-in tool's schema requires (openclaw
/// 2026.9.6 dist/bash-tools.schemas-*.mjs `execSchema`; dist/tools-*.mjs
/// `readToolInputSchema`, `writeSchema`).
fn required_args(tool: &str) -> &'static [&'static str] {
    match tool {
        "exec" => &["command"],
        "read" => &["path"],
        "write" => &["path", "content"],
        _ => &[],
    }
}

/// The reference runtime's id for a call without a scripted one
/// (`runtime/transcript.rs assistant_message`: `ids.next("toolu")`, one
/// counter per run, in call order).
pub fn reference_tool_id(n: u64) -> String {
    format!("toolu_{n:04}")
}

/// The bridge's scripted result for `call`, whose tool_use id is `id`.
pub fn scripted(call: &ToolCallSpec, id: String) -> Result<ScriptedToolResult, NotDrivable> {
    if !STAND_IN_TOOLS.contains(&call.name.as_str()) {
        let name = if call.name.trim().is_empty() { "(empty name)".to_string() } else { call.name.clone() };
        return Err(NotDrivable(format!(
            "tool call {name}: only the core tools {} get a harmless stand-in execution whose result the bridge replaces with the scripted one; this tool needs its own provider, device or channel on the real host",
            STAND_IN_TOOLS.join("/")
        )));
    }
    if let Some(missing) = required_args(&call.name).iter().find(|k| !call.arguments.get(**k).is_some_and(serde_json::Value::is_string)) {
        return Err(NotDrivable(format!(
            "tool call {} without a string `{missing}` argument: the real tool's schema requires it, and OpenClaw answers a call that fails validation itself (\"Validation failed for tool\") without running the tool or any plugin seam (dist/agent-core-*.mjs prepareToolCall)",
            call.name
        )));
    }
    Ok(ScriptedToolResult {
        tool_call_id: id,
        tool_name: call.name.clone(),
        text: call.result.clone(),
        is_error: call.is_error,
        image_png_base64: call.image.then(|| crate::runtime::steps::TINY_PNG.to_string()),
        hold: None,
    })
}

/// openclaw@2026.4.26 lets only bundled plugins register tool-result
/// middleware (dist/loader-*.js `registerAgentToolResultMiddleware`: "only
/// bundled plugins can register agent tool result middleware"); 2026.9.6
/// opens it to explicitly enabled plugins that declare
/// `contracts.agentToolResultMiddleware` (dist/loader-runtime-load-*.mjs
/// `canRegisterInstalledTrustedHook`).
///
/// The other 2026.4.26 seams were checked and do not give the engine the
/// scripted result: `tool_result_persist` (dist/compaction-successor-transcript-*.js
/// `guardSessionManager`) rewrites only the copy the session manager writes to
/// disk, while the run's in-memory messages, which `ingest`/`afterTurn` receive,
/// keep the real output; `after_tool_call` is a void hook (dist
/// hook-runner-global-*.js `runAfterToolCall`); a stand-in `read` of a prepared
/// file would return the scripted text, but without `details` (the host's
/// @mariozechner/pi-coding-agent dist/core/tools/read.js resolves `{content,
/// details: undefined}` for a small file) where the reference records `{}`,
/// an `exec` stand-in's details carry its exit code and duration, and a
/// scripted failure cannot be made to carry the scripted text. Not changed
/// without a twin diff.
pub fn release_supports_scripted_tools(version: &str) -> Result<(), NotDrivable> {
    if version.starts_with("2026.4.") {
        return Err(NotDrivable(format!(
            "tool calls on openclaw@{version}: only bundled plugins may register tool-result middleware in this release, so a real tool's output cannot be replaced by the scripted result before the model and the transcript see it"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, is_error: bool, image: bool) -> ToolCallSpec {
        let arguments = serde_json::json!({"command": "c", "path": "p", "content": "x"});
        ToolCallSpec { id: None, name: name.into(), arguments, result: "out".into(), is_error, image }
    }

    #[test]
    fn core_tools_get_their_scripted_result_and_others_say_why_not() {
        let r = scripted(&call("exec", true, false), reference_tool_id(3)).unwrap();
        assert_eq!((r.tool_call_id.as_str(), r.text.as_str(), r.is_error, r.image_png_base64.is_none()), ("toolu_0003", "out", true, true));
        assert!(scripted(&call("read", false, true), "x".into()).unwrap().image_png_base64.is_some());
        assert!(scripted(&call("browser", false, false), "x".into()).unwrap_err().0.contains("tool call browser"));
        assert!(scripted(&call("", false, false), "x".into()).unwrap_err().0.contains("(empty name)"));
        let mut legacy = call("exec", false, false);
        legacy.arguments = serde_json::json!({"cmd": "make"});
        assert!(scripted(&legacy, "x".into()).unwrap_err().0.contains("without a string `command` argument"));
    }

    #[test]
    fn only_releases_that_open_tool_result_middleware_to_plugins() {
        assert!(release_supports_scripted_tools("2026.9.6").is_ok());
        assert!(release_supports_scripted_tools("2026.4.26").unwrap_err().0.contains("only bundled plugins"));
    }
}
