// Command line of `clawspec-node-adapter`. Bad input gets a named UsageError
// (the bin prints it with the usage line and exits 2).
import fs from "node:fs";
import path from "node:path";

export const USAGE = "usage: clawspec-node-adapter <plugin-entry> [--engine-id ID] [--plugin-config JSON|@file] [--state-dir DIR] [--seed N] [--sdk PROFILE=OPENCLAW_PACKAGE_DIR]… [--hang-report-ms MS]";

export class UsageError extends Error {
  name = "UsageError";
}

/**
 * @param {string[]} argv
 * @returns {{entry: string, engineId?: string, pluginConfig?: unknown, stateDir?: string, seed: number, sdk: Record<string, string>, hangReportMs: number}}
 */
export function parseArgs(argv) {
  /** @type {{entry?: string, engineId?: string, pluginConfig?: unknown, stateDir?: string, seed: number, sdk: Record<string, string>, hangReportMs: number}} */
  // hangReportMs: two thirds of clawspec's default 30 s call timeout (lib/watchdog.js).
  const args = { seed: 0x5eed, sdk: {}, hangReportMs: 20000 };
  const value = (i, flag) => {
    const v = argv[i];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--engine-id") args.engineId = value(++i, a);
    else if (a === "--plugin-config") args.pluginConfig = parsePluginConfig(value(++i, a));
    else if (a === "--sdk") {
      const [profile, dir] = splitSdk(value(++i, a));
      args.sdk[profile] = dir;
    } else if (a === "--state-dir") args.stateDir = path.resolve(value(++i, a));
    else if (a === "--seed") {
      const v = value(++i, a);
      if (!/^\d+$/.test(v)) throw new UsageError(`--seed ${JSON.stringify(v)}: expected a non-negative integer`);
      args.seed = Number(v);
    } else if (a === "--hang-report-ms") {
      const v = value(++i, a);
      if (!/^\d+$/.test(v)) throw new UsageError(`--hang-report-ms ${JSON.stringify(v)}: expected milliseconds (0: never)`);
      args.hangReportMs = Number(v);
    } else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else if (args.entry === undefined) args.entry = a;
    else throw new UsageError(`unexpected argument ${JSON.stringify(a)} (the plugin entry is ${JSON.stringify(args.entry)})`);
  }
  if (args.entry === undefined) throw new UsageError("missing <plugin-entry>");
  const entry = path.resolve(args.entry);
  if (!fs.existsSync(entry)) throw new UsageError(`plugin entry ${entry}: no such file`);
  return { ...args, entry };
}

/** `--plugin-config JSON` or `--plugin-config @file`. */
export function parsePluginConfig(raw) {
  let text = raw;
  let where = "--plugin-config";
  if (raw.startsWith("@")) {
    where = `--plugin-config ${raw}`;
    try {
      text = fs.readFileSync(path.resolve(raw.slice(1)), "utf8");
    } catch (err) {
      throw new UsageError(`${where}: cannot read the file: ${err.message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${where}: not valid JSON: ${err.message}`);
  }
}

/** `--sdk PROFILE=DIR`: the real `openclaw` package (its package.json) serving `openclaw/plugin-sdk/*` under PROFILE. */
export function splitSdk(raw) {
  const eq = raw.indexOf("=");
  if (eq <= 0 || eq === raw.length - 1) throw new UsageError(`--sdk ${JSON.stringify(raw)}: expected PROFILE=OPENCLAW_PACKAGE_DIR`);
  const dir = path.resolve(raw.slice(eq + 1));
  if (!fs.existsSync(path.join(dir, "package.json"))) throw new UsageError(`--sdk ${raw}: ${dir} is not a package (no package.json)`);
  return [raw.slice(0, eq), dir];
}
