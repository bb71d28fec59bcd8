// A plugin that says things while it works, for the "what the engine said"
// surfaces (docs/reports.md): it logs through api.logger (`$/log` and
// stderr), writes to stderr itself, asks the host's model through
// api.runtime.llm.complete (`host/llm.complete`), reads an api member no
// host provides, and breaks one clause: assemble answers estimatedTokens -1
// (CE-ASM-008).
export default {
  id: "chatty",
  name: "Chatty sample",
  register(api) {
    // Not part of the plugin API: the adapter lists it as an unknown read.
    const extra = api.notAHostMember;
    api.registerContextEngine("chatty", () => ({
      info: { id: "chatty", name: "Chatty sample", version: "0.1.0" },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        api.logger.info(`chatty assembling ${params.messages.length} messages${extra === undefined ? "" : " (extra)"}`);
        process.stderr.write(`chatty: raw stderr during assemble of ${params.messages.length}\n`);
        let note = "";
        try {
          const out = await api.runtime.llm?.complete?.({ messages: [{ role: "user", content: "one word for this session" }], maxTokens: 16 });
          note = out?.text ?? "";
        } catch (e) {
          note = `(no host model: ${e?.message ?? e})`;
        }
        api.logger.warn(`chatty host model said: ${note}`);
        return { messages: params.messages, estimatedTokens: -1 };
      },
      async compact() {
        return { ok: true, compacted: false, reason: "nothing to compact" };
      },
    }));
  },
};
