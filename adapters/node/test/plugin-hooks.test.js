import assert from "node:assert/strict";
import { test } from "node:test";

import { mergePromptBuild, runHook } from "../lib/plugin-hooks.js";
import { host, INIT, plugin } from "./host.js";

test("before_prompt_build results merge as OpenClaw merges them", () => {
  const m = [{ prependContext: "a", systemPrompt: "S1", toolsAllow: ["x", "y"] }, undefined, { prependContext: "b", systemPrompt: "S2", appendSystemContext: "T", toolsAllow: ["y"] }].reduce(mergePromptBuild, undefined);
  assert.deepEqual(m, { systemPrompt: "S1", prependContext: "a\n\nb", appendSystemContext: "T", toolsAllow: ["y"] });
});

test("runHook calls every handler in order with (event, ctx); other hooks return no result", async () => {
  const calls = [];
  const r = await runHook("gateway_start", [(e, c) => calls.push([e, c]), () => calls.push(2)], { a: 1 }, { b: 2 });
  assert.deepEqual(r, { called: 2 });
  assert.deepEqual(calls, [[{ a: 1 }, { b: 2 }], 2]);
});

test("adapter/fireHook before_prompt_build answers the merged result; initialize lists the hook", async () => {
  const h = host(plugin("prompt-hook/index.js"));
  const init = await h.call("initialize", INIT);
  // The sample also records before_reset (harness/tests/node_adapter.rs, the reset payload).
  assert.deepEqual(init.result.hooks, ["before_prompt_build", "before_reset"]);
  const r = await h.call("adapter/fireHook", { name: "before_prompt_build", event: { prompt: "hi", messages: [] }, ctx: { sessionKey: "k" } });
  assert.deepEqual(r.result, { called: 2, result: { systemPrompt: "HOOK BASE", prependContext: "a\n\nb", prependSystemContext: "RECALL POLICY", appendSystemContext: "TAIL" } });
  assert.equal(await h.close(), 0);
});
