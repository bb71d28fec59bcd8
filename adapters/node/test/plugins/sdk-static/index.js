// A plugin built against the newer SDK: a static import of a function the
// older release does not export fails at load time under the older profile.
import { newOnly } from "openclaw/plugin-sdk/core";

export default {
  id: "sdk-static",
  register(api) {
    api.registerContextEngine("sdk-static", () => ({
      info: { id: "sdk-static", name: "SDK static" },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0, newOnly: newOnly(1) };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
