// Registers before_prompt_build twice (like lossless-claw's recall policy)
// and a pass-through engine that reports what the hook saw.
const seen = [];

export default {
  id: "prompt-hook",
  register(api) {
    api.on("before_prompt_build", (event, ctx) => {
      seen.push({ prompt: event.prompt, messages: event.messages.length, sessionKey: ctx.sessionKey });
      return { prependSystemContext: "RECALL POLICY", prependContext: "a" };
    });
    api.on("before_prompt_build", () => ({ prependContext: "b", systemPrompt: "HOOK BASE", appendSystemContext: "TAIL" }));
    api.registerContextEngine("prompt-hook", () => ({
      info: { id: "prompt-hook", name: "Prompt hook" },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0, seen };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
