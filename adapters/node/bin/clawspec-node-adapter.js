#!/usr/bin/env node
// clawspec-node-adapter <plugin-entry> [--engine-id ID] [--plugin-config JSON|@file] [--state-dir DIR] [--seed N] [--sdk PROFILE=DIR]…
// Stable path: clawspec spawns `node <repo>/adapters/node/bin/clawspec-node-adapter.js <entry> …`.
import { main, UsageError } from "../lib/adapter.js";
import { USAGE } from "../lib/cli.js";

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) {
    process.stderr.write(`clawspec-node-adapter: ${err.message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`clawspec-node-adapter: ${err?.stack ?? err}\n`);
  process.exit(1);
});
