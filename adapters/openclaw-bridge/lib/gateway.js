// The real OpenClaw gateway as a child process: its environment allow-list,
// start until ready, the WebSocket client, and a stop that leaves nothing
// running. Kept apart from host-runner.mjs (step actions) so the two evolve
// separately.
//
// Speed (docs/performance.md "Real-host twin"): OpenClaw enables Node's
// module compile cache itself (openclaw.mjs: `module.enableCompileCache`,
// directory `$NODE_COMPILE_CACHE` or `os.tmpdir()/node-compile-cache`), but
// a run's TMPDIR is fresh, so every gateway compiled its ~300 MB dist from
// scratch. `compileCacheDir` points it at clawspec's cache instead. Node
// writes that cache only when the process exits normally, so while the cache
// is cold for a release (no warm marker) the gateway is stopped with SIGTERM
// (its own shutdown path; seconds on a loaded machine) before the SIGKILL
// fallback; once one gateway of that release and Node has exited cleanly, a
// marker says so and later runs skip the graceful wait.

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * The gateway's whole environment: nothing of the caller's but PATH (and,
 * for 2026.4.x plugin staging, the user's npm network settings, never
 * credentials: realhost/install.rs npm_network_env).
 */
export function gatewayEnv({ work, dirs, configPath, port, token, stageDir, npmEnv, compileCacheDir, path: PATH, release4x = false, bundledPluginsDir }) {
  return {
    PATH: PATH ?? "/usr/bin:/bin",
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
    // Compiled code only (V8 code cache keyed by Node version and source
    // hash, checksummed on read: https://nodejs.org/api/module.html#module-compile-cache);
    // no state of a run survives in it.
    ...(compileCacheDir ? { NODE_COMPILE_CACHE: compileCacheDir } : {}),
    // 2026.4.x stages its bundled plugins' runtime dependencies with npm at
    // gateway start (bundled-runtime-root: OPENCLAW_PLUGIN_STAGE_DIR); a
    // stage dir in clawspec's cache makes that a one-time cost per version.
    ...(stageDir ? { OPENCLAW_PLUGIN_STAGE_DIR: stageDir, npm_config_cache: `${stageDir}/.npm` } : {}),
    // 2026.4.x re-discovers every bundled plugin's manifest whenever its 1 s
    // discovery/manifest cache expired (dist/cache-controls-*.js
    // DEFAULT_PLUGIN_DISCOVERY_CACHE_MS = DEFAULT_PLUGIN_MANIFEST_CACHE_MS = 1e3);
    // on a loaded machine one discovery outlasts the TTL, so every plugin
    // lookup rescans ~110 extension dirs. The twin's plugin set is fixed for
    // the run (isolated config, one package), so the release's own knobs keep
    // the snapshot for 10 minutes.
    ...(release4x ? { OPENCLAW_PLUGIN_DISCOVERY_CACHE_MS: "600000", OPENCLAW_PLUGIN_MANIFEST_CACHE_MS: "600000" } : {}),
    // 2026.4.x: with OPENCLAW_TEST_FAST=1 its reply path asserts that a caller
    // passing a config override marked it "complete" (dist/typing-policy-*.js
    // resolveGetReplyConfig); the heartbeat runner passes one unmarked, so every
    // heartbeat failed "Fast reply tests must pass with withFastReplyConfig()…"
    // (observed). The release's own opt-out of that test-only assertion
    // (isSlowReplyTestAllowed) gives the production path back.
    ...(release4x ? { OPENCLAW_ALLOW_SLOW_REPLY_TESTS: "1" } : {}),
    ...(stageDir ? (npmEnv ?? {}) : {}),
    // 2026.4.x: only the bundled plugins the twin loads are discoverable (lib/bundled-subset.js).
    ...(bundledPluginsDir ? { OPENCLAW_BUNDLED_PLUGINS_DIR: bundledPluginsDir } : {}),
  };
}

/**
 * Stop a gateway started detached (its own process group): with a grace
 * period, SIGTERM to the gateway, which drains and exits (Node then writes
 * the compile cache); then SIGKILL to the whole group whatever happened, so no helper it started
 * (spawn broker, engine) survives. Resolves with how it ended.
 */
export async function stopGateway(child, { graceMs = 10_000 } = {}) {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const done = new Promise((r) => (exited() ? r() : child.once("exit", () => r())));
  const within = (ms) => Promise.race([done.then(() => true), new Promise((r) => setTimeout(() => r(false), ms).unref())]);
  let how = exited() ? "already-exited" : graceMs > 0 ? "sigterm" : "sigkill";
  if (how === "sigterm") {
    try {
      process.kill(child.pid, "SIGTERM");
    } catch {}
    if (!(await within(graceMs))) how = "sigkill-after-grace";
  }
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
  // Reaped before we return: no zombie left behind either.
  await within(5000);
  // SIGKILL is delivered to the group at once but its other members (the
  // launcher's helpers) die asynchronously: wait until none is left running,
  // so "stopped" means nothing of the group still uses the machine.
  for (const t0 = Date.now(); groupCpuMs(child.pid) !== null && Date.now() - t0 < 5000; ) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return how;
}

