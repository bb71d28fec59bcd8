// 2026.4.x: the bundled plugins a twin's gateway can discover, limited to the
// ones it loads, through the release's own knob OPENCLAW_BUNDLED_PLUGINS_DIR
// (dist/bundled-dir-*.js resolveBundledPluginsDir).
//
// Why: 2026.4.26 derives its plugin index anew — a discovery plus a JSON5
// manifest parse of every bundled plugin (~116) — on many lookups that bypass
// the persisted registry: e.g. every provider env-key probe
// (dist/provider-env-vars-*.js resolveManifestProviderAuthEnvVarCandidates
// calls loadPluginManifestRegistryForPluginRegistry with `preferPersisted:
// false`), which the gateway's start (server.impl-*.js
// prewarmConfiguredPrimaryModel) and each turn's model resolution run many
// times. A CPU profile of a twin's gateway start (node --cpu-prof) put 13–33 s
// of its 23–28 s CPU there. With only the plugins it loads anyway to discover,
// that work shrinks by the same factor; the loaded set (the start line "8
// plugins: acpx, …") and every file the host runs stay byte-identical.
//
// Layout (what the release requires, dist/bundled-runtime-root-*.js):
// `<stage>/openclaw-<version>-plugins-<key>/` is a package root whose
// `dist/extensions/<id>` are copies of the chosen plugin directories (its
// boundary checks refuse symlinked plugin files, observed: "Unable to open
// bundled plugin public surface"), `dist/<other>` symlinks to the release's
// own dist (Node loads modules by real path, so a plugin's `../../chunk.js`
// is the very module the gateway already has), `package.json` the release's
// (the plugin's `openclaw/plugin-sdk/*` self-reference resolves through it),
// and `node_modules` a symlink to the staged package's runtime dependencies:
// as a direct child `openclaw-*` of the stage dir it is its own runtime-deps
// install root (resolveExistingExternalBundledRuntimeDepsRoots), so nothing
// is installed or mirrored again. Built once per plugin set, renamed into
// place so concurrent runs agree on one copy.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** `dir` of a bundled-plugin subset `ids` of the package `openclawRoot`, built on first use. */
export function bundledSubset({ stageDir, openclawRoot, version, ids }) {
  const wanted = [...new Set(ids)].filter((id) => fs.existsSync(path.join(openclawRoot, "dist/extensions", id, "openclaw.plugin.json"))).sort();
  // v2: the layout's own version (v1 lacked the non-plugin directories).
  const key = crypto.createHash("sha256").update(JSON.stringify(["v2", version, openclawRoot, wanted])).digest("hex").slice(0, 12);
  const root = path.join(stageDir, `openclaw-${version}-plugins-${key}`);
  const dir = path.join(root, "dist/extensions");
  if (fs.existsSync(path.join(root, ".complete"))) return { dir, root, ids: wanted, built: false };
  const tmp = path.join(stageDir, `.openclaw-${version}-plugins-${key}.partial-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.join(tmp, "dist/extensions"), { recursive: true });
  for (const entry of fs.readdirSync(path.join(openclawRoot, "dist"))) {
    if (entry !== "extensions") fs.symlinkSync(path.join(openclawRoot, "dist", entry), path.join(tmp, "dist", entry));
  }
  // The chosen plugins, and every directory that is no plugin (no manifest: the
  // `*-core` capability surfaces core imports, `node_modules`): those cost no discovery.
  const extensions = path.join(openclawRoot, "dist/extensions");
  const library = fs.readdirSync(extensions).filter((e) => fs.statSync(path.join(extensions, e)).isDirectory() && !fs.existsSync(path.join(extensions, e, "openclaw.plugin.json")));
  for (const id of [...wanted, ...library]) fs.cpSync(path.join(extensions, id), path.join(tmp, "dist/extensions", id), { recursive: true, verbatimSymlinks: true });
  fs.copyFileSync(path.join(openclawRoot, "package.json"), path.join(tmp, "package.json"));
  fs.symlinkSync(path.join(openclawRoot, "node_modules"), path.join(tmp, "node_modules"));
  const manifest = path.join(openclawRoot, ".openclaw-runtime-deps.json");
  if (fs.existsSync(manifest)) fs.copyFileSync(manifest, path.join(tmp, ".openclaw-runtime-deps.json"));
  fs.writeFileSync(path.join(tmp, ".complete"), `${JSON.stringify({ ids: wanted })}\n`);
  try {
    fs.renameSync(tmp, root);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    // Another run built the same subset first: its copy is as good as ours.
    if (!fs.existsSync(path.join(root, ".complete"))) throw e;
  }
  return { dir, root, ids: wanted, built: true };
}
