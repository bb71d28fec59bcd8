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

use super::plan::{self, InFlight, NotDrivable, Plan, PlanStep};
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
    if !t.media.is_empty() {
        return Err(NotDrivable(MEDIA_BY_PATH.into()));
    }
    if channel && (t.image || !t.steer.is_empty()) {
        return Err(NotDrivable("a channel message with an inline image or steered messages: not mapped yet".into()));
    }
    let session_key = s.setup.session_key.clone();
    p.limit(super::limits::ReleaseLimit::ChannelMessage);
    if t.abort_hint && previous_turn_aborted(p) {
        return Err(NotDrivable(ABORTED_RUN_CLEARS_HINT.into()));
    }
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

/// Media by path reach the real host as a channel message's media facts, but
/// the host then runs media understanding on each file (observed with
/// `clawspec twin prompt-media-multiple`: the files at the scenario's paths
/// do not exist, so the body gains `<file name="doc.pdf">[Attachment could
/// not be read]</file>` and `[Audio attachment could not be analyzed]`, and
/// the stored message keeps the bare body plus `__openclaw.media` facts and an
/// image layout), none of which the reference models yet.
pub const MEDIA_BY_PATH: &str = "media by path: the channel delivers them, but 2026.9.6 runs media understanding on each file (the scenario's files do not exist on the host: '[Attachment could not be read]' / '[Audio attachment could not be analyzed]' join the body, twinned) and stores media facts on the message; the reference models neither yet";

/// openclaw 2026.9.6 ends a `chat.send` run with `abortedLastRun: status ===
/// "killed"` (dist/chat-send-handler-*.mjs), after the stop command set it, so
/// a run the user stops mid-loop leaves no hint for the next turn; observed
/// with `clawspec twin user-abort-mid-loop` (the channel's /stop sent while
/// the held model call was in flight: "Agent was aborted.", next prompt
/// without the hint). A /stop after the aborted run would be a second user
/// action the scenario does not script.
pub const ABORTED_RUN_CLEARS_HINT: &str = "abort_hint after a run the user aborted mid-loop: on 2026.9.6 the gateway's run finalization writes abortedLastRun: false for a chat.send run stopped by the channel's /stop (dist/chat-send-handler-*.mjs, twinned), so the next turn gets no hint; a second /stop would be an action the scenario does not script";

/// Was the last planned step a turn the user aborts in flight?
fn previous_turn_aborted(p: &Plan) -> bool {
    matches!(p.steps.last(), Some(PlanStep::Turn { in_flight, .. }) if in_flight.iter().any(|a| matches!(a, InFlight::Abort { .. })))
}

#[cfg(test)]
mod tests {
    use super::super::plan::{plan, InFlight, PlanStep};

    use super::super::plan::scenario_from_script as scenario;

    #[test]
    fn a_turn_with_channel_facts_is_a_channel_message_with_them() {
        let p = plan(&scenario("  - turn: {user: hi, conversation: {message_id: m1, group_subject: Ops}, sender: {name: Mara}, untrusted_context: [a, b], thread_history: \"x: y\", system_events: [done], model: [ok]}\n")).expect("drivable");
        let json = serde_json::to_value(&p.steps[0]).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "channelTurn", "step": 0, "sessionKey": "agent:main:main", "timeoutMs": 60_000, "body": "hi", "chatType": "group", "messageId": "m1",
                "sender": {"name": "Mara"}, "groupSubject": "Ops", "untrustedContext": ["a", "b"], "threadHistory": "x: y", "systemEvents": ["done"]})
        );
        assert_eq!(p.replies.len(), 1);
    }

    #[test]
    fn a_fact_no_channel_reports_is_not_drivable() {
        let w = plan(&scenario("  - turn: {user: hi, conversation: {topic: x}, model: [ok]}\n")).expect_err("not drivable").0;
        assert!(w.contains("conversation.topic"), "{w}");
    }

    #[test]
    fn the_abort_hint_is_the_channels_stop_before_the_turn() {
        let p = plan(&scenario("  - turn: {user: hi, abort_hint: true, model: [ok]}\n")).expect("drivable");
        assert!(matches!(&p.steps[0], PlanStep::ChannelTurn { message, .. } if message.body == "/stop"));
        assert!(matches!(&p.steps[1], PlanStep::Turn { message, .. } if message == "hi"), "the turn itself stays a chat.send");
        assert_eq!(p.steps.len(), 2);
    }

    #[test]
    fn an_abort_hint_after_an_abort_mid_run_says_why_not() {
        let w = plan(&scenario(concat!(
            "  - turn: {user: go, model: [{tool_calls: [{name: exec, arguments: {command: x}, result: started}]}, {error: {kind: aborted}}]}\n",
            "  - turn: {user: status?, abort_hint: true, model: [fine]}\n",
        )))
        .expect_err("not drivable")
        .0;
        assert!(w.contains("abortedLastRun: false"), "{w}");
        let p = plan(&scenario("  - turn: {user: go, model: [{tool_calls: [{name: exec, arguments: {command: x}, result: started}]}, {error: {kind: aborted}}]}\n")).unwrap();
        assert!(matches!(&p.steps[0], PlanStep::Turn { in_flight, .. } if in_flight == &[InFlight::Abort { hold: 1 }]));
    }
}
