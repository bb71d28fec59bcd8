import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { prepareResultFiles, prepareStandIns, resultFile, ScriptedTools, STAND_IN_DIR, STAND_IN_FILE, STAND_INS, WorkspaceTools } from "../lib/tools.js";

const results = [
  { toolCallId: "toolu_0001", toolName: "exec", text: "permission denied", isError: true },
  { toolCallId: "toolu_0002", toolName: "read", text: "a = 1", isError: false, imagePngBase64: "iVBOR" },
];

test("a scripted call runs a harmless stand-in that fails exactly when the script says so", () => {
  const t = new ScriptedTools(results);
  assert.deepEqual(t.standIn({ toolCallId: "toolu_0001", toolName: "exec", params: { command: "rm -rf /" } }), { params: { command: "true", host: "sandbox" } });
  assert.deepEqual(t.standIn({ toolCallId: "toolu_0002", toolName: "read", params: { path: "a.toml" } }), { params: { path: STAND_IN_FILE } });
  // Calls the script does not know, or a renamed tool, are the host's own.
  assert.equal(t.standIn({ toolCallId: "other", toolName: "exec" }), undefined);
  assert.equal(t.standIn({ toolCallId: "toolu_0001", toolName: "read" }), undefined);
  // The stand-in is a copy: the host may mutate what it gets.
  t.standIn({ toolCallId: "toolu_0001", toolName: "exec" }).params.command = "changed";
  assert.equal(STAND_INS.exec.error.command, "true");
});

test("the middleware replaces the output with the scripted content and the reference's empty details", () => {
  const t = new ScriptedTools(results);
  const real = { content: [{ type: "text", text: "clawspec stand-in\n" }], details: { status: "ok" } };
  assert.deepEqual(t.result({ toolCallId: "toolu_0001", toolName: "exec", isError: true, result: real }), {
    result: { content: [{ type: "text", text: "permission denied" }], details: {} },
  });
  assert.deepEqual(t.result({ toolCallId: "toolu_0002", toolName: "read", result: real }).result.content, [
    { type: "text", text: "a = 1" },
    { type: "image", data: "iVBOR", mimeType: "image/png" },
  ]);
  assert.equal(t.result({ toolCallId: "unknown", toolName: "read", result: real }), undefined);
});

test("registration wires both seams, and only when there is a script", () => {
  const seen = [];
  const api = { on: (name, fn) => seen.push(["on", name, fn]), registerAgentToolResultMiddleware: (fn, opts) => seen.push(["mw", opts, fn]) };
  new ScriptedTools([]).register(api);
  assert.equal(seen.length, 0);
  new ScriptedTools(results).register(api);
  assert.deepEqual(seen.map(([k, x]) => [k, x]), [["on", "before_tool_call"], ["mw", { runtimes: ["openclaw"] }]]);
  assert.deepEqual(seen[0][2]({ toolCallId: "toolu_0001", toolName: "exec" }), { params: { command: "true", host: "sandbox" } });
  assert.throws(() => new ScriptedTools(results).register({ on() {} }), /registerAgentToolResultMiddleware/);
});

test("stand-in inputs: the read file exists, the write target is a directory", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-tools-"));
  prepareStandIns(fs, dir);
  assert.ok(fs.statSync(path.join(dir, STAND_IN_FILE)).isFile());
  assert.ok(fs.statSync(path.join(dir, STAND_IN_DIR)).isDirectory());
  fs.rmSync(dir, { recursive: true });
});

test("a held scripted result finishes only after its hold is released", async () => {
  let release;
  const paused = [];
  const t = new ScriptedTools([{ toolCallId: "toolu_0001", toolName: "exec", text: "done", isError: false, hold: 4 }], {
    holdUrl: "http://front",
    pause: (url, hold) => (paused.push([url, hold]), new Promise((r) => (release = r))),
  });
  let finished = false;
  const pending = t.result({ toolCallId: "toolu_0001", toolName: "exec", result: {} }).then((v) => ((finished = true), v));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(paused, [["http://front", 4]]);
  assert.equal(finished, false, "still running before the release");
  release();
  assert.deepEqual((await pending).result.content, [{ type: "text", text: "done" }]);
});

