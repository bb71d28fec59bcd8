// stdout belongs to the protocol (docs/protocol.md: "stdout is reserved for
// the protocol"). Everything a plugin prints goes to stderr; direct writes to
// stdout (process.stdout.write, fs.writeSync(1, …)) are redirected there too
// and reported, so a chatty plugin is a finding, never a corrupt frame.
import { Console } from "node:console";
import fs from "node:fs";
import module from "node:module";

const SHOWN = 200;
const KEPT = 100;

/**
 * @param {{stdoutWrites: string[]}} report
 * @returns {{write(line: string, cb?: () => void): void}} the protocol's own writer
 */
export function guardStdout(report) {
  const out = process.stdout;
  // Writable.prototype.write bound to the real stream: it queues under
  // backpressure, where fs.writeSync(1) on a non-blocking pipe would drop the
  // tail of a large frame (EAGAIN / short write).
  const protocolWrite = out.write.bind(out);
  out.on("error", (err) => {
    // The host closed its end: nobody is left to answer.
    process.stderr.write(`clawspec-node-adapter: stdout closed (${err.code ?? err.message}); exiting\n`);
    process.exit(1);
  });

  const leak = (chunk, how) => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : String(chunk);
    if (report.stdoutWrites.length < KEPT) report.stdoutWrites.push(text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);
    process.stderr.write(`clawspec-node-adapter: the plugin wrote to stdout with ${how} (redirected to stderr, reported): ${text}${text.endsWith("\n") ? "" : "\n"}`);
  };

  out.write = function write(chunk, encoding, cb) {
    leak(chunk, "process.stdout.write");
    const done = typeof encoding === "function" ? encoding : cb;
    if (typeof done === "function") process.nextTick(done);
    return true;
  };
  out.end = function end(chunk, ...rest) {
    if (chunk !== undefined && typeof chunk !== "function") leak(chunk, "process.stdout.end");
    const done = [chunk, ...rest].find((x) => typeof x === "function");
    if (done) process.nextTick(done);
    return out;
  };

  const { writeSync, write } = fs;
  fs.writeSync = function guardedWriteSync(fd, buffer, ...rest) {
    if (fd !== 1) return writeSync.call(fs, fd, buffer, ...rest);
    leak(buffer, "fs.writeSync(1)");
    return typeof buffer === "string" ? Buffer.byteLength(buffer, typeof rest[1] === "string" ? rest[1] : "utf8") : (rest[1] ?? buffer.byteLength - (rest[0] ?? 0));
  };
  fs.write = function guardedWrite(fd, buffer, ...rest) {
    if (fd !== 1) return write.call(fs, fd, buffer, ...rest);
    leak(buffer, "fs.write(1)");
    const cb = rest.find((x) => typeof x === "function");
    const n = typeof buffer === "string" ? Buffer.byteLength(buffer) : buffer.byteLength;
    if (cb) process.nextTick(cb, null, n, buffer);
  };
  module.syncBuiltinESMExports();

  // console.log/info/debug/dir/table/… print to stderr, unreported: console
  // output is ordinary logging, not a protocol hazard.
  const toErr = new Console({ stdout: process.stderr, stderr: process.stderr });
  for (const k of Object.keys(console)) {
    if (typeof console[k] === "function" && typeof toErr[k] === "function") console[k] = toErr[k].bind(toErr);
  }

  return { write: (line, cb) => void protocolWrite(line, cb) };
}
