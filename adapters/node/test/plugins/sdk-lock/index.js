// A test-only plugin that takes a state-database lock exactly where the real
// OpenClaw 2026.9.6 SDK takes it (dist managed-handoff-runtime.mjs
// resolveLifecycleCoordinatorBase / ensurePrivateSqliteCoordinatorDirectory):
// `/tmp/openclaw-state-locks-<uid>/<family>.<sha256(db path)[..8]>.lock.sqlite`,
// hard-coded to /tmp whatever TMPDIR says. ingest reports whether it could.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

function takeLock() {
  const db = path.join(process.env.OPENCLAW_STATE_DIR, "agents", "main", "agent", "openclaw-agent.sqlite");
  fs.mkdirSync(path.dirname(db), { recursive: true });
  fs.writeFileSync(db, "");
  const hash = crypto.createHash("sha256").update(fs.realpathSync(db)).digest("hex").slice(0, 8);
  const dir = path.join("/tmp", `openclaw-state-locks-${process.getuid()}`);
  const lock = path.join(dir, `state-lifecycle.${hash}.lock.sqlite`);
  try {
    fs.mkdirSync(dir, { mode: 0o700, recursive: true });
    fs.writeFileSync(lock, "locked");
    return { ok: true, lock };
  } catch (err) {
    return { ok: false, lock, error: err.code ?? String(err) };
  }
}

export default {
  id: "sdk-lock",
  register(api) {
    api.registerContextEngine("sdk-lock", () => ({
      info: { id: "sdk-lock", name: "SDK lock fixture" },
      async ingest() {
        return { ingested: true, ...takeLock() };
      },
      async assemble({ messages }) {
        return { messages, estimatedTokens: 0 };
      },
      async compact() {
        return { ok: true, compacted: false };
      },
    }));
  },
};
