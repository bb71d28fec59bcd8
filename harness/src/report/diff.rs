//! `clawspec diff OLD.json NEW.json`: what changed between two reports.

use std::collections::BTreeMap;

use super::Report;
use crate::check::Status;

#[derive(Debug, Default, PartialEq)]
pub struct Diff {
    pub newly_failing: Vec<String>,
    pub newly_passing: Vec<String>,
    pub changed_messages: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

fn bad(s: Status) -> bool {
    matches!(s, Status::Fail | Status::Error | Status::Warn)
}

pub fn diff(old: &Report, new: &Report) -> Diff {
    let index = |r: &Report| -> BTreeMap<(String, String, String), (Status, Vec<String>)> {
        r.verdicts.iter().map(|v| ((v.scenario.clone(), v.profile.clone(), v.clause.clone()), (v.status, v.details.clone()))).collect()
    };
    let (a, b) = (index(old), index(new));
    let mut d = Diff::default();
    let name = |k: &(String, String, String)| format!("{} {} {}", k.2, k.0, k.1);
    for (k, (ns, nd)) in &b {
        match a.get(k) {
            None => d.added.push(format!("{} ({ns:?})", name(k))),
            Some((os, od)) => {
                if !bad(*os) && bad(*ns) {
                    d.newly_failing.push(format!("{}: {os:?} → {ns:?}{}", name(k), nd.first().map(|m| format!(" — {m}")).unwrap_or_default()));
                } else if bad(*os) && !bad(*ns) {
                    d.newly_passing.push(format!("{}: {os:?} → {ns:?}", name(k)));
                } else if os == ns && od != nd {
                    d.changed_messages.push(format!("{}: {} → {}", name(k), first_detail(od), first_detail(nd)));
                }
            }
        }
    }
    for k in a.keys().filter(|k| !b.contains_key(*k)) {
        d.removed.push(name(k));
    }
    d
}

/// A verdict's first detail line as plain text (never Rust's `Some("…")`).
fn first_detail(details: &[String]) -> String {
    details.first().map(|d| d.lines().next().unwrap_or_default().to_string()).unwrap_or_else(|| "(no detail)".into())
}

impl Diff {
    pub fn is_regression(&self) -> bool {
        !self.newly_failing.is_empty()
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        for (title, items) in [
            ("newly failing", &self.newly_failing),
            ("newly passing", &self.newly_passing),
            ("changed messages", &self.changed_messages),
            ("added", &self.added),
            ("removed", &self.removed),
        ] {
            s.push_str(&format!("{title}: {}\n", items.len()));
            for i in items {
                s.push_str(&format!("  {i}\n"));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Level, Verdict};

    fn report(detail: &str) -> Report {
        let v = Verdict { clause: "CE-ASM-003".into(), level: Level::Must, scenario: "s".into(), profile: "p".into(), status: Status::Fail, details: vec![detail.into()], error_kind: None, engine_output: vec![] };
        super::super::build("e", &[], vec![v], &["p".into()], false, None)
    }

    #[test]
    fn changed_messages_are_plain_text() {
        let d = diff(&report("old reason"), &report("new reason"));
        assert_eq!(d.changed_messages, ["CE-ASM-003 s p: old reason → new reason"]);
        assert!(!d.render().contains("Some("), "{}", d.render());
    }
}
