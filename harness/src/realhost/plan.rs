//! Which scenario steps a real OpenClaw gateway can be driven to reproduce,
//! and how. A step that cannot be reproduced through the gateway's own client
//! protocol makes the whole scenario *not drivable*, with the reason: it is
//! never faked (no hand-written call injected into the host).

use serde::Serialize;

use crate::scenario::model::{ModelErrorKind, ModelReply, Scenario, Step, TurnSpec};

/// One step of the drive plan the host runner executes (`host-runner.mjs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PlanStep {
    /// A user message through `chat.send`, then `agent.wait` for the run.
    #[serde(rename_all = "camelCase")]
    Turn {
        step: usize,
        session_key: String,
        message: String,
        timeout_ms: u64,
        /// chat.send `attachments` (dist/sessions-*.mjs ChatAttachmentSchema).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment>,
        /// Host actions taken while a model call of this run is held (`hold`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        in_flight: Vec<InFlight>,
        /// System events queued on the session before the turn, one
        /// `system-event {text, sessionKey}` RPC each (docs/gateway/protocol/rpc-system-and-channels.md;
        /// dist/system-*.mjs: without `wake` the text is only enqueued, and the
        /// next turn drains it).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        system_events: Vec<String>,
    },
    /// A gateway slash command with no model reply of its own (`/compact
    /// [instructions]`) through `chat.send`; waits for the command's run.
    #[serde(rename_all = "camelCase")]
    Command { step: usize, session_key: String, message: String, timeout_ms: u64 },
    /// A user message on the bridge's `clawspec` channel (`realhost::channel`):
    /// the `clawspec.channel.inbound` RPC, which resolves when the host's reply
    /// dispatch for it has settled.
    #[serde(rename_all = "camelCase")]
    ChannelTurn {
        step: usize,
        session_key: String,
        timeout_ms: u64,
        #[serde(flatten)]
        message: super::channel::ChannelMessage,
        /// As for [`PlanStep::Turn`]: queued through the RPC before the message.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        system_events: Vec<String>,
    },
    /// `sessions.patch {key, model}` (`realhost::providers::ModelSwitch`).
    #[serde(rename_all = "camelCase")]
    SwitchModel { step: usize, session_key: String, model: String },
    /// A run the host starts by itself in `session_key` — a subagent's
    /// completion announce after a `sessions_spawn` tool call of an earlier
    /// turn (docs/tools/subagents/announce.md: top-level requesters get a
    /// follow-up `agent` call): the runner waits for the next run of that
    /// session it did not start, then `agent.wait`s it.
    #[serde(rename_all = "camelCase")]
    AwaitRun {
        step: usize,
        session_key: String,
        timeout_ms: u64,
        /// An engine call the host makes after the run, without a run of its
        /// own, that belongs to this step: the child's cleanup
        /// (`onSubagentEnded`) follows its announce run. The runner waits for
        /// it when the engine implements it (lib/runs.js `awaitCall`).
        #[serde(skip_serializing_if = "Option::is_none")]
        await_call: Option<String>,
    },
    /// A message another session routes in: the gateway's `agent` RPC with
    /// `inputProvenance` (`realhost::inter_session`), then `agent.wait`.
    #[serde(rename_all = "camelCase")]
    InterSession { step: usize, session_key: String, message: String, input_provenance: serde_json::Value, timeout_ms: u64 },
    /// An event-free scheduled heartbeat poll, run now: `cron.run {mode:
    /// "force"}` of the agent's system-owned heartbeat monitor job, then the
    /// run's outcome from `cron.runs` (`realhost::heartbeat`).
    #[serde(rename_all = "camelCase")]
    Heartbeat {
        step: usize,
        agent_id: String,
        session_key: String,
        timeout_ms: u64,
        /// 2026.4.x: the heartbeat runner's own interval tick, brought due by a
        /// hot-reloaded `agents.defaults.heartbeat.every` of this value
        /// (`realhost::heartbeat::for_release`); `None`: the monitor job (2026.9).
        #[serde(skip_serializing_if = "Option::is_none")]
        every: Option<String>,
        /// The cadence the step patches back afterwards (the configured one).
        #[serde(skip_serializing_if = "Option::is_none")]
        restore_every: Option<String>,
        /// The scenario scripts no reply: the mock answers the release's own ack.
        #[serde(skip)]
        default_ack: bool,
    },
}

