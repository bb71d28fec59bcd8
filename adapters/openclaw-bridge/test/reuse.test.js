import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { reloadApplied, rowNeutral } from "../lib/reuse.js";

const row = (n, extra = {}) => ({
  plugins: { entries: { "clawspec-bridge": { enabled: true, config: { engine: { program: "e", args: [], cwd: `/w/r${n}/engine` }, trace: `/w/r${n}/trace.ndjson`, profile: "openclaw-2026.9.6" } } } },
  agents: { defaults: { workspace: "/w/gw/workspace", model: { primary: "anthropic/m" } } },
  models: { providers: { anthropic: { baseUrl: `http://127.0.0.1:${4000 + n}`, models: [{ id: "m", contextWindow: 32000 }] } } },
  session: { store: `/w/r${n}/state/agents/main/sessions/sessions.json` },
  ...extra,
});

test("rows differing only in their own trace, engine cwd, mock address and session store share a gateway", () => {
  assert.equal(rowNeutral(row(1)), rowNeutral(row(2)));
});

test("another context window is a row's own value; any other difference needs a fresh gateway", () => {
  const limits = row(2);
  limits.models.providers.anthropic.models[0].contextWindow = 16000;
  assert.equal(rowNeutral(row(1)), rowNeutral(limits));
  const other = row(2);
  other.models.providers.anthropic.models[0].id = "n";
  assert.notEqual(rowNeutral(row(1)), rowNeutral(other));
  assert.notEqual(rowNeutral(row(1)), rowNeutral(row(2, { tools: { allow: ["read"] } })));
  const engine = row(2);
  engine.plugins.entries["clawspec-bridge"].config.engine.program = "other";
  assert.notEqual(rowNeutral(row(1)), rowNeutral(engine));
  const ws = row(2);
  ws.agents.defaults.workspace = "/w/r2/workspace";
  assert.notEqual(rowNeutral(row(1)), rowNeutral(ws), "the workspace is the gateway's: a row cannot move it");
});

test("blanking leaves the caller's config untouched", () => {
  const c = row(1);
  const before = JSON.stringify(c);
  rowNeutral(c);
  assert.equal(JSON.stringify(c), before);
});

test("the reload wait reads only what the log gained, and refuses a restart", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-reuse-"));
  const log = path.join(dir, "gateway.log");
  fs.writeFileSync(log, "2026-11-24T15:33:57Z [reload] config hot reload applied (old)\n");
  const offset = fs.statSync(log).size;
  await assert.rejects(reloadApplied(log, offset, { timeoutMs: 300, pollMs: 10 }), /not applied within/);
  setTimeout(() => fs.appendFileSync(log, "x [reload] config change detected; evaluating reload (session.store)\nx [reload] config hot reload applied (session.store)\n"), 50);
  assert.match(await reloadApplied(log, offset, { timeoutMs: 5000, pollMs: 10 }), /hot reload applied \(session.store\)/);
  const off2 = fs.statSync(log).size;
  fs.appendFileSync(log, "x [reload] config change requires gateway restart (gateway.port)\n");
  await assert.rejects(reloadApplied(log, off2, { timeoutMs: 5000, pollMs: 10 }), /needs a gateway restart/);
  fs.rmSync(dir, { recursive: true, force: true });
});
