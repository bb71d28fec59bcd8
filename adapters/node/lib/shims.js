// `openclaw/plugin-sdk/core` and `openclaw/plugin-sdk/logging-core` for the
// plugin: the real `openclaw` package when the plugin's tree has one (normal
// resolution is tried first), otherwise the shims in ../shims/. ESM goes
// through a module.register resolve hook (Node ≥ 20.6), CJS through
// Module._resolveFilename.
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Specifiers the adapter can stand in for, by sub-path. */
export const SHIMMED = ["core", "logging-core"];
const SHIM_DIR = fileURLToPath(new URL("../shims/plugin-sdk/", import.meta.url));

/** @param {string} request */
export function cjsShimFor(request) {
  const m = /^openclaw\/plugin-sdk\/([a-z-]+)$/.exec(request);
  return m && SHIMMED.includes(m[1]) ? path.join(SHIM_DIR, `${m[1]}.cjs`) : undefined;
}

export function installShims() {
  module.register(new URL("./hooks.mjs", import.meta.url));
  const Module = module.Module;
  const original = Module._resolveFilename;
  Module._resolveFilename = function resolveWithShims(request, ...rest) {
    try {
      return original.call(this, request, ...rest);
    } catch (err) {
      const shim = cjsShimFor(request);
      if (shim && (err?.code === "MODULE_NOT_FOUND" || err?.code === "ERR_PACKAGE_PATH_NOT_EXPORTED")) return shim;
      throw err;
    }
  };
}
