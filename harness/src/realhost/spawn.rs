//! Subagent spawns and their completion announces on the real host.
//!
//! On OpenClaw a subagent starts inside a parent turn: the model calls the
//! real `sessions_spawn` tool, the host mints the child session
//! (`agent:<agentId>:subagent:<uuid>`, docs/tools/subagents.md) and runs it on
//! the `subagent` lane, and when the child's run ends the host announces its
//! result to the requester with a follow-up `agent` run in the parent
//! session (docs/tools/subagents/announce.md "Top-level requester sessions use
//! a follow-up `agent` call"). A scenario scripts that as a turn whose model
//! reply calls `sessions_spawn`, followed by an `announce` step whose `result`
//! is the child's final answer.
//!
//! The child's model calls go to the same mock provider, on the same model
//! (a child on another model would change the announce: 9.6 adds a "Model
//! route changed" notice). The mock tells them apart by the task message the
//! host gives the child (`[Subagent Task]` + task, dist/sessions-spawn-tool-*.mjs
//! `buildSubagentTaskMessage`) and answers it with the child's scripted reply
//! (`mock-providers` `Reply::addressed_to`): parent and child replies cannot
//! take each other's place, whatever order the host asks in.

//! What 2026.9.6 does with that shape (observed: `clawspec twin --scenarios
//! DIR --scenario … --engine builtin:window --keep`, a turn calling
//! sessions_spawn then an announce step; trace.ndjson, provider-requests.ndjson):
//!
//! - parent turn: bootstrap, maintain(bootstrap), assemble; in the tool call a
//!   new engine instance gets `prepareSubagentSpawn {parentSessionKey,
//!   childSessionKey, contextMode: "isolated", parentSessionFile = parent key,
//!   childSessionFile = child key}` (no ttlMs without runTimeoutSeconds) and
//!   is disposed; the tool result is the host's JSON (`status: "accepted"`,
//!   `childSessionKey`, `runId`, `mode`, `note`, `resolvedModel` …); then
//!   commitTurn, maintain, dispose.
//! - child run (its own session): assemble (prompt = the `[Subagent Context]
//!   … [Subagent Task]` message), commitTurn, maintain, dispose — no bootstrap.
//! - announce run in the parent session (run id `announce:v1:<childKey>:<childRunId>`):
//!   bootstrap, maintain, assemble with `prompt` = `[Inter-session message]
//!   sourceSession=<childKey> sourceChannel=internal sourceTool=subagent_announce
//!   isUser=false` + the explanation + the whole `<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>`
//!   completion block (audit item 1: the annotated prompt, not `Continue the
//!   OpenClaw runtime event.`), dispose; no afterTurn or commitTurn.
//! - then, on its own instance, `onSubagentEnded {childSessionKey, reason,
//!   agentDir, workspaceDir}` and dispose.
//!
//! The completion block names the child's minted session id, `Stats: runtime
//! Ns • tokens unknown` (the mock reports no usage), and `Model route changed:
//! anthropic/<model> → anthropic/mock.` because the mock answers with model
//! `mock` (dist/openclaw-state-db-read-connection-*.mjs `formatAgentRunRouteChange`
//! compares the requested model with the response's `responseModel`).

use serde::Serialize;
use serde_json::{json, Value};

use super::plan::{NotDrivable, Plan, PlanStep, PlannedReply};
use crate::scenario::model::{AnnounceSpec, Scenario, ToolCallSpec};

/// What the mock looks for in a child's model request: the task message
/// (dist/sessions-spawn-tool-*.mjs `buildSubagentTaskMessage`: `"[Subagent Task]"`
/// and the trimmed task joined by a blank line).
pub fn child_task_address(task: &str) -> String {
    format!("[Subagent Task]\n\n{}\n\n", task.trim())
}

/// The child's address on openclaw@2026.4.x: its first user message leaves
/// the task out (dist/subagent-spawn-*.js buildSubagentInitialUserMessage,
/// "Your assigned task is in the system prompt under **Your Role**"), the
/// system prompt names it (dist/subagent-system-prompt-*.js
/// buildSubagentSystemPrompt: one line, or a fenced block for a multi-line task).
pub fn child_task_address_4x(task: &str) -> String {
    let task = task.trim();
    if task.contains('\n') {
        format!("```\n{task}\n```\n- Complete this task.")
    } else {
        format!("- You were created to handle: {task}\n")
    }
}

