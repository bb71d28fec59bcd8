// ESM resolve hook (module.register, Node ≥ 20.6; runs off the main thread):
// `openclaw/plugin-sdk/*` resolves to the real `openclaw` package when the
// plugin's tree has one, otherwise to the shims shipped with the adapter.
const SHIMS = {
  "openclaw/plugin-sdk/core": new URL("../shims/plugin-sdk/core.js", import.meta.url).href,
  "openclaw/plugin-sdk/logging-core": new URL("../shims/plugin-sdk/logging-core.js", import.meta.url).href,
};

export async function resolve(specifier, context, next) {
  const shim = SHIMS[specifier];
  if (!shim) return next(specifier, context);
  try {
    return await next(specifier, context);
  } catch (err) {
    if (err?.code === "ERR_MODULE_NOT_FOUND" || err?.code === "ERR_PACKAGE_PATH_NOT_EXPORTED") return { url: shim, shortCircuit: true };
    throw err;
  }
}
