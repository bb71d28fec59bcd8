// A plugin that reads api members no host provides and then crashes, for
// "what the engine said" on a faulted run (docs/reports.md): register reads
// api.notAHostMember, the first assemble reads api.runtime.notARuntimeMember,
// the second logs and exits (the engine fault `crash-mid-call`), so no
// `adapter/report` is ever asked; both reads still reach the trace through
// `$/unknownApiMember`.
export default {
  id: "crashy",
  name: "Crashy sample",
  register(api) {
    void api.notAHostMember;
    let assembles = 0;
    api.registerContextEngine("crashy", () => ({
      info: { id: "crashy", name: "Crashy sample", version: "0.1.0" },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        assembles += 1;
        if (assembles === 1) {
          void api.runtime.notARuntimeMember;
          return { messages: params.messages, estimatedTokens: 0 };
        }
        api.logger.info("crashy: about to exit");
        // The notifications are already written: a small write to a pipe
        // completes at once (libuv tries it synchronously).
        process.exit(3);
      },
      async compact() {
        return { ok: true, compacted: false, reason: "nothing to compact" };
      },
    }));
  },
};
