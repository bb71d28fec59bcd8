// Scripted tool results on a real OpenClaw host (harness/src/realhost/tools.rs).
//
// The scripted model calls a real built-in tool (read / exec / write). Two
// documented plugin seams make that call return the scenario's result:
//
// 1. `before_tool_call` rewrites the parameters the tool executes with to a
//    harmless stand-in (STAND_INS) that succeeds, or fails when the script
//    says the tool fails (openclaw docs/plugins/hooks/tool-policy.md: "Return
//    `params` to rewrite host-owned tool parameters"). The assistant's tool
//    call in the transcript keeps the scripted arguments; no scripted command
//    ever runs on the machine.
// 2. Tool-result middleware (`api.registerAgentToolResultMiddleware`, manifest
//    `contracts.agentToolResultMiddleware: ["openclaw"]`; docs/plugins/
//    sdk-agent-harness/attempt-runtime.md) replaces the stand-in's output with
//    the scripted content before OpenClaw feeds it to the model and persists
//    it (dist/builtin-openclaw-*.mjs buildAgentToolResultMiddlewareFactory).
//    The host derives the error flag from the real execution
//    (`event.isError || isToolResultError(input) || isToolResultError(output)`),
//    so the stand-in's own success or failure carries `is_error`.
//
// 2026.4.x has neither seam 2 for plugins (dist/loader-*.js
// registerAgentToolResultMiddleware: "only bundled plugins can register agent
// tool result middleware") — there the *workspace route* (WorkspaceTools
// below) gets the scripted text to the model and the transcript by a real
// tool's own output instead: the host runner writes each scripted result
// into a file of the agent's workspace, and `before_tool_call` (open to every
// plugin in 2026.4.26: dist/pi-tools.before-tool-call-*.js
// runBeforeToolCallHook → `hookResult.params`) points the scripted `read` at
// that file (a scripted `exec` runs `cat` on it). The real read tool returns the file's text unchanged
// (@mariozechner/pi-coding-agent dist/core/tools/read.js: `{content:[{type:
// "text", text}], details: undefined}` below its 2000-line / 50 KB limit).
//
// A result with a `hold` keeps its call running until the driver releases
// the hold (lib/in-flight.js), so a steer lands after the call, as the
// scenario scripts it.
//
// Both seams run only for a call that passed the real tool's argument
// validation (dist/agent-core-*.mjs prepareToolCall → afterToolCall only when
// executionStarted): the plan checks scripted arguments against the schemas.

import { pauseOnHold } from "./in-flight.js";

/** Workspace-relative names the host runner prepares (prepareStandIns). */
export const STAND_IN_FILE = "clawspec-stand-in.txt";
export const STAND_IN_MISSING = "clawspec-stand-in-missing.txt";
export const STAND_IN_WRITE = "clawspec-stand-in-written.txt";
export const STAND_IN_DIR = "clawspec-stand-in-dir";

/** Tool → stand-in parameters for a call that succeeds (ok) or fails (error). */
export const STAND_INS = {
  // `true` exits 0 on every POSIX shell (exec: dist/bash-tools.schemas-*.mjs execSchema). A non-zero
  // exit is not a tool error on 9.6 (its details say status "completed"; dist/tool-result-error-*.mjs
  // isToolResultError), so the failing stand-in asks for the sandbox host, which fails closed when
  // sandboxing is off (docs/tools/exec.md: "Explicit host=sandbox still fails closed").
  exec: { ok: { command: "true" }, error: { command: "true", host: "sandbox" } },
  // A prepared file / a name that is never created (readToolInputSchema).
  read: { ok: { path: STAND_IN_FILE }, error: { path: STAND_IN_MISSING } },
  // A scratch file / an existing directory, which cannot be written as a file (writeSchema).
  write: { ok: { path: STAND_IN_WRITE, content: "" }, error: { path: STAND_IN_DIR, content: "" } },
};

/** Create the stand-in inputs in the agent's workspace before the gateway starts. */
export function prepareStandIns(fs, workspace) {
  fs.writeFileSync(`${workspace}/${STAND_IN_FILE}`, "clawspec stand-in\n");
  fs.mkdirSync(`${workspace}/${STAND_IN_DIR}`, { recursive: true });
}

/** The content blocks a scripted result becomes (as the reference runtime builds them: runtime/turn.rs). */
export function scriptedContent(r) {
  const content = [{ type: "text", text: r.text }];
  if (r.imagePngBase64) content.push({ type: "image", data: r.imagePngBase64, mimeType: "image/png" });
  return content;
}

/**
 * Scripted results by tool call id. `standIn` answers the before_tool_call
 * hook, `result` the middleware; a call the script does not know is left to
 * the host untouched.
 */
export class ScriptedTools {
  /** `holdUrl`: the mock provider's hold front, for results with a `hold` (lib/in-flight.js pauseOnHold). */
  constructor(results = [], { holdUrl, pause = pauseOnHold } = {}) {
    this.byId = new Map(results.map((r) => [r.toolCallId, r]));
    this.holdUrl = holdUrl;
    this.pause = pause;
  }

  get size() {
    return this.byId.size;
  }

  /**
   * The scripted result of a call id. OpenAI Responses calls are stored as
   * `call_id|item_id` (@openclaw/ai openai-responses-shared-*.mjs), so the
   * scripted call id is the part before the `|`.
   */
  lookup(id) {
    if (typeof id !== "string") return undefined;
    return this.byId.get(id) ?? (id.includes("|") ? this.byId.get(id.slice(0, id.indexOf("|"))) : undefined);
  }

