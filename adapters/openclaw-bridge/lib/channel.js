// The `clawspec` channel: a minimal messaging channel registered through the
// real plugin API (api.registerChannel), whose inbound path is the one every
// channel plugin uses — build the inbound context with the host's
// `runtime.channel.reply.finalizeInboundContext` and hand it to
// `runtime.channel.reply.dispatchReplyWithBufferedBlockDispatcher`
// (openclaw docs/plugins/sdk-channel-inbound.md; 2026.9.6
// dist/runtime-channel-*.mjs). The "platform" is the twin's host runner: it
// delivers one inbound message per `clawspec.channel.inbound` gateway RPC,
// with the channel facts a real platform event carries (sender, group,
// message id, forwarded context, thread history, media saved on disk).
// Replies are collected, never sent anywhere.
//
// Nothing here calls the engine: the host's own reply pipeline does, exactly
// as for a Telegram or Slack message.

export const CHANNEL_ID = "clawspec";
export const INBOUND_METHOD = "clawspec.channel.inbound";

/** The ChannelPlugin: the required surfaces only (loader normalizeRegisteredChannelPlugin: id, capabilities.chatTypes, config helpers). */
export const channelPlugin = {
  id: CHANNEL_ID,
  meta: { id: CHANNEL_ID, label: "clawspec", selectionLabel: "clawspec (twin)", docsPath: "/channels", blurb: "clawspec twin channel", order: 999 },
  capabilities: { chatTypes: ["direct", "group"], media: true },
  config: {
    listAccountIds: () => ["default"],
    resolveAccount: (_cfg, accountId) => ({ accountId: accountId ?? "default", enabled: true, configured: true }),
    inspectAccount: () => ({ enabled: true, configured: true }),
    isConfigured: () => true,
  },
  // The platform connection: a channel account runs until the gateway stops
  // it; the gateway's readiness (/readyz) waits for every configured
  // account to run (2026.9.6 dist/server-start-*.mjs createReadinessChecker →
  // evaluateChannelHealth "not-running"). Messages arrive over the inbound RPC.
  gateway: {
    startAccount: (ctx) =>
      new Promise((resolve) => {
        if (!ctx.abortSignal || ctx.abortSignal.aborted) return resolve();
        ctx.abortSignal.addEventListener("abort", () => resolve(), { once: true });
      }),
  },
  outbound: {
    deliveryMode: "direct",
    // The twin records what the engine sees; a reply goes nowhere.
    sendText: async () => ({ channel: CHANNEL_ID, messageId: "clawspec-out" }),
  },
};

/**
 * The channel facts of one inbound message → the MsgContext fields a channel
 * sets (openclaw src/auto-reply/templating.ts MsgContext, as read by 2026.9.6
 * dist/inbound-meta-*.mjs buildInboundUserContextPrefix and
 * dist/get-reply-*.mjs). Only facts the message carries are set.
 */
export function inboundContext(msg) {
  const group = msg.chatType === "group";
  const senderId = msg.sender?.id ?? "clawspec-user";
  const chatId = msg.chatId ?? (group ? "clawspec-group" : senderId);
  const ctx = {
    Body: msg.body,
    RawBody: msg.body,
    CommandBody: msg.body,
    BodyForAgent: msg.body,
    From: `${CHANNEL_ID}:${senderId}`,
    To: `${CHANNEL_ID}:${chatId}`,
    SessionKey: msg.sessionKey,
    AccountId: "default",
    ChatType: group ? "group" : "direct",
    Provider: CHANNEL_ID,
    Surface: CHANNEL_ID,
    OriginatingChannel: CHANNEL_ID,
    OriginatingTo: `${CHANNEL_ID}:${chatId}`,
    // The twin's operator is the owner; `/stop` is an authorized text command.
    CommandAuthorized: true,
  };
  const set = (k, v) => {
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)) ctx[k] = v;
  };
  set("MessageSid", msg.messageId);
  set("SenderId", msg.sender?.id);
  set("SenderName", msg.sender?.name);
  set("SenderUsername", msg.sender?.username);
  set("SenderE164", msg.sender?.e164);
  set("GroupSubject", msg.groupSubject);
  set("WasMentioned", msg.wasMentioned);
  set("ThreadHistoryBody", msg.threadHistory);
  // The channel's untrusted context under the name both releases read:
  // 2026.4.26 appends ctx.UntrustedContext to the prompt (dist/get-reply-*.js
  // appendUntrustedContext) and knows no ChannelPromptContext; 2026.9.6
  // folds this deprecated alias into ChannelPromptContext
  // (dist/inbound-context-*.mjs finalizeInboundContext).
  set("UntrustedContext", msg.untrustedContext);
  set("MediaPaths", msg.media?.map((m) => m.path));
  set("MediaTypes", msg.media?.map((m) => m.mime));
  if (msg.media?.length) {
    ctx.MediaPath = msg.media[0].path;
    ctx.MediaType = msg.media[0].mime;
  }
  return ctx;
}

/** Register the channel and its inbound RPC on `api`. */
export function registerChannel(api) {
  if (typeof api.registerChannel !== "function" || typeof api.registerGatewayMethod !== "function") return false;
  api.registerChannel({ plugin: channelPlugin });
  api.registerGatewayMethod(
    INBOUND_METHOD,
    // Answered through `respond`: 2026.4.26 stores a plugin's handler as is
    // (dist/loader-*.js registerGatewayMethod) and ignores its return value
    // (dist/server-methods-*.js handleGatewayRequest), so a returned result
    // never reaches the caller and the request hangs until it times out;
    // 2026.9.6 wraps the handler (dist/loader-runtime-load-*.mjs
    // adaptPluginGatewayMethodHandler) and answers a returned result only when
    // the handler did not respond itself. A thrown error is answered by both.
    async ({ params, respond }) => {
      const reply = api.runtime?.channel?.reply;
      if (!reply?.finalizeInboundContext || !reply?.dispatchReplyWithBufferedBlockDispatcher) throw new Error("clawspec channel: this OpenClaw has no runtime.channel.reply dispatch");
      const cfg = api.runtime.config?.current?.() ?? api.runtime.config?.loadConfig?.() ?? api.config;
      const ctx = reply.finalizeInboundContext(inboundContext(params));
      const replies = [];
      const result = await reply.dispatchReplyWithBufferedBlockDispatcher({
        ctx,
        cfg,
        dispatcherOptions: {
          deliver: async (payload) => {
            replies.push(typeof payload?.text === "string" ? payload.text : null);
          },
          onError: (err) => replies.push(`error: ${String(err?.message ?? err)}`),
        },
      });
      const out = { replies, queuedFinal: result?.queuedFinal ?? null };
      respond?.(true, out);
      return out;
    },
    { scope: "operator.admin" },
  );
  return true;
}
