#!/usr/bin/env node
// Drives one scenario through a real OpenClaw gateway: writes an isolated
// config (bridge plugin selected as the context engine, the model provider
// pointed at clawspec's mock provider), starts `openclaw gateway run` on
// loopback with an isolated HOME / state dir / env allow-list, connects with
// the gateway's own WebSocket client protocol (connect → chat.send →
// agent.wait), and runs the plan's steps in order. The bridge records the
// engine calls; this runner records step boundaries into the same trace.
//
// Usage: node host-runner.mjs PLAN.json   (plan written by `clawspec twin`)
// Output: the plan's `result` file (JSON), and the plan's `trace` NDJSON.

import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { compileCacheWarm, connect, freePort, freezeTrace, gatewayEnv, groupCpuMs, markCompileCacheWarm, packagedCompileCacheDir, startGateway as startGateway_, stopGateway } from "./lib/gateway.js";
import { bundledSubset } from "./lib/bundled-subset.js";
import { gatewaySample, settle } from "./lib/quiet.js";
import { HostRuns, awaitCommandDispose, calls as callsOf, otherSessionCalled } from "./lib/runs.js";
import { drive, markStep, withStartupRetry } from "./lib/steps.js";
import { steerQueueConfig } from "./lib/in-flight.js";
import { reloadApplied, rowNeutral } from "./lib/reuse.js";
import { prepareResultFiles, prepareStandIns } from "./lib/tools.js";

// `--serve GATEWAY_DIR`: one gateway for several rows (docs/performance.md
// "One gateway for several rows"); plan paths arrive one a line on stdin.
const SERVE = process.argv[2] === "--serve";
const firstPlan = SERVE ? null : process.argv[2];
let plan = JSON.parse(fs.readFileSync(firstPlan ?? process.argv[4], "utf8"));
let started = Date.now();
let result = { ok: false, timing: {}, steps: [], error: null };
// With --serve, `work`/`dirs` are the gateway's (home, state, tmp, config,
// logs) and `rowDirs` the row's (trace, workspace, engine cwd, session store).
let work = SERVE ? process.argv[3] : plan.workDir;
const dirs = { home: `${work}/home`, state: `${work}/state`, workspace: `${work}/workspace`, engine: `${work}/engine` };
let rowDirs = dirs;
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
const mark = (entry) => fs.appendFileSync(plan.trace, `${JSON.stringify(entry)}\n`);

const UTILITY_MODEL = "clawspec-utility";
// The host release, from its own package.json: config keys differ per release.
const HOST_VERSION = JSON.parse(fs.readFileSync(path.join(plan.openclawRoot, "package.json"), "utf8")).version;
// `agents.defaults.utilityModel` exists in 2026.9 (docs/gateway/config-agents/models.md);
// 2026.4.26 rejects it as an unrecognized key.
const HAS_UTILITY_MODEL = !/^2026\.[1-4]\./.test(HOST_VERSION);
const RELEASE_4X = /^2026\.[1-4]\./.test(HOST_VERSION);
const zeroCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
// A context-token cap: `agents.defaults.contextTokens` on 2026.4.x
// (docs/gateway/config-agents.md); 2026.9 removed that key ("cannot be
// represented per model; use models.providers.<provider>.models[].contextTokens",
// config doctor) and caps each model instead (docs/gateway/config-agents/models.md;
// dist context-resolution-*.mjs resolveConfiguredContextTokenLimits: min(contextTokens,
// contextWindow)). Left under agents.defaults, 9.6 drops it and budgets the whole window.
// Per plan (a function, not a constant: a --serve runner gets a new plan per row).
function contextCap() {
  const { contextTokens: cap, ...hostAgentDefaults } = plan.hostSetup?.agentDefaults ?? {};
  return {
    agentDefaultsForRelease: RELEASE_4X && cap !== undefined ? { ...hostAgentDefaults, contextTokens: cap } : hostAgentDefaults,
    modelCap: !RELEASE_4X && cap !== undefined ? { contextTokens: cap } : {},
  };
}
// 2026.4.x seeds the workspace's bootstrap files (AGENTS.md … BOOTSTRAP.md) on
// the `agent` RPC path only (dist/agent-command-*.js ensureAgentWorkspace
// `ensureBootstrapFiles: !skipBootstrap`); its reply path skips them under the
// runner's OPENCLAW_TEST_FAST (dist/get-reply-*.js `!skipBootstrap &&
// !isFastTestEnv`). So an inter-session message (the `agent` RPC) found a
// fresh BOOTSTRAP.md and its run got the "[Bootstrap pending]" prefix
// (dist/system-prompt-*.js buildAgentUserPromptPrefix, bootstrap-mode-*.js:
// pending + interactive + primary ⇒ "full"), while a chat.send turn in the
// same workspace never saw one. The scenarios model a set-up workspace with
// no pending bootstrap; `agents.defaults.skipBootstrap` (docs/gateway/config-agents.md)
// gives every path that workspace.
const bootstrapForRelease = RELEASE_4X ? { skipBootstrap: true } : {};

