//! A scenario's `setup` as real-host state: the pre-existing transcript
//! seeded into the release's own session store before the gateway starts
//! (`adapters/openclaw-bridge/lib/seed.js`), and the setup fields that are
//! plain OpenClaw config. Each mapped field names the config key and the page
//! of the shipped docs that defines it; a field a release cannot express
//! makes the scenario not drivable on that release.

use serde::Serialize;
use serde_json::{json, Value};

use super::plan::NotDrivable;
use crate::runtime::transcript::expand_message;
use crate::scenario::model::Setup;

/// What `host-runner.mjs` applies before the first step.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostSetup {
    /// The session to create before the first step, when the scenario has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// The agent the session belongs to (`agents.list[].id`).
    pub agent_id: String,
    /// Merged into `agents.defaults`.
    pub agent_defaults: serde_json::Map<String, Value>,
    /// Merged into the top level of the config (`tools`, `memory`).
    pub config: serde_json::Map<String, Value>,
}

/// A pre-existing session: its key and the messages already in it, as the
/// reference runtime writes them (`runtime::transcript::expand_message`, so
/// the stored message JSON is the reference's byte for byte).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Seed {
    pub agent_id: String,
    pub session_key: String,
    pub messages: Vec<Value>,
    /// The model the earlier turns ran on. A 2026.4.x session that earlier
    /// real turns wrote starts with the agent session's `model_change` and
    /// `thinking_level_change` entries (@mariozechner/pi-coding-agent
    /// dist/core/sdk.js `createAgentSession`) and a `model-snapshot` custom
    /// entry (`{timestamp, provider, modelApi, modelId}`, the first attempt's
    /// `sanitizeSessionHistory`, dist compaction-successor-transcript-*.js
    /// `appendModelSnapshot`), all before its first user message. Without
    /// them the first real turn appends them after the seeded messages, and
    /// the orphaned-user repair (selection-*.js: only when the leaf entry is
    /// a user *message*) never sees a seeded trailing user message (twin of
    /// orphan-trailing-user). `lib/seed.js` writes them on the JSONL store only.
    pub model_snapshot: Value,
}

fn nd<T>(why: impl Into<String>) -> Result<T, NotDrivable> {
    Err(NotDrivable(why.into()))
}

pub fn host_setup(setup: &Setup) -> Result<HostSetup, NotDrivable> {
    let mut out = HostSetup { agent_id: setup.agent_id.clone(), ..Default::default() };
    if !setup.session_key.starts_with(&format!("agent:{}:", setup.agent_id)) {
        return nd(format!("setup.session_key {:?} does not belong to setup.agent_id {:?}: the gateway routes a key to the agent it names", setup.session_key, setup.agent_id));
    }
    if !setup.transcript.is_empty() || setup.session_exists {
        let messages = setup
            .transcript
            .iter()
            .enumerate()
            .map(|(i, m)| expand_message(m, setup, i as u64).map(|m| serde_json::to_value(m).expect("messages serialise")))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NotDrivable(format!("setup.transcript: {e}")))?;
        if messages.iter().any(|m| m["role"] == "compactionSummary") {
            return nd("setup.transcript: a compaction summary is a compaction entry in the host's session file, written only by a real compaction, not a message that can be seeded");
        }
        let model_snapshot = json!({"provider": setup.provider, "modelApi": setup.api, "modelId": setup.model});
        out.seed = Some(Seed { agent_id: setup.agent_id.clone(), session_key: setup.session_key.clone(), messages, model_snapshot });
    }
    // agents.defaults.contextTokens (2026.4.26 docs/gateway/config-agents.md;
    // 2026.9.6 docs/gateway/config-agents/models.md).
    if let Some(budget) = setup.context_token_budget {
        out.agent_defaults.insert("contextTokens".into(), budget.into());
    }
    // agents.defaults.compaction.timeoutSeconds: whole seconds
    // (2026.4.26 docs/gateway/config-agents.md "timeoutSeconds").
    if let Some(ms) = setup.compaction_timeout_ms {
        if ms % 1000 != 0 || ms == 0 {
            return nd(format!("setup.compaction_timeout_ms {ms}: agents.defaults.compaction.timeoutSeconds takes whole seconds"));
        }
        out.agent_defaults.insert("compaction".into(), json!({"timeoutSeconds": ms / 1000}));
    }
    // memory.citations (docs/reference/memory-config.md, both releases).
    if let Some(mode) = &setup.citations_mode {
        out.config.insert("memory".into(), json!({"citations": mode}));
    }
    // tools.allow: the capability tools the agent may use
    // (docs/gateway/config-tools.md "tools.allow / tools.deny").
    out.config.insert("tools".into(), json!({"allow": setup.tools}));
    Ok(out)
}

