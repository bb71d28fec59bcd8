// Calls buildJsonPluginConfigSchema from `openclaw/plugin-sdk/core`, which
// OpenClaw 2026.9.6 exports and 2026.4.26 does not: under the real SDKs it
// works on the 9.6 profile and throws on the 4.26 one.
import * as core from "openclaw/plugin-sdk/core";

export default {
  id: "sdk-real",
  register(api) {
    api.registerContextEngine("sdk-real", () => ({
      // Durable turns, so 2026.9.6 runs its turns on this engine, not on legacy.
      info: { id: "sdk-real", name: "SDK real", transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" } },
      async ingest() {
        return { ingested: true };
      },
      async commitTurn() {
        return { status: "committed" };
      },
      async assemble(params) {
        const schema = core.buildJsonPluginConfigSchema({ type: "object" });
        return { messages: params.messages, estimatedTokens: 0, schema: schema.jsonSchema };
      },
      async compact(params) {
        return core.delegateCompactionToRuntime(params);
      },
    }));
  },
};
