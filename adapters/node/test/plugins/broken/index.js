// A deliberately broken plugin: assemble returns {}, ingest writes to stdout
// and throws, and register reads an api member hosts do not have.
export default {
  id: "broken",
  register(api) {
    void api.registerMemoryBackend;
    api.registerContextEngine("broken", () => ({
      info: { id: "broken", name: "Broken sample" },
      async ingest(params) {
        process.stdout.write("debug: ingesting " + params.message.role + "\n");
        throw new Error("ingest is not implemented yet");
      },
      async assemble() {
        return {};
      },
      async compact() {
        return { ok: false, compacted: false, reason: "broken" };
      },
    }));
  },
};
