//! Which scenario steps a real OpenClaw gateway can be driven to reproduce,
//! and how. A step that cannot be reproduced through the gateway's own client
//! protocol makes the whole scenario *not drivable*, with the reason: it is
//! never faked (no hand-written call injected into the host).

use serde::Serialize;

use crate::scenario::model::{ModelReply, Scenario, Step, TurnSpec};

/// One step of the drive plan the host runner executes (`host-runner.mjs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PlanStep {
    /// A user message through `chat.send`, then `agent.wait` for the run.
    #[serde(rename_all = "camelCase")]
    Turn { step: usize, session_key: String, message: String, timeout_ms: u64 },
}

/// A scripted model answer for the mock provider, in call order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlannedReply {
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub steps: Vec<PlanStep>,
    pub replies: Vec<PlannedReply>,
    /// The session state and host config the scenario's `setup` asks for.
    pub setup: super::seed::HostSetup,
}

/// Why a scenario cannot be driven on the real host.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NotDrivable(pub String);

fn nd<T>(why: impl Into<String>) -> Result<T, NotDrivable> {
    Err(NotDrivable(why.into()))
}

pub fn plan(s: &Scenario) -> Result<Plan, NotDrivable> {
    let setup = &s.setup;
    let host_setup = super::seed::host_setup(setup)?;
    if setup.provider != "anthropic" || setup.api != "anthropic-messages" {
        return nd(format!("setup.provider {}/{}: the real-host mock provider speaks anthropic-messages only so far", setup.provider, setup.api));
    }
    if setup.http_provider.is_some() {
        return nd("setup.http_provider: the real host always talks to the mock provider over HTTP; provider-specific wire scenarios are twinned on anthropic only");
    }
    if !setup.client_tools.is_empty() {
        return nd("setup.client_tools: client-provided tools need a client that declares them on chat.send");
    }
    if !setup.admitted_turns {
        return nd("setup.admitted_turns: false — every chat.send through the gateway is an admitted turn");
    }
    let mut steps = Vec::new();
    let mut replies = Vec::new();
    for (i, step) in s.script.iter().enumerate() {
        match step {
            Step::Turn(t) => {
                turn_drivable(t).map_err(|NotDrivable(why)| NotDrivable(format!("step {i} (turn): {why}")))?;
                for r in &t.model {
                    replies.push(reply(r).map_err(|NotDrivable(why)| NotDrivable(format!("step {i} (turn): {why}")))?);
                }
                steps.push(PlanStep::Turn { step: i, session_key: setup.session_key.clone(), message: t.user.clone(), timeout_ms: 60_000 });
            }
            other => return nd(format!("step {i} ({}): not mapped to a gateway action yet", step_kind(other))),
        }
    }
    if steps.is_empty() {
        return nd("the script has no step");
    }
    Ok(Plan { steps, replies, setup: host_setup })
}

fn turn_drivable(t: &TurnSpec) -> Result<(), NotDrivable> {
    let unsupported = [
        (t.conversation.is_some() || t.sender.is_some(), "inbound metadata needs a channel plugin message, not chat.send"),
        (t.abort_hint, "abort_hint needs a previously aborted run"),
        (!t.system_events.is_empty(), "system events need the gateway's system-event queue"),
        (!t.untrusted_context.is_empty() || t.thread_history.is_some(), "untrusted context / thread history need a channel message"),
        (!t.media.is_empty() || t.image, "media attachments are not sent through chat.send yet"),
        (t.admitted == Some(false), "non-admitted turns need a non-gateway entry point"),
        (!t.steer.is_empty(), "steering needs a concurrent send while the tool loop runs"),
        (t.commit_replay, "commit_replay simulates a host crash between commitTurn and the outbox"),
        (t.fallback.is_some(), "model fallback needs a second configured model"),
        (t.user.trim().is_empty(), "an empty user message is rejected by chat.send"),
        (t.user.trim_start().starts_with('/'), "slash commands are handled by the gateway's command layer"),
    ];
    match unsupported.iter().find(|(hit, _)| *hit) {
        Some((_, why)) => nd(*why),
        None if t.model.is_empty() => nd("a turn without a scripted model reply"),
        None => Ok(()),
    }
}

