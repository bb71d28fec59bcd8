#!/usr/bin/env node
// Drives one scenario through a real OpenClaw gateway: writes an isolated
// config (bridge plugin selected as the context engine, the model provider
// pointed at clawspec's mock provider), starts `openclaw gateway run` on
// loopback with an isolated HOME / state dir / env allow-list, connects with
// the gateway's own WebSocket client protocol (connect → chat.send →
// agent.wait), and runs the plan's steps in order. The bridge records the
// engine calls; this runner records step boundaries into the same trace.
//
// Usage: node host-runner.mjs PLAN.json   (plan written by `clawspec twin`)
// Output: the plan's `result` file (JSON), and the plan's `trace` NDJSON.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { compileCacheWarm, connect, freePort, freezeTrace, gatewayEnv, groupCpuMs, markCompileCacheWarm, packagedCompileCacheDir, startGateway as startGateway_, stopGateway } from "./lib/gateway.js";
import { HostRuns } from "./lib/runs.js";
import { drive, markStep, withStartupRetry } from "./lib/steps.js";
import { prepareStandIns } from "./lib/tools.js";

const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const started = Date.now();
const result = { ok: false, timing: {}, steps: [], error: null };
const work = plan.workDir;
const dirs = { home: `${work}/home`, state: `${work}/state`, workspace: `${work}/workspace`, engine: `${work}/engine` };
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
const mark = (entry) => fs.appendFileSync(plan.trace, `${JSON.stringify(entry)}\n`);

const UTILITY_MODEL = "clawspec-utility";
// The host release, from its own package.json: config keys differ per release.
const HOST_VERSION = JSON.parse(fs.readFileSync(path.join(plan.openclawRoot, "package.json"), "utf8")).version;
// `agents.defaults.utilityModel` exists in 2026.9 (docs/gateway/config-agents/models.md);
// 2026.4.26 rejects it as an unrecognized key.
const HAS_UTILITY_MODEL = !/^2026\.[1-4]\./.test(HOST_VERSION);
const RELEASE_4X = /^2026\.[1-4]\./.test(HOST_VERSION);
const zeroCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

