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

/// How one verdict shows in JUnit: a `<failure>`/`<error>` exactly when it
/// stops certification (so a JUnit-gated CI agrees with the exit code).
/// What does not block is kept visible without failing: a baselined failure
/// and a proposal profile's failure as `<skipped>` (pytest's xfail), a
/// SHOULD clause without `--strict` as output.
enum Case {
    Pass,
    Skipped { kind: &'static str, message: String, body: String },
    Out(String),
    Failure { message: String, kind: String, body: String },
    Error { message: String, kind: String, body: String },
}

fn case_of(r: &Report, v: &super::Verdict) -> Case {
    let mut body = v.details.join("\n");
    if !v.engine_output.is_empty() {
        body.push_str("\nthe engine said:\n");
        body.push_str(&v.engine_output.join("\n"));
    }
    let first = |or: &str| v.details.first().cloned().unwrap_or_else(|| or.to_string());
    match v.status {
        Status::Pass | Status::Info => Case::Pass,
        Status::NotApplicable => Case::Skipped { kind: "not-applicable", message: body, body: String::new() },
        Status::Warn if !super::blocks(v, r.strict) => Case::Out(format!("SHOULD clause not met:\n{body}")),
        _ if !super::blocks(v, r.strict) => Case::Out(format!("{:?} (a SHOULD clause: it blocks only with --strict):\n{body}", v.status)),
        _ if crate::runtime::profile::is_proposal(&v.profile) => {
            Case::Skipped { kind: "proposal", message: format!("would fail: {} is a proposed contract, not a release, and not part of the verdict; {}", v.profile, first("failed")), body }
        }
        _ => match r.baseline.as_ref().and_then(|b| b.used.iter().find(|e| e.matches(v))) {
            Some(e) => Case::Skipped { kind: "baselined", message: format!("known failure, in the baseline: {}", e.reason), body },
            None if v.status == Status::Error => Case::Error { message: first("error"), kind: v.error_kind.map(|k| k.as_str()).unwrap_or("error").to_string(), body },
            None => Case::Failure { message: first("failed"), kind: format!("{:?}", v.level), body },
        },
    }
}

fn render_case(s: &mut String, name: &str, classname: &str, c: &Case) {
    s.push_str(&format!("    <testcase name=\"{}\" classname=\"{}\"", esc(name), esc(classname)));
    match c {
        Case::Pass => s.push_str("/>\n"),
        Case::Skipped { kind, message, body } if body.is_empty() => s.push_str(&format!("><skipped type=\"{kind}\" message=\"{}\"/></testcase>\n", esc(message))),
        Case::Skipped { kind, message, body } => s.push_str(&format!("><skipped type=\"{kind}\" message=\"{}\">{}</skipped></testcase>\n", esc(message), esc(body))),
        Case::Out(text) => s.push_str(&format!("><system-out>{}</system-out></testcase>\n", esc(text))),
        Case::Failure { message, kind, body } if body.is_empty() => s.push_str(&format!("><failure message=\"{}\" type=\"{}\"/></testcase>\n", esc(message), esc(kind))),
        Case::Failure { message, kind, body } => s.push_str(&format!("><failure message=\"{}\" type=\"{}\">{}</failure></testcase>\n", esc(message), esc(kind), esc(body))),
        Case::Error { message, kind, body } => s.push_str(&format!("><error message=\"{}\" type=\"{}\">{}</error></testcase>\n", esc(message), esc(kind), esc(body))),
    }
}

fn junit_text(r: &Report) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let run_reasons = run_reasons(r);
    // Every suite's cases first, so the counts are those of what is written.
    let mut suites = Vec::new();
    for p in &r.profiles {
        let class = format!("clawspec.{}", p.profile.replace('.', "_"));
        let mut cases: Vec<(String, Case)> = Vec::new();
        if let Some(why) = profile_reason(p) {
            let c = if crate::runtime::profile::is_proposal(&p.profile) {
                Case::Skipped { kind: "proposal", message: format!("would not be certified ({why}); a proposed contract, not part of the verdict"), body: String::new() }
            } else {
                Case::Failure { message: why, kind: "NotCertified".into(), body: String::new() }
            };
            cases.push(("certification".into(), c));
        }
        for v in r.verdicts.iter().filter(|v| v.profile == p.profile) {
            cases.push((format!("{} {}", v.clause, v.scenario), case_of(r, v)));
        }
        // Scenarios the host could not run: skipped, never passed.
        for n in r.host.iter().flat_map(|h| &h.not_drivable).filter(|n| n.profile == p.profile) {
            let message = format!("not drivable on {}: {}", r.host.as_ref().map_or("", |h| h.host.as_str()), n.reason);
            cases.push((format!("not-drivable {}", n.scenario), Case::Skipped { kind: "not-drivable", message, body: String::new() }));
        }
        suites.push((p, class, cases));
    }
    let count = |cases: &[(String, Case)], f: fn(&Case) -> bool| cases.iter().filter(|(_, c)| f(c)).count();
    let failed = |c: &Case| matches!(c, Case::Failure { .. });
    let errored = |c: &Case| matches!(c, Case::Error { .. });
    let skipped = |c: &Case| matches!(c, Case::Skipped { .. });
    let total = suites.iter().map(|(_, _, c)| c.len()).sum::<usize>() + run_reasons.len();
    let failures = suites.iter().map(|(_, _, c)| count(c, failed)).sum::<usize>() + run_reasons.len();
    let errors = suites.iter().map(|(_, _, c)| count(c, errored)).sum::<usize>();
    s.push_str(&format!("<testsuites name=\"clawspec\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\">\n"));
    for (i, (p, class, cases)) in suites.iter().enumerate() {
        s.push_str(&format!(
            "  <testsuite name=\"{}\" id=\"{i}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
            esc(&p.profile), cases.len(), count(cases, failed), count(cases, errored), count(cases, skipped)
        ));
        let mut props = Vec::new();
        if let Some(h) = &r.host {
            props.push(format!("      <property name=\"host\" value=\"{}\"/>\n", esc(&h.host)));
        }
        if r.no_sandbox {
            props.push("      <property name=\"sandbox\" value=\"off (--no-sandbox)\"/>\n".to_string());
        }
        if r.strict {
            props.push("      <property name=\"strict\" value=\"SHOULD clauses block\"/>\n".to_string());
        }
        if !props.is_empty() {
            s.push_str(&format!("    <properties>\n{}    </properties>\n", props.concat()));
        }
        for (name, c) in cases {
            render_case(&mut s, name, class, c);
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
