import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { parseArgs, UsageError } from "../lib/cli.js";
import { plugin } from "./host.js";

const entry = plugin("legacy/index.js");
const sdkDir = path.join(path.dirname(entry), "..", "..", "sdk", "openclaw-new");

test("parses every option", () => {
  const cfgFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cli-")), "c.json");
  fs.writeFileSync(cfgFile, '{"dbPath":"x"}');
  assert.deepEqual(parseArgs([entry, "--engine-id", "legacy", "--plugin-config", `@${cfgFile}`, "--state-dir", "rel", "--seed", "7", "--sdk", `openclaw-2026.9.6=${sdkDir}`, "--hang-report-ms", "1500"]), {
    entry,
    engineId: "legacy",
    pluginConfig: { dbPath: "x" },
    stateDir: path.resolve("rel"),
    seed: 7,
    sdk: { "openclaw-2026.9.6": sdkDir },
    hangReportMs: 1500,
  });
  assert.deepEqual(parseArgs([entry, "--plugin-config", "[1]"]).pluginConfig, [1]);
  // Two thirds of clawspec's default 30 s call timeout.
  assert.equal(parseArgs([entry]).hangReportMs, 20000);
  fs.rmSync(path.dirname(cfgFile), { recursive: true, force: true });
});

const bad = [
  [[], /missing <plugin-entry>/],
  [["/no/such/entry.js"], /no such file/],
  [[entry, "--engine-id"], /--engine-id needs a value/],
  [[entry, "--plugin-config", "{oops"], /--plugin-config: not valid JSON/],
  [[entry, "--plugin-config", "@/no/such.json"], /cannot read the file/],
  [[entry, "--seed", "x"], /non-negative integer/],
  [[entry, "--hang-report-ms", "soon"], /expected milliseconds/],
  [[entry, "--frobnicate"], /unknown option --frobnicate/],
  [[entry, entry], /unexpected argument/],
  [[entry, "--sdk", "openclaw-2026.9.6"], /expected PROFILE=OPENCLAW_PACKAGE_DIR/],
  [[entry, "--sdk", "p=/no/such/dir"], /is not a package/],
];
for (const [argv, message] of bad) {
  test(`usage error: ${argv.join(" ") || "(none)"}`, () => {
    assert.throws(() => parseArgs(argv), (e) => e instanceof UsageError && message.test(e.message));
  });
}