/**
 * 2026.4.x enables the bundled plugin of each configured model provider at
 * gateway start and writes that into the config (observed: openclaw.json
 * gains `plugins.entries.anthropic.enabled: true` after start). The config
 * says so from the start, so the plugin policy the persisted registry was
 * built for (persistPluginRegistry) is the one the gateway runs with.
 */
function providerPluginEntries() {
  if (!RELEASE_4X) return {};
  const ids = [plan.provider.id, ...(plan.extraProviders ?? []).map((x) => x.id)];
  return Object.fromEntries(ids.map((id) => [id, { enabled: true }]));
}

/**
 * 2026.4.x: the plugins the gateway loads anyway (its start line: "8 plugins:
 * acpx, bonjour, browser, clawspec-bridge, device-pair, memory-core,
 * phone-control, talk-voice") plus the model providers' own plugins, as
 * `plugins.allow`. Without an allowlist, gateway start (server.impl-*.js
 * prewarmConfiguredPrimaryModel → models-config-*.js resolveImplicitProviders)
 * runs the catalog of every one of the ~100 bundled provider plugins, each
 * deriving the plugin index anew (stack sampled from a twin's gateway:
 * resolveProviderApiKey → loadPluginRegistrySnapshot → loadInstalledPluginIndex);
 * with it only the allowed providers' catalogs run. The loaded plugin set,
 * and so what the engine sees, stays the same.
 */
const LOADED_4X_PLUGINS = ["acpx", "bonjour", "browser", "device-pair", "memory-core", "phone-control", "talk-voice"];
function pluginAllowlist() {
  if (!RELEASE_4X) return {};
  const providers = Object.keys(providerPluginEntries());
  return { allow: ["clawspec-bridge", ...LOADED_4X_PLUGINS, ...providers] };
}

/**
 * Bundled plugins whose public surfaces 2026.4.26's core imports by name
 * whether or not they are loaded as plugins (every literal `dirName:` of a
 * loadBundledPluginPublicSurface… / loadBundledPluginPublicArtifactModuleSync
 * call in dist/*.js). The manifest-less `*-core` directories (speech-core, whose
 * runtime-api.js every reply imports: without it a turn fails "Unable to
 * resolve bundled plugin public surface speech-core/runtime-api.js", observed)
 * are no plugins and always come along (lib/bundled-subset.js).
 */
const SURFACE_4X_PLUGINS = ["anthropic-vertex", "bluebubbles", "browser", "feishu", "github-copilot", "irc", "line", "lmstudio", "matrix", "mattermost", "memory-core", "zalo", "zalouser"];

/**
 * 2026.4.x with a stage dir: the bundled plugins the gateway may discover are
 * the ones it loads (LOADED_4X_PLUGINS and the model providers' plugins), so
 * the release's repeated plugin-index derivations read those manifests only
 * (lib/bundled-subset.js says why and how). `plan.allBundledPlugins` keeps the
 * release's whole set (for comparing).
 */
function bundledPlugins() {
  if (!RELEASE_4X || !plan.stageDir || plan.allBundledPlugins) return null;
  const t = Date.now();
  const subset = bundledSubset({ stageDir: plan.stageDir, openclawRoot: plan.openclawRoot, version: HOST_VERSION, ids: [...LOADED_4X_PLUGINS, ...SURFACE_4X_PLUGINS, ...Object.keys(providerPluginEntries())] });
  result.bundledPlugins = { ids: subset.ids, built: subset.built, ms: Date.now() - t };
  return subset;
}

