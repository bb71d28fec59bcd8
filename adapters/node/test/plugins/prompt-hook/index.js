// Registers before_prompt_build twice (like lossless-claw's recall policy)
// and a pass-through engine that reports what the hook saw.
const seen = [];
// What before_reset saw: lossless-claw keys its /new and /reset handling on
// event.reason and ctx.sessionId.
const resets = [];

export default {
  id: "prompt-hook",
  register(api) {
    // pluginConfig {hooks: false}: the same engine without hooks, a baseline.
    if (api.pluginConfig?.hooks !== false) api.on("before_prompt_build", (event, ctx) => {
      seen.push({ prompt: event.prompt, messages: event.messages.length, sessionKey: ctx.sessionKey });
      return { prependSystemContext: "RECALL POLICY", prependContext: "a" };
    });
    if (api.pluginConfig?.hooks !== false) api.on("before_prompt_build", () => ({ prependContext: "b", systemPrompt: "HOOK BASE", appendSystemContext: "TAIL" }));
    api.on("before_reset", (event, ctx) => {
      resets.push({ reason: event.reason, sessionFile: event.sessionFile, messages: event.messages?.length, sessionId: ctx.sessionId, sessionKey: ctx.sessionKey, agentId: ctx.agentId });
    });
    api.registerContextEngine("prompt-hook", () => ({
      // Durable turns, so 2026.9.6 runs its turns on this engine.
      info: { id: "prompt-hook", name: "Prompt hook", transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" } },
      async ingest() {
        return { ingested: true };
      },
      async commitTurn() {
        return { status: "committed" };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0, seen, resets };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
