// Newline-delimited JSON-RPC 2.0 on the real stdout (fd 1), which the adapter
// reserves for the protocol. See docs/protocol.md in the clawspec repository.
import fs from "node:fs";
import readline from "node:readline";

/** @typedef {{jsonrpc: "2.0", id?: number|string, method?: string, params?: any, result?: any, error?: {code:number,message:string,data?:any}}} Frame */

export class Rpc {
  /** @param {(frame: Frame) => void} onRequest @param {(frame: Frame) => void} onNotification */
  constructor(onRequest, onNotification) {
    this.pending = new Map();
    this.nextId = 2_000_000;
    this.rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    this.rl.on("line", (line) => {
      if (!line.trim()) return;
      let frame;
      try {
        frame = JSON.parse(line);
      } catch (e) {
        process.stderr.write(`clawspec-node-adapter: ignoring a line that is not JSON: ${e.message}\n`);
        return;
      }
      if (frame.method && frame.id !== undefined) onRequest(frame);
      else if (frame.method) onNotification(frame);
      else if (this.pending.has(frame.id)) {
        const { resolve, reject } = this.pending.get(frame.id);
        this.pending.delete(frame.id);
        if (frame.error) reject(Object.assign(new Error(frame.error.message), { code: frame.error.code }));
        else resolve(frame.result);
      }
    });
    this.closed = new Promise((r) => this.rl.on("close", r));
  }

  /** @param {Frame} frame */
  send(frame) {
    fs.writeSync(1, JSON.stringify(frame) + "\n");
  }

  /** Engine → host request (`host/...`), answered by the harness. */
  request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }
}
