//! Steps that act on a run while it is inside a model call or a tool call: a
//! message steered into the running turn, a user abort. The mock provider
//! holds that call's answer, or the bridge keeps that tool call running
//! (`clawspec_mock_providers::hold`), until the gateway acknowledged the
//! action, so where the action lands is decided by the script, not by timing.

use super::plan::{InFlight, NotDrivable, Plan};
use crate::scenario::model::{ModelErrorKind, ModelReply, TurnSpec};

fn nd<T>(why: impl Into<String>) -> Result<T, NotDrivable> {
    Err(NotDrivable(why.into()))
}

/// A steered completion announce is a subagent's own completion on the real host.
pub const STEERED_ANNOUNCE: &str = "a steered completion announce is the completion of a live child run (started by a sessions_spawn tool call earlier in the run), which the gateway steers in itself; the scenario scripts the completion without that run; not mapped yet";

/// The host actions for turn `t`, whose scripted replies start at
/// `p.replies[first]`; tags the replies to hold.
pub fn plan_turn(p: &mut Plan, t: &TurnSpec, first: usize) -> Result<Vec<InFlight>, NotDrivable> {
    let mut out = Vec::new();
    let aborted_at = t.model.iter().position(|r| matches!(r, ModelReply::Full(m) if m.error.as_ref().is_some_and(|e| e.kind == ModelErrorKind::Aborted)));
    // Holds are minted in call order, so the driver meets them in that order.
    let mut steers: Vec<_> = t.steer.iter().collect();
    steers.sort_by_key(|st| st.at);
    for st in steers {
        if st.announce.is_some() {
            return nd(STEERED_ANNOUNCE);
        }
        // A steer is delivered between model calls; "before call 1" is the
        // turn's own prompt, not something the running loop can inject.
        if st.at < 2 || st.at > t.model.len() {
            return nd(format!("a steer at model call {} of a turn with {} scripted calls: the running loop takes steered messages between its model calls (2..={})", st.at, t.model.len(), t.model.len()));
        }
        if aborted_at.is_some_and(|a| st.at > a) {
            return nd("a steer after the user's abort: the aborted run makes no further model call");
        }
        let hold = hold_before(p, first + st.at - 2);
        out.push(InFlight::Steer { hold, message: st.text.clone().unwrap_or_default() });
    }
    if let Some(a) = aborted_at {
        if a + 1 != t.model.len() {
            return nd("scripted model replies after the user's abort: chat.abort ends the run");
        }
        let hold = hold_reply(p, first + a);
        out.push(InFlight::Abort { hold });
    }
    out.sort_by_key(InFlight::hold);
    Ok(out)
}

/// Where a steer that must land before the model call after reply `index`
/// waits. The runtime checks for steered input immediately before each tool
/// call starts and skips the unstarted calls when one is waiting, and takes
/// it after a running call finishes, before the next model call
/// (openclaw docs/concepts/queue-steering.md "Runtime boundary";
/// dist/agent-core-*.mjs "Skipped to process an incoming message."). So when
/// reply `index` calls tools, its last tool call is held running (the bridge's
/// tool-result middleware pauses on the hold); a reply without tool calls is
/// held itself, and the loop takes the steer after that answer.
fn hold_before(p: &mut Plan, index: usize) -> u64 {
    let Some(last) = p.replies[index].tool_calls.last().and_then(|c| c["id"].as_str()).map(str::to_string) else {
        return hold_reply(p, index);
    };
    let Some(r) = p.tool_results.iter().position(|r| r.tool_call_id == last) else {
        return hold_reply(p, index);
    };
    if let Some(h) = p.tool_results[r].hold {
        return h;
    }
    p.holds += 1;
    p.tool_results[r].hold = Some(p.holds);
    p.holds
}

/// The hold id of reply `index` (minted once, shared by actions on the same call).
fn hold_reply(p: &mut Plan, index: usize) -> u64 {
    if let Some(h) = p.replies[index].hold {
        return h;
    }
    p.holds += 1;
    p.replies[index].hold = Some(p.holds);
    p.holds
}

