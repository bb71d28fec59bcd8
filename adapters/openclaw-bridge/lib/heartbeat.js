// A plain heartbeat poll, run now through the gateway's automation RPCs
// (harness/src/realhost/heartbeat.rs says why this is the event-free
// scheduled poll): find the agent's system-owned heartbeat monitor job
// (`cron.list`, payload kind `heartbeat`: openclaw
// docs/automation/cron-jobs/payloads.md), force-run it (`cron.run`, which
// answers `{ok, enqueued, runId}` once the run is queued: docs/cli/cron.md
// "Manual runs"), then poll that run's history row (`cron.runs {id, runId}`)
// until it has a terminal status, as `openclaw automations run --wait` does.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The heartbeat monitor job of `agentId` in a `cron.list` page. */
export function monitorJob(page, agentId) {
  const jobs = page?.jobs ?? page?.entries ?? [];
  return jobs.find((j) => j?.payload?.kind === "heartbeat" && (j.agentId === undefined || j.agentId === agentId)) ?? null;
}

/** The finished row of `runId` in a `cron.runs` page, if any. */
export function finishedRun(page, runId) {
  return (page?.entries ?? []).find((e) => e?.runId === runId && typeof e.status === "string") ?? null;
}

/**
 * 2026.4.x (`step.every` set; harness/src/realhost/heartbeat.rs for_release
 * says why): set `agents.defaults.heartbeat.every` to `step.every` in the
 * gateway's config file (its watcher hot-reloads that path: the runner
 * re-plans its next interval tick within the interval), wait for the tick's
 * `heartbeat` event (`last-heartbeat`, dist/heartbeat-events-*.js: every run
 * ends with one), and set the cadence back to `step.restoreEvery` so no other
 * tick fires. The file, not `config.patch`: the gateway's own writer
 * materialises defaults (plugins.entries.*.config, commands) into the file,
 * which its reloader then treats as a restart-requiring change (observed:
 * "config change requires gateway restart (plugins.entries.anthropic.config,
 * plugins.entries.memory-core, commands)", then SIGUSR1).
 */
export function setEvery(fs, configPath, every) {
  const cfg = JSON.parse(fs.readFileSync(configPath, "utf8"));
  cfg.agents ??= {};
  cfg.agents.defaults ??= {};
  cfg.agents.defaults.heartbeat = { ...(cfg.agents.defaults.heartbeat ?? {}), every };
  fs.writeFileSync(configPath, `${JSON.stringify(cfg, null, 2)}\n`, { mode: 0o600 });
}

/** A heartbeat event of a tick that ran (or ended for good) after `since`; null while none. */
export function tickAfter(evt, since) {
  if (!evt || typeof evt.ts !== "number" || evt.ts < since) return null;
  // A tick that met a busy lane is retried by the runner itself (heartbeat-wake-*.js DEFAULT_RETRY_MS).
  if (evt.status === "skipped" && evt.reason === "requests-in-flight") return null;
  return evt;
}

/**
 * The cadence goes back to `step.restoreEvery` as soon as the tick's agent
 * run starts (its first `agent` event in the session: `client.runs`), not
 * when its `heartbeat` event is seen: the runner plans the next tick one
 * interval after this one's start (dist/heartbeat-runner-*.js
 * `advanceAgentSchedule` with the tick's `now`), and on a loaded machine the
 * event poll plus the file watcher's reload took longer than that — a second,
 * unscripted heartbeat then ran (observed: twin of heartbeat-ok, two polls
 * 4.8 s apart with `every: 10s`). A reload applied while the run is in flight
 * re-plans the agent at the restored cadence before the runner schedules again.
 */
async function intervalHeartbeat(client, step, { pollMs, fs, configPath }) {
  const until = Date.now() + step.timeoutMs;
  const since = Date.now();
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    setEvery(fs, configPath, step.restoreEvery);
  };
  setEvery(fs, configPath, step.every);
  const stopWatching = step.sessionKey && client.runs?.whenRun ? client.runs.whenRun(step.sessionKey, restore) : () => {};
  let evt = null;
  try {
    for (;;) {
      evt = tickAfter(await client.request("last-heartbeat", {}), since);
      if (evt) break;
      if (Date.now() >= until) throw new Error(`step ${step.step}: no heartbeat tick within ${step.timeoutMs} ms of agents.defaults.heartbeat.every=${step.every}`);
      await sleep(pollMs);
    }
  } finally {
    stopWatching();
    restore();
  }
  // `reason` is the run's trigger ("interval") or, for a skip or failure, why.
  return { heartbeat: { status: evt.status, reason: evt.reason ?? null, error: evt.status === "failed" ? (evt.reason ?? null) : null, summary: evt.preview ?? null, sessionKey: null }, hostRun: true };
}

export async function heartbeat(client, step, index, { pollMs = 200, fs, configPath } = {}) {
  if (step.every) {
    if (!fs || !configPath) throw new Error(`step ${step.step}: a 2026.4.x heartbeat needs the gateway's config file`);
    return intervalHeartbeat(client, step, { pollMs, fs, configPath });
  }
  const until = Date.now() + step.timeoutMs;
  // The gateway writes the monitor row when its automation service starts
  // (dist/server-cron-*.mjs reconcileSystemJobs → heartbeat-monitor-*.mjs),
  // which may finish after the client connected: wait for it.
  let job = null;
  for (;;) {
    job = monitorJob(await client.request("cron.list", { includeDisabled: true, agentId: step.agentId }), step.agentId);
    if (job) break;
    if (Date.now() >= until) throw new Error(`step ${step.step}: no heartbeat monitor job for agent ${step.agentId} in cron.list within ${step.timeoutMs} ms (is agents.defaults.heartbeat enabled?)`);
    await sleep(pollMs);
  }
  const queued = await client.request("cron.run", { id: job.id, mode: "force" });
  if (!queued?.runId) throw new Error(`step ${step.step}: cron.run of the heartbeat monitor ${job.id} queued no run: ${JSON.stringify(queued)}`);
  for (;;) {
    const row = finishedRun(await client.request("cron.runs", { id: job.id, runId: queued.runId, limit: 5 }), queued.runId);
    if (row) {
      // A skipped or failed poll is a result, not an error: the trace shows what the host did.
      return { heartbeat: { status: row.status, error: row.error ?? null, summary: row.summary ?? null, sessionKey: row.sessionKey ?? null }, hostRun: true };
    }
    if (Date.now() >= until) throw new Error(`step ${step.step}: heartbeat run ${queued.runId} did not finish within ${step.timeoutMs} ms`);
    await sleep(pollMs);
  }
}