/// The release's child addresses: the plan carries 2026.9's task message.
pub fn for_release(plan: &mut Plan, version: &str) {
    if !version.starts_with("2026.4.") {
        return;
    }
    for sp in &plan.spawns.spawns {
        let (from, to) = (child_task_address(&sp.task), child_task_address_4x(&sp.task));
        plan.replies.iter_mut().filter(|r| r.addressed_to.as_deref() == Some(from.as_str())).for_each(|r| r.addressed_to = Some(to.clone()));
    }
    // A spawn wakes 2026.4.26's heartbeat runner (dist/task-registry-*.js
    // queueTaskSystemEvent → requestHeartbeatNow {reason: "background-task"}),
    // and whether that poll runs depends on whether the spawn has seeded the
    // workspace's HEARTBEAT.md yet (a missing file runs the poll, the seeded
    // comment-only template skips it): observed as an extra heartbeat run in
    // the main session in one twin of subagent-ended-reasons and none in
    // others. A scenario without heartbeat steps runs with the heartbeat
    // disabled (`every: "0m"`: dist/heartbeat-summary-*.js resolveHeartbeatIntervalMs
    // → null, dist/heartbeat-runner-*.js runHeartbeatOnce "disabled").
    let heartbeats = plan.steps.iter().any(|s| matches!(s, PlanStep::Heartbeat { .. }));
    if !plan.spawns.spawns.is_empty() && !heartbeats {
        plan.setup.agent_defaults.insert("heartbeat".into(), json!({"every": "0m"}));
    }
}

/// How long the runner waits for a host-started run (child run + announce).
const ANNOUNCE_TIMEOUT_MS: u64 = 90_000;

/// Tools the real host executes itself on a scripted call: the script gives
/// their arguments, and the host's own result (ids it mints) goes back to
/// the model.
pub fn is_host_tool(name: &str) -> bool {
    name == "sessions_spawn"
}

/// The system prompts the host built for the runs it started itself, found
/// by what those runs send the model: the child's task message
/// ([`child_task_address`]'s `[Subagent Task]`) and the announce run's
/// user-facing completion (dist/internal-events-*.mjs
/// `formatTaskCompletionEvent` plain mode). The child's prompt is the
/// subagent one (no inbound metadata, the subagent rules); the announce run's
/// lacks the WebChat message context and adds the silent-reply rules
/// (observed: 21 264 and 37 077 vs 37 967 characters in the twin of
/// announce-then-followup). The first body of each kind.
pub fn host_run_prompts(bodies: &[&Value], system_prompt: impl Fn(&Value) -> Option<String>) -> crate::scenario::model::HostRunPrompts {
    let find = |marker: &str| bodies.iter().find(|b| b.to_string().contains(marker)).and_then(|b| system_prompt(b));
    crate::scenario::model::HostRunPrompts { subagent_child: find("[Subagent Context] You are running as a subagent"), announce: find("A background task completed. Use this result to reply"), ..Default::default() }
}

/// A `sessions_spawn` call of a scripted parent turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedSpawn {
    pub tool_call_id: String,
    pub task: String,
    /// `completionTarget: "parent"`: a private completion (docs/tools/subagents/announce.md
    /// "Private parent completion"), the announce step's `private`.
    #[serde(skip)]
    private: bool,
    /// Whether an announce step has claimed this child's completion.
    #[serde(skip)]
    announced: bool,
}

/// The scenario's spawns, in call order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spawns {
    pub spawns: Vec<PlannedSpawn>,
}

impl Spawns {
    /// The runner's `subagents` config: `null` when nothing is spawned.
    /// `directTools`: the model calls sessions_spawn directly, so the host
    /// must offer its schema directly (host-runner.mjs `tools.toolSearch`).
    pub fn runner_config(&self) -> Value {
        if self.spawns.is_empty() {
            return Value::Null;
        }
        json!({"directTools": true})
    }
}

