import assert from "node:assert/strict";
import { test } from "node:test";

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { HostRuns, awaitCall, awaitCommandDispose, calls as callsOf, engineHas, runOf } from "../lib/runs.js";
import { announcedChild, drive } from "../lib/steps.js";

const agentEvent = (runId, sessionKey, extra = {}) => ({ type: "event", event: "agent", payload: { runId, sessionKey, stream: "lifecycle", data: { phase: "start" }, ...extra } });

test("only agent events with a run id and a session key name a run", () => {
  assert.deepEqual(runOf(agentEvent("r1", "agent:main:main")), { runId: "r1", sessionKey: "agent:main:main" });
  assert.equal(runOf({ type: "event", event: "chat", payload: { runId: "r1", sessionKey: "agent:main:main" } }), null);
  assert.equal(runOf({ type: "event", event: "agent", payload: { runId: "r1" } }), null);
  assert.equal(runOf({ type: "event", event: "tick", payload: {} }), null);
});

test("the next host run of a session skips the runs the runner claimed and other sessions' runs", async () => {
  const runs = new HostRuns();
  runs.claim("clawspec-run-1");
  runs.observe(agentEvent("clawspec-run-1", "agent:main:main"));
  runs.observe(agentEvent("child-run", "agent:main:subagent:abc"));
  const waiting = runs.next("agent:main:main", 1000);
  runs.observe(agentEvent("announce:v1:agent:main:subagent:abc:child-run", "agent:main:main"));
  assert.equal(await waiting, "announce:v1:agent:main:subagent:abc:child-run");
  // Claimed once: a second wait needs another run.
  await assert.rejects(runs.next("agent:main:main", 20), /no host-started run in session agent:main:main within 20 ms/);
});

test("a run seen before the wait starts is found at once", async () => {
  const runs = new HostRuns();
  runs.observe(agentEvent("early", "agent:main:main"));
  runs.observe(agentEvent("early", "agent:main:main", { stream: "assistant" }));
  assert.equal(await runs.next("agent:main:main", 10), "early");
});

test("awaitRun agent.waits the host's run; turns claim theirs", async () => {
  const calls = [];
  const client = {
    runs: new HostRuns(),
    async request(method, params) {
      calls.push({ method, params });
      if (method === "chat.send") {
        client.runs.observe(agentEvent(params.idempotencyKey, params.sessionKey));
        return { runId: params.idempotencyKey, status: "started" };
      }
      return { status: "ok" };
    },
  };
  await drive(client, { kind: "turn", sessionKey: "agent:main:main", message: "go", timeoutMs: 1000 }, 0);
  client.runs.observe(agentEvent("announce-1", "agent:main:main"));
  const out = await drive(client, { kind: "awaitRun", sessionKey: "agent:main:main", timeoutMs: 1000 }, 1);
  assert.deepEqual(out, { wait: "ok", error: null, hostRun: true });
  assert.deepEqual(calls.at(-1), { method: "agent.wait", params: { runId: "announce-1", timeoutMs: 1000 } });
});

test("an announce run names the child it reports, and the step it belongs to is marked", async () => {
  const marks = [];
  const client = { runs: new HostRuns(), request: async () => ({ status: "ok" }) };
  const child = "agent:main:subagent:0f5a5ccc-624e-4c04-9c96-7e7bad0fc8a8";
  client.runs.observe(agentEvent(`announce:v1:${child}:dad9224e-c747-4022-88dc-424d458da1c3`, "agent:main:main"));
  const out = await drive(client, { kind: "awaitRun", step: 3, sessionKey: "agent:main:main", timeoutMs: 1000 }, 1, { mark: (m) => marks.push(m) });
  assert.equal(out.child, child);
  assert.deepEqual(marks, [{ kind: "hostRun", step: 3, sessionKey: child, runId: `announce:v1:${child}:dad9224e-c747-4022-88dc-424d458da1c3` }]);
  assert.equal(announcedChild("clawspec-run-1"), null);
  assert.equal(announcedChild("announce:v1:agent:ops:subagent:7:r"), "agent:ops:subagent:7");
});

test("the event log is bounded", () => {
  const logged = [];
  const runs = new HostRuns({ log: (e) => logged.push(e), maxLogged: 2 });
  for (let i = 0; i < 5; i++) runs.observe({ type: "event", event: "tick", payload: { ts: i } });
  assert.equal(logged.length, 2);
});

