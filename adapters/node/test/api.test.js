import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { createApi, Report, resolveUserPath } from "../lib/api.js";

function fakeHost(answer = { text: "ok" }) {
  const requests = [];
  const notes = [];
  return {
    requests,
    notes,
    request: async (m, p) => (requests.push([m, p]), answer),
    notify: (m, p) => notes.push([m, p]),
    currentCall: () => 3,
  };
}

const make = (h = fakeHost()) => {
  const report = new Report();
  return { report, api: createApi({ id: "p", pluginConfig: { a: 1 }, host: h, report, rootDir: "/plugin" }) };
};

test("unknown api members are reported by name, at any depth, once each", () => {
  const { api, report } = make();
  assert.equal(api.registerMemoryBackend, undefined);
  assert.equal(api.runtime.gateway, undefined);
  assert.equal(api.runtime.llm.stream, undefined);
  assert.equal(api.session.controls.unregister, undefined);
  assert.equal(api.registerMemoryBackend, undefined);
  assert.deepEqual(report.unknownMembers, ["api.registerMemoryBackend", "api.runtime.gateway", "api.runtime.llm.stream", "api.session.controls.unregister"]);
});

test("each unknown read is notified as it happens ($/unknownApiMember), once, and stays out of the report's JSON", () => {
  const h = fakeHost();
  const report = new Report(h.notify);
  const api = createApi({ id: "p", pluginConfig: {}, host: h, report, rootDir: "/plugin" });
  assert.equal(api.registerMemoryBackend, undefined);
  assert.equal(api.registerMemoryBackend, undefined);
  assert.equal(api.runtime.gateway, undefined);
  assert.deepEqual(h.notes, [
    ["$/unknownApiMember", { name: "api.registerMemoryBackend" }],
    ["$/unknownApiMember", { name: "api.runtime.gateway" }],
  ]);
  assert.equal(JSON.parse(JSON.stringify(report)).notify, undefined);
});

test("plain data (pluginConfig, config) and runtime probes are not api reads", async () => {
  const { api, report } = make();
  assert.equal(api.pluginConfig.missing, undefined);
  assert.equal(api.config.plugins.entries.p.config.a, 1);
  assert.equal(api.config.nope, undefined);
  assert.equal(await Promise.resolve(api).then((x) => typeof x.on), "function");
  assert.deepEqual(report.unknownMembers, []);
});

test("the surface real plugins touch is all there", () => {
  const { api } = make();
  for (const f of ["registerContextEngine", "on", "registerTool", "registerCommand", "registerHook", "registerService", "resolvePath"]) assert.equal(typeof api[f], "function", f);
  assert.equal(typeof api.session.controls.registerSessionAction, "function");
  assert.equal(typeof api.runtime.llm.complete, "function");
  assert.equal(typeof api.runtime.logging.getChildLogger().warn, "function");
  assert.equal(api.runtime.config.current().agents.defaults.model.primary, "anthropic/claude-sonnet-4-6");
  assert.equal(api.runtime.logging.shouldLogVerbose(), false);
  assert.equal(api.runtime.version, "2026.9.6");
  assert.equal(api.registrationMode, "full");
  assert.equal(api.id, "p");
  assert.deepEqual(api.pluginConfig, { a: 1 });
});

test("registrations are recorded", () => {
  const { api, report } = make();
  const handler = () => {};
  api.on("gateway_start", handler);
  api.on("gateway_start", handler);
  api.registerTool({ name: "t1" });
  api.registerTool(function lcm_grep() {});
  api.registerHook(["command:new", "command:reset"], handler);
  api.registerCommand({ name: "c" });
  api.registerService({ id: "s" });
  api.session.controls.registerSessionAction({ id: "a" });
  api.registerContextEngine("e", () => ({}));
  const r = report.toJSON();
  assert.deepEqual(r.hooks, ["gateway_start"]);
  assert.equal(report.hooks.get("gateway_start").length, 2);
  assert.deepEqual(r.tools, ["t1", "lcm_grep"]);
  assert.deepEqual(r.registeredHooks, ["command:new", "command:reset"]);
  assert.deepEqual([r.commands, r.services, r.sessionActions, r.engines], [["c"], ["s"], ["a"], ["e"]]);
  assert.equal(r.registrations.registerSessionAction, 1);
  assert.equal(r.registrations.on, 2);
});

test("each release's surface: 9.6 has the session facades and registerSessionExtension, 4.26 has neither", () => {
  const report = new Report();
  const old = createApi({ id: "p", pluginConfig: {}, host: fakeHost(), report, rootDir: "/plugin", release: "2026.4.26" });
  assert.equal(old.session, undefined);
  assert.equal(old.registerSessionExtension, undefined);
  assert.equal(typeof old.registerMemoryPromptSection, "function");
  assert.equal(old.runtime.version, "2026.4.26");
  assert.deepEqual(report.unknownMembers, ["api.session", "api.registerSessionExtension"]);
  const { api } = make();
  assert.equal(api.registerMemoryPromptSection, undefined);
  api.session.state.registerSessionExtension({ id: "x" });
  api.registerDecisionProvider({ id: "d" });
  assert.equal(api.getRunContext(), undefined);
});

test("runtime.llm.complete asks the host with forCall and returns text and content", async () => {
  const h = fakeHost({ text: "sum" });
  const { api } = make(h);
  const r = await api.runtime.llm.complete({ messages: [{ role: "user", content: "x" }] });
  assert.deepEqual(h.requests, [["host/llm.complete", { forCall: 3, messages: [{ role: "user", content: "x" }] }]]);
  assert.equal(r.text, "sum");
  assert.deepEqual(r.content, [{ type: "text", text: "sum" }]);
});

test("logger lines go to the host as $/log, formatted like console", () => {
  const h = fakeHost();
  const { api } = make(h);
  api.logger.warn("n=%d", 4, { k: "v" });
  api.runtime.logging.getChildLogger({ name: "db" }).info("open");
  assert.deepEqual(h.notes, [
    ["$/log", { level: "warn", message: "n=4 { k: 'v' }" }],
    ["$/log", { level: "info", message: "open" }],
  ]);
});

test("resolvePath follows OpenClaw's resolveUserPath", () => {
  assert.equal(resolveUserPath("  "), "");
  assert.equal(resolveUserPath("~/x/db"), path.join(os.homedir(), "x/db"));
  assert.equal(resolveUserPath("/abs/p"), "/abs/p");
  assert.equal(resolveUserPath("rel"), path.resolve("rel"));
});
