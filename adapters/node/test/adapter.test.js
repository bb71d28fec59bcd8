// The adapter's own tests (node --test). End-to-end cases spawn the adapter
// as a real child process and speak protocol v1 to it line by line.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import readline from "node:readline";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import path from "node:path";
import os from "node:os";

import { encode, Revival } from "../lib/revive.js";
import { seededUuid } from "../lib/seed.js";
import { createApi, Report } from "../lib/api.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "clawspec-node-adapter.js");
const plugin = (p) => path.join(here, "plugins", p);
const INIT = { protocolVersion: 1, profile: "openclaw-2026.9.6", host: { name: "test", version: "0" }, offers: { callbacks: ["llm.complete", "delegateCompaction"], capabilities: [], abortNotifications: true } };

/** A tiny host: send requests, answer host/ callbacks, collect stderr. */
function host(entry, args = [], env = {}) {
  const child = spawn(process.execPath, [bin, entry, ...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const rl = readline.createInterface({ input: child.stdout });
  const waiting = new Map();
  const lines = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  let id = 0;
  const answers = { "host/llm.complete": () => ({ text: "a deterministic summary" }), "host/delegateCompaction": () => ({ ok: true, compacted: true, result: { tokensBefore: 10, tokensAfter: 2 } }) };
  rl.on("line", (line) => {
    lines.push(line);
    const f = JSON.parse(line);
    if (f.method) {
      const a = answers[f.method];
      child.stdin.write(JSON.stringify(a ? { jsonrpc: "2.0", id: f.id, result: a(f.params) } : { jsonrpc: "2.0", id: f.id, error: { code: -32601, message: "no" } }) + "\n");
      return;
    }
    waiting.get(f.id)?.(f);
  });
  return {
    call(method, params = {}) {
      const my = ++id;
      return new Promise((resolve) => {
        waiting.set(my, resolve);
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }) + "\n");
      });
    },
    notify(method, params) {
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
    },
    exit: () => new Promise((r) => child.on("exit", (code) => r(code))),
    stderr: () => stderr,
    lines,
  };
}

test("revives Sets, AbortSignals and callbacks, and encodes them back", async () => {
  const calls = [];
  const r = new Revival(async (m, p) => (calls.push([m, p]), { text: "x" }));
  const v = r.revive({ availableTools: ["a", "b"], abortSignal: { $abortSignal: "sig-1" }, runtimeContext: { llm: { complete: { $callback: "llm.complete" } } } });
  assert.ok(v.availableTools instanceof Set && v.availableTools.has("b"));
  assert.ok(v.abortSignal instanceof AbortSignal && !v.abortSignal.aborted);
  r.abort("sig-1", "timeout");
  assert.ok(v.abortSignal.aborted);
  assert.deepEqual(await v.runtimeContext.llm.complete({ messages: [] }), { text: "x" });
  assert.deepEqual(calls, [["host/llm.complete", { messages: [] }]]);
  assert.deepEqual(encode(v), { availableTools: ["a", "b"], abortSignal: { $abortSignal: "sig-1" }, runtimeContext: { llm: { complete: { $callback: "llm.complete" } } } });
});

test("seeded uuids are deterministic and well-formed", () => {
  let i = 0;
  const next = () => ((i = (i * 1103515245 + 12345) % 2 ** 31), i / 2 ** 31);
  const a = seededUuid(next);
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  i = 0;
  assert.equal(seededUuid(next), a);
});

test("unknown api members are reported by name", () => {
  const report = new Report();
  const api = createApi({ id: "p", pluginConfig: {}, stateDir: "/tmp/x", hostRequest: async () => ({}), report });
  assert.equal(api.registerMemoryBackend, undefined);
  assert.equal(api.runtime.subagent, undefined);
  assert.deepEqual(report.unknownMembers, ["api.registerMemoryBackend", "api.runtime.subagent"]);
  assert.equal(typeof api.runtime.logging.getChildLogger().info, "function");
});