function config(port, token) {
  const p = plan.provider;
  const { agentDefaultsForRelease, modelCap } = contextCap();
  const ref = `${p.id}/${p.model}`;
  return {
    plugins: {
      load: { paths: [plan.bridge.dir] },
      ...pluginAllowlist(),
      slots: { contextEngine: plan.bridge.engineId },
      entries: {
        ...providerPluginEntries(),
        // A served 2026.4.x gateway: any `plugins` change restarts it (docs/gateway/configuration.md
        // "What hot-applies vs what needs a restart"), so the bridge's config stays the gateway's
        // and names a row file the bridge reads the row's own values from (index.js `rowConfig`).
        "clawspec-bridge": { enabled: true, config: SERVE && RELEASE_4X ? { engineId: plan.bridge.engineId, openclawRoot: plan.openclawRoot, rowFile: bridgeRowFile() } : bridgeRowConfig() },
      },
    },
    agents: {
      // Utility tasks (session titles, activity recaps) on their own model id, so
      // they never consume the scenario's scripted replies (docs/concepts/models.md
      // agents.defaults.utilityModel; recaps: dist/server-runtime-subscriptions-*.mjs).
      defaults: { workspace: rowDirs.workspace, model: { primary: ref }, ...(HAS_UTILITY_MODEL ? { utilityModel: `${p.id}/${UTILITY_MODEL}` } : {}), ...(plan.agentDefaults ?? {}), ...agentDefaultsForRelease, ...bootstrapForRelease },
      list: [{ id: plan.hostSetup?.agentId ?? "main", default: true }],
    },
    models: {
      mode: "replace",
      providers: {
        [p.id]: {
          baseUrl: p.baseUrl,
          apiKey: "clawspec-mock-not-a-key",
          api: p.api,
          request: { allowPrivateNetwork: true },
          // A scripted timeout: the mock holds its answer past this (docs/concepts/agent-loop.md "Provider HTTP request timeout").
          ...(p.timeoutSeconds ? { timeoutSeconds: p.timeoutSeconds } : {}),
          models: [
            { id: p.model, name: p.model, api: p.api, reasoning: false, input: ["text", "image"], cost: zeroCost, contextWindow: p.contextWindow, ...modelCap, maxTokens: p.maxTokens },
            { id: UTILITY_MODEL, name: utilityModelName(), api: p.api, reasoning: false, input: ["text"], cost: zeroCost, contextWindow: 200_000, maxTokens: 4096 },
          ],
        },
        // Models a switch_model step moves to (sessions.patch {model}), each on its own mock.
        ...Object.fromEntries(
          (plan.extraProviders ?? []).map((x) => [
            x.id,
            {
              baseUrl: x.baseUrl,
              apiKey: "clawspec-mock-not-a-key",
              api: x.api,
              request: { allowPrivateNetwork: true },
              // sessions.patch refuses an openai/* model whose implicit runtime is the
              // Codex harness (dist/sessions-patch-*.mjs); OpenClaw's own runtime is
              // chosen explicitly (docs/concepts/agent-runtimes.md). 2026.4.x has no such key.
              ...(HAS_UTILITY_MODEL ? { agentRuntime: { id: "openclaw" } } : {}),
              models: [{ id: x.model, name: x.model, api: x.api, reasoning: false, input: ["text", "image"], cost: zeroCost, contextWindow: p.contextWindow, ...modelCap, maxTokens: p.maxTokens }],
            },
          ]),
        ),
      },
    },
    gateway: { mode: "local", bind: "loopback", port, auth: { mode: "token", token }, controlUi: { enabled: false } },
    discovery: { mdns: { mode: "off" } },
    update: { checkOnStart: false },
    logging: { file: `${work}/openclaw.log` },
    // Scenario setup that is plain config (tools.allow, memory.citations; realhost/seed.rs).
    ...(plan.hostSetup?.config ?? {}),
    // 2026.4.x steers by the session's queue mode, not by a chat.send field (lib/in-flight.js steerMode).
    ...steerQueueConfig(plan, RELEASE_4X, plan.hostSetup?.config?.messages),
    // A scripted sessions_spawn is a direct tool call: with tools.toolSearch unset, 2026.9 defers
    // non-core tool schemas behind tool_search/tool_call and a direct call answers "Tool
    // sessions_spawn not found" (docs/tools/tool-search.md: "Set `tools.toolSearch: false` to restore
    // direct schemas"; observed with twin --keep). 2026.4.x has no such key.
    ...(plan.subagents?.directTools && HAS_UTILITY_MODEL ? { tools: { ...(plan.hostSetup?.config?.tools ?? {}), toolSearch: false } } : {}),
    // --serve: each row's sessions live in its own store, laid out as the
    // state dir's default one (`<state>/agents/<id>/sessions/sessions.json`;
    // 2026.9.6 puts the agent database beside it in `<id>/agent/openclaw-agent.sqlite`,
    // dist/session-sqlite-target-*.mjs resolveUnsuffixedSqliteTargetFromSessionStorePath),
    // so a row's paths read `$STATE/…` as on a fresh gateway. `session` hot-applies
    // (2026.9.6 docs/gateway/configuration/hot-reload.md).
    ...(SERVE ? { session: { ...(plan.hostSetup?.config?.session ?? {}), store: rowStorePath() } } : {}),
  };
}

