// Counts at module level in its own module and through two SDK sub-paths
// (`core`, which the adapter serves through a data: URL with host-bound
// functions, and a plain one): what a warm process shares between runs and
// what it gives each run fresh (test/warm.test.js).
import { countCore } from "openclaw/plugin-sdk/core";
import { countNewOnly } from "openclaw/plugin-sdk/new-only";

let own = 0;

export default {
  id: "sdk-counter",
  register(api) {
    api.registerContextEngine("sdk-counter", () => ({
      info: { id: "sdk-counter", name: "SDK counter" },
      async ingest() {
        return { ingested: true };
      },
      async assemble({ messages }) {
        return { messages, estimatedTokens: 0, counts: { plugin: ++own, core: countCore(), newOnly: countNewOnly() } };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
