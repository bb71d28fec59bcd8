// node --test: seeding a session into a real OpenClaw 2026.4.x session store.
// Needs openclaw@2026.4.x in clawspec's cache ($CLAWSPEC_CACHE or
// ~/.cache/clawspec); skipped with a message otherwise.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { seedSession, sessionPaths, sqlitePathBeside } from "../lib/seed.js";

const cache = process.env.CLAWSPEC_CACHE || path.join(os.homedir(), ".cache/clawspec");
const root = fs.existsSync(cache) ? fs.readdirSync(cache).filter((d) => d.startsWith("openclaw@2026.4.")).map((d) => path.join(cache, d, "node_modules/openclaw")).find((p) => fs.existsSync(p)) : undefined;

test("sessionPaths follow docs/concepts/session.md", () => {
  assert.deepEqual(sessionPaths("/s", "main"), { dir: "/s/agents/main/sessions", store: "/s/agents/main/sessions/sessions.json" });
});

test("a served row's store has its agent database beside it (dist/session-sqlite-target-*.mjs)", () => {
  assert.equal(sqlitePathBeside("/r/state/agents/main/sessions/sessions.json"), "/r/state/agents/main/agent/openclaw-agent.sqlite");
  assert.throws(() => sqlitePathBeside("/r/state/sessions.json"), /agents\/<id>\/sessions\/sessions.json/);
  assert.throws(() => sqlitePathBeside("/r/state/agents/main/sessions/store.json"), /storePath must be/);
});

