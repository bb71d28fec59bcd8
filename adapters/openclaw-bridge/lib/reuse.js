// One gateway for several rows (host-runner.mjs --serve; harness
// realhost/reuse.rs; docs/performance.md "One gateway for several rows"):
// which config differences a row may bring to a running gateway, and when
// the gateway has applied them.

import fs from "node:fs";

/**
 * The config with the row's own values blanked: what must be equal for a row
 * to run on the gateway the previous row left (anything else: a fresh
 * gateway). 2026.9.6 hot-applies every key a row's config sets except the
 * gateway's own (docs/gateway/configuration/hot-reload.md "What hot-applies
 * vs what needs a restart": `agents`, `models`, `tools`, `session`,
 * `messages`, `memory.citations`, `plugins.entries.*`, `plugins.allow` — "No";
 * other `gateway.*` — "Yes"), so the row's own values are: its bridge config
 * (2026.9.6 reruns the plugin's registration and the bridge starts a fresh
 * engine for the new trace, index.js bridgeFor), its models and mock
 * providers, its agent settings and agent list, its tools, messages, memory
 * and session settings. What stays the gateway's, and must be equal:
 * `gateway`/`discovery`/`update`/`logging` (a restart), the plugin load path
 * and context-engine slot, the engine program (the runner's key, realhost
 * reuse.rs), and the workspace: 2026.9.6 keeps running in the first row's
 * workspace after `agents.defaults.workspace` is hot-applied (host-runner.mjs
 * serveRow says what was observed). Whether a row on a reused gateway sees
 * what a fresh one would is the gate's to say: a row that is not equal is
 * re-run alone on a fresh gateway (cli/fidelity.rs `gate`), and
 * docs/performance.md records the proof runs.
 *
 * `release4x`: on 2026.4.x any `plugins` change restarts the gateway
 * (2026.4.26 docs/gateway/configuration.md "What hot-applies": `plugins` —
 * "Yes"), so `plugins` must be equal; a served 4.x gateway's bridge config is
 * the gateway's and the row's own values travel in its row file
 * (host-runner.mjs `writeBridgeRow`, index.js `rowConfig`). `agents`,
 * `models`, `session`, `messages` and `tools` hot-apply there as well ("No");
 * `memory` is not in that table, so it stays the gateway's.
 */
export function rowNeutral(cfg, { release4x = false } = {}) {
  const c = structuredClone(cfg);
  const bridge = c.plugins?.entries?.["clawspec-bridge"]?.config;
  const program = bridge?.engine ? { program: bridge.engine.program, args: bridge.engine.args, env: bridge.engine.env } : undefined;
  if (c.plugins && !release4x) {
    c.plugins.entries = { "clawspec-bridge": program ? { engine: program } : "<row>", others: "<row>" };
    c.plugins.allow = "<row>";
  }
  const workspace = c.agents?.defaults?.workspace;
  if (c.agents) c.agents = { workspace: workspace ?? null, rest: "<row>" };
  // Set whether or not the row has them: one row's `tools` against another's none is a hot change too.
  for (const k of ["models", "tools", "session", "messages", ...(release4x ? [] : ["memory"])]) c[k] = "<row>";
  return JSON.stringify(sorted(c));
}

/** `v` with every object's keys in order: where a row's config spreads its keys is no difference. */
function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
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