/// A host action taken while the run's model call `hold` is in flight: the
/// driver waits until the call reached the mock provider, acts, waits for the
/// gateway's acknowledgement, then releases the held answer
/// (`clawspec_mock_providers::hold`). Deterministic: no timing involved.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum InFlight {
    /// `chat.send` with `queueMode: "steer"`: the gateway injects the message
    /// into the session's active run (docs/gateway/protocol/rpc-session-control.md;
    /// dist/chat-send-handler-*.mjs createChatSendMessageInjectionStarter,
    /// `steeringMode: "all"`); the agent loop delivers it before the next
    /// model call (`in_flight::hold_before` says what is held).
    Steer { hold: u64, message: String },
    /// `chat.abort {sessionKey, runId}` (dist/sessions-*.mjs ChatAbortParamsSchema):
    /// the user stops the run while the held call is in flight.
    Abort { hold: u64 },
}

impl InFlight {
    pub fn hold(&self) -> u64 {
        match self {
            InFlight::Steer { hold, .. } | InFlight::Abort { hold } => *hold,
        }
    }
}

/// A chat.send attachment: the scenario's inline image (`turn.image`), the
/// reference runtime's TINY_PNG, as a client pastes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    #[serde(rename = "type")]
    pub kind: String,
    pub mime_type: String,
    pub file_name: String,
    /// Base64 data.
    pub content: String,
}

fn image_attachment() -> Attachment {
    Attachment { kind: "image".into(), mime_type: "image/png".into(), file_name: "image.png".into(), content: crate::runtime::steps::TINY_PNG.into() }
}

/// How long one step may take on the real host.
pub(super) const STEP_TIMEOUT_MS: u64 = 60_000;

/// A scripted model answer for the mock provider, in call order: text,
/// thinking (signed or redacted), tool calls and scripted failures.
pub type PlannedReply = clawspec_mock_providers::server::Reply;

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub steps: Vec<PlanStep>,
    pub replies: Vec<PlannedReply>,
    /// `models.providers.<id>.timeoutSeconds` when a scripted timeout must
    /// trip the host's provider timeout (the mock holds its answer for
    /// [`TIMEOUT_HOLD_MS`]).
    pub provider_timeout_seconds: Option<u64>,
    /// The session state and host config the scenario's `setup` asks for.
    pub setup: super::seed::HostSetup,
    /// What each scripted tool call returns on the real host (`realhost::tools`).
    pub tool_results: Vec<super::tools::ScriptedToolResult>,
    /// Tool call ids minted so far for calls without a scripted id.
    minted_tool_ids: u64,
    /// What the steps need of the release (`realhost::limits`).
    pub release_limits: Vec<super::limits::ReleaseLimit>,
    /// The models `switch_model` steps move to, in order.
    pub model_switches: Vec<super::providers::ModelSwitch>,
    /// Hold ids handed out so far (`InFlight`); the run needs the hold front when > 0.
    pub holds: u64,
    /// Subagent runs the scenario starts (`realhost::spawn`): children get
    /// their own model id so the mock answers them with their scripted reply.
    pub spawns: super::spawn::Spawns,
}

/// Provider timeout set when a scenario scripts a timeout; the mock holds a
/// timed-out answer for [`TIMEOUT_HOLD_MS`], well past it.
pub const PROVIDER_TIMEOUT_SECONDS: u64 = 3;
pub const TIMEOUT_HOLD_MS: u64 = 10_000;

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
    super::providers::mock_for(&setup.provider, &setup.api, setup.http_provider.as_deref())?;
    if !setup.client_tools.is_empty() {
        return nd("setup.client_tools: client-provided tools need a client that declares them on chat.send");
    }
    if !setup.admitted_turns {
        return nd("setup.admitted_turns: false — every chat.send through the gateway is an admitted turn");
    }
    let mut p = Plan { steps: Vec::new(), replies: Vec::new(), provider_timeout_seconds: None, setup: host_setup, tool_results: Vec::new(), minted_tool_ids: 0, release_limits: Vec::new(), model_switches: Vec::new(), holds: 0, spawns: Default::default() };
    p.limit(super::limits::ReleaseLimit::ContextWindow(setup.context_window));
    // The context-token cap is the effective window the release's guard checks
    // (2026.9.6 models[].contextTokens: context-window-guard-*.mjs, source=modelsConfig).
    if let Some(cap) = setup.context_token_budget {
        p.limit(super::limits::ReleaseLimit::ContextWindow(cap.min(setup.context_window)));
    }
    for (i, step) in s.script.iter().enumerate() {
        map_step(&mut p, i, step, s).map_err(|NotDrivable(why)| NotDrivable(format!("step {i} ({}): {why}", step_kind(step))))?;
    }
    if p.steps.is_empty() {
        return nd("the script has no step");
    }
    if !p.spawns.spawns.is_empty() && !setup.tools.iter().any(|t| t == "sessions_spawn") {
        // tools.allow comes from setup.tools (realhost/seed.rs): without it the host answers "Tool sessions_spawn not found".
        return nd("a sessions_spawn tool call while setup.tools does not offer sessions_spawn");
    }
    Ok(p)
}

