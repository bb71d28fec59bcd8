// One protocol-v1 engine process (docs/protocol.md): NDJSON JSON-RPC 2.0 over
// stdio, host-chosen integer ids echoed back, engine → host requests served
// only while a host request is pending. The bridge owns exactly one process
// per gateway; every engine instance the host creates shares it, because a
// protocol engine keeps its state in its process (as a real plugin keeps it in
// its module and database).

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const MAX_LINE = 64 * 1024 * 1024;
const STDERR_CAP = 256 * 1024;

export class EngineProcess {
  /**
   * @param {{program: string, args?: string[], env?: Record<string,string>, cwd?: string}} spec
   * @param {(method: string, params: any) => Promise<any>} onHostRequest engine → host requests
   * @param {(method: string, params: any) => void} onNotification engine notifications ($/log)
   */
  constructor(spec, onHostRequest, onNotification) {
    this.spec = spec;
    this.onHostRequest = onHostRequest;
    this.onNotification = onNotification;
    this.nextId = 1;
    /** @type {Map<number, {resolve: Function, reject: Function, method: string}>} */
    this.pending = new Map();
    this.stderr = "";
    this.exited = null;
  }

  start() {
    const { program, args = [], env = {}, cwd } = this.spec;
    // The engine sees only what its spec gives it: the gateway's environment
    // (provider keys, tokens) is not inherited.
    this.child = spawn(program, args, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.child.on("error", (e) => this.fail(`spawn-failed: ${program}: ${e.message}`));
    this.child.on("exit", (code, signal) => {
      this.exited = { code, signal };
      this.fail(`engine exited (code ${code}, signal ${signal})`);
    });
    this.child.stderr.on("data", (d) => {
      this.stderr = (this.stderr + d.toString("utf8")).slice(-STDERR_CAP);
    });
    const lines = createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => this.onLine(line));
  }

  fail(message) {
    for (const [, p] of this.pending) {
      p.onAnswer?.();
      p.reject(Object.assign(new Error(message), { fault: true }));
    }
    this.pending.clear();
  }

  send(frame) {
    if (!this.child || this.exited) throw Object.assign(new Error("engine is not running"), { fault: true });
    this.child.stdin.write(`${JSON.stringify(frame)}\n`);
  }

  /**
   * A host → engine request; resolves with the result, rejects with {code, message} or a fault.
   * `onAnswer` runs as the answer's line (or the fault) is read, before any later line.
   */
  request(method, params, onAnswer) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method, onAnswer });
      try {
        this.send({ jsonrpc: "2.0", id, method, params });
      } catch (e) {
        this.pending.delete(id);
        reject(e);
      }
    });
  }

  notify(method, params) {
    try {
      this.send({ jsonrpc: "2.0", method, params });
    } catch {
      // a dead engine misses the notification; its pending call already failed
    }
  }

  async onLine(line) {
    if (line.length > MAX_LINE) return this.fail(`oversized-line: ${line.length} bytes`);
    if (!line.trim()) return;
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      return this.fail(`garbage-output: ${line.slice(0, 200)}`);
    }
    if (frame.method !== undefined && frame.id !== undefined) {
      // engine → host request
      try {
        const result = await this.onHostRequest(frame.method, frame.params ?? {});
        this.send({ jsonrpc: "2.0", id: frame.id, result: result ?? null });
      } catch (e) {
        this.send({ jsonrpc: "2.0", id: frame.id, error: { code: e.code ?? -32000, message: String(e.message ?? e) } });
      }
      return;
    }
    if (frame.method !== undefined) return this.onNotification(frame.method, frame.params);
    const p = this.pending.get(frame.id);
    if (!p) return this.fail(`wrong-response-id: ${JSON.stringify(frame.id)}`);
    this.pending.delete(frame.id);
    p.onAnswer?.();
    if (frame.error) p.reject(Object.assign(new Error(frame.error.message ?? "engine error"), { code: frame.error.code, data: frame.error.data }));
    else p.resolve(frame.result);
  }

  async stop() {
    if (!this.child || this.exited) return;
    const done = new Promise((r) => this.child.once("exit", r));
    try {
      await Promise.race([this.request("shutdown", {}), new Promise((r) => setTimeout(r, 2000))]);
    } catch {
      // already gone
    }
    const t = setTimeout(() => {
      try {
        process.kill(-this.child.pid, "SIGKILL");
      } catch {}
    }, 2000);
    await done;
    clearTimeout(t);
  }
}
