import assert from "node:assert/strict";
import { test } from "node:test";

import { byHold, RELEASE_PATH, runInFlight, steerQueueConfig, WAIT_PATH } from "../lib/in-flight.js";
import { drive } from "../lib/steps.js";

/** A client and hold front that log, in one sequence, what the driver did. */
function world(answers = {}) {
  const log = [];
  const client = {
    async request(method, params) {
      log.push(`${method}${params.queueMode ? `:${params.queueMode}` : ""}${params.message ? ` ${params.message}` : ""}`);
      const a = answers[method];
      return typeof a === "function" ? a(params) : a;
    },
  };
  const control = async (base, path, body) => {
    log.push(`${path === WAIT_PATH ? "wait" : path === RELEASE_PATH ? "release" : path} ${body.hold}`);
    if (answers.failWait && path === WAIT_PATH) throw new Error("hold front: held call did not arrive");
    return {};
  };
  return { log, client, control };
}

const step = (inFlight) => ({ kind: "turn", step: 0, sessionKey: "agent:main:main", message: "go", timeoutMs: 1000, inFlight });

test("actions are grouped by the call they wait for, in plan order", () => {
  const g = byHold([{ hold: 1, action: "steer", message: "a" }, { hold: 1, action: "steer", message: "b" }, { hold: 2, action: "abort" }]);
  assert.deepEqual(g.map(([h, a]) => [h, a.length]), [[1, 2], [2, 1]]);
});

test("a steer waits for its held call, is acknowledged, then the call is released; then the run is waited for", async () => {
  const w = world({ "chat.send": (p) => ({ runId: p.queueMode ? "r-1" : "r-1", status: p.queueMode ? "ok" : "started" }), "agent.wait": { status: "ok" } });
  const out = await drive(w.client, step([{ action: "steer", hold: 1, message: "Ignore vendor/" }]), 0, { holdUrl: "http://front", control: w.control });
  assert.deepEqual(w.log, ["chat.send go", "wait 1", "chat.send:steer Ignore vendor/", "release 1", "agent.wait"]);
  assert.deepEqual(out.inFlight, [{ action: "steer", hold: 1, status: "ok" }]);
});

test("an abort targets the turn's run and releases the held call afterwards", async () => {
  const seen = [];
  const w = world({ "chat.send": { runId: "r-9", status: "started" }, "chat.abort": (p) => (seen.push(p), { aborted: true }), "agent.wait": { status: "ok" } });
  const out = await drive(w.client, step([{ action: "abort", hold: 3 }]), 0, { holdUrl: "http://front", control: w.control });
  assert.deepEqual(w.log, ["chat.send go", "wait 3", "chat.abort", "release 3", "agent.wait"]);
  assert.deepEqual(seen, [{ sessionKey: "agent:main:main", runId: "r-9" }]);
  assert.deepEqual(out.inFlight, [{ action: "abort", hold: 3, aborted: true }]);
});

test("a steer that started its own run (the session was idle) is waited for too", async () => {
  const w = world({ "chat.send": (p) => ({ runId: p.idempotencyKey, status: "started" }), "agent.wait": { status: "ok" } });
  await drive(w.client, step([{ action: "steer", hold: 1, message: "late" }]), 0, { holdUrl: "http://front", control: w.control });
  assert.deepEqual(w.log.filter((l) => l.startsWith("agent.wait")).length, 2);
});

test("a held call that never arrives fails the step, and without a hold front in-flight steps refuse to run", async () => {
  const w = world({ "chat.send": { runId: "r", status: "started" }, failWait: true });
  await assert.rejects(drive(w.client, step([{ action: "abort", hold: 1 }]), 0, { holdUrl: "http://front", control: w.control }), /did not arrive/);
  assert.deepEqual(w.log, ["chat.send go", "wait 1"], "no action and no release for a call that never came");
  await assert.rejects(runInFlight(w.client, step([{ action: "abort", hold: 1 }]), "r", 0, {}), /hold front/);
});

test("2026.4.x steers with a plain chat.send and the configured steer queue mode; 2026.9 with the send's queueMode", async () => {
  const w = world({ "chat.send": (p) => ({ runId: p.idempotencyKey, status: "started" }), "agent.wait": { status: "ok" } });
  await drive(w.client, step([{ action: "steer", hold: 1, message: "Ignore vendor/" }]), 0, { holdUrl: "http://front", control: w.control, release4x: true });
  // The steer's own dispatch settles while the call is still held (4.26 decides after answering the send).
  // The turn's own agent.wait, then (2026.4.x) its dispatch-settled agent.wait (lib/steps.js dispatchSettled).
  assert.deepEqual(w.log, ["chat.send go", "wait 1", "chat.send Ignore vendor/", "agent.wait", "release 1", "agent.wait", "agent.wait"]);
  const plan = { steps: [step([{ action: "steer", hold: 1, message: "x" }])] };
  assert.deepEqual(steerQueueConfig(plan, true, { ackReaction: "👀" }), { messages: { ackReaction: "👀", queue: { mode: "steer" } } });
  assert.deepEqual(steerQueueConfig(plan, false), {}, "2026.9 steers per send");
  assert.deepEqual(steerQueueConfig({ steps: [step([{ action: "abort", hold: 1 }])] }, true), {}, "no steer, no queue mode");
});
