// Load one plugin entry the way OpenClaw's plugin loader does, run its
// `register(api)`, and build the chosen context engine.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { createApi } from "./api.js";
import { resolvePluginModuleExport } from "./plugin-module.js";
import { RUN_PARAM, unversioned } from "./warm.js";

export class PluginLoadError extends Error {
  name = "PluginLoadError";
}

/** The nearest package.json with a name, from the entry upwards (for `implementation.plugin`). */
export function nearestPackage(file) {
  let dir = path.dirname(file);
  for (;;) {
    const p = path.join(dir, "package.json");
    if (fs.existsSync(p)) {
      try {
        const j = JSON.parse(fs.readFileSync(p, "utf8"));
        if (typeof j.name === "string") {
          const peer = declaredOpenclaw(j);
          return { name: j.name, ...(typeof j.version === "string" ? { version: j.version } : {}), ...(Object.keys(peer).length ? { peer } : {}) };
        }
      } catch {
        // A broken package.json is the plugin's problem, not a reason to refuse it.
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * The OpenClaw versions a plugin's package.json declares it supports, by
 * field (clawspec warns when the simulated profile is outside one):
 * `peerDependencies.openclaw` and `openclaw.compat.pluginApi` (npm ranges),
 * `openclaw.compat.minGatewayVersion` (a lowest version).
 * @returns {Record<string, string>}
 */
export function declaredOpenclaw(pkg) {
  const out = {};
  const put = (k, v) => {
    if (typeof v === "string" && v.trim()) out[k] = v.trim();
  };
  put("peerDependencies.openclaw", pkg?.peerDependencies?.openclaw);
  put("openclaw.compat.pluginApi", pkg?.openclaw?.compat?.pluginApi);
  const min = pkg?.openclaw?.compat?.minGatewayVersion;
  if (typeof min === "string" && min.trim()) out["openclaw.compat.minGatewayVersion"] = `>=${min.trim()}`;
  return out;
}

/**
 * Picks the engine: `--engine-id` when given, else the only one registered.
 * @param {string[]} ids registration order
 */
export function chooseEngine(ids, engineId) {
  if (ids.length === 0) throw new PluginLoadError("register() did not call api.registerContextEngine: the plugin provides no context engine");
  if (engineId !== undefined) {
    if (ids.includes(engineId)) return engineId;
    // Wording of openclaw src/context-engine/registry.ts resolveContextEngine.
    throw new PluginLoadError(`Context engine ${JSON.stringify(engineId)} is not registered. Available engines: ${ids.join(", ")}`);
  }
  if (ids.length === 1) return ids[0];
  throw new PluginLoadError(`the plugin registers several context engines; pick one with --engine-id. Available engines: ${ids.join(", ")}`);
}

/**
 * @param {{entry: string, engineId?: string, pluginConfig: unknown, sdk?: string, sdkDir?: string, release?: string, run?: number, isolation: {agentDir: string, workspaceDir: string}, host: import("./api.js").Host, report: import("./api.js").Report}} o
 */
export async function loadPlugin(o) {
  const { entry, report } = o;
  let mod;
  let warm = false;
  try {
    ({ mod, warm } = await importPlugin(entry, o.sdkDir, report, o.run ?? 1));
  } catch (err) {
    // Name the SDK: a missing export is usually a plugin built for another release.
    throw new PluginLoadError(`cannot load plugin entry ${entry}: ${unversioned(err?.message ?? String(err))}${o.sdk ? ` (plugin SDK: ${o.sdk})` : ""}`, { cause: err });
  }
  const { definition, register } = resolvePluginModuleExport(mod);
  // Message as OpenClaw's loader records it (src/plugins/loader.ts).
  if (typeof register !== "function") throw new PluginLoadError(`${entry}: plugin export missing register/activate (expected a default export {id, register} or a register function)`);
  const pkg = nearestPackage(entry);
  const id = typeof definition?.id === "string" ? definition.id : pkg?.name ?? path.basename(entry).replace(/\.[cm]?js$/, "");
  const api = createApi({
    id,
    name: typeof definition?.name === "string" ? definition.name : undefined,
    version: pkg?.version,
    pluginConfig: o.pluginConfig,
    host: o.host,
    report,
    rootDir: path.dirname(entry),
    release: o.release,
    agentDir: o.isolation.agentDir,
    workspaceDir: o.isolation.workspaceDir,
  });

  // OpenClaw calls register(api) unbound and synchronously; a returned
  // promise only earns a diagnostic (src/plugins/loader.ts: "plugin register
  // returned a promise; async registration is ignored"). It resolves engines
  // much later (first turn), so the adapter still lets the promise settle.
  let result;
  try {
    result = register(api);
  } catch (err) {
    throw new PluginLoadError(`plugin ${id}: register(api) threw: ${err?.message ?? err}`, { cause: err });
  }
  if (result && typeof result.then === "function") {
    report.diagnostic("warn", "plugin register returned a promise; async registration is ignored");
    try {
      await result;
    } catch (err) {
      throw new PluginLoadError(`plugin ${id}: register(api) rejected: ${err?.message ?? err}`, { cause: err });
    }
  }

  const chosen = chooseEngine([...report.engines.keys()], o.engineId);
  const factory = report.engines.get(chosen);
  // What OpenClaw's resolveContextEngine reads to pick the engine.
  api.config.plugins.slots = { contextEngine: chosen };
  let engine;
  const args = factoryArgs(o.release, { config: api.config, agentDir: o.isolation.agentDir, workspaceDir: o.isolation.workspaceDir });
  try {
    engine = await (typeof factory === "function" ? factory(...args) : factory);
  } catch (err) {
    const hint = args.length === 0 ? ` (OpenClaw ${o.release} calls the engine factory with no context: no config, agentDir or workspaceDir; it logs "factory threw during resolution" and runs its legacy engine instead, so this engine never serves a turn there)` : "";
    throw new PluginLoadError(`context engine ${JSON.stringify(chosen)}: the factory threw: ${err?.message ?? err}${hint}`, { cause: err });
  }
  assertEngineContract(chosen, engine);
  return { id, engine, engineId: chosen, pkg, warm };
}

/**
 * The arguments OpenClaw's resolveContextEngine calls an engine factory with,
 * per release. 2026.9.6 passes `{config, agentDir, workspaceDir}` (dist
 * registry-S9YEPPHB.mjs resolveContextEngine: `factoryCtx`,
 * `createOwnedContextEngine(engineId, entry, factoryCtx, …)`); 2026.4.26
 * calls `entry.factory()` with none (dist registry-C0FSoFN6.js
 * resolveContextEngine), and when a non-default engine's factory throws it
 * logs `factory threw during resolution` and falls back to "legacy".
 * @param {string | undefined} release
 * @param {{config: unknown, agentDir: string, workspaceDir: string}} ctx
 */
export function factoryArgs(release, ctx) {
  return release === "2026.4.26" ? [] : [ctx];
}

/**
 * Native import first; when that fails and the release's own `jiti` is at
 * hand (the real SDK's package tree), its source transform, as OpenClaw's
 * plugin loader falls back to it (2026.9.6 dist/plugin-module-loader-cache-*.mjs:
 * tryNativeRequireJavaScriptModule, then jitiLoader; e.g. a named import from
 * a CommonJS dependency that Node's ESM loader refuses).
 */
export async function importPlugin(entry, sdkDir, report, run = 1) {
  try {
    // Versioned per run: the resolve hook (hooks.mjs) gives the whole module
    // graph below it the same version, so run N gets fresh module instances.
    return { mod: await import(`${pathToFileURL(entry).href}?${RUN_PARAM}=${run}`), warm: true };
  } catch (err) {
    const jiti = sdkDir && jitiOf(sdkDir);
    if (!jiti) throw err;
    report.diagnostic("info", `native import failed (${err?.message ?? err}); loading through jiti like OpenClaw's plugin loader`);
    const { createJiti } = await import(pathToFileURL(jiti).href);
    // OpenClaw's fallback options (buildPluginLoaderJitiOptions, then tryNative: false).
    return { mod: await createJiti(entry, { interopDefault: true, tryNative: false, fsCache: false }).import(entry), warm: false };
  }
}

function jitiOf(sdkDir) {
  try {
    return createRequire(path.join(sdkDir, "package.json")).resolve("jiti");
  } catch {
    return undefined;
  }
}

/** OpenClaw's registry contract (src/context-engine/registry-contract.ts): info.id, info.name, ingest, assemble, compact. */
export function assertEngineContract(id, engine) {
  if (!engine || typeof engine !== "object") throw new PluginLoadError(`context engine ${JSON.stringify(id)}: the factory returned ${engine === null ? "null" : typeof engine}, not an engine object`);
  const problems = [];
  if (!engine.info || typeof engine.info !== "object") problems.push("info is missing");
  else {
    if (typeof engine.info.id !== "string") problems.push("info.id is not a string");
    if (typeof engine.info.name !== "string") problems.push("info.name is not a string");
  }
  for (const m of ["ingest", "assemble", "compact"]) if (typeof engine[m] !== "function") problems.push(`${m} is not a function`);
  if (problems.length) throw new PluginLoadError(`context engine ${JSON.stringify(id)} does not satisfy OpenClaw's engine contract: ${problems.join("; ")}`);
}
