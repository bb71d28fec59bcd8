import fs from "node:fs";

// Runs the real host starts by itself — a subagent's completion announce is a
// follow-up `agent` run in the requester session (openclaw
// docs/tools/subagents/announce.md) — are found by the gateway events every
// operator connection receives: `agent` events carry `runId` and
// `sessionKey` (docs/gateway/protocol/rpc-bootstrap-and-events.md). The
// runner claims the runs it starts itself (chat.send), so "the next run of
// this session" is one the host started.

/** The run a gateway event frame belongs to, if any: `{runId, sessionKey}`. */
export function runOf(frame) {
  const p = frame?.payload;
  if (frame?.type !== "event" || frame.event !== "agent" || typeof p?.runId !== "string" || typeof p?.sessionKey !== "string") return null;
  return { runId: p.runId, sessionKey: p.sessionKey };
}

export class HostRuns {
  constructor({ log, maxLogged = 5000 } = {}) {
    this.seen = new Map(); // sessionKey → runIds in order of first event
    this.claimed = new Set();
    this.waiters = [];
    this.log = log;
    this.logged = 0;
    this.maxLogged = maxLogged;
  }

  /** Feed one gateway frame. */
  observe(frame) {
    if (this.log && this.logged < this.maxLogged) {
      this.logged += 1;
      this.log({ event: frame.event, payload: frame.payload });
    }
    const run = runOf(frame);
    if (!run) return;
    const ids = this.seen.get(run.sessionKey) ?? [];
    if (ids.includes(run.runId)) return;
    ids.push(run.runId);
    this.seen.set(run.sessionKey, ids);
    for (const w of [...this.waiters]) w();
  }

  /** A run the runner started itself (chat.send), never awaited as a host run. */
  claim(runId) {
    this.claimed.add(runId);
  }

  /**
   * Call `fn(runId)` as soon as a run of `sessionKey` nobody claimed is seen
   * (it is claimed then); returns a function that stops watching.
   */
  whenRun(sessionKey, fn) {
    const w = () => {
      const id = (this.seen.get(sessionKey) ?? []).find((r) => !this.claimed.has(r));
      if (!id) return;
      this.claimed.add(id);
      stop();
      fn(id);
    };
    const stop = () => {
      this.waiters = this.waiters.filter((x) => x !== w);
    };
    this.waiters.push(w);
    w();
    return stop;
  }

  /** The first run of `sessionKey` nobody claimed, claimed now; waits up to `timeoutMs`. */
  next(sessionKey, timeoutMs) {
    const take = () => {
      const id = (this.seen.get(sessionKey) ?? []).find((r) => !this.claimed.has(r));
      if (id) this.claimed.add(id);
      return id;
    };
    const now = take();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const w = () => {
        const id = take();
        if (!id) return;
        clearTimeout(t);
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(id);
      };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error(`no host-started run in session ${sessionKey} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(w);
    });
  }
}

/**
 * Host work that follows a run without a run of its own — the subagent
 * registry's cleanup after a completion announce calls the engine's
 * `onSubagentEnded` (dist subagent-registry-context-cleanup) — is seen in
 * the bridge's trace. `calls(file, method)` counts the engine calls of
 * `method` recorded so far; `engineHas(file, method)` says whether the engine
 * implements it (the bridge's `initialize` record), i.e. whether the host
 * will call it at all.
 */
function records(file) {
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").flatMap((l) => {
    try {
      return l ? [JSON.parse(l)] : [];
    } catch {
      return []; // a line still being written
    }
  });
}

export function calls(file, method) {
  return records(file).filter((r) => r.kind === "call" && r.method === method && "reply" in r).length;
}

export function engineHas(file, method) {
  return records(file).some((r) => r.kind === "initialize" && Array.isArray(r.methods) && r.methods.includes(method));
}

/** Whether a finished `dispose` follows the last finished call of `method` (the call's engine instance is gone). */
export function disposedAfter(file, method) {
  const rs = records(file).filter((r) => r.kind === "call" && "reply" in r);
  const last = rs.findLastIndex((r) => r.method === method);
  return last >= 0 && rs.slice(last + 1).some((r) => r.method === "dispose");
}

/**
 * 2026.9.x disposes a `/compact` command's engine instance in the background:
 * the command's result is answered first and `engine?.dispose?.()` runs in the
 * finally after the foreground work (a compaction's maintain) closes (dist
 * embedded-agent-*.mjs, the resolveEngine/transferEngine scope), so agent.wait
 * may answer before it and the dispose landed in the next step (twin
 * compact-state-effect on builtin:window: step 4, not 3). For an engine with
 * `dispose`, wait until `file` records more than `since` finished disposes.
 * Bounded and never throwing: a host that does not dispose is recorded as it is.
 * Resolves whether the dispose came.
 */
export async function awaitCommandDispose(file, since, timeoutMs, pollMs = 100) {
  if (!engineHas(file, "dispose")) return false;
  const until = Date.now() + timeoutMs;
  while (calls(file, "dispose") <= since) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}

/**
 * Resolve once `file` records more than `since` finished calls of `method`; reject after `timeoutMs`.
 * `disposes`: the host disposes the engine instance it made the call on (2026.9.x). 2026.4.x
 * resolves the engine for `onSubagentEnded` and never disposes it (openclaw@2026.4.26
 * dist/subagent-registry-*.js notifyContextEngineSubagentEnded: `resolveSubagentRegistryContextEngine`,
 * `engine.onSubagentEnded(params)`, no dispose), so waiting for one would time out.
 */
export async function awaitCall(file, method, since, timeoutMs, { pollMs = 100, disposes = true } = {}) {
  const until = Date.now() + timeoutMs;
  while (calls(file, method) <= since) {
    if (Date.now() > until) throw new Error(`the host made no ${method} call within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
  // The host disposes the instance it made the call on; that belongs here too.
  if (!disposes || !engineHas(file, "dispose")) return;
  while (!disposedAfter(file, method)) {
    if (Date.now() > until) throw new Error(`the host did not dispose the engine instance of its ${method} call within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * A stop condition for the 2026.4.x end-of-step quiet wait (lib/quiet.js settle,
 * host-runner.mjs): true once `file` records, after the moment this is called, an
 * engine call of another session than `sessionKey`. After a spawn turn the
 * child's run starts right away (2026.4.26 twin of subagent-ended-reasons: the
 * second child ran while the runner waited for quiet), and its announce run
 * in the parent session would then be driven under the spawn turn's step: its
 * scripted reply belongs to the next step, which is not marked yet. The
 * parent's own calls have ended by then (its lane runs the child only after).
 */
export function otherSessionCalled(file, sessionKey) {
  const seen = records(file).length;
  return () => records(file).slice(seen).some((r) => r.kind === "call" && typeof r.params?.sessionKey === "string" && r.params.sessionKey !== sessionKey);
}
