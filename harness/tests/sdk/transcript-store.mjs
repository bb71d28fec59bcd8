// Drives the real OpenClaw SDK's SQLite transcript store (2026.9.6+,
// `openclaw/plugin-sdk/session-transcript-runtime`) for clawspec's tests.
//
//   node transcript-store.mjs <openclaw-pkg-dir> schema <empty-state-dir>
//     Lets the real SDK create the agent database (a read of a missing session
//     opens it, dist session-accessor.sqlite-read-*.mjs `loadTranscriptReadSnapshotSync`
//     → openclaw-agent-db-*.mjs `openOpenClawAgentDatabase`) and prints its
//     schema: user_version, then every CREATE statement in sqlite_master order
//     (FTS shadow tables left out: their virtual table creates them).
//   node transcript-store.mjs <openclaw-pkg-dir> read <state-dir> <agentId> <sessionId> <sessionKey>
//     Prints what `readVisibleSessionTranscriptMessageEntries` returns, as JSON.
//
// OPENCLAW_STATE_DIR selects the state dir (dist paths-*.mjs `resolveStateDir`).
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

const [pkg, mode, stateDir, ...rest] = process.argv.slice(2);
process.env.OPENCLAW_STATE_DIR = stateDir;
const sdk = await import(path.join(pkg, "dist/plugin-sdk/session-transcript-runtime.js"));

if (mode === "schema") {
  await sdk.readVisibleSessionTranscriptMessageEntries({ agentId: "main", sessionId: "clawspec-schema-probe", sessionKey: "agent:main:main" });
  const db = new DatabaseSync(path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite"), { readOnly: true });
  const { user_version } = db.prepare("PRAGMA user_version").get();
  const rows = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").all();
  const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql)).map((r) => r.name);
  const shadow = (name) => virtual.some((v) => name.startsWith(`${v}_`) && /^(data|idx|content|docsize|config)$/.test(name.slice(v.length + 1)));
  const out = [`PRAGMA user_version = ${user_version};`];
  for (const r of rows) {
    if (r.name.startsWith("sqlite_") || (r.type === "table" && shadow(r.name))) continue;
    out.push(`${r.sql};`);
  }
  process.stdout.write(out.join("\n") + "\n");
} else if (mode === "read") {
  const [agentId, sessionId, sessionKey] = rest;
  const entries = await sdk.readVisibleSessionTranscriptMessageEntries({ agentId, sessionId, sessionKey });
  process.stdout.write(JSON.stringify(entries) + "\n");
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
