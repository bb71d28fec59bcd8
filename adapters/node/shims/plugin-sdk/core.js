// Shim of `openclaw/plugin-sdk/core` for plugins loaded without the real
// `openclaw` package (599 MB, Node ≥ 24.16). Behaviour per
// openclaw src/context-engine/delegate.ts and the memory prompt helper.

/** No memory plugin in the harness: nothing to add to the system prompt. */
export function buildMemorySystemPromptAddition() {
  return undefined;
}

/** Legacy-style compaction: the runtime compacts (host/delegateCompaction). */
export async function delegateCompactionToRuntime(params) {
  const host = globalThis.__clawspecHost;
  if (!host) throw new Error("delegateCompactionToRuntime: not running under clawspec");
  return host.request("host/delegateCompaction", host.encode(params));
}
