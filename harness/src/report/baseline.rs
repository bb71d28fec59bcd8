//! Known failures kept outside the suite (test262/WPT expectations, MCP
//! conformance baselines): a baselined failure does not fail the run; an entry
//! that no longer fails is stale and does. Staleness is judged only where the
//! run looked: an entry for a scenario × profile this run (or shard) did not
//! execute is `outsideSelection`, neither used nor stale.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::check::Verdict;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Baseline {
    pub entries: Vec<Entry>,
}

/// `scenario` alone forgives every failure of that scenario; with `clause`,
/// only that clause; `profile` narrows further.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    pub reason: String,
}

/// How a baseline applied to one run. `used`, `stale` and `outsideSelection`
/// partition the baseline's entries (each sorted), so a merge can rebuild it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Applied {
    /// Entries that matched a blocking verdict.
    pub used: Vec<Entry>,
    /// Entries that matched nothing the run executed: the failure is gone — remove them.
    pub stale: Vec<Entry>,
    /// Entries about scenario × profile pairs (or clauses) this run did not
    /// execute: not judged.
    #[serde(default, rename = "outsideSelection", skip_serializing_if = "Vec::is_empty")]
    pub outside_selection: Vec<Entry>,
}

/// What a run executed: its scenario × profile pairs and its `--clause` filter.
pub struct Scope<'a> {
    pub runs: &'a [(String, String)],
    pub clauses: &'a [String],
}

impl Scope<'_> {
    pub fn covers(&self, e: &Entry) -> bool {
        self.runs.iter().any(|(s, p)| *s == e.scenario && e.profile.as_ref().is_none_or(|ep| ep == p))
            && (self.clauses.is_empty() || e.clause.as_ref().is_none_or(|c| self.clauses.contains(c)))
    }
}

impl Entry {
    pub fn matches(&self, v: &Verdict) -> bool {
        self.scenario == v.scenario
            && self.clause.as_ref().is_none_or(|c| *c == v.clause)
            && self.profile.as_ref().is_none_or(|p| *p == v.profile)
    }
}

impl Applied {
    /// The baseline these bookkeeping lists came from.
    pub fn entries(&self) -> Baseline {
        let mut entries: Vec<Entry> = self.used.iter().chain(&self.stale).chain(&self.outside_selection).cloned().collect();
        entries.sort();
        Baseline { entries }
    }
}

impl Baseline {
    /// Read and check a baseline: JSON errors at file:line:col; an entry
    /// naming an unknown clause or profile is an error, not "now passes".
    pub fn load(path: &std::path::Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
        b.check(&text).map_err(|(line, col, msg)| format!("{}:{line}:{col}: {msg}", path.display()))?;
        Ok(b)
    }

    /// Unknown clause ids and profiles, located at their first mention in `text`.
    fn check(&self, text: &str) -> Result<(), (usize, usize, String)> {
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(c) = &e.clause {
                if crate::check::clause(c).is_none() {
                    let (l, col) = locate(text, c);
                    return Err((l, col, format!("entries[{i}]: unknown clause {c:?} (see `clawspec list clauses`)")));
                }
            }
            if let Some(p) = &e.profile {
                if crate::runtime::profile::Profile::by_id(p).is_none() {
                    let (l, col) = locate(text, p);
                    return Err((l, col, format!("entries[{i}]: unknown profile {p:?}; profiles: {}", crate::runtime::profile::PROFILE_IDS.join(", "))));
                }
            }
        }
        Ok(())
    }

    /// Entries naming a scenario the library does not have (a typo would
    /// otherwise lie "outside this selection" for ever).
    pub fn check_scenarios(&self, library: &[String], path: &std::path::Path) -> Result<(), String> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for (i, e) in self.entries.iter().enumerate() {
            if !library.contains(&e.scenario) {
                let (l, col) = locate(&text, &e.scenario);
                return Err(format!("{}:{l}:{col}: entries[{i}]: unknown scenario {:?} (not in the scenario library; see `clawspec list`)", path.display(), e.scenario));
            }
        }
        Ok(())
    }

    pub fn forgives(&self, v: &Verdict) -> bool {
        self.entries.iter().any(|e| e.matches(v))
    }

    /// Which entries were used, which are stale and which lie outside what
    /// the run executed, given its blocking verdicts.
    pub fn apply(&self, blocking: &[&Verdict], scope: &Scope) -> Applied {
        let mut a = Applied::default();
        for e in &self.entries {
            if blocking.iter().any(|v| e.matches(v)) {
                a.used.push(e.clone());
            } else if scope.covers(e) {
                a.stale.push(e.clone());
            } else {
                a.outside_selection.push(e.clone());
            }
        }
        for l in [&mut a.used, &mut a.stale, &mut a.outside_selection] {
            l.sort();
            l.dedup();
        }
        a
    }

    /// The baseline `--update-baseline` writes: exactly the current blocking
    /// verdicts within the run's scope (reasons kept), plus every entry the
    /// run did not look at, untouched.
    pub fn updated(&self, blocking: &[&Verdict], scope: &Scope) -> Baseline {
        let mut entries: Vec<Entry> = self.entries.iter().filter(|e| !scope.covers(e) && !blocking.iter().any(|v| e.matches(v))).cloned().collect();
        for v in blocking {
            let reason = self
                .entries
                .iter()
                .find(|e| e.matches(v))
                .map(|e| e.reason.clone())
                .unwrap_or_else(|| format!("known failure recorded by --update-baseline: {}", v.details.first().cloned().unwrap_or_default()));
            let e = Entry { scenario: v.scenario.clone(), clause: Some(v.clause.clone()), profile: Some(v.profile.clone()), reason };
            if !entries.contains(&e) {
                entries.push(e);
            }
        }
        Baseline { entries }
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap();
        s.push('\n');
        s
    }
}