#[cfg(test)]
mod tests {
    use super::super::plan::{plan, PlanStep};
    use super::*;
    use rstest::rstest;

    use super::super::plan::scenario_from_script as scenario;

    fn in_flight(p: &Plan, step: usize) -> Vec<InFlight> {
        match &p.steps[step] {
            PlanStep::Turn { in_flight, .. } => in_flight.clone(),
            other => panic!("not a turn: {other:?}"),
        }
    }

    #[test]
    fn a_steer_before_call_n_holds_call_n_minus_one() {
        let p = plan(&scenario(concat!(
            "  - turn: {user: a, model: [x]}\n",
            "  - turn: {user: go, model: [{tool_calls: [{name: read, arguments: {path: a}, result: A}]}, {tool_calls: [{name: read, arguments: {path: b}, result: B}]}, done], steer: [{at: 3, text: later}, {at: 2, text: stop}, {at: 2, text: also}]}\n",
        )))
        .expect("drivable");
        let holds: Vec<_> = p.tool_results.iter().map(|r| r.hold).collect();
        assert_eq!(holds, [Some(1), Some(2)], "the tool of call 1 keeps running for the steers at 2, the tool of call 2 for the one at 3");
        assert!(p.replies.iter().all(|r| r.hold.is_none()), "model answers are not held when a tool is");
        assert_eq!(
            in_flight(&p, 1),
            [
                InFlight::Steer { hold: 1, message: "stop".into() },
                InFlight::Steer { hold: 1, message: "also".into() },
                InFlight::Steer { hold: 2, message: "later".into() },
            ],
            "grouped by the call they wait for, scripted order within a call"
        );
        assert!(in_flight(&p, 0).is_empty());
        assert_eq!(p.holds, 2);
        let json = serde_json::to_value(&p.steps[1]).unwrap();
        assert_eq!(json["inFlight"][0], serde_json::json!({"action": "steer", "hold": 1, "message": "stop"}));
        assert!(serde_json::to_value(&p.steps[0]).unwrap().get("inFlight").is_none());
    }

    #[test]
    fn a_steer_after_a_text_answer_holds_that_answer() {
        let p = plan(&scenario("  - turn: {user: go, model: [first, second], steer: [{at: 2, text: more}]}\n")).expect("drivable");
        assert_eq!(p.replies.iter().map(|r| r.hold).collect::<Vec<_>>(), [Some(1), None]);
        assert_eq!(in_flight(&p, 0), [InFlight::Steer { hold: 1, message: "more".into() }]);
    }

    #[test]
    fn a_user_abort_holds_the_aborted_call() {
        let p = plan(&scenario(concat!(
            "  - turn: {user: go, model: [{tool_calls: [{name: exec, arguments: {command: x}, result: started}]}, {error: {kind: aborted}}]}\n",
            "  - turn: {user: status?, model: [fine]}\n",
        )))
        .expect("drivable");
        assert_eq!(in_flight(&p, 0), [InFlight::Abort { hold: 1 }]);
        assert_eq!(p.replies[1].hold, Some(1));
        assert!(p.replies[1].error.is_none(), "the held answer is never delivered; it is no scripted failure");
        assert!(in_flight(&p, 1).is_empty());
    }

    #[rstest]
    #[case::steer_first_call("  - turn: {user: hi, model: [a, b], steer: [{at: 1, text: x}]}\n", "at model call 1")]
    #[case::steer_announce("  - turn: {user: hi, model: [a, b], steer: [{at: 2, announce: {child: c, task: t}}]}\n", "live child run")]
    #[case::after_abort("  - turn: {user: hi, model: [{error: {kind: aborted}}, b]}\n", "after the user's abort")]
    fn what_cannot_be_held_says_why(#[case] script: &str, #[case] reason: &str) {
        let w = plan(&scenario(script)).expect_err("not drivable").0;
        assert!(w.contains(reason), "{w}");
    }
}
