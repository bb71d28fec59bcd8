// Uses the plugin SDK the way engines do: through the namespace, calling a
// function only the newer release has (like 2026.9.6's
// buildJsonPluginConfigSchema) when it assembles, and delegating compaction.
import * as core from "openclaw/plugin-sdk/core";

export default {
  id: "sdk-user",
  register(api) {
    api.registerContextEngine("sdk-user", () => ({
      info: { id: "sdk-user", name: "SDK user" },
      async ingest() {
        return { ingested: true };
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
