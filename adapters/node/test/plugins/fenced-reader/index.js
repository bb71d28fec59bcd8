// Reads "the transcript" through the SDK in bootstrap, assemble and afterTurn,
// after an await (the fence must follow the call's async continuation), and
// returns which read fence each read ran under (test/read-fence.test.js).
import { readFenceEntryId } from "openclaw/plugin-sdk/session-transcript-runtime";

const later = () => new Promise((r) => setTimeout(r, 5));

export default {
  id: "fenced-reader",
  register(api) {
    api.registerContextEngine("fenced-reader", () => ({
      info: { id: "fenced-reader", name: "Fenced reader" },
      async bootstrap() {
        await later();
        return { bootstrapped: true, fence: readFenceEntryId() };
      },
      async ingest() {
        return { ingested: true };
      },
      async afterTurn() {
        await later();
        return { fence: readFenceEntryId() };
      },
      async assemble({ messages }) {
        await later();
        return { messages, estimatedTokens: 0, fence: readFenceEntryId() };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
