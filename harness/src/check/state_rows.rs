//! Table rows for the state-based clauses (`state.rs`) and the MUST-where-
//! the-host-relies clauses (`authority.rs`), checked by the same tests as
//! `tests.rs`'s rows.

use serde_json::json;

use super::*;

fn summary() -> Value {
    json!({"role": "compactionSummary", "summary": "earlier: a", "tokensBefore": 0})
}

fn merged_users(texts: &[&str]) -> Value {
    json!({"role": "user", "content": texts.iter().map(|t| json!({"type": "text", "text": t})).collect::<Vec<_>>(), "timestamp": 2})
}

/// A compaction the engine delegated to the runtime (`host/delegateCompaction`).
fn delegated(mut c: CallRecord) -> CallRecord {
    c.callbacks.push(crate::trace::CallbackRecord { method: "host/delegateCompaction".into(), params: json!({}), result: json!({"ok": true, "compacted": true}) });
    c
}

fn with_session(mut c: CallRecord, session: &str) -> CallRecord {
    c.params["sessionId"] = json!(session);
    c
}

fn owner(calls: Vec<CallRecord>) -> Trace {
    let mut t = trace(calls);
    t.engine.info = Some(json!({"id": "unit", "ownsCompaction": true}));
    t
}

pub(super) const ROWS: &[Row] = &[
    ("repeats kept", "CE-ASM-009", || trace(vec![asm(vec![user("yes", 1), assistant("more?"), user("yes", 3)], vec![user("yes", 1), assistant("more?"), user("yes", 3)])]), Status::Pass),
    ("second yes dropped", "CE-ASM-009", || trace(vec![asm(vec![user("yes", 1), assistant("more?"), user("yes", 3)], vec![user("yes", 1), assistant("more?")])]), Status::Fail),
    // The trimmed part (up to the dropped unique "first") is not judged.
    ("older repeat trimmed with its turn", "CE-ASM-009", || {
        trace(vec![asm(vec![user("yes", 1), assistant("first"), user("yes", 3), assistant("second")], vec![user("yes", 3), assistant("second")])])
    }, Status::NotApplicable),
    ("no repeats", "CE-ASM-009", || trace(vec![asm(vec![user("a", 1)], vec![user("a", 1)])]), Status::NotApplicable),
    ("owner within budget", "CE-ASM-010", || owner(vec![asm(vec![], vec![user(&"x".repeat(400), 1)])]), Status::Pass),
    ("owner over budget", "CE-ASM-010", || owner(vec![asm(vec![], vec![user(&"x".repeat(4800), 1)])]), Status::Fail),
    ("non-owner over budget", "CE-ASM-010", || trace(vec![asm(vec![], vec![user(&"x".repeat(4800), 1)])]), Status::NotApplicable),
    ("all kept with room", "CE-ASM-011", || trace(vec![asm(vec![user("a", 1), assistant("b")], vec![user("a", 1), assistant("b")])]), Status::Pass),
    ("lost with room", "CE-ASM-011", || trace(vec![asm(vec![user("a", 1), user("b", 2)], vec![user("b", 2)])]), Status::Fail),
    ("made-up user message", "CE-ASM-011", || trace(vec![asm(vec![user("a", 1)], vec![user("Continue.", 0), user("a", 1)])]), Status::Fail),
    // lossless-claw 1.0, budget-tight-volatile × 9.6: the loop hook's input is
    // the engine's trimmed view; the engine brings back history the host sent
    // to the attempt's first assemble.
    ("history sent to an earlier assemble comes back", "CE-ASM-011", || trace(vec![asm(vec![user(&"a".repeat(2400), 1), user("b", 2)], vec![user("b", 2)]), asm(vec![user("b", 2)], vec![user(&"a".repeat(2400), 1), user("b", 2)])]), Status::Pass),
    ("history of another session is made up", "CE-ASM-011", || trace(vec![asm(vec![user(&"a".repeat(2400), 1), user("b", 2)], vec![user("b", 2)]), with_session(asm(vec![user("b", 2)], vec![user(&"a".repeat(2400), 1), user("b", 2)]), "t")]), Status::Fail),
    // lossless-claw 1.0, regression-a8-split-tool-pair × 9.6: the host merged
    // two consecutive users; the engine's store returns them apart.
    ("host-merged users come back apart with room", "CE-ASM-011", || trace(vec![asm(vec![merged_users(&["a", "b"]), assistant("c")], vec![user("a", 1), user("b", 2), assistant("c")])]), Status::Pass),
    ("a host-merged user comes back with an extra blank part", "CE-ASM-011", || trace(vec![asm(vec![merged_users(&["a", "b"])], vec![merged_users(&["   ", "a"]), user("b", 2)])]), Status::Fail),
    ("summary added is fine", "CE-ASM-011", || trace(vec![asm(vec![user("a", 1)], vec![summary(), user("a", 1)])]), Status::Pass),
    ("after a compaction", "CE-ASM-011", || trace(vec![compact(compacted(900, 100)), asm(vec![user("a", 1)], vec![])]), Status::NotApplicable),
    ("compaction shows", "CE-CMP-006", || trace(vec![compact(compacted(900, 100)), asm(vec![user("a", 1), user("b", 2)], vec![summary(), user("b", 2)])]), Status::Pass),
    ("compaction left no trace", "CE-CMP-006", || trace(vec![compact(compacted(900, 100)), asm(vec![user("a", 1), user("b", 2)], vec![user("a", 1), user("b", 2)])]), Status::Fail),
    ("host compacted", "CE-CMP-006", || trace(vec![compact(compacted(900, 100)), asm(vec![summary(), user("b", 2)], vec![summary(), user("b", 2)])]), Status::Pass),
    ("no compaction", "CE-CMP-006", || trace(vec![asm(vec![user("a", 1)], vec![user("a", 1)])]), Status::NotApplicable),
    ("tail kept", "CE-CMP-007", || trace(vec![compact(compacted(900, 100)), asm(vec![user("a", 1), user("b", 2)], vec![summary(), user("b", 2)])]), Status::Pass),
    ("everything summarised", "CE-CMP-007", || trace(vec![compact(compacted(900, 100)), asm(vec![user("a", 1), user("b", 2)], vec![summary()])]), Status::Fail),
    // lossless-claw 1.0, budget-tight-multiturn × 9.6: the host merged two
    // consecutive users into one message of two text blocks; the engine's
    // store returns them apart — the tail is kept.
    ("host-merged users come back apart", "CE-CMP-007", || trace(vec![compact(compacted(900, 100)), asm(vec![merged_users(&["a", "b"])], vec![user("a", 1), user("b", 2)])]), Status::Pass),
    ("only part of a host-merged user", "CE-CMP-007", || trace(vec![compact(compacted(900, 100)), asm(vec![merged_users(&["a", "b"])], vec![user("a", 1)])]), Status::Fail),
    ("the runtime's own compaction (delegated)", "CE-CMP-007", || trace(vec![delegated(compact(compacted(900, 100))), asm(vec![user("a", 1), user("b", 2)], vec![summary()])]), Status::NotApplicable),
    ("declined compaction", "CE-CMP-007", || trace(vec![compact(json!({"ok": true, "compacted": false, "reason": "small"})), asm(vec![user("a", 1)], vec![])]), Status::NotApplicable),
];
