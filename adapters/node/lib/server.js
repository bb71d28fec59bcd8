// Protocol v1 dispatch for one loaded plugin (docs/protocol.md): the
// handshake, lifecycle methods with revived params, rollback handles, and the
// adapter's own requests (`adapter/fireHook`, `adapter/report`).
import { runHook } from "./plugin-hooks.js";
import { CAPABILITY as DELTA, offered as deltaOffered, VERSION as DELTA_VERSION } from "./delta.js";
import { encode } from "./revive.js";
import { unversioned } from "./warm.js";

export const VERSION = "0.1.0";
/** contract/src/protocol.rs method::OPTIONAL, in that order. */
export const OPTIONAL = ["bootstrap", "maintain", "ingestBatch", "afterTurn", "commitTurn", "prepareSubagentSpawn", "onSubagentEnded", "dispose", "sanitize"];
const LIFECYCLE = new Set(["ingest", "assemble", "compact", ...OPTIONAL]);

/** contract/src/protocol.rs mod code. */
export const CODE = { INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, ENGINE_THREW: -32000, ABORTED: -32001, UNSUPPORTED_PROTOCOL_VERSION: -32010 };

export class RpcFailure extends Error {
  /** @param {number} code @param {string} message @param {unknown} [data] */
  constructor(code, message, data) {
    super(message);
    this.name = "RpcFailure";
    this.code = code;
    this.data = data;
  }
}

/** An abort rejection: an AbortError, or any rejection once the call's own signal fired. */
export function isAbortRejection(err, signal) {
  return err?.name === "AbortError" || err?.code === "ABORT_ERR" || (signal instanceof AbortSignal && signal.aborted);
}

/** A thrown value → the JSON-RPC error OpenClaw's catch would see. */
export function errorFor(err, signal) {
  if (err instanceof RpcFailure) return { code: err.code, message: unversioned(err.message), ...(err.data !== undefined ? { data: err.data } : {}) };
  // Module URLs carry the run's version (lib/warm.js): not part of a trace.
  const message = unversioned(err instanceof Error || typeof err?.message === "string" ? String(err.message) : String(err));
  const data = {};
  if (typeof err?.name === "string") data.name = err.name;
  if (typeof err?.stack === "string") data.stack = unversioned(err.stack.split("\n").slice(0, 8).join("\n"));
  return { code: isAbortRejection(err, signal) ? CODE.ABORTED : CODE.ENGINE_THREW, message, data };
}

/** Results are JSON: encodings applied, then exactly what JSON.stringify keeps (NaN → null). */
function toWire(method, value) {
  try {
    return value === undefined ? null : JSON.parse(JSON.stringify(encode(value)) ?? "null");
  } catch (err) {
    throw new Error(`the engine's ${method} result cannot be sent as JSON: ${err.message}`);
  }
}

/**
 * @param {{load(params: any): Promise<{engine: any, pkg?: {name: string, version?: string}, sdk?: string, readFence?: (admission: object, fn: () => any) => Promise<any>}>, report: import("./api.js").Report, revival: import("./revive.js").Revival}} o
 */
