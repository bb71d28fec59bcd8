// Newline-delimited JSON-RPC 2.0 over stdin / the guarded stdout
// (docs/protocol.md, contract/src/protocol.rs).
import readline from "node:readline";

/** @typedef {{jsonrpc: "2.0", id?: number|string, method?: string, params?: any, result?: any, error?: {code:number,message:string,data?:any}}} Frame */

/** Engine → host request ids start far above any host id, so traces stay readable. */
const FIRST_HOST_REQUEST_ID = 2_000_000;

export class Rpc {
  /**
   * @param {{write(line: string, cb?: () => void): void}} out
   * @param {(frame: Frame) => void} onRequest
   * @param {(frame: Frame) => void} onNotification
   * @param {NodeJS.ReadableStream} input
   */
  constructor(out, onRequest, onNotification, input = process.stdin) {
    this.out = out;
    /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void, method: string}>} */
    this.pending = new Map();
    this.nextId = FIRST_HOST_REQUEST_ID;
    const rl = readline.createInterface({ input, crlfDelay: Infinity });
    rl.on("line", (line) => {
      if (!line.trim()) return;
      let frame;
      try {
        frame = JSON.parse(line);
      } catch (e) {
        process.stderr.write(`clawspec-node-adapter: ignoring a line from the host that is not JSON: ${e.message}\n`);
        return;
      }
      if (!frame || typeof frame !== "object") {
        process.stderr.write(`clawspec-node-adapter: ignoring a line from the host that is not a JSON object\n`);
      } else if (typeof frame.method === "string" && frame.id !== undefined) onRequest(frame);
      else if (typeof frame.method === "string") onNotification(frame);
      else if (this.pending.has(frame.id)) {
        const { resolve, reject } = this.pending.get(frame.id);
        this.pending.delete(frame.id);
        if (frame.error) reject(Object.assign(new Error(frame.error.message), { code: frame.error.code, data: frame.error.data }));
        else resolve(frame.result);
      } else {
        process.stderr.write(`clawspec-node-adapter: ignoring a response to unknown request ${JSON.stringify(frame.id)}\n`);
      }
    });
    /** Resolves when the host closes stdin. */
    this.closed = new Promise((r) => rl.on("close", r));
  }

  /** @param {Frame} frame @param {() => void} [cb] called once the line is handed to the OS */
  send(frame, cb) {
    this.out.write(JSON.stringify(frame) + "\n", cb);
  }

  /** Engine → host request (`host/...`). */
  request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method, params) {
    this.send({ jsonrpc: "2.0", method, params });
  }
}
