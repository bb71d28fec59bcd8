#!/usr/bin/env node
// clawspec-node-adapter <plugin-entry> [--engine-id ID] [--plugin-config JSON|@file] [--state-dir DIR]
import { main } from "../lib/adapter.js";

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`clawspec-node-adapter: ${err?.stack ?? err}\n`);
  process.exit(1);
});
