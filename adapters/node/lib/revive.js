// Protocol encodings ↔ the JS values OpenClaw passes (docs/protocol.md,
// "Encodings of non-JSON values"): availableTools array → Set;
// {"$abortSignal": id} → a real AbortSignal fired by `$/abort`;
// {"$callback": name} → a function calling `host/<name>`. `encode` is the
// inverse for values going back to the host.

const signals = new WeakMap();
/** Revived host callbacks → their protocol name, so encode() can send them back. */
const callbacks = new WeakMap();

const isOnly = (value, key) => typeof value[key] === "string" && Object.keys(value).length === 1;

export class Revival {
  /**
   * @param {(method: string, params: any) => Promise<any>} hostRequest
   * @param {() => (number | string | undefined)} currentCall the host request being handled (`forCall`)
   */
  constructor(hostRequest, currentCall = () => undefined) {
    this.hostRequest = hostRequest;
    this.currentCall = currentCall;
    /** @type {Map<string, AbortController>} */
    this.controllers = new Map();
  }

  /** `$/abort {signal, reason}`: fire the revived signal (an unknown id is remembered, in case it arrives first). */
  abort(id, reason) {
    if (typeof id !== "string") return;
    const c = this.controller(id);
    if (!c.signal.aborted) c.abort(Object.assign(new Error(reason ?? "aborted"), { name: "AbortError" }));
  }

  controller(id) {
    let c = this.controllers.get(id);
    if (!c) {
      c = new AbortController();
      this.controllers.set(id, c);
      signals.set(c.signal, id);
    }
    return c;
  }

  revive(value, key) {
    if (Array.isArray(value)) {
      const arr = value.map((v) => this.revive(v));
      return key === "availableTools" ? new Set(arr) : arr;
    }
    if (value && typeof value === "object") {
      if (isOnly(value, "$abortSignal")) return this.controller(value.$abortSignal).signal;
      if (isOnly(value, "$callback")) {
        const name = value.$callback;
        const fn = async (params) => {
          const forCall = name === "llm.complete" ? this.currentCall() : undefined;
          return this.hostRequest(`host/${name}`, { ...(forCall !== undefined ? { forCall } : {}), ...encode(params ?? {}) });
        };
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

/** JS values → protocol JSON (inverse of revive; other functions are dropped, as JSON.stringify does). */
export function encode(value) {
  if (value instanceof Set) return [...value].map(encode);
  if (value instanceof AbortSignal) {
    const id = signals.get(value);
    return id ? { $abortSignal: id } : undefined;
  }
  if (Array.isArray(value)) return value.map((v) => encode(v) ?? null);
  if (typeof value === "function") return callbacks.has(value) ? { $callback: callbacks.get(value) } : undefined;
  if (value && typeof value === "object" && typeof value.toJSON !== "function") {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const e = encode(v);
      if (e !== undefined) out[k] = e;
    }
    return out;
  }
  return value;
}
