// Serve one OpenClaw context-engine plugin over clawspec protocol v1.
import fs from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";

import { createApi, Report } from "./api.js";
import { encode, Revival } from "./revive.js";
import { Rpc } from "./rpc.js";
import { seed } from "./seed.js";

const VERSION = "0.1.0";
const OPTIONAL = ["bootstrap", "maintain", "ingestBatch", "afterTurn", "commitTurn", "prepareSubagentSpawn", "onSubagentEnded", "dispose"];
const LIFECYCLE = new Set(["ingest", "assemble", "compact", ...OPTIONAL]);
const SECRET_ENV = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|SESSION|AUTH/i;

/** Per-run state dir; HOME, OPENCLAW_STATE_DIR, TMPDIR inside it; secrets stripped. */
export function isolate(stateDir) {
  const dir = stateDir ?? (process.env.CLAWSPEC_STATE_DIR ? path.join(process.env.CLAWSPEC_STATE_DIR, "plugin") : fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-plugin-")));
  for (const sub of ["home", "openclaw", "tmp", "agent", "workspace"]) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  for (const k of Object.keys(process.env)) if (SECRET_ENV.test(k) && !k.startsWith("CLAWSPEC_")) delete process.env[k];
  process.env.HOME = path.join(dir, "home");
  process.env.OPENCLAW_STATE_DIR = path.join(dir, "openclaw");
  process.env.TMPDIR = path.join(dir, "tmp");
  return dir;
}

/** stdout belongs to the protocol: console output and stray writes go to stderr and are reported. */
export function guardStdout(report) {
  const toErr = (...args) => process.stderr.write(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ") + "\n");
  console.log = console.info = console.debug = toErr;
  process.stdout.write = (chunk, ...rest) => {
    const text = String(chunk);
    report.stdoutWrites.push(text.length > 200 ? `${text.slice(0, 200)}…` : text);
    process.stderr.write(`clawspec-node-adapter: the plugin wrote to stdout (reported, redirected): ${text}`);
    const cb = rest.find((r) => typeof r === "function");
    if (cb) cb();
    return true;
  };
}

/** `openclaw/plugin-sdk/*` for ESM (loader hook) and CJS (resolver patch). */
export function installShims() {
  module.register(new URL("./hooks.mjs", import.meta.url));
  const shimDir = fileURLToPath(new URL("../shims/plugin-sdk/", import.meta.url));
  const orig = module.Module._resolveFilename;
  module.Module._resolveFilename = function (request, ...rest) {
    try {
      return orig.call(this, request, ...rest);
    } catch (err) {
      const m = /^openclaw\/plugin-sdk\/(core|logging-core)$/.exec(request);
      if (m) return path.join(shimDir, `${m[1]}.cjs`);
      throw err;
    }
  };
}

function nearestPackage(file) {
  let dir = path.dirname(file);
  for (let i = 0; i < 6; i++) {
    const p = path.join(dir, "package.json");
    if (fs.existsSync(p)) {
      try {
        const j = JSON.parse(fs.readFileSync(p, "utf8"));
        if (j.name) return { name: j.name, version: j.version };
      } catch {
        /* not ours to judge */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** Load the plugin entry, run `register(api)`, resolve the engine factory. */
export async function loadPlugin({ entry, engineId, pluginConfig, stateDir, hostRequest, report }) {
  const mod = await import(pathToFileURL(path.resolve(entry)).href);
  const def = mod.default ?? mod;
  const register = typeof def === "function" ? def : typeof def?.register === "function" ? def.register.bind(def) : typeof mod.register === "function" ? mod.register : undefined;
  if (!register) throw new Error(`${entry}: no register function (expected a default export {id, register} or a register function)`);
  const id = def?.id ?? engineId ?? path.basename(entry).replace(/\.[cm]?js$/, "");
  const api = createApi({ id, pluginConfig, stateDir, hostRequest, report });
  await register(api);
  const ids = [...report.engines.keys()];
  if (ids.length === 0) throw new Error(`${entry}: register() did not call api.registerContextEngine`);
  const chosen = engineId ?? (ids.length === 1 ? ids[0] : undefined);
  if (!chosen || !report.engines.has(chosen)) {
    throw new Error(`context engine ${JSON.stringify(engineId)} is not registered. Available engines: ${ids.join(", ")} (use --engine-id)`);
  }
  const factory = report.engines.get(chosen);
  const engine = await (typeof factory === "function" ? factory({ config: pluginConfig, agentDir: path.join(stateDir, "agent"), workspaceDir: path.join(stateDir, "workspace") }) : factory);
  // The registry contract (openclaw src/context-engine/registry-contract.ts).
  const missing = ["ingest", "assemble", "compact"].filter((m) => typeof engine?.[m] !== "function");
  if (!engine?.info || typeof engine.info.id !== "string" || typeof engine.info.name !== "string" || missing.length) {
    throw new Error(`context engine "${chosen}" does not satisfy the contract: needs info.id, info.name and ${missing.join(", ") || "the required methods"}`);
  }
  return { engine, pkg: nearestPackage(path.resolve(entry)) };
}

function errorFrame(id, err) {
  const aborted = err?.name === "AbortError" || err?.code === -32001;
  return { jsonrpc: "2.0", id, error: { code: aborted ? -32001 : -32000, message: String(err?.message ?? err), data: err?.stack ? { stack: String(err.stack).split("\n").slice(0, 6).join("\n") } : undefined } };
}

export async function main(argv) {
  const args = { entry: undefined, engineId: undefined, pluginConfig: undefined, stateDir: undefined, seed: 0x5eed };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--engine-id") args.engineId = argv[++i];
    else if (a === "--plugin-config") {
      const v = argv[++i];
      args.pluginConfig = JSON.parse(v.startsWith("@") ? fs.readFileSync(v.slice(1), "utf8") : v);
    } else if (a === "--state-dir") args.stateDir = argv[++i];
    else if (a === "--seed") args.seed = Number(argv[++i]);
    else if (!args.entry) args.entry = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!args.entry) throw new Error("usage: clawspec-node-adapter <plugin-entry> [--engine-id ID] [--plugin-config JSON|@file] [--state-dir DIR]");
  const report = new Report();
  const stateDir = isolate(args.stateDir);
  guardStdout(report);
  seed(args.seed);
  installShims();

  let engine;
  let loaded;
  const handles = new Map();
  let nextHandle = 0;
  // One host request at a time, in arrival order (as OpenClaw awaits each
  // hook); responses to our own host/ requests are not queued.
  let queue = Promise.resolve();
  const rpc = new Rpc(
    (frame) => {
      queue = queue.then(() => handle(frame));
    },
    (frame) => {
      if (frame.method === "$/abort") revival.abort(frame.params?.signal, frame.params?.reason);
    },
  );
  const hostRequest = (m, p) => rpc.request(m, p);
  const revival = new Revival(hostRequest);
  globalThis.__clawspecHost = { request: hostRequest, encode };

  async function handle({ id, method, params }) {
    try {
      let result;
      if (method === "initialize") {
        if (params?.protocolVersion !== 1) {
          rpc.send({ jsonrpc: "2.0", id, error: { code: -32010, message: `unsupported protocol version ${params?.protocolVersion}`, data: { supported: [1] } } });
          return;
        }
        loaded ??= await loadPlugin({ ...args, pluginConfig: args.pluginConfig ?? params.engineConfig ?? {}, stateDir, hostRequest, report });
        engine = loaded.engine;
        result = {
          protocolVersion: 1,
          info: encode(engine.info),
          methods: OPTIONAL.filter((m) => typeof engine[m] === "function"),
          implementation: { name: "clawspec-node-adapter", version: VERSION, language: "javascript", ...(loaded.pkg ? { plugin: loaded.pkg } : {}) },
          // Plugin hooks the host may fire with adapter/fireHook.
          hooks: [...report.hooks.keys()].sort(),
        };
      } else if (method === "shutdown") {
        rpc.send({ jsonrpc: "2.0", id, result: {} });
        setImmediate(() => process.exit(0));
        return;
      } else if (method === "rollback") {
        const fn = handles.get(params?.handle);
        if (!fn) throw new Error(`unknown rollback handle ${params?.handle}`);
        handles.delete(params.handle);
        await fn();
        result = null;
      } else if (method === "adapter/fireHook") {
        const hs = report.hooks.get(params?.name) ?? [];
        for (const h of hs) await h(params?.event ?? {}, params?.ctx ?? {});
        result = { called: hs.length };
      } else if (method === "adapter/report") {
        result = report.toJSON();
      } else if (LIFECYCLE.has(method)) {
        if (!engine) throw new Error("initialize first");
        if (typeof engine[method] !== "function") {
          rpc.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `the engine does not implement ${method}` } });
          return;
        }
        const out = await engine[method](revival.revive(params ?? {}));
        if (method === "prepareSubagentSpawn" && out && typeof out.rollback === "function") {
          const h = `rb-${++nextHandle}`;
          handles.set(h, out.rollback.bind(out));
          result = { ...encode(out), rollback: { $handle: h } };
        } else {
          result = out === undefined ? null : encode(out);
        }
      } else {
        rpc.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `unknown method ${method}` } });
        return;
      }
      rpc.send({ jsonrpc: "2.0", id, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
    } catch (err) {
      process.stderr.write(`clawspec-node-adapter: ${method} threw: ${err?.stack ?? err}\n`);
      rpc.send(errorFrame(id, err));
    }
  }
  await rpc.closed;
}
