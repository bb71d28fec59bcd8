// clawspec bridge: an OpenClaw plugin (loaded unmodified by a real OpenClaw
// gateway through `plugins.load.paths`) that registers a context engine whose
// every lifecycle call is forwarded to a clawspec protocol-v1 engine process
// and recorded, as the engine receives it, in an NDJSON trace (with what the
// engine said during it: host callbacks, `$/log` lines).
//
// `info` (acceptedHostParams, transcriptSemantics, ownsCompaction, …) and the
// set of optional methods come from the engine's `initialize` answer, so the
// host projects params and picks legacy fallback exactly as it would for that
// engine. Host callbacks go to the real host: runtimeContext.llm.complete,
// rewriteTranscriptEntries, and delegateCompactionToRuntime from the host's
// own plugin SDK.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { captureCallContext } from "./lib/call-context.js";
import { registerChannel } from "./lib/channel.js";
import { CallEncoding } from "./lib/encode.js";
import { EngineProcess } from "./lib/engine-process.js";
import { ScriptedTools, WorkspaceTools } from "./lib/tools.js";

/**
 * `openclaw/plugin-sdk/core` as a real plugin imports it (docs/concepts/context-engine.md:
 * "have `compact()` call `delegateCompactionToRuntime(...)` from
 * `openclaw/plugin-sdk/core`"). A bare specifier is what the host's loader
 * resolves to its own running copy: 2026.9.x captures a plugin's sources
 * into `$STATE/tmp/plugin-captures` and links `node_modules/openclaw` there
 * to the host (dist plugin-setup-module-*.mjs `artifact.linkHost`,
 * `installOpenClawPluginSdkNativeResolver`), while an absolute file URL into
 * the package is captured as a plugin file like any other
 * (plugin-generation-artifact-*.mjs `captureExecutableFile`): that copy's
 * `import.meta.url` then points into the capture and the host's compaction
 * worker fails ("Cannot find module …/plugin-captures/…/openclaw/dist/agents/
 * sessions/session-manager-metadata.worker.js", dist
 * runtime-process-entrypoints-*.mjs resolves workers from `import.meta.url`).
 * The absolute path stays only for a host whose loader does not map the bare
 * name for a plugin outside any node_modules.
 */
async function hostSdkCore(openclawRoot) {
  try {
    return await import("openclaw/plugin-sdk/core");
  } catch (e) {
    if (e?.code !== "ERR_MODULE_NOT_FOUND" && e?.code !== "MODULE_NOT_FOUND") throw e;
    return await import(pathToFileURL(path.join(openclawRoot, "dist/plugin-sdk/core.js")).href);
  }
}

const REQUIRED = ["ingest", "assemble", "compact"];
const OPTIONAL = ["bootstrap", "maintain", "ingestBatch", "afterTurn", "commitTurn", "prepareSubagentSpawn", "onSubagentEnded", "dispose"];
const CAPABILITIES = ["bootstrap", "assemble-before-prompt", "after-turn", "maintain", "compact", "runtime-llm-complete"];

/**
 * `$/log` params kept per call (bytes of their JSON); later lines are only
 * counted (`logDropped`). The trace's cap is the reference runtime's (16 KiB
 * of messages, harness runtime/callbacks.rs), applied when the harness reads
 * this file (realhost/record.rs `call_log` feeds these lines through the
 * reference's own handler); the bridge keeps more, so that cap decides and
 * this one only bounds the file against a flooding engine.
 */
const LOG_KEEP_BYTES = 64 * 1024;

class Bridge {
  constructor(config, logger) {
    this.config = config;
    this.logger = logger;
    this.seq = 0;
    this.signalSeq = 0;
    this.instances = 0;
    this.queue = Promise.resolve();
    /** the call being served, for engine → host requests */
    this.current = null;
    this.engine = null;
    /** engine calls the host started that have not been recorded yet */
    this.inFlight = 0;
    /** `$/log` lines for the next call entry to record (`engineNotification`). */
    this.log = { lines: [], bytes: 0, dropped: 0 };
  }