/**
 * A served 2026.4.x gateway applies a config edit only when some changed path
 * has a hot rule: its reloader returns early on a no-op plan
 * (dist/presence-events-*.js applySnapshot `isNoopReloadPlan`) without
 * activating the new config (server.impl-*.js `onHotReload` →
 * activateRuntimeSecrets), and `session`, `agents`, `tools` and `messages`
 * are "none" rules there (BASE_RELOAD_RULES_TAIL). A row's mock provider
 * address (`models`, a hot rule) usually differs, but wiremock hands a
 * finished row's server to the next (its server pool), so two rows can have
 * the same one: the utility model's display name carries the row, so every
 * row's edit is hot and the gateway runs with the row's `session.store`
 * (observed: 4 rows of a whole 2026.4.26 gate waited 120 s for a reload that
 * never came). The utility model never serves a scenario turn.
 */
const utilityModelName = () => (SERVE && RELEASE_4X ? `${UTILITY_MODEL} ${path.basename(plan.workDir)}` : UTILITY_MODEL);

/** The bridge's config for this row (the plugin entry's, or a served 2026.4.x gateway's row file). */
function bridgeRowConfig() {
  return {
    engineId: plan.bridge.engineId,
    engine: { ...plan.bridge.engine, cwd: rowDirs.engine },
    profile: plan.profile,
    ...(plan.bridge.engineConfig !== undefined ? { engineConfig: plan.bridge.engineConfig } : {}),
    trace: plan.trace,
    openclawRoot: plan.openclawRoot,
    ...(plan.toolResults?.length ? { toolResults: plan.toolResults } : {}),
    // 2026.4.x opens no tool-result middleware to plugins: results come from workspace files (lib/tools.js).
    ...(plan.toolResults?.length && RELEASE_4X ? { toolRoute: "workspace" } : {}),
    ...(plan.provider.holdUrl ? { holdUrl: plan.provider.holdUrl } : {}),
    // Turns that arrive as channel messages (lib/channel.js).
    ...(plan.steps.some((s) => s.kind === "channelTurn") ? { channel: true } : {}),
  };
}

/** A served 2026.4.x gateway's bridge row file (config()), written before the row's config edit or gateway start. */
const bridgeRowFile = () => `${work}/bridge-row.json`;
function writeBridgeRow() {
  if (SERVE && RELEASE_4X) fs.writeFileSync(bridgeRowFile(), `${JSON.stringify(bridgeRowConfig())}\n`);
}

/** The row's session store on a served gateway (`session.store`, config()). */
const rowStorePath = () => `${rowDirs.state}/agents/${plan.hostSetup?.agentId ?? "main"}/sessions/sessions.json`;

/**
 * The scenario's pre-existing session, written by the host's own code before
 * the gateway starts (lib/seed.js) or, on a served gateway, into the row's own
 * store before the config edit that points the gateway at it (serveRow).
 */
function seedSession(env) {
  const spec = `${SERVE ? rowDirs.state : work}/seed.json`;
  fs.writeFileSync(spec, JSON.stringify({ openclawRoot: plan.openclawRoot, stateDir: dirs.state, workspace: dirs.workspace, seed: plan.hostSetup.seed, ...(SERVE ? { storePath: rowStorePath() } : {}) }));
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, "lib/seed.js"), spec], { env, cwd: work, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`seeding the session failed: ${(r.stderr || String(r.error ?? "")).trim()}`);
  return JSON.parse(r.stdout);
}