/// One script step → plan steps and mock replies.
fn map_step(p: &mut Plan, i: usize, step: &Step, s: &Scenario) -> Result<(), NotDrivable> {
    let setup = &s.setup;
    match step {
        // Expanded into ordinary turns at load time; never reaches a plan.
        Step::Generate(_) => nd("an unexpanded generate step"),
        Step::Turn(t) if super::channel::needs_channel(t) || t.abort_hint => super::channel::plan_turn(p, i, t, s),
        Step::Turn(t) => map_turn(p, i, t, s),
        Step::Compact(c) => {
            // `/compact [instructions]` (docs/tools/slash-commands.md; docs/concepts/compaction.md).
            let message = match c.instructions.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                Some(t) if t.contains('\n') => return nd("multi-line /compact instructions: the gateway's command parser reads one line"),
                Some(t) => format!("/compact {t}"),
                None => "/compact".to_string(),
            };
            p.steps.push(PlanStep::Command { step: i, session_key: setup.session_key.clone(), message, timeout_ms: STEP_TIMEOUT_MS });
            Ok(())
        }
        Step::SwitchModel(m) => {
            let switch = super::providers::ModelSwitch::new(i, m, setup)?;
            if !p.model_switches.is_empty() {
                return nd("a second switch_model: one switch per scenario is mapped so far");
            }
            p.steps.push(PlanStep::SwitchModel { step: i, session_key: setup.session_key.clone(), model: switch.model_ref() });
            p.model_switches.push(switch);
            Ok(())
        }
        Step::Heartbeat(h) => super::heartbeat::plan_step(p, i, h, s),
        Step::OrphanUser(_) => nd("an orphan user message is left by a host crash mid-run; the gateway's client protocol has no way to persist a user message without starting its run"),
        // Scripted tool calls reach real tools now (realhost::tools), but the
        // library scripts these host events without the tool call that starts
        // them on the real host, and with ids and stats the host mints itself.
        Step::Announce(a) => super::spawn::announce(p, i, a, s),
        Step::Collect(_) => nd(COLLECT_NOT_MAPPED),
        Step::Spawn(sp) if sp.launch_fails => nd(SPAWN_ROLLBACK_NOT_MAPPED),
        Step::Spawn(_) | Step::SubagentEnded(_) => nd(SPAWN_NOT_MAPPED),
        Step::InterSession(x) => super::inter_session::plan_step(p, i, x, s),
    }
}

/// A turn through `chat.send` (plus its in-flight actions).
pub(super) fn map_turn(p: &mut Plan, i: usize, t: &TurnSpec, s: &Scenario) -> Result<(), NotDrivable> {
    let setup = &s.setup;
    turn_drivable(t)?;
    if is_bare_reset(&t.user) {
        p.limit(super::limits::ReleaseLimit::BareResetTurn { empty_prompt_sent: setup.api == "openai-completions" });
    }
    // A turn whose script ends on a timeout relies on the host giving up.
    let last_is_timeout = t.model.last().is_some_and(|r| matches!(r, crate::scenario::model::ModelReply::Full(st) if st.error.as_ref().is_some_and(|e| e.kind == ModelErrorKind::Timeout)));
    if last_is_timeout {
        p.limit(super::limits::ReleaseLimit::TimeoutSurfaced);
    }
    let first = p.replies.len();
    for r in &t.model {
        let planned = model_reply(r, p, setup.context_window)?;
        p.replies.push(PlannedReply { step: Some(i), ..planned });
    }
    let in_flight = super::in_flight::plan_turn(p, t, first)?;
    let attachments = if t.image { vec![image_attachment()] } else { Vec::new() };
    let system_events = system_events(t)?;
    p.steps.push(PlanStep::Turn { step: i, session_key: setup.session_key.clone(), message: t.user.clone(), timeout_ms: STEP_TIMEOUT_MS, attachments, in_flight, system_events });
    Ok(())
}