function config(port, token) {
  const p = plan.provider;
  const ref = `${p.id}/${p.model}`;
  return {
    plugins: {
      load: { paths: [plan.bridge.dir] },
      slots: { contextEngine: plan.bridge.engineId },
      entries: {
        "clawspec-bridge": {
          enabled: true,
          config: {
            engineId: plan.bridge.engineId,
            engine: { ...plan.bridge.engine, cwd: dirs.engine },
            profile: plan.profile,
            ...(plan.bridge.engineConfig !== undefined ? { engineConfig: plan.bridge.engineConfig } : {}),
            trace: plan.trace,
            openclawRoot: plan.openclawRoot,
            ...(plan.toolResults?.length ? { toolResults: plan.toolResults } : {}),
            ...(plan.provider.holdUrl ? { holdUrl: plan.provider.holdUrl } : {}),
          },
        },
      },
    },
    agents: {
      // Utility tasks (session titles, activity recaps) on their own model id, so
      // they never consume the scenario's scripted replies (docs/concepts/models.md
      // agents.defaults.utilityModel; recaps: dist/server-runtime-subscriptions-*.mjs).
      defaults: { workspace: dirs.workspace, model: { primary: ref }, ...(HAS_UTILITY_MODEL ? { utilityModel: `${p.id}/${UTILITY_MODEL}` } : {}), ...(plan.agentDefaults ?? {}), ...(plan.hostSetup?.agentDefaults ?? {}) },
      list: [{ id: plan.hostSetup?.agentId ?? "main", default: true }],
    },
    models: {
      mode: "replace",
      providers: {
        [p.id]: {
          baseUrl: p.baseUrl,
          apiKey: "clawspec-mock-not-a-key",
          api: p.api,
          request: { allowPrivateNetwork: true },
          // A scripted timeout: the mock holds its answer past this (docs/concepts/agent-loop.md "Provider HTTP request timeout").
          ...(p.timeoutSeconds ? { timeoutSeconds: p.timeoutSeconds } : {}),
          models: [
            { id: p.model, name: p.model, api: p.api, reasoning: false, input: ["text", "image"], cost: zeroCost, contextWindow: p.contextWindow, maxTokens: p.maxTokens },
            { id: UTILITY_MODEL, name: UTILITY_MODEL, api: p.api, reasoning: false, input: ["text"], cost: zeroCost, contextWindow: 200_000, maxTokens: 4096 },
          ],
        },
        // Models a switch_model step moves to (sessions.patch {model}), each on its own mock.
        ...Object.fromEntries(
          (plan.extraProviders ?? []).map((x) => [
            x.id,
            {
              baseUrl: x.baseUrl,
              apiKey: "clawspec-mock-not-a-key",
              api: x.api,
              request: { allowPrivateNetwork: true },
              // sessions.patch refuses an openai/* model whose implicit runtime is the
              // Codex harness (dist/sessions-patch-*.mjs); OpenClaw's own runtime is
              // chosen explicitly (docs/concepts/agent-runtimes.md). 2026.4.x has no such key.
              ...(HAS_UTILITY_MODEL ? { agentRuntime: { id: "openclaw" } } : {}),
              models: [{ id: x.model, name: x.model, api: x.api, reasoning: false, input: ["text", "image"], cost: zeroCost, contextWindow: p.contextWindow, maxTokens: p.maxTokens }],
            },
          ]),
        ),
      },
    },
    gateway: { mode: "local", bind: "loopback", port, auth: { mode: "token", token }, controlUi: { enabled: false } },
    discovery: { mdns: { mode: "off" } },
    update: { checkOnStart: false },
    logging: { file: `${work}/openclaw.log` },
    // Scenario setup that is plain config (tools.allow, memory.citations; realhost/seed.rs).
    ...(plan.hostSetup?.config ?? {}),
    // A scripted sessions_spawn is a direct tool call: with tools.toolSearch unset, 2026.9 defers
    // non-core tool schemas behind tool_search/tool_call and a direct call answers "Tool
    // sessions_spawn not found" (docs/tools/tool-search.md: "Set `tools.toolSearch: false` to restore
    // direct schemas"; observed with twin --keep). 2026.4.x has no such key.
    ...(plan.subagents?.directTools && HAS_UTILITY_MODEL ? { tools: { ...(plan.hostSetup?.config?.tools ?? {}), toolSearch: false } } : {}),
  };
}

/** The scenario's pre-existing session, written by the host's own code before it starts (lib/seed.js). */
function seedSession(env) {
  const spec = `${work}/seed.json`;
  fs.writeFileSync(spec, JSON.stringify({ openclawRoot: plan.openclawRoot, stateDir: dirs.state, workspace: dirs.workspace, seed: plan.hostSetup.seed }));
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, "lib/seed.js"), spec], { env, cwd: work, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`seeding the session failed: ${(r.stderr || String(r.error ?? "")).trim()}`);
  return JSON.parse(r.stdout);
}

async function startGateway() {
  const port = await freePort();
  const token = `clawspec-${process.pid}-${port}`;
  const configPath = `${work}/openclaw.json`;
  fs.writeFileSync(configPath, `${JSON.stringify(config(port, token), null, 2)}\n`, { mode: 0o600 });
  const env = gatewayEnv({ work, dirs, configPath, port, token, stageDir: plan.stageDir, npmEnv: plan.npmEnv, compileCacheDir: plan.compileCacheDir && packagedCompileCacheDir(plan.compileCacheDir, plan.openclawRoot), path: process.env.PATH, release4x: RELEASE_4X });
  fs.mkdirSync(env.TMPDIR, { recursive: true });
  fs.writeFileSync(env.NPM_CONFIG_USERCONFIG, "");
  if (plan.hostSetup?.seed) result.seeded = seedSession(env);
  if (plan.toolResults?.length) prepareStandIns(fs, dirs.workspace);
  let child = null;
  process.on("exit", () => {
    try {
      if (child) process.kill(-child.pid, "SIGKILL");
    } catch {}
  });
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));
  // 2026.4.x (stageDir set) may stage plugin dependencies with a blocking npm
  // install before it is ready; the first start of a version takes minutes.
  const startTimeoutMs = plan.startTimeoutMs ?? (plan.stageDir ? 600_000 : 120_000);
  await startGateway_({ openclawRoot: plan.openclawRoot, work, env, port, token, startTimeoutMs, onStart: (c) => (child = c) });
  return { port, token, child };
}

