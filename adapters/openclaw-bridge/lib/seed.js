// Seeds a scenario's pre-existing session into a real OpenClaw's own session
// store before the gateway starts, through the host's own code, so that the
// first turn finds an existing session (hadSessionFile, bootstrap) exactly as
// after earlier real turns.
//
// 2026.4.x keeps a session as a `sessions.json` entry plus a JSONL transcript
// in `<state>/agents/<agentId>/sessions/` (docs/concepts/session.md "Store" /
// "Transcripts"). The transcript is written by the host's SessionManager
// (@mariozechner/pi-coding-agent dist/core/session-manager.js: header
// `{type:"session",version:3,…}`, one `{type:"message",id,parentId,timestamp,message}`
// line per message, the message object stored as given), the entry by the
// plugin SDK's `updateSessionStore` (dist/plugin-sdk/session-store-runtime.js).
//
// 2026.9.x keeps sessions in the agent's SQLite database
// `<state>/agents/<agentId>/agent/openclaw-agent.sqlite` (dist
// openclaw-agent-db.paths-*.mjs). The session row is created by the plugin
// SDK's `upsertSessionEntry` (dist/plugin-sdk/session-store-runtime.js), the
// messages appended in order by `appendSessionTranscriptMessagesByIdentity`
// (dist/plugin-sdk/session-transcript-runtime.js, one transaction; the
// message objects are stored as given, parentIds chained by the host). The
// SDK finds the database through OPENCLAW_STATE_DIR, which host-runner sets,
// or, given `storePath` (a served gateway's row: its own `session.store`),
// beside that store, as the gateway itself does for the configured store
// (the SDK's explicit `storePath` scope: dist/session-accessor.sqlite-entry-*.mjs
// resolveSessionStorePathForScope, dist/session-sqlite-target-*.mjs
// resolveUnsuffixedSqliteTargetFromSessionStorePath:
// `<state>/agents/<id>/sessions/sessions.json` → `<state>/agents/<id>/agent/openclaw-agent.sqlite`).
//
// Usage (host-runner.mjs, under the gateway's environment):
//   node lib/seed.js SEED.json   with {openclawRoot, stateDir, workspace, seed, storePath?}

import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Where 2026.4.x keeps an agent's sessions (docs/concepts/session.md). */
export function sessionPaths(stateDir, agentId) {
  const dir = path.join(stateDir, "agents", agentId, "sessions");
  return { dir, store: path.join(dir, "sessions.json") };
}

async function hostModules(openclawRoot) {
  // The host's own copy of its session library, found as Node finds it from
  // the package: the nearest node_modules upward (nested, hoisted, or, for a
  // 2026.4.x package run from its plugin stage dir, the release's npm install
  // two levels up; realhost/install.rs ensure_host_stage). Its package exports
  // are import-only, so no require.resolve.
  const candidates = [];
  for (let d = openclawRoot; ; d = path.dirname(d)) {
    candidates.push(path.join(d, path.basename(d) === "node_modules" ? "" : "node_modules", "@mariozechner/pi-coding-agent"));
    if (path.dirname(d) === d) break;
  }
  const pkg = candidates.find((d) => fs.existsSync(path.join(d, "package.json")));
  if (!pkg) throw new Error(`seed: @mariozechner/pi-coding-agent not found next to ${openclawRoot}`);
  const main = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).exports["."].import;
  const { SessionManager } = await import(pathToFileURL(path.join(pkg, main)).href);
  const store = await import(pathToFileURL(path.join(openclawRoot, "dist/plugin-sdk/session-store-runtime.js")).href);
  return { SessionManager, updateSessionStore: store.updateSessionStore };
}

/** The 2026.9.x SDK entry points, or null on a release without the SQLite store. */
async function sqliteModules(openclawRoot) {
  const sdk = (name) => path.join(openclawRoot, "dist/plugin-sdk", `${name}.js`);
  if (!fs.existsSync(sdk("session-transcript-runtime"))) return null;
  const transcript = await import(pathToFileURL(sdk("session-transcript-runtime")).href);
  const store = await import(pathToFileURL(sdk("session-store-runtime")).href);
  if (typeof transcript.appendSessionTranscriptMessagesByIdentity !== "function" || typeof store.upsertSessionEntry !== "function") return null;
  return { append: transcript.appendSessionTranscriptMessagesByIdentity, upsert: store.upsertSessionEntry };
}

/** Where the SDK puts the agent database of session store `storePath` (dist/session-sqlite-target-*.mjs). */
export function sqlitePathBeside(storePath) {
  const sessions = path.dirname(path.resolve(storePath));
  if (path.basename(storePath) !== "sessions.json" || path.basename(sessions) !== "sessions") {
    throw new Error(`seed: storePath must be <state>/agents/<id>/sessions/sessions.json, got ${storePath}`);
  }
  return path.join(path.dirname(sessions), "agent", "openclaw-agent.sqlite");
}

