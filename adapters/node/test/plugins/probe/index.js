// A test-only plugin that exposes what the host gave it: environment,
// randomness, revived values, rollback handles, aborts. Two engines, so the
// adapter has to pick one. Module-level code runs at import time, before
// register: seeding and isolation must already be in place.
import fs from "node:fs";
import os from "node:os";
import { randomUUID } from "node:crypto";

const atImport = { uuid: randomUUID(), random: Math.random(), home: os.homedir(), tmp: os.tmpdir() };

export default {
  default: {
    id: "probe",
    name: "Probe",
    register(api) {
      const seen = { rolledBack: [], hooks: [] };
      api.on("gateway_start", (event, ctx) => seen.hooks.push({ name: "gateway_start", event, ctx }));
      api.registerHook(["command:new", "command:reset"], () => {});
      api.registerService({ id: "probe-service", start() {} });
      api.registerCommand({ name: "probe" });
      api.session?.controls?.registerSessionAction({ id: "probe-action" });
      void api.runtime.agent?.session;
      const probe = () => ({
        info: { id: "probe", name: "Probe engine" },
        async ingest() {
          fs.writeSync(1, "raw fd write\n");
          return { ingested: true };
        },
        async assemble(params) {
          return {
            messages: params.messages,
            estimatedTokens: 0,
            probe: {
              atImport,
              uuid: crypto.randomUUID(),
              env: { HOME: process.env.HOME, OPENCLAW_STATE_DIR: process.env.OPENCLAW_STATE_DIR, TMPDIR: process.env.TMPDIR, secret: process.env.ANTHROPIC_API_KEY ?? null, lcm: process.env.LCM_DATABASE_PATH ?? null },
              cwd: process.cwd(),
              resolved: api.resolvePath("~/db.sqlite"),
              toolsIsSet: params.availableTools instanceof Set,
              pluginConfig: api.pluginConfig,
              slot: api.config.plugins.slots?.contextEngine,
              hooks: seen.hooks,
              rolledBack: seen.rolledBack,
            },
          };
        },
        async compact(params) {
          // Waits until the host aborts it, like a slow summariser.
          await new Promise((resolve, reject) => {
            if (params.abortSignal.aborted) return reject(params.abortSignal.reason);
            params.abortSignal.addEventListener("abort", () => reject(params.abortSignal.reason), { once: true });
          });
        },
        async prepareSubagentSpawn(params) {
          return { rollback: () => void seen.rolledBack.push(params.childSessionKey) };
        },
        async afterTurn() {
          throw "a bare string";
        },
      });
      api.registerContextEngine("probe", probe);
      api.registerContextEngine("probe-b", async () => ({ ...probe(), info: { id: "probe-b", name: "Probe B" } }));
    },
  },
};