/**
 * 2026.4.x: give the run's state dir the persisted plugin registry
 * (`<state>/plugins/installs.json`) that the host's own
 * `openclaw plugins registry --refresh` writes (dist/plugins-cli-*.js). Without
 * it every plugin lookup derives the index again — a discovery plus a
 * manifest read of all ~110 bundled plugins (dist/plugin-registry-*.js
 * loadPluginRegistrySnapshotWithMetadata: "Persisted plugin registry is
 * missing or invalid; using derived plugin index", cached only for
 * DERIVED_SNAPSHOT_CACHE_MS = 1 s, and the manifest registry under it with
 * `cache: false`, dist/installed-plugin-index-store-*.js) — which is where a
 * 4.26 turn spent its minutes (strace of a twin's gateway). The index depends
 * on the package, the plugin load paths and the plugin policy
 * (resolveInstalledPluginIndexPolicyHash: enabled/allow/deny/slots/entries'
 * enabled flags), so the CLI runs once per such key and later runs copy its
 * output from the stage dir. Returns what it did, for the run's timing.
 */
function persistPluginRegistry(env, configPath) {
  const cfg = JSON.parse(fs.readFileSync(configPath, "utf8"));
  const p = cfg.plugins ?? {};
  // A load path's manifest and package.json are part of its index record (manifestHash, packageJson.hash).
  const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : null);
  const loadPaths = (p.load?.paths ?? []).map((d) => [d, read(path.join(d, "openclaw.plugin.json")), read(path.join(d, "package.json"))]);
  const policy = { version: HOST_VERSION, root: plan.openclawRoot, bundled: env.OPENCLAW_BUNDLED_PLUGINS_DIR ?? null, loadPaths, slots: p.slots ?? {}, allow: p.allow ?? null, deny: p.deny ?? null, entries: Object.fromEntries(Object.entries(p.entries ?? {}).map(([k, v]) => [k, v?.enabled ?? null])) };
  const key = crypto.createHash("sha256").update(JSON.stringify(policy)).digest("hex").slice(0, 16);
  const cached = path.join(plan.stageDir, ".plugin-registry", `${key}.json`);
  const target = path.join(dirs.state, "plugins", "installs.json");
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (fs.existsSync(cached)) {
    fs.copyFileSync(cached, target);
    return "copied";
  }
  const r = spawnSync(process.execPath, [path.join(plan.openclawRoot, "openclaw.mjs"), "plugins", "registry", "--refresh"], { env, cwd: work, encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0 || !fs.existsSync(target)) throw new Error(`openclaw plugins registry --refresh failed: ${(r.stderr || r.stdout || String(r.error ?? "")).trim()}`);
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  fs.copyFileSync(target, tmp);
  fs.renameSync(tmp, cached);
  return "refreshed";
}

let signalsHooked = false;
async function startGateway() {
  const port = await freePort();
  const token = `clawspec-${process.pid}-${port}`;
  const configPath = `${work}/openclaw.json`;
  writeBridgeRow();
  fs.writeFileSync(configPath, `${JSON.stringify(config(port, token), null, 2)}\n`, { mode: 0o600 });
  const bundled = bundledPlugins();
  const env = gatewayEnv({ work, dirs, configPath, port, token, stageDir: plan.stageDir, npmEnv: plan.npmEnv, compileCacheDir: plan.compileCacheDir && packagedCompileCacheDir(plan.compileCacheDir, plan.openclawRoot), path: process.env.PATH, release4x: RELEASE_4X, bundledPluginsDir: bundled?.dir });
  fs.mkdirSync(env.TMPDIR, { recursive: true });
  fs.writeFileSync(env.NPM_CONFIG_USERCONFIG, "");
  if (plan.hostSetup?.seed) result.seeded = seedSession(env);
  if (RELEASE_4X && plan.stageDir) {
    const t = Date.now();
    result.pluginRegistry = persistPluginRegistry(env, configPath);
    result.timing.pluginRegistryMs = Date.now() - t;
  }
  if (plan.toolResults?.length) (RELEASE_4X ? prepareResultFiles(fs, rowDirs.workspace, plan.toolResults) : prepareStandIns(fs, rowDirs.workspace));
  let child = null;
  process.on("exit", () => {
    try {
      if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
    } catch {}
  });
  if (!signalsHooked) for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));
  signalsHooked = true;
  // 2026.4.x (stageDir set) may stage plugin dependencies with a blocking npm
  // install before it is ready; the first start of a version takes minutes.
  const startTimeoutMs = plan.startTimeoutMs ?? (plan.stageDir ? 600_000 : 120_000);
  await startGateway_({ openclawRoot: plan.openclawRoot, work, env, port, token, startTimeoutMs, onStart: (c) => (child = c) });
  return { port, token, child, env };
}

