//! Turns that arrive as messages on a real channel: the bridge's `clawspec`
//! channel plugin (adapters/openclaw-bridge/lib/channel.js) hands the host
//! an inbound message with the channel facts a platform event carries —
//! sender, group, message id, forwarded context, thread history, media
//! saved on disk — through the host's own inbound dispatch
//! (`runtime.channel.reply.dispatchReplyWithBufferedBlockDispatcher`,
//! openclaw docs/plugins/sdk-channel-inbound.md). That is how inbound
//! metadata, untrusted context, thread history and media notes reach a prompt
//! on the real host (2026.9.6 dist/inbound-meta-*.mjs
//! `buildInboundUserContextPrefix`, dist/get-reply-*.mjs `threadContextNote`,
//! dist/channel-prompt-context-*.mjs `appendChannelPromptContext`); a
//! `chat.send` carries none of them.
//!
//! A channel's `/stop` is the host's text command (dist/commands-handlers.runtime-*.mjs
//! `handleStopCommand` → `persistAbortTargetEntry`), which records
//! `abortedLastRun` on the session: the next turn gets the abort hint
//! (dist/get-reply-*.mjs `applySessionHints`).

use super::plan::{self, NotDrivable, Plan, PlanStep};
pub use crate::runtime::channel::{needs_channel, stop_message, ChannelMessage};
use crate::scenario::model::{Scenario, TurnSpec};

/// The scenario's inbound facts → the channel message ([`crate::runtime::channel::message`]).
pub fn message(t: &TurnSpec) -> Result<ChannelMessage, NotDrivable> {
    crate::runtime::channel::message(t).map_err(NotDrivable)
}

/// A turn with channel facts (or an abort hint) → plan steps: the channel's
/// `/stop` first when the turn carries the abort hint, then the message on
/// the channel (or, without channel facts, the usual `chat.send` turn).
pub(super) fn plan_turn(p: &mut Plan, i: usize, t: &TurnSpec, s: &Scenario) -> Result<(), NotDrivable> {
    plan::turn_drivable(t)?;
    let channel = needs_channel(t);
    if channel && (t.image || !t.steer.is_empty()) {
        return Err(NotDrivable("a channel message with an inline image or steered messages: not mapped yet".into()));
    }
    let session_key = s.setup.session_key.clone();
    if t.abort_hint {
        p.steps.push(PlanStep::ChannelTurn { step: i, session_key: session_key.clone(), timeout_ms: plan::STEP_TIMEOUT_MS, message: stop_message(), system_events: Vec::new() });
    }
    if !channel {
        // The abort hint comes from the session entry, whatever the next turn's entry point.
        let mut plain = t.clone();
        plain.abort_hint = false;
        return plan::map_turn(p, i, &plain, s);
    }
    let message = message(t)?;
    for r in &t.model {
        let planned = plan::model_reply(r, p, s.setup.context_window)?;
        p.replies.push(plan::PlannedReply { step: Some(i), ..planned });
    }
    let system_events = plan::system_events(t)?;
    p.steps.push(PlanStep::ChannelTurn { step: i, session_key, timeout_ms: plan::STEP_TIMEOUT_MS, message, system_events });
    Ok(())
}
