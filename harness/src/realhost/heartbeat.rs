//! A scripted `heartbeat` step on the real host: an event-free scheduled
//! heartbeat poll, run now through the gateway's own automation RPC.
//!
//! openclaw 2026.9.6 owns the heartbeat cadence in its automation scheduler:
//! one system-owned job per heartbeat-enabled agent whose payload kind is
//! `heartbeat` (docs/gateway/heartbeat.md "Under the hood";
//! docs/automation/cron-jobs/payloads.md "System-owned monitor jobs"). A
//! manual `cron.run {id, mode: "force"}` of that job (docs/cli/cron.md
//! "Manual runs"; dist/src-*.mjs CronRunParamsSchema) executes the job's
//! payload as its scheduled tick does: dist/service-*.mjs (`payload.kind ===
//! "heartbeat"`) requests the heartbeat with `{source: "interval", intent:
//! "scheduled", reason: "interval", scheduledEveryMs}` and no event text, and
//! dist/heartbeat-runner-scheduler-*.mjs never defers such an authoritative
//! tick on cooldown (`nextDueMs: now`; only the flood guard, five runs in
//! 60 s, would). So it is the plain poll the scenario scripts, at a moment
//! the driver chooses, where the on-demand `wake` / `system-event` triggers
//! always carry an event text.
//!
//! The host config enables heartbeats for the step (`agents.defaults.heartbeat`:
//! a cadence far beyond the run, so no tick fires by itself, and `target:
//! "none"` so the poll is not skipped as `no-route` for want of an owner DM,
//! docs/gateway/heartbeat.md "Defaults"). The poll runs in the agent's main
//! session (docs/gateway/heartbeat.md: "Scheduled polls use the configured
//! heartbeat session, which is the agent's main session by default").

use serde_json::json;

use super::plan::{NotDrivable, Plan, PlanStep, PlannedReply};
use crate::scenario::model::{HeartbeatSpec, Scenario};

/// The heartbeat cadence configured for a scenario with heartbeat steps:
/// long enough that no scheduled tick fires during a run.
pub const HEARTBEAT_EVERY: &str = "24h";

/// How long a heartbeat step may take (the cron run plus its agent run).
const HEARTBEAT_TIMEOUT_MS: u64 = 60_000;

/// Map one `heartbeat` script step: the plan step, its scripted model answer,
/// the heartbeat config, and the release limit.
pub fn plan_step(p: &mut Plan, i: usize, h: &HeartbeatSpec, s: &Scenario) -> Result<(), NotDrivable> {
    let main = format!("agent:{}:main", s.setup.agent_id);
    if s.setup.session_key != main {
        return Err(NotDrivable(format!(
            "a heartbeat in session {:?}: the scheduled poll runs in the agent's main session {main:?} (docs/gateway/heartbeat.md)",
            s.setup.session_key
        )));
    }
    // The default answer is 2026.9.6's acknowledgement (the default prompt says
    // "reply NO_REPLY", dist/heartbeat-*.mjs); only releases with the heartbeat
    // monitor job get here (`ReleaseLimit::HeartbeatMonitor`), all of them 2026.9+.
    let reply = h.reply.clone().unwrap_or_else(|| clawspec_contract::markers::NO_REPLY.to_string());
    p.replies.push(PlannedReply { step: Some(i), text: reply, ..Default::default() });
    p.limit(super::limits::ReleaseLimit::HeartbeatMonitor);
    p.setup.agent_defaults.insert("heartbeat".into(), json!({"every": HEARTBEAT_EVERY, "target": "none"}));
    p.steps.push(PlanStep::Heartbeat { step: i, agent_id: s.setup.agent_id.clone(), session_key: main, timeout_ms: HEARTBEAT_TIMEOUT_MS, every: None, restore_every: None, default_ack: h.reply.is_none() });
    Ok(())
}

/// The heartbeat cadence of a 2026.4.x row without heartbeat steps, so that
/// the gateway's runner never polls by itself during the row. Unset, the
/// runner polls every 30 minutes (dist/heartbeat-summary-*.js
/// `resolveHeartbeatIntervalMs`: `?? "30m"`) at a phase drawn from the
/// gateway's device id (dist/heartbeat-runner-*.js `resolveHeartbeatPhaseMs`:
/// sha256(seed:agentId) % interval; `computeNextHeartbeatPhaseDueMs`), i.e.
/// anywhere in the next 30 minutes after start: a gateway serving rows for
/// minutes ran an unscripted `[OpenClaw heartbeat poll]` in some row (the
/// 2026.4.26 shared-gateway groups that flaked in the CI gate, stop 28). At
/// 480 h the chance is the gateway's lifetime over 20 days, and the delay
/// stays under Node's setTimeout cap (2^31−1 ms ≈ 596 h; the runner clamps
/// and logs beyond it). A heartbeat-enabled agent either way: the prompts
/// do not change.
pub const QUIET_EVERY_4X: &str = "480h";

