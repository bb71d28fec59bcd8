// Stand-in for a release's bundled plugin-sdk/core (one `export {…}` statement, as tsdown emits).
function delegateCompactionToRuntime() {
  throw new Error("the real OpenClaw compaction runtime was called");
}
// Module-level state of the release's code: one copy per adapter process,
// shared by every run of a reused process (lib/hooks.mjs inRealSdk).
let releaseCalls = 0;
function release() {
  releaseCalls += 1;
  return "2026.9.6";
}
function releaseCallCount() {
  return releaseCalls;
}
function newOnlyImpl(x) {
  return { newOnly: x };
}
export { delegateCompactionToRuntime, newOnlyImpl as newOnly, release, releaseCallCount };
