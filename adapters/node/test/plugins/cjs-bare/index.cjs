// A CommonJS plugin exporting a bare register function, as older plugins do.
const { redactSensitiveText } = require("openclaw/plugin-sdk/logging-core");
const { delegateCompactionToRuntime } = require("openclaw/plugin-sdk/core");

module.exports = function register(api) {
  api.logger.info(redactSensitiveText("loading with token=abc123"));
  api.registerContextEngine("cjs-passthrough", () => ({
    info: { id: "cjs-passthrough", name: "CJS passthrough", version: "0.0.3" },
    async bootstrap(params) {
      return { bootstrapped: false, reason: `no import for ${params.sessionId}` };
    },
    async ingest() {
      return { ingested: true };
    },
    async ingestBatch(params) {
      return { ingestedCount: params.messages.length };
    },
    async assemble(params) {
      const estimatedTokens = params.messages.reduce((n, m) => n + Math.ceil(JSON.stringify(m.content ?? "").length / 4), 0);
      return { messages: params.messages, estimatedTokens };
    },
    // A passthrough keeps nothing to compact itself, so it hands overflow
    // compaction to the runtime: a no-op here disables OpenClaw's overflow
    // recovery (CE-CMP-003, MUST).
    async compact(params) {
      return delegateCompactionToRuntime(params);
    },
    async dispose() {},
  }));
};
