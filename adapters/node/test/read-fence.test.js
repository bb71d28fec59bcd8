// `$/transcriptReadFence` (docs/protocol.md): the calls between setting and
// lifting it run inside the release's runWithSessionTranscriptReadFence, so a
// plugin's SDK transcript reads are fenced as in the 2026.9.6 gateway; a
// release without the fence chunk is not offered it.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { host, INIT, plugin } from "./host.js";
import { findReadFence } from "../lib/read-fence.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const NEW = path.join(here, "sdk", "openclaw-new");
const OLD = path.join(here, "sdk", "openclaw-old");
const admission = { agentId: "main", sessionId: "sess-0001", sessionKey: "agent:main:main", entryId: "e5", role: "user", logicalTurnId: "turn-sess-0001-e5" };

test("lifecycle calls between $/transcriptReadFence {admission} and {admission: null} read inside the release's fence", async (t) => {
  // Through a symlink, as ~/.cache/clawspec may be one: the fence must be the
  // instance the plugin's SDK imports (by its real path).
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-fence-"));
  const link = path.join(root, "openclaw-link");
  fs.symlinkSync(NEW, link);
  const h = host(path.join(plugin("fenced-reader"), "index.js"), ["--sdk", `openclaw-2026.9.6=${link}`]);
  t.after(() => h.child.kill()); // a failed assertion must not leave the adapter running
  const init = await h.call("initialize", INIT);
  assert.equal(init.error, undefined, JSON.stringify(init.error));
  assert.equal(init.result.transcriptReadFence, 1, "offered: the release has the fence");
  assert.equal((await h.call("bootstrap", { sessionId: "sess-0001" })).result.fence, null, "no fence before one is set");
  h.notify("$/transcriptReadFence", { admission });
  assert.equal((await h.call("bootstrap", { sessionId: "sess-0001" })).result.fence, "e5");
  assert.equal((await h.call("assemble", { messages: [], tokenBudget: 100 })).result.fence, "e5");
  h.notify("$/transcriptReadFence", { admission: null });
  assert.equal((await h.call("afterTurn", { sessionId: "sess-0001", messages: [] })).result.fence, null, "lifted");
  assert.equal(await h.close(), 0);
  fs.rmSync(root, { recursive: true, force: true });
});

test("a release without the fence chunk is not offered the fence", async (t) => {
  assert.equal(findReadFence(OLD), undefined);
  assert.deepEqual(findReadFence(NEW), { file: path.join(NEW, "dist", "session-transcript-read-fence-T3st.mjs"), exported: "a" });
  const h = host(path.join(plugin("sdk-user"), "index.js"), ["--sdk", `openclaw-2026.4.26=${OLD}`]);
  t.after(() => h.child.kill()); // a failed assertion must not leave the adapter running
  const init = await h.call("initialize", { ...INIT, profile: "openclaw-2026.4.26" });
  assert.equal(init.error, undefined, JSON.stringify(init.error));
  assert.equal(init.result.transcriptReadFence, undefined);
  assert.equal(await h.close(), 0);
});
