// Plan steps → real gateway actions, over the gateway's own WebSocket client
// protocol (openclaw docs/gateway/protocol.md). Every step is a real host
// action (an RPC a real client sends); nothing here calls the engine.
//
// `client.request(method, params, timeoutMs?)` resolves the response payload
// or rejects with an Error carrying the frame's error fields (code,
// retryable, retryAfterMs, details).

import { channelTurn } from "./channel-turn.js";
import { heartbeat } from "./heartbeat.js";
import { runInFlight } from "./in-flight.js";
import { awaitCall, calls, engineHas } from "./runs.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The gateway answers `UNAVAILABLE` + `retryable` + details.reason
 * "startup-sidecars" while its startup sidecars initialise, even after its
 * HTTP readiness probe passes (openclaw dist/startup-unavailable-*.mjs,
 * `isRetryableGatewayStartupUnavailableError`).
 */
export function isStartupUnavailable(error) {
  return (error?.gatewayCode ?? error?.code) === "UNAVAILABLE" && error?.retryable === true && error?.details?.reason === "startup-sidecars";
}

/** Retry `fn` while the gateway says it is starting, with its own bounded retry-after (100..2000 ms, as OpenClaw's client). */
export async function withStartupRetry(fn, { deadlineMs = 120_000, wait = sleep } = {}) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!isStartupUnavailable(e) || Date.now() >= until) throw e;
      const ms = Math.min(Math.max(Math.floor(Number.isFinite(e.retryAfterMs) ? e.retryAfterMs : 500), 100), 2000);
      await wait(ms);
    }
  }
}

/**
 * Tell the mock provider which scenario step is being driven (its STEP_PATH,
 * mock-providers/src/server.rs): replies of earlier steps the host never asked
 * for are dropped, so a divergence in one step does not shift later steps.
 */
export async function markStep(url, step) {
  if (!url) return null;
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ step }), signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`mock provider step marker ${url}: HTTP ${res.status}`);
  return res.json();
}

/**
 * One user turn (or slash command): chat.send (with its attachments), the
 * actions to take while a model call is held (lib/in-flight.js), then
 * agent.wait until the run ends.
 */
export async function turn(client, step, index, ctx = {}) {
  const runId = `${ctx.idPrefix ?? "clawspec"}-run-${index + 1}`;
  const attachments = step.attachments?.length ? { attachments: step.attachments } : {};
  // Queued on the session (no wake), drained by this turn (dist/system-*.mjs "system-event").
  for (const [j, text] of (step.systemEvents ?? []).entries()) {
    await client.request("system-event", { text, sessionKey: step.sessionKey, idempotencyKey: `${ctx.idPrefix ?? "clawspec"}-event-${index + 1}-${j + 1}` });
  }
  // `sendTimeoutMs`: how long the gateway may take to accept the send (host-runner sets it for 2026.4.x).
  const sent = await client.request("chat.send", { sessionKey: step.sessionKey, message: step.message, deliver: false, timeoutMs: step.timeoutMs, idempotencyKey: runId, ...attachments }, step.sendTimeoutMs);
  const run = sent?.runId ?? runId;
  client.runs?.claim(run);
  const inFlight = step.inFlight?.length ? await runInFlight(client, step, run, index, ctx) : null;
  const waited = await client.request("agent.wait", { runId: run, timeoutMs: step.timeoutMs }, step.timeoutMs + 10_000);
  for (const other of inFlight?.startedRuns ?? []) await client.request("agent.wait", { runId: other, timeoutMs: step.timeoutMs }, step.timeoutMs + 10_000);
  const settled = ctx.release4x ? await dispatchSettled(client, run, step.timeoutMs) : undefined;
  return { send: sent?.status ?? null, wait: waited?.status ?? null, error: waited?.error ?? null, ...(inFlight ? { inFlight: inFlight.done } : {}), ...(settled !== undefined ? { settled } : {}) };
}

/**
 * 2026.4.x: wait until the chat.send's dispatch of `runId` has settled, i.e.
 * the attempt has finalized the turn into the engine (afterTurn or its
 * ingests, then maintain), which the run's first agent.wait does not wait for.
 * A second agent.wait answers on the send's own terminal dedupe entry while
 * the send is still registered as an active chat run (lib/quiet.js, item 1,
 * for the dist functions), at once when it has settled already. Its status.
 */
export async function dispatchSettled(client, runId, timeoutMs) {
  const again = await client.request("agent.wait", { runId, timeoutMs }, timeoutMs + 10_000);
  return again?.status ?? null;
}

/**
 * A gateway slash command (`/compact [instructions]`): chat.send, then
 * agent.wait on the run the gateway reports. The command's answer is kept
 * in the result so a refused command shows up, not a silent no-op.
 */
