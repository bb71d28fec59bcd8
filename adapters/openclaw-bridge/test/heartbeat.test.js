import assert from "node:assert/strict";
import { test } from "node:test";

import { finishedRun, heartbeat, monitorJob } from "../lib/heartbeat.js";
import { drive } from "../lib/steps.js";

/** A client that records requests and answers from a table (a function answers per call). */
function fakeClient(answers) {
  const calls = [];
  return {
    calls,
    async request(method, params) {
      calls.push({ method, params });
      const a = answers[method];
      return typeof a === "function" ? a(params, calls) : a;
    },
  };
}

const step = { kind: "heartbeat", step: 0, agentId: "main", sessionKey: "agent:main:main", timeoutMs: 2000 };
const monitor = { id: "hb-1", agentId: "main", payload: { kind: "heartbeat" }, name: "heartbeat-main" };

test("the monitor job is the heartbeat-payload job of the agent", () => {
  const other = { id: "dream", agentId: "main", payload: { kind: "agentTurn" } };
  assert.equal(monitorJob({ jobs: [other, monitor] }, "main"), monitor);
  assert.equal(monitorJob({ jobs: [other, { ...monitor, agentId: "ops" }] }, "main"), null);
  assert.equal(monitorJob({ jobs: [] }, "main"), null);
});

test("a finished run is the run id's row with a status", () => {
  assert.equal(finishedRun({ entries: [{ runId: "r-1" }] }, "r-1"), null, "no status yet");
  assert.deepEqual(finishedRun({ entries: [{ runId: "r-0", status: "ok" }, { runId: "r-1", status: "skipped" }] }, "r-1"), { runId: "r-1", status: "skipped" });
});

test("a heartbeat waits for the monitor row, force-runs it and polls its run to the end", async () => {
  let lists = 0;
  let polls = 0;
  const c = fakeClient({
    // The gateway writes the monitor row when its automation service starts.
    "cron.list": () => ({ jobs: ++lists < 3 ? [] : [monitor] }),
    "cron.run": { ok: true, enqueued: true, runId: "run-9" },
    "cron.runs": () => ({ entries: ++polls < 2 ? [] : [{ runId: "run-9", status: "ok", summary: "heartbeat completed" }] }),
  });
  const out = await drive(c, step, 0);
  assert.deepEqual(out, { heartbeat: { status: "ok", error: null, summary: "heartbeat completed", sessionKey: null }, hostRun: true });
  const run = c.calls.find((x) => x.method === "cron.run");
  assert.deepEqual(run.params, { id: "hb-1", mode: "force" });
  assert.deepEqual(c.calls.filter((x) => x.method === "cron.runs").at(-1).params, { id: "hb-1", runId: "run-9", limit: 5 });
  assert.equal(lists, 3);
});

test("a skipped poll is reported, not hidden", async () => {
  const c = fakeClient({ "cron.list": { jobs: [monitor] }, "cron.run": { ok: true, runId: "r" }, "cron.runs": { entries: [{ runId: "r", status: "skipped", error: "heartbeat skipped: no-route" }] } });
  const out = await heartbeat(c, step, 0);
  assert.equal(out.heartbeat.status, "skipped");
  assert.match(out.heartbeat.error, /no-route/);
});

test("no monitor job, no queued run, or no end within the step's time are errors naming the step", async () => {
  const short = { ...step, timeoutMs: 30 };
  await assert.rejects(heartbeat(fakeClient({ "cron.list": { jobs: [] } }), short, 0, { pollMs: 5 }), /step 0: no heartbeat monitor job for agent main/);
  await assert.rejects(heartbeat(fakeClient({ "cron.list": { jobs: [monitor] }, "cron.run": { ok: true, ran: false, reason: "invalid-spec" } }), short, 0), /queued no run/);
  await assert.rejects(heartbeat(fakeClient({ "cron.list": { jobs: [monitor] }, "cron.run": { runId: "r" }, "cron.runs": { entries: [] } }), short, 0, { pollMs: 5 }), /did not finish within 30 ms/);
});

test("2026.4.x: the tick a step waits for is the first heartbeat event after the patch that ran or ended for good", async () => {
  const { tickAfter } = await import("../lib/heartbeat.js");
  assert.equal(tickAfter(null, 10), null);
  assert.equal(tickAfter({ ts: 9, status: "ok-token" }, 10), null, "an earlier tick");
  assert.equal(tickAfter({ ts: 11, status: "skipped", reason: "requests-in-flight" }, 10), null, "retried by the runner");
  assert.deepEqual(tickAfter({ ts: 11, status: "ok-token" }, 10), { ts: 11, status: "ok-token" });
  assert.equal(tickAfter({ ts: 12, status: "skipped", reason: "empty-heartbeat-file" }, 10).reason, "empty-heartbeat-file");
});

test("2026.4.x: the cadence is restored when the tick's run starts, before its heartbeat event", async () => {
  const { HostRuns } = await import("../lib/runs.js");
  const writes = [];
  let file = JSON.stringify({ agents: { defaults: { heartbeat: { every: "24h", target: "none" } } } });
  const fs = { readFileSync: () => file, writeFileSync: (_p, text) => { file = text; writeseen(JSON.parse(text).agents.defaults.heartbeat.every); } };
  const writeseen = (every) => writes.push(every);
  const runs = new HostRuns();
  let polls = 0;
  const c = {
    runs,
    async request(method) {
      assert.equal(method, "last-heartbeat");
      polls += 1;
      if (polls === 2) {
        // The tick's run starts: the cadence goes back at once, while it runs.
        runs.observe({ type: "event", event: "agent", payload: { runId: "hb-run", sessionKey: "agent:main:main" } });
        assert.deepEqual(writes, ["10s", "24h"]);
      }
      return polls < 4 ? null : { ts: Date.now() + 1, status: "ok-token", reason: "interval" };
    },
  };
  const out = await heartbeat(c, { ...step, every: "10s", restoreEvery: "24h" }, 0, { pollMs: 1, fs, configPath: "/cfg" });
  assert.equal(out.heartbeat.status, "ok-token");
  assert.deepEqual(writes, ["10s", "24h"], "restored once");
  assert.ok(runs.claimed.has("hb-run"), "the heartbeat's run is nobody else's");
  assert.equal(runs.waiters.length, 0, "no watcher outlives the step");
  assert.equal(JSON.parse(file).agents.defaults.heartbeat.target, "none");
});