/// A scripted host-tool call: checked against the tool's schema as the host
/// checks it (a call failing validation never runs the tool:
/// dist/agent-core-*.mjs prepareToolCall).
pub fn host_tool_call(p: &mut Plan, c: &ToolCallSpec, id: &str) -> Result<(), NotDrivable> {
    // sessions_spawn: `task` is the only required parameter (docs/tools/subagents/tool-reference.md #param-task).
    let Some(task) = c.arguments.get("task").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) else {
        return Err(NotDrivable("tool call sessions_spawn without a non-empty string `task` argument: the real tool requires it".into()));
    };
    if !c.result.is_empty() || c.is_error || c.image {
        return Err(NotDrivable("tool call sessions_spawn with a scripted result: the real host answers the call itself (its result names the child key it mints), so the scenario must leave `result` empty".into()));
    }
    let private = c.arguments.get("completionTarget").and_then(Value::as_str) == Some("parent");
    use super::limits::ReleaseLimit;
    if private {
        p.limit(ReleaseLimit::PrivateCompletion);
    }
    if c.arguments.get("context").and_then(Value::as_str) == Some("fork") {
        p.limit(ReleaseLimit::ForkSpawn);
    }
    if p.spawns.spawns.iter().any(|sp| sp.announced) {
        p.limit(ReleaseLimit::LaterSpawn);
    }
    p.spawns.spawns.push(PlannedSpawn { tool_call_id: id.to_string(), task: task.to_string(), private, announced: false });
    p.limit(ReleaseLimit::HostSpawn);
    Ok(())
}

