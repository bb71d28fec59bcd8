//! The scenario file format. Files are YAML (JSON is accepted too): a stable
//! id, what it exercises, an initial state and a script of events. Every map is
//! `deny_unknown_fields` so a typo is a located error, not a silent default.
//! The JSON Schema is generated from these types (`docs/schema/scenario.json`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Stable id, kebab-case, equal to the file stem.
    pub id: String,
    pub title: String,
    pub description: String,
    /// Contract clause ids this scenario exercises (e.g. `CE-ASM-003`).
    #[serde(default)]
    pub clauses: Vec<String>,
    /// Profiles it applies to; empty = all base profiles.
    #[serde(default)]
    pub profiles: Vec<String>,
    /// Upstream issue or bug this reproduces (e.g. `lossless-claw#688`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<String>,
    #[serde(default)]
    pub setup: Setup,
    /// Steps are one-key maps: `- turn: {…}` (serde's externally tagged form).
    pub script: Vec<Step>,
    /// Set at load time when `generate` steps were expanded: a long session
    /// (its goldens are digests, library-wide test sweeps skip it).
    #[serde(skip)]
    pub generated: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Setup {
    /// Model context window (tokens).
    pub context_window: u64,
    /// `agents.defaults.contextTokens` cap, if set.
    pub context_token_budget: Option<u64>,
    /// Compaction reserve tokens (= runtimeSettings.limits.maxOutputTokens).
    pub reserve_tokens: u64,
    pub provider: String,
    pub model: String,
    /// Transport api of assistant messages (`anthropic-messages`, …).
    pub api: String,
    pub agent_id: String,
    pub session_key: String,
    /// Messages already in the transcript before the first step.
    pub transcript: Vec<MessageSpec>,
    /// The transcript file exists even if `transcript` is empty.
    pub session_exists: bool,
    /// Whether user turns are gateway-admitted (durable-turn candidates in 2026.8+).
    pub admitted_turns: bool,
    /// Capability tool names (client tools excluded).
    pub tools: Vec<String>,
    /// Client-provided tools: never in `availableTools`.
    pub client_tools: Vec<String>,
    pub citations_mode: Option<String>,
    /// Passed to the engine in `initialize.engineConfig`.
    pub engine_config: Option<Value>,
    /// `agents.defaults.compaction.timeoutSeconds` in ms (default 180 000).
    pub compaction_timeout_ms: Option<u64>,
    /// Run the scenario through this mock provider over HTTP.
    pub http_provider: Option<String>,
    /// The system prompt the simulated agent sends (default: a one-line
    /// assistant prompt). Its size counts against the 2026.9.6 assemble budget;
    /// `clawspec twin` sets it to the prompt the real host sent.
    pub system_prompt: Option<String>,
    /// The system prompts of 2026.9.6 heartbeat runs, in order, which the host
    /// builds for another entry point (no channel, no pending workspace
    /// bootstrap, dist/bootstrap-mode-*.mjs; a later one with the direct-chat
    /// context); default `system_prompt`. Not a scenario field: only `clawspec
    /// twin` sets it, from the heartbeat runs of the real host.
    #[serde(skip)]
    #[schemars(skip)]
    pub heartbeat_system_prompts: Vec<String>,
    /// Not scenario input: the real host's work directory, which stands for
    /// the state directory in prompt text the 2026.9.6 budget estimates (a
    /// media note's staged path). `clawspec twin` sets it; otherwise `$STATE`,
    /// so budgets never depend on where the run's state lives.
    #[serde(skip)]
    #[schemars(skip)]
    pub host_dir: Option<String>,
    /// The system prompts of the runs the host starts by itself (a spawned
    /// child's run, the announce run), which the reference does not build:
    /// only `clawspec twin` sets them, from what the real host sent.
    #[serde(skip)]
    #[schemars(skip)]
    pub host_run_prompts: HostRunPrompts,
    /// The system prompt per model a `switch_model` step moves to: only
    /// `clawspec twin` sets it, from what the real host sent that model.
    #[serde(skip)]
    #[schemars(skip)]
    pub system_prompts_by_model: BTreeMap<String, String>,
}

