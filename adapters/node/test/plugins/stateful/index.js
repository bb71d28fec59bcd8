// A test-only plugin that keeps state at module level, in a CommonJS
// dependency, on globalThis (as the OpenClaw SDK does with Symbol.for) and in
// a timer — every place a warm adapter process must not carry one run's data
// into the next (lib/warm.js). assemble returns what it still sees.
import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";

import { chunkSeen } from "./chunk.js";

const { kept } = createRequire(import.meta.url)("./store.cjs");
const moduleSeen = [];
let instances = 0;
let ticks = 0;
const atImport = randomUUID();
const GLOBAL = Symbol.for("stateful-fixture.store");

export default {
  id: "stateful",
  name: "Stateful fixture",
  register(api) {
    api.registerContextEngine("stateful", () => {
      instances += 1;
      globalThis[GLOBAL] ??= [];
      process.on("exit", () => {});
      setInterval(() => (ticks += 1), 5).unref();
      return {
        info: { id: "stateful", name: "Stateful fixture" },
        async ingest({ message }) {
          const text = JSON.stringify(message?.content ?? "");
          moduleSeen.push(text);
          chunkSeen.push(text);
          kept.push(text);
          globalThis[GLOBAL].push(text);
          process.env.STATEFUL_LAST = text;
          return { ingested: true };
        },
        async assemble({ messages }) {
          await new Promise((r) => setTimeout(r, 30));
          return {
            messages,
            estimatedTokens: 0,
            leaked: { moduleSeen, chunkSeen, kept, global: globalThis[GLOBAL], env: process.env.STATEFUL_LAST ?? null, instances, ticksAfterWait: ticks > 0, exitListeners: process.listenerCount("exit") },
            run: { atImport, home: process.env.HOME, cwd: process.cwd() },
          };
        },
        async compact() {
          return { ok: true, compacted: false };
        },
      };
    });
  },
};
