// An ESM plugin that imports openclaw/plugin-sdk/core and summarises history
// with llm.complete during compaction (runtimeContext.llm when the host binds
// it, else api.runtime.llm). A host without a model for plugins (2026.4.26
// offers no llm.complete) gets a local stand-in summary, as a real plugin
// would fall back.
import { buildMemorySystemPromptAddition } from "openclaw/plugin-sdk/core";
import { randomUUID } from "node:crypto";

const estimate = (m) => Math.ceil(JSON.stringify(m.content ?? m.summary ?? "").length / 4);

export default {
  id: "summarizer",
  name: "Summarizer sample",
  register(api) {
    const sessions = new Map();
    api.on("session_end", () => sessions.clear());
    api.registerTool({ name: "summary_status" });
    api.registerContextEngine("summarizer", async (ctx) => ({
      info: { id: "summarizer", name: "Summarizer sample", version: "0.2.0" },
      async ingest() {
        return { ingested: true };
      },
      async afterTurn() {},
      async assemble(params) {
        const s = sessions.get(params.sessionId);
        const addition = buildMemorySystemPromptAddition();
        let messages = params.messages;
        if (s) {
          // Keep the current user turn onwards; everything before is summarised.
          const lastUser = messages.map((m) => m.role).lastIndexOf("user");
          const tail = lastUser >= 0 ? messages.slice(lastUser) : messages;
          messages = [{ role: "compactionSummary", summary: s.summary, tokensBefore: s.before, id: s.id }, ...tail];
        }
        const estimatedTokens = messages.reduce((n, m) => n + estimate(m), 0);
        return addition ? { messages, estimatedTokens, systemPromptAddition: addition } : { messages, estimatedTokens };
      },
      async compact(params) {
        const complete = params.runtimeContext?.llm?.complete ?? api.runtime.llm?.complete;
        let text = "";
        try {
          if (complete) text = (await complete({ messages: [{ role: "user", content: `Summarise session ${params.sessionId}` }], maxTokens: 256 })).text;
        } catch (e) {
          if (e?.name === "AbortError") throw e;
          text = `(no host model: ${e?.message ?? e})`;
        }
        if (params.abortSignal?.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
        const before = params.currentTokenCount ?? 1000;
        const summary = text || "(empty summary)";
        sessions.set(params.sessionId, { summary, before, id: randomUUID() });
        return { ok: true, compacted: true, result: { summary, tokensBefore: before, tokensAfter: Math.ceil(summary.length / 4) } };
      },
    }));
  },
};
