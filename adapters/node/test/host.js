// A tiny protocol v1 host for end-to-end tests: spawns the adapter as a real
// child process, speaks JSON lines to it, answers its host/ requests.
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const bin = path.join(here, "..", "bin", "clawspec-node-adapter.js");
export const plugin = (p) => path.join(here, "plugins", p);
export const INIT = {
  protocolVersion: 1,
  profile: "openclaw-2026.9.6",
  host: { name: "test", version: "0" },
  offers: { callbacks: ["llm.complete", "delegateCompaction"], capabilities: [], abortNotifications: true },
};

/**
 * @param {string} entry
 * @param {string[]} [args]
 * @param {Record<string, string>} [env]
 * @param {Record<string, (params: any) => any>} [answers] host/ request handlers
 */
export function host(entry, args = [], env = {}, answers = {}) {
  const child = spawn(process.execPath, [bin, entry, ...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const rl = readline.createInterface({ input: child.stdout });
  const waiting = new Map();
  /** Every stdout line, in order. */
  const lines = [];
  /** Engine → host requests and notifications, in order. */
  const fromEngine = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  let id = 0;
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  rl.on("line", (line) => {
    lines.push(line);
    const f = JSON.parse(line);
    if (f.method) {
      fromEngine.push(f);
      if (f.id === undefined) return;
      const a = answers[f.method];
      child.stdin.write(JSON.stringify(a ? { jsonrpc: "2.0", id: f.id, result: a(f.params) } : { jsonrpc: "2.0", id: f.id, error: { code: -32601, message: `test host does not serve ${f.method}` } }) + "\n");
      return;
    }
    waiting.get(f.id)?.(f);
  });
  return {
    child,
    call(method, params = {}) {
      const my = ++id;
      return new Promise((resolve) => {
        waiting.set(my, resolve);
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }) + "\n");
      });
    },
    notify(method, params) {
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
    },
    /** shutdown, then the exit code. */
    async close() {
      const r = await this.call("shutdown");
      if (JSON.stringify(r.result) !== "{}") throw new Error(`shutdown answered ${JSON.stringify(r)}`);
      return exited;
    },
    exited,
    stderr: () => stderr,
    lines,
    fromEngine,
  };
}
