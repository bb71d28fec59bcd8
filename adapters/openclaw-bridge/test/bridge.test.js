import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import plugin, { bridgeFor } from "../index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-bridge-test-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A minimal protocol-v1 engine: answers initialize and records every request it served in `log`. */
const ENGINE = `
const fs = require("node:fs");
const log = process.argv[1];
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id === undefined) continue;
    fs.appendFileSync(log, msg.method + "\\n");
    const result = msg.method === "initialize" ? { protocolVersion: 1, info: { id: "t", name: "t" }, methods: [] } : msg.method === "shutdown" ? {} : { messages: [], estimatedTokens: 0 };
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\\n");
    if (msg.method === "shutdown") process.exit(0);
  }
});`;

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