/// See [`Setup::host_run_prompts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostRunPrompts {
    pub subagent_child: Option<String>,
    pub announce: Option<String>,
    /// The run an inter-session message starts (`realhost::inter_session`):
    /// no WebChat message context in its prompt.
    pub inter_session: Option<String>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            context_window: 32_000,
            context_token_budget: None,
            reserve_tokens: 4_000,
            provider: "anthropic".into(),
            model: "claude-sonnet-4-6".into(),
            api: "anthropic-messages".into(),
            agent_id: "main".into(),
            session_key: "agent:main:main".into(),
            transcript: Vec::new(),
            session_exists: false,
            admitted_turns: true,
            tools: vec!["exec".into(), "read".into(), "write".into()],
            client_tools: Vec::new(),
            citations_mode: None,
            engine_config: None,
            compaction_timeout_ms: None,
            http_provider: None,
            system_prompt: None,
            heartbeat_system_prompts: Vec::new(),
            host_dir: None,
            host_run_prompts: HostRunPrompts::default(),
            system_prompts_by_model: BTreeMap::new(),
        }
    }
}

/// A message: full OpenClaw JSON (has `role`) or a shorthand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MessageSpec {
    Short(ShortMessage),
    Full(Value),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ShortMessage {
    User(String),
    Assistant(ModelReply),
    ToolResult(ToolResultSpec),
    Summary(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolResultSpec {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub text: String,
    #[serde(default)]
    pub is_error: bool,
}

/// One scripted model call result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ModelReply {
    Text(String),
    Full(ModelStep),
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ModelStep {
    pub thinking: Option<String>,
    /// Signature of the thinking block; absent = unsigned.
    pub signature: Option<String>,
    /// Emit a redacted thinking block (opaque payload in the signature).
    pub redacted: bool,
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCallSpec>,
    /// The provider fails this call instead of answering.
    pub error: Option<ModelError>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// Defaults to a seeded id (`toolu_…`).
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
    /// What the tool returns (the runtime executes the call by script).
    #[serde(default)]
    pub result: String,
    #[serde(default)]
    pub is_error: bool,
    /// Return an image block with the result.
    #[serde(default)]
    pub image: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelError {
    pub kind: ModelErrorKind,
    /// Provider error text; defaults per kind.
    #[serde(default)]
    pub message: Option<String>,
    /// Observed prompt tokens reported with an overflow.
    #[serde(default)]
    pub tokens: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModelErrorKind {
    /// Context overflow (prompt too long).
    Overflow,
    /// LLM request timed out.
    Timeout,
    RateLimit,
    /// A rejected thinking signature (the runtime retries once without it).
    InvalidSignature,
    Other,
    /// The user aborted the run.
    Aborted,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Step {
    /// A user message from a channel (gateway) → one logical turn.
    Turn(TurnSpec),
    /// A subagent (or cron) completion announce delivered as a new agent turn.
    Announce(AnnounceSpec),
    /// Several completions batched while the agent was busy (collect mode).
    Collect(CollectSpec),
    /// A message routed from another session (sessions_send, …).
    InterSession(InterSessionSpec),
    /// A heartbeat run.
    Heartbeat(HeartbeatSpec),
    /// Manual `/compact`.
    Compact(CompactSpec),
    /// `sessions_spawn` of a subagent.
    Spawn(SpawnSpec),
    /// A subagent run ended (cleanup path).
    SubagentEnded(SubagentEndedSpec),
    /// Switch provider/model for following turns.
    SwitchModel(SwitchModelSpec),
    /// A user message left in the transcript by a crashed run (no reply).
    OrphanUser(String),
    /// A long session described compactly: expanded into `turn` (and
    /// `announce`) steps when the scenario is loaded (`scenario::generate`).
    Generate(GenerateSpec),
}

/// `generate`: hundreds of tool-heavy turns without writing them out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GenerateSpec {
    /// User turns to generate (1..=5000).
    pub turns: usize,
    /// Seed of the deterministic generator: same seed, same steps.
    pub seed: u64,
    /// Tool calls per turn, `[min, max]` inclusive; each is its own model call
    /// with its tool result, then a final text reply.
    pub tool_calls: [usize; 2],
    /// Approximate characters of every tool result.
    pub result_chars: usize,
    /// Words of each user message.
    pub user_words: usize,
    /// Words of each final assistant reply.
    pub reply_words: usize,
    /// A subagent completion announce after every Nth turn (0 = none).
    pub announce_every: usize,
    /// Tool names to draw from (default exec, read, write).
    pub tools: Vec<String>,
}

impl Default for GenerateSpec {
    fn default() -> Self {
        GenerateSpec { turns: 100, seed: 0, tool_calls: [1, 4], result_chars: 1_200, user_words: 16, reply_words: 24, announce_every: 0, tools: Vec::new() }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TurnSpec {
    /// Raw inbound body (before prompt-body construction). `/new` or `/reset`
    /// alone triggers the bare session reset prompt.
    pub user: String,
    /// Inbound untrusted metadata: conversation info fields.
    pub conversation: Option<BTreeMap<String, Value>>,
    /// Inbound untrusted metadata: sender fields.
    pub sender: Option<BTreeMap<String, Value>>,
    /// The previous run was aborted by the user.
    pub abort_hint: bool,
    /// Queued system event texts (heartbeat noise is filtered).
    pub system_events: Vec<String>,
    pub untrusted_context: Vec<String>,
    pub thread_history: Option<String>,
    /// Media attachments: (path, mime).
    pub media: Vec<MediaSpec>,
    /// Attach an inline image block to the user message.
    pub image: bool,
    /// Overrides `setup.admitted_turns` for this turn.
    pub admitted: Option<bool>,
    /// Scripted model replies, one per model call of the turn (tool loops
    /// take several); overflow/timeout retries consume further entries.
    pub model: Vec<ModelReply>,
    /// Messages steered into the running tool loop: before model call `at`.
    pub steer: Vec<SteerSpec>,
    /// The host crashes after `commitTurn` before clearing its outbox, so the
    /// commit is replayed before the next turn (must answer `duplicate`).
    pub commit_replay: bool,
    /// After `commitTurn`, a second writer commits the same logical turn
    /// (same advancementKey) with a different terminal entry: the engine must
    /// reject it (throw), never report it committed or duplicate (CE-TURN-006).
    pub commit_conflict: bool,
    /// A model-fallback candidate: when the turn fails with a failover error
    /// (timeout, rate limit, other), the agent command retries the run on this
    /// provider/model with `[Retry after the previous model attempt failed or
    /// timed out]` in front of the prompt (openclaw `resolveFallbackRetryPrompt`).
    pub fallback: Option<SwitchModelSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MediaSpec {
    pub path: String,
    pub mime: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteerSpec {
    /// Index of the model call before which the message is injected (≥ 1).
    pub at: usize,
    #[serde(default)]
    pub text: Option<String>,
    /// Steer a subagent completion instead of plain text.
    #[serde(default)]
    pub announce: Option<AnnounceSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnnounceSpec {
    pub child: String,
    #[serde(default)]
    pub child_session_id: Option<String>,
    pub task: String,
    #[serde(default)]
    pub result: String,
    #[serde(default = "default_status")]
    pub status: String,
    #[serde(default)]
    pub error: Option<String>,
    /// `subagent` (default) or `cron`.
    #[serde(default = "default_source")]
    pub source: String,
    #[serde(default)]
    pub stats: Option<String>,
    /// `privateCompletion`: the trigger is persisted after all.
    #[serde(default)]
    pub private: bool,
    #[serde(default)]
    pub model: Vec<ModelReply>,
}

fn default_status() -> String {
    "ok".into()
}
fn default_source() -> String {
    "subagent".into()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CollectSpec {
    pub announces: Vec<AnnounceSpec>,
    #[serde(default)]
    pub model: Vec<ModelReply>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InterSessionSpec {
    pub from: String,
    #[serde(default = "default_inter_tool")]
    pub tool: String,
    pub text: String,
    #[serde(default)]
    pub model: Vec<ModelReply>,
}

fn default_inter_tool() -> String {
    "sessions_send".into()
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HeartbeatSpec {
    /// The model's answer; `HEARTBEAT_OK` makes it a no-op heartbeat.
    pub reply: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CompactSpec {
    pub instructions: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnSpec {
    pub child: String,
    /// `isolated` (default) or `fork`.
    #[serde(default = "default_mode")]
    pub mode: String,
    #[serde(default)]
    pub light: bool,
    /// The launch fails after preparation: the rollback handle must be called.
    #[serde(default)]
    pub launch_fails: bool,
    #[serde(default)]
    pub timeout_seconds: Option<u64>,
}

fn default_mode() -> String {
    "isolated".into()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubagentEndedSpec {
    pub child: String,
    /// `completed|deleted|swept|released`
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchModelSpec {
    pub provider: String,
    pub model: String,
    #[serde(default)]
    pub api: Option<String>,
}
