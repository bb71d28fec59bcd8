// Warm reuse (lib/warm.js, docs/protocol.md "Warm reuse"): one adapter
// process, several runs, each with a fresh engine instance — nothing one run
// stored reaches the next, whatever the plugin keeps at module level.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { host, INIT, plugin } from "./host.js";
import { versioned } from "../lib/hooks.mjs";
import { unversioned } from "../lib/warm.js";

const user = (text) => ({ message: { role: "user", content: text, timestamp: 1 } });

async function run(h, dir, secret) {
  const init = await h.call("initialize", INIT);
  assert.equal(init.error, undefined, JSON.stringify(init.error));
  assert.equal(init.result.warm, true);
  if (secret) assert.equal((await h.call("ingest", user(secret))).error, undefined);
  const r = await h.call("assemble", { messages: [], tokenBudget: 1000 });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(r.result.run.home.startsWith(dir), `HOME ${r.result.run.home} is in this run's state dir ${dir}`);
  assert.ok(r.result.run.cwd.startsWith(dir));
  return r.result;
}

test("a reset process serves the next run a fresh engine: module, chunk, CommonJS, globalThis, env, timers, listeners", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-warm-"));
  const [a, b] = ["a", "b"].map((n) => fs.mkdirSync(path.join(root, n)) ?? path.join(root, n));
  const h = host(path.join(plugin("stateful"), "index.js"), [], { CLAWSPEC_STATE_DIR: a });
  const first = await run(h, a, "secret-of-run-1");
  assert.deepEqual(first.leaked.moduleSeen, ['"secret-of-run-1"']);
  assert.equal(first.leaked.ticksAfterWait, true, "the fixture's timer runs");
  const exitListeners = first.leaked.exitListeners;

  const reset = await h.call("reset", { env: { CLAWSPEC_STATE_DIR: b, CLAWSPEC_OPENCLAW_STATE_DIR: null } });
  assert.deepEqual(reset.result, {});
  const second = await run(h, b, undefined);
  assert.deepEqual(second.leaked, { moduleSeen: [], chunkSeen: [], kept: [], global: [], env: null, instances: 1, ticksAfterWait: true, exitListeners });
  // Seeded again: the same uuid at import as in run 1.
  assert.equal(second.run.atImport, first.run.atImport);
  assert.equal(await h.close(), 0);
  fs.rmSync(root, { recursive: true, force: true });
});

test("the run version reaches every module below the entry, never the adapter's own files", () => {
  const parent = "file:///p/index.js?clawspec-run=3";
  assert.equal(versioned({ url: "file:///p/chunk.js" }, parent).url, "file:///p/chunk.js?clawspec-run=3");
  assert.equal(versioned({ url: "node:fs" }, parent).url, "node:fs");
  assert.equal(versioned({ url: "file:///p/chunk.js" }, "file:///p/index.js").url, "file:///p/chunk.js");
  const shim = new URL("../shims/plugin-sdk/core.js", import.meta.url).href;
  assert.equal(versioned({ url: shim }, parent).url, shim);
  assert.equal(unversioned("at x (file:///p/index.js?clawspec-run=12:3:4)"), "at x (file:///p/index.js:3:4)");
});

// The real SDK's release is the host's code: shared by the runs of a process,
// as a gateway shares it between agent runs; the plugin's modules are fresh
// per run. (Before, the release was shared only because Node rewrites the
// context a resolve hook passes to `next`; a fresh SDK per run doubled a warm
// run's CPU — docs/protocol.md "Warm reuse".)
test("a warm process shares the real SDK's release between runs and gives each run fresh plugin modules", async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-warm-sdk-"));
  const [a, b] = ["a", "b"].map((n) => fs.mkdirSync(path.join(root, n)) ?? path.join(root, n));
  // Through a symlink, as ~/.cache/clawspec may be one: Node imports the release by its real path.
  const release = path.join(root, "openclaw-link");
  fs.symlinkSync(path.join(path.dirname(plugin("x")), "..", "sdk", "openclaw-new"), release);
  const h = host(path.join(plugin("sdk-counter"), "index.js"), ["--sdk", `openclaw-2026.9.6=${release}`], { CLAWSPEC_STATE_DIR: a });
  t.after(() => h.child.kill()); // a failed assertion must not leave the adapter running
  const counts = async () => {
    const init = await h.call("initialize", INIT);
    assert.equal(init.error, undefined, JSON.stringify(init.error));
    assert.equal(init.result.warm, true);
    const r = await h.call("assemble", { messages: [], tokenBudget: 1000 });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    return r.result.counts;
  };
  assert.deepEqual(await counts(), { plugin: 1, core: 1, newOnly: 1 });
  assert.deepEqual((await h.call("reset", { env: { CLAWSPEC_STATE_DIR: b } })).result, {});
  assert.deepEqual(await counts(), { plugin: 1, core: 2, newOnly: 2 }, "plugin module fresh, release shared (through the data: URL of core and the plain sub-path alike)");
  assert.equal(await h.close(), 0);
  fs.rmSync(root, { recursive: true, force: true });
});

test("files of the real SDK's release are never versioned, the plugin's are", async () => {
  const { initialize } = await import("../lib/hooks.mjs");
  initialize({ real: "/opt/openclaw", shimDir: "", hostBound: {} });
  const parent = "file:///p/index.js?clawspec-run=4";
  assert.equal(versioned({ url: "file:///opt/openclaw/dist/plugin-sdk/core.js" }, parent).url, "file:///opt/openclaw/dist/plugin-sdk/core.js");
  assert.equal(versioned({ url: "file:///opt/openclaw-other/x.js" }, parent).url, "file:///opt/openclaw-other/x.js?clawspec-run=4");
  assert.equal(versioned({ url: "file:///p/chunk.js" }, parent).url, "file:///p/chunk.js?clawspec-run=4");
  initialize({ shimDir: "", hostBound: {} });
});
