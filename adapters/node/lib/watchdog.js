// Say on stderr why an engine call has not answered, before clawspec's call
// timeout gives up on it (`--hang-report-ms`, default two thirds of
// clawspec's 30 s). clawspec shows an engine fault with the stderr of the
// call, so the report says what the engine was doing:
// - the event loop is free: the engine awaits something; the main thread
//   lists what Node is waiting on (process.getActiveResourcesInfo: timers,
//   file-system requests, sockets, worker ports…) and the host requests the
//   engine has not had answers to;
// - the event loop has not turned: the engine runs synchronous code (a busy
//   loop, Atomics.wait, a synchronous import, a SQLite busy wait); a watchdog
//   thread sees the stale heartbeat, pauses the main thread through the
//   inspector and prints its JavaScript stack (or says it is in native code
//   when the pause cannot land).
// Started before the warm Baseline (lib/warm.js), so a run's reset does not
// clear its timer.
import { Worker } from "node:worker_threads";

const METHOD_BYTES = 64;
/** How long the heartbeat may be stale before the main thread counts as blocked. */
const STALE_MS = 2000;
const TICK_MS = 500;

/**
 * @param {number} afterMs report a call pending this long (0: never)
 * @param {() => string[]} pendingHostRequests methods of our unanswered host/ requests
 */
export function startWatchdog(afterMs, pendingHostRequests) {
  const idle = { begin() {}, end() {} };
  if (!(afterMs > 0)) return idle;
  // [heartbeat ms, call start ms (0: none), call sequence], then the call
  // sequence last reported (whichever thread claims it first reports), then
  // the method's name.
  const shared = new SharedArrayBuffer(3 * 8 + 8 + METHOD_BYTES);
  const nums = new Float64Array(shared, 0, 3);
  const claim = new Int32Array(shared, 24, 1);
  const name = new Uint8Array(shared, 32, METHOD_BYTES);
  let current;
  let seq = 0;
  const tick = () => {
    const now = Date.now();
    nums[0] = now;
    if (current && now - current.start >= afterMs && claimed(claim, current.seq)) {
      process.stderr.write(describeAwait(current.method, now - current.start, pendingHostRequests()));
    }
  };
  tick();
  setInterval(tick, TICK_MS).unref();
  let worker;
  try {
    worker = new Worker(WATCHER, { eval: true, workerData: { shared, afterMs, staleMs: STALE_MS, tickMs: TICK_MS } });
    worker.unref();
    worker.on("error", (err) => process.stderr.write(`clawspec-node-adapter: the hang watchdog stopped: ${err?.message ?? err}\n`));
  } catch (err) {
    process.stderr.write(`clawspec-node-adapter: no hang watchdog thread: ${err?.message ?? err}\n`);
  }
  return {
    /** An engine call starts (one at a time: the adapter serves calls in order). */
    begin(method) {
      current = { method, start: Date.now(), seq: ++seq };
      name.fill(0);
      name.set(Buffer.from(String(method)).subarray(0, METHOD_BYTES));
      nums[2] = seq;
      nums[1] = current.start;
    },
    end() {
      current = undefined;
      nums[1] = 0;
    },
  };
}

/** Claim the report of call `seq` (false: already reported, by either thread). */
export function claimed(claim, seq) {
  const old = Atomics.load(claim, 0);
  return old !== seq && Atomics.compareExchange(claim, 0, old, seq) === old;
}

/** The free-event-loop report. Exported for tests. */
export function describeAwait(method, ms, hostRequests) {
  const counts = new Map();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  const resources = [...counts].map(([r, n]) => `${r} ×${n}`).join(", ") || "nothing";
  const host = hostRequests.length ? `; unanswered host requests: ${hostRequests.join(", ")}` : "; no host request pending";
  return `clawspec-node-adapter: ${method} has not answered after ${(ms / 1000).toFixed(1)} s and the event loop is free: the engine awaits something. Node is waiting on: ${resources} (the adapter's own stdin, stdout and timer included)${host}\n`;
}

// The watchdog thread. Plain JS for `eval: true` (no imports of adapter files:
// their URLs would be versioned like a run's).
const WATCHER = `
const { workerData } = require("node:worker_threads");
const fs = require("node:fs");
const inspector = require("node:inspector");
const { shared, afterMs, staleMs, tickMs } = workerData;
const nums = new Float64Array(shared, 0, 3);
const claim = new Int32Array(shared, 24, 1);
const name = new Uint8Array(shared, 32, ${METHOD_BYTES});
let busy = false;
const claimed = ${claimed.toString()};
const say = (s) => { try { fs.writeSync(2, s); } catch {} };
function methodName() {
  const end = name.indexOf(0);
  return Buffer.from(name.subarray(0, end < 0 ? name.length : end)).toString();
}
function stackOfMain(done) {
  let session;
  try {
    session = new inspector.Session();
    session.connectToMainThread();
  } catch (err) {
    return done("(no inspector: " + (err && err.message) + ")");
  }
  let finished = false;
  const finish = (text) => {
    if (finished) return;
    finished = true;
    try { session.post("Debugger.resume", () => { try { session.post("Debugger.disable", () => session.disconnect()); } catch {} }); } catch {}
    done(text);
  };
  // Frames name their script by id; Debugger.enable first announces every script.
  const urls = new Map();
  session.on("Debugger.scriptParsed", (m) => urls.set(m.params.scriptId, m.params.url));
  session.on("Debugger.paused", (m) => {
    const frames = (m.params.callFrames || []).slice(0, 16).map((f) => {
      const url = f.url || urls.get(f.location.scriptId) || "";
      const at = url ? url.replace(/[?&]clawspec-run=\\d+/, "") + ":" + (f.location.lineNumber + 1) + ":" + (f.location.columnNumber + 1) : "<anonymous>";
      return "    at " + (f.functionName || "<anonymous>") + " (" + at + ")";
    });
    finish("its JavaScript stack:\\n" + frames.join("\\n"));
  });
  session.post("Debugger.enable", () => session.post("Debugger.pause"));
  setTimeout(() => finish("the pause did not land within 3 s: it is in native code (a synchronous system call, a SQLite busy wait, Atomics.wait without a timeout)"), 3000).unref();
}
setInterval(() => {
  if (busy) return;
  const start = nums[1];
  const seq = nums[2];
  const now = Date.now();
  // A free but CPU-starved loop still gets a moment to report itself first.
  if (!start || now - start < afterMs + staleMs / 2) return;
  const stale = now - nums[0];
  if (stale < staleMs || !claimed(claim, seq)) return;
  busy = true;
  const method = methodName();
  stackOfMain((where) => {
    busy = false;
    say("clawspec-node-adapter: " + method + " has not answered after " + ((now - start) / 1000).toFixed(1) + " s and the main thread has not turned its event loop for " + (stale / 1000).toFixed(1) + " s: the engine runs synchronous code; " + where + "\\n");
  });
}, tickMs);
`;
