// The hang report (lib/watchdog.js): a call that outlasts --hang-report-ms
// gets a stderr line saying what the engine was doing, so clawspec's timeout
// fault (which carries the call's stderr) is not just "did not answer".
import assert from "node:assert/strict";
import { test } from "node:test";

import { host, INIT, plugin } from "./host.js";

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

test("synchronous code: the watchdog thread names the blocked main thread and prints its JavaScript stack", async () => {
  const h = host(plugin("hang/index.js"), ["--hang-report-ms", "500"]);
  try {
    assert.ok((await h.call("initialize", INIT)).result);
    const r = await h.call("bootstrap", { sessionId: "spin", ms: 4000 });
    assert.deepEqual(r.result, { bootstrapped: true });
    const err = h.stderr();
    assert.match(err, /bootstrap has not answered after \d+\.\d s and the main thread has not turned its event loop/);
    assert.match(err, /at spinUntil \(file:\/\/\/.*hang\/index\.js:\d+:\d+\)/);
    assert.doesNotMatch(err, /clawspec-run=/);
  } finally {
    await h.close();
  }
});

test("a free event loop: the adapter lists what the engine awaits, once per call", async () => {
  const h = host(plugin("hang/index.js"), ["--hang-report-ms", "500"]);
  try {
    assert.ok((await h.call("initialize", INIT)).result);
    const pending = h.call("bootstrap", { sessionId: "await", ms: 2500 });
    await wait(1800);
    const err = h.stderr();
    assert.match(err, /bootstrap has not answered after \d+\.\d s and the event loop is free: the engine awaits something\. Node is waiting on: .*Timeout ×\d/);
    assert.match(err, /no host request pending/);
    assert.deepEqual((await pending).result, { bootstrapped: true });
    // (Only bootstrap: on a loaded machine initialize may outlast 500 ms too.)
    assert.equal(h.stderr().match(/bootstrap has not answered/g).length, 1);
    // A prompt call says nothing.
    await h.call("bootstrap", { sessionId: "quick" });
    assert.equal(h.stderr().match(/bootstrap has not answered/g).length, 1);
  } finally {
    await h.close();
  }
});

test("--hang-report-ms 0 turns the report off", async () => {
  const h = host(plugin("hang/index.js"), ["--hang-report-ms", "0"]);
  try {
    assert.ok((await h.call("initialize", INIT)).result);
    await h.call("bootstrap", { sessionId: "spin", ms: 1500 });
    assert.doesNotMatch(h.stderr(), /has not answered/);
  } finally {
    await h.close();
  }
});
