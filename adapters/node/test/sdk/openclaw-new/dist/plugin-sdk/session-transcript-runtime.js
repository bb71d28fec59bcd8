// Stand-in for plugin-sdk/session-transcript-runtime: a read says which fence it runs under.
import { r as resolveSessionTranscriptReadFence } from "../session-transcript-read-fence-T3st.mjs";
export function readFenceEntryId() {
  return resolveSessionTranscriptReadFence()?.entryId ?? null;
}
