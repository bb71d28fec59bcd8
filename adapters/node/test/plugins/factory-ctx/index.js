// An engine whose factory reads the context OpenClaw hands it, as
// lastguru-net/openclaw-universal-capture 0.7.0 does
// (`(ctx) => new UniversalCaptureContextEngine({agentDir: ctx.agentDir, workspaceDir: ctx.workspaceDir, …})`).
// 2026.9.6 passes {config, agentDir, workspaceDir}; 2026.4.26 passes nothing,
// so there this factory throws (lib/loader.js factoryArgs).
export default {
  id: "factory-ctx",
  register(api) {
    api.registerContextEngine("factory-ctx", (ctx) => {
      const dirs = { agentDir: ctx.agentDir, workspaceDir: ctx.workspaceDir };
      return {
        info: { id: "factory-ctx", name: "Factory context", transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" } },
        async ingest() {
          return { ingested: false };
        },
        async assemble(params) {
          return { messages: params.messages, estimatedTokens: 0, dirs };
        },
        async commitTurn() {
          return { status: "committed" };
        },
        async compact() {
          return { ok: true, compacted: false, reason: "nothing to do" };
        },
      };
    });
  },
};
