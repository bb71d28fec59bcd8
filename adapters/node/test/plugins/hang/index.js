// An engine whose bootstrap does not answer in time, in the two ways the
// adapter's hang report tells apart (lib/watchdog.js): "spin" runs
// synchronous code (the event loop never turns), "await" awaits a timer (the
// event loop is free). Chosen by the sessionId, else by the plugin config
// `{hang, ms}`.
function spinUntil(deadline) {
  while (Date.now() < deadline) {
    /* synchronous work */
  }
}

export default {
  id: "hang",
  register(api) {
    const config = api.pluginConfig ?? {};
    api.registerContextEngine("hang", () => ({
      info: { id: "hang", name: "Hang" },
      async bootstrap(params) {
        const mode = ["spin", "await"].includes(params.sessionId) ? params.sessionId : config.hang;
        const ms = Number(params.ms ?? config.ms ?? 3000);
        if (mode === "spin") spinUntil(Date.now() + ms);
        if (mode === "await") await new Promise((resolve) => setTimeout(resolve, ms));
        return { bootstrapped: true };
      },
      async ingest() {
        return { ingested: true };
      },
      async assemble(params) {
        return { messages: params.messages, estimatedTokens: 0 };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
