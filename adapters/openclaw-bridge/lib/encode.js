// The real host's JS values → protocol v1 JSON, exactly as docs/protocol.md
// ("Encodings of non-JSON values") says the reference runtime sends them, so
// a call recorded here and one recorded by the reference runtime compare
// byte for byte: Set → array (insertion order), AbortSignal →
// {"$abortSignal": "sig-<n>"}, runtimeContext.llm.complete /
// rewriteTranscriptEntries → {"$callback": name}; any other function, and
// `undefined`, are dropped as JSON.stringify drops them.

const CALLBACKS = new Map([
  ["llm.complete", (path) => path.at(-1) === "complete" && path.at(-2) === "llm"],
  ["rewriteTranscriptEntries", (path) => path.at(-1) === "rewriteTranscriptEntries"],
]);

export class CallEncoding {
  /** @param {() => string} nextSignalId */
  constructor(nextSignalId) {
    this.nextSignalId = nextSignalId;
    /** @type {Map<string, Function>} protocol callback name → the host's function */
    this.callbacks = new Map();
    /** @type {Array<{id: string, signal: AbortSignal}>} */
    this.signals = [];
  }

  encode(value, path = []) {
    if (value === undefined || typeof value === "symbol") return undefined;
    if (typeof value === "function") {
      for (const [name, matches] of CALLBACKS) {
        if (matches(path)) {
          this.callbacks.set(name, value);
          return { $callback: name };
        }
      }
      return undefined;
    }
    if (typeof value === "bigint") return Number(value);
    if (typeof value === "number" && !Number.isFinite(value)) return null;
    if (value === null || typeof value !== "object") return value;
    if (value instanceof Set) return [...value].map((v, i) => this.encode(v, [...path, String(i)]) ?? null);
    if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) {
      const id = this.nextSignalId();
      this.signals.push({ id, signal: value });
      return { $abortSignal: id };
    }
    if (value instanceof Date) return value.toJSON();
    if (Array.isArray(value)) return value.map((v, i) => this.encode(v, [...path, String(i)]) ?? null);
    if (value instanceof Map) return undefined;
    if (typeof value.toJSON === "function") return value.toJSON();
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const e = this.encode(v, [...path, k]);
      if (e !== undefined) out[k] = e;
    }
    return out;
  }
}
