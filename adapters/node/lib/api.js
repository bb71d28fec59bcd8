// The plugin api a real OpenClaw host hands to `register(api)`, per release
// (lib/surface.js cites the dist files it follows). Reads of members this host does not provide are reported by
// name (stderr and `adapter/report`) instead of silently being `undefined`.
import os from "node:os";
import path from "node:path";
import { formatWithOptions } from "node:util";

import { FACADES_9_6, REGISTRATIONS } from "./surface.js";

/**
 * @typedef {{request(method: string, params: any): Promise<any>, notify(method: string, params: any): void, currentCall(): number | string | undefined}} Host
 */

const LEVELS = ["trace", "debug", "info", "warn", "error"];

/**
 * openclaw src/utils.ts resolveUserPath → resolveHomeRelativePath: blank →
 * "", `~` → the (isolated) home dir, anything else → path.resolve (cwd, which
 * the adapter points at the state dir's workspace).
 */
export function resolveUserPath(input) {
  const trimmed = String(input ?? "").trim();
  if (!trimmed) return "";
  if (trimmed === "~" || trimmed.startsWith("~/")) return path.resolve(os.homedir(), trimmed.slice(2));
  return path.resolve(trimmed);
}

/** The model the scenario library's agent runs by default (harness/src/scenario/model.rs Setup). */
export const DEFAULT_MODEL = { provider: "anthropic", model: "claude-sonnet-4-6" };

/** Registrations kept by kind in `adapter/report`; every other one is counted in `registrations`. */
const NAMED = { registerTool: "tools", registerCommand: "commands", registerService: "services", registerSessionAction: "sessionActions" };

/**
 * The api of `release` (lib/surface.js): its registration methods and
 * facades, a realistic config (the plugin's entry and slot, the agent's
 * default model and workspace) and the runtime helpers context engines use.
 * @param {{id: string, name?: string, version?: string, pluginConfig: any, host: Host, report: Report, rootDir: string, release?: string, agentDir?: string, workspaceDir?: string}} o
 */
export function createApi(o) {
  const { report, host } = o;
  const release = o.release ?? "2026.9.6";
  const workspaceDir = o.workspaceDir ?? process.cwd();
  const agentDir = o.agentDir ?? workspaceDir;
  const log = (level, scope) => (...args) => {
    const message = formatWithOptions({ colors: false, depth: 4 }, ...args);
    process.stderr.write(`[plugin ${scope} ${level}] ${message}\n`);
    host.notify("$/log", { level, message });
  };
  const makeLogger = (scope) => Object.fromEntries(LEVELS.map((l) => [l, log(l, scope)]));
  const logger = makeLogger(o.id);
  // The OpenClaw config as a plugin sees it (OpenClawConfig): its own entry
  // carries the plugin config; the loader adds plugins.slots.contextEngine.
  const config = {
    agents: { defaults: { model: { primary: `${DEFAULT_MODEL.provider}/${DEFAULT_MODEL.model}` }, workspace: workspaceDir }, list: [{ id: "main", default: true }] },
    plugins: { entries: { [o.id]: { enabled: true, config: o.pluginConfig } } },
  };
  const llm = {
    /** runtime.llm.complete → `host/llm.complete`, answered by the harness. */
    async complete(params) {
      const forCall = host.currentCall();
      const r = await host.request("host/llm.complete", { ...(forCall !== undefined ? { forCall } : {}), ...(params ?? {}) });
      const text = typeof r?.text === "string" ? r.text : "";
      return { ...r, text, content: [{ type: "text", text }] };
    },
  };
  const named = (name) => (x) => (typeof x === "function" ? x.name || "(factory)" : x?.id ?? x?.name) ?? "(unnamed)";
  /** @type {Record<string, Function>} */
  const methods = {
    registerContextEngine(id, factory) {
      if (report.engines.has(id)) report.diagnostic("warn", `context engine ${JSON.stringify(id)} registered twice; the last registration wins`);
      report.engines.set(id, factory);
      return { ok: true };
    },
    on(hookName, handler) {
      if (typeof handler !== "function") return report.diagnostic("warn", `api.on(${JSON.stringify(hookName)}) without a handler function`);
      if (!report.hooks.has(hookName)) report.hooks.set(hookName, []);
      report.hooks.get(hookName).push(handler);
    },
    registerHook(events) {
      for (const e of Array.isArray(events) ? events : [events]) report.registeredHooks.push(String(e));
    },
    // Run context and agent events have no consumer in the simulated host.
    getRunContext: () => undefined,
    emitAgentEvent: () => ({ emitted: false, reason: "no agent event subscribers in clawspec" }),
  };
  const api = {
    id: o.id,
    name: o.name ?? o.id,
    ...(o.version ? { version: o.version } : {}),
    source: o.rootDir,
    rootDir: o.rootDir,
    pluginConfig: o.pluginConfig,
    config,
    registrationMode: "full",
    logger,
    resolvePath: resolveUserPath,
    runtime: {
      version: release,
      llm,
      logging: { shouldLogVerbose: () => false, getChildLogger: (bindings) => makeLogger(typeof bindings?.name === "string" ? `${o.id}/${bindings.name}` : o.id) },
      config: { current: () => config },
      agent: {
        defaults: { ...DEFAULT_MODEL },
        resolveAgentDir: () => agentDir,
        resolveAgentWorkspaceDir: () => workspaceDir,
      },
    },
  };
  for (const m of REGISTRATIONS[release] ?? REGISTRATIONS["2026.9.6"]) {
    const specific = methods[m];
    api[m] = (...args) => {
      report.registered(m);
      if (NAMED[m]) report[NAMED[m]].push(named(m)(args[0]));
      return specific ? specific(...args) : undefined;
    };
  }
  if (release === "2026.9.6") {
    for (const [group, subs] of Object.entries(FACADES_9_6)) {
      const g = (api[group] ??= {});
      for (const [sub, names] of Object.entries(subs)) {
        const target = sub ? (g[sub] ??= {}) : g;
        for (const n of names) target[n] = (...args) => api[n](...args);
      }
    }
  }
  return watch(api, "api", report);
}

