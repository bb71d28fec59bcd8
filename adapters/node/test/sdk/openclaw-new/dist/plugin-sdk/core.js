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
export { delegateCompactionToRuntime, newOnlyImpl as newOnly, release };