export function createServer(o) {
  const { report, revival } = o;
  let loaded;
  let current;
  const handles = new Map();
  let nextHandle = 0;
  /** The admission receipt of `$/transcriptReadFence`, while set. */
  let fence;

  /** @returns {Promise<{result?: unknown, error?: {code: number, message: string, data?: unknown}}>} */
  async function dispatch(method, params) {
    if (method === "initialize") return initialize(params);
    if (method === "adapter/report") return { result: JSON.parse(JSON.stringify(report)) };
    if (!loaded) throw new RpcFailure(CODE.INVALID_REQUEST, `${method} before a successful initialize`);
    const engine = loaded.engine;
    if (method === "rollback") {
      const fn = handles.get(params?.handle);
      if (!fn) throw new RpcFailure(CODE.INVALID_PARAMS, `unknown rollback handle ${JSON.stringify(params?.handle)}`);
      handles.delete(params.handle);
      await fn();
      return { result: null };
    }
    if (method === "adapter/fireHook") {
      if (typeof params?.name !== "string") throw new RpcFailure(CODE.INVALID_PARAMS, "adapter/fireHook needs {name, event?, ctx?}");
      // OpenClaw passes (event, ctx) to typed hooks and merges their results (lib/plugin-hooks.js).
      const out = await runHook(params.name, report.hooks.get(params.name) ?? [], revival.revive(params.event ?? {}), revival.revive(params.ctx ?? {}));
      return { result: toWire("adapter/fireHook", out) };
    }
    if (!LIFECYCLE.has(method)) throw new RpcFailure(CODE.METHOD_NOT_FOUND, `unknown method ${method}`);
    if (typeof engine[method] !== "function") throw new RpcFailure(CODE.METHOD_NOT_FOUND, `the engine does not implement ${method}`);
    const revived = revival.revive(params ?? {});
    let out;
    try {
      // Inside the current turn's transcript read fence when the host set one (lib/read-fence.js).
      out = fence && loaded.readFence ? await loaded.readFence(fence, () => engine[method](revived)) : await engine[method](revived);
    } catch (err) {
      return { error: errorFor(err, revived?.abortSignal) };
    }
    if (method === "prepareSubagentSpawn" && out && typeof out.rollback === "function") {
      const handle = `rb-${++nextHandle}`;
      handles.set(handle, out.rollback.bind(out));
      return { result: { ...toWire(method, out), rollback: { $handle: handle } } };
    }
    return { result: toWire(method, out) };
  }

  async function initialize(params) {
    if (params?.protocolVersion !== 1) {
      throw new RpcFailure(CODE.UNSUPPORTED_PROTOCOL_VERSION, `unsupported protocol version ${JSON.stringify(params?.protocolVersion)}`, { supported: [1] });
    }
    loaded ??= await o.load(params);
    const engine = loaded.engine;
    return {
      result: {
        protocolVersion: 1,
        info: toWire("info", engine.info),
        methods: OPTIONAL.filter((m) => typeof engine[m] === "function"),
        implementation: { name: "clawspec-node-adapter", version: VERSION, language: "javascript", ...(loaded.pkg ? { plugin: loaded.pkg } : {}), ...(loaded.sdk ? { sdk: loaded.sdk } : {}) },
        // Whether this process can serve another run after `reset` with a
        // fresh instance of every plugin module (lib/warm.js); a plugin
        // loaded through jiti keeps jiti's own module cache, so it cannot.
        warm: loaded.warm === true,
        // Plugin hooks (api.on) the host may fire with adapter/fireHook.
        hooks: [...report.hooks.keys()].sort(),
        // The plugin reads the store through a real SDK that has the fence: clawspec sends it.
        ...(loaded.readFence ? { transcriptReadFence: 1 } : {}),
        // Accepted whenever offered: lib/adapter.js rebuilds full arrays before dispatch.
        ...(deltaOffered(params) ? { [DELTA]: DELTA_VERSION } : {}),
      },
    };
  }

  return {
    /** `$/transcriptReadFence {admission}`: the receipt, or null to lift the fence. */
    setReadFence(admission) {
      fence = admission && typeof admission === "object" ? admission : undefined;
    },
    /** The id of the host request being handled (`forCall`). */
    currentCall: () => current,
    /** @param {{id: number|string, method: string, params?: any}} frame */
    async handle({ id, method, params }) {
      current = id;
      try {
        return { jsonrpc: "2.0", id, ...(await dispatch(method, params)) };
      } catch (err) {
        process.stderr.write(`clawspec-node-adapter: ${method} failed: ${unversioned(err?.stack ?? String(err))}\n`);
        return { jsonrpc: "2.0", id, error: errorFor(err) };
      } finally {
        current = undefined;
      }
    },
  };
}
