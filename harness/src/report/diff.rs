//! `clawspec diff OLD.json NEW.json`: what changed between two reports.

use std::collections::BTreeMap;

use super::Report;
use crate::check::Status;

#[derive(Debug, Default, PartialEq)]
pub struct Diff {
    /// The new report is not a whole run (interrupted, incomplete merge):
    /// what it lacks is not "removed".
    pub partial: Vec<String>,
    /// Judged fine before (pass, info or not applicable), failing now.
    pub newly_failing: Vec<String>,
    /// Failing before, judged fine now (pass or info).
    pub newly_passing: Vec<String>,
    /// Judged before (pass, fail, warn, error), not applicable now: the
    /// engine or scenario no longer exercises the clause — never a fix.
    pub no_longer_judged: Vec<String>,
    /// Failing before and now, with another status (fail ↔ error ↔ warn).
    pub status_changed: Vec<String>,
    /// Not applicable before, judged fine now.
    pub newly_judged: Vec<String>,
    pub changed_messages: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

fn bad(s: Status) -> bool {
    matches!(s, Status::Fail | Status::Error | Status::Warn)
}

/// As reports write it (`not-applicable`), never Rust's `NotApplicable`.
fn shown(s: Status) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

pub fn diff(old: &Report, new: &Report) -> Diff {
    let index = |r: &Report| -> BTreeMap<(String, String, String), (Status, Vec<String>)> {
        r.verdicts.iter().map(|v| ((v.scenario.clone(), v.profile.clone(), v.clause.clone()), (v.status, v.details.clone()))).collect()
    };
    let (a, b) = (index(old), index(new));
    let mut d = Diff::default();
    if new.interrupted {
        d.partial.push(format!("the new report was interrupted: only {} run(s) finished", new.runs.len()));
    }
    if let Some(m) = new.merged.as_ref().filter(|m| !m.complete) {
        d.partial.push(format!("the new report is an incomplete merge: shard(s) {} missing", m.missing.join(", ")));
    }
    // A shard against anything but the same shard: the rest of the run is
    // missing, not fixed.
    let shard = |r: &Report| r.selection.as_ref().and_then(|s| s.shard);
    if let Some(sh) = shard(new).filter(|sh| shard(old) != Some(*sh)) {
        d.partial.push(format!("the new report is shard {sh} only; merge the shards first (`clawspec merge`), or diff it against the same shard"));
    }
    let name = |k: &(String, String, String)| format!("{} {} {}", k.2, k.0, k.1);
    for (k, (ns, nd)) in &b {
        match a.get(k) {
            None => d.added.push(format!("{} ({})", name(k), shown(*ns))),
            Some((os, od)) => {
                let line = || format!("{}: {} → {}", name(k), shown(*os), shown(*ns));
                let why = || nd.first().map(|m| format!(" — {}", first_line(m))).unwrap_or_default();
                match (bad(*os), bad(*ns), *os == Status::NotApplicable, *ns == Status::NotApplicable) {
                    (false, true, ..) => d.newly_failing.push(format!("{}{}", line(), why())),
                    (_, _, false, true) => d.no_longer_judged.push(line()),
                    (true, false, ..) => d.newly_passing.push(line()),
                    (true, true, ..) if os != ns => d.status_changed.push(format!("{}{}", line(), why())),
                    (false, false, true, false) => d.newly_judged.push(line()),
                    _ if os == ns && od != nd => d.changed_messages.push(format!("{}: {} → {}", name(k), first_detail(od), first_detail(nd))),
                    _ => {}
                }
            }
        }
    }
    for k in a.keys().filter(|k| !b.contains_key(*k)) {
        d.removed.push(name(k));
    }
    d
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// A verdict's first detail line as plain text (never Rust's `Some("…")`).
fn first_detail(details: &[String]) -> String {
    details.first().map(|d| d.lines().next().unwrap_or_default().to_string()).unwrap_or_else(|| "(no detail)".into())
}

impl Diff {
    /// A regression for CI: something fails that did not, a clause is no
    /// longer judged, or the new report is not a whole run.
    pub fn is_regression(&self) -> bool {
        !self.newly_failing.is_empty() || !self.no_longer_judged.is_empty() || !self.partial.is_empty()
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        for p in &self.partial {
            s.push_str(&format!("NOT A WHOLE RUN: {p}\n"));
        }
        for (title, items) in [
            ("newly failing", &self.newly_failing),
            ("no longer judged", &self.no_longer_judged),
            ("failing, status changed", &self.status_changed),
            ("newly passing", &self.newly_passing),
            ("newly judged", &self.newly_judged),
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

    fn with(status: Status) -> Report {
        let mut r = report("x");
        r.verdicts[0].status = status;
        r
    }

    #[rstest::rstest]
    #[case(Status::Pass, Status::Fail, "newly failing", true)]
    #[case(Status::NotApplicable, Status::Error, "newly failing", true)]
    #[case(Status::Fail, Status::NotApplicable, "no longer judged", true)]
    #[case(Status::Pass, Status::NotApplicable, "no longer judged", true)]
    #[case(Status::Fail, Status::Error, "failing, status changed", false)]
    #[case(Status::Fail, Status::Pass, "newly passing", false)]
    #[case(Status::NotApplicable, Status::Pass, "newly judged", false)]
    fn every_status_change_is_listed_once(#[case] old: Status, #[case] new: Status, #[case] list: &str, #[case] regression: bool) {
        let d = diff(&with(old), &with(new));
        let out = d.render();
        assert!(out.contains(&format!("{list}: 1\n")), "{out}");
        assert_eq!(out.matches(": 1\n").count(), 1, "listed in exactly one section: {out}");
        assert!(out.contains(&format!("{} → {}", shown(old), shown(new))) && !out.contains("NotApplicable"), "{out}");
        assert_eq!(d.is_regression(), regression);
    }

    #[test]
    fn an_interrupted_new_report_is_not_a_whole_run() {
        let mut new = report("x");
        new.interrupted = true;
        let d = diff(&report("x"), &new);
        assert!(d.is_regression() && d.render().starts_with("NOT A WHOLE RUN: the new report was interrupted"), "{}", d.render());
    }

    #[test]
    fn a_shard_is_a_whole_run_only_against_the_same_shard() {
        let sharded = |k: u32| {
            let mut r = report("x");
            let shard = crate::report::selection::Shard::parse(&format!("{k}/2")).unwrap();
            r.selection = Some(crate::report::selection::Selection::new(&[], &[], &[], &[], Some(shard), &[]));
            r
        };
        let d = diff(&report("x"), &sharded(1));
        assert!(d.is_regression() && d.render().contains("the new report is shard 1/2 only"), "{}", d.render());
        assert!(!diff(&sharded(1), &sharded(1)).is_regression(), "the same shard of two runs compares");
        assert!(diff(&sharded(2), &sharded(1)).is_regression());
    }

    #[test]
    fn changed_messages_are_plain_text() {
        let d = diff(&report("old reason"), &report("new reason"));
        assert_eq!(d.changed_messages, ["CE-ASM-003 s p: old reason → new reason"]);
        assert!(!d.render().contains("Some("), "{}", d.render());
    }
}