test("awaitRun waits for the host's follow-up call (onSubagentEnded) when the engine implements it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "runs-test-"));
  const trace = path.join(dir, "trace.ndjson");
  const write = (r) => fs.appendFileSync(trace, `${JSON.stringify(r)}\n`);
  write({ kind: "initialize", methods: ["bootstrap", "onSubagentEnded", "dispose"] });
  write({ kind: "call", seq: 1, method: "onSubagentEnded", params: {}, reply: { ok: null } });
  assert.equal(engineHas(trace, "onSubagentEnded"), true);
  assert.equal(engineHas(trace, "prepareSubagentSpawn"), false);
  assert.equal(callsOf(trace, "onSubagentEnded"), 1);
  const client = { runs: new HostRuns(), async request() { return { status: "ok" }; } };
  client.runs.observe(agentEvent("announce-1", "agent:main:main"));
  let done = false;
  const driving = drive(client, { kind: "awaitRun", sessionKey: "agent:main:main", timeoutMs: 2000, awaitCall: "onSubagentEnded" }, 1, { trace }).then((o) => ((done = true), o));
  await new Promise((r) => setTimeout(r, 250));
  assert.equal(done, false, "an earlier call does not count: the step waits for a new one");
  write({ kind: "call", seq: 2, method: "onSubagentEnded", params: {} }); // not finished yet
  await new Promise((r) => setTimeout(r, 250));
  assert.equal(done, false, "an unfinished call does not count");
  write({ kind: "call", seq: 2, method: "onSubagentEnded", params: {}, reply: { ok: null } });
  await new Promise((r) => setTimeout(r, 250));
  assert.equal(done, false, "the step also waits for the call's engine instance to be disposed");
  write({ kind: "call", seq: 3, method: "dispose", params: {}, reply: { ok: null } });
  assert.deepEqual(await driving, { wait: "ok", error: null, hostRun: true, awaited: "onSubagentEnded" });
  await assert.rejects(awaitCall(trace, "onSubagentEnded", 2, 50), /no onSubagentEnded call within 50 ms/);
  write({ kind: "call", seq: 4, method: "onSubagentEnded", params: {}, reply: { ok: null } });
  await assert.rejects(awaitCall(trace, "onSubagentEnded", 2, 150), /did not dispose the engine instance of its onSubagentEnded call/);
  // 2026.4.x never disposes the engine it calls onSubagentEnded on: the call alone ends the step.
  await awaitCall(trace, "onSubagentEnded", 2, 150, { disposes: false });
  client.runs.observe(agentEvent("announce-426", "agent:main:main"));
  const driving426 = drive(client, { kind: "awaitRun", sessionKey: "agent:main:main", timeoutMs: 2000, awaitCall: "onSubagentEnded" }, 1, { trace, release4x: true });
  write({ kind: "call", seq: 5, method: "onSubagentEnded", params: {}, reply: { ok: null } });
  assert.deepEqual(await driving426, { wait: "ok", error: null, hostRun: true, awaited: "onSubagentEnded" });
  // An engine without the method is never waited for.
  client.runs.observe(agentEvent("announce-2", "agent:main:main"));
  const out = await drive(client, { kind: "awaitRun", sessionKey: "agent:main:main", timeoutMs: 50, awaitCall: "rollback" }, 2, { trace });
  assert.deepEqual(out, { wait: "ok", error: null, hostRun: true });
  fs.rmSync(dir, { recursive: true });
});

test("a command's background dispose is awaited, and only for an engine that disposes", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "runs-dispose-"));
  const file = path.join(dir, "trace.ndjson");
  const put = (r) => fs.appendFileSync(file, `${JSON.stringify(r)}\n`);
  put({ kind: "initialize", methods: ["compact"] });
  assert.equal(await awaitCommandDispose(file, 0, 5_000), false, "no dispose method: no wait");
  fs.writeFileSync(file, "");
  put({ kind: "initialize", methods: ["compact", "dispose"] });
  put({ kind: "call", method: "dispose", reply: { ok: null } });
  put({ kind: "call", method: "compact", reply: { ok: {} } });
  setTimeout(() => put({ kind: "call", method: "dispose", reply: { ok: null } }), 200);
  assert.equal(await awaitCommandDispose(file, 1, 5_000, 20), true);
  assert.equal(await awaitCommandDispose(file, 2, 100, 20), false, "bounded: no second dispose comes");
  fs.rmSync(dir, { recursive: true });
});

test("otherSessionCalled: only calls recorded after it is armed, of another session, stop the quiet wait", async () => {
  const { otherSessionCalled } = await import("../lib/runs.js");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "runs-quiet-"));
  const trace = path.join(dir, "trace.ndjson");
  const write = (r) => fs.appendFileSync(trace, JSON.stringify(r) + "\n");
  write({ kind: "call", seq: 1, method: "assemble", params: { sessionKey: "agent:main:subagent:1" }, reply: { ok: {} } });
  const stop = otherSessionCalled(trace, "agent:main:main");
  assert.equal(stop(), false, "an earlier call of another session does not count");
  write({ kind: "call", seq: 2, method: "afterTurn", params: { sessionKey: "agent:main:main" } });
  write({ kind: "call", seq: 3, method: "dispose", params: {} });
  assert.equal(stop(), false, "the step's own session and session-less calls do not stop it");
  write({ kind: "call", seq: 4, method: "assemble", params: { sessionKey: "agent:main:subagent:2" } });
  assert.equal(stop(), true);
  fs.rmSync(dir, { recursive: true });
});