/** Plain data handed to the plugin: not part of the api surface. */
const DATA = new Set(["pluginConfig", "config"]);

/** Report reads of members we do not provide, at any depth of the api's own objects. */
function watch(obj, where, report) {
  const children = new Map();
  return new Proxy(obj, {
    get(target, prop, receiver) {
      // Probes every runtime makes (await, JSON, inspection) are not api use.
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON" || prop === "constructor") return Reflect.get(target, prop, receiver);
      if (!(prop in target)) {
        report.unknownMember(`${where}.${prop}`);
        return undefined;
      }
      const v = Reflect.get(target, prop, receiver);
      if (!v || typeof v !== "object" || Array.isArray(v) || DATA.has(prop)) return v;
      if (!children.has(prop)) children.set(prop, watch(v, `${where}.${prop}`, report));
      return children.get(prop);
    },
  });
}

/** Everything the plugin registered or did, for `adapter/report`. */
export class Report {
  /** @param {(method: string, params: unknown) => void} [notify] tells the host as things happen (`$/unknownApiMember`). */
  constructor(notify) {
    this.notify = notify;
    /** @type {Map<string, unknown>} */
    this.engines = new Map();
    /** @type {Map<string, Function[]>} */
    this.hooks = new Map();
    this.tools = [];
    this.commands = [];
    this.registeredHooks = [];
    this.services = [];
    this.sessionActions = [];
    this.unknownMembers = [];
    this.stdoutWrites = [];
    this.diagnostics = [];
    /** @type {Record<string, number>} every registration call, by method */
    this.registrations = {};
  }

  registered(method) {
    this.registrations[method] = (this.registrations[method] ?? 0) + 1;
  }

  unknownMember(name) {
    if (this.unknownMembers.includes(name)) return;
    this.unknownMembers.push(name);
    // Now, not only in `adapter/report` at the end: a run that ends in a
    // fault (crash, hang) is never asked for its report.
    this.notify?.("$/unknownApiMember", { name });
    process.stderr.write(`clawspec-node-adapter: the plugin read ${name}, which this host does not provide\n`);
  }

  diagnostic(level, message) {
    this.diagnostics.push({ level, message });
    process.stderr.write(`clawspec-node-adapter: ${level}: ${message}\n`);
  }

  toJSON() {
    return {
      engines: [...this.engines.keys()],
      hooks: [...this.hooks.keys()],
      tools: this.tools,
      commands: this.commands,
      registeredHooks: this.registeredHooks,
      services: this.services,
      sessionActions: this.sessionActions,
      unknownApiMembers: this.unknownMembers,
      stdoutWrites: this.stdoutWrites,
      diagnostics: this.diagnostics,
      registrations: Object.fromEntries(Object.entries(this.registrations).sort()),
    };
  }
}
