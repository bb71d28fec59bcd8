// `messageDelta` (docs/protocol.md, "Message deltas"): the host may send a
// request's top-level `params.messages` as
//   {"$delta": {"base": <request id>, "keep": K, "append": [...]}}
// = the first K messages of the array request `base` carried, then `append`.
// The adapter rebuilds the full array before anything else sees the params,
// so plugins get exactly what they would without it (revive() then copies
// every message, so a plugin mutating one never changes what is remembered).
// Port of harness/src/driver/delta.rs `Decoder`.

export const CAPABILITY = "messageDelta";
export const VERSION = 1;
export const KEY = "$delta";

const isEncoded = (m) => m !== null && typeof m === "object" && !Array.isArray(m) && Object.keys(m).length === 1 && KEY in m;

export class DeltaDecoder {
  constructor() {
    /** method → the latest request of that method that carried messages. @type {Map<string, {id: unknown, messages: unknown[]}>} */
    this.slots = new Map();
  }

  /**
   * Rebuild `frame.params.messages` in place and remember it. Throws an Error
   * naming the violation for a delta that does not decode.
   * @param {{id: unknown, method: string, params?: any}} frame
   */
  decode(frame) {
    const p = frame.params;
    if (!p || typeof p !== "object" || Array.isArray(p)) return;
    if (isEncoded(p.messages)) p.messages = this.rebuild(p.messages[KEY]);
    if (Array.isArray(p.messages)) this.slots.set(frame.method, { id: frame.id, messages: p.messages });
  }

  rebuild(d) {
    if (!d || typeof d !== "object" || Array.isArray(d)) throw new Error(`${KEY} must be an object`);
    const { base, keep, append } = d;
    if (!Number.isSafeInteger(keep) || keep < 0) throw new Error(`${KEY}.keep must be a non-negative integer`);
    if (!Array.isArray(append)) throw new Error(`${KEY}.append must be an array`);
    const slot = [...this.slots.values()].find((s) => s.id === base);
    if (!slot) throw new Error(`${KEY}.base ${JSON.stringify(base)} is not the latest request of its method that carried messages`);
    if (keep > slot.messages.length) throw new Error(`${KEY}.keep ${keep} exceeds the ${slot.messages.length} messages of request ${JSON.stringify(base)}`);
    return slot.messages.slice(0, keep).concat(append);
  }
}

/** Did the host offer the encoding in `initialize`? */
export const offered = (params) => params?.offers?.[CAPABILITY] === VERSION;
