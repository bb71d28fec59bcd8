// ESM resolve hook (module.register, Node ≥ 20.6): `openclaw/plugin-sdk/*`
// resolves to the real `openclaw` package when the plugin's tree has one,
// otherwise to the shims shipped with the adapter.
const SHIMS = {
  "openclaw/plugin-sdk/core": new URL("../shims/plugin-sdk/core.js", import.meta.url).href,
  "openclaw/plugin-sdk/logging-core": new URL("../shims/plugin-sdk/logging-core.js", import.meta.url).href,
};

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    const shim = SHIMS[specifier];
    if (shim) return { url: shim, shortCircuit: true };
    throw err;
  }
}