test("the workspace route (2026.4.x) writes each read result to its own file and points the real read at it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-tools-"));
  const rs = [
    { toolCallId: "a", toolName: "read", text: "p99 up 20%", isError: false },
    { toolCallId: "b", toolName: "write", text: "never a file", isError: false },
    { toolCallId: "c", toolName: "read", text: "a = 1\nb = 2", isError: false, hold: 1 },
    { toolCallId: "d", toolName: "exec", text: "30G /var/log", isError: false },
  ];
  prepareResultFiles(fs, dir, rs);
  assert.equal(fs.readFileSync(path.join(dir, resultFile(0)), "utf8"), "p99 up 20%");
  assert.equal(fs.readFileSync(path.join(dir, resultFile(2)), "utf8"), "a = 1\nb = 2");
  assert.equal(fs.existsSync(path.join(dir, resultFile(1))), false);
  const held = [];
  const t = new WorkspaceTools(rs, { holdUrl: "http://hold", pause: async (url, n) => held.push([url, n]) });
  assert.deepEqual(t.standIn({ toolCallId: "a", toolName: "read", params: { path: "metrics.txt" } }), { params: { path: resultFile(0) } });
  assert.equal(fs.readFileSync(path.join(dir, resultFile(3)), "utf8"), "30G /var/log");
  assert.deepEqual(t.standIn({ toolCallId: "d", toolName: "exec", params: { command: "du -sh /var/*" } }), { params: { command: `cat ${resultFile(3)}` } });
  // Not a workspace-route tool, a renamed tool, an unknown call: the host's own.
  assert.equal(t.standIn({ toolCallId: "b", toolName: "write" }), undefined);
  assert.equal(t.standIn({ toolCallId: "a", toolName: "write" }), undefined);
  assert.equal(t.standIn({ toolCallId: "zz", toolName: "read" }), undefined);
  assert.deepEqual(await t.standIn({ toolCallId: "c", toolName: "read" }), { params: { path: resultFile(2) } });
  assert.deepEqual(held, [["http://hold", 1]]);
  const seen = [];
  t.register({ on: (name) => seen.push(name), registerAgentToolResultMiddleware: () => seen.push("mw") });
  assert.deepEqual(seen, ["before_tool_call"]);
  fs.rmSync(dir, { recursive: true });
});

test("an OpenAI Responses call id (call_id|item_id) finds the scripted call by its call_id", () => {
  const t = new ScriptedTools(results);
  // @openclaw/ai openai-responses-shared-*.mjs stores `${call_id}|${item.id}` (twin of http-openai-responses).
  assert.deepEqual(t.standIn({ toolCallId: "toolu_0002|fc_mock0", toolName: "read" }), { params: { path: STAND_IN_FILE } });
  assert.deepEqual(t.result({ toolCallId: "toolu_0001|fc_mock1", toolName: "exec", result: {} }).result.content, [{ type: "text", text: "permission denied" }]);
  assert.equal(t.standIn({ toolCallId: "other|fc_mock0", toolName: "read" }), undefined);
});

test("the workspace route writes an image result as the PNG itself, so the real read answers with the image block", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-tools-"));
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const rs = [{ toolCallId: "a", toolName: "read", text: "Read image file [image/png]", isError: false, imagePngBase64: png }];
  prepareResultFiles(fs, dir, rs);
  assert.equal(resultFile(0, rs[0]), "clawspec-results/0.png");
  assert.deepEqual(fs.readFileSync(path.join(dir, resultFile(0, rs[0]))), Buffer.from(png, "base64"));
  assert.deepEqual(new WorkspaceTools(rs).standIn({ toolCallId: "a", toolName: "read", params: { path: "dashboard.png" } }), { params: { path: "clawspec-results/0.png" } });
  fs.rmSync(dir, { recursive: true });
});

test("the workspace route blocks a scripted failure with the scripted text as the reason, for any stand-in tool", () => {
  const rs = [
    { toolCallId: "a", toolName: "exec", text: "permission denied", isError: true },
    { toolCallId: "b", toolName: "write", text: "EACCES", isError: true },
    { toolCallId: "c", toolName: "browser", text: "nope", isError: true },
  ];
  const t = new WorkspaceTools(rs);
  assert.deepEqual(t.standIn({ toolCallId: "a", toolName: "exec", params: { command: "make deploy" } }), { block: true, blockReason: "permission denied" });
  assert.deepEqual(t.standIn({ toolCallId: "b", toolName: "write" }), { block: true, blockReason: "EACCES" });
  assert.equal(t.standIn({ toolCallId: "c", toolName: "browser" }), undefined, "not a stand-in tool");
});
