// Warm reuse (docs/protocol.md, "Warm reuse"): one adapter process serves
// many runs, each with a fresh engine instance. What a fresh process would
// give a run and how it is restored here:
// - the plugin's modules, its dependencies and the SDK's: imported again
//   under a new `?clawspec-run=N` (hooks.mjs carries it from parent to
//   child, so every module of the graph is a new instance; CommonJS modules
//   are dropped from require.cache);
// - globalThis: properties added since the adapter started are deleted (the
//   OpenClaw SDK keeps its singletons under Symbol.for keys there);
// - process.env, cwd, process listeners: back to the adapter's baseline,
//   then the run's variables and isolation;
// - timers (setTimeout/setInterval/setImmediate, also through node:timers)
//   a run started are cleared;
// - Math.random / crypto.randomUUID: seeded again.
// What cannot be restored in-process (native handles an old instance keeps
// open, a plugin loaded through jiti with its own module cache) makes the
// adapter answer `warm: false`, and clawspec then starts a fresh process per
// run.
import module from "node:module";
import timers from "node:timers";
import { fileURLToPath } from "node:url";

export const RUN_PARAM = "clawspec-run";
const RUN_QUERY = new RegExp(`\\?${RUN_PARAM}=\\d+`, "g");
/** The adapter's own files (its lib and shims), shared by every run. */
const ADAPTER_DIRS = [fileURLToPath(new URL("./", import.meta.url)), fileURLToPath(new URL("../shims/", import.meta.url))];

/** Remove the per-run module version from text a trace may show (stacks, messages). */
export function unversioned(text) {
  return typeof text === "string" ? text.replace(RUN_QUERY, "") : text;
}

/** The state a run may change that a fresh process would not carry over. */
export class Baseline {
  constructor() {
    this.globals = new Set(Reflect.ownKeys(globalThis));
    this.env = { ...process.env };
    /** @type {Map<string | symbol, Function[]>} */
    this.listeners = new Map(process.eventNames().map((n) => [n, process.rawListeners(n)]));
    /** @type {Map<any, Function>} live timers of the current run → their clear function */
    this.timers = new Map();
    this.run = 0;
    this.#trackTimers();
  }

  /** Wrap the timer functions (global and node:timers) so a run's timers can be cleared. */
  #trackTimers() {
    const live = this.timers;
    const pairs = [
      ["setTimeout", "clearTimeout", true],
      ["setInterval", "clearInterval", false],
      ["setImmediate", "clearImmediate", true],
    ];
    for (const [make, clear, once] of pairs) {
      const create = globalThis[make];
      const cancel = globalThis[clear];
      const tracked = function (callback, ...rest) {
        if (typeof callback !== "function") return create.call(this, callback, ...rest);
        let t;
        // A one-shot timer forgets itself when it fires, so the map stays small.
        const run = once
          ? function (...a) {
              live.delete(t);
              return callback.apply(this, a);
            }
          : callback;
        t = create.call(this, run, ...rest);
        live.set(t, cancel);
        return t;
      };
      const untracked = function (t) {
        live.delete(t);
        return cancel.call(this, t);
      };
      globalThis[make] = timers[make] = tracked;
      globalThis[clear] = timers[clear] = untracked;
    }
    module.syncBuiltinESMExports();
    this.globals = new Set(Reflect.ownKeys(globalThis));
  }

  /** Start run N: everything the previous run changed is undone. */
  next() {
    this.run += 1;
    if (this.run === 1) return this.run;
    for (const [t, clear] of this.timers) clear(t);
    this.timers.clear();
    for (const k of Reflect.ownKeys(globalThis)) {
      if (!this.globals.has(k)) {
        try {
          delete globalThis[k];
        } catch {
          /* non-configurable: left, see the docs */
        }
      }
    }
    for (const n of process.eventNames()) {
      const keep = this.listeners.get(n) ?? [];
      for (const l of process.rawListeners(n)) if (!keep.includes(l)) process.removeListener(n, l);
    }
    for (const k of Object.keys(process.env)) if (!(k in this.env)) delete process.env[k];
    Object.assign(process.env, this.env);
    const req = module.createRequire(import.meta.url);
    for (const file of Object.keys(req.cache)) if (!ADAPTER_DIRS.some((d) => file.startsWith(d))) delete req.cache[file];
    return this.run;
  }
}
