// A test-only plugin that mutates the messages it is given in place (some
// real engines do): message deltas must not let that leak into later calls.
export default {
  id: "mutator",
  name: "Mutator",
  register(api) {
    api.registerContextEngine("mutator", () => ({
      info: { id: "mutator", name: "Mutator" },
      async ingest() {
        return { ingested: false };
      },
      async assemble(params) {
        const out = params.messages.map((m) => ({ ...m }));
        for (const m of params.messages) m.content = "mutated by the plugin";
        params.messages.push({ role: "user", content: "pushed by the plugin", timestamp: 0 });
        return { messages: out, estimatedTokens: 0 };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
      async afterTurn(params) {
        params.messages.reverse();
      },
    }));
  },
};
