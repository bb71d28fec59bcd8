import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { host, INIT, plugin } from "./host.js";
import { factoryArgs } from "../lib/loader.js";

test("the engine factory gets a context on 2026.9.6 and none on 2026.4.26, as each release's resolveContextEngine calls it", () => {
  const ctx = { config: {}, agentDir: "/a", workspaceDir: "/w" };
  assert.deepEqual(factoryArgs("2026.9.6", ctx), [ctx]);
  assert.deepEqual(factoryArgs("2026.4.26", ctx), []);
});

test("a factory that reads its context serves on 2026.9.6 and fails to load on 2026.4.26 with the reason", async () => {
  const entry = path.join(plugin("factory-ctx"), "index.js");
  const h = host(entry);
  const init = await h.call("initialize", INIT);
  assert.equal(init.error, undefined, JSON.stringify(init.error));
  const r = await h.call("assemble", { sessionId: "s", messages: [{ role: "user", content: "hi", timestamp: 1 }], tokenBudget: 1000 });
  assert.equal(typeof r.result.dirs.workspaceDir, "string");
  assert.equal(await h.close(), 0);

  const old = host(entry);
  const failed = await old.call("initialize", { ...INIT, profile: "openclaw-2026.4.26" });
  assert.equal(failed.error?.code, -32000);
  assert.match(failed.error.message, /the factory threw: .*agentDir/);
  assert.match(failed.error.message, /OpenClaw 2026\.4\.26 calls the engine factory with no context/);
  assert.equal(await old.close(), 0);
});