const messages = [
  { role: "user", content: [{ type: "text", text: "earlier question" }], timestamp: 1767224000000 },
  { role: "assistant", content: [{ type: "text", text: "earlier answer" }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-6", usage: { input: 0, output: 4, cacheRead: 0, cacheWrite: 0, totalTokens: 4, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: 1767224001000 },
];

for (const [name, msgs] of [["with an assistant reply", messages], ["user only", messages.slice(0, 1)], ["empty (session_exists)", []]]) {
  test(`seeds a 4.26 session: ${name}`, { skip: root ? false : "openclaw@2026.4.x not in the clawspec cache (run `clawspec twin --profile openclaw-2026.4.26` once)" }, async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-seed-"));
    try {
      const out = await seedSession({ openclawRoot: root, stateDir, workspace: "/ws", seed: { agentId: "main", sessionKey: "agent:main:main", messages: msgs } });
      assert.equal(path.basename(out.sessionFile), `${out.sessionId}.jsonl`);
      const lines = fs.readFileSync(out.sessionFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(lines[0].type, "session");
      assert.equal(lines[0].id, out.sessionId);
      assert.equal(lines[0].cwd, "/ws");
      const stored = lines.filter((l) => l.type === "message");
      // Stored byte-identical to what was given (the reference's message JSON).
      assert.deepEqual(stored.map((l) => JSON.stringify(l.message)), msgs.map((m) => JSON.stringify(m)));
      stored.forEach((l, i) => assert.equal(l.parentId, i === 0 ? null : stored[i - 1].id));
      const store = JSON.parse(fs.readFileSync(out.storePath, "utf8"));
      assert.equal(store["agent:main:main"].sessionId, out.sessionId);
      assert.equal(store["agent:main:main"].sessionFile, out.sessionFile);
    } finally {
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  });
}

test("seeds a 4.26 session into a served row's own store (storePath), not the gateway's", { skip: root ? false : "openclaw@2026.4.x not in the clawspec cache" }, async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-seed-gw-"));
  const rowDir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-seed-row-"));
  try {
    const storePath = path.join(rowDir, "state/agents/main/sessions/sessions.json");
    const out = await seedSession({ openclawRoot: root, stateDir, workspace: "/ws", seed: { agentId: "main", sessionKey: "agent:main:main", messages }, storePath });
    assert.equal(out.storePath, storePath);
    assert.equal(path.dirname(out.sessionFile), path.dirname(storePath));
    assert.equal(JSON.parse(fs.readFileSync(storePath, "utf8"))["agent:main:main"].sessionId, out.sessionId);
    assert.deepEqual(fs.readdirSync(stateDir), [], "nothing written into the gateway's state dir");
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
    fs.rmSync(rowDir, { recursive: true, force: true });
  }
});

// 2026.9.x: the SQLite transcript store, through the host's own SDK.
const root96 = fs.existsSync(cache) ? fs.readdirSync(cache).filter((d) => d.startsWith("openclaw@2026.9.")).map((d) => path.join(cache, d, "node_modules/openclaw")).find((p) => fs.existsSync(p)) : undefined;
const node24 = Number(process.versions.node.split(".")[0]) >= 24;
const skip96 = !root96 ? "openclaw@2026.9.x not in the clawspec cache (run `clawspec twin` once)" : !node24 ? `openclaw@2026.9.x needs Node >= 24 (this is ${process.version})` : false;

for (const [name, msgs] of [["with an assistant reply", messages], ["empty (session_exists)", []]]) {
  test(`seeds a 9.6 session into the SQLite store: ${name}`, { skip: skip96 }, async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-seed96-"));
    const before = process.env.OPENCLAW_STATE_DIR;
    process.env.OPENCLAW_STATE_DIR = stateDir;
    try {
      const seed = { agentId: "main", sessionKey: "agent:main:main", messages: msgs };
      const out = await seedSession({ openclawRoot: root96, stateDir, workspace: "/ws", seed });
      assert.equal(out.sessionFile, "agent:main:main");
      assert.equal(out.storePath, path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite"));
      const sdk = await import(path.join(root96, "dist/plugin-sdk/session-transcript-runtime.js"));
      const entries = await sdk.readVisibleSessionTranscriptMessageEntries({ agentId: "main", sessionId: out.sessionId, sessionKey: "agent:main:main" });
      // Stored byte-identical to what was given (the reference's message JSON), parents chained.
      assert.deepEqual(entries.map((e) => JSON.stringify(e.message)), msgs.map((m) => JSON.stringify(m)));
      entries.forEach((e, i) => assert.equal(e.parentId, i === 0 ? null : entries[i - 1].entryId));
      const store = await import(path.join(root96, "dist/plugin-sdk/session-store-runtime.js"));
      const entry = await store.getSessionEntry({ agentId: "main", sessionKey: "agent:main:main" });
      assert.equal(entry?.sessionId, out.sessionId);
      assert.match(entry?.lifecycleRevision ?? "", /^[0-9a-f-]{36}$/);
    } finally {
      if (before === undefined) delete process.env.OPENCLAW_STATE_DIR;
      else process.env.OPENCLAW_STATE_DIR = before;
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  });
}

test("seeds a 9.6 session into a served row's own store (storePath), not the gateway's", { skip: skip96 }, async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-seed96-gw-"));
  const rowDir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-seed96-row-"));
  const before = process.env.OPENCLAW_STATE_DIR;
  process.env.OPENCLAW_STATE_DIR = stateDir;
  try {
    const storePath = path.join(rowDir, "state/agents/main/sessions/sessions.json");
    const seed = { agentId: "main", sessionKey: "agent:main:main", messages };
    const out = await seedSession({ openclawRoot: root96, stateDir, workspace: "/ws", seed, storePath });
    assert.equal(out.storePath, path.join(rowDir, "state/agents/main/agent/openclaw-agent.sqlite"));
    assert.ok(fs.existsSync(out.storePath), "the row's database was written");
    assert.ok(!fs.existsSync(path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite")), "the gateway's own store is untouched");
    const sdk = await import(path.join(root96, "dist/plugin-sdk/session-transcript-runtime.js"));
    const entries = await sdk.readVisibleSessionTranscriptMessageEntries({ agentId: "main", sessionId: out.sessionId, sessionKey: "agent:main:main", storePath });
    assert.deepEqual(entries.map((e) => JSON.stringify(e.message)), messages.map((m) => JSON.stringify(m)));
    const store = await import(path.join(root96, "dist/plugin-sdk/session-store-runtime.js"));
    assert.equal((await store.getSessionEntry({ agentId: "main", sessionKey: "agent:main:main", storePath }))?.sessionId, out.sessionId);
  } finally {
    if (before === undefined) delete process.env.OPENCLAW_STATE_DIR;
    else process.env.OPENCLAW_STATE_DIR = before;
    fs.rmSync(stateDir, { recursive: true, force: true });
    fs.rmSync(rowDir, { recursive: true, force: true });
  }
});
