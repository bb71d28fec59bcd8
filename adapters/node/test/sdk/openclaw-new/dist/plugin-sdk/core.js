// Stand-in for a release's bundled plugin-sdk/core (one `export {…}` statement, as tsdown emits).
function delegateCompactionToRuntime() {
  throw new Error("the real OpenClaw compaction runtime was called");
}
function release() {
  return "2026.9.6";
}
function newOnlyImpl(x) {
  return { newOnly: x };
}
// Module state, as the real SDK keeps caches and registries: tells a shared
// SDK instance from a fresh one (test/warm.test.js).
let coreCalls = 0;
function countCore() {
  return ++coreCalls;
}
export { countCore, delegateCompactionToRuntime, newOnlyImpl as newOnly, release };
