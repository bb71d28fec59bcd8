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

test("a row's provider, model, limits, tools and agent settings hot-apply; the engine, workspace and gateway settings do not", () => {
  const limits = row(2);
  limits.models.providers.anthropic.models[0].contextWindow = 16000;
  assert.equal(rowNeutral(row(1)), rowNeutral(limits));
  const other = row(2);
  other.models.providers = { openai: { baseUrl: "http://127.0.0.1:5000", api: "openai-responses", models: [{ id: "gpt" }] } };
  other.agents.defaults.model.primary = "openai/gpt";
  assert.equal(rowNeutral(row(1)), rowNeutral(other));
  assert.equal(rowNeutral(row(1)), rowNeutral(row(2, { tools: { allow: ["read"] } })), "one row's tools against another's none");
  const settings = row(2);
  settings.agents.defaults.compaction = { timeoutSeconds: 1 };
  settings.agents.list = [{ id: "ops", default: true }];
  settings.plugins.entries["clawspec-bridge"].config.toolResults = [{ tool: "read", result: "x" }];
  assert.equal(rowNeutral(row(1)), rowNeutral(settings));
  const engine = row(2);
  engine.plugins.entries["clawspec-bridge"].config.engine.program = "other";
  assert.notEqual(rowNeutral(row(1)), rowNeutral(engine));
  const ws = row(2);
  ws.agents.defaults.workspace = "/w/r2/workspace";
  assert.notEqual(rowNeutral(row(1)), rowNeutral(ws), "the workspace is the gateway's: a row cannot move it");
  assert.notEqual(rowNeutral(row(1)), rowNeutral(row(2, { gateway: { port: 1 } })), "gateway settings restart it");
  const { agents, ...rest } = row(2, { tools: { allow: ["read"] } });
  assert.equal(rowNeutral(row(1)), rowNeutral({ ...rest, agents }), "the order a config's keys were written in is no difference");
});

test("2026.4.x: any plugins difference needs a fresh gateway; the rest hot-applies, memory aside", () => {
  const gw = (n, extra = {}) => ({ ...row(n, extra), plugins: { allow: ["clawspec-bridge", "anthropic"], entries: { anthropic: { enabled: true }, "clawspec-bridge": { enabled: true, config: { engineId: "clawspec-bridge", rowFile: "/w/gw/bridge-row.json" } } } } });
  const four = (c) => rowNeutral(c, { release4x: true });
  assert.equal(four(gw(1)), four(gw(2, { tools: { allow: ["read"] } })));
  const openai = gw(2);
  openai.plugins.allow = ["clawspec-bridge", "openai"];
  assert.notEqual(four(gw(1)), four(openai));
  assert.notEqual(four(gw(1)), four(gw(2, { memory: { citations: "on" } })));
  assert.equal(rowNeutral(gw(1)), rowNeutral(openai), "on 2026.9.x the same change hot-applies");
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
