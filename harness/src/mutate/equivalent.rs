//! Mutants reviewed as equivalent: the operator changes nothing any host can
//! observe for this engine. Each entry says why; the list is per engine,
//! because equivalence depends on what the engine does. For other engines,
//! `clawspec mutate --equivalent FILE` reads `{"operator-id": "reason"}`.

use std::collections::BTreeMap;

/// The built-in `window` engine.
const WINDOW: &[(&str, &str)] = &[
    (
        "ingest-batch-overcount",
        "window implements afterTurn, so the host finalizes turns through afterTurn and never calls ingestBatch (openclaw finalize prefers afterTurn); no scenario can reach the mutated answer",
    ),
    (
        "ingest-drop-field",
        "window implements afterTurn, so the host never calls ingest on it; no scenario can reach the mutated answer",
    ),
    (
        "skip-after-turn",
        "window's bootstrap re-imports the session file (idempotently) before every attempt, so what afterTurn would store arrives with the next bootstrap; the one difference is that a compaction between turns may summarise one message fewer, which changes only the summary's wording, never which host messages come back (reviewed on compact-state-effect and the overflow scenarios)",
    ),
    (
        "subagent-ended-throws",
        "the host treats onSubagentEnded as best effort: openclaw dist subagent-registry-*.mjs tryContextEngineSubagentEnded catches the throw, logs \"context-engine onSubagentEnded failed (best-effort)\" and goes on; window keeps nothing the host reads back from it",
    ),
];

pub fn builtin(display: &str) -> BTreeMap<String, String> {
    let list: &[(&str, &str)] = match display {
        "builtin:window" => WINDOW,
        _ => &[],
    };
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// `--equivalent FILE`: a JSON object operator id → reason; unknown ids are errors.
pub fn load(path: &std::path::Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let map: BTreeMap<String, String> = serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
    for k in map.keys() {
        if super::operators::operator(k).is_none() {
            return Err(format!("{}: unknown operator {k:?}; see `clawspec mutate --list`", path.display()));
        }
    }
    Ok(map)
}
