// Built the way recursive-claw is (tsc to ESM, a named import from CommonJS):
// OpenClaw loads it through jiti after the native import fails.
import { Database } from "./dep.cjs";

export default {
  id: "cjs-named",
  register(api) {
    api.registerContextEngine("cjs-named", () => ({
      info: { id: "cjs-named", name: typeof Database === "function" ? "CJS named" : "broken" },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0 };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
