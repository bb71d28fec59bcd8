import assert from "node:assert/strict";
import { test } from "node:test";

import { seed, seededUuid } from "../lib/seed.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("seeded uuids are well-formed v4 and a function of the generator", () => {
  let i = 0;
  const next = () => ((i = (i * 1103515245 + 12345) % 2 ** 31), i / 2 ** 31);
  const a = seededUuid(next);
  assert.match(a, UUID);
  i = 0;
  assert.equal(seededUuid(next), a);
});

test("seed() makes Math.random, crypto.randomUUID and the ESM named export deterministic", async () => {
  seed(42);
  const first = [Math.random(), crypto.randomUUID(), (await import("node:crypto")).randomUUID()];
  seed(42);
  const again = [Math.random(), crypto.randomUUID(), (await import("node:crypto")).randomUUID()];
  assert.deepEqual(again, first);
  assert.match(first[1], UUID);
  assert.notEqual(first[1], first[2], "one stream: successive ids differ");
  seed(43);
  assert.notEqual(Math.random(), first[0]);
});