  /** before_tool_call: the stand-in params for a scripted call, else nothing. */
  standIn(event) {
    const r = this.lookup(event?.toolCallId);
    const s = r && STAND_INS[r.toolName];
    if (!s || event.toolName !== r.toolName) return undefined;
    return { params: { ...(r.isError ? s.error : s.ok) } };
  }

  /** Tool-result middleware: the scripted result for a scripted call, else nothing. */
  result(event) {
    const r = this.lookup(event?.toolCallId);
    if (!r || event.toolName !== r.toolName) return undefined;
    // details as the reference runtime records them ({}); the host keeps the
    // error flag of the stand-in's execution.
    const out = { result: { content: scriptedContent(r), details: {} } };
    if (r.hold == null) return out;
    // A tool still running while the user steers: the call finishes when the
    // driver releases the hold (the runtime takes steered input after a
    // running call finishes; openclaw docs/concepts/queue-steering.md).
    return this.pause(this.holdUrl, r.hold).then(() => out);
  }

  /** Wire both seams into a plugin api (register(api)). */
  register(api, logger) {
    if (this.size === 0) return;
    if (typeof api.on !== "function" || typeof api.registerAgentToolResultMiddleware !== "function") {
      throw new Error("clawspec bridge: scripted tool results need api.on and api.registerAgentToolResultMiddleware (openclaw ≥ 2026.8)");
    }
    api.on("before_tool_call", (event) => this.standIn(event));
    api.registerAgentToolResultMiddleware((event) => this.result(event), { runtimes: ["openclaw"] });
    logger?.info?.(`clawspec bridge: ${this.size} scripted tool result(s)`);
  }
}

/** Workspace-relative directory of the workspace route's result files. */
export const RESULTS_DIR = "clawspec-results";

/**
 * The workspace file holding scripted result `index` (the plan's order): the
 * text, or for a result with an image the PNG itself (a real read of a PNG
 * answers "Read image file [image/png]" + the image block, below).
 */
export function resultFile(index, r = {}) {
  return `${RESULTS_DIR}/${index}.${r.imagePngBase64 ? "png" : "txt"}`;
}

/** Tools the workspace route can drive: their real output is a file's text (realhost/tools.rs WORKSPACE_ROUTE_TOOLS). */
export const WORKSPACE_ROUTE_TOOLS = ["read", "exec"];

/**
 * The real call that outputs result file `file`: a read of it, or an exec of
 * `cat` on it (exec runs in the agent workspace without approval by default
 * on 2026.4.26: docs/tools/exec.md "No-approval host exec is the default";
 * its text is the trimmed output, dist/bash-tools-*.js buildExecForegroundResult).
 */
function realCall(tool, file) {
  return tool === "exec" ? { command: `cat ${file}` } : { path: file };
}

/** Write every scripted result the workspace route drives into the workspace, before the gateway starts. */
export function prepareResultFiles(fs, workspace, results = []) {
  fs.mkdirSync(`${workspace}/${RESULTS_DIR}`, { recursive: true });
  results.forEach((r, i) => {
    if (!WORKSPACE_ROUTE_TOOLS.includes(r.toolName)) return;
    // An image result is the real PNG: pi-coding-agent's read answers an image file with
    // `[{type:"text", text:"Read image file [image/png]"}, {type:"image", data, mimeType}]`
    // (dist/core/tools/read.js; a small PNG is left as is by its resizeImage and by OpenClaw's
    // sanitizeToolResultImages, dist/tool-images-*.js). The plan only lets that exact text through.
    fs.writeFileSync(`${workspace}/${resultFile(i, r)}`, r.imagePngBase64 ? Buffer.from(r.imagePngBase64, "base64") : r.text);
  });
}

/**
 * The workspace route (2026.4.x): `before_tool_call` points a scripted read at
 * the file holding its scripted text; the real tool does the rest. The plan
 * only lets through calls this route reproduces exactly (realhost/tools.rs
 * release_supports_scripted_tools).
 */
export class WorkspaceTools extends ScriptedTools {
  constructor(results = [], options = {}) {
    super(results, options);
    // Each result keeps its file, named by its place in the plan (prepareResultFiles).
    this.byId = new Map(results.map((r, i) => [r.toolCallId, { ...r, file: resultFile(i, r) }]));
  }

  /**
   * before_tool_call: the real read (or cat) of the result's file; for a
   * scripted failure, a block whose reason is the scripted text: 2026.4.26
   * throws the reason inside the tool's execute (dist/pi-tools.before-tool-call-*.js
   * `if (outcome.blocked) throw new Error(outcome.reason)`), and the tool adapter
   * turns a thrown error into its error result `{"status":"error","tool":…,"error":…}`
   * (dist/pi-tool-definition-adapter-*.js buildToolExecutionErrorResult), as for any
   * failing tool. Nothing runs on the machine. Else nothing.
   */
  standIn(event) {
    const r = this.lookup(event?.toolCallId);
    if (!r || event.toolName !== r.toolName) return undefined;
    if (r.isError && STAND_INS[r.toolName]) return this.held(r, { block: true, blockReason: r.text });
    if (!WORKSPACE_ROUTE_TOOLS.includes(r.toolName)) return undefined;
    return this.held(r, { params: realCall(r.toolName, r.file) });
  }

  /** `out`, once the driver released the result's hold (if it has one). */
  held(r, out) {
    // The hook is awaited before the tool runs: a held call stays running until released.
    return r.hold == null ? out : this.pause(this.holdUrl, r.hold).then(() => out);
  }

  register(api, logger) {
    if (this.size === 0) return;
    if (typeof api.on !== "function") throw new Error("clawspec bridge: scripted tool results need api.on (before_tool_call)");
    api.on("before_tool_call", (event) => this.standIn(event));
    logger?.info?.(`clawspec bridge: ${this.size} scripted tool result(s) through workspace files`);
  }
}
