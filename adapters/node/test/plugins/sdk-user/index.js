// Uses the plugin SDK the way engines do: through the namespace, calling a
// function only the newer release has (like 2026.9.6's
// buildJsonPluginConfigSchema) when it assembles, and delegating compaction.
import * as core from "openclaw/plugin-sdk/core";

export default {
  id: "sdk-user",
  register(api) {
    api.registerContextEngine("sdk-user", () => ({
      // Durable turns, so 2026.9.6 runs its turns on this engine, not on legacy.
      info: { id: "sdk-user", name: "SDK user", transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" } },
      async ingest() {
        return { ingested: true };
      },
      async commitTurn() {
        return { status: "committed" };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0, release: core.release(), newOnly: core.newOnly("x") };
      },
      async compact(params) {
        return core.delegateCompactionToRuntime(params);
      },
    }));
  },
};
