// Host actions taken while one of the run's model calls is in flight: a
// message steered into the running turn, a user abort. The mock provider
// holds that call's answer (clawspec mock-providers/src/hold.rs) until we
// release it, so the action lands where the script says, never by timing:
// wait until the held call reached the mock → act → the gateway
// acknowledges → release.

export const WAIT_PATH = "/__clawspec/hold/wait";
export const RELEASE_PATH = "/__clawspec/hold/release";

/** POST to the hold front; a held call that never arrives is an error naming it. */
export async function holdControl(base, path, body) {
  const timeoutMs = (body.timeoutMs ?? 10_000) + 10_000;
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`hold front ${path} (hold ${body.hold}): HTTP ${res.status} ${answer.error ?? ""}`.trim());
  return answer;
}

export const PAUSE_PATH = "/__clawspec/hold/pause";

/** Wait (inside the gateway, from the bridge) until the driver releases `hold`. */
export async function pauseOnHold(base, hold) {
  if (!base) throw new Error(`clawspec bridge: hold ${hold} needs the mock provider's hold front (config.holdUrl)`);
  const res = await fetch(`${base}${PAUSE_PATH}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ hold }) });
  if (!res.ok) throw new Error(`hold front ${PAUSE_PATH} (hold ${hold}): HTTP ${res.status}`);
}

/**
 * How a chat.send asks to be steered into the session's active run.
 * 2026.9: the send's own `queueMode: "steer"` (docs/gateway/protocol/rpc-session-control.md).
 * 2026.4.x: its ChatSendParamsSchema is closed and has no queueMode (dist/protocol-*.js),
 * so the send is a plain one and the session's queue mode decides: the host runner
 * configures `messages.queue.mode: "steer"` (steerQueueConfig), and the reply
 * pipeline hands a message that arrives while the run streams to the run
 * (dist/queue-*.js resolveQueueSettings; dist/get-reply-*.js `shouldSteer`;
 * dist/agent-runner.runtime-*.js `shouldSteer && isStreaming` → queueEmbeddedPiMessage).
 */
export function steerMode(release4x) {
  return release4x ? {} : { queueMode: "steer" };
}

/**
 * The config a run needs for its steers on 2026.4.x: the global queue mode
 * `messages.queue.mode` (dist/zod-schema.core-*.js; resolveQueueSettings reads it
 * after the per-message and per-session modes, none of which a plain chat.send sets).
 * Only for plans that steer: other messages never arrive while a run is active.
 */
export function steerQueueConfig(plan, release4x, messages = {}) {
  const steers = (plan.steps ?? []).some((s) => (s.inFlight ?? []).some((a) => a.action === "steer"));
  return release4x && steers ? { messages: { ...messages, queue: { ...(messages.queue ?? {}), mode: "steer" } } } : {};
}

/** The actions grouped by the hold they wait for, in plan order. */
export function byHold(actions) {
  const groups = new Map();
  for (const a of actions) {
    if (!groups.has(a.hold)) groups.set(a.hold, []);
    groups.get(a.hold).push(a);
  }
  return [...groups.entries()];
}

/**
 * Run `step.inFlight` against run `runId`. Returns what the gateway answered
 * to each action, and the ids of runs a steer started instead of joining the
 * active one (the caller waits for those too, so nothing is left running).
 */
export async function runInFlight(client, step, runId, index, { holdUrl, control = holdControl, release4x = false } = {}) {
  if (!holdUrl) throw new Error("in-flight actions need the mock provider's hold front (plan.provider.holdUrl)");
  const done = [];
  const startedRuns = [];
  for (const [hold, actions] of byHold(step.inFlight)) {
    await control(holdUrl, WAIT_PATH, { hold, timeoutMs: step.timeoutMs });
    try {
      for (const [j, a] of actions.entries()) {
        if (a.action === "steer") {
          // docs/gateway/protocol/rpc-session-control.md: a steer send injects into the active run, or starts a turn when idle.
          const key = `clawspec-steer-${index + 1}-${hold}-${j + 1}`;
          const r = await client.request("chat.send", { sessionKey: step.sessionKey, message: a.message, ...steerMode(release4x), deliver: false, timeoutMs: step.timeoutMs, idempotencyKey: key });
          const steerRun = r?.runId ?? key;
          if (release4x && steerRun !== runId) {
            // 2026.4.x answers the send "started" before its reply pipeline decides to
            // steer (dist/chat-*.js dispatches after responding), and decides by whether the
            // run is still streaming (dist/agent-runner.runtime-*.js `shouldSteer && isStreaming`).
            // So the held call stays held until that dispatch has settled (its dedupe entry,
            // which agent.wait reads: dist/server-methods-*.js waitForTerminalGatewayDedupe).
            const settled = await client.request("agent.wait", { runId: steerRun, timeoutMs: step.timeoutMs }, step.timeoutMs + 10_000);
            done.push({ action: "steer", hold, status: r?.status ?? null, settled: settled?.status ?? null });
            continue;
          }
          if (steerRun !== runId && r?.status === "started") startedRuns.push(steerRun);
          done.push({ action: "steer", hold, status: r?.status ?? null });
        } else if (a.action === "abort") {
          const r = await client.request("chat.abort", { sessionKey: step.sessionKey, runId });
          done.push({ action: "abort", hold, aborted: r?.aborted ?? null });
        } else {
          throw new Error(`unknown in-flight action ${a.action}`);
        }
      }
    } finally {
      // Also on failure: a held call must not outlive the step.
      await control(holdUrl, RELEASE_PATH, { hold });
    }
  }
  return { done, startedRuns };
}