/// The heartbeat cadence a 2026.4.x heartbeat step reloads into the config:
/// the runner's next tick falls within it (below). The runner plans the tick
/// after that one interval after its start, so the interval also bounds how
/// long the restored cadence may take to reach the runner (lib/heartbeat.js
/// restores it when the tick's run starts; the file watcher's reload took up
/// to ~7 s on a loaded machine, and with 10 s a second, unscripted poll ran).
pub const HEARTBEAT_EVERY_4X_STEP: &str = "20s";

/// A 2026.4.x heartbeat step is the heartbeat runner's own scheduled tick.
///
/// 2026.4.26 has no monitor job and its on-demand triggers carry an event
/// text (`wake` requires a non-empty `text`, dist/protocol-*.js
/// WakeParamsSchema; `system-event` answers "text required",
/// dist/server-methods-*.js), but its runner (dist/heartbeat-runner-*.js
/// `startHeartbeatRunner`) re-plans on every config reload
/// (`updateConfig`; `agents.defaults.heartbeat` is a hot-reload path,
/// dist/presence-events-*.js, applied by server.impl-*.js
/// `heartbeatRunner.updateConfig`): the next due time becomes
/// `computeNextHeartbeatPhaseDueMs`, within one interval of now, and the
/// timer then fires `requestHeartbeatNow({reason: "interval"})` — the plain
/// scheduled poll, no event text. So the step `config.patch`es `every` down to
/// [`HEARTBEAT_EVERY_4X_STEP`], patches it back to [`HEARTBEAT_EVERY`] as soon
/// as that tick's agent run starts, and waits for the tick's `heartbeat`
/// event (`last-heartbeat`) (lib/heartbeat.js). The default ack is this release's
/// `HEARTBEAT_OK` (its prompt: "If nothing needs attention, reply
/// HEARTBEAT_OK.", `HEARTBEAT_PROMPT_2026_4`).
pub fn for_release(p: &mut Plan, version: &str) {
    if !version.starts_with("2026.4.") {
        return;
    }
    if !p.steps.iter().any(|s| matches!(s, PlanStep::Heartbeat { .. })) {
        p.setup.agent_defaults.insert("heartbeat".into(), json!({"every": QUIET_EVERY_4X}));
    }
    let mut acks = Vec::new();
    for st in &mut p.steps {
        if let PlanStep::Heartbeat { step, every, restore_every, default_ack, .. } = st {
            *every = Some(HEARTBEAT_EVERY_4X_STEP.to_string());
            *restore_every = Some(HEARTBEAT_EVERY.to_string());
            if *default_ack {
                acks.push(*step);
            }
        }
    }
    for r in &mut p.replies {
        if r.step.is_some_and(|s| acks.contains(&s)) && r.text == clawspec_contract::markers::NO_REPLY {
            r.text = clawspec_contract::markers::HEARTBEAT_OK.to_string();
        }
    }
}

/// Whether a provider request body is a heartbeat run's: its prompt is the
/// 2026.9.6 heartbeat prompt (the transcript keeps only `[OpenClaw heartbeat
/// poll]`, so later requests do not carry it).
pub fn is_heartbeat_request(body: &serde_json::Value) -> bool {
    let b = body.to_string();
    b.contains(clawspec_contract::markers::HEARTBEAT_PROMPT) || b.contains(clawspec_contract::markers::HEARTBEAT_PROMPT_2026_4)
}

/// Whether a request opens a heartbeat run: its last message is the poll's
/// prompt (later model calls of the same run end with tool results).
pub fn opens_heartbeat_run(body: &serde_json::Value) -> bool {
    body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| {
        let m = m.to_string();
        m.contains(clawspec_contract::markers::HEARTBEAT_PROMPT) || m.contains(clawspec_contract::markers::HEARTBEAT_PROMPT_2026_4)
    })
}

#[cfg(test)]
mod tests {
    use super::super::limits::ReleaseLimit;
    use super::super::plan::plan;
    use super::*;

    fn scenario(extra_setup: &str, script: &str) -> Scenario {
        let src = format!("id: t\ntitle: t\ndescription: t\n{extra_setup}script:\n{script}");
        crate::scenario::load::parse(std::path::Path::new("t.yaml"), &src).expect("test scenario parses").scenario
    }

