// The async context of one forwarded hook call.
//
// Host requests (`host/llm.complete`, `host/delegateCompaction`) arrive on
// the engine's stdout, in the async context the pipe was created in: the
// first hook call's, whose host scopes have long closed (2026.9.6 dist
// async-work-scope-*.mjs "Async work scope is closed", the plugin
// invocation scope's "Plugin invocation scope is closed"). A real plugin
// awaits `runtimeContext.llm.complete` / `delegateCompactionToRuntime`
// inside its own hook call, so the bridge runs them in that call's context.

import { AsyncResource } from "node:async_hooks";

/** A runner that calls `f` in the async context current when it was made. */
export function captureCallContext() {
  return AsyncResource.bind((f) => f());
}