/// 1-based line and column of the first `"needle"` in `text`.
fn locate(text: &str, needle: &str) -> (usize, usize) {
    let quoted = serde_json::to_string(needle).unwrap_or_default();
    match text.find(&quoted) {
        Some(at) => {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let col = before.rfind('\n').map_or(at, |nl| at - nl - 1) + 1;
            (line, col)
        }
        None => (1, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Level, Status};

    fn fail(scenario: &str, profile: &str, clause: &str) -> Verdict {
        Verdict { clause: clause.into(), level: Level::Must, scenario: scenario.into(), profile: profile.into(), status: Status::Fail, details: vec!["x".into()], error_kind: None, engine_output: vec![] }
    }

    fn entry(scenario: &str, clause: Option<&str>, profile: Option<&str>) -> Entry {
        Entry { scenario: scenario.into(), clause: clause.map(Into::into), profile: profile.map(Into::into), reason: "r".into() }
    }

    #[test]
    fn staleness_only_where_the_run_looked() {
        let b = Baseline {
            entries: vec![
                entry("a", Some("CE-ASM-003"), Some("openclaw-2026.9.6")),
                entry("a", Some("CE-ASM-004"), None),
                entry("b", None, None),
                entry("a", None, Some("rfc-82137")),
            ],
        };
        let runs = vec![("a".to_string(), "openclaw-2026.9.6".to_string())];
        let v = fail("a", "openclaw-2026.9.6", "CE-ASM-003");
        let applied = b.apply(&[&v], &Scope { runs: &runs, clauses: &[] });
        assert_eq!(applied.used, vec![b.entries[0].clone()]);
        assert_eq!(applied.stale, vec![b.entries[1].clone()], "a × 9.6 ran and CE-ASM-004 passed");
        assert_eq!(applied.outside_selection.len(), 2, "b and a × rfc-82137 did not run: {applied:?}");
        assert_eq!(applied.entries().entries.len(), 4);
        // A --clause filter that excludes CE-ASM-004 leaves its entry unjudged.
        let only = vec!["CE-ASM-003".to_string()];
        let applied = b.apply(&[&v], &Scope { runs: &runs, clauses: &only });
        assert!(applied.stale.is_empty(), "{applied:?}");
    }

    #[test]
    fn update_keeps_entries_outside_the_selection() {
        let b = Baseline { entries: vec![entry("a", Some("CE-ASM-004"), None), entry("b", None, None)] };
        let runs = vec![("a".to_string(), "openclaw-2026.9.6".to_string())];
        let v = fail("a", "openclaw-2026.9.6", "CE-ASM-003");
        let nb = b.updated(&[&v], &Scope { runs: &runs, clauses: &[] });
        assert_eq!(nb.entries.len(), 2, "{nb:?}");
        assert_eq!(nb.entries[0], b.entries[1], "b was not run: kept");
        assert_eq!(nb.entries[1].clause.as_deref(), Some("CE-ASM-003"));
    }

    #[test]
    fn unknown_clause_or_profile_is_a_located_error() {
        let text = "{\"entries\": [\n  {\"scenario\": \"a\", \"clause\": \"CE-NOPE-001\", \"reason\": \"r\"}\n]}";
        let b: Baseline = serde_json::from_str(text).unwrap();
        let (l, c, m) = b.check(text).unwrap_err();
        assert_eq!((l, c), (2, 31), "{m}");
        assert!(m.contains("unknown clause \"CE-NOPE-001\""), "{m}");
        let text = "{\"entries\": [{\"scenario\": \"a\", \"profile\": \"openclaw-1999\", \"reason\": \"r\"}]}";
        let b: Baseline = serde_json::from_str(text).unwrap();
        assert!(b.check(text).unwrap_err().2.contains("unknown profile \"openclaw-1999\""));
    }
}
