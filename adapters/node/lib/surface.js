// The plugin api surface per OpenClaw release: what `register(api)` receives.
// Sources (the npm packages clawspec caches):
// - 2026.9.6 dist/setup-registry-Cbh_jUlx.mjs `buildPluginApi` (the `noopEntries`
//   registration methods) and `attachPluginApiFacades` (session/agent/runContext/
//   lifecycle facades), dist/agent-harness-runtime-*.d.ts `PluginRuntimeCore`;
// - 2026.4.26 dist/api-builder-Df-LSf1D.js `buildPluginApi`,
//   dist/plugin-sdk/src/plugins/runtime/types-core.d.ts.
// A member a release does not pass stays absent, so a plugin reading it gets
// `undefined` as on that release (and the adapter reports the read).

const COMMON = [
  "registerTool", "registerHook", "registerHttpRoute", "registerChannel", "registerGatewayMethod", "registerCli", "registerReload",
  "registerNodeHostCommand", "registerSecurityAuditCollector", "registerService", "registerGatewayDiscoveryService", "registerCliBackend",
  "registerTextTransforms", "registerConfigMigration", "registerMigrationProvider", "registerAutoEnableProbe", "registerProvider",
  "registerSpeechProvider", "registerRealtimeTranscriptionProvider", "registerRealtimeVoiceProvider", "registerMediaUnderstandingProvider",
  "registerImageGenerationProvider", "registerVideoGenerationProvider", "registerMusicGenerationProvider", "registerWebFetchProvider",
  "registerWebSearchProvider", "registerInteractiveHandler", "onConversationBindingResolved", "registerCommand", "registerContextEngine",
  "registerCompactionProvider", "registerAgentHarness", "registerCodexAppServerExtensionFactory", "registerAgentToolResultMiddleware",
  "registerDetachedTaskRuntime", "registerMemoryCapability", "registerMemoryPromptSupplement", "registerMemoryCorpusSupplement", "on",
];

/** Registration methods (and `on`) by release. */
export const REGISTRATIONS = {
  "2026.4.26": [...COMMON, "registerMemoryPromptSection", "registerMemoryFlushPlan", "registerMemoryRuntime", "registerMemoryEmbeddingProvider"],
  "2026.9.6": [
    ...COMMON, "registerHostedMediaResolver", "registerWidgetPresenter", "registerMcpServerConnectionResolver", "registerGatewayAccessPolicy",
    "registerSessionCatalog", "registerNodeInvokePolicy", "registerWorkerProvider", "registerModelCatalogProvider", "registerEmbeddingProvider",
    "registerTranscriptSourceProvider", "registerDecisionProvider", "registerSessionExtension", "enqueueNextTurnInjection",
    "registerTrustedToolPolicy", "registerToolMetadata", "registerControlUiDescriptor", "registerBoardWidgetContentKind",
    "registerRuntimeLifecycle", "registerAgentEventSubscription", "emitAgentEvent", "setRunContext", "getRunContext", "clearRunContext",
    "registerSessionSchedulerJob", "registerSessionAction", "sendSessionAttachment", "scheduleSessionTurn", "unscheduleSessionTurnsByTag",
    "registerMemoryPromptPreparation", "registerNodeCliFeature",
  ],
};

/** 2026.9.6 attachPluginApiFacades: grouped aliases of top-level methods. */
export const FACADES_9_6 = {
  session: {
    state: ["registerSessionExtension"],
    workflow: ["enqueueNextTurnInjection", "registerSessionSchedulerJob", "sendSessionAttachment", "scheduleSessionTurn", "unscheduleSessionTurnsByTag"],
    controls: ["registerSessionAction", "registerControlUiDescriptor"],
  },
  agent: { events: ["registerAgentEventSubscription", "emitAgentEvent"] },
  runContext: { "": ["setRunContext", "getRunContext", "clearRunContext"] },
  lifecycle: { "": ["registerRuntimeLifecycle"] },
};

/** The release a profile simulates (`openclaw-<version>[+variant]`); proposals sit on the newest. */
export function releaseOf(profile) {
  const m = /^openclaw-(\d+\.\d+\.\d+)/.exec(String(profile ?? ""));
  return m && REGISTRATIONS[m[1]] ? m[1] : "2026.9.6";
}
