// A plugin written for a newer host: register calls an api member this host
// does not provide, so it dies before its engine is registered. The read
// reaches clawspec (`$/unknownApiMember`) before `initialize` fails, and
// certify names it next to the start-up error.
export default {
  id: "newer-api",
  name: "Newer-api sample",
  register(api) {
    api.registerTranscriptProjector({ id: "newer-api" });
    api.registerContextEngine("newer-api", () => ({
      info: { id: "newer-api", name: "Newer-api sample", version: "0.1.0" },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0 };
      },
      async compact() {
        return { ok: true, compacted: false, reason: "nothing to compact" };
      },
    }));
  },
};
