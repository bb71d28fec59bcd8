import assert from "node:assert/strict";
import { test } from "node:test";

import http from "node:http";

import { drive, isStartupUnavailable, markStep, withStartupRetry } from "../lib/steps.js";

/** A client that records requests and answers from a table. */
function fakeClient(answers) {
  const calls = [];
  return {
    calls,
    async request(method, params) {
      calls.push({ method, params });
      const a = answers[method];
      return typeof a === "function" ? a(params) : a;
    },
  };
}

const starting = () => Object.assign(new Error("gateway starting; retry shortly"), { code: "UNAVAILABLE", retryable: true, retryAfterMs: 5, details: { reason: "startup-sidecars" } });

test("startup-unavailable is retried with the gateway's retry-after, other errors are not", async () => {
  let n = 0;
  const waits = [];
  const ok = await withStartupRetry(async () => (++n < 3 ? Promise.reject(starting()) : "connected"), { wait: async (ms) => waits.push(ms) });
  assert.equal(ok, "connected");
  assert.deepEqual(waits, [100, 100], "retry-after is clamped to OpenClaw's 100..2000 ms");
  await assert.rejects(withStartupRetry(async () => Promise.reject(new Error("unauthorized")), { wait: async () => {} }), /unauthorized/);
  assert.equal(isStartupUnavailable({ code: "UNAVAILABLE", retryable: true, details: { reason: "other" } }), false);
});

test("retrying stops at the deadline with the gateway's error", async () => {
  await assert.rejects(withStartupRetry(async () => Promise.reject(starting()), { deadlineMs: 0, wait: async () => {} }), /gateway starting/);
});

test("a turn is chat.send then agent.wait on the run id the gateway returned", async () => {
  const c = fakeClient({ "chat.send": { runId: "r-1", status: "started" }, "agent.wait": { status: "ok" } });
  const out = await drive(c, { kind: "turn", step: 0, sessionKey: "agent:main:main", message: "hi", timeoutMs: 1000 }, 0);
  assert.deepEqual(out, { send: "started", wait: "ok", error: null });
  assert.deepEqual(c.calls.map((x) => x.method), ["chat.send", "agent.wait"]);
  assert.equal(c.calls[0].params.idempotencyKey, "clawspec-run-1");
  assert.equal(c.calls[1].params.runId, "r-1");
});

test("a turn's attachments go with its chat.send, and a turn without any sends no attachments key", async () => {
  const c = fakeClient({ "chat.send": { runId: "r-1", status: "started" }, "agent.wait": { status: "ok" } });
  const image = { type: "image", mimeType: "image/png", fileName: "image.png", content: "iVBOR" };
  await drive(c, { kind: "turn", step: 0, sessionKey: "s", message: "what is this", timeoutMs: 1000, attachments: [image] }, 0);
  await drive(c, { kind: "turn", step: 1, sessionKey: "s", message: "and", timeoutMs: 1000 }, 1);
  assert.deepEqual(c.calls[0].params.attachments, [image]);
  assert.equal("attachments" in c.calls[2].params, false);
});

test("an unknown step kind is an error, not skipped", async () => {
  await assert.rejects(drive(fakeClient({}), { kind: "teleport" }, 0), /unknown plan step kind teleport/);
});

test("/compact is a chat.send of the command text, waited on like a run", async () => {
  const c = fakeClient({ "chat.send": (p) => ({ runId: p.idempotencyKey, status: "started" }), "agent.wait": { status: "ok" } });
  const out = await drive(c, { kind: "command", step: 2, sessionKey: "agent:main:main", message: "/compact Keep every decision.", timeoutMs: 1000 }, 2);
  assert.equal(c.calls[0].params.message, "/compact Keep every decision.");
  assert.equal(c.calls[1].params.runId, "clawspec-cmd-3");
  assert.deepEqual(out, { send: "started", wait: "ok", error: null, command: "/compact" });
});

test("markStep posts the step to the mock provider and fails loudly on a refusal", async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push(JSON.parse(body));
      res.writeHead(seen.length === 1 ? 200 : 500, { "content-type": "application/json" });
      res.end(JSON.stringify({ step: 3, dropped: 1 }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/__clawspec/step`;
  try {
    assert.deepEqual(await markStep(url, 3), { step: 3, dropped: 1 });
    assert.deepEqual(seen, [{ step: 3 }]);
    await assert.rejects(markStep(url, 4), /HTTP 500/);
    assert.equal(await markStep(undefined, 5), null, "no marker URL: nothing to align");
  } finally {
    server.close();
  }
});

test("a turn's system events are queued through system-event, in order, before its chat.send", async () => {
  const c = fakeClient({ "system-event": { ok: true }, "chat.send": { runId: "r-1", status: "started" }, "agent.wait": { status: "ok" } });
  await drive(c, { kind: "turn", step: 0, sessionKey: "agent:main:main", message: "hi", timeoutMs: 1000, systemEvents: ["Cron job done", "heartbeat poll"] }, 0);
  assert.deepEqual(c.calls.map((x) => x.method), ["system-event", "system-event", "chat.send", "agent.wait"]);
  assert.deepEqual(c.calls.slice(0, 2).map((x) => [x.params.text, x.params.sessionKey, "wake" in x.params]), [["Cron job done", "agent:main:main", false], ["heartbeat poll", "agent:main:main", false]]);
});

test("an inter-session message is the gateway agent RPC with its provenance, then agent.wait on the run", async () => {
  const c = fakeClient({ agent: { runId: "r-9", status: "accepted" }, "agent.wait": { status: "ok" } });
  const prov = { kind: "inter_session", sourceSessionKey: "agent:ops:main", sourceChannel: "internal", sourceTool: "sessions_send" };
  const out = await drive(c, { kind: "interSession", step: 0, sessionKey: "agent:main:main", message: "failover done", inputProvenance: prov, timeoutMs: 1000 }, 0);
  assert.deepEqual(out, { send: "accepted", wait: "ok", error: null });
  assert.deepEqual(c.calls.map((x) => x.method), ["agent", "agent.wait"]);
  assert.deepEqual(c.calls[0].params, { message: "failover done", sessionKey: "agent:main:main", idempotencyKey: "clawspec-inter-1", deliver: false, sourceReplyDeliveryMode: "message_tool_only", channel: "webchat", inputProvenance: prov });
  assert.equal(c.calls[1].params.runId, "r-9");
});

test("on 2026.4.x the inter-session agent RPC leaves out sourceReplyDeliveryMode (a closed schema there)", async () => {
  const c = fakeClient({ agent: { runId: "r-1", status: "accepted" }, "agent.wait": { status: "ok" } });
  await drive(c, { kind: "interSession", step: 0, sessionKey: "s", message: "m", inputProvenance: { kind: "inter_session" }, timeoutMs: 1000 }, 0, { release4x: true });
  assert.equal("sourceReplyDeliveryMode" in c.calls[0].params, false);
  assert.equal(c.calls[0].params.deliver, false);
});
