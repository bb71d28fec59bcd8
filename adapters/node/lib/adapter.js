// Serve one OpenClaw context-engine plugin over clawspec protocol v1.
// Order matters: isolate the environment, guard stdout and seed randomness
// *before* the plugin module is imported, so its top-level code already sees
// the private HOME, a protocol-safe stdout and the seeded crypto.randomUUID.
// One process may serve several runs (`reset`, lib/warm.js): each begins
// from the same state a fresh process would.
import { Report } from "./api.js";
import { parseArgs } from "./cli.js";
import { isolate } from "./isolation.js";
import { loadPlugin } from "./loader.js";
import { encode, Revival } from "./revive.js";
import { Rpc } from "./rpc.js";
import { seed } from "./seed.js";
import { chooseSdk, describeSdk, installSdk } from "./sdk.js";
import { DeltaDecoder, offered } from "./delta.js";
import { CODE, createServer, errorFor } from "./server.js";
import { Baseline } from "./warm.js";
import { readFenceRunner } from "./read-fence.js";
import { releaseOf } from "./surface.js";
import { guardStdout } from "./stdout-guard.js";
import { startWatchdog } from "./watchdog.js";

export { parseArgs, UsageError } from "./cli.js";
export { VERSION } from "./server.js";

/** Per-run variables `reset` hands over (harness/src/driver/pool.rs PER_RUN_ENV). */
const PER_RUN_ENV = ["CLAWSPEC_STATE_DIR", "CLAWSPEC_OPENCLAW_STATE_DIR"];

/** @param {string[]} argv */
export async function main(argv) {
  const args = parseArgs(argv);
  /** @type {Rpc} */
  let rpc;
  // Before the Baseline: a run's reset must not clear its timer.
  const watchdog = startWatchdog(args.hangReportMs, () => [...(rpc?.pending.values() ?? [])].map((p) => p.method));
  // Taken before anything of the first run: `reset` returns here (lib/warm.js).
  const baseline = new Baseline();
  let report = new Report();
  // The guard counts into the current run's report.
  const out = guardStdout({
    get stdoutWrites() {
      return report.stdoutWrites;
    },
  });
  /** @type {ReturnType<typeof isolate>} */
  let isolation;
  /** @type {ReturnType<typeof createServer>} */
  let server;
  /** @type {Revival} */
  let revival;
  /** @type {import("./sdk.js").Sdk | undefined} */
  let installed;
  /** The release's transcript read fence runner (lib/read-fence.js), when it has one. */
  let readFence;

  // One host request at a time, in arrival order, as OpenClaw awaits each
  // hook; `$/abort` and responses to our own host/ requests bypass the queue.
  let queue = Promise.resolve();
  /** Set when the host offered `messageDelta` (the server accepts it): full arrays are rebuilt here, in arrival order. */
  let deltas;
  rpc = new Rpc(
    out,
    (frame) => {
      if (frame.method === "initialize") deltas = offered(frame.params) ? new DeltaDecoder() : undefined;
      else if (deltas) {
        try {
          deltas.decode(frame);
        } catch (err) {
          process.stderr.write(`clawspec-node-adapter: ${frame.method}: bad message delta: ${err.message}\n`);
          const error = { code: CODE.INVALID_PARAMS, message: `bad message delta: ${err.message}` };
          queue = queue.then(() => rpc.send({ jsonrpc: "2.0", id: frame.id, error }));
          return;
        }
      }
      queue = queue.then(async () => {
        if (frame.method === "shutdown") return shutdown(frame.id);
        if (frame.method === "reset") return rpc.send(reset(frame));
        watchdog.begin(frame.method);
        try {
          rpc.send(await server.handle(frame));
        } finally {
          watchdog.end();
        }
      });
    },
    (frame) => {
      if (frame.method === "$/abort") revival.abort(frame.params?.signal, frame.params?.reason);
      // Ordered with the requests around it: it applies to the calls between set and lift.
      else if (frame.method === "$/transcriptReadFence") queue = queue.then(() => server.setReadFence(frame.params?.admission));
    },
  );
  const host = {
    request: (m, p) => rpc.request(m, p),
    notify: (m, p) => rpc.notify(m, p),
    currentCall: () => server.currentCall(),
    encode,
  };
  // The plugin-sdk shims reach the host through this (shims/plugin-sdk/core.js).
  globalThis.__clawspecHost = host;
  baseline.globals.add("__clawspecHost");

  /** A run begins: a fresh process's state (lib/warm.js), isolation, seed, report and server. */
  function beginRun(env) {
    const run = baseline.next();
    for (const k of PER_RUN_ENV) if (env && k in env) {
      if (typeof env[k] === "string") process.env[k] = env[k];
      else delete process.env[k];
    }
    isolation?.cleanup();
    isolation = isolate(args.stateDir);
    process.chdir(isolation.workspaceDir);
    seed(args.seed);
    report = new Report(host.notify);
    revival = new Revival(host.request, host.currentCall);
    server = createServer({
      report,
      revival,
      load: async (params) => {
        // The profile arrives with `initialize`: only now can the SDK be
        // chosen; a reused process keeps its profile's (clawspec reuses a
        // process for the same profile only).
        const sdk = chooseSdk(args.sdk, params?.profile, args.entry);
        if (!installed) {
          installSdk(sdk);
          installed = sdk;
          // One per process, as the release is (lib/hooks.mjs).
          readFence = sdk.kind === "real" ? readFenceRunner(sdk.dir) : undefined;
        } else if (describeSdk(installed) !== describeSdk(sdk)) {
          throw new Error(`this adapter process serves ${describeSdk(installed)}; profile ${params?.profile} needs ${describeSdk(sdk)} (start a new process)`);
        }
        const loaded = await loadPlugin({ entry: args.entry, engineId: args.engineId, pluginConfig: args.pluginConfig ?? params?.engineConfig ?? {}, isolation, host, report, sdk: describeSdk(sdk), sdkDir: sdk.kind === "shims" ? undefined : sdk.dir, release: releaseOf(params?.profile), run });
        return { ...loaded, sdk: describeSdk(sdk), readFence: sdk.kind === "real" ? readFence : undefined };
      },
    });
    return run;
  }
  beginRun(undefined);

  /** `reset {env}`: forget this run; the next `initialize` loads a fresh engine instance. */
  function reset(frame) {
    try {
      beginRun(frame.params?.env ?? {});
      return { jsonrpc: "2.0", id: frame.id, result: {} };
    } catch (err) {
      return { jsonrpc: "2.0", id: frame.id, error: errorFor(err) };
    }
  }

  let exiting = false;
  /** Answer, let the line reach the pipe, then exit 0 even if the plugin keeps handles open. */
  function shutdown(id) {
    exiting = true;
    const finish = () => {
      isolation.cleanup();
      process.exit(0);
    };
    if (id === undefined) return finish();
    rpc.send({ jsonrpc: "2.0", id, result: {} }, finish);
  }

  await rpc.closed;
  // The host closed stdin without `shutdown`: finish queued work, then leave.
  await queue;
  if (!exiting) shutdown(undefined);
}
