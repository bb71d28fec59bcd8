// Which function of a plugin module is its `register`: a port of OpenClaw's
// src/plugins/module-export.ts (unwrapDefaultModuleExport,
// resolvePluginModuleExport), plus the `activate` alias older loaders accepted
// (openclaw src/plugins/loader.ts before 2026.5: `def.register ?? def.activate`).

/** Unwraps nested default exports produced by mixed ESM/CJS plugin bundles. */
export function unwrapDefaultModuleExport(moduleExport) {
  let resolved = moduleExport;
  const seen = new Set();
  while (resolved && typeof resolved === "object" && "default" in resolved && !seen.has(resolved)) {
    seen.add(resolved);
    resolved = resolved.default;
  }
  return resolved;
}

/**
 * @returns {{definition?: Record<string, any>, register?: Function}}
 */
export function resolvePluginModuleExport(moduleExport) {
  const seen = new Set();
  const candidates = [unwrapDefaultModuleExport(moduleExport), moduleExport];
  // The cap of 12 candidates is OpenClaw's (module-export.ts).
  for (let index = 0; index < candidates.length && index < 12; index += 1) {
    const resolved = candidates[index];
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    if (typeof resolved === "function") return { register: resolved };
    if (resolved && typeof resolved === "object") {
      const register = resolved.register ?? resolved.activate;
      if (typeof register === "function") return { definition: resolved, register };
      for (const key of ["default", "module"]) if (key in resolved) candidates.push(Reflect.get(resolved, key));
    }
  }
  const resolved = candidates[0];
  if (resolved && typeof resolved === "object") return { definition: resolved, register: undefined };
  return {};
}
