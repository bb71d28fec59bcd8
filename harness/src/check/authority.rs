//! Clauses that are MUST only where the host relies on the engine alone
//! (issue 16 level decisions, docs/detection.md#level-decisions): the same
//! check as a SHOULD clause, scoped to the engines and profiles where no host
//! safety net repairs the mistake.

use super::rules::{asm_budget, Outcome, Skip};
use super::Ctx;

/// CE-ASM-010: an engine that owns compaction stays within `tokenBudget`.
/// From 2026.8 the host skips its overflow precheck for such engines
/// (openclaw dist `builtin-openclaw-*.mjs` `shouldSkipPrecheck`: `ownsCompaction
/// && promptAuthority !== "preassembly_may_overflow"`), so an over-budget
/// assembly goes to the provider unchecked.
pub fn asm_budget_owner(c: &Ctx<'_>) -> Outcome {
    if !c.owns_compaction {
        return Err(Skip::NotApplicable("the engine does not own compaction: the host's precheck guards the budget (CE-ASM-006)".into()));
    }
    asm_budget(c)
}