test("ESM legacy port: handshake, Set revival, delegated compaction, clean exit", async () => {
  const h = host(plugin("legacy/index.js"));
  const init = await h.call("initialize", INIT);
  assert.deepEqual(init.result.info, { id: "legacy", name: "Legacy Context Engine", version: "1.0.0" });
  assert.deepEqual(init.result.methods, []);
  assert.equal(init.result.implementation.plugin.name, "sample-legacy-engine");
  const msgs = [{ role: "user", content: "hi", timestamp: 1 }];
  const a = await h.call("assemble", { sessionId: "s", messages: msgs, availableTools: ["exec"] });
  assert.deepEqual(a.result, { messages: msgs, estimatedTokens: 0 });
  const c = await h.call("compact", { sessionId: "s", sessionKey: "k", force: true });
  assert.deepEqual(c.result, { ok: true, compacted: true, result: { tokensBefore: 10, tokensAfter: 2 } });
  assert.ok(h.lines.some((l) => l.includes('"method":"host/delegateCompaction"')));
  const nope = await h.call("afterTurn", {});
  assert.equal(nope.error.code, -32601);
  await h.call("shutdown");
  assert.equal(await h.exit(), 0);
});

test("ESM summariser calls llm.complete during compaction", async () => {
  const h = host(plugin("summarizer/index.js"));
  const init = await h.call("initialize", INIT);
  assert.deepEqual(init.result.methods, ["afterTurn"]);
  const c = await h.call("compact", { sessionId: "s", runtimeContext: { llm: { complete: { $callback: "llm.complete" } } } });
  assert.equal(c.result.compacted, true);
  assert.equal(c.result.result.summary, "a deterministic summary");
  const a = await h.call("assemble", { sessionId: "s", messages: [{ role: "user", content: "now" }] });
  assert.equal(a.result.messages[0].role, "compactionSummary");
  assert.match(a.result.messages[0].id, /^[0-9a-f-]{36}$/, "randomUUID works (seeded)");
  await h.call("shutdown");
  assert.equal(await h.exit(), 0);
});

test("CJS bare register function with a logging-core import", async () => {
  const h = host(plugin("cjs-bare/index.cjs"));
  const init = await h.call("initialize", INIT);
  assert.equal(init.result.info.id, "cjs-passthrough");
  assert.deepEqual(init.result.methods, ["bootstrap", "ingestBatch", "dispose"]);
  const b = await h.call("ingestBatch", { sessionId: "s", messages: [{ role: "user", content: "x" }] });
  assert.deepEqual(b.result, { ingestedCount: 1 });
  await h.call("shutdown");
  await h.exit();
  assert.match(h.stderr(), /token=\[REDACTED\]/);
});

test("broken plugin: throws are caught errors, stdout leaks are reported, not protocol breakage", async () => {
  const h = host(plugin("broken/index.js"));
  await h.call("initialize", INIT);
  const i = await h.call("ingest", { sessionId: "s", message: { role: "user", content: "x" } });
  assert.equal(i.error.code, -32000);
  assert.match(i.error.message, /ingest is not implemented yet/);
  const a = await h.call("assemble", { sessionId: "s", messages: [] });
  assert.deepEqual(a.result, {});
  const r = await h.call("adapter/report");
  assert.deepEqual(r.result.unknownApiMembers, ["api.registerMemoryBackend"]);
  assert.equal(r.result.stdoutWrites.length, 1);
  assert.ok(h.lines.every((l) => JSON.parse(l).jsonrpc === "2.0"), "stdout carries protocol frames only");
  await h.call("shutdown");
  assert.equal(await h.exit(), 0);
});

test("engine selection by id, and a clear error when it is missing", async () => {
  const h = host(plugin("legacy/index.js"), ["--engine-id", "nope"]);
  const init = await h.call("initialize", INIT);
  assert.match(init.error.message, /not registered\. Available engines: legacy/);
  await h.call("shutdown");
  await h.exit();
});

test("refuses other protocol versions", async () => {
  const h = host(plugin("legacy/index.js"));
  const init = await h.call("initialize", { ...INIT, protocolVersion: 2 });
  assert.equal(init.error.code, -32010);
  assert.deepEqual(init.error.data, { supported: [1] });
  await h.call("shutdown");
  await h.exit();
});

test("isolation: HOME and OPENCLAW_STATE_DIR point into the state dir; secrets stripped", async () => {
  const h = host(plugin("legacy/index.js"), [], { ANTHROPIC_API_KEY: "sk-secret", CLAWSPEC_STATE_DIR: path.join(os.tmpdir(), `clawspec-adapter-test-${process.pid}`) });
  await h.call("initialize", INIT);
  await h.call("shutdown");
  assert.equal(await h.exit(), 0);
});
