import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { compileCacheWarm, freezeTrace, gatewayEnv, groupCpuMs, markCompileCacheWarm, packagedCompileCacheDir, startGateway, stopGateway } from "../lib/gateway.js";

const made = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-gateway-test-"));
  made.push(d);
  return d;
};
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
/** Running (a killed process whose parent has not reaped it yet is a zombie: state Z, not running). */
const alive = (pid) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

/** A stand-in "gateway": a real Node process in its own group with a child of its own (as the spawn broker). */
function fakeGateway(script) {
  const child = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => child.stdout.once("data", (d) => resolve({ child, helper: Number(String(d).trim()) })));
}
// The helper's pid is printed last: the parent acts on it, so the SIGTERM handler must be in place by then.
const SPAWNS_HELPER = (onTerm) => `process.on("SIGTERM", ${onTerm}); const h = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }); process.stdout.write(String(h.pid) + "\\n"); setInterval(() => {}, 1000);`;

const base = { work: "/w", dirs: { home: "/w/home", state: "/w/state" }, configPath: "/w/openclaw.json", port: 4242, token: "t" };

test("the gateway's environment is an allow-list: nothing of the caller's but PATH", () => {
  process.env.CLAWSPEC_TEST_SECRET = "leak";
  const env = gatewayEnv({ ...base, path: "/bin" });
  assert.equal(env.PATH, "/bin");
  assert.equal(env.CLAWSPEC_TEST_SECRET, undefined);
  assert.equal(env.NODE_COMPILE_CACHE, undefined, "no compile cache unless clawspec gives one");
  assert.equal(env.TMPDIR, "/w/tmp");
  assert.equal(env.OPENCLAW_STATE_DIR, "/w/state");
  assert.equal(env.OPENCLAW_PLUGIN_STAGE_DIR, undefined);
  assert.equal(gatewayEnv({ ...base, npmEnv: { npm_config_registry: "r" } }).npm_config_registry, undefined, "npm settings only with a stage dir");
});

test("the compile cache points OpenClaw's own module.enableCompileCache at clawspec's cache", () => {
  const env = gatewayEnv({ ...base, compileCacheDir: "/cache/node-compile-cache" });
  assert.equal(env.NODE_COMPILE_CACHE, "/cache/node-compile-cache");
  const staged = gatewayEnv({ ...base, stageDir: "/cache/plugin-stage", npmEnv: { npm_config_registry: "r" } });
  assert.equal(staged.OPENCLAW_PLUGIN_STAGE_DIR, "/cache/plugin-stage");
  assert.equal(staged.npm_config_registry, "r");
});

test("stop: a gateway that exits on SIGTERM exits by itself, and nothing of its group survives", async () => {
  const { child, helper } = await fakeGateway(SPAWNS_HELPER("() => process.exit(0)"));
  assert.equal(await stopGateway(child, { graceMs: 5000 }), "sigterm");
  assert.equal(child.exitCode, 0, "its own shutdown path ran (Node writes the compile cache on a normal exit)");
  assert.equal(alive(helper), false, "the helper it started is killed with the group");
});

test("stop: a gateway that ignores SIGTERM is killed after the grace period, with its group", async () => {
  const { child, helper } = await fakeGateway(SPAWNS_HELPER("() => {}"));
  const t0 = Date.now();
  assert.equal(await stopGateway(child, { graceMs: 300 }), "sigkill-after-grace");
  assert.ok(Date.now() - t0 < 5000);
  assert.equal(alive(child.pid), false);
  assert.equal(alive(helper), false);
});

test("stop without a grace period is an immediate SIGKILL of the group", async () => {
  const { child, helper } = await fakeGateway(SPAWNS_HELPER("() => process.exit(0)"));
  assert.equal(await stopGateway(child, { graceMs: 0 }), "sigkill");
  assert.equal(child.signalCode, "SIGKILL");
  assert.equal(alive(helper), false);
});

test("the compile cache is warm for a release once marked, per release and Node", () => {
  const dir = path.join(tmp(), "ncc");
  assert.equal(compileCacheWarm(dir, "2026.9.6"), false);
  markCompileCacheWarm(dir, "2026.9.6");
  assert.equal(compileCacheWarm(dir, "2026.9.6"), true);
  assert.equal(compileCacheWarm(dir, "2026.4.26"), false);
  assert.equal(compileCacheWarm(undefined, "2026.9.6"), false, "no cache dir: never warm");
});

test("CPU time of a live process group is read from /proc; an empty group has none", async () => {
  const { child } = await fakeGateway(SPAWNS_HELPER("() => process.exit(0)"));
  const t0 = Date.now();
  while (Date.now() - t0 < 300);
  assert.equal(typeof groupCpuMs(child.pid), "number");
  await stopGateway(child, { graceMs: 0 });
  assert.equal(groupCpuMs(child.pid), null);
});

test("the compile cache directory is the one OpenClaw's launcher settles on, so it does not re-spawn itself", () => {
  const root = tmp();
  fs.writeFileSync(path.join(root, "package.json"), '{"version":"2026.9.6"}');
  const st = fs.statSync(path.join(root, "package.json"));
  assert.equal(packagedCompileCacheDir("/c", root), `/c/openclaw/2026.9.6/${Math.trunc(st.mtimeMs)}-${st.size}`);
  assert.equal(packagedCompileCacheDir("/c", path.join(root, "missing")), "/c/openclaw/unknown/no-package-json");
});

test("start: a gateway that exits before it is ready is a clear error naming its log", async () => {
  const work = tmp();
  const fakeRoot = tmp();
  fs.writeFileSync(path.join(fakeRoot, "openclaw.mjs"), "process.exit(3)\n");
  await assert.rejects(startGateway({ openclawRoot: fakeRoot, work, env: { PATH: process.env.PATH }, port: 1, token: "t", startTimeoutMs: 10_000 }), /exited before it was ready \(code 3\); log: .*gateway\.log/);
});

test("freezing the trace keeps what the scenario recorded and drops what shutdown appends", () => {
  const dir = tmp();
  const trace = path.join(dir, "trace.ndjson");
  fs.writeFileSync(trace, '{"kind":"end"}\n');
  const thaw = freezeTrace(trace);
  fs.appendFileSync(trace, '{"kind":"call","method":"dispose"}\n');
  thaw();
  assert.equal(fs.readFileSync(trace, "utf8"), '{"kind":"end"}\n');
  assert.doesNotThrow(() => freezeTrace(path.join(dir, "missing"))(), "no trace yet: nothing to freeze");
});
