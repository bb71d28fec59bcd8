import assert from "node:assert/strict";
import { test } from "node:test";

import { resolvePluginModuleExport, unwrapDefaultModuleExport } from "../lib/plugin-module.js";

const register = () => {};
const def = { id: "p", register };

// Module shapes seen in real plugins and in openclaw src/plugins/module-export.ts.
const cases = [
  ["ESM default object", { default: def }, register, def],
  ["ESM default function", { default: register }, register, undefined],
  ["CJS module.exports function (import() namespace)", { default: register, "module.exports": register }, register, undefined],
  ["CJS transpiled exports.default (__esModule)", { default: { __esModule: true, default: def } }, register, def],
  ["named register export", { register, id: "n" }, register, { register, id: "n" }],
  ["a `module` wrapper", { module: def }, register, def],
  ["older `activate` alias", { default: { id: "a", activate: register } }, register, { id: "a", activate: register }],
];

for (const [name, mod, wantRegister, wantDefinition] of cases) {
  test(`register found: ${name}`, () => {
    const got = resolvePluginModuleExport(mod);
    assert.equal(got.register, wantRegister);
    assert.deepEqual(got.definition, wantDefinition);
  });
}

test("no register anywhere: the definition without a register", () => {
  const got = resolvePluginModuleExport({ default: { id: "x" } });
  assert.equal(got.register, undefined);
  assert.deepEqual(got.definition, { id: "x" });
  assert.deepEqual(resolvePluginModuleExport(undefined), {});
});

test("self-referential defaults terminate", () => {
  const loop = { id: "l" };
  loop.default = loop;
  assert.equal(unwrapDefaultModuleExport(loop), loop);
  assert.equal(resolvePluginModuleExport(loop).register, undefined);
});
