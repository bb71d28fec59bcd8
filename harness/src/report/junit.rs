//! JUnit XML: one test suite per profile, one test case per scenario × clause
//! (the shape CI systems render). Written by hand: the format is small and
//! stable, and it lets us control escaping and ordering byte for byte.

use super::Report;
use crate::check::Status;

fn esc(s: &str) -> String {
    s.chars()
        .filter(|c| matches!(c, '\t' | '\n' | '\r') || !c.is_control())
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Why a profile is not certified that no verdict shows (a JUnit consumer
/// counts only failures: without these a run that tested nothing is green).
fn profile_reason(p: &super::ProfileSummary) -> Option<String> {
    if let Some(h) = &p.hollow {
        return Some(format!("hollow: {h}"));
    }
    p.untested.then(|| "nothing tested: no verdict judged any run (every selected clause was not applicable)".to_string())
}

/// Why the whole report is not green beyond its verdicts.
fn run_reasons(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if r.interrupted {
        out.push(format!("interrupted: only {} run(s) finished", r.runs.len()));
    }
    if let Some(m) = r.merged.as_ref().filter(|m| !m.complete) {
        out.push(format!("incomplete merge: shard(s) {} missing", m.missing.join(", ")));
    }
    if let Some(b) = r.baseline.as_ref().filter(|b| !b.stale.is_empty()) {
        out.push(format!("{} stale baseline entr{}", b.stale.len(), if b.stale.len() == 1 { "y" } else { "ies" }));
    }
    if !r.golden_drift.is_empty() {
        out.push(format!("golden drift in {} trace(s)", r.golden_drift.len()));
    }
    if r.stray_processes > 0 {
        out.push(format!("the engines left {} process(es) running that no run could be blamed for", r.stray_processes));
    }
    out
}

pub fn junit(r: &Report) -> String {
    // What an engine wrote keeps no carriage return or escape to a CI log.
    super::render::printable(&junit_text(r))
}

fn junit_text(r: &Report) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let not_drivable = |profile: &str| r.host.iter().flat_map(|h| &h.not_drivable).filter(|n| n.profile == profile).count();
    let run_reasons = run_reasons(r);
    let extra = r.profiles.iter().filter_map(profile_reason).count() + run_reasons.len();
    let total = r.verdicts.len() + r.host.as_ref().map_or(0, |h| h.not_drivable.len()) + extra;
    let failures = r.verdicts.iter().filter(|v| matches!(v.status, Status::Fail)).count() + extra;
    let errors = r.verdicts.iter().filter(|v| v.status == Status::Error).count();
    s.push_str(&format!("<testsuites name=\"clawspec\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\">\n"));
    for (i, p) in r.profiles.iter().enumerate() {
        let vs: Vec<_> = r.verdicts.iter().filter(|v| v.profile == p.profile).collect();
        let nd = not_drivable(&p.profile);
        let skipped = vs.iter().filter(|v| matches!(v.status, Status::NotApplicable)).count() + nd;
        let reason = profile_reason(p);
        let own = usize::from(reason.is_some());
        s.push_str(&format!(
            "  <testsuite name=\"{}\" id=\"{i}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{skipped}\">\n",
            esc(&p.profile), vs.len() + nd + own, p.fail as usize + own, p.error
        ));
        let mut props = Vec::new();
        if let Some(h) = &r.host {
            props.push(format!("      <property name=\"host\" value=\"{}\"/>\n", esc(&h.host)));
        }
        if r.no_sandbox {
            props.push("      <property name=\"sandbox\" value=\"off (--no-sandbox)\"/>\n".to_string());
        }
        if !props.is_empty() {
            s.push_str(&format!("    <properties>\n{}    </properties>\n", props.concat()));
        }
        if let Some(why) = &reason {
            s.push_str(&format!(
                "    <testcase name=\"certification\" classname=\"clawspec.{}\"><failure message=\"{}\" type=\"NotCertified\"/></testcase>\n",
                esc(&p.profile.replace('.', "_")), esc(why)
            ));
        }
        for v in vs {
            let name = format!("{} {}", v.clause, v.scenario);
            s.push_str(&format!("    <testcase name=\"{}\" classname=\"clawspec.{}\"", esc(&name), esc(&v.profile.replace('.', "_"))));
            let mut body = v.details.join("\n");
            if !v.engine_output.is_empty() {
                body.push_str("\nthe engine said:\n");
                body.push_str(&v.engine_output.join("\n"));
            }
            match v.status {
                Status::Pass | Status::Info => s.push_str("/>\n"),
                Status::NotApplicable => s.push_str(&format!("><skipped message=\"{}\"/></testcase>\n", esc(&body))),
                Status::Warn => s.push_str(&format!("><system-out>{}</system-out></testcase>\n", esc(&format!("SHOULD clause not met:\n{body}")))),
                Status::Fail => s.push_str(&format!(
                    "><failure message=\"{}\" type=\"{:?}\">{}</failure></testcase>\n",
                    esc(v.details.first().map(String::as_str).unwrap_or("failed")), v.level, esc(&body)
                )),
                Status::Error => s.push_str(&format!(
                    "><error message=\"{}\" type=\"{}\">{}</error></testcase>\n",
                    esc(v.details.first().map(String::as_str).unwrap_or("error")), esc(v.error_kind.map(|k| k.as_str()).unwrap_or("error")), esc(&body)
                )),
            }
        }
        // Scenarios the host could not run: skipped, never passed.
        for n in r.host.iter().flat_map(|h| &h.not_drivable).filter(|n| n.profile == p.profile) {
            s.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"clawspec.{}\"><skipped message=\"{}\"/></testcase>\n",
                esc(&format!("not-drivable {}", n.scenario)), esc(&p.profile.replace('.', "_")), esc(&format!("not drivable on {}: {}", r.host.as_ref().map_or("", |h| h.host.as_str()), n.reason))
            ));
        }
        s.push_str("  </testsuite>\n");
    }
    if !run_reasons.is_empty() {
        s.push_str(&format!(
            "  <testsuite name=\"run\" id=\"{}\" tests=\"{n}\" failures=\"{n}\" errors=\"0\" skipped=\"0\">\n",
            r.profiles.len(), n = run_reasons.len()
        ));
        for why in &run_reasons {
            s.push_str(&format!("    <testcase name=\"certification\" classname=\"clawspec.run\"><failure message=\"{}\" type=\"NotCertified\"/></testcase>\n", esc(why)));
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}