    #[test]
    fn a_heartbeat_is_a_forced_run_of_the_monitor_job_with_its_scripted_answer() {
        let p = plan(&scenario("", "  - heartbeat: {}\n  - heartbeat: {reply: stuck deploy}\n  - turn: {user: hi, model: [ok]}\n")).expect("drivable");
        let json = serde_json::to_value(&p.steps[0]).unwrap();
        assert_eq!((json["kind"].as_str(), json["sessionKey"].as_str(), json["agentId"].as_str()), (Some("heartbeat"), Some("agent:main:main"), Some("main")));
        let texts: Vec<_> = p.replies.iter().map(|r| (r.step, r.text.as_str())).collect();
        assert_eq!(texts, [(Some(0), "NO_REPLY"), (Some(1), "stuck deploy"), (Some(2), "ok")], "the 2026.9.6 ack by default, the scripted reply otherwise");
        assert!(p.release_limits.contains(&ReleaseLimit::HeartbeatMonitor));
        assert_eq!(p.setup.agent_defaults["heartbeat"], json!({"every": "24h", "target": "none"}));
    }

    #[test]
    fn on_2026_4_a_heartbeat_is_the_runners_interval_tick_answered_heartbeat_ok() {
        let mut p = plan(&scenario("", "  - heartbeat: {}\n  - heartbeat: {reply: stuck deploy}\n  - turn: {user: hi, model: [ok]}\n")).expect("drivable");
        let nine = p.clone();
        for_release(&mut p, "2026.9.6");
        assert_eq!(serde_json::to_value(&p.steps).unwrap(), serde_json::to_value(&nine.steps).unwrap(), "2026.9 keeps the monitor job");
        assert!(serde_json::to_value(&p.steps[0]).unwrap().get("every").is_none());
        for_release(&mut p, "2026.4.26");
        let json = serde_json::to_value(&p.steps[0]).unwrap();
        assert_eq!((json["every"].as_str(), json["restoreEvery"].as_str()), (Some("20s"), Some("24h")));
        let texts: Vec<_> = p.replies.iter().map(|r| (r.step, r.text.as_str())).collect();
        assert_eq!(texts, [(Some(0), "HEARTBEAT_OK"), (Some(1), "stuck deploy"), (Some(2), "ok")], "the 2026.4.26 ack by default, the scripted reply kept");
        assert!(crate::realhost::limits::check_all(&p.release_limits, "2026.4.26").is_ok());
        let hb = json!({"messages": [{"role": "user", "content": format!("{}\nCurrent time: x", clawspec_contract::markers::HEARTBEAT_PROMPT_2026_4)}]});
        assert!(is_heartbeat_request(&hb) && opens_heartbeat_run(&hb));
    }

    #[test]
    fn a_2026_4_row_without_heartbeats_gets_a_cadence_that_never_polls_during_it() {
        let mut p = plan(&scenario("", "  - turn: {user: hi, model: [ok]}\n")).expect("drivable");
        let nine = p.clone();
        for_release(&mut p, "2026.9.6");
        assert_eq!(p.setup.agent_defaults, nine.setup.agent_defaults, "2026.9 unchanged");
        for_release(&mut p, "2026.4.26");
        assert_eq!(p.setup.agent_defaults["heartbeat"], json!({"every": "480h"}));
        let mut hb = plan(&scenario("", "  - heartbeat: {}\n")).expect("drivable");
        for_release(&mut hb, "2026.4.26");
        assert_eq!(hb.setup.agent_defaults["heartbeat"], json!({"every": "24h", "target": "none"}), "a heartbeat row keeps its own");
    }

    #[test]
    fn heartbeat_requests_are_told_by_their_prompt() {
        let hb = json!({"messages": [{"role": "user", "content": format!("{}\nCurrent time: x", clawspec_contract::markers::HEARTBEAT_PROMPT)}]});
        assert!(is_heartbeat_request(&hb));
        assert!(opens_heartbeat_run(&hb));
        let follow_up = json!({"messages": [hb["messages"][0].clone(), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}]});
        assert!(is_heartbeat_request(&follow_up) && !opens_heartbeat_run(&follow_up), "a later call of the same run");
        assert!(!is_heartbeat_request(&json!({"messages": [{"role": "user", "content": "[OpenClaw heartbeat poll]"}, {"role": "user", "content": "Which deploy?"}]})));
    }

    #[test]
    fn turns_alone_leave_heartbeats_unconfigured() {
        let p = plan(&scenario("", "  - turn: {user: hi, model: [ok]}\n")).expect("drivable");
        assert!(!p.setup.agent_defaults.contains_key("heartbeat"));
    }

    #[test]
    fn a_heartbeat_outside_the_main_session_says_why() {
        let why = plan(&scenario("setup: {session_key: 'agent:main:work'}\n", "  - heartbeat: {}\n")).unwrap_err().0;
        assert!(why.contains("main session"), "{why}");
    }
}
