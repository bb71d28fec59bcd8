import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { host, INIT, plugin } from "./host.js";
import { declaredOpenclaw } from "../lib/loader.js";

test("the OpenClaw versions a package declares, by field", () => {
  assert.deepEqual(declaredOpenclaw({ peerDependencies: { openclaw: ">=2026.7.2-beta.2" }, openclaw: { compat: { pluginApi: ">=2026.7.2-beta.2", minGatewayVersion: "2026.7.2-beta.2" } } }), {
    "peerDependencies.openclaw": ">=2026.7.2-beta.2",
    "openclaw.compat.pluginApi": ">=2026.7.2-beta.2",
    "openclaw.compat.minGatewayVersion": ">=2026.7.2-beta.2",
  });
  assert.deepEqual(declaredOpenclaw({ peerDependencies: { react: "18" } }), {});
});

test("initialize names the declared range in implementation.plugin.peer", async () => {
  const h = host(path.join(plugin("peer-range"), "index.js"));
  const r = await h.call("initialize", INIT);
  assert.deepEqual(r.result.implementation.plugin.peer, { "peerDependencies.openclaw": ">=2026.5.28 <2026.7.2-0", "openclaw.compat.pluginApi": ">=2026.5.28", "openclaw.compat.minGatewayVersion": ">=2026.5.28" });
  assert.equal(await h.close(), 0);
});
