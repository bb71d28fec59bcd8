import assert from "node:assert/strict";
import { test } from "node:test";

import { CallEncoding } from "../lib/encode.js";

const fresh = () => {
  let n = 0;
  return new CallEncoding(() => `sig-${++n}`);
};

test("host values become the protocol encodings the reference runtime sends", () => {
  const enc = fresh();
  const complete = async () => ({ text: "s" });
  const rewrite = async () => ({});
  const signal = new AbortController().signal;
  const out = enc.encode({
    sessionId: "s1",
    availableTools: new Set(["read", "exec"]),
    abortSignal: signal,
    runtimeContext: { llm: { complete }, rewriteTranscriptEntries: rewrite, other: () => 1, skip: undefined },
    n: Number.NaN,
  });
  assert.deepEqual(out, {
    sessionId: "s1",
    availableTools: ["read", "exec"],
    abortSignal: { $abortSignal: "sig-1" },
    runtimeContext: { llm: { complete: { $callback: "llm.complete" } }, rewriteTranscriptEntries: { $callback: "rewriteTranscriptEntries" } },
    n: null,
  });
  assert.equal(enc.callbacks.get("llm.complete"), complete);
  assert.equal(enc.callbacks.get("rewriteTranscriptEntries"), rewrite);
  assert.equal(enc.signals[0].signal, signal);
});

test("a function that is not a protocol callback is dropped, as JSON.stringify drops it", () => {
  assert.deepEqual(fresh().encode({ complete: () => 1, nested: { llm: { other: () => 2 } } }), { nested: { llm: {} } });
});

test("encoding is stable: the same params twice give the same JSON", () => {
  const params = () => ({ messages: [{ role: "user", content: "hi", timestamp: 1 }], availableTools: new Set(["a"]) });
  assert.equal(JSON.stringify(fresh().encode(params())), JSON.stringify(fresh().encode(params())));
});