  /**
   * An engine notification. `$/log` after the handshake belongs to a call,
   * as in the reference runtime, whose driver reads a line only while a
   * request is in flight (harness driver/process.rs `exchange`): a line
   * that arrives during a call, or between two calls, is the next recorded
   * call's (`output.log` in the trace). Anything else — `$/log` during
   * `initialize` (the reference drops those: no call is being served), other
   * notifications — is recorded on its own line, which the trace ignores.
   */
  engineNotification(method, params) {
    if (method !== "$/log" || !this.engine) return this.record({ kind: "notification", method, params });
    const line = { level: params?.level, message: params?.message };
    const bytes = Buffer.byteLength(JSON.stringify(line));
    if (this.log.bytes + bytes > LOG_KEEP_BYTES) {
      this.log.dropped += 1;
      return;
    }
    this.log.bytes += bytes;
    this.log.lines.push(line);
  }

  record(entry) {
    fs.appendFileSync(this.config.trace, `${JSON.stringify(entry)}\n`);
  }

  /**
   * `${trace}.inflight`: how many engine calls the host has started and the
   * trace does not record yet (a call is recorded when it returns). The
   * 2026.4.x end-of-step wait (lib/quiet.js) reads it: an unchanged trace with
   * a call in flight is not a quiet host.
   */
  flight(delta) {
    this.inFlight += delta;
    try {
      fs.writeFileSync(`${this.config.trace}.inflight`, `${this.inFlight}\n`);
    } catch {}
  }

  /** Start the engine once and handshake; every host-created instance shares it. */
  ready() {
    if (this.closed) return Promise.reject(new Error("clawspec bridge: this row's engine was replaced by a later registration"));
    if (!this.started) this.started = this.start();
    return this.started;
  }

  async start() {
    const proc = new EngineProcess(
      this.config.engine,
      (method, params) => this.hostRequest(method, params),
      (method, params) => this.engineNotification(method, params),
    );
    proc.start();
    const init = await proc.request("initialize", {
      protocolVersion: 1,
      profile: this.config.profile ?? "openclaw",
      host: { name: "clawspec-openclaw-bridge", version: "0.1.0", language: "javascript" },
      offers: { callbacks: ["llm.complete", "rewriteTranscriptEntries", "delegateCompaction"], capabilities: CAPABILITIES, abortNotifications: true },
      ...(this.config.engineConfig !== undefined ? { engineConfig: this.config.engineConfig } : {}),
    });
    this.engine = proc;
    this.init = init;
    this.record({ kind: "initialize", info: init.info, methods: init.methods ?? [], implementation: init.implementation ?? null });
    const stop = () => proc.stop();
    const kill = () => {
      try {
        process.kill(-proc.child.pid, "SIGKILL");
      } catch {}
    };
    process.once("beforeExit", stop);
    process.once("exit", kill);
    // A served gateway replaces the bridge once a row: its handlers go with it.
    this.unhook = () => {
      process.off("beforeExit", stop);
      process.off("exit", kill);
    };
    return init;
  }

  /** Stop this bridge's engine (a later row replaced it); later calls fail instead of reaching it. */
  close() {
    this.closed = true;
    if (this.started) this.started.then(() => {
      this.unhook?.();
      return this.engine?.stop();
    }, () => {});
  }

