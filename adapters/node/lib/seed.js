// Determinism: Math.random and crypto.randomUUID are seeded before the plugin
// loads (plugins build ids from them), then builtin ESM exports are synced so
// `import { randomUUID } from "node:crypto"` sees the seeded one too.
import crypto from "node:crypto";
import module from "node:module";

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seededUuid(next) {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[i] = Math.floor(next() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function seed(value = 0x5eed) {
  const rnd = mulberry32(value);
  const uuidRnd = mulberry32(value ^ 0x9e3779b9);
  Math.random = rnd;
  const randomUUID = () => seededUuid(uuidRnd);
  crypto.randomUUID = randomUUID;
  if (globalThis.crypto) {
    try {
      Object.defineProperty(globalThis.crypto, "randomUUID", { value: randomUUID, configurable: true, writable: true });
    } catch {
      /* read-only in some Node versions: node:crypto still seeded */
    }
  }
  module.syncBuiltinESMExports();
}