/** Start a gateway for the current row (the first of a --serve run, or one whose config cannot be hot-applied). */
async function freshGateway() {
  const t0 = Date.now();
  const gw = await startGateway();
  result.timing.gatewayStartMs = Date.now() - t0;
  result.timing.gatewayStartCpuMs = groupCpuMs(gw.child.pid);
  return gw;
}

/** The row's steps on a started gateway, through a client connection of its own; ends with the trace's `end` mark and the settle wait. */
async function driveRow(gw, { idPrefix } = {}) {
  // The WebSocket handshake is refused while startup sidecars initialise (lib/steps.js).
  // Runs the host starts by itself (subagent announces) are found by their gateway events (lib/runs.js).
  const runs = new HostRuns({ log: (e) => fs.appendFileSync(`${plan.workDir}/events.ndjson`, `${JSON.stringify(e)}\n`) });
  const client = await withStartupRetry(() => connect(gw, (frame) => runs.observe(frame)));
  client.runs = runs;
  // 2026.4.x: a subagent's completion announce reads the child's history with
  // the gateway's own chat.history (dist/subagent-announce-output-*.js
  // readSubagentOutput → callGateway, no timeoutMs: 10 s, dist/call-*.js
  // resolveGatewayCallTimeout). chat.history on a session entry without a
  // thinkingLevel (a fresh child's) first loads the gateway model catalog
  // (dist/chat-*.js → loadGatewayModelCatalog), cached once loaded
  // (dist/model-catalog-*.js modelCatalogPromise). That first load took 50–75 s
  // on a loaded machine (gateway.log "res ✓ chat.history 74568ms"), so the
  // announce failed with "gateway request timeout for chat.history". Load it
  // first through models.list (the same cached catalog), with time to spare.
  if (RELEASE_4X && plan.subagents) {
    const t = Date.now();
    await client.request("models.list", {}, 900_000);
    result.timing.modelCatalogMs = Date.now() - t;
  }
  for (const [index, step] of plan.steps.entries()) {
    const ts = Date.now();
    mark({ kind: "step", step: step.step });
    const disposes = callsOf(plan.trace, "dispose");
    const marked = await markStep(plan.provider.stepUrl, step.step);
    // 2026.4.x (stageDir set) may stage a plugin's npm dependencies inside the
    // turn, blocking the gateway (see startGateway); give the wait that margin.
    // 2026.4.x prepares plugins inside the first turn (minutes on a loaded
    // machine: plugin manifest rescans, plugin-sdk alias checks per plugin load).
    const margin = RELEASE_4X ? 900_000 : plan.stageDir ? 300_000 : 0;
    // 2026.4.x may take minutes to accept a chat.send with an image attachment on a loaded
    // machine (http-anthropic: no answer within 30 s while the gateway was otherwise idle).
    const slow = RELEASE_4X ? { sendTimeoutMs: 300_000 } : {};
    const outcome = await drive(client, margin ? { ...step, ...slow, timeoutMs: step.timeoutMs + margin } : step, index, { holdUrl: plan.provider.holdUrl, trace: plan.trace, release4x: RELEASE_4X, fs, configPath: `${work}/openclaw.json`, mark, ...(idPrefix ? { idPrefix } : {}) });
    // 2026.4.x answers agent.wait when the run's lifecycle ends, while the
    // attempt's engine calls (legacy-mode ingests, afterTurn, maintain) may
    // still be on their way to the engine (seen in the first 4.26 twins: turn
    // 1's ingests recorded under step 2). A turn or command waits for its
    // chat.send's dispatch to settle (lib/steps.js dispatchSettled); every step
    // then waits for a load-robust quiet (lib/quiet.js: trace unchanged, no
    // engine call in flight, no runnable thread in the gateway's tree), so
    // every call lands in the step that caused it. A settled dispatch has
    // awaited the step's own engine work, so its quiet only covers work the
    // host started without awaiting it; a step without that event keeps the
    // former 1.5 s. Before a host-started run (awaitRun: a spawned child's
    // announce) the quiet ends when another session's run reaches the engine
    // (lib/runs.js otherSessionCalled).
    // An aborted run's chat controller is gone before its attempt finalizes
    // (dist/chat-abort-*.js abortChatRunById deletes it), so its second
    // agent.wait answers from the lifecycle snapshot: not the event; 1.5 s.
    let quiet = null;
    if (RELEASE_4X) {
      const stop = plan.steps[index + 1]?.kind === "awaitRun" ? otherSessionCalled(plan.trace, step.sessionKey) : () => false;
      const settled = outcome?.settled === "ok" && !(outcome.inFlight ?? []).some((a) => a.action === "abort");
      quiet = await settle(gatewaySample(plan.trace, gw.child.pid), { quietMs: settled ? 500 : 1500, maxMs: 20_000, stop });
    } else if (step.kind === "command") await awaitCommandDispose(plan.trace, disposes, 30_000);
    result.steps.push({ step: step.step, ...outcome, unaskedReplies: marked?.dropped ?? null, timing: { wallMs: Date.now() - ts, ...(quiet ? { quiet } : {}) } });
  }
  mark({ kind: "end" });
  // Let background work (deferred maintenance, disposal) land in the trace.
  await new Promise((r) => setTimeout(r, plan.settleMs ?? 500));
  client.close();
}

