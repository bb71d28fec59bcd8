// Per-run isolation: the plugin sees a private HOME / OPENCLAW_STATE_DIR /
// TMPDIR / cwd inside one state dir, and no secrets from the caller's
// environment. Real plugins default their databases to `$OPENCLAW_STATE_DIR`
// or `~/.openclaw` and logs to `/tmp/openclaw` (shared/reference/real-plugins.md),
// so without this a certification run would read and write the user's data.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Environment variable names that look like credentials. */
export const SECRET_ENV = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|SESSION|AUTH|PRIVATE/i;
/**
 * Variables that point plugins at a real OpenClaw installation or at a
 * plugin's real database (lossless-claw reads `LCM_DATABASE_PATH`).
 */
export const HOST_ENV = /^(OPENCLAW_|CLAWDBOT_|LCM_)/;

/**
 * @param {string | undefined} stateDir  --state-dir, else `$CLAWSPEC_STATE_DIR/plugin` (set per
 *   scenario by the clawspec runtime), else a fresh temp dir removed at exit.
 * @param {NodeJS.ProcessEnv} env  mutated in place
 */
export function isolate(stateDir, env = process.env) {
  let dir = stateDir;
  let created = false;
  if (!dir && env.CLAWSPEC_STATE_DIR) dir = path.join(env.CLAWSPEC_STATE_DIR, "plugin");
  if (!dir) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "clawspec-plugin-"));
    created = true;
  }
  const sub = (name) => path.join(dir, name);
  for (const name of ["home", "openclaw", "tmp", "agent", "workspace"]) fs.mkdirSync(sub(name), { recursive: true });
  const stripped = [];
  for (const k of Object.keys(env).sort()) {
    if (k.startsWith("CLAWSPEC_")) continue;
    if (SECRET_ENV.test(k) || HOST_ENV.test(k)) {
      delete env[k];
      stripped.push(k);
    }
  }
  Object.assign(env, {
    HOME: sub("home"),
    USERPROFILE: sub("home"),
    XDG_CONFIG_HOME: path.join(sub("home"), ".config"),
    XDG_DATA_HOME: path.join(sub("home"), ".local", "share"),
    XDG_STATE_HOME: path.join(sub("home"), ".local", "state"),
    XDG_CACHE_HOME: path.join(sub("home"), ".cache"),
    // The clawspec runtime names the simulated host's state dir when the
    // profile keeps transcripts in the agent's SQLite store (OpenClaw
    // 2026.9.6): the SDK's session-transcript-runtime finds the database
    // under OPENCLAW_STATE_DIR, as a plugin inside the real gateway does.
    OPENCLAW_STATE_DIR: env.CLAWSPEC_OPENCLAW_STATE_DIR || sub("openclaw"),
    TMPDIR: sub("tmp"),
    TMP: sub("tmp"),
    TEMP: sub("tmp"),
  });
  return {
    dir,
    created,
    stripped,
    agentDir: sub("agent"),
    workspaceDir: sub("workspace"),
    /** Remove a temp dir this run created (never a dir the caller chose). */
    cleanup() {
      if (created) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