/** Resolve once `file` has not grown for `quietMs` (at most `maxMs`). */
async function traceQuiet(file, { quietMs = 1500, maxMs = 20_000 } = {}) {
  const size = () => {
    try {
      return fs.statSync(file).size;
    } catch {
      return 0;
    }
  };
  const until = Date.now() + maxMs;
  let last = size();
  let since = Date.now();
  while (Date.now() < until && Date.now() - since < quietMs) {
    await new Promise((r) => setTimeout(r, 100));
    const now = size();
    if (now !== last) [last, since] = [now, Date.now()];
  }
}

try {
  const t0 = Date.now();
  const gw = await startGateway();
  result.timing.gatewayStartMs = Date.now() - t0;
  result.timing.gatewayStartCpuMs = groupCpuMs(gw.child.pid);
  // The WebSocket handshake is refused while startup sidecars initialise (lib/steps.js).
  // Runs the host starts by itself (subagent announces) are found by their gateway events (lib/runs.js).
  const runs = new HostRuns({ log: (e) => fs.appendFileSync(`${work}/events.ndjson`, `${JSON.stringify(e)}\n`) });
  const client = await withStartupRetry(() => connect(gw, (frame) => runs.observe(frame)));
  client.runs = runs;
  for (const [index, step] of plan.steps.entries()) {
    const ts = Date.now();
    mark({ kind: "step", step: step.step });
    const marked = await markStep(plan.provider.stepUrl, step.step);
    // 2026.4.x (stageDir set) may stage a plugin's npm dependencies inside the
    // turn, blocking the gateway (see startGateway); give the wait that margin.
    // 2026.4.x prepares plugins inside the first turn (minutes on a loaded
    // machine: plugin manifest rescans, plugin-sdk alias checks per plugin load).
    const margin = RELEASE_4X ? 900_000 : plan.stageDir ? 300_000 : 0;
    const outcome = await drive(client, margin ? { ...step, timeoutMs: step.timeoutMs + margin } : step, index, { holdUrl: plan.provider.holdUrl, trace: plan.trace });
    // 2026.4.x answers agent.wait when the run's lifecycle ends, while the
    // legacy-mode ingests of the attempt's messages may still be on their way
    // to the engine (seen in the first 4.26 twins: turn 1's ingests recorded
    // under step 2). Wait for the bridge's trace to go quiet before the next
    // step's boundary, so every call lands in the step that caused it.
    if (RELEASE_4X) await traceQuiet(plan.trace);
    result.steps.push({ step: step.step, ...outcome, unaskedReplies: marked?.dropped ?? null, timing: { wallMs: Date.now() - ts } });
  }
  mark({ kind: "end" });
  // Let background work (deferred maintenance, disposal) land in the trace.
  await new Promise((r) => setTimeout(r, plan.settleMs ?? 500));
  client.close();
  result.timing.gatewayCpuMs = groupCpuMs(gw.child.pid);
  const thaw = freezeTrace(plan.trace);
  const ts = Date.now();
  // A cold compile cache is written only by a clean exit (lib/gateway.js).
  const warm = compileCacheWarm(plan.compileCacheDir, HOST_VERSION);
  result.gatewayStop = await stopGateway(gw.child, { graceMs: plan.compileCacheDir && !warm ? 30_000 : 0 });
  if (result.gatewayStop === "sigterm" && !warm) markCompileCacheWarm(plan.compileCacheDir, HOST_VERSION);
  result.timing.gatewayStopMs = Date.now() - ts;
  thaw();
  result.ok = true;
} catch (e) {
  result.error = String(e?.message ?? e);
}
result.timing.totalMs = Date.now() - started;
fs.writeFileSync(plan.result, `${JSON.stringify(result, null, 2)}\n`);
process.exit(result.ok ? 0 : 1);
