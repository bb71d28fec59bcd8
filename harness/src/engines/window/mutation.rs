//! One-defect variants of the window engine (`clawspec engine window:<name>`),
//! used to prove that each MUST clause catches the defect it names
//! (harness/tests/mutants.rs). Defects that replace a whole call live here;
//! defects inside the algorithms (budget fitting, store, compaction) are
//! switched where they happen, on the same enum.

use serde_json::{json, Value};

use crate::engines::serve::{Fail, Outcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    None,
    DropVolatileTail,
    SplitToolPair,
    ExceedBudget,
    NanTokens,
    OmitMessages,
    ReingestSuppressed,
    NonIdempotentBootstrap,
    CommitNeverDuplicate,
    CrashOnCustomRole,
    NoopCompact,
    LaunderProvenance,
    ReorderMessages,
    DropCurrentTurn,
    BadMessage,
    CompactBadShape,
    CompactLies,
    CompactNanCounts,
    BootstrapBadShape,
    IngestBadShape,
    ThrowInAfterTurn,
    MaintainBadShape,
    CommitBadStatus,
    RejectUnknownParams,
    HangInCompact,
    ThrowOnImages,
    ThrowOnRfcFields,
    SpawnBadShape,
    RollbackThrows,
    BadImageType,
    /// Registers as a context engine without declaring durable turns
    /// (transcriptSemantics, commitTurn): 2026.9.6 runs its turns on legacy.
    UndeclaredDurable,
    CommitUpsert,
    CompactEverything,
    CompactUnsavedSummary,
    DedupeRepeats,
    LeakHelper,
    FixedWindow,
}

pub const MUTATIONS: &[(&str, Mutation)] = &[
    ("drop-volatile-tail", Mutation::DropVolatileTail),
    ("split-tool-pair", Mutation::SplitToolPair),
    ("exceed-budget", Mutation::ExceedBudget),
    ("nan-tokens", Mutation::NanTokens),
    ("omit-messages", Mutation::OmitMessages),
    ("reingest-suppressed", Mutation::ReingestSuppressed),
    ("nonidempotent-bootstrap", Mutation::NonIdempotentBootstrap),
    ("commit-never-duplicate", Mutation::CommitNeverDuplicate),
    ("crash-on-custom-role", Mutation::CrashOnCustomRole),
    ("noop-compact", Mutation::NoopCompact),
    ("launder-provenance", Mutation::LaunderProvenance),
    ("reorder-messages", Mutation::ReorderMessages),
    ("drop-current-turn", Mutation::DropCurrentTurn),
    ("bad-message", Mutation::BadMessage),
    ("compact-bad-shape", Mutation::CompactBadShape),
    ("compact-lies", Mutation::CompactLies),
    ("compact-nan-counts", Mutation::CompactNanCounts),
    ("bootstrap-bad-shape", Mutation::BootstrapBadShape),
    ("ingest-bad-shape", Mutation::IngestBadShape),
    ("throw-in-after-turn", Mutation::ThrowInAfterTurn),
    ("maintain-bad-shape", Mutation::MaintainBadShape),
    ("commit-bad-status", Mutation::CommitBadStatus),
    ("reject-unknown-params", Mutation::RejectUnknownParams),
    ("hang-in-compact", Mutation::HangInCompact),
    ("throw-on-images", Mutation::ThrowOnImages),
    ("throw-on-rfc-fields", Mutation::ThrowOnRfcFields),
    ("spawn-bad-shape", Mutation::SpawnBadShape),
    ("rollback-throws", Mutation::RollbackThrows),
    ("bad-image-type", Mutation::BadImageType),
    ("undeclared-durable", Mutation::UndeclaredDurable),
    // Defect classes found by engines written apart from the contract (issue 16).
    ("commit-upsert", Mutation::CommitUpsert),
    ("compact-everything", Mutation::CompactEverything),
    ("compact-unsaved-summary", Mutation::CompactUnsavedSummary),
    ("dedupe-repeats", Mutation::DedupeRepeats),
    ("leak-helper", Mutation::LeakHelper),
    ("fixed-window", Mutation::FixedWindow),
];