/// An announce is the real child run's completion (realhost::spawn): it is
/// drivable when an earlier turn of the script calls sessions_spawn with the
/// same task.
pub const ANNOUNCE_NOT_MAPPED: &str = "a completion announce needs a live child run started by a sessions_spawn tool call (same task) of an earlier turn in this run; the scenario has the spawn only as seeded history or a separate spawn step";

/// A collect batch is several completions queued while the parent run is busy.
pub const COLLECT_NOT_MAPPED: &str = "a collect batch needs several children's completions to queue while the parent's run is still busy, so that the host batches them; that needs the mock to hold the parent's model answer until the children finish (not mapped yet)";

/// On the real host prepareSubagentSpawn / onSubagentEnded follow a
/// sessions_spawn tool call inside a parent turn's tool loop; realhost::spawn
/// drives that shape (a turn whose scripted reply calls sessions_spawn, then
/// an announce step), the bare step form cannot be.
pub const SPAWN_NOT_MAPPED: &str = "a spawn (or subagent_ended) step between turns: on the real host prepareSubagentSpawn happens inside a parent turn's sessions_spawn tool call, with a child key the host mints (agent:<id>:subagent:<uuid>), and onSubagentEnded when the host cleans the child up; script the spawn as a turn whose model reply calls sessions_spawn (drivable), not as a step";

/// The rollback handle of a prepared spawn (dist/sessions-spawn-tool-*.mjs).
pub const SPAWN_ROLLBACK_NOT_MAPPED: &str = "a spawn whose launch fails after preparation: 2026.9.6 calls the prepared spawn's rollback only when the child's internal `agent` launch or its registry registration fails after prepareSubagentSpawn (dist/sessions-spawn-tool-*.mjs runSpawnPipeline cleanupOnFailure → rollbackPreparedContextEngine) or a queued collector launch is removed (createCollectorLaunchCallbacks onRemoved); no gateway RPC, config or provider answer a scenario scripts makes that launch fail, and removing a queued collect launch is not mapped";

pub(super) fn turn_drivable(t: &TurnSpec) -> Result<(), NotDrivable> {
    let unsupported = [
        (t.admitted == Some(false), "non-admitted turns need a non-gateway entry point"),
        (t.commit_replay, "commit_replay simulates a host crash between commitTurn and the outbox"),
        // The real host commits each logical turn once; the second writer is the
        // reference runtime's simulation (the twin showed no second commitTurn).
        (t.commit_conflict, "commit_conflict simulates a second writer committing the same logical turn; one gateway run commits once"),
        (t.fallback.is_some(), "model fallback needs a second configured model"),
        (t.user.trim().is_empty(), "an empty user message is rejected by chat.send"),
        (is_reset_command(&t.user) && !is_bare_reset(&t.user), RESET_WITH_TEXT),
        (t.user.trim_start().starts_with('/') && !is_bare_reset(&t.user), "slash commands other than /compact and a bare /new or /reset are not scripted turns"),
    ];
    match unsupported.iter().find(|(hit, _)| *hit) {
        Some((_, why)) => nd(*why),
        None if t.model.is_empty() => nd("a turn without a scripted model reply"),
        None => Ok(()),
    }
}

/// The turn's queued system events, as the gateway's `system-event` RPC
/// enqueues them. A text starting with `Node:` is a node presence update there
/// (dist/system-*.mjs `isNodePresenceLine`): the gateway enqueues its own
/// delta line (`Node: <host> · app … · mode …`) instead of the text.
pub(super) fn system_events(t: &TurnSpec) -> Result<Vec<String>, NotDrivable> {
    if let Some(e) = t.system_events.iter().find(|e| e.trim_start().starts_with("Node:")) {
        return nd(format!("system event {e:?}: the gateway's system-event RPC treats a `Node:` text as a presence update and enqueues its own `Node: <host> …` delta line instead"));
    }
    if let Some(e) = t.system_events.iter().find(|e| e.trim().is_empty()) {
        return nd(format!("system event {e:?}: the gateway's system-event RPC rejects an empty text"));
    }
    Ok(t.system_events.clone())
}

/// A bare `/new` is planned as a plain chat.send; whether the release runs
/// the reset-prompt turn is `limits::ReleaseLimit::BareResetTurn` (neither
/// release could be driven to so far). With
/// trailing text the host runs the text as the new session's first turn
/// (openclaw dist/get-reply-*.mjs: not `isBareNewOrReset`), which the
/// reference runtime does not model as such.
pub const RESET_WITH_TEXT: &str = "/new or /reset with trailing text: the host resets and runs the text as the first turn of the new session; not mapped yet";

