// Which `openclaw/plugin-sdk/*` a plugin sees, per profile: the real package
// of the profile's OpenClaw release when clawspec passed one (`--sdk
// PROFILE=DIR`, from its cache), else the plugin's own `openclaw`, else the
// adapter's shims (shims/plugin-sdk/<sub>.js). Installed once, at
// `initialize`, before the plugin is imported: only then is the profile known.
// ESM through a resolve hook (hooks.mjs), CJS through Module._resolveFilename.
//
// The hook runs in the importing thread (module.registerHooks) wherever Node
// has it (≥ 22.15): an off-thread hook (module.register) costs every ESM
// resolution a synchronous round trip to Node's loader thread (Atomics.wait
// in node:internal/modules/esm/hooks makeSyncRequest), and the real 2026.9.6
// SDK's session-transcript-runtime pulls in a graph of thousands of
// resolutions on the plugin's first `bootstrap`. On a loaded machine each
// round trip waits for the scheduler, and that import alone outlasted the 30 s
// call timeout (docs/real-engines.md, "bootstrap never answers").
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { initialize, resolveInThread, SDK_SPECIFIER } from "./hooks.mjs";

const SHIM_DIR = fileURLToPath(new URL("../shims/plugin-sdk/", import.meta.url));

/**
 * Functions that need the host (the harness), not the real OpenClaw runtime:
 * under the real SDK they are replaced by the shim's, when the release exports them.
 */
export const HOST_BOUND = { core: ["delegateCompactionToRuntime"] };

/**
 * @typedef {{kind: "real", version: string, dir: string, profile: string} | {kind: "plugin", version: string, dir: string} | {kind: "shims"}} Sdk
 */

/**
 * @param {Record<string, string>} roots profile id → openclaw package dir (`--sdk`)
 * @param {string | undefined} profile from `initialize` (a `+marker-drift` variant uses its base's SDK)
 * @param {string} entry the plugin entry, for its own `openclaw`
 * @returns {Sdk}
 */
export function chooseSdk(roots, profile, entry) {
  const base = String(profile ?? "").split("+")[0];
  const dir = roots[base];
  if (dir) return { kind: "real", version: packageVersion(dir), dir, profile: String(profile) };
  const own = ownOpenclaw(entry);
  if (own) return { kind: "plugin", version: packageVersion(own), dir: own };
  return { kind: "shims" };
}

/** What the report says (initialize `implementation.sdk`). */
export function describeSdk(sdk) {
  if (sdk.kind === "real") return `openclaw@${sdk.version}`;
  if (sdk.kind === "plugin") return `openclaw@${sdk.version} (the plugin's own, every profile)`;
  return "clawspec shims";
}

function packageVersion(dir) {
  try {
    return String(JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version);
  } catch {
    return "unknown";
  }
}

/** The `openclaw` package the plugin's own node_modules would give it, if any. */
function ownOpenclaw(entry) {
  try {
    return path.dirname(module.createRequire(entry).resolve("openclaw/package.json"));
  } catch {
    return undefined;
  }
}

let installed = false;

/** @param {Sdk} sdk */
export function installSdk(sdk) {
  if (installed) throw new Error("the plugin SDK is chosen once per adapter process");
  installed = true;
  const real = sdk.kind === "real" ? sdk.dir : undefined;
  const data = { real, version: sdk.kind === "real" ? sdk.version : undefined, profile: sdk.kind === "real" ? sdk.profile : undefined, shimDir: SHIM_DIR, hostBound: HOST_BOUND };
  if (typeof module.registerHooks === "function") {
    initialize(data);
    module.registerHooks({ resolve: resolveInThread });
  } else {
    module.register(new URL("./hooks.mjs", import.meta.url), { data });
  }
  const Module = module.Module;
  const original = Module._resolveFilename;
  const fromReal = real ? module.createRequire(path.join(real, "package.json")) : undefined;
  // fromReal.resolve comes back through this function: the inner call is
  // the package resolving its own `exports` (without the guard it recursed
  // until the stack overflowed, and every CJS require of the SDK failed).
  let inReal = false;
  Module._resolveFilename = function resolveSdk(request, ...rest) {
    const m = SDK_SPECIFIER.exec(request);
    // CJS under the real SDK: that release's file as is (require() of its ESM needs Node ≥ 22.12).
    if (m && fromReal && !inReal) {
      inReal = true;
      try {
        return fromReal.resolve(request);
      } catch (err) {
        throw Object.assign(new Error(`${request} does not exist in openclaw@${sdk.version}, the SDK of profile ${sdk.profile} (${err?.code ?? err?.message})`), { code: err?.code });
      } finally {
        inReal = false;
      }
    }
    try {
      return original.call(this, request, ...rest);
    } catch (err) {
      const shim = cjsShimFor(request);
      if (shim && (err?.code === "MODULE_NOT_FOUND" || err?.code === "ERR_PACKAGE_PATH_NOT_EXPORTED")) return shim;
      throw err;
    }
  };
}

/** @param {string} request */
export function cjsShimFor(request) {
  const m = SDK_SPECIFIER.exec(request);
  if (!m) return undefined;
  const file = path.join(SHIM_DIR, `${m[1] ?? "index"}.cjs`);
  return fs.existsSync(file) ? file : undefined;
}
