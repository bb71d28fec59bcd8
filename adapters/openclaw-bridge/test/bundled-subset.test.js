import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { bundledSubset } from "../lib/bundled-subset.js";
import { gatewayEnv } from "../lib/gateway.js";

const made = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A stand-in staged 2026.4.x package: `<stage>/openclaw-V/` with dist chunks, plugins and a library dir. */
function fakeStage() {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-subset-test-"));
  made.push(stage);
  const pkg = path.join(stage, "openclaw-2026.4.26");
  const ext = path.join(pkg, "dist/extensions");
  for (const id of ["anthropic", "openai", "memory-core", "matrix"]) {
    fs.mkdirSync(path.join(ext, id), { recursive: true });
    fs.writeFileSync(path.join(ext, id, "openclaw.plugin.json"), JSON.stringify({ id }));
    fs.writeFileSync(path.join(ext, id, "index.js"), `import "../../chunk-A.js";\nexport const id = ${JSON.stringify(id)};\n`);
  }
  fs.mkdirSync(path.join(ext, "speech-core"));
  fs.writeFileSync(path.join(ext, "speech-core/runtime-api.js"), "export {};\n");
  fs.writeFileSync(path.join(pkg, "dist/chunk-A.js"), "export const a = 1;\n");
  fs.mkdirSync(path.join(pkg, "node_modules/ws"), { recursive: true });
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "openclaw", version: "2026.4.26" }));
  fs.writeFileSync(path.join(pkg, ".openclaw-runtime-deps.json"), JSON.stringify({ specs: ["ws@^8"] }));
  return { stage, pkg };
}

test("a subset is a package root in the stage dir with copies of the chosen plugins and every library dir", () => {
  const { stage, pkg } = fakeStage();
  const s = bundledSubset({ stageDir: stage, openclawRoot: pkg, version: "2026.4.26", ids: ["memory-core", "anthropic", "anthropic", "no-such-plugin"] });
  assert.equal(s.built, true);
  assert.deepEqual(s.ids, ["anthropic", "memory-core"], "sorted, deduplicated, only plugins the release ships");
  // The release's install-root rule: a direct child `openclaw-*` of the stage dir, plugins at dist/extensions/<id>.
  assert.equal(path.dirname(s.root), stage);
  assert.match(path.basename(s.root), /^openclaw-2026\.4\.26-plugins-[0-9a-f]{12}$/);
  assert.equal(s.dir, path.join(s.root, "dist/extensions"));
  assert.deepEqual(fs.readdirSync(s.dir).sort(), ["anthropic", "memory-core", "speech-core"], "no undiscoverable plugin but every manifest-less library dir");
  // Plugin files are real files (the release's boundary checks refuse symlinks), byte-identical.
  assert.equal(fs.lstatSync(path.join(s.dir, "anthropic/index.js")).isSymbolicLink(), false);
  assert.equal(fs.readFileSync(path.join(s.dir, "anthropic/index.js"), "utf8"), fs.readFileSync(path.join(pkg, "dist/extensions/anthropic/index.js"), "utf8"));
  // A plugin's `../../chunk.js` is the release's own chunk, by real path.
  assert.equal(fs.realpathSync(path.join(s.dir, "anthropic/../../chunk-A.js")), fs.realpathSync(path.join(pkg, "dist/chunk-A.js")));
  // Runtime deps and the retained-deps manifest are the staged package's.
  assert.equal(fs.realpathSync(path.join(s.root, "node_modules")), fs.realpathSync(path.join(pkg, "node_modules")));
  assert.ok(fs.existsSync(path.join(s.root, ".openclaw-runtime-deps.json")));
  assert.equal(JSON.parse(fs.readFileSync(path.join(s.root, "package.json"), "utf8")).name, "openclaw");
  // No partial copies left.
  assert.deepEqual(fs.readdirSync(stage).filter((n) => n.includes("partial")), []);
});

test("the same set is built once and reused; another set gets its own root", () => {
  const { stage, pkg } = fakeStage();
  const a = bundledSubset({ stageDir: stage, openclawRoot: pkg, version: "2026.4.26", ids: ["anthropic"] });
  const b = bundledSubset({ stageDir: stage, openclawRoot: pkg, version: "2026.4.26", ids: ["anthropic"] });
  assert.equal(b.built, false);
  assert.equal(a.root, b.root);
  const c = bundledSubset({ stageDir: stage, openclawRoot: pkg, version: "2026.4.26", ids: ["anthropic", "openai"] });
  assert.notEqual(c.root, a.root);
  assert.ok(fs.existsSync(path.join(c.dir, "openai/openclaw.plugin.json")));
});

test("the gateway gets the subset through OPENCLAW_BUNDLED_PLUGINS_DIR only when one is given", () => {
  const base = { work: "/w", dirs: { home: "/w/h", state: "/w/s" }, configPath: "/w/c.json", port: 1, token: "t" };
  assert.equal(gatewayEnv(base).OPENCLAW_BUNDLED_PLUGINS_DIR, undefined);
  assert.equal(gatewayEnv({ ...base, release4x: true, stageDir: "/st", bundledPluginsDir: "/st/openclaw-x-plugins-k/dist/extensions" }).OPENCLAW_BUNDLED_PLUGINS_DIR, "/st/openclaw-x-plugins-k/dist/extensions");
});