/// Whether `version`'s session store can be seeded by `lib/seed.js`:
/// 2026.4.x through its SessionManager + `updateSessionStore` (JSONL),
/// 2026.9.x through the plugin SDK's `upsertSessionEntry` +
/// `appendSessionTranscriptMessagesByIdentity` (SQLite transcript store).
pub fn release_supports_seed(version: &str) -> Result<(), NotDrivable> {
    if version.starts_with("2026.4.") || version.starts_with("2026.9.") {
        return Ok(());
    }
    nd(format!("setup.transcript on openclaw@{version}: clawspec knows how to seed the session stores of 2026.4.x (JSONL) and 2026.9.x (SQLite) only"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{MessageSpec, ShortMessage};

    #[test]
    fn transcript_is_seeded_as_the_reference_writes_it() {
        let setup = Setup { transcript: vec![MessageSpec::Short(ShortMessage::User("hello".into()))], ..Default::default() };
        let h = host_setup(&setup).unwrap();
        let seed = h.seed.unwrap();
        let reference = serde_json::to_value(expand_message(&setup.transcript[0], &setup, 0).unwrap()).unwrap();
        assert_eq!(seed.messages, vec![reference]);
        assert_eq!(seed.session_key, "agent:main:main");
        assert_eq!(seed.model_snapshot, json!({"provider": "anthropic", "modelApi": "anthropic-messages", "modelId": "claude-sonnet-4-6"}));
    }

    #[test]
    fn session_exists_without_messages_still_creates_the_session() {
        let h = host_setup(&Setup { session_exists: true, ..Default::default() }).unwrap();
        assert_eq!(h.seed.unwrap().messages, Vec::<Value>::new());
        assert!(host_setup(&Setup::default()).unwrap().seed.is_none());
    }

    #[test]
    fn config_fields_map_to_the_documented_keys() {
        let setup = Setup { context_token_budget: Some(9000), compaction_timeout_ms: Some(5000), citations_mode: Some("on".into()), ..Default::default() };
        let h = host_setup(&setup).unwrap();
        assert_eq!(h.agent_defaults["contextTokens"], 9000);
        assert_eq!(h.agent_defaults["compaction"], json!({"timeoutSeconds": 5}));
        assert_eq!(h.config["memory"], json!({"citations": "on"}));
        assert_eq!(h.config["tools"], json!({"allow": ["exec", "read", "write"]}));
    }

    #[test]
    fn sub_second_compaction_timeout_is_not_drivable() {
        let err = host_setup(&Setup { compaction_timeout_ms: Some(1500), ..Default::default() }).unwrap_err();
        assert!(err.0.contains("whole seconds"), "{err}");
    }

    #[test]
    fn session_key_of_another_agent_is_not_drivable() {
        let err = host_setup(&Setup { agent_id: "ops".into(), ..Default::default() }).unwrap_err();
        assert!(err.0.contains("does not belong"), "{err}");
    }

    #[test]
    fn seeding_is_per_release() {
        assert!(release_supports_seed("2026.4.26").is_ok());
        assert!(release_supports_seed("2026.9.6").is_ok());
        assert!(release_supports_seed("2026.6.1").unwrap_err().0.contains("2026.9.x (SQLite)"));
    }
}
