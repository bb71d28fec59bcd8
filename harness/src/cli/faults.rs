//! Engine faults on the terminal: what the engine did (the message carries
//! the offending line or fragment) and what it wrote on stderr, grouped so a
//! fault repeated in every run is shown once.

use std::collections::BTreeMap;

use crate::trace::{Outcome, Trace};

/// Distinct faults shown in full; the rest are counted (all are in the JSON report).
const SHOWN: usize = 5;
/// stderr lines shown per fault (its tail).
const STDERR_LINES: usize = 20;

pub fn terminal(traces: &[Trace]) -> String {
    crate::report::render::printable(&terminal_text(traces))
}

fn terminal_text(traces: &[Trace]) -> String {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<&Trace>> = BTreeMap::new();
    for t in traces {
        if let Outcome::EngineFault { kind, message, stderr, .. } = &t.outcome {
            groups.entry((kind.as_str(), message.as_str(), stderr.as_str())).or_default().push(t);
        }
    }
    let mut s = String::new();
    for ((kind, message, stderr), runs) in groups.iter().take(SHOWN) {
        let first = runs[0];
        let others = if runs.len() > 1 { format!(" and {} other run(s)", runs.len() - 1) } else { String::new() };
        s.push_str(&format!("\nENGINE FAULT {kind} in {} × {}{others}\n  {message}\n", first.scenario, first.profile));
        let lines: Vec<&str> = stderr.lines().collect();
        if lines.is_empty() {
            s.push_str("  (nothing on stderr)\n");
        } else {
            let skip = lines.len().saturating_sub(STDERR_LINES);
            s.push_str(&format!("  stderr{}:\n", if skip > 0 { format!(" (last {STDERR_LINES} of {} lines)", lines.len()) } else { String::new() }));
            for l in &lines[skip..] {
                s.push_str(&format!("  | {l}\n"));
            }
        }
    }
    if groups.len() > SHOWN {
        s.push_str(&format!("\n… {} more distinct engine faults (see --report)\n", groups.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faulted(scenario: &str, message: &str, stderr: &str) -> Trace {
        let mut t: Trace = serde_json::from_value(serde_json::json!({
            "scenario": scenario, "profile": "p", "engine": {"display": "e"}, "events": [],
            "outcome": {"status": "completed", "turns": 1}
        }))
        .unwrap();
        t.outcome = Outcome::EngineFault { kind: "non-json-line".into(), message: message.into(), step: 1, stderr: stderr.into() };
        t
    }

    #[test]
    fn the_same_fault_is_shown_once_with_its_stderr() {
        let m = "engine wrote a line that is not a JSON-RPC frame while handling assemble: x; the line: \"Loading plugin... done\"";
        let ts = vec![faulted("a", m, "boot\nloading\n"), faulted("b", m, "boot\nloading\n")];
        let out = terminal(&ts);
        assert_eq!(out.matches("ENGINE FAULT").count(), 1, "{out}");
        assert!(out.contains("in a × p and 1 other run(s)"), "{out}");
        assert!(out.contains("\"Loading plugin... done\""), "{out}");
        assert!(out.contains("  | loading\n"), "{out}");
    }

    #[test]
    fn long_stderr_shows_its_tail() {
        let err: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let out = terminal(&[faulted("a", "m", &err)]);
        assert!(out.contains("last 20 of 50 lines") && out.contains("| line 49") && !out.contains("| line 29\n"), "{out}");
    }
}
