// ESM resolve hook for `openclaw/plugin-sdk[/<sub>]`: in the importing thread
// (module.registerHooks, Node ≥ 22.15) or, before that, on Node's loader
// thread (module.register, Node ≥ 20.6; lib/sdk.js says why in-thread wins),
// configured by lib/sdk.js per profile:
// - the real SDK of the profile's OpenClaw release (`data.real`: the cached
//   `openclaw@<version>` package dir): the sub-path as that release exports it,
//   with the host-bound functions (`data.hostBound`) replaced by the
//   adapter's, so a plugin sees exactly that release's surface; a sub-path the
//   release does not have is an error naming the release;
// - otherwise the plugin's own tree, then the adapter's shims.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** @type {{real?: string, version?: string, profile?: string, shimDir: string, hostBound: Record<string, string[]>}} */
let sdk = { shimDir: "", hostBound: {} };

export function initialize(data) {
  sdk = data;
  // Both spellings: Node resolves a symlinked cache dir to its real path.
  const real = data.real ? [...new Set([data.real, realpath(data.real)])] : [];
  shared = [...ADAPTER_URLS, ...real.map((d) => pathToFileURL(path.join(d, "/")).href)];
}

function realpath(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

export const SDK_SPECIFIER = /^openclaw\/plugin-sdk(?:\/([a-z0-9-]+))?$/;

/** Names a bundled ESM file exports through `export { a, b as c }` statements. */
export function exportedNames(source) {
  const names = new Set();
  for (const m of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of m[1].split(",")) {
      const words = part.trim().split(/\s+as\s+/);
      const name = words[words.length - 1]?.trim();
      if (name) names.add(name);
    }
  }
  return names;
}

/** The adapter's own files (its lib and shims) are shared by every run. */
const ADAPTER_URLS = [new URL("./", import.meta.url).href, new URL("../shims/", import.meta.url).href];
/**
 * Files every run of the process shares: the adapter's, and the real SDK's
 * release (`data.real`). The release is the host's code, not the plugin's:
 * a gateway loads it once and 2026.9.6 builds a fresh engine per agent run
 * on it, so sharing it is what a plugin meets in production — and importing
 * its graph again per run doubled a warm run's CPU (docs/real-engines.md,
 * "Warm reuse and the SDK").
 */
let shared = ADAPTER_URLS;
const RUN = /[?&]clawspec-run=(\d+)/;

/**
 * Warm reuse (lib/warm.js): a module imported by a module of run N is
 * run N's too, so each run gets a fresh instance of the plugin's whole graph
 * (its dependencies, and the plugin's own `openclaw` or the shims' imports),
 * except the shared files above.
 */
export function versioned(r, parentURL) {
  const m = RUN.exec(parentURL ?? "");
  if (!m || !r?.url?.startsWith("file:") || r.url.includes("?") || shared.some((a) => r.url.startsWith(a))) return r;
  return { ...r, url: `${r.url}?clawspec-run=${m[1]}` };
}

/**
 * One body serves both hook flavours: `module.registerHooks` (in-thread,
 * synchronous `next`) and `module.register` (off-thread, async `next`).
 * `then` applies f to a value or to a promise's value; `attempt` routes a
 * synchronous throw and a rejection alike to `fail`.
 */
const then = (x, f) => (x && typeof x.then === "function" ? x.then(f) : f(x));
function attempt(run, ok, fail) {
  let x;
  try {
    x = run();
  } catch (err) {
    return fail(err);
  }
  return x && typeof x.then === "function" ? x.then(ok, fail) : ok(x);
}

/** Resolutions this thread's copy of the hook served (tests: in-thread or not). */
export const stats = { resolved: 0 };

function resolveAny(specifier, context, next) {
  stats.resolved += 1;
  // Read before `next`: Node copies the context a hook hands to `next` into
  // the caller's object (Node 20 and 24), so after resolveReal's
  // `next(…, {parentURL: <release>/package.json})` context.parentURL is the
  // release's, not the importer's (the real SDK was shared only by that
  // accident before; it is shared on purpose now, `shared` above).
  const parent = context.parentURL;
  return then(resolveSdk(specifier, context, next), (r) => versioned(r, parent));
}

/** The `module.register` hook (Node < 22.15): runs on the loader thread. */
export async function resolve(specifier, context, next) {
  return resolveAny(specifier, context, next);
}

/**
 * The `module.registerHooks` hook (Node ≥ 22.15): runs in the importing
 * thread. `require()` goes through Module._resolveFilename (lib/sdk.js), as
 * with the off-thread hook, which never sees it.
 */
export function resolveInThread(specifier, context, next) {
  if (context.conditions?.includes("require")) return next(specifier, context);
  return resolveAny(specifier, context, next);
}

function resolveSdk(specifier, context, next) {
  const m = SDK_SPECIFIER.exec(specifier);
  if (!m) return next(specifier, context);
  const sub = m[1] ?? "index";
  if (sdk.real) return resolveReal(specifier, sub, context, next);
  return attempt(
    () => next(specifier, context),
    (r) => r,
    (err) => {
      const shim = path.join(sdk.shimDir, `${sub}.js`);
      if ((err?.code === "ERR_MODULE_NOT_FOUND" || err?.code === "ERR_PACKAGE_PATH_NOT_EXPORTED") && fs.existsSync(shim)) return { url: pathToFileURL(shim).href, shortCircuit: true };
      throw err;
    },
  );
}

function resolveReal(specifier, sub, context, next) {
  const parent = context.parentURL;
  return attempt(
    // From inside the cached package: its own `exports` map decides.
    () => next(specifier, { ...context, parentURL: pathToFileURL(path.join(sdk.real, "package.json")).href }),
    (r) => withHostBound(versioned(r, parent), sub),
    (err) => {
      const e = new Error(`${specifier} does not exist in openclaw@${sdk.version}, the SDK of profile ${sdk.profile} (${err?.code ?? err?.message})`);
      e.code = err?.code;
      throw e;
    },
  );
}

function withHostBound(r, sub) {
  const wanted = sdk.hostBound[sub] ?? [];
  if (!wanted.length) return { ...r, shortCircuit: true };
  let source = "";
  try {
    source = fs.readFileSync(new URL(r.url.split("?")[0]), "utf8");
  } catch {
    return { ...r, shortCircuit: true };
  }
  const have = exportedNames(source);
  const names = wanted.filter((n) => have.has(n));
  if (!names.length) return { ...r, shortCircuit: true };
  // An explicit export shadows the same name from `export *` (ECMA-262 GetExportedNames).
  const shim = pathToFileURL(path.join(sdk.shimDir, `${sub}.js`)).href;
  const src = `export * from ${JSON.stringify(r.url)};\nexport { ${names.join(", ")} } from ${JSON.stringify(shim)};\n`;
  return { url: `data:text/javascript,${encodeURIComponent(src)}`, format: "module", shortCircuit: true };
}
