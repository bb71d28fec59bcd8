//! JSON Schemas for every protocol message, generated from the Rust types and
//! checked in under `docs/schema/` (a test fails when they drift).

use schemars::{schema_for, Schema};

use crate::protocol::*;
use crate::*;

/// (file stem, schema) for every message of protocol v1.
pub fn all() -> Vec<(&'static str, Schema)> {
    vec![
        ("frame", schema_for!(Frame)),
        ("agent-message", schema_for!(AgentMessage)),
        ("context-engine-info", schema_for!(ContextEngineInfo)),
        ("initialize.params", schema_for!(InitializeParams)),
        ("initialize.result", schema_for!(InitializeResult)),
        ("bootstrap.params", schema_for!(BootstrapParams)),
        ("bootstrap.result", schema_for!(BootstrapResult)),
        ("maintain.params", schema_for!(MaintainParams)),
        ("maintain.result", schema_for!(MaintainResult)),
        ("ingest.params", schema_for!(IngestParams)),
        ("ingest.result", schema_for!(IngestResult)),
        ("ingestBatch.params", schema_for!(IngestBatchParams)),
        ("ingestBatch.result", schema_for!(IngestBatchResult)),
        ("afterTurn.params", schema_for!(AfterTurnParams)),
        ("commitTurn.params", schema_for!(CommitTurnParams)),
        ("commitTurn.result", schema_for!(CommitTurnResult)),
        ("assemble.params", schema_for!(AssembleParams)),
        ("assemble.result", schema_for!(AssembleResult)),
        ("compact.params", schema_for!(CompactParams)),
        ("compact.result", schema_for!(CompactResult)),
        ("prepareSubagentSpawn.params", schema_for!(PrepareSubagentSpawnParams)),
        ("prepareSubagentSpawn.result", schema_for!(Option<PrepareSubagentSpawnResult>)),
        ("onSubagentEnded.params", schema_for!(OnSubagentEndedParams)),
        ("rollback.params", schema_for!(RollbackParams)),
        ("sanitize.params", schema_for!(SanitizeParams)),
        ("sanitize.result", schema_for!(SanitizeResult)),
        ("abort.params", schema_for!(AbortParams)),
        ("host-llm-complete.params", schema_for!(LlmCompleteParams)),
        ("host-llm-complete.result", schema_for!(LlmCompleteResult)),
        ("runtime-settings", schema_for!(RuntimeSettings)),
        ("input-provenance", schema_for!(InputProvenance)),
        ("internal-event", schema_for!(AgentInternalEvent)),
    ]
}

/// Pretty JSON with a trailing newline, as checked in.
pub fn render(schema: &Schema) -> String {
    let mut s = serde_json::to_string_pretty(schema).expect("schema serialises");
    s.push('\n');
    s
}
