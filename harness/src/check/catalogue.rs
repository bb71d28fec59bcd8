//! The clause catalogue: one entry per clause, one check function each
//! (`super::rules`). Ids are stable; never renumber — retire instead.

use super::rules::*;
use super::state::*;
use super::authority::*;
use super::{Clause, Level::*};

/// Every profile, marker-drift variants included.
const ALL: &[&str] = &[];
/// The base profiles without marker drift: the runtime's own marker texts.
const BASE: &[&str] = &["openclaw-2026.4.26", "openclaw-2026.9.6", "rfc-82137"];
/// Profiles with durable turns (commitTurn since 2026.8.2), drift variants included.
const CURRENT: &[&str] = &["openclaw-2026.9.6", "openclaw-2026.9.6+marker-drift", "rfc-82137", "rfc-82137+marker-drift"];
const RFC: &[&str] = &["rfc-82137", "rfc-82137+marker-drift"];
/// Released OpenClaw versions (not the RFC draft), drift variants included.
const RELEASED: &[&str] = &["openclaw-2026.4.26", "openclaw-2026.4.26+marker-drift", "openclaw-2026.9.6", "openclaw-2026.9.6+marker-drift"];
/// Marker drift where the RFC's structured signals are present.
const DRIFT_STRUCTURED: &[&str] = &["rfc-82137+marker-drift"];
/// Marker drift with only message text and `provenance` to go on.
const DRIFT_TEXT_ONLY: &[&str] = &["openclaw-2026.4.26+marker-drift", "openclaw-2026.9.6+marker-drift"];

