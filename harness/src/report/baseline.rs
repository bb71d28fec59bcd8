//! Known failures kept outside the suite (test262/WPT expectations, MCP
//! conformance baselines): a baselined failure does not fail the run; an entry
//! that no longer fails is stale and does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::check::Verdict;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Baseline {
    pub entries: Vec<Entry>,
}

/// `scenario` alone forgives every failure of that scenario; with `clause`,
/// only that clause; `profile` narrows further.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    pub reason: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Applied {
    /// Entries that matched a blocking verdict.
    pub used: Vec<Entry>,
    /// Entries that matched nothing: the failure is gone — remove them.
    pub stale: Vec<Entry>,
}

impl Entry {
    pub fn matches(&self, v: &Verdict) -> bool {
        self.scenario == v.scenario
            && self.clause.as_ref().is_none_or(|c| *c == v.clause)
            && self.profile.as_ref().is_none_or(|p| *p == v.profile)
    }
}

impl Baseline {
    pub fn load(path: &std::path::Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))
    }

    pub fn forgives(&self, v: &Verdict) -> bool {
        self.entries.iter().any(|e| e.matches(v))
    }

    /// Which entries were used and which are stale, given the blocking verdicts.
    pub fn apply(&self, blocking: &[&Verdict]) -> Applied {
        let mut a = Applied::default();
        for e in &self.entries {
            if blocking.iter().any(|v| e.matches(v)) {
                a.used.push(e.clone());
            } else {
                a.stale.push(e.clone());
            }
        }
        a
    }

    /// A baseline that forgives exactly the current blocking verdicts.
    pub fn from_failures(blocking: &[&Verdict], previous: &Baseline) -> Baseline {
        let mut entries: Vec<Entry> = Vec::new();
        for v in blocking {
            let reason = previous
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
