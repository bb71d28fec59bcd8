// A capture-only engine shaped like lastguru-net/openclaw-universal-capture
// 0.7.0: durable turns (so 2026.9.6 runs its turns on it), `assemble` hands
// the host's messages back unchanged, compaction is the host's
// (`delegateCompactionToRuntime`), and `commitTurn` records what it was given.
// A long history therefore overflows and the host compacts inside the turn.
import { delegateCompactionToRuntime } from "openclaw/plugin-sdk/core";

export default {
  id: "capture",
  register(api) {
    api.registerContextEngine("capture", () => {
      const commits = [];
      return {
        info: { id: "capture", name: "Capture", ownsCompaction: false, transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" } },
        async bootstrap() {
          return { bootstrapped: true };
        },
        async ingest() {
          return { ingested: false };
        },
        async assemble(params) {
          return { messages: params.messages, estimatedTokens: 0, commits };
        },
        async commitTurn(params) {
          commits.push({ entryId: params.admission.entryId, roles: params.messages.map((m) => m.role) });
          return { status: "committed" };
        },
        async compact(params) {
          return delegateCompactionToRuntime(params);
        },
      };
    });
  },
};
