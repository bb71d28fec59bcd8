// Typed plugin hooks (`api.on`) as OpenClaw runs them: handlers in
// registration order with (event, ctx), results merged per hook
// (openclaw 2026.9.6 dist/hooks-*.mjs, runBeforePromptBuild →
// mergeBeforePromptBuild: the first systemPrompt wins, context segments
// concatenate with a blank line, toolsAllow intersect).

const SEGMENTS = ["prependContext", "appendContext", "prependSystemContext", "appendSystemContext"];

function concat(left, right) {
  const parts = [left, right].filter((s) => typeof s === "string" && s.length > 0);
  return parts.length ? parts.join("\n\n") : undefined;
}

/** Merge two before_prompt_build results. */
export function mergePromptBuild(acc, next) {
  if (!next || typeof next !== "object") return acc;
  const out = { systemPrompt: acc?.systemPrompt ?? next.systemPrompt };
  for (const k of SEGMENTS) out[k] = concat(acc?.[k], next[k]);
  const allows = [acc?.toolsAllow, next.toolsAllow].filter(Array.isArray);
  if (allows.length) out.toolsAllow = allows.reduce((a, b) => a.filter((t) => b.includes(t)));
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

const MERGE = { before_prompt_build: mergePromptBuild };

/**
 * @param {Function[]} handlers
 * @returns {Promise<{called: number, result?: unknown}>}
 */
export async function runHook(name, handlers, event, ctx) {
  const merge = MERGE[name];
  let result;
  for (const h of handlers) {
    const r = await h(event, ctx);
    if (merge) result = merge(result, r);
  }
  return { called: handlers.length, ...(result !== undefined ? { result } : {}) };
}
