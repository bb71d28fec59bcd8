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

/// What a release must reproduce for one scripted call (`limits::ReleaseLimit::ScriptedTool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptedToolNeed {
    /// One of [`STAND_IN_TOOLS`].
    pub tool: &'static str,
    pub is_error: bool,
    pub image: bool,
    /// The text has leading/trailing whitespace or is empty (a real exec trims its output
    /// and prints "(no output)" for none).
    pub untrimmed: bool,
    /// A `write` whose scripted text is the real write's own answer for its
    /// arguments, "Successfully wrote {content.length} bytes to {path}"
    /// (pi-coding-agent dist/core/tools/write.js; `length` counts UTF-16 units).
    pub real_write_answer: bool,
    /// A `read` whose scripted result is the real read's own answer for a PNG:
    /// the text "Read image file [image/png]" and the image block
    /// (pi-coding-agent dist/core/tools/read.js).
    pub real_image_answer: bool,
    /// The scripted text is empty or whitespace.
    pub blank: bool,
}

impl ScriptedToolNeed {
    pub fn of(r: &ScriptedToolResult, call: &ToolCallSpec) -> Self {
        let tool = STAND_IN_TOOLS.iter().copied().find(|t| *t == r.tool_name).unwrap_or("");
        let untrimmed = r.text.trim() != r.text || r.text.is_empty();
        let arg = |k: &str| call.arguments.get(k).and_then(serde_json::Value::as_str);
        let real_write_answer = tool == "write" && arg("content").zip(arg("path")).is_some_and(|(c, p)| r.text == format!("Successfully wrote {} bytes to {p}", c.encode_utf16().count()));
        let image = r.image_png_base64.is_some();
        let real_image_answer = tool == "read" && image && r.text == REAL_READ_PNG_TEXT;
        ScriptedToolNeed { tool, is_error: r.is_error, image, untrimmed, real_write_answer, real_image_answer, blank: r.text.trim().is_empty() }
    }
}

/// The text block a real read of a PNG file answers before the image block
/// (pi-coding-agent dist/core/tools/read.js: `Read image file [${mimeType}]`,
/// with no dimension note when the image needs no resizing; OpenClaw's read
/// wrapper keeps it, dist/openclaw-tools-*.js `rewriteReadImageHeader`).
pub const REAL_READ_PNG_TEXT: &str = "Read image file [image/png]";

/// Tools the 2026.4.x workspace route drives (`lib/tools.js` WORKSPACE_ROUTE_TOOLS).
pub const WORKSPACE_ROUTE_TOOLS: &[&str] = &["read", "exec"];

