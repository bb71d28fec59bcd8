import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { EventEmitter } from "node:events";
import test from "node:test";

import { captureCallContext } from "../lib/call-context.js";

test("a host request served from another async context runs in the call's context", async () => {
  const scope = new AsyncLocalStorage();
  // The pipe: created (and its listener registered) under the first call's scope.
  const pipe = scope.run("first call (closed)", () => {
    const e = new EventEmitter();
    return e;
  });
  const seen = [];
  const inCall = scope.run("current call", () => captureCallContext());
  await new Promise((resolve) => {
    scope.run("first call (closed)", () => {
      pipe.on("data", () => {
        seen.push(scope.getStore());
        inCall(() => seen.push(scope.getStore()));
        resolve();
      });
    });
    setImmediate(() => pipe.emit("data"));
  });
  // The data event runs in the emitter's context, not the call's; the
  // captured runner restores the call's.
  assert.notEqual(seen[0], "current call");
  assert.equal(seen[1], "current call");
});