/// `/new` or `/reset` alone (dist/get-reply-*: `/^\/(new|reset)$/`).
fn is_bare_reset(user: &str) -> bool {
    matches!(user.trim(), "/new" | "/reset")
}

impl Plan {
    pub(super) fn limit(&mut self, l: super::limits::ReleaseLimit) {
        if !self.release_limits.contains(&l) {
            self.release_limits.push(l);
        }
    }
}

/// `/new` or `/reset`, bare or with text.
fn is_reset_command(user: &str) -> bool {
    let t = user.trim();
    ["/new", "/reset"].iter().any(|c| t.strip_prefix(c).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace)))
}

pub(super) fn model_reply(r: &ModelReply, p: &mut Plan, context_window: u64) -> Result<PlannedReply, NotDrivable> {
    use clawspec_mock_providers::scripted::{Failure, FailureKind};
    let m = match r {
        ModelReply::Text(t) => return Ok(PlannedReply { text: t.clone(), ..Default::default() }),
        ModelReply::Full(m) => m,
    };
    let mut out = PlannedReply { text: m.text.clone().unwrap_or_default(), thinking: m.thinking.clone(), signature: m.signature.clone(), redacted: m.redacted, ..Default::default() };
    if m.redacted && m.signature.is_none() {
        return nd("a redacted thinking block without a signature has no data for the provider to send");
    }
    if let Some(e) = &m.error {
        let kind = match e.kind {
            ModelErrorKind::Overflow => FailureKind::Overflow,
            ModelErrorKind::RateLimit => FailureKind::RateLimit,
            ModelErrorKind::Other => FailureKind::Server,
            ModelErrorKind::InvalidSignature => FailureKind::InvalidSignature,
            ModelErrorKind::Timeout => FailureKind::Timeout,
            // The user's chat.abort while this call is held (realhost::in_flight).
            ModelErrorKind::Aborted => return Ok(PlannedReply::default()),
        };
        // The reference reports just over the window when the scenario gives no count.
        let message = match e.kind {
            ModelErrorKind::Overflow => Some(e.message.clone().unwrap_or_else(|| crate::runtime::model::overflow_message(e.tokens.unwrap_or(context_window + 1), context_window))),
            _ => e.message.clone(),
        };
        if kind == FailureKind::Timeout {
            p.provider_timeout_seconds = Some(PROVIDER_TIMEOUT_SECONDS);
        }
        out.error = Some(Failure { kind, message, delay_ms: (kind == FailureKind::Timeout).then_some(TIMEOUT_HOLD_MS) });
        return Ok(out);
    }
    for c in &m.tool_calls {
        // The same ids the reference runtime gives the calls, so both twins'
        // transcripts name them alike.
        let id = match &c.id {
            Some(id) => id.clone(),
            None => {
                p.minted_tool_ids += 1;
                super::tools::reference_tool_id(p.minted_tool_ids)
            }
        };
        if super::spawn::is_host_tool(&c.name) {
            super::spawn::host_tool_call(p, c, &id)?;
        } else {
            let r = super::tools::scripted(c, id.clone())?;
            p.limit(super::limits::ReleaseLimit::ScriptedTool(super::tools::ScriptedToolNeed::of(&r, c)));
            p.tool_results.push(r);
        }
        out.tool_calls.push(serde_json::json!({"id": id, "name": c.name, "arguments": if c.arguments.is_null() { serde_json::json!({}) } else { c.arguments.clone() }}));
    }
    Ok(out)
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
        Step::Generate(_) => "generate",
    }
}

