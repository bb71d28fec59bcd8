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

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

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

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const UTILITY_MODEL = "clawspec-utility";
// The host release, from its own package.json: config keys differ per release.
const HOST_VERSION = JSON.parse(fs.readFileSync(path.join(plan.openclawRoot, "package.json"), "utf8")).version;
// `agents.defaults.utilityModel` exists in 2026.9 (docs/gateway/config-agents/models.md);
// 2026.4.26 rejects it as an unrecognized key.
const HAS_UTILITY_MODEL = !/^2026\.[1-4]\./.test(HOST_VERSION);
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
  // Env allow-list: nothing of the caller's environment but PATH and TMPDIR.
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TMPDIR: `${work}/tmp`,
    HOME: dirs.home,
    OPENCLAW_HOME: dirs.home,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_STATE_DIR: dirs.state,
    OPENCLAW_GATEWAY_PORT: String(port),
    OPENCLAW_GATEWAY_TOKEN: token,
    OPENCLAW_NO_RESPAWN: "1",
    OPENCLAW_SKIP_BROWSER_CONTROL_SERVER: "1",
    OPENCLAW_SKIP_GMAIL_WATCHER: "1",
    OPENCLAW_SKIP_CANVAS_HOST: "1",
    OPENCLAW_TEST_FAST: "1",
    XDG_CACHE_HOME: `${work}/xdg-cache`,
    XDG_CONFIG_HOME: `${work}/xdg-config`,
    XDG_DATA_HOME: `${work}/xdg-data`,
    NPM_CONFIG_USERCONFIG: `${work}/npmrc`,
    TZ: "UTC",
    // 2026.4.x stages its bundled plugins' runtime dependencies with npm at
    // gateway start (bundled-runtime-root: OPENCLAW_PLUGIN_STAGE_DIR); a
    // stage dir in clawspec's cache makes that a one-time cost per version.
    ...(plan.stageDir ? { OPENCLAW_PLUGIN_STAGE_DIR: plan.stageDir, npm_config_cache: `${plan.stageDir}/.npm` } : {}),
    // The user's npm network settings (registry, CA file, proxies; never
    // credentials) so that staging can reach the registry (realhost/install.rs npm_network_env).
    ...(plan.stageDir ? (plan.npmEnv ?? {}) : {}),
  };
  fs.mkdirSync(env.TMPDIR, { recursive: true });
  fs.writeFileSync(env.NPM_CONFIG_USERCONFIG, "");
  if (plan.hostSetup?.seed) result.seeded = seedSession(env);
  if (plan.toolResults?.length) prepareStandIns(fs, dirs.workspace);
  const out = fs.openSync(`${work}/gateway.log`, "w");
  const child = spawn(process.execPath, [path.join(plan.openclawRoot, "openclaw.mjs"), "gateway", "run", "--allow-unconfigured", "--bind", "loopback", "--port", String(port), "--token", token], {
    env,
    cwd: work,
    stdio: ["ignore", out, out],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  process.on("exit", stop);
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));
  // 2026.4.x (stageDir set) may stage plugin dependencies with a blocking npm
  // install before it is ready; the first start of a version takes minutes.
  const startTimeoutMs = plan.startTimeoutMs ?? (plan.stageDir ? 600_000 : 120_000);
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited before it was ready (code ${child.exitCode}); log: ${work}/gateway.log`);
    // Both releases answer /readyz with 503 until channels and sidecars are
    // up (2026.4.26 dist/server.impl-*.js handleGatewayProbeRequest,
    // GATEWAY_PROBE_STATUS_BY_PATH); /healthz is liveness only and answers
    // while 4.26 still rejects WebSocket clients. A probe never hangs the loop.
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) })).ok) return { port, token, child, stop };
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error(`gateway not ready after ${startTimeoutMs} ms; log: ${work}/gateway.log`);
}

async function connect({ port, token }, onEvent) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  const pending = new Map();
  let n = 0;
  const request = (method, params, timeoutMs = 30_000) =>
    new Promise((resolve, reject) => {
      const id = `clawspec-${++n}`;
      const t = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`gateway request ${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, t });
      ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  await new Promise((resolve, reject) => {
    ws.addEventListener("error", () => reject(new Error("gateway websocket error")));
    ws.addEventListener("close", (e) => {
      for (const [, p] of pending) p.reject(new Error(`gateway websocket closed (${e.code})`));
      pending.clear();
    });
    ws.addEventListener("message", async (ev) => {
      const frame = JSON.parse(typeof ev.data === "string" ? ev.data : await ev.data.text());
      if (frame.type === "event" && frame.event === "connect.challenge") {
        request("connect", {
          minProtocol: 1,
          maxProtocol: 999,
          client: { id: "gateway-client", displayName: "clawspec twin", version: "0.1.0", platform: process.platform, mode: "backend" },
          caps: [],
          auth: { token },
          role: "operator",
          scopes: ["operator.admin"],
        }).then(resolve, reject);
        return;
      }
      if (frame.type === "event") onEvent?.(frame);
      if (frame.type !== "res") return;
      const p = pending.get(frame.id);
      if (!p) return;
      pending.delete(frame.id);
      clearTimeout(p.t);
      if (frame.ok) p.resolve(frame.payload);
      else p.reject(Object.assign(new Error(frame.error?.message ?? JSON.stringify(frame.error)), frame.error ?? {}));
    });
  });
  return { request, close: () => ws.close(1000, "clawspec twin done") };
}

try {
  const t0 = Date.now();
  const gw = await startGateway();
  result.timing.gatewayStartMs = Date.now() - t0;
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
    const outcome = await drive(client, plan.stageDir ? { ...step, timeoutMs: step.timeoutMs + 300_000 } : step, index);
    result.steps.push({ step: step.step, ...outcome, unaskedReplies: marked?.dropped ?? null, timing: { wallMs: Date.now() - ts } });
  }
  mark({ kind: "end" });
  // Let background work (deferred maintenance, disposal) land in the trace.
  await new Promise((r) => setTimeout(r, plan.settleMs ?? 500));
  client.close();
  gw.stop();
  result.ok = true;
} catch (e) {
  result.error = String(e?.message ?? e);
}
result.timing.totalMs = Date.now() - started;
fs.writeFileSync(plan.result, `${JSON.stringify(result, null, 2)}\n`);
process.exit(result.ok ? 0 : 1);
