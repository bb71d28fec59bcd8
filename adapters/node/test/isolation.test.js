import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { isolate } from "../lib/isolation.js";

test("OPENCLAW_STATE_DIR is the host state dir the clawspec runtime names (SQLite transcript store)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-iso-host-"));
  const env = { CLAWSPEC_OPENCLAW_STATE_DIR: dir, OPENCLAW_STATE_DIR: "/home/user/.openclaw" };
  isolate(path.join(dir, "plugin"), env);
  assert.equal(env.OPENCLAW_STATE_DIR, dir);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("HOME, OPENCLAW_STATE_DIR and TMPDIR point into the state dir; secrets and host pointers are stripped", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iso-"));
  const env = { PATH: "/bin", HOME: "/home/me", ANTHROPIC_API_KEY: "k", GITHUB_TOKEN: "t", DB_PASSWORD: "p", AWS_SECRET_ACCESS_KEY: "s", OPENCLAW_CONFIG_PATH: "/home/me/.openclaw/x", LCM_DATABASE_PATH: "/home/me/lcm.db", CLAWSPEC_STATE_DIR: "/keep", NODE_OPTIONS: "" };
  const iso = isolate(dir, env);
  assert.equal(env.HOME, path.join(dir, "home"));
  assert.equal(env.OPENCLAW_STATE_DIR, path.join(dir, "openclaw"));
  assert.equal(env.TMPDIR, path.join(dir, "tmp"));
  assert.equal(env.PATH, "/bin");
  assert.equal(env.CLAWSPEC_STATE_DIR, "/keep");
  assert.deepEqual(iso.stripped, ["ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "LCM_DATABASE_PATH", "OPENCLAW_CONFIG_PATH"]);
  for (const d of ["home", "openclaw", "tmp", "agent", "workspace"]) assert.ok(fs.statSync(path.join(dir, d)).isDirectory());
  iso.cleanup();
  assert.ok(fs.existsSync(dir), "a caller's state dir is never removed");
  fs.rmSync(dir, { recursive: true, force: true });
});

test("default: $CLAWSPEC_STATE_DIR/plugin, else a fresh temp dir removed by cleanup", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "iso-"));
  assert.equal(isolate(undefined, { CLAWSPEC_STATE_DIR: root }).dir, path.join(root, "plugin"));
  const fresh = isolate(undefined, {});
  assert.ok(fresh.created && fs.existsSync(fresh.dir));
  fresh.cleanup();
  assert.ok(!fs.existsSync(fresh.dir));
  fs.rmSync(root, { recursive: true, force: true });
});