/// The mutation called `name` (`window:<name>`).
pub fn mutation(name: &str) -> Option<Mutation> {
    MUTATIONS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

impl Mutation {
    /// Defects that replace a call's behaviour outright, before it runs.
    pub fn before(self, method: &str, params: &Value) -> Option<Outcome> {
        use Mutation::*;
        match (self, method) {
            // A zod `.strict()` schema, as some plugins had before host-param
            // projection (openclaw-contract.md §2.6).
            (RejectUnknownParams, _) if params.get("runtimeSettings").is_some() => {
                Some(Err(Fail::Threw("Unrecognized key(s) in object: 'runtimeSettings'".into())))
            }
            (ThrowInAfterTurn, "afterTurn") => Some(Err(Fail::Threw("afterTurn exploded".into()))),
            (HangInCompact, "compact") => {
                std::thread::sleep(std::time::Duration::from_secs(3600));
                Option::None
            }
            (ThrowOnImages, "assemble") if params["messages"].to_string().contains("\"type\":\"image\"") => {
                Some(Err(Fail::Threw("cannot handle image blocks".into())))
            }
            (ThrowOnRfcFields, "assemble") if params.get("inputProvenance").is_some() => {
                Some(Err(Fail::Threw("unexpected field inputProvenance".into())))
            }
            (RollbackThrows, "rollback") => Some(Err(Fail::Threw("rollback failed".into()))),
            _ => Option::None,
        }
    }

    /// Defects that corrupt a call's result after it ran.
    pub fn after(self, method: &str, mut out: Value) -> Value {
        use Mutation::*;
        match (self, method) {
            // `role:"tool"` does not exist in OpenClaw's AgentMessage (openclaw-contract.md §3).
            (BadMessage, "assemble") => {
                if let Some(a) = out["messages"].as_array_mut() {
                    a.push(json!({"role": "tool", "content": "tool output in the wrong shape"}));
                }
            }
            (BadImageType, "assemble") => {
                // Re-encodes images as BMP, which no provider accepts. Relabelling
                // alone is not enough: the host re-sniffs the mime type from the
                // magic bytes (openclaw `src/agents/tool-images.ts`), so the bytes
                // must really be a BMP.
                for m in out["messages"].as_array_mut().into_iter().flatten() {
                    for b in m["content"].as_array_mut().into_iter().flatten() {
                        if b["type"] == "image" {
                            b["mimeType"] = json!("image/bmp");
                            b["data"] = json!(TINY_BMP);
                        }
                    }
                }
            }
            (CompactBadShape, "compact") => out = json!({"done": true}),
            (CompactLies, "compact") => {
                out = json!({"ok": true, "compacted": true, "result": {"summary": "(nothing)", "tokensBefore": 100, "tokensAfter": 5000}})
            }
            (CompactNanCounts, "compact") => {
                out = json!({"ok": true, "compacted": false, "reason": "skipped", "result": {"tokensBefore": null}})
            }
            (BootstrapBadShape, "bootstrap") => out = json!({}),
            (IngestBadShape, "ingest") => out = json!({}),
            (IngestBadShape, "ingestBatch") => out = json!({"ingestedCount": 1_000_000}),
            (MaintainBadShape, "maintain") => out = json!({"ok": true}),
            (CommitBadStatus, "commitTurn") => out = json!({"status": "ok"}),
            (SpawnBadShape, "prepareSubagentSpawn") => out = json!({"rollback": "function"}),
            _ => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_is_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for (name, m) in MUTATIONS {
            assert!(seen.insert(*name), "duplicate mutation name {name}");
            assert_eq!(mutation(name), Some(*m));
            assert_ne!(*m, Mutation::None);
        }
        assert_eq!(mutation("nope"), Option::None);
    }
}

/// A 1×1 24-bit BMP ("BM" magic), for the `bad-image-type` mutant.
const TINY_BMP: &str = "Qk06AAAAAAAAADYAAAAoAAAAAQAAAAEAAAABABgAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAD/AA==";
