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