/** Stop the gateway; the trace is frozen first so shutdown calls (dispose) never enter it. */
async function stopRowGateway(gw) {
  const thaw = freezeTrace(plan.trace);
  const ts = Date.now();
  // A cold compile cache is written only by a clean exit (lib/gateway.js).
  const warm = compileCacheWarm(plan.compileCacheDir, HOST_VERSION);
  result.gatewayStop = await stopGateway(gw.child, { graceMs: plan.compileCacheDir && !warm ? 30_000 : 0 });
  if (result.gatewayStop === "sigterm" && !warm) markCompileCacheWarm(plan.compileCacheDir, HOST_VERSION);
  result.timing.gatewayStopMs = Date.now() - ts;
  thaw();
}

if (!SERVE) {
  try {
    const gw = await freshGateway();
    await driveRow(gw);
    result.timing.gatewayCpuMs = groupCpuMs(gw.child.pid);
    await stopRowGateway(gw);
    result.ok = true;
  } catch (e) {
    result.error = String(e?.message ?? e);
  }
  result.timing.totalMs = Date.now() - started;
  fs.writeFileSync(plan.result, `${JSON.stringify(result, null, 2)}\n`);
  process.exit(result.ok ? 0 : 1);
}

// ---- --serve: one gateway, several rows -------------------------------------

