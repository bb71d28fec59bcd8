// One gateway for several rows (host-runner.mjs --serve; harness
// realhost/reuse.rs; docs/performance.md "One gateway for several rows"):
// which config differences a row may bring to a running gateway, and when
// the gateway has applied them.

import fs from "node:fs";

/**
 * The config with the row's own values blanked: what must be equal for a row
 * to run on the gateway the previous row left (anything else, e.g. another
 * engine, heartbeat settings, tools.allow, model limits, a heartbeat step's
 * own edit of the file: a fresh gateway). The blanked values are the ones a
 * row must not share: its trace and engine cwd (the bridge's config: 2026.9.6
 * reruns the plugin's registration, and the bridge then starts a fresh engine
 * for the new trace, index.js bridgeFor), its mock provider's address, its
 * model limits, its session store (2026.9.6 docs/gateway/configuration/hot-reload.md "What
 * hot-applies": plugins.entries.<id>, models, session). The workspace is not
 * among them: the gateway keeps its first one (host-runner.mjs serveRow).
 */
export function rowNeutral(cfg) {
  const c = structuredClone(cfg);
  const bridge = c.plugins?.entries?.["clawspec-bridge"]?.config;
  if (bridge) {
    bridge.trace = "<row>";
    if (bridge.engine) bridge.engine.cwd = "<row>";
    if (bridge.holdUrl !== undefined) bridge.holdUrl = "<row>";
  }
  for (const p of Object.values(c.models?.providers ?? {})) {
    if (p.baseUrl !== undefined) p.baseUrl = "<row>";
    // The scenario's model limits (setup.context_window, reserve_tokens, a
    // scripted provider timeout): `models` hot-applies; whether a running
    // gateway budgets with the new ones is what the fresh-vs-reused proof
    // checks (docs/performance.md).
    if (p.timeoutSeconds !== undefined) p.timeoutSeconds = "<row>";
    for (const m of p.models ?? []) for (const k of ["contextWindow", "maxTokens", "contextTokens"]) if (m[k] !== undefined) m[k] = "<row>";
  }
  if (c.session?.store !== undefined) c.session.store = "<row>";
  return JSON.stringify(c);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolve once `log` (gateway.log), past byte `offset`, says the config
 * change was hot-applied; throw when it says a restart is needed, or after
 * `timeoutMs`. 2026.9.6 logs "[reload] config change detected; evaluating
 * reload (…)" then "[reload] config hot reload applied (…)" (observed;
 * dist/config-reload-*.mjs).
 */
export async function reloadApplied(log, offset, { timeoutMs = 120_000, pollMs = 100 } = {}) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const text = fs.readFileSync(log, "utf8").slice(offset);
    if (/config hot reload applied/.test(text)) return text;
    const reloadLines = text.split("\n").filter((l) => /\[reload\]/.test(l));
    if (reloadLines.some((l) => /restart/i.test(l))) throw new Error(`config change needs a gateway restart: ${reloadLines.join(" | ")}`);
    await sleep(pollMs);
  }
  throw new Error(`config change not applied within ${timeoutMs} ms (${log})`);
}