fn reply(r: &ModelReply) -> Result<PlannedReply, NotDrivable> {
    match r {
        ModelReply::Text(t) => Ok(PlannedReply { text: t.clone() }),
        ModelReply::Full(m) => {
            if !m.tool_calls.is_empty() {
                return nd("tool calls: the real host executes the tools for real, so their results cannot follow the script");
            }
            if m.error.is_some() {
                return nd("scripted provider errors (overflow, timeout …) are not answered by the real-host mock yet");
            }
            if m.thinking.is_some() || m.redacted {
                return nd("thinking blocks are not streamed by the real-host mock yet");
            }
            Ok(PlannedReply { text: m.text.clone().unwrap_or_default() })
        }
    }
}

fn step_kind(s: &Step) -> &'static str {
    match s {
        Step::Turn(_) => "turn",
        Step::Announce(_) => "announce",
        Step::Collect(_) => "collect",
        Step::InterSession(_) => "inter_session",
        Step::Heartbeat(_) => "heartbeat",
        Step::Compact(_) => "compact",
        Step::Spawn(_) => "spawn",
        Step::SubagentEnded(_) => "subagent_ended",
        Step::SwitchModel(_) => "switch_model",
        Step::OrphanUser(_) => "orphan_user",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(id: &str) -> Scenario {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        crate::scenario::load_dir(&dir).expect("library loads").into_iter().find(|l| l.scenario.id == id).expect("scenario in the library").scenario
    }

    #[test]
    fn pre_existing_sessions_are_planned_as_seeds() {
        let empty = plan(&library("existing-empty-session")).expect("drivable");
        assert_eq!(empty.setup.seed.as_ref().map(|s| s.messages.len()), Some(0));
        let budget = plan(&library("host-context-token-budget")).expect("drivable");
        assert!(budget.setup.seed.as_ref().is_some_and(|s| !s.messages.is_empty()));
        assert!(budget.setup.agent_defaults.contains_key("contextTokens"));
        assert!(plan(&library("new-session-no-bootstrap")).expect("drivable").setup.seed.is_none());
    }

    /// Prints why each library scenario is not drivable (run with --nocapture).
    #[test]
    fn library_drivability_census() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let all = crate::scenario::load_dir(&dir).expect("library loads");
        let mut reasons = std::collections::BTreeMap::<String, usize>::new();
        let releases = ["2026.4.26", "2026.9.6"];
        let mut drivable = [0usize; 2];
        for l in &all {
            match plan(&l.scenario) {
                Err(NotDrivable(why)) => {
                    let key = why.split(": ").skip_while(|p| p.starts_with("step ")).collect::<Vec<_>>().join(": ");
                    *reasons.entry(key).or_default() += 1;
                }
                Ok(p) => {
                    for (i, r) in releases.iter().enumerate() {
                        match (&p.setup.seed, super::super::seed::release_supports_seed(r)) {
                            (Some(_), Err(NotDrivable(why))) => *reasons.entry(format!("[{r} only] {}", why.split(": ").last().unwrap_or(&why))).or_default() += 1,
                            _ => {
                                drivable[i] += 1;
                                eprintln!("drivable on openclaw@{r}: {}{}", l.scenario.id, if p.setup.seed.is_some() { " (seeded)" } else { "" });
                            }
                        }
                    }
                }
            }
        }
        for (r, n) in &reasons {
            eprintln!("{n:3} {r}");
        }
        for (r, n) in releases.iter().zip(drivable) {
            eprintln!("drivable on openclaw@{r}: {n} of {}", all.len());
        }
    }
}