// A hot reload takes ~0.6 s (2026.4.26) to ~2 s (2026.9.6) here (docs/performance.md);
// one not applied by then is not waited out: the row gets a fresh gateway.
const RELOAD_WAIT_MS = 30_000;
let gateway = null;
let rowNo = 0;
const configPath = `${work}/openclaw.json`;
async function serveRow(planPath) {
  plan = JSON.parse(fs.readFileSync(planPath, "utf8"));
  started = Date.now();
  result = { ok: false, timing: {}, steps: [], error: null, gatewayWorkDir: work };
  rowNo += 1;
  const row = plan.workDir;
  // The workspace is the gateway's, shared by its rows. 2026.9.6 keeps
  // running in the first row's workspace after `agents.defaults.workspace`
  // was hot-applied (observed: a reused row's assemble had `workspaceDir` and
  // `cwd` of the previous row's; the gateway's published prepared model
  // runtime keeps its owner's workspaceDir on refresh, dist/prepared-model-runtime-*.mjs
  // rebindInputToCommittedConfiguredOwner). It cannot be emptied either: the
  // host attests a workspace it set up, and a row then finds it "missing on
  // the gateway host" (dist/workspace-*.mjs WorkspaceVanishedError, dist/get-reply-*.mjs;
  // observed: the turn answered that notice without a model call).
  rowDirs = { home: dirs.home, state: `${row}/state`, workspace: dirs.workspace, engine: `${row}/engine` };
  for (const d of Object.values(rowDirs)) fs.mkdirSync(d, { recursive: true });
  try {
    let reused = false;
    if (gateway) {
      const next = config(gateway.port, gateway.token);
      const now = JSON.parse(fs.readFileSync(configPath, "utf8"));
      const neutral = (c) => rowNeutral(c, { release4x: RELEASE_4X });
      if (neutral(next) === neutral(now) && gateway.child.exitCode === null) {
        if (plan.toolResults?.length) (RELEASE_4X ? prepareResultFiles(fs, rowDirs.workspace, plan.toolResults) : prepareStandIns(fs, rowDirs.workspace));
        // The row's seed goes into its own store, which the gateway has not
        // opened: 2026.9.6 resolves the store of every session access from the
        // runtime config's `session.store` at the call (dist/session-utils-store-*.mjs
        // loadSessionEntryWithMode `cfg = getRuntimeConfig()`, dist/session-accessor.sqlite-entry-*.mjs
        // resolveSessionStorePathForScope), and that names this row's store
        // only once the edit below is hot-applied.
        if (plan.hostSetup?.seed) result.seeded = seedSession(gateway.env);
        const t = Date.now();
        const offset = fs.statSync(`${work}/gateway.log`).size;
        writeBridgeRow();
        fs.writeFileSync(configPath, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
        try {
          await reloadApplied(`${work}/gateway.log`, offset, { timeoutMs: RELOAD_WAIT_MS });
          result.timing.reloadMs = Date.now() - t;
          reused = true;
        } catch (e) {
          // A reload the gateway did not apply (seen on 2026.4.26 a few times
          // a gate, cause not found: the gateway logged no "config change
          // detected" at all): the row runs on a fresh gateway instead, its
          // own state (and seed) written anew. What the gateway logged is
          // kept beside the row for a look.
          result.freshBecause = String(e?.message ?? e);
          fs.copyFileSync(`${work}/gateway.log`, `${row}/gateway-not-reloaded.log`);
          await stopGateway(gateway.child, { graceMs: 0 });
          gateway = null;
          fs.rmSync(rowDirs.state, { recursive: true, force: true });
          fs.mkdirSync(rowDirs.state, { recursive: true });
        }
      } else {
        const a = JSON.parse(neutral(now));
        const b = JSON.parse(neutral(next));
        const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
        result.freshBecause = gateway.child.exitCode === null ? `config differs from the previous row's in ${keys.join(", ")}` : "gateway exited";
        await stopGateway(gateway.child, { graceMs: 0 });
        gateway = null;
      }
    }
    const cpu0 = reused ? groupCpuMs(gateway.child.pid) : 0;
    if (!gateway) gateway = await freshGateway();
    result.reused = reused;
    result.rowOnGateway = rowNo;
    // chat.send idempotency keys are remembered for 300 s per gateway
    // (2026.9.6 dist/server-constants-*.mjs DEDUPE_TTL_MS): each row its own.
    await driveRow(gateway, { idPrefix: `clawspec-r${rowNo}` });
    const cpu = groupCpuMs(gateway.child.pid);
    result.timing.gatewayCpuMs = cpu === null ? null : cpu - cpu0;
    // The row's trace as it was at the row's end: the next row's reload shuts
    // this row's engine down (dispose), which is no part of this row.
    fs.renameSync(plan.trace, `${plan.trace}.frozen`);
    fs.copyFileSync(`${plan.trace}.frozen`, plan.trace);
    result.traceFile = `${plan.trace}.frozen`;
    result.ok = true;
  } catch (e) {
    result.error = String(e?.message ?? e);
    // A row that failed leaves the gateway in an unknown state: the next row gets a fresh one.
    if (gateway) await stopGateway(gateway.child, { graceMs: 0 }).catch(() => {});
    gateway = null;
  }
  result.timing.totalMs = Date.now() - started;
  fs.writeFileSync(plan.result, `${JSON.stringify(result, null, 2)}\n`);
  return result.ok;
}

const readline = await import("node:readline");
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const ok = await serveRow(line.trim());
  process.stdout.write(`${JSON.stringify({ done: line.trim(), ok })}\n`);
}
// stdin closed: clawspec is done with this gateway (or died).
if (gateway) await stopGateway(gateway.child, { graceMs: 0 });
process.exit(0);
