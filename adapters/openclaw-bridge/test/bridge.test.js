import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import plugin, { bridgeFor } from "../index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-bridge-test-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Engine source calling `onRequest(msg)` for every request line on stdin (notifications skipped). */
const LINES = `
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id !== undefined) onRequest(msg);
  }
});`;

/** A minimal protocol-v1 engine: answers initialize and records every request it served in `log`. */
const ENGINE = `
const fs = require("node:fs");
const log = process.argv[1];
function onRequest(msg) {
  fs.appendFileSync(log, msg.method + "\\n");
  const result = msg.method === "initialize" ? { protocolVersion: 1, info: { id: "t", name: "t" }, methods: [] } : msg.method === "shutdown" ? {} : { messages: [], estimatedTokens: 0 };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\\n");
  if (msg.method === "shutdown") process.exit(0);
}${LINES}`;

const row = (name) => ({ engineId: "clawspec-bridge", engine: { program: process.execPath, args: ["-e", ENGINE, path.join(dir, `${name}.engine.log`)] }, trace: path.join(dir, `${name}.ndjson`) });
const fakeApi = (config, engines) => ({ pluginConfig: config, logger: {}, registerContextEngine: (id, factory) => engines.push(factory), on: () => {} });
const waitFor = async (f) => {
  for (let i = 0; i < 100 && !f(); i++) await new Promise((r) => setTimeout(r, 50));
  return f();
};

test("a registration for another trace gets its own engine; the same trace shares one", async () => {
  const a = row("a");
  const first = bridgeFor(a);
  assert.equal(bridgeFor({ ...a }), first, "the same trace shares the bridge (and its engine)");

  // Row a, through the plugin's own register(): its engine serves a call into a's trace.
  const engines = [];
  plugin.register(fakeApi(a, engines));
  const engineA = await engines[0]({});
  await engineA.assemble({ sessionId: "s", messages: [] });
  const inA = fs.readFileSync(a.trace, "utf8");
  assert.match(inA, /"method":"assemble"/);

  // Row b registers (a 2026.9.x plugin reload with new config): a fresh engine, its own trace.
  const b = row("b");
  plugin.register(fakeApi(b, engines));
  const engineB = await engines[1]({});
  await engineB.assemble({ sessionId: "s", messages: [] });
  assert.match(fs.readFileSync(b.trace, "utf8"), /"kind":"initialize"/, "row b's engine was initialised anew");
  assert.equal(fs.readFileSync(a.trace, "utf8"), inA, "nothing of row b reached row a's trace");
  assert.ok(await waitFor(() => fs.readFileSync(path.join(dir, "a.engine.log"), "utf8").includes("shutdown")), "row a's engine was shut down");
  await assert.rejects(engineA.assemble({ sessionId: "s", messages: [] }), /replaced by a later registration/);
  bridgeFor(row("c")).close();
});

test("a served 2026.4.x gateway's one registration follows its row file: each row its own engine, trace and tool results", async () => {
  const rowFile = path.join(dir, "bridge-row.json");
  const write = (name, extra = {}) => fs.writeFileSync(rowFile, JSON.stringify({ ...row(name), ...extra }));
  write("p", { toolResults: [{ toolCallId: "call-p", toolName: "read", text: "p" }], toolRoute: "workspace" });
  const exitHandlers = process.listenerCount("exit");
  const engines = [];
  const hooks = [];
  plugin.register({ ...fakeApi({ engineId: "clawspec-bridge", rowFile }, engines), on: (name, f) => hooks.push([name, f]) });
  assert.equal(engines.length, 1, "one registration for the gateway");
  const standIn = hooks.find(([name]) => name === "before_tool_call")[1];
  assert.deepEqual(standIn({ toolCallId: "call-p", toolName: "read" }), { params: { path: "clawspec-results/0.txt" } });
  await (await engines[0]({})).assemble({ sessionId: "s", messages: [] });
  const inP = fs.readFileSync(path.join(dir, "p.ndjson"), "utf8");

  // The runner writes row q's file; the host's next engine resolution gets q's engine.
  write("q");
  await (await engines[0]({})).assemble({ sessionId: "s", messages: [] });
  assert.match(fs.readFileSync(path.join(dir, "q.ndjson"), "utf8"), /"kind":"initialize"/, "row q's engine was initialised anew");
  assert.equal(fs.readFileSync(path.join(dir, "p.ndjson"), "utf8"), inP, "nothing of row q reached row p's trace");
  assert.ok(await waitFor(() => fs.readFileSync(path.join(dir, "p.engine.log"), "utf8").includes("shutdown")), "row p's engine was shut down");
  assert.equal(standIn({ toolCallId: "call-p", toolName: "read" }), undefined, "row p's tool results are not row q's");
  assert.ok(await waitFor(() => process.listenerCount("exit") === exitHandlers + 1), "a replaced row's exit handler goes with it");
  bridgeFor(row("r")).close();
});

/** An engine that says things: `$/log` during initialize, before each answer, and right behind it in the same write. */
const CHATTY = `
let n = 0;
const line = (o) => JSON.stringify(o) + "\\n";
const log = (message) => line({ jsonrpc: "2.0", method: "$/log", params: { level: "info", message } });
function onRequest(msg) {
  if (msg.method === "initialize") {
    process.stdout.write(log("loading") + line({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: 1, info: { id: "t", name: "t" }, methods: [] } }));
  } else if (msg.method === "shutdown") {
    process.stdout.write(line({ jsonrpc: "2.0", id: msg.id, result: {} }));
    process.exit(0);
  } else {
    n += 1;
    const flood = n === 3 ? Array.from({ length: 80 }, () => log("x".repeat(1000))).join("") : "";
    process.stdout.write(log("before answer " + n) + flood + line({ jsonrpc: "2.0", id: msg.id, result: { messages: [], estimatedTokens: 0 } }) + log("behind answer " + n));
  }
}${LINES}`;

test("the engine's $/log lines are recorded with the call they arrived in, as the reference driver reads them", async () => {
  const config = { engineId: "clawspec-bridge", engine: { program: process.execPath, args: ["-e", CHATTY] }, trace: path.join(dir, "chatty.ndjson") };
  const engines = [];
  plugin.register(fakeApi(config, engines));
  const engine = await engines[0]({});
  try {
    for (let i = 0; i < 3; i++) await engine.assemble({ sessionId: "s", messages: [] });
  } finally {
    bridgeFor(row("d")).close();
  }
  const lines = fs.readFileSync(config.trace, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  // During initialize no call is served: its own line, which the trace ignores.
  assert.deepEqual(lines.find((l) => l.kind === "notification"), { kind: "notification", method: "$/log", params: { level: "info", message: "loading" } });
  const calls = lines.filter((l) => l.kind === "call");
  assert.deepEqual(calls[0].log, [{ level: "info", message: "before answer 1" }]);
  // A line behind an answer, even in the same write, is the next call's.
  assert.deepEqual(calls[1].log, [{ level: "info", message: "behind answer 1" }, { level: "info", message: "before answer 2" }]);
  // Bounded: 64 KiB kept, the rest counted; the harness caps it further (realhost/record.rs).
  const kept = calls[2].log.length;
  assert.ok(kept < 82 && calls[2].logDropped === 82 - kept, `${kept} kept, ${calls[2].logDropped} dropped`);
  assert.ok(Buffer.byteLength(JSON.stringify(calls[2].log)) <= 64 * 1024 + 1024);
});
