import fs from "node:fs";

// The end of a step on 2026.4.x (host-runner.mjs driveRow), where the host
// answers agent.wait before its engine work for the run is done.
//
// 1. The event: 2026.4.26 answers agent.wait at the run's lifecycle end, which
//    the pi session's `agent_end` emits (dist/selection-*.js handleAgentEnd →
//    emitAgentEvent lifecycle "end"), while the attempt still has to finalize
//    the turn into the engine: afterTurn, or ingestBatch / one ingest per new
//    message, then maintain (dist/attempt.tool-run-context-*.js
//    finalizeHarnessContextEngineTurn, awaited by runEmbeddedAttempt in
//    dist/selection-*.js). A chat.send's dispatch resolves only after all of
//    that, and then sets its terminal dedupe entry `chat:<runId>`
//    (dist/chat-*.js "chat.send": dispatchInboundMessage(…).then →
//    setGatewayDedupeEntry, the run's abort controller removed only in the
//    `.finally` after it). agent.wait asked again while that controller is
//    registered ignores the lifecycle snapshot and waits for the dedupe entry
//    (dist/server-methods-*.js "agent.wait": hasActiveChatRun →
//    ignoreAgentTerminalSnapshot / ignoreCachedSnapshot, raced with
//    waitForTerminalGatewayDedupe). lib/steps.js `dispatchSettled` asks it.
//
// 2. The quiet, for what the host starts without awaiting it (deferred turn
//    maintenance, dist/context-engine-maintenance-*.js
//    runContextEngineMaintenance with turnMaintenanceMode "background"; a
//    spawned child's run) and for steps with no such event: the bridge's trace
//    has not grown, the bridge has no engine call in flight (index.js writes
//    the count next to the trace: a call the host started but the engine has
//    not answered is not in the trace yet), and no thread of the gateway's
//    process tree (gateway, its children, the engine) is runnable, for
//    `quietMs` of wall time and at least as many samples as fit in it. A
//    process starved of CPU is runnable (state R), so under load the quiet
//    waits instead of ending early: the old trace-only quiet (1.5 s of an
//    unchanged trace) ended while a starved gateway had not reached the
//    engine yet.

/** Fields of a /proc/<pid>/stat line after "pid (comm) ": state, ppid, pgrp. */
export function parseStat(text) {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const pid = Number(text.slice(0, text.indexOf(" ")));
  const f = text.slice(close + 2).split(" ");
  return { pid, state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]) };
}

/** The pids of `procs` ({pid, ppid, pgrp}) in `root`'s process group or below `root` (the engine runs in a group of its own). */
export function treeOf(procs, root) {
  const children = new Map();
  for (const p of procs) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(p.pid);
  }
  const out = new Set(procs.filter((p) => p.pgrp === root).map((p) => p.pid));
  const stack = [root, ...out];
  while (stack.length) {
    const pid = stack.pop();
    for (const c of children.get(pid) ?? []) {
      if (out.has(c)) continue;
      out.add(c);
      stack.push(c);
    }
  }
  if (procs.some((p) => p.pid === root)) out.add(root);
  return [...out].sort((a, b) => a - b);
}

const readOr = (file, fallback) => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
};

/** Every process on this machine as {pid, ppid, pgrp, state}; [] without /proc. */
export function processes(proc = "/proc") {
  let dirs;
  try {
    dirs = fs.readdirSync(proc).filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  return dirs.flatMap((d) => {
    const p = parseStat(readOr(`${proc}/${d}/stat`, ""));
    return p ? [p] : [];
  });
}

/** The states of every thread of `pid` (a thread that vanished is left out). */
export function threadStates(pid, proc = "/proc") {
  let tasks;
  try {
    tasks = fs.readdirSync(`${proc}/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((t) => {
    const p = parseStat(readOr(`${proc}/${pid}/task/${t}/stat`, ""));
    return p ? [p.state] : [];
  });
}

/** Whether any thread of `root`'s tree is runnable (R: running or waiting for a CPU). */
export function treeRunnable(root, proc = "/proc") {
  const self = process.pid;
  return treeOf(processes(proc), root).some((pid) => pid !== self && threadStates(pid, proc).includes("R"));
}

/** The bridge's count of engine calls in flight (index.js), `${trace}.inflight`: none yet is 0, unreadable is busy. */
export function inFlightCalls(trace) {
  const text = readOr(`${trace}.inflight`, null);
  if (text === null) return 0;
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? n : 1;
}

/**
 * Resolve once `sample()` ({size, inFlight, runnable}) has been quiet — size
 * unchanged from the previous sample, nothing in flight, nothing runnable —
 * for `quietMs` of wall time and at least `quietMs / pollMs` consecutive
 * samples; at `maxMs` or once `stop()` is true, whichever first. Answers why
 * it ended ("quiet" | "max" | "stop"), after how long, and how many samples.
 */
export async function settle(sample, { quietMs = 500, maxMs = 20_000, pollMs = 100, stop = () => false, now = Date.now, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) } = {}) {
  const t0 = now();
  const need = Math.max(1, Math.ceil(quietMs / pollMs));
  let last = sample();
  let quietSince = null;
  let run = 0;
  let samples = 1;
  for (;;) {
    if (stop()) return { reason: "stop", ms: now() - t0, samples };
    if (now() - t0 >= maxMs) return { reason: "max", ms: now() - t0, samples };
    await sleep(pollMs);
    const s = sample();
    samples += 1;
    const quiet = s.size === last.size && s.inFlight === 0 && !s.runnable;
    last = s;
    if (!quiet) {
      [quietSince, run] = [null, 0];
      continue;
    }
    if (quietSince === null) quietSince = now();
    run += 1;
    if (run >= need && now() - quietSince >= quietMs) return { reason: "quiet", ms: now() - t0, samples };
  }
}

/** The live sample for `settle`: the trace's size, the bridge's in-flight count, the gateway tree's runnable threads. */
export function gatewaySample(trace, gatewayPid) {
  return () => {
    let size = 0;
    try {
      size = fs.statSync(trace).size;
    } catch {}
    return { size, inFlight: inFlightCalls(trace), runnable: gatewayPid ? treeRunnable(gatewayPid) : false };
  };
}
