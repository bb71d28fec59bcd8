// Serve one OpenClaw context-engine plugin over clawspec protocol v1.
// Order matters: isolate the environment, guard stdout and seed randomness
// *before* the plugin module is imported, so its top-level code already sees
// the private HOME, a protocol-safe stdout and the seeded crypto.randomUUID.
import { Report } from "./api.js";
import { parseArgs } from "./cli.js";
import { isolate } from "./isolation.js";
import { loadPlugin } from "./loader.js";
import { encode, Revival } from "./revive.js";
import { Rpc } from "./rpc.js";
import { seed } from "./seed.js";
import { chooseSdk, describeSdk, installSdk } from "./sdk.js";
import { DeltaDecoder, offered } from "./delta.js";
import { CODE, createServer } from "./server.js";
import { releaseOf } from "./surface.js";
import { guardStdout } from "./stdout-guard.js";

export { parseArgs, UsageError } from "./cli.js";
export { VERSION } from "./server.js";

/** @param {string[]} argv */
export async function main(argv) {
  const args = parseArgs(argv);
  const report = new Report();
  const isolation = isolate(args.stateDir);
  process.chdir(isolation.workspaceDir);
  const out = guardStdout(report);
  seed(args.seed);

  /** @type {ReturnType<typeof createServer>} */
  let server;
  // One host request at a time, in arrival order, as OpenClaw awaits each
  // hook; `$/abort` and responses to our own host/ requests bypass the queue.
  let queue = Promise.resolve();
  /** Set when the host offered `messageDelta` (the server accepts it): full arrays are rebuilt here, in arrival order. */
  let deltas;
  const rpc = new Rpc(
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
        rpc.send(await server.handle(frame));
      });
    },
    (frame) => {
      if (frame.method === "$/abort") revival.abort(frame.params?.signal, frame.params?.reason);
    },
  );
  const host = {
    request: (m, p) => rpc.request(m, p),
    notify: (m, p) => rpc.notify(m, p),
    currentCall: () => server.currentCall(),
    encode,
  };
  const revival = new Revival(host.request, host.currentCall);
  // The plugin-sdk shims reach the host through this (shims/plugin-sdk/core.js).
  globalThis.__clawspecHost = host;
  server = createServer({
    report,
    revival,
    load: async (params) => {
      // The profile arrives with `initialize`: only now can the SDK be chosen.
      const sdk = chooseSdk(args.sdk, params?.profile, args.entry);
      installSdk(sdk);
      const loaded = await loadPlugin({ entry: args.entry, engineId: args.engineId, pluginConfig: args.pluginConfig ?? params?.engineConfig ?? {}, isolation, host, report, sdk: describeSdk(sdk), sdkDir: sdk.kind === "shims" ? undefined : sdk.dir, release: releaseOf(params?.profile) });
      return { ...loaded, sdk: describeSdk(sdk) };
    },
  });

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
