// Per-profile plugin SDK: under a profile the plugin sees the
// `openclaw/plugin-sdk/*` of that profile's release (`--sdk PROFILE=DIR`),
// host-bound functions answered by the harness, and the adapter's shims when
// no release is given. Stand-in releases in test/sdk/ keep this independent
// of the ~600 MB npm packages (harness/tests/node_adapter.rs runs the real ones).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { exportedNames } from "../lib/hooks.mjs";
import { chooseSdk, describeSdk } from "../lib/sdk.js";
import { host, INIT, plugin } from "./host.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const OLD = path.join(here, "sdk", "openclaw-old");
const NEW = path.join(here, "sdk", "openclaw-new");
const SDK_ARGS = ["--sdk", `openclaw-2026.4.26=${OLD}`, "--sdk", `openclaw-2026.9.6=${NEW}`];
const MSG = { role: "user", content: "hi", timestamp: 1 };

async function session(entry, profile, answers = {}) {
  const h = host(plugin(entry), SDK_ARGS, {}, answers);
  const init = await h.call("initialize", { ...INIT, profile });
  return { h, init };
}

test("the profile picks the release: 9.6 has the newer function, 4.26 fails on it with a named error and the session goes on", async () => {
  const n = await session("sdk-user/index.js", "openclaw-2026.9.6");
  assert.equal(n.init.result.implementation.sdk, "openclaw@2026.9.6");
  const a = await n.h.call("assemble", { sessionId: "s", messages: [MSG], tokenBudget: 1000 });
  assert.deepEqual([a.result.release, a.result.newOnly], ["2026.9.6", { newOnly: "x" }]);
  assert.equal(await n.h.close(), 0);

  const o = await session("sdk-user/index.js", "openclaw-2026.4.26+marker-drift");
  assert.equal(o.init.result.implementation.sdk, "openclaw@2026.4.26");
  const b = await o.h.call("assemble", { sessionId: "s", messages: [MSG], tokenBudget: 1000 });
  assert.equal(b.error.code, -32000);
  assert.match(b.error.message, /newOnly is not a function/);
  // The engine is still serving.
  const c = await o.h.call("ingest", { sessionId: "s", message: MSG });
  assert.deepEqual(c.result, { ingested: true });
  assert.equal(await o.h.close(), 0);
});

test("host-bound functions come from the harness even under the real SDK", async () => {
  const { h } = await session("sdk-user/index.js", "openclaw-2026.9.6", { "host/delegateCompaction": () => ({ ok: true, compacted: true, by: "host" }) });
  const r = await h.call("compact", { sessionId: "s", tokenBudget: 10 });
  assert.deepEqual(r.result, { ok: true, compacted: true, by: "host" });
  assert.ok(h.fromEngine.some((f) => f.method === "host/delegateCompaction"));
  await h.close();
});

test("a static import the release lacks fails initialize, naming the export and the SDK", async () => {
  const { h, init } = await session("sdk-static/index.js", "openclaw-2026.4.26");
  assert.equal(init.error?.code, -32000);
  assert.match(init.error.message, /does not provide an export named 'newOnly'/);
  assert.match(init.error.message, /plugin SDK: openclaw@2026\.4\.26/);
  await h.close().catch(() => {});
  const ok = await session("sdk-static/index.js", "openclaw-2026.9.6");
  assert.equal(ok.init.result.info.id, "sdk-static");
  await ok.h.close();
});

test("a profile without a release gets the shims (and says so)", async () => {
  const { h, init } = await session("sdk-user/index.js", "rfc-82137");
  assert.equal(init.result.implementation.sdk, "clawspec shims");
  const a = await h.call("assemble", { sessionId: "s", messages: [MSG], tokenBudget: 1000 });
  assert.match(a.error.message, /core\.release is not a function/);
  await h.close();
});

test("choosing and naming the SDK", () => {
  const entry = plugin("sdk-user/index.js");
  assert.deepEqual(chooseSdk({ "openclaw-2026.9.6": NEW }, "openclaw-2026.9.6+marker-drift", entry), { kind: "real", version: "2026.9.6", dir: NEW, profile: "openclaw-2026.9.6+marker-drift" });
  assert.deepEqual(chooseSdk({ "openclaw-2026.9.6": NEW }, "openclaw-2026.4.26", entry), { kind: "shims" });
  assert.equal(describeSdk({ kind: "shims" }), "clawspec shims");
});

test("export names of bundled SDK files", () => {
  assert.deepEqual([...exportedNames("function a(){}\nexport { a, b as c, d as default };")], ["a", "c", "default"]);
  assert.deepEqual([...exportedNames("export {\n  x,\n  y\n};\nexport { z } from './z.js';")], ["x", "y", "z"]);
});

const JITI_SDK = path.join(process.env.CLAWSPEC_CACHE ?? path.join(os.homedir(), ".cache", "clawspec"), "openclaw@2026.9.6", "node_modules", "openclaw");
test("a plugin Node's ESM loader refuses loads through the release's jiti, as OpenClaw falls back to it", { skip: !fs.existsSync(path.join(JITI_SDK, "..", "jiti")) && "openclaw@2026.9.6 is not cached" }, async () => {
  const shim = host(plugin("cjs-named/index.js"));
  try {
    const refused = await shim.call("initialize", INIT);
    // Node ≤ 22 and Node 24 word the refusal differently.
    assert.match(refused.error.message, /does not provide an export named 'Database'|Named export 'Database' not found/);
  } finally {
    await shim.close().catch(() => {});
  }
  const h = host(plugin("cjs-named/index.js"), ["--sdk", `openclaw-2026.9.6=${JITI_SDK}`]);
  try {
    const init = await h.call("initialize", INIT);
    assert.equal(init.result?.info.name, "CJS named", JSON.stringify(init));
    assert.match(h.stderr(), /loading through jiti/);
  } finally {
    assert.equal(await h.close(), 0);
  }
});