pub static CLAUSES: &[Clause] = &[
    // assemble
    Clause { id: "CE-ASM-001", level: Must, text: "assemble returns an object with a `messages` array.", source: "openclaw src/context-engine/registry-contract.ts ensureAssembleResultShape (#75541)", profiles: ALL, methods: &["assemble"], check: asm_shape },
    Clause { id: "CE-ASM-002", level: Must, text: "every assembled message is a valid OpenClaw AgentMessage (known role, well-formed blocks).", source: "openclaw packages/agent-core/src/types.ts (modelled in contract/src: AgentMessage)", profiles: ALL, methods: &["assemble"], check: asm_messages_valid },
    Clause { id: "CE-ASM-003", level: Must, text: "assembled output has no toolCall without its toolResult and no orphan toolResult.", source: "the provider rejections of mock-providers/src/validate.rs (B1–B6); openclaw session-transcript-repair.ts (A8 #4650)", profiles: ALL, methods: &["assemble"], check: asm_tool_pairing },
    Clause { id: "CE-ASM-004", level: Must, text: "messages taken from the input keep their relative order.", source: "openclaw src/agents/pi-embedded-runner/run/attempt.ts (assembled messages replace the session's)", profiles: ALL, methods: &["assemble"], check: asm_order },
    Clause { id: "CE-ASM-005", level: Must, text: "the current turn is present in assembled output (or delivered through `prompt`).", source: "openclaw installContextEngineLoopHook (PR #63555); assemble `prompt` (PR #50848)", profiles: ALL, methods: &["assemble"], check: asm_current_turn },
    Clause { id: "CE-ASM-006", level: Should, text: "assembled context fits `tokenBudget` by the runtime's chars/4 estimate (10% tolerance), unless promptAuthority is preassembly_may_overflow.", source: "openclaw run/attempt-prompt-preflight.ts; promptAuthority (2026.5.7, #74233)", profiles: ALL, methods: &["assemble"], check: asm_budget },
    Clause { id: "CE-ASM-007", level: Should, text: "assembled history does not start with an assistant tool call or a tool result.", source: "lossless-claw #1193; Gemini function-call ordering (mock-providers/src/validate.rs B4)", profiles: ALL, methods: &["assemble"], check: asm_no_leading_tool },
    Clause { id: "CE-ASM-009", level: Must, text: "a user message the host sent more than once (\"yes\" twice) comes back as often as it was sent, within the history the engine keeps.", source: "openclaw src/agents/pi-embedded-runner/run/attempt.ts (assembled messages replace the session's: a dropped repeat is a lost turn); docs/detection.md#level-decisions", profiles: ALL, methods: &["assemble"], check: asm_repeats_kept },
    Clause { id: "CE-ASM-010", level: Must, text: "an engine that owns compaction keeps assembled context within `tokenBudget` (chars/4, 10% tolerance) unless promptAuthority is preassembly_may_overflow: the host no longer prechecks it.", source: "openclaw 2026.9.6 dist builtin-openclaw-*.mjs shouldSkipPrecheck (ownsCompaction skips the overflow precheck); docs/detection.md#level-decisions", profiles: CURRENT, methods: &["assemble"], check: asm_budget_owner },
    Clause { id: "CE-ASM-011", level: Must, text: "before the engine compacts, an assemble whose input needs at most half of `tokenBudget` returns every message the host sent, unchanged in text and count, and no user or assistant message the host did not send (engine-made content goes in summary or custom messages, or systemPromptAddition).", source: "openclaw src/context-engine/types.ts assemble (\"under a token budget\": trimming is for budget pressure); legacy engine returns the pipeline unchanged; docs/detection.md#level-decisions", profiles: ALL, methods: &["assemble"], check: asm_nothing_lost_with_room },
    Clause { id: "CE-ASM-008", level: Must, text: "`estimatedTokens` is a finite, non-negative number.", source: "openclaw src/context-engine/types.ts AssembleResult", profiles: ALL, methods: &["assemble"], check: asm_estimated_tokens },
    // volatile live input
    Clause { id: "CE-VOL-001", level: Must, text: "volatile live input past the pre-prompt boundary (announces, inter-session messages, retry prompts) is kept in assembled output.", source: "lossless-claw #688; openclaw RFC #82137 §1", profiles: BASE, methods: &["assemble"], check: vol_kept },
    Clause { id: "CE-VOL-002", level: Should, text: "volatile messages kept in assembled output keep their provenance.", source: "openclaw src/sessions/input-provenance.ts applyInputProvenanceToUserMessage", profiles: ALL, methods: &["assemble"], check: vol_provenance_kept },
    // persistence
    Clause { id: "CE-PER-001", level: Must, text: "text the runtime never persisted (suppressed announce triggers) is not returned as history the host did not send.", source: "openclaw src/gateway/agent-turn/agent-handler-helpers.ts shouldSuppressAgentPromptPersistence", profiles: ALL, methods: &["assemble"], check: per_no_resurrection },
    Clause { id: "CE-PER-002", level: Should, text: "assemble returns no message the host did not send, other than summaries of history it received.", source: "openclaw src/agents/pi-embedded-runner/run/attempt.ts (assembled messages replace the pipeline's)", profiles: ALL, methods: &["assemble"], check: per_no_invention },
    // compaction
    Clause { id: "CE-CMP-001", level: Must, text: "compact returns `{ok: boolean, compacted: boolean}`.", source: "openclaw src/context-engine/types.ts CompactResult", profiles: ALL, methods: &["compact"], check: cmp_shape },
    Clause { id: "CE-CMP-002", level: Must, text: "after compact reports ok+compacted, tokensAfter < tokensBefore and the next assemble fits its budget.", source: "openclaw run/overflow-context-recovery.ts; issue #124811", profiles: ALL, methods: &["compact", "assemble"], check: cmp_effective },
    Clause { id: "CE-CMP-003", level: Must, text: "a non-owning engine's forced overflow compaction is not a no-op (a no-op disables overflow recovery).", source: "OpenClaw docs; issue #124811; MUST (docs/detection.md#level-decisions): dist embedded-agent-*.mjs overflow recovery logs `auto-compaction failed` on compacted=false and falls back to truncation or surfaces the overflow", profiles: ALL, methods: &["compact"], check: cmp_not_noop },
    Clause { id: "CE-CMP-004", level: Must, text: "compact result token counts (tokensBefore, tokensAfter) are finite non-negative numbers.", source: "openclaw src/context-engine/types.ts CompactResult.result", profiles: ALL, methods: &["compact"], check: cmp_token_counts },
    Clause { id: "CE-CMP-006", level: Must, text: "after compact reports ok+compacted, the next assemble reflects it: a summary, or history it no longer returns (unless the host sent already-compacted history).", source: "openclaw src/context-engine/types.ts CompactResult (compacted = the engine's state changed); docs/detection.md#level-decisions", profiles: ALL, methods: &["compact", "assemble"], check: cmp_reflected },
    Clause { id: "CE-CMP-007", level: Must, text: "a compaction keeps a recent tail: the newest message sent to the next assemble comes back verbatim, not folded into the summary.", source: "openclaw src/agents/compaction.ts keepRecentTokens (recent turns kept verbatim); docs/detection.md#level-decisions", profiles: ALL, methods: &["compact", "assemble"], check: cmp_keeps_tail },
    Clause { id: "CE-CMP-005", level: Info, text: "a compaction that does not compact says why (`reason`).", source: "openclaw src/context-engine/types.ts CompactResult.reason", profiles: ALL, methods: &["compact"], check: cmp_reason },
    // bootstrap
    Clause { id: "CE-BOOT-001", level: Must, text: "bootstrap is idempotent: a repeated bootstrap imports no more messages than were added since the previous one.", source: "bootstrap before every attempt, a retry's too (twin-observed, docs/openclaw-facts.md; openclaw 2026.9.6 dist context-engine-lifecycle-*.mjs bootstrapHarnessContextEngine)", profiles: ALL, methods: &["bootstrap"], check: boot_idempotent },
    Clause { id: "CE-BOOT-002", level: Must, text: "bootstrap returns `{bootstrapped: boolean}`.", source: "openclaw src/context-engine/types.ts BootstrapResult", profiles: ALL, methods: &["bootstrap"], check: boot_shape },
    // turns
    Clause { id: "CE-TURN-001", level: Must, text: "ingest returns `{ingested: boolean}`; ingestBatch returns `{ingestedCount}` no larger than its input.", source: "openclaw src/context-engine/types.ts", profiles: ALL, methods: &[], check: turn_ingest_shape },
    Clause { id: "CE-TURN-002", level: Must, text: "afterTurn, ingest and ingestBatch do not throw on valid turns.", source: "openclaw 2026.9.6 dist/context-engine-lifecycle-BFtpAsr8.mjs finalizeHarnessContextEngineTurn: a throw sets postTurnFinalizationSucceeded = false and skips maintain(turn)", profiles: ALL, methods: &[], check: turn_no_throw },
    Clause { id: "CE-TURN-003", level: Must, text: "maintain returns `{changed, bytesFreed, rewrittenEntries}`.", source: "openclaw src/context-engine/types.ts maintain", profiles: ALL, methods: &["maintain"], check: turn_maintain_shape },
    Clause { id: "CE-TURN-004", level: Must, text: "commitTurn returns `{status: \"committed\" | \"duplicate\"}`.", source: "openclaw src/agents/harness/context-engine-turn-attempt.ts (2026.8.2)", profiles: CURRENT, methods: &["commitTurn"], check: turn_commit_shape },
    Clause { id: "CE-TURN-005", level: Must, text: "a replayed commitTurn (same advancementKey, same payload) returns `duplicate`.", source: "openclaw context-engine-turn-outbox.ts; transcriptSemantics atomic-idempotent-v1", profiles: CURRENT, methods: &["commitTurn"], check: turn_commit_replay },
    Clause { id: "CE-TURN-006", level: Must, text: "a commitTurn with an already committed advancementKey but a different payload is rejected (throws), not committed or reported duplicate.", source: "openclaw context-engine-turn-outbox.ts (key = logicalTurnId); transcriptSemantics atomic-idempotent-v1; MUST (docs/detection.md#level-decisions)", profiles: CURRENT, methods: &["commitTurn"], check: turn_commit_conflict },
    // host params and tolerance
    Clause { id: "CE-HOST-001", level: Must, text: "the engine tolerates host params it does not know (no unrecognized-key errors).", source: "openclaw src/context-engine/registry-contract.ts host-param projection; 2026.4.26 sessionKey compat retry", profiles: ALL, methods: &[], check: host_unknown_params },
    Clause { id: "CE-HOST-002", level: Should, text: "messages kept in assembled output keep every field they came with, unknown fields included.", source: "stored messages carry __openclaw, provenance and display (twin-observed, docs/openclaw-facts.md)", profiles: ALL, methods: &["assemble"], check: host_fields_kept },
    // coverage
    Clause { id: "CE-COV-001", level: Must, text: "an engine registered as the context engine does not have its admitted turns silently run on legacy (2026.9.6 degrades a logical turn to legacy when `transcriptSemantics` {currentTurnFence, turnAdvancementIdempotency} is not declared or commitTurn is missing).", source: "openclaw 2026.9.6 dist/context-engine-turn-attempt-DSC8Rp90.mjs createContextEngineLogicalTurnLease (resolveSelectionIssue → degradeBeforeStart); headroom #3441, gbrain #4818, lossless-claw #971", profiles: RELEASED, methods: &[], check: cov_no_silent_legacy },
    // robustness
    Clause { id: "CE-LIFE-001", level: Must, text: "every call answers within its timeout.", source: "openclaw compaction-safety-timeout.ts (180 s compaction)", profiles: ALL, methods: &[], check: life_timeouts },
    Clause { id: "CE-LIFE-002", level: Must, text: "the engine never crashes or breaks the protocol, and exits after shutdown.", source: "docs/protocol.md (driver faults)", profiles: ALL, methods: &[], check: life_no_fault },
    Clause { id: "CE-LIFE-003", level: Must, text: "assemble does not throw on valid OpenClaw messages (custom roles, images, thinking, redacted thinking).", source: "openclaw packages/agent-core/src/types.ts (contract/src AgentMessage: custom roles, images, thinking); openclaw #75541 class", profiles: ALL, methods: &["assemble"], check: life_assemble_no_throw },
    // provenance
    Clause { id: "CE-PROV-001", level: Must, text: "text of inter-session or untrusted input does not reappear in systemPromptAddition stripped of its provenance.", source: "openclaw untrusted-context.ts, input-provenance.ts; MUST (docs/detection.md#level-decisions): dist builtin-openclaw-*.mjs prependSystemPromptAddition gives it system-prompt authority", profiles: ALL, methods: &["assemble"], check: prov_not_laundered },
    // RFC #82137 and marker drift
    Clause { id: "CE-RFC-001", level: Must, text: "the RFC #82137 assemble fields (prePromptMessageCount, inputProvenance[], internalEvents[]) never make assemble throw.", source: "openclaw RFC #82137 §2", profiles: RFC, methods: &["assemble"], check: rfc_no_throw },
    Clause { id: "CE-RFC-002", level: Should, text: "under marker drift with the RFC's structured signals, volatile live input is still kept (structured signals, not text sniffing).", source: "RFC #82137 §1 (markers may change), §2 (prePromptMessageCount, inputProvenance[], internalEvents[])", profiles: DRIFT_STRUCTURED, methods: &["assemble"], check: vol_kept },
    Clause { id: "CE-RFC-004", level: Info, text: "under marker drift without structured signals, volatile live input is still kept (a text-sniffing engine loses it).", source: "RFC #82137 §1 (marker texts are not a stable API)", profiles: DRIFT_TEXT_ONLY, methods: &["assemble"], check: vol_kept },
    Clause { id: "CE-RFC-003", level: Info, text: "assemble results are the same with and without the RFC fields (the engine ignores them or does not need them).", source: "RFC #82137 (non-breaking)", profiles: RFC, methods: &["assemble"], check: rfc_info },
    // provider acceptance
    Clause { id: "CE-WIRE-001", level: Must, text: "the assembled context, after the host's transcript repair, is accepted by the provider.", source: "the host's hygiene before every call (runtime/pipeline.rs, cited per pass) and the provider rejections of mock-providers/src/validate.rs (B1–B6)", profiles: ALL, methods: &["assemble"], check: wire_accepted },
    // subagents
    Clause { id: "CE-SUB-001", level: Must, text: "prepareSubagentSpawn returns null or `{rollback: handle}`.", source: "openclaw src/agents/subagents/spawn/subagent-spawn-context.ts", profiles: ALL, methods: &["prepareSubagentSpawn"], check: sub_prepare_shape },
    Clause { id: "CE-SUB-002", level: Must, text: "a rollback handle returned by prepareSubagentSpawn can be called.", source: "same file (rollback when the launch fails)", profiles: ALL, methods: &["prepareSubagentSpawn"], check: sub_rollback },
    Clause { id: "CE-SUB-003", level: Should, text: "onSubagentEnded does not throw (it is best effort).", source: "openclaw subagent-registry-context-cleanup.ts", profiles: ALL, methods: &["onSubagentEnded"], check: sub_ended_no_throw },
];