  async hostRequest(method, params) {
    const call = this.current;
    if (!call) throw Object.assign(new Error(`${method} outside a host request`), { code: -32002 });
    const { forCall: _ignored, ...rest } = params ?? {};
    let result;
    if (method === "host/llm.complete" || method === "host/rewriteTranscriptEntries") {
      const fn = call.encoding.callbacks.get(method.slice("host/".length));
      if (!fn) throw Object.assign(new Error(`${method} was not offered on this call`), { code: -32601 });
      try {
        result = await call.inCall(() => fn(rest));
      } catch (e) {
        // A host callback that failed is recorded too (the engine saw the
        // error; without it a fallback summary reads as unexplained).
        call.entry.callbacks.push({ method, params: rest, threw: String(e?.message ?? e) });
        throw e;
      }
    } else if (method === "host/delegateCompaction") {
      const sdk = await call.inCall(() => hostSdkCore(this.config.openclawRoot));
      result = await call.inCall(() => sdk.delegateCompactionToRuntime(call.raw));
    } else {
      throw Object.assign(new Error(`unknown host method ${method}`), { code: -32601 });
    }
    const encoded = new CallEncoding(() => `sig-cb-${++this.signalSeq}`).encode(result ?? null);
    call.entry.callbacks.push({ method, params: rest, result: encoded ?? null });
    return encoded;
  }

  /** Forward one lifecycle call, one at a time (OpenClaw awaits every hook; protocol v1 serves one request at a time). */
  call(method, raw, instance = null) {
    const run = async () => {
      await this.ready();
      const encoding = new CallEncoding(() => `sig-${++this.signalSeq}`);
      const params = encoding.encode(raw ?? {}, []) ?? {};
      // `instance`: which engine instance the host made the call on, so a
      // sessionless call (dispose) can be told apart by the session its
      // instance serves (harness realhost/record.rs).
      const entry = { kind: "call", seq: ++this.seq, method, params, callbacks: [], ...(instance !== null ? { instance } : {}) };
      // Host requests run in this call's async context (lib/call-context.js).
      const inCall = captureCallContext();
      this.current = { raw, encoding, entry, inCall };
      const listeners = encoding.signals.map(({ id, signal }) => {
        const fire = () => this.engine.notify("$/abort", { signal: id, reason: String(signal.reason?.message ?? signal.reason ?? "aborted") });
        if (signal.aborted) fire();
        else signal.addEventListener("abort", fire, { once: true });
        return () => signal.removeEventListener("abort", fire);
      });
      // The `$/log` lines read before the answer's line are this call's; the
      // engine process calls this as it reads the answer (or the fault), so
      // a line right behind the answer in the same stdout chunk is the next
      // call's, as the reference driver reads it.
      let taken = false;
      const takeLog = () => {
        if (taken) return;
        taken = true;
        if (this.log.lines.length > 0) entry.log = this.log.lines;
        if (this.log.dropped > 0) entry.logDropped = this.log.dropped;
        this.log = { lines: [], bytes: 0, dropped: 0 };
      };
      try {
        const result = await this.engine.request(method, params, takeLog);
        entry.reply = { ok: result ?? null };
        return this.revive(method, result);
      } catch (e) {
        entry.reply = e.fault ? { fault: { kind: "engine-fault", message: e.message, stderr: this.engine.stderr.slice(-4000) } } : { threw: { code: e.code ?? -32000, message: e.message } };
        if (e.code === -32001) throw Object.assign(new Error(e.message), { name: "AbortError" });
        throw new Error(e.message);
      } finally {
        listeners.forEach((off) => off());
        this.current = null;
        if (entry.callbacks.length === 0) delete entry.callbacks;
        takeLog();
        this.record(entry);
      }
    };
    // Counted from the moment the host calls, queued or not, until recorded.
    this.flight(+1);
    const p = this.queue.then(run, run).finally(() => this.flight(-1));
    this.queue = p.catch(() => {});
    return p;
  }

  /** Results that carry handles become the JS values OpenClaw expects. */
  revive(method, result) {
    if (method === "prepareSubagentSpawn") {
      const handle = result?.rollback?.$handle;
      if (handle === undefined) return undefined;
      return { rollback: () => this.call("rollback", { handle }) };
    }
    return result === null ? undefined : result;
  }

  async instance(ctx) {
    const init = await this.ready();
    const id = ++this.instances;
    this.record({ kind: "instance", id, ctxKeys: Object.keys(ctx ?? {}).sort() });
    const engine = { info: init.info };
    const methods = new Set([...REQUIRED, ...(init.methods ?? []).filter((m) => OPTIONAL.includes(m))]);
    for (const m of methods) engine[m] = (params) => this.call(m, params, id);
    return engine;
  }
}

