// OpenClaw's current-turn transcript read fence (2026.9.6): the host runs an
// admitted turn's `bootstrap` (with its maintain) and `assemble` inside
// `runWithSessionTranscriptReadFence(admissionReceipt, …)`, an
// AsyncLocalStorage of the SDK, so the SDK's transcript reads
// (`readVisibleSessionTranscriptMessageEntries`, …) stop before the turn's
// own user entry, which the store already holds (dist
// `context-engine-lifecycle-*.mjs`, `session-transcript-read-fence-*.mjs`).
// clawspec sends the receipt as `$/transcriptReadFence {admission}` (and
// `{admission: null}` after); the adapter runs the lifecycle calls in between
// inside that same function of the release the plugin imports (the real SDK
// is one instance per process, lib/hooks.mjs), so the plugin's reads are
// fenced exactly as in the gateway. No public sub-path exports the function:
// it is found in the release's chunk that defines it.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const CHUNK = /^session-transcript-read-fence-[\w-]+\.mjs$/;
const NAME = "runWithSessionTranscriptReadFence";

/**
 * The release's chunk and the name it exports the fence runner under, or
 * undefined when the release has none (2026.4.26).
 * @param {string} sdkDir the `openclaw` package dir
 * @returns {{file: string, exported: string} | undefined}
 */
export function findReadFence(sdkDir) {
  const dist = path.join(sdkDir, "dist");
  let names;
  try {
    names = fs.readdirSync(dist).filter((n) => CHUNK.test(n));
  } catch {
    return undefined;
  }
  for (const n of names) {
    const file = path.join(dist, n);
    const source = fs.readFileSync(file, "utf8");
    if (!source.includes(`function ${NAME}(`)) continue;
    for (const m of source.matchAll(/export\s*\{([^}]*)\}/g)) {
      for (const part of m[1].split(",")) {
        const [local, exported = local] = part.trim().split(/\s+as\s+/).map((w) => w.trim());
        // Node imports the release by its real path (a cache dir may be a
        // symlink): the same URL, so the same instance as the plugin's SDK.
        if (local === NAME) return { file: fs.realpathSync(file), exported };
      }
    }
  }
  return undefined;
}

/**
 * A runner `(admission, fn) => fn()` inside the release's fence, importing
 * the chunk on first use; undefined when the release has no fence.
 * @param {string | undefined} sdkDir
 */
export function readFenceRunner(sdkDir) {
  const found = sdkDir && findReadFence(sdkDir);
  if (!found) return undefined;
  let run;
  return async (admission, fn) => {
    run ??= (await import(pathToFileURL(found.file).href))[found.exported];
    if (typeof run !== "function") throw new Error(`${found.file} does not export ${NAME} as ${found.exported}`);
    return run(admission, fn);
  };
}
