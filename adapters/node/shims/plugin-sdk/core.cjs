// CommonJS twin of core.js (require() of ESM needs Node ≥ 22.12).
exports.buildMemorySystemPromptAddition = () => undefined;
exports.delegateCompactionToRuntime = async (params) => {
  const host = globalThis.__clawspecHost;
  if (!host) throw new Error("delegateCompactionToRuntime: not running under clawspec");
  return host.request("host/delegateCompaction", host.encode(params));
};
