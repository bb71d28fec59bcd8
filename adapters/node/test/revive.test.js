import assert from "node:assert/strict";
import { test } from "node:test";

import { encode, Revival } from "../lib/revive.js";

test("availableTools arrays become Sets, other arrays stay arrays", () => {
  const v = new Revival(async () => ({})).revive({ availableTools: ["a", "b"], messages: [{ content: ["x"] }] });
  assert.ok(v.availableTools instanceof Set);
  assert.deepEqual([...v.availableTools], ["a", "b"]);
  assert.ok(Array.isArray(v.messages) && Array.isArray(v.messages[0].content));
});

test("$abortSignal becomes a real AbortSignal fired by $/abort, also when the abort came first", () => {
  const r = new Revival(async () => ({}));
  const a = r.revive({ abortSignal: { $abortSignal: "sig-1" } }).abortSignal;
  assert.ok(a instanceof AbortSignal && !a.aborted);
  let fired = 0;
  a.addEventListener("abort", () => fired++);
  r.abort("sig-1", "timeout");
  r.abort("sig-1", "again");
  assert.equal(fired, 1);
  assert.equal(a.reason.name, "AbortError");
  assert.equal(a.reason.message, "timeout");
  r.abort("sig-2");
  assert.ok(r.revive({ $abortSignal: "sig-2" }).aborted);
});

test("objects that merely contain $-keys among others are left alone", () => {
  const v = new Revival(async () => ({})).revive({ x: { $abortSignal: "s", other: 1 }, y: { $callback: "llm.complete", more: true } });
  assert.deepEqual(v, { x: { $abortSignal: "s", other: 1 }, y: { $callback: "llm.complete", more: true } });
});

test("$callback becomes a function calling host/<name>; llm.complete carries forCall", async () => {
  const calls = [];
  const r = new Revival(async (m, p) => (calls.push([m, p]), { text: "x" }), () => 7);
  const v = r.revive({ runtimeContext: { llm: { complete: { $callback: "llm.complete" } }, rewriteTranscriptEntries: { $callback: "rewriteTranscriptEntries" } } });
  assert.deepEqual(await v.runtimeContext.llm.complete({ messages: [] }), { text: "x" });
  await v.runtimeContext.rewriteTranscriptEntries({ replacements: [] });
  assert.deepEqual(calls, [
    ["host/llm.complete", { forCall: 7, messages: [] }],
    ["host/rewriteTranscriptEntries", { replacements: [] }],
  ]);
});

test("encode is the inverse of revive", () => {
  const wire = { availableTools: ["a", "b"], abortSignal: { $abortSignal: "sig-9" }, runtimeContext: { llm: { complete: { $callback: "llm.complete" } } }, n: 1, s: "t", nested: [{ ok: true }] };
  assert.deepEqual(encode(new Revival(async () => ({})).revive(wire)), wire);
});

test("encode drops plain functions and foreign signals like JSON.stringify", () => {
  assert.deepEqual(encode({ f() {}, s: new AbortController().signal, a: [() => 1], d: new Date(0) }), { a: [null], d: new Date(0) });
});
