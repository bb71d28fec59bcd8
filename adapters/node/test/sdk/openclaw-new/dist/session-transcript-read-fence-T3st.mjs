// Stand-in for the release's fence chunk (2026.9.6 dist/session-transcript-read-fence-*.mjs):
// an AsyncLocalStorage the SDK's transcript reads consult, exported under minified names.
import { AsyncLocalStorage } from "node:async_hooks";
const transcriptReadFenceStorage = new AsyncLocalStorage();
function runWithSessionTranscriptReadFence(receipt, run) {
  return receipt ? transcriptReadFenceStorage.run(receipt, run) : run();
}
function resolveSessionTranscriptReadFence() {
  return transcriptReadFenceStorage.getStore();
}
export { runWithSessionTranscriptReadFence as a, resolveSessionTranscriptReadFence as r };
