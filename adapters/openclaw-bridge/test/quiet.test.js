import assert from "node:assert/strict";
import { test } from "node:test";

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { inFlightCalls, parseStat, settle, treeOf } from "../lib/quiet.js";
import { dispatchSettled, drive } from "../lib/steps.js";

/** A fake clock: `sleep` advances it by `ms` plus a scheduling delay (a starved event loop wakes late). */
function clock(lateMs = 0) {
  let t = 0;
  return { now: () => t, sleep: async (ms) => void (t += ms + lateMs) };
}

/** Samples from a script: entry i is the i-th sample, the last one repeats. */
const script = (xs) => {
  let i = 0;
  return () => xs[Math.min(i++, xs.length - 1)];
};
const idle = { size: 10, inFlight: 0, runnable: false };

test("stat lines give state, ppid and pgrp, whatever the command name holds", () => {
  assert.deepEqual(parseStat("4242 (node) S 4200 4200 4200 0 -1"), { pid: 4242, state: "S", ppid: 4200, pgrp: 4200 });
  assert.deepEqual(parseStat("7 (odd ) name) R 1 7 7 0"), { pid: 7, state: "R", ppid: 1, pgrp: 7 });
  assert.equal(parseStat(""), null);
});

test("the gateway's tree is its process group and every descendant (the engine runs in a group of its own)", () => {
  const procs = [
    { pid: 100, ppid: 1, pgrp: 100 }, // gateway
    { pid: 101, ppid: 100, pgrp: 100 }, // a child in its group
    { pid: 200, ppid: 100, pgrp: 200 }, // the engine, detached
    { pid: 201, ppid: 200, pgrp: 200 }, // the engine's child
    { pid: 300, ppid: 1, pgrp: 300 }, // someone else
    { pid: 102, ppid: 1, pgrp: 100 }, // reparented, still in the group
  ];
  assert.deepEqual(treeOf(procs, 100), [100, 101, 102, 200, 201]);
  assert.deepEqual(treeOf(procs, 999), []);
});

test("the in-flight count: no file is none, a number is itself, anything else is busy", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quiet-test-"));
  const trace = path.join(dir, "trace.ndjson");
  try {
    assert.equal(inFlightCalls(trace), 0);
    fs.writeFileSync(`${trace}.inflight`, "2\n");
    assert.equal(inFlightCalls(trace), 2);
    fs.writeFileSync(`${trace}.inflight`, "");
    assert.equal(inFlightCalls(trace), 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("an idle host is quiet after quietMs", async () => {
  const c = clock();
  const r = await settle(script([idle]), { quietMs: 500, pollMs: 100, ...c });
  assert.equal(r.reason, "quiet");
  assert.ok(r.ms >= 500 && r.ms <= 700, `ms ${r.ms}`);
});

test("a growing trace, a call in flight or a runnable thread each restart the quiet", async () => {
  for (const busy of [{ size: 11 }, { inFlight: 1 }, { runnable: true }]) {
    const c = clock();
    // Quiet for 400 ms, then busy once at 500 ms, then quiet again.
    const xs = [idle, idle, idle, idle, idle, { ...idle, ...busy }, ...Array(20).fill({ ...idle, ...busy, runnable: false, inFlight: 0 })];
    const r = await settle(script(xs), { quietMs: 500, pollMs: 100, ...c });
    assert.equal(r.reason, "quiet", JSON.stringify(busy));
    assert.ok(r.ms >= 1000, `${JSON.stringify(busy)} ended at ${r.ms} ms, before 500 ms of quiet after the busy sample`);
  }
});

test("a starved gateway keeps the quiet waiting however long the wall clock runs (the old trace-only quiet ended)", async () => {
  // 3 s of an unchanged trace while the gateway is runnable (starved of CPU), then the call lands.
  const c = clock();
  const xs = [...Array(30).fill({ ...idle, runnable: true }), { ...idle, size: 99 }, ...Array(10).fill({ ...idle, size: 99 })];
  const r = await settle(script(xs), { quietMs: 500, pollMs: 100, ...c });
  assert.equal(r.reason, "quiet");
  assert.ok(r.ms >= 3500, `ended at ${r.ms} ms`);
});

test("late wake-ups do not shorten the quiet below its sample count", async () => {
  // Each 100 ms sleep takes 1 s: the wall time passes in one sample, the samples still have to come.
  const c = clock(900);
  let n = 0;
  const r = await settle(() => (n++, idle), { quietMs: 500, pollMs: 100, ...c });
  assert.equal(r.reason, "quiet");
  assert.ok(n >= 6, `${n} samples`);
});

test("the cap and the stop condition end the wait", async () => {
  const busy = { ...idle, runnable: true };
  assert.equal((await settle(script([busy]), { quietMs: 500, maxMs: 2000, ...clock() })).reason, "max");
  let stopAt = 3;
  assert.equal((await settle(script([busy]), { quietMs: 500, stop: () => --stopAt <= 0, ...clock() })).reason, "stop");
});

test("a 2026.4.x turn asks agent.wait a second time (the send's dispatch settled); 2026.9.x does not", async () => {
  const fake = () => {
    const calls = [];
    return {
      calls,
      request: async (method, params) => {
        calls.push([method, params.runId ?? null]);
        if (method === "chat.send") return { runId: params.idempotencyKey, status: "started" };
        return { status: "ok" };
      },
    };
  };
  const step = { kind: "turn", sessionKey: "agent:main:main", message: "hi", timeoutMs: 1000 };
  const c4 = fake();
  const out4 = await drive(c4, step, 0, { release4x: true });
  assert.deepEqual(c4.calls, [["chat.send", null], ["agent.wait", "clawspec-run-1"], ["agent.wait", "clawspec-run-1"]]);
  assert.equal(out4.settled, "ok");
  const c9 = fake();
  const out9 = await drive(c9, step, 0, {});
  assert.deepEqual(c9.calls, [["chat.send", null], ["agent.wait", "clawspec-run-1"]]);
  assert.equal("settled" in out9, false);
  const cc = fake();
  const outc = await drive(cc, { ...step, kind: "command", message: "/compact" }, 2, { release4x: true });
  assert.deepEqual(cc.calls.map((x) => x[0]), ["chat.send", "agent.wait", "agent.wait"]);
  assert.equal(outc.settled, "ok");
  assert.equal(await dispatchSettled({ request: async () => ({ status: "timeout" }) }, "r", 10), "timeout");
});
