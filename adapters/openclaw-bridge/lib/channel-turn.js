// Plan step `channelTurn`: one inbound message on the clawspec channel
// (lib/channel.js), delivered the way a platform delivers it to a channel
// plugin. The gateway RPC resolves when the host's reply dispatch for the
// message has settled (the agent run included), so no agent.wait is needed.

import { INBOUND_METHOD } from "./channel.js";

export async function channelTurn(client, step, index) {
  // Queued on the session first, drained by this message's run, as for a chat.send turn (lib/steps.js turn).
  for (const [j, text] of (step.systemEvents ?? []).entries()) {
    await client.request("system-event", { text, sessionKey: step.sessionKey, idempotencyKey: `clawspec-event-${index + 1}-${j + 1}` });
  }
  const { step: _s, kind: _k, timeoutMs, systemEvents: _e, ...message } = step;
  const done = await client.request(INBOUND_METHOD, message, timeoutMs + 10_000);
  return { channel: true, replies: done?.replies ?? null, queuedFinal: done?.queuedFinal ?? null };
}
