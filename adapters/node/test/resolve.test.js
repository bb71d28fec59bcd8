// Where the SDK resolve hook runs. Off-thread (module.register), every ESM
// resolution is a synchronous round trip to Node's loader thread; the real
// 2026.9.6 SDK's first import makes thousands of them, and on a loaded machine
// lossless-claw 1.0's `bootstrap` then outlasted the 30 s call timeout
// (docs/real-engines.md). Where Node has module.registerHooks (≥ 22.15) the
// hook must run in the importing thread. This file installs the hooks into
// its own process (node --test runs each file in a process of its own).
import assert from "node:assert/strict";
import module from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { stats } from "../lib/hooks.mjs";
import { installSdk } from "../lib/sdk.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const NEW = path.join(here, "sdk", "openclaw-new");

test("the SDK resolve hook runs in the importing thread, with the release's surface", { skip: typeof module.registerHooks !== "function" && `Node ${process.version} has no module.registerHooks (< 22.15): the hook runs on the loader thread` }, async () => {
  installSdk({ kind: "real", version: "2026.9.6", dir: NEW, profile: "openclaw-2026.9.6" });
  const before = stats.resolved;
  // A module importing the SDK, as a plugin does (a data: URL has no package
  // scope, so resolve from a plugin fixture's directory).
  const user = pathToFileURL(path.join(here, "plugins", "sdk-user", "index.js")).href;
  const mod = await import(`${user}?clawspec-run=7`);
  assert.ok(mod, "the plugin imported");
  // Served by this thread's copy of the hook: no loader-thread round trip.
  assert.ok(stats.resolved > before, `resolutions served in this thread: ${stats.resolved - before}`);
  // And what it resolved is the release's, versioned like the importer.
  const core = import.meta.resolve("openclaw/plugin-sdk/core");
  assert.match(core, /^data:text\/javascript,|openclaw-new/);
  // require() is left to Module._resolveFilename (lib/sdk.js), as before.
  const req = module.createRequire(path.join(here, "plugins", "sdk-user", "index.js"));
  assert.match(req.resolve("openclaw/plugin-sdk/core"), /openclaw-new/);
});
