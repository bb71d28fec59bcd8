// Protocol encodings → the JS values OpenClaw passes (docs/protocol.md):
// availableTools array → Set; {"$abortSignal": id} → a real AbortSignal fired
// by `$/abort`; {"$callback": name} → a function calling `host/<name>`.
// `encode` does the reverse for values sent back to the host.

const signals = new WeakMap();
/** Revived host callbacks → their protocol name, so encode() can send them back. */
const callbacks = new WeakMap();

export class Revival {
  /** @param {(method: string, params: any) => Promise<any>} hostRequest */
  constructor(hostRequest) {
    this.hostRequest = hostRequest;
    /** @type {Map<string, AbortController>} */
    this.controllers = new Map();
  }

  abort(id, reason) {
    const c = this.controllers.get(id);
    if (c && !c.signal.aborted) c.abort(Object.assign(new Error(reason ?? "aborted"), { name: "AbortError" }));
  }

  revive(value, key) {
    if (Array.isArray(value)) {
      const arr = value.map((v) => this.revive(v));
      return key === "availableTools" ? new Set(arr) : arr;
    }
    if (value && typeof value === "object") {
      if (typeof value.$abortSignal === "string" && Object.keys(value).length === 1) {
        const id = value.$abortSignal;
        let c = this.controllers.get(id);
        if (!c) {
          c = new AbortController();
          this.controllers.set(id, c);
          signals.set(c.signal, id);
        }
        return c.signal;
      }
      if (typeof value.$callback === "string" && Object.keys(value).length === 1) {
        const name = value.$callback;
        const fn = async (params) => this.hostRequest(`host/${name}`, encode(params ?? {}));
        callbacks.set(fn, name);
        return fn;
      }
      const out = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.revive(v, k);
      return out;
    }
    return value;
  }
}

/** JS values → protocol JSON (inverse of revive; functions are dropped). */
export function encode(value) {
  if (value instanceof Set) return [...value].map(encode);
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) {
    const id = signals.get(value);
    return id ? { $abortSignal: id } : undefined;
  }
  if (Array.isArray(value)) return value.map(encode);
  if (typeof value === "function") return callbacks.has(value) ? { $callback: callbacks.get(value) } : undefined;
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const e = encode(v);
      if (e !== undefined) out[k] = e;
    }
    return out;
  }
  return value;
}
