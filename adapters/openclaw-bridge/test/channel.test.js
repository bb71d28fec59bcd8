import assert from "node:assert/strict";
import { test } from "node:test";

import { channelPlugin, inboundContext, INBOUND_METHOD, registerChannel } from "../lib/channel.js";
import { drive } from "../lib/steps.js";

test("a message's channel facts become the MsgContext fields a channel sets, and only those", () => {
  const ctx = inboundContext({
    sessionKey: "agent:main:main",
    body: "hi",
    chatType: "group",
    messageId: "m1",
    sender: { id: "+1", name: "Mara", username: "mara" },
    groupSubject: "Ops",
    wasMentioned: true,
    untrustedContext: ["Forwarded from: A"],
    threadHistory: "x: y",
  });
  assert.equal(ctx.Provider, "clawspec");
  assert.equal(ctx.ChatType, "group");
  assert.equal(ctx.OriginatingTo, "clawspec:clawspec-group");
  assert.equal(ctx.From, "clawspec:+1");
  assert.deepEqual([ctx.MessageSid, ctx.SenderId, ctx.SenderName, ctx.SenderUsername, ctx.GroupSubject, ctx.WasMentioned], ["m1", "+1", "Mara", "mara", "Ops", true]);
  assert.deepEqual(ctx.UntrustedContext, ["Forwarded from: A"]);
  assert.equal(ctx.ThreadHistoryBody, "x: y");
  const bare = inboundContext({ sessionKey: "k", body: "/stop", chatType: "direct" });
  assert.equal(bare.OriginatingTo, "clawspec:clawspec-user");
  for (const k of ["MessageSid", "SenderId", "GroupSubject", "UntrustedContext", "ThreadHistoryBody", "MediaPaths"]) assert.equal(k in bare, false, k);
});

test("the channel registers with the plugin API's required surfaces and dispatches through runtime.channel.reply", async () => {
  const registered = {};
  const dispatched = [];
  const api = {
    registerChannel: (r) => (registered.channel = r.plugin),
    registerGatewayMethod: (name, handler) => (registered[name] = handler),
    runtime: {
      config: { current: () => ({ cfg: true }) },
      channel: {
        reply: {
          finalizeInboundContext: (ctx) => ({ ...ctx, finalized: true }),
          dispatchReplyWithBufferedBlockDispatcher: async ({ ctx, cfg, dispatcherOptions }) => {
            dispatched.push({ ctx, cfg });
            await dispatcherOptions.deliver({ text: "reply" });
            return { queuedFinal: true };
          },
        },
      },
    },
  };
  assert.equal(registerChannel(api), true);
  assert.equal(registered.channel, channelPlugin);
  assert.deepEqual(channelPlugin.capabilities.chatTypes, ["direct", "group"]);
  assert.deepEqual(channelPlugin.config.listAccountIds(), ["default"]);
  const responses = [];
  const out = await registered[INBOUND_METHOD]({ params: { sessionKey: "k", body: "hi", chatType: "direct" }, respond: (...a) => responses.push(a) });
  assert.deepEqual(out, { replies: ["reply"], queuedFinal: true });
  // 2026.4.26 ignores a handler's return value: the answer must go through respond, once.
  assert.deepEqual(responses, [[true, { replies: ["reply"], queuedFinal: true }]]);
  assert.equal(dispatched[0].ctx.finalized, true);
  assert.deepEqual(dispatched[0].cfg, { cfg: true });
  // The account runs until the gateway aborts it (readiness waits for running accounts).
  const abort = new AbortController();
  const running = channelPlugin.gateway.startAccount({ abortSignal: abort.signal });
  abort.abort();
  await running;
  assert.equal(registerChannel({}), false, "an OpenClaw without the channel API is reported, not crashed on");
});

test("a channelTurn step queues its system events, then sends the message over the inbound RPC", async () => {
  const calls = [];
  const client = { request: async (method, params) => (calls.push({ method, params }), method === INBOUND_METHOD ? { replies: ["ok"], queuedFinal: true } : {}) };
  const out = await drive(client, { kind: "channelTurn", step: 0, sessionKey: "k", timeoutMs: 1000, body: "hi", chatType: "direct", systemEvents: ["done"] }, 0);
  assert.deepEqual(calls.map((c) => c.method), ["system-event", INBOUND_METHOD]);
  assert.deepEqual(calls[1].params, { sessionKey: "k", body: "hi", chatType: "direct" });
  assert.deepEqual(out, { channel: true, replies: ["ok"], queuedFinal: true });
});