async function seedSqlite({ append, upsert }, { stateDir, seed, storePath }) {
  if (path.resolve(process.env.OPENCLAW_STATE_DIR ?? "") !== path.resolve(stateDir)) {
    throw new Error(`seed: OPENCLAW_STATE_DIR must be the gateway's state dir ${stateDir} (the SDK resolves the agent database from it)`);
  }
  const { agentId, sessionKey } = seed;
  const sessionId = randomUUID();
  // A session that earlier real runs created carries an opaque
  // `lifecycleRevision` (SessionEntry, dist templating-*.d.ts: "Opaque owner
  // revision used to reject stale lifecycle mutations"; seen in a twin work
  // dir's session_nodes.entry_json); the host then names it in
  // sessionTarget.expectedLifecycleRevision on bootstrap.
  const at = storePath ? { storePath } : {};
  await upsert({ agentId, sessionKey, ...at, entry: { sessionId, updatedAt: Date.now(), lifecycleRevision: randomUUID() } });
  if (seed.messages.length > 0) {
    const out = await append({ agentId, sessionId, sessionKey, ...at, messages: seed.messages.map((message) => ({ message })) });
    const missing = (out ?? []).filter((r) => !r?.appended);
    if (!Array.isArray(out) || out.length !== seed.messages.length || missing.length > 0) {
      throw new Error(`seed: the host appended ${Array.isArray(out) ? out.length - missing.length : 0} of ${seed.messages.length} messages: ${JSON.stringify(missing).slice(0, 500)}`);
    }
  }
  return { sessionId, sessionFile: sessionKey, storePath: storePath ? sqlitePathBeside(storePath) : path.join(stateDir, "agents", agentId, "agent", "openclaw-agent.sqlite") };
}

/**
 * Create the session `seed.sessionKey` holding `seed.messages` (in order).
 * Returns {sessionId, sessionFile, storePath}.
 */
export async function seedSession({ openclawRoot, stateDir, workspace, seed, storePath }) {
  const sqlite = await sqliteModules(openclawRoot);
  if (sqlite) {
    if (storePath) sqlitePathBeside(storePath);
    return seedSqlite(sqlite, { stateDir, seed, storePath });
  }
  const { SessionManager, updateSessionStore } = await hostModules(openclawRoot);
  if (typeof SessionManager?.open !== "function" || typeof updateSessionStore !== "function") {
    throw new Error(`seed: ${openclawRoot} has no SessionManager.open / plugin-sdk updateSessionStore (not a 2026.4.x layout)`);
  }
  // A served gateway's row (storePath): its own store, laid out as the state
  // dir's; 2026.4.26 resolves the store of each session access from the
  // runtime config (dist/session-utils-*.js loadSessionEntry `getRuntimeConfig()`).
  const { dir, store } = storePath ? { dir: path.dirname(path.resolve(storePath)), store: path.resolve(storePath) } : sessionPaths(stateDir, seed.agentId);
  fs.mkdirSync(dir, { recursive: true });
  const sessionId = randomUUID();
  const sessionFile = path.join(dir, `${sessionId}.jsonl`);
  const sm = SessionManager.open(sessionFile, dir, workspace);
  // The transcript is named after its session id (docs/concepts/session.md);
  // a fresh header with that id, kept at the explicit path, as the
  // SessionManager itself does for an explicit --session path.
  sm.newSession({ id: sessionId });
  sm.sessionFile = sessionFile;
  // What the earlier turns wrote before their first user message: the agent
  // session's initial model and thinking level (@mariozechner/pi-coding-agent
  // dist/core/sdk.js createAgentSession: appendModelChange +
  // appendThinkingLevelChange for a new session; "off", the level a
  // non-reasoning model is clamped to) and the first attempt's model
  // snapshot (sanitizeSessionHistory → appendModelSnapshot, dist
  // compaction-successor-transcript-*.js). Without them the first real turn
  // appends them after the seeded messages (realhost/seed.rs Seed::model_snapshot).
  if (seed.modelSnapshot && seed.messages.length > 0) {
    sm.appendModelChange(seed.modelSnapshot.provider, seed.modelSnapshot.modelId);
    sm.appendThinkingLevelChange("off");
    sm.appendCustomEntry("model-snapshot", { timestamp: Date.now(), ...seed.modelSnapshot });
  }
  for (const message of seed.messages) sm.appendMessage(message);
  // The SessionManager defers the first write until an assistant message
  // exists (_persist); a seeded session that has none must still be a file.
  if (!fs.existsSync(sessionFile)) sm._rewriteFile();
  const id = sm.getSessionId();
  await updateSessionStore(store, (entries) => {
    entries[seed.sessionKey] = { sessionId: id, updatedAt: Date.now(), sessionFile };
  });
  return { sessionId: id, sessionFile, storePath: store };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  try {
    const out = await seedSession(spec);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } catch (e) {
    process.stderr.write(`clawspec seed: ${e?.stack ?? e}\n`);
    process.exit(1);
  }
}