export async function command(client, step, index, ctx = {}) {
  const runId = `${ctx.idPrefix ?? "clawspec"}-cmd-${index + 1}`;
  const sent = await client.request("chat.send", { sessionKey: step.sessionKey, message: step.message, deliver: false, timeoutMs: step.timeoutMs, idempotencyKey: runId });
  client.runs?.claim(sent?.runId ?? runId);
  const waited = await client.request("agent.wait", { runId: sent?.runId ?? runId, timeoutMs: step.timeoutMs }, step.timeoutMs + 10_000);
  const settled = ctx.release4x ? await dispatchSettled(client, sent?.runId ?? runId, step.timeoutMs) : undefined;
  return { send: sent?.status ?? null, wait: waited?.status ?? null, error: waited?.error ?? null, command: step.message.split(/\s/, 1)[0], ...(settled !== undefined ? { settled } : {}) };
}

/**
 * A model switch: sessions.patch {key, model: "provider/model"}, the
 * per-session model override (docs/gateway/protocol/rpc-session-control.md);
 * the next turn's attempt runs on that model. The resolved model is kept.
 */
export async function switchModel(client, step) {
  const patched = await client.request("sessions.patch", { key: step.sessionKey, model: step.model });
  return { patched: patched?.resolved ?? patched?.entry?.model ?? null, model: step.model };
}

/**
 * A run the host starts by itself in the session (a subagent completion
 * announce, lib/runs.js): wait for it to appear, then agent.wait it.
 */
export async function awaitRun(client, step, _index, ctx = {}) {
  if (!client.runs) throw new Error("awaitRun needs the runner's host-run observer");
  // `awaitCall`: host work after the run (the child's cleanup, onSubagentEnded)
  // lands in this step, not in whichever step runs when it happens (lib/runs.js).
  const follow = step.awaitCall && ctx.trace && engineHas(ctx.trace, step.awaitCall) ? step.awaitCall : null;
  const before = follow ? calls(ctx.trace, follow) : 0;
  const runId = await client.runs.next(step.sessionKey, step.timeoutMs);
  // The child this run announces ran on its own lane, concurrently with
  // whatever the runner drove then: its engine calls belong to this step
  // whenever they reached the engine (harness realhost/record.rs).
  const child = announcedChild(runId);
  if (child) ctx.mark?.({ kind: "hostRun", step: step.step, sessionKey: child, runId });
  const waited = await client.request("agent.wait", { runId, timeoutMs: step.timeoutMs }, step.timeoutMs + 10_000);
  if (follow) await awaitCall(ctx.trace, follow, before, step.timeoutMs, { disposes: ctx.release4x !== true });
  return { wait: waited?.status ?? null, error: waited?.error ?? null, hostRun: true, ...(follow ? { awaited: follow } : {}), ...(child ? { child } : {}) };
}

/**
 * The child session a completion announce run reports: the subagent
 * registry names the run `announce:v1:<childSessionKey>:<childRunId>`
 * (buildAnnounceIdempotencyKey(buildAnnounceIdFromChildRun(…)): openclaw@2026.4.26
 * dist/subagent-announce-delivery-*.js, 2026.9.6 dist/subagent-completion-admission.store-*.mjs;
 * the run ids of both releases' gateway events, events.ndjson of `twin --keep`). Null for any other run.
 */
export function announcedChild(runId) {
  const m = /^announce:v1:(agent:[^:]+:subagent:[^:]+):/.exec(runId ?? "");
  return m ? m[1] : null;
}

/**
 * The gateway `agent` RPC params of an inter-session message: the fields
 * `sessions_send` sends into an idle target (openclaw
 * dist/sessions-spawn-tool-*.mjs `sendParams`; harness realhost/inter_session.rs).
 */
export function interSessionParams(step, idempotencyKey, { release4x = false } = {}) {
  return {
    message: step.message,
    sessionKey: step.sessionKey,
    idempotencyKey,
    deliver: false,
    // 2026.4.x has no such field, and its AgentParamsSchema is closed
    // (dist/protocol-*.js; its sessions_send sends none, dist/openclaw-tools-*.js).
    ...(release4x ? {} : { sourceReplyDeliveryMode: "message_tool_only" }),
    channel: "webchat",
    inputProvenance: step.inputProvenance,
  };
}

/**
 * A message another session routes in (harness realhost/inter_session.rs):
 * the gateway's `agent` RPC with its inputProvenance, then agent.wait.
 */
export async function interSession(client, step, index, ctx = {}) {
  const key = `${ctx.idPrefix ?? "clawspec"}-inter-${index + 1}`;
  const sent = await client.request("agent", interSessionParams(step, key, { release4x: ctx.release4x === true }));
  const run = sent?.runId ?? key;
  client.runs?.claim(run);
  const waited = await client.request("agent.wait", { runId: run, timeoutMs: step.timeoutMs }, step.timeoutMs + 10_000);
  return { send: sent?.status ?? null, wait: waited?.status ?? null, error: waited?.error ?? null };
}

/** Plan step kind → driver. */
export const DRIVERS = { turn, command, switchModel, awaitRun, heartbeat, interSession, channelTurn };

/** `ctx.holdUrl`: the mock provider's hold front, for in-flight actions. */
export async function drive(client, step, index, ctx = {}) {
  const driver = DRIVERS[step.kind];
  if (!driver) throw new Error(`unknown plan step kind ${step.kind}`);
  return driver(client, step, index, ctx);
}
