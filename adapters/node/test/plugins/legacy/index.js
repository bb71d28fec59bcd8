// A JavaScript port of OpenClaw's legacy engine (openclaw src/context-engine/legacy.ts),
// written as a plugin: it must certify exactly like clawspec's built-in legacy engine.
import { delegateCompactionToRuntime } from "openclaw/plugin-sdk/core";

class LegacyContextEngine {
  info = { id: "legacy", name: "Legacy Context Engine", version: "1.0.0" };
  async ingest() {
    return { ingested: false };
  }
  async assemble(params) {
    return { messages: params.messages, estimatedTokens: 0 };
  }
  async compact(params) {
    return delegateCompactionToRuntime(params);
  }
}

export default {
  id: "legacy-port",
  name: "Legacy engine (JavaScript port)",
  register(api) {
    if (typeof api.registerContextEngine !== "function") throw new Error("Unsupported OpenClaw plugin API");
    api.registerContextEngine("legacy", () => new LegacyContextEngine());
  },
};
