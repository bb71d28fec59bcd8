// messageDelta (docs/protocol.md, "Message deltas"): the decoder against a
// port of the host's encoder (harness/src/driver/delta.rs) over random call
// sequences, and end to end through the adapter process.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DeltaDecoder } from "../lib/delta.js";
import { host, INIT, plugin } from "./host.js";

const msg = (n) => ({ role: n % 2 ? "assistant" : "user", content: `message ${n}`, timestamp: n });
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The host's half, as in harness/src/driver/delta.rs `Encoder`. */
class Encoder {
  slots = new Map();
  encode(id, method, messages) {
    let best = { keep: 0, base: undefined };
    for (const s of this.slots.values()) {
      let k = 0;
      while (k < s.messages.length && k < messages.length && same(s.messages[k], messages[k])) k++;
      if (k > best.keep || (k === best.keep && k > 0 && s.id > best.base)) best = { keep: k, base: s.id };
    }
    this.slots.set(method, { id, messages });
    return best.keep > 0 ? { $delta: { base: best.base, keep: best.keep, append: messages.slice(best.keep) } } : messages;
  }
}

/** A seeded generator, so a failure reproduces. */
function rng(seed) {
  let s = seed >>> 0;
  return (n) => ((s = (s * 1664525 + 1013904223) >>> 0) % n);
}

test("decoded params equal full params for random call sequences", () => {
  const methods = ["assemble", "afterTurn", "commitTurn", "ingestBatch"];
  for (let seed = 1; seed <= 200; seed++) {
    const r = rng(seed);
    const enc = new Encoder();
    const dec = new DeltaDecoder();
    let history = [];
    for (let id = 1; id <= 30; id++) {
      const method = methods[r(4)];
      const params = { sessionId: "s", tokenBudget: 9 };
      if (r(8) > 0) {
        const fresh = Array.from({ length: r(6) }, () => msg(r(12)));
        history = history.concat(fresh.slice(0, 2));
        params.messages = r(2) ? history.concat(fresh) : fresh;
      }
      const wire = JSON.parse(JSON.stringify({ ...params, ...(params.messages ? { messages: enc.encode(id, method, params.messages) } : {}) }));
      dec.decode({ id, method, params: wire });
      assert.deepEqual(wire, params, `seed ${seed}, request ${id}`);
    }
  }
});

test("a delta that does not decode is named", () => {
  const dec = new DeltaDecoder();
  dec.decode({ id: 1, method: "assemble", params: { messages: [msg(1), msg(2)] } });
  for (const [bad, why] of [
    [{ base: 7, keep: 1, append: [] }, /base 7/],
    [{ base: 1, keep: 3, append: [] }, /exceeds the 2 messages/],
    [{ base: 1, keep: -1, append: [] }, /keep must be/],
    [{ base: 1, keep: 1 }, /append must be/],
  ]) {
    assert.throws(() => dec.decode({ id: 2, method: "afterTurn", params: { messages: { $delta: bad } } }), why);
  }
  const other = { messages: { $delta: 1, x: 2 } };
  dec.decode({ id: 3, method: "assemble", params: other });
  assert.deepEqual(other, { messages: { $delta: 1, x: 2 } }, "not an encoding: passed through");
});

test("end to end: accepted when offered, full arrays rebuilt, plugin mutations do not leak", async () => {
  const h = host(plugin("mutator/index.js"));
  const init = await h.call("initialize", { ...INIT, offers: { ...INIT.offers, messageDelta: 1 } });
  assert.equal(init.result.messageDelta, 1, JSON.stringify(init));
  const ms = [msg(0), msg(1), msg(2)];
  const first = await h.call("assemble", { sessionId: "s", messages: ms });
  assert.deepEqual(first.result.messages, ms);
  // afterTurn (id 3) reverses its array in place; the remembered one must not change.
  await h.call("afterTurn", { sessionId: "s", messages: { $delta: { base: 2, keep: 3, append: [msg(3)] } }, prePromptMessageCount: 3 });
  const second = await h.call("assemble", { sessionId: "s", messages: { $delta: { base: 3, keep: 4, append: [msg(4)] } } });
  assert.deepEqual(second.result.messages, [...ms, msg(3), msg(4)]);
  const bad = await h.call("assemble", { sessionId: "s", messages: { $delta: { base: 99, keep: 1, append: [] } } });
  assert.equal(bad.error.code, -32602);
  assert.match(bad.error.message, /bad message delta: .*base 99/);
  assert.equal(await h.close(), 0);
});

test("end to end: not offered, not accepted, nothing decoded", async () => {
  const h = host(plugin("legacy/index.js"));
  const init = await h.call("initialize", INIT);
  assert.equal(init.result.messageDelta, undefined);
  const odd = { $delta: { base: 1, keep: 0, append: [] } };
  const r = await h.call("assemble", { sessionId: "s", messages: odd });
  assert.deepEqual(r.result.messages, odd, "an engine that did not accept sees the params as sent");
  assert.equal(await h.close(), 0);
});