/// A scenario from a script fragment, for the realhost test modules.
#[cfg(test)]
pub(super) fn scenario_from_script(script: &str) -> Scenario {
    let src = format!("id: t\ntitle: t\ndescription: t\nscript:\n{script}");
    crate::scenario::load::parse(std::path::Path::new("t.yaml"), &src).expect("test scenario parses").scenario
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawspec_mock_providers::scripted::FailureKind;
    use rstest::rstest;

    use super::scenario_from_script as scenario;

    fn why(script: &str) -> String {
        plan(&scenario(script)).expect_err("not drivable").0
    }

    #[rstest]
    #[case::overflow("{error: {kind: overflow}}", FailureKind::Overflow, Some("prompt is too long: 32001 tokens > 32000 maximum"))]
    #[case::overflow_tokens("{error: {kind: overflow, tokens: 50000}}", FailureKind::Overflow, Some("prompt is too long: 50000 tokens > 32000 maximum"))]
    #[case::rate_limit("{error: {kind: rate_limit}}", FailureKind::RateLimit, None)]
    #[case::other("{error: {kind: other, message: boom}}", FailureKind::Server, Some("boom"))]
    #[case::signature("{error: {kind: invalid_signature}}", FailureKind::InvalidSignature, None)]
    #[case::timeout("{error: {kind: timeout}}", FailureKind::Timeout, None)]
    fn scripted_errors_become_provider_failures(#[case] step: &str, #[case] kind: FailureKind, #[case] message: Option<&str>) {
        let p = plan(&scenario(&format!("  - turn: {{user: hi, model: [{step}, \"ok\"]}}\n"))).expect("drivable");
        let f = p.replies[0].error.as_ref().expect("a failure");
        assert_eq!((f.kind, f.message.as_deref()), (kind, message));
        assert_eq!(p.replies[1].text, "ok", "the retry answer follows the failure");
        assert_eq!((p.replies[0].step, p.replies[1].step), (Some(0), Some(0)), "replies are tagged with their step");
        // Only a scripted timeout shortens the host's provider timeout, and the hold outlasts it.
        assert_eq!(p.provider_timeout_seconds.is_some(), kind == FailureKind::Timeout);
        if kind == FailureKind::Timeout {
            assert!(f.delay_ms.unwrap() > PROVIDER_TIMEOUT_SECONDS * 1000 * 2);
        }
    }

    #[test]
    fn thinking_keeps_its_scripted_signature_and_redaction() {
        let p = plan(&scenario("  - turn: {user: hi, model: [{thinking: plan, signature: EqQBsig, text: done}, {redacted: true, signature: opaque, text: more}]}\n")).unwrap();
        assert_eq!((p.replies[0].thinking.as_deref(), p.replies[0].signature.as_deref(), p.replies[0].redacted), (Some("plan"), Some("EqQBsig"), false));
        assert_eq!((p.replies[1].signature.as_deref(), p.replies[1].redacted), (Some("opaque"), true));
    }

    #[rstest]
    #[case::redacted_without_data("  - turn: {user: hi, model: [{redacted: true}]}\n", "without a signature")]
    #[case::device_tool("  - turn: {user: hi, model: [{tool_calls: [{name: camera, result: ok}]}, done]}\n", "tool call camera: only the core tools")]
    #[case::invalid_args("  - turn: {user: hi, model: [{tool_calls: [{name: exec, arguments: {cmd: ls}, result: ok}]}, done]}\n", "without a string `command` argument")]
    #[case::other_command("  - turn: {user: /status, model: [x]}\n", "other than /compact")]
    #[case::newish("  - turn: {user: /newsletter, model: [x]}\n", "other than /compact")]
    #[case::reset_text("  - turn: {user: \"/reset start over\", model: [x]}\n", "trailing text")]
    #[case::switch_to_bedrock("  - switch_model: {provider: amazon-bedrock, model: m, api: bedrock-converse-stream}\n", "step 0 (switch_model): switch to amazon-bedrock/m: amazon-bedrock/bedrock-converse-stream: openclaw@2026.9.6 has no bundled Bedrock transport")]
    #[case::orphan("  - orphan_user: hello\n", "host crash")]
    #[case::commit_conflict("  - turn: {user: hi, commit_conflict: true, model: [ok]}\n", "second writer")]
    #[case::spawn("  - spawn: {child: c}\n", "sessions_spawn")]
    #[case::spawn_rollback("  - spawn: {child: c, launch_fails: true}\n", "rollback only when the child's internal `agent` launch")]
    fn what_the_real_host_cannot_reproduce_says_why(#[case] script: &str, #[case] reason: &str) {
        let w = why(script);
        assert!(w.contains(reason), "{w}");
    }

    #[test]
    fn tool_calls_carry_the_reference_ids_and_their_scripted_results() {
        let p = plan(&scenario(concat!(
            "  - turn: {user: go, model: [{text: let me look, tool_calls: [{name: read, arguments: {path: a}, result: A}, {id: my_id, name: exec, arguments: {command: x}, result: boom, is_error: true}]}, done]}\n",
            "  - turn: {user: more, model: [{tool_calls: [{name: write, arguments: {path: b, content: x}, result: wrote}]}, ok]}\n",
        )))
        .expect("drivable");
        let calls: Vec<_> = p.replies.iter().flat_map(|r| r.tool_calls.iter().map(|c| (c["id"].as_str().unwrap(), c["name"].as_str().unwrap()))).collect();
        assert_eq!(calls, [("toolu_0001", "read"), ("my_id", "exec"), ("toolu_0002", "write")], "minted ids count as the reference runtime's do");
        assert_eq!(p.replies[0].tool_calls[0]["arguments"], serde_json::json!({"path": "a"}), "the model calls with the scripted arguments");
        assert_eq!(p.replies[0].text, "let me look");
        let results: Vec<_> = p.tool_results.iter().map(|r| (r.tool_call_id.as_str(), r.text.as_str(), r.is_error)).collect();
        assert_eq!(results, [("toolu_0001", "A", false), ("my_id", "boom", true), ("toolu_0002", "wrote", false)]);
    }

    #[test]
    fn an_inline_image_is_a_chat_send_attachment() {
        let p = plan(&scenario("  - turn: {user: what is this, image: true, model: [a form]}\n  - turn: {user: and, model: [ok]}\n")).unwrap();
        let att = |s: &PlanStep| match s {
            PlanStep::Turn { attachments, .. } => attachments.clone(),
            _ => panic!("a turn"),
        };
        assert_eq!(att(&p.steps[0]), [image_attachment()]);
        assert!(att(&p.steps[1]).is_empty());
        let json = serde_json::to_value(&p.steps[0]).unwrap();
        assert_eq!((json["attachments"][0]["type"].as_str(), json["attachments"][0]["mimeType"].as_str()), (Some("image"), Some("image/png")));
        assert!(serde_json::to_value(&p.steps[1]).unwrap().get("attachments").is_none());
    }

    #[test]
    fn a_bare_reset_is_a_turn_that_only_some_releases_run() {
        use super::super::limits::ReleaseLimit;
        let p = plan(&scenario("  - turn: {user: /new, model: [hi]}\n  - turn: {user: /reset, model: [hi]}\n")).expect("planned");
        assert!(matches!(&p.steps[0], PlanStep::Turn { message, .. } if message == "/new"));
        let steps_only = |l: &[ReleaseLimit]| l.iter().copied().filter(|l| !matches!(l, ReleaseLimit::ContextWindow(_))).collect::<Vec<_>>();
        assert_eq!(steps_only(&p.release_limits), [ReleaseLimit::BareResetTurn { empty_prompt_sent: false }], "listed once");
        let tools = plan(&scenario("  - turn: {user: go, model: [{tool_calls: [{name: read, arguments: {path: a}, result: A}]}, ok]}\n")).unwrap();
        let read = crate::realhost::tools::ScriptedToolNeed { tool: "read", is_error: false, image: false, untrimmed: false, real_write_answer: false, real_image_answer: false, blank: false };
        assert_eq!(steps_only(&tools.release_limits), [ReleaseLimit::ScriptedTool(read)]);
        assert_eq!(plan(&scenario("  - turn: {user: hi, model: [ok]}\n")).unwrap().release_limits, [ReleaseLimit::ContextWindow(32_000)], "only the model's window");
        // Only a turn that ends on a timeout needs the host to give up on it.
        let ends = plan(&scenario("  - turn: {user: hi, model: [{error: {kind: timeout}}]}\n")).unwrap();
        assert!(ends.release_limits.contains(&ReleaseLimit::TimeoutSurfaced));
        let recovers = plan(&scenario("  - turn: {user: hi, model: [{error: {kind: timeout}}, ok]}\n")).unwrap();
        assert!(!recovers.release_limits.contains(&ReleaseLimit::TimeoutSurfaced));
    }

    #[test]
    fn system_events_are_queued_through_the_rpc_before_the_turn_except_node_presence_lines() {
        let p = plan(&scenario("  - turn: {user: hi, system_events: ['Cron job \"x\" completed', heartbeat poll], model: [ok]}\n")).expect("drivable");
        let json = serde_json::to_value(&p.steps[0]).unwrap();
        assert_eq!(json["systemEvents"], serde_json::json!(["Cron job \"x\" completed", "heartbeat poll"]));
        assert!(serde_json::to_value(&plan(&scenario("  - turn: {user: hi, model: [ok]}\n")).unwrap().steps[0]).unwrap().get("systemEvents").is_none());
        assert!(why("  - turn: {user: hi, system_events: ['Node: gw online'], model: [ok]}\n").contains("presence update"));
    }

    #[test]
    fn compact_is_the_slash_command_with_its_instructions() {
        let p = plan(&scenario("  - compact: {instructions: \"Keep the test name.\"}\n  - compact: {}\n  - turn: {user: go, model: [ok]}\n")).unwrap();
        let msgs: Vec<_> = p.steps.iter().map(|s| match s {
            PlanStep::Command { message, .. } | PlanStep::Turn { message, .. } | PlanStep::InterSession { message, .. } => message.as_str(),
            PlanStep::ChannelTurn { message, .. } => message.body.as_str(),
            PlanStep::SwitchModel { model, .. } => model.as_str(),
            PlanStep::AwaitRun { .. } | PlanStep::Heartbeat { .. } => "",
        }).collect();
        assert_eq!(msgs, ["/compact Keep the test name.", "/compact", "go"]);
        assert!(matches!(p.steps[0], PlanStep::Command { step: 0, .. }));
        assert_eq!(p.replies.len(), 1, "a command has no scripted reply of its own");
    }

    #[test]
    fn a_model_switch_is_a_session_patch_to_a_model_on_its_own_mock() {
        let p = plan(&library("model-switch")).expect("drivable");
        assert!(matches!(&p.steps[1], PlanStep::SwitchModel { step: 1, model, .. } if model == "openai/gpt-5.1"));
        let sw = &p.model_switches[0];
        assert_eq!((sw.step, sw.api.as_str(), sw.wire), (1, "openai-responses", clawspec_mock_providers::Provider::OpenAiResponses));
        assert_eq!(serde_json::to_value(&p.steps[1]).unwrap()["kind"], "switchModel");
        assert!(why("  - switch_model: {provider: anthropic, model: claude-opus-4-6}\n").contains("within the scenario's own provider"));
    }

    #[rstest]
    #[case::anthropic("http-anthropic")]
    #[case::chat("http-openai-chat")]
    #[case::responses("http-openai-responses")]
    #[case::gemini("http-gemini")]
    #[case::mistral("http-mistral")]
    fn provider_wire_scenarios_are_drivable(#[case] id: &str) {
        plan(&library(id)).expect("drivable");
    }

    #[test]
    fn bedrock_wire_scenarios_say_why_not() {
        assert!(plan(&library("http-bedrock")).unwrap_err().0.contains("@openclaw/amazon-bedrock-provider"));
    }

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
        // Reason → the scenarios it keeps off the real host, so a reader sees where the work is.
        let mut reasons = std::collections::BTreeMap::<String, Vec<String>>::new();
        let releases = ["2026.4.26", "2026.9.6"];
        let mut drivable = [0usize; 2];
        for l in &all {
            match plan(&l.scenario) {
                Err(NotDrivable(why)) => {
                    let key = why.split(": ").skip_while(|p| p.starts_with("step ")).collect::<Vec<_>>().join(": ");
                    reasons.entry(key).or_default().push(l.scenario.id.clone());
                }
                Ok(p) => {
                    for (i, r) in releases.iter().enumerate() {
                        match (&p.setup.seed, super::super::seed::release_supports_seed(r), super::super::limits::check_all(&p.release_limits, r)) {
                            (Some(_), Err(NotDrivable(why)), _) | (_, _, Err(NotDrivable(why))) => reasons.entry(format!("[{r} only] {}", why.split(": ").last().unwrap_or(&why))).or_default().push(l.scenario.id.clone()),
                            _ => {
                                drivable[i] += 1;
                                eprintln!("drivable on openclaw@{r}: {}{}", l.scenario.id, if p.setup.seed.is_some() { " (seeded)" } else { "" });
                            }
                        }
                    }
                }
            }
        }
        for (r, ids) in &reasons {
            eprintln!("{:3} {r}\n      {}", ids.len(), ids.join(", "));
        }
        // Steps alone: as if transcript seeding (setup) were in place.
        let steps_ok = all
            .iter()
            .filter(|l| {
                let mut sc = l.scenario.clone();
                sc.setup.transcript.clear();
                sc.setup.session_exists = false;
                plan(&sc).is_ok()
            })
            .count();
        let plannable = all.iter().filter(|l| plan(&l.scenario).is_ok()).count();
        eprintln!("plannable: {plannable}/{}; steps alone (setup.transcript ignored): {steps_ok}/{}", all.len(), all.len());
        for (r, n) in releases.iter().zip(drivable) {
            eprintln!("drivable on openclaw@{r}: {n} of {}", all.len());
        }
    }
}