/**
 * The bridge of this registration. One per trace: a registration with the
 * trace already served (the host loading the plugin again in the same
 * process) shares its engine, so every instance the host creates talks to
 * one engine process. A registration with another trace is another row on
 * the same gateway: 2026.9.x reruns a plugin's registration with its new
 * config when `plugins.entries.<id>` changes (docs/gateway/configuration/
 * hot-reload.md, "edits under `plugins.entries.<id>` replace the affected
 * instance by default and rerun registration with its new config"), so the
 * previous row's engine is stopped and the new row gets a fresh engine
 * process and writes only its own trace.
 */
export function bridgeFor(config, logger) {
  const current = globalThis.__clawspecBridge;
  if (current && current.config.trace === config.trace) return current;
  current?.close();
  return (globalThis.__clawspecBridge = new Bridge(config, logger));
}

/**
 * A served 2026.4.x gateway's tool route: the current row's scripted results
 * (its row file), through workspace files as for a gateway of its own
 * (WorkspaceTools). The hook is registered whether or not the first row has
 * results, since a later row may; it answers nothing for a call it has no
 * result for, as a gateway without it would run the call.
 */
class RowTools {
  constructor(rowConfig) {
    this.rowConfig = rowConfig;
    this.trace = null;
    this.route = null;
  }

  current() {
    const c = this.rowConfig();
    if (c.trace !== this.trace) {
      this.trace = c.trace;
      this.route = new WorkspaceTools(c.toolResults, { holdUrl: c.holdUrl });
    }
    return this.route;
  }

  register(api, logger) {
    if (typeof api.on !== "function") throw new Error("clawspec bridge: scripted tool results need api.on (before_tool_call)");
    api.on("before_tool_call", (event) => this.current().standIn(event));
    logger?.info?.("clawspec bridge: scripted tool results from each row's file");
  }
}

export default {
  id: "clawspec-bridge",
  name: "clawspec bridge",
  description: "Forwards the context-engine lifecycle to a clawspec protocol-v1 engine process and records every call.",
  register(api) {
    const base = api.pluginConfig ?? {};
    // A served 2026.4.x gateway (host-runner.mjs --serve): a `plugins` change
    // restarts it, so the row's own values (trace, engine, tool results) come
    // from the row file its runner writes before each row's config edit, read
    // when the host resolves the engine (each run: dist/registry-*.js
    // resolveContextEngine calls the factory) and at each tool call.
    const rowConfig = () => (base.rowFile ? { ...base, ...JSON.parse(fs.readFileSync(base.rowFile, "utf8")) } : base);
    const config = rowConfig();
    if (typeof api.registerContextEngine !== "function") throw new Error("clawspec bridge: this OpenClaw has no registerContextEngine");
    if (!config.trace || !config.engine?.program || !config.engineId) {
      api.logger?.warn?.("clawspec bridge: no engine configured (engineId, engine.program, trace); not registering");
      return;
    }
    const bridge = bridgeFor(config, api.logger);
    api.registerContextEngine(config.engineId, (ctx) => (base.rowFile ? bridgeFor(rowConfig(), api.logger) : bridge).instance(ctx));
    // The scenario's scripted tool results (lib/tools.js).
    // 2026.4.x: real tools read the results from workspace files (host-runner prepareResultFiles).
    const Route = config.toolRoute === "workspace" ? WorkspaceTools : ScriptedTools;
    if (base.rowFile) new RowTools(rowConfig).register(api, api.logger);
    else new Route(config.toolResults, { holdUrl: config.holdUrl }).register(api, api.logger);
    // Turns that arrive as channel messages (lib/channel.js); only when the plan has some.
    if (config.channel && !registerChannel(api)) api.logger?.warn?.("clawspec bridge: this OpenClaw cannot register a channel");
  },
};