/** The marker that a gateway of this release under this Node has written the compile cache. */
function warmMarker(compileCacheDir, release) {
  return path.join(compileCacheDir, `.warm-openclaw-${release}-node-${process.versions.node}`);
}

export function compileCacheWarm(compileCacheDir, release) {
  return Boolean(compileCacheDir) && fs.existsSync(warmMarker(compileCacheDir, release));
}

export function markCompileCacheWarm(compileCacheDir, release) {
  if (!compileCacheDir) return;
  fs.mkdirSync(compileCacheDir, { recursive: true });
  fs.writeFileSync(warmMarker(compileCacheDir, release), `${new Date().toISOString()}\n`);
}

/**
 * CPU time (user + system, ms) used so far by the live processes of process
 * group `pgid` (the gateway, its launcher and helpers; threads included:
 * OpenClaw's SQLite and worker threads), from /proc/PID/stat; null where
 * there is no /proc. A load-independent figure for timing notes.
 */
export function groupCpuMs(pgid) {
  let ms = null;
  let pids;
  try {
    pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      // After "pid (comm) ": state, ppid, pgrp, … utime (14th field), stime (15th), in USER_HZ (100/s) ticks.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[2]) === pgid && f[0] !== "Z") ms = (ms ?? 0) + (Number(f[11]) + Number(f[12])) * 10;
    } catch {}
  }
  return ms;
}

/**
 * The compile cache directory OpenClaw 2026.9.x itself settles on under a
 * `NODE_COMPILE_CACHE` base (openclaw.mjs `resolvePackagedCompileCacheDirectory`:
 * `<base>/openclaw/<version>/<package.json mtimeMs>-<size>`). Given the base
 * only, its launcher re-spawns itself into that directory (openclaw.mjs
 * `respawnWithPackagedCompileCacheIfNeeded`): one more Node process per
 * gateway. Given this directory, it does not. 2026.4.x takes the variable as
 * is (openclaw.mjs `module.enableCompileCache()`).
 */
export function packagedCompileCacheDir(base, openclawRoot) {
  const clean = (v) => v.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^_+|_+$/g, "") || "unknown";
  const pkg = path.join(openclawRoot, "package.json");
  let version = "unknown";
  let marker = "no-package-json";
  try {
    version = JSON.parse(fs.readFileSync(pkg, "utf8")).version ?? "unknown";
    const st = fs.statSync(pkg);
    marker = `${Math.trunc(st.mtimeMs)}-${st.size}`;
  } catch {}
  return path.join(base, "openclaw", clean(String(version)), clean(marker));
}

/**
 * Spawn `openclaw gateway run` on loopback and wait for `/readyz`.
 * `onStart` receives the child before readiness, so a caller's exit handler
 * can kill it if the runner dies while waiting.
 */
export async function startGateway({ openclawRoot, work, env, port, token, startTimeoutMs, onStart }) {
  const out = fs.openSync(`${work}/gateway.log`, "w");
  const child = spawn(process.execPath, [path.join(openclawRoot, "openclaw.mjs"), "gateway", "run", "--allow-unconfigured", "--bind", "loopback", "--port", String(port), "--token", token], {
    env,
    cwd: work,
    stdio: ["ignore", out, out],
    detached: true,
  });
  fs.closeSync(out);
  onStart?.(child);
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited before it was ready (code ${child.exitCode}); log: ${work}/gateway.log`);
    // Both releases answer /readyz with 503 until channels and sidecars are
    // up (2026.4.26 dist/server.impl-*.js handleGatewayProbeRequest,
    // GATEWAY_PROBE_STATUS_BY_PATH); /healthz is liveness only and answers
    // while 4.26 still rejects WebSocket clients. A probe never hangs the loop.
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) })).ok) return child;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  await stopGateway(child, { graceMs: 0 });
  throw new Error(`gateway not ready after ${startTimeoutMs} ms; log: ${work}/gateway.log`);
}

/** The gateway's WebSocket client protocol (openclaw docs/gateway/protocol.md): connect, then req/res frames. */
export async function connect({ port, token }, onEvent) {
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

/**
 * Keep the trace as it was when the scenario ended: the gateway's own
 * shutdown (SIGTERM) may still call the engine (dispose), which the bridge
 * would append; those calls were never recorded before (SIGKILL) and are no
 * part of the scenario. Returns a function that puts the frozen copy back.
 */
export function freezeTrace(trace) {
  const frozen = `${trace}.frozen`;
  try {
    fs.renameSync(trace, frozen);
  } catch {
    return () => {};
  }
  return () => fs.renameSync(frozen, trace);
}