/// An `announce` step: the completion of a child an earlier turn spawned.
/// The child's scripted answer is `result`; the parent's announce run gets
/// the step's model replies.
pub fn announce(p: &mut Plan, i: usize, a: &AnnounceSpec, s: &Scenario) -> Result<(), NotDrivable> {
    if a.source != "subagent" {
        return Err(NotDrivable(format!("a {} announce: only subagent completions are started through a real tool call (sessions_spawn) so far", a.source)));
    }
    let Some(spawn) = p.spawns.spawns.iter_mut().find(|sp| !sp.announced && sp.task == a.task) else {
        return Err(NotDrivable(super::plan::ANNOUNCE_NOT_MAPPED.into()));
    };
    if a.status != "ok" || a.error.is_some() {
        return Err(NotDrivable(format!("announce status {}: the child's outcome is the host's (a failing child needs the mock to fail the child's model call); not mapped yet", a.status)));
    }
    // A private completion is the host's answer to `completionTarget: "parent"`
    // (dist/agent-turn-service-*.mjs `privateCompletion`): the step and the spawn must agree.
    if a.private != spawn.private {
        return Err(NotDrivable(format!("announce private: {} for a sessions_spawn call {} completionTarget \"parent\": the host makes a completion private exactly when the spawn asks for it", a.private, if spawn.private { "with" } else { "without" })));
    }
    if a.stats.is_some() || a.child_session_id.is_some() {
        return Err(NotDrivable("an announce with scripted stats or child session id: the host measures and mints them".into()));
    }
    if a.model.is_empty() {
        return Err(NotDrivable("an announce without a scripted model reply for the parent's announce run".into()));
    }
    spawn.announced = true;
    // Step-free: the child runs while the parent's turn (or the next step) is being driven.
    p.replies.push(PlannedReply { text: a.result.clone(), addressed_to: Some(child_task_address(&spawn.task)), ..Default::default() });
    for r in &a.model {
        let planned = super::plan::model_reply(r, p, s.setup.context_window)?;
        p.replies.push(PlannedReply { step: Some(i), ..planned });
    }
    // The host cleans the child up after its announce run (onSubagentEnded,
    // twin-observed, docs/openclaw-facts.md §4.5); without waiting for it the
    // call lands in whichever step is running then.
    p.steps.push(PlanStep::AwaitRun { step: i, session_key: s.setup.session_key.clone(), timeout_ms: ANNOUNCE_TIMEOUT_MS, await_call: Some("onSubagentEnded".into()) });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::plan::{plan, PlanStep};
    use super::*;
    use rstest::rstest;

    fn scenario(tools: &str, script: &str) -> Scenario {
        let src = format!("id: t\ntitle: t\ndescription: t\nsetup:\n  tools: [{tools}]\nscript:\n{script}");
        crate::scenario::load::parse(std::path::Path::new("t.yaml"), &src).expect("test scenario parses").scenario
    }

    const SPAWN_TURN: &str = "  - turn: {user: go, model: [{tool_calls: [{name: sessions_spawn, arguments: {task: \"count lines\"}}]}, Spawned.]}\n";
    const ANNOUNCE: &str = "  - announce: {child: \"agent:main:subagent:7\", task: \"count lines\", result: \"120 lines.\", model: [\"The count is 120.\"]}\n";

    #[test]
    fn a_spawn_turn_and_its_announce_are_a_real_tool_call_a_child_reply_and_a_host_run() {
        let p = plan(&scenario("exec, sessions_spawn", &format!("{SPAWN_TURN}{ANNOUNCE}"))).expect("drivable");
        // The parent's tool call goes to the real tool: no scripted result, no middleware needed.
        assert!(p.tool_results.is_empty());
        assert_eq!(p.release_limits, [super::super::limits::ReleaseLimit::ContextWindow(32_000), super::super::limits::ReleaseLimit::HostSpawn], "no tool-result middleware needed; the release must run spawns");
        assert_eq!(p.replies[0].tool_calls[0]["name"], "sessions_spawn");
        assert_eq!(p.replies[0].tool_calls[0]["arguments"], serde_json::json!({"task": "count lines"}));
        // The child's answer is addressed to its task message and bound to no step (it runs when the host runs it).
        let child = p.replies.iter().find(|r| r.addressed_to.is_some()).expect("a child reply");
        assert_eq!((child.text.as_str(), child.addressed_to.as_deref(), child.step), ("120 lines.", Some("[Subagent Task]\n\ncount lines\n\n"), None));
        // The parent's announce run takes the announce step's reply.
        let last = p.replies.last().unwrap();
        assert_eq!((last.text.as_str(), last.step, last.addressed_to.is_none()), ("The count is 120.", Some(1), true));
        assert!(matches!(&p.steps[1], PlanStep::AwaitRun { step: 1, session_key, await_call: Some(c), .. } if session_key == "agent:main:main" && c == "onSubagentEnded"));
        assert_eq!(p.spawns.runner_config(), serde_json::json!({"directTools": true}));
        assert_eq!(plan(&scenario("exec", "  - turn: {user: hi, model: [ok]}\n")).unwrap().spawns.runner_config(), Value::Null);
    }

    #[test]
    fn on_2026_4_the_address_is_the_task_line_of_the_childs_system_prompt() {
        let mut p = plan(&scenario("exec, sessions_spawn", &format!("{SPAWN_TURN}{ANNOUNCE}"))).expect("drivable");
        let before = p.clone();
        for_release(&mut p, "2026.9.6");
        assert_eq!(p, before);
        for_release(&mut p, "2026.4.26");
        assert_eq!(p.setup.agent_defaults["heartbeat"], json!({"every": "0m"}), "no racy heartbeat wake");
        let child = p.replies.iter().find(|r| r.addressed_to.is_some()).unwrap();
        assert_eq!(child.addressed_to.as_deref(), Some("- You were created to handle: count lines\n"));
        assert_eq!(child_task_address_4x("a\nb"), "```\na\nb\n```\n- Complete this task.");
    }

    #[test]
    fn what_2026_4_cannot_run_is_a_release_limit_of_the_spawn() {
        use super::super::limits::ReleaseLimit::{ForkSpawn, LaterSpawn, PrivateCompletion};
        let limits = |script: &str| plan(&scenario("exec, sessions_spawn", script)).expect("drivable").release_limits;
        assert!(!limits(&format!("{SPAWN_TURN}{ANNOUNCE}")).iter().any(|l| [PrivateCompletion, ForkSpawn, LaterSpawn].contains(l)));
        let private = "  - turn: {user: go, model: [{tool_calls: [{name: sessions_spawn, arguments: {task: \"count lines\", completionTarget: parent}}]}, ok]}\n  - announce: {child: c, task: count lines, result: r, private: true, model: [ok]}\n";
        assert!(limits(private).contains(&PrivateCompletion));
        let fork = "  - turn: {user: go, model: [{tool_calls: [{name: sessions_spawn, arguments: {task: \"count lines\", context: fork}}]}, ok]}\n";
        assert!(limits(fork).contains(&ForkSpawn));
        let again = SPAWN_TURN.replace("count lines", "count words");
        let second = limits(&format!("{SPAWN_TURN}{again}{ANNOUNCE}"));
        assert!(!second.contains(&LaterSpawn), "two spawns before any completion");
        assert!(limits(&format!("{SPAWN_TURN}{ANNOUNCE}{again}")).contains(&LaterSpawn));
    }

    #[test]
    fn the_address_is_the_hosts_task_message() {
        // dist/sessions-spawn-tool-*.mjs buildSubagentTaskMessage: [..., "[Subagent Task]", task.trim(), "Begin. …"].join("\n\n")
        let msg = ["[Subagent Context] You are running as a subagent (depth 1/5).", "[Subagent Task]", "count lines", "Begin. Execute the assigned task to completion."].join("\n\n");
        assert!(msg.contains(&child_task_address("  count lines ")));
        assert!(!msg.contains(&child_task_address("count")), "a task that is a prefix of another is not its address");
    }

    #[rstest]
    #[case::no_task("exec, sessions_spawn", "  - turn: {user: go, model: [{tool_calls: [{name: sessions_spawn, arguments: {}}]}, ok]}\n", "without a non-empty string `task`")]
    #[case::scripted_result("exec, sessions_spawn", "  - turn: {user: go, model: [{tool_calls: [{name: sessions_spawn, arguments: {task: x}, result: done}]}, ok]}\n", "scripted result")]
    #[case::tool_not_offered("exec", SPAWN_TURN, "setup.tools does not offer sessions_spawn")]
    #[case::announce_without_spawn("exec, sessions_spawn", ANNOUNCE, "needs a live child run")]
    #[case::other_task("exec, sessions_spawn", &format!("{SPAWN_TURN}  - announce: {{child: c, task: other, result: r, model: [ok]}}\n"), "needs a live child run")]
    #[case::announced_twice("exec, sessions_spawn", &format!("{SPAWN_TURN}{ANNOUNCE}{ANNOUNCE}"), "needs a live child run")]
    #[case::scripted_stats("exec, sessions_spawn", &format!("{SPAWN_TURN}  - announce: {{child: c, task: count lines, result: r, stats: \"Stats: runtime 1s\", model: [ok]}}\n"), "host measures and mints")]
    #[case::failed_child("exec, sessions_spawn", &format!("{SPAWN_TURN}  - announce: {{child: c, task: count lines, status: error, error: boom, model: [ok]}}\n"), "announce status error")]
    #[case::private_without_target("exec, sessions_spawn", &format!("{SPAWN_TURN}  - announce: {{child: c, task: count lines, result: r, private: true, model: [ok]}}\n"), "private exactly when the spawn asks for it")]
    #[case::target_without_private("exec, sessions_spawn", "  - turn: {user: go, model: [{tool_calls: [{name: sessions_spawn, arguments: {task: \"count lines\", completionTarget: parent}}]}, Spawned.]}\n  - announce: {child: c, task: count lines, result: r, model: [ok]}\n", "announce private: false")]
    #[case::cron("exec, sessions_spawn", &format!("{SPAWN_TURN}  - announce: {{child: c, task: count lines, source: cron, model: [ok]}}\n"), "a cron announce")]
    fn what_a_spawn_cannot_script_says_why(#[case] tools: &str, #[case] script: &str, #[case] reason: &str) {
        let why = plan(&scenario(tools, script)).expect_err("not drivable").0;
        assert!(why.contains(reason), "{why}");
    }
}