/// openclaw@2026.4.26 lets only bundled plugins register tool-result
/// middleware (dist/loader-*.js `registerAgentToolResultMiddleware`: "only
/// bundled plugins can register agent tool result middleware"); 2026.9.6
/// opens it to explicitly enabled plugins that declare
/// `contracts.agentToolResultMiddleware` (dist/loader-runtime-load-*.mjs
/// `canRegisterInstalledTrustedHook`).
///
/// On 2026.4.x the bridge takes the *workspace route* instead (`lib/tools.js`
/// WorkspaceTools): the host runner writes the scripted text into a file of
/// the agent's workspace and `before_tool_call`, which 2026.4.26 runs for
/// every plugin (dist/pi-tools.before-tool-call-*.js `runBeforeToolCallHook`,
/// `hookResult.params`), points the scripted `read` at it, or makes the
/// scripted `exec` a `cat` of it (its text is the trimmed output, its details
/// {status, exitCode, durationMs, aggregated, cwd}: dist/bash-tools-*.js
/// `buildExecForegroundResult`, modelled by the 2026.4.26 reference). The real read tool
/// returns a small text file's content unchanged and no details
/// (@mariozechner/pi-coding-agent dist/core/tools/read.js; OpenClaw's wrapper
/// dist/openclaw-tools-*.js `createOpenClawReadTool` only pages, strips
/// truncation details and sanitizes images). What that route cannot
/// reproduce stays not drivable:
/// - a scripted failure without text. A scripted failure is a `before_tool_call`
///   block whose reason is the scripted text (dist/pi-tools.before-tool-call-*.js
///   throws it inside the tool's execute); the tool adapter turns it into its
///   error result `{"status":"error","tool":…,"error":…}` (dist/pi-tool-definition-adapter-*.js
///   `buildToolExecutionErrorResult`), which the 2026.4.26 reference builds;
/// - an `exec` result with leading or trailing whitespace: the real exec
///   trims its output (dist/bash-tools.exec-runtime-*.js `aggregated.trim()`);
/// - `write` with any other text than the real tool's answer, "Successfully
///   wrote N bytes to PATH" (pi-coding-agent dist/core/tools/write.js); a
///   write scripted with exactly that answer runs for real, with the scripted
///   arguments, into the run's workspace;
/// - an image block after any other text than the real read's header for a
///   PNG: the host runner writes the scripted PNG as the file, and the real read
///   answers `[{text: "Read image file [image/png]"}, {image}]` (pi-coding-agent
///   dist/core/tools/read.js; a tiny PNG passes its resizeImage and OpenClaw's
///   sanitizeToolResultImages, dist/tool-images-*.js, unchanged).
pub fn release_supports_scripted_tools(need: ScriptedToolNeed, version: &str) -> Result<(), NotDrivable> {
    if !version.starts_with("2026.4.") {
        return Ok(());
    }
    let why = if need.is_error && need.blank {
        "a scripted failure without text: the bridge fails the call with a before_tool_call block whose reason is the scripted text, and a blank reason becomes \"Tool call blocked by plugin hook\" (dist/pi-tools.before-tool-call-*.js)"
    } else if need.is_error {
        // The bridge blocks the call with the scripted text as the reason; the host throws it
        // inside the tool's execute and wraps it in its error result (lib/tools.js
        // WorkspaceTools.standIn), which the 2026.4.26 reference builds (runtime::turn).
        return Ok(());
    } else if need.image && !need.real_image_answer {
        "a read of an image file answers \"Read image file [image/png]\" and the image (pi-coding-agent dist/core/tools/read.js), never another text followed by an image block (script that text to drive it)"
    } else if need.tool == "exec" && need.untrimmed {
        "the real exec trims its output and says \"(no output)\" for none (dist/bash-tools-*.js buildExecForegroundResult), so an untrimmed or empty scripted text cannot come back as is"
    } else if need.tool == "write" && need.real_write_answer {
        // The real write runs with the scripted arguments (a file in the run's workspace).
        return Ok(());
    } else if !WORKSPACE_ROUTE_TOOLS.contains(&need.tool) {
        match need.tool {
            "write" => "the real write answers \"Successfully wrote N bytes to PATH\" (pi-coding-agent dist/core/tools/write.js), not the scripted text (script that answer to drive it)",
            _ => "only a real read of a prepared workspace file returns exactly the scripted text",
        }
    } else {
        return Ok(());
    };
    Err(NotDrivable(format!(
        "tool call {} on openclaw@{version}: only bundled plugins may register tool-result middleware in this release, so the scripted result must be a real tool's own output (a read, or an exec of `cat`, of a workspace file holding it); {why}",
        if need.tool.is_empty() { "(not a core tool)" } else { need.tool }
    )))
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

    #[rstest::rstest]
    #[case::read("read", false, false, "2026.9.6", None)]
    #[case::failing_exec("exec", true, false, "2026.9.6", None)]
    #[case::read_workspace_route("read", false, false, "2026.4.26", None)]
    #[case::failing_read("read", true, false, "2026.4.26", None)]
    #[case::read_with_image("read", false, true, "2026.4.26", Some("never another text followed by an image"))]
    #[case::exec_workspace_route("exec", false, false, "2026.4.26", None)]
    #[case::write("write", false, false, "2026.4.26", Some("Successfully wrote"))]
    fn what_each_release_reproduces(#[case] tool: &'static str, #[case] is_error: bool, #[case] image: bool, #[case] version: &str, #[case] why: Option<&str>) {
        let got = release_supports_scripted_tools(ScriptedToolNeed { tool, is_error, image, untrimmed: false, real_write_answer: false, real_image_answer: false, blank: false }, version);
        match why {
            None => assert!(got.is_ok(), "{got:?}"),
            Some(w) => assert!(got.unwrap_err().0.contains(w)),
        }
    }

    #[test]
    fn a_need_names_its_core_tool() {
        let r = scripted(&call("read", false, true), "x".into()).unwrap();
        let c = call("read", false, true);
        assert_eq!(ScriptedToolNeed::of(&r, &c), ScriptedToolNeed { tool: "read", is_error: false, image: true, untrimmed: false, real_write_answer: false, real_image_answer: false, blank: false });
        let mut padded = call("exec", false, false);
        padded.result = "out\n".into();
        let need = ScriptedToolNeed::of(&scripted(&padded, "x".into()).unwrap(), &padded);
        assert!(need.untrimmed);
        assert!(release_supports_scripted_tools(need, "2026.4.26").unwrap_err().0.contains("trims its output"));
        // A write scripted with the real write's answer ("x" is 1 UTF-16 unit) runs for real.
        let mut w = call("write", false, false);
        w.result = "Successfully wrote 1 bytes to p".into();
        let need = ScriptedToolNeed::of(&scripted(&w, "x".into()).unwrap(), &w);
        assert!(need.real_write_answer && release_supports_scripted_tools(need, "2026.4.26").is_ok());
        w.result = "written".into();
        let need = ScriptedToolNeed::of(&scripted(&w, "x".into()).unwrap(), &w);
        assert!(release_supports_scripted_tools(need, "2026.4.26").unwrap_err().0.contains("Successfully wrote"));
        // A read scripted with the real read's answer for a PNG gets the PNG as its file.
        let mut img = call("read", false, true);
        img.result = REAL_READ_PNG_TEXT.into();
        let need = ScriptedToolNeed::of(&scripted(&img, "x".into()).unwrap(), &img);
        assert!(need.real_image_answer && release_supports_scripted_tools(need, "2026.4.26").is_ok());
        img.result = "a screenshot".into();
        let need = ScriptedToolNeed::of(&scripted(&img, "x".into()).unwrap(), &img);
        assert!(!need.real_image_answer && release_supports_scripted_tools(need, "2026.4.26").is_err());
    }
}
