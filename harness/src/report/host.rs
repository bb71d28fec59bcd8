//! Which host ran the scenarios. Absent from a report: clawspec's reference
//! runtime. Present (`certify --host openclaw@VER`): every run went through
//! that real OpenClaw gateway, and the scenarios it cannot be driven to
//! reproduce are listed with the reason — not run, so never passed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostRun {
    /// `openclaw@<version>`, as given to `--host`.
    pub host: String,
    /// Selected scenarios this host cannot be driven to reproduce, by
    /// (scenario, profile); none of them ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_drivable: Vec<NotDrivable>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotDrivable {
    pub scenario: String,
    pub profile: String,
    pub reason: String,
}

impl HostRun {
    /// The one-line header every rendering shows.
    pub fn line(&self, ran: usize) -> String {
        format!(
            "host {} (real OpenClaw gateway): {ran} scenario run(s); {} selected scenario(s) not drivable on this host (not run, never passed)",
            self.host,
            self.not_drivable.len()
        )
    }
}

/// The host of shard reports being merged: all the same (or all the
/// reference runtime), and the same not-drivable list (every shard lists
/// the whole selection's).
pub fn merged<'a>(parts: impl IntoIterator<Item = (&'a str, &'a Option<HostRun>)>) -> Result<Option<HostRun>, String> {
    let mut first: Option<(&str, &Option<HostRun>)> = None;
    for (name, h) in parts {
        match first {
            None => first = Some((name, h)),
            Some((fname, fh)) => {
                let host = |h: &Option<HostRun>| h.as_ref().map_or("the reference runtime".to_string(), |h| h.host.clone());
                if host(fh) != host(h) {
                    return Err(format!("{fname} and {name}: different hosts ({} vs {})", host(fh), host(h)));
                }
                if fh.as_ref().map(|h| &h.not_drivable) != h.as_ref().map(|h| &h.not_drivable) {
                    return Err(format!("{fname} and {name}: different not-drivable lists: the shards come from different clawspec builds or scenario sets"));
                }
            }
        }
    }
    Ok(first.and_then(|(_, h)| h.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(host: &str) -> Option<HostRun> {
        Some(HostRun { host: host.into(), not_drivable: vec![NotDrivable { scenario: "a".into(), profile: "p".into(), reason: "r".into() }] })
    }

    #[test]
    fn shards_of_one_host_merge_and_mixed_hosts_do_not() {
        assert_eq!(merged([("1", &h("openclaw@2026.9.6")), ("2", &h("openclaw@2026.9.6"))]).unwrap(), h("openclaw@2026.9.6"));
        assert_eq!(merged([("1", &None), ("2", &None)]).unwrap(), None);
        let e = merged([("1", &h("openclaw@2026.9.6")), ("2", &None)]).unwrap_err();
        assert!(e.contains("the reference runtime"), "{e}");
        assert!(merged([("1", &h("openclaw@2026.9.6")), ("2", &h("openclaw@2026.4.26"))]).is_err());
        let mut other = h("openclaw@2026.9.6");
        other.as_mut().unwrap().not_drivable.clear();
        assert!(merged([("1", &h("openclaw@2026.9.6")), ("2", &other)]).is_err());
    }

    fn report() -> crate::report::Report {
        let mut r = crate::report::build("builtin:window", &[], vec![], &["openclaw-2026.9.6".to_string()], false, None);
        r.host = Some(HostRun {
            host: "openclaw@2026.9.6".into(),
            not_drivable: (0..14).map(|i| NotDrivable { scenario: format!("s{i:02}"), profile: "openclaw-2026.9.6".into(), reason: format!("why <{i}> | a") }).collect(),
        });
        r
    }

    #[test]
    fn every_rendering_names_the_host_and_what_it_could_not_run() {
        let r = report();
        let term = crate::report::render::terminal(&r);
        assert!(term.contains("host openclaw@2026.9.6 (real OpenClaw gateway): 0 scenario run(s); 14 selected scenario(s) not drivable"), "{term}");
        assert!(term.contains("  not drivable: s00 × openclaw-2026.9.6: why <0> | a"), "{term}");
        assert!(term.contains("… 2 more not drivable"), "{term}");
        let md = crate::report::render::markdown(&r);
        assert!(md.contains("Not drivable on openclaw@2026.9.6 (not run, never passed): 14"), "{md}");
        assert!(md.contains("| `s13` | `openclaw-2026.9.6` | why <13> \\| a |"), "{md}");
        let html = crate::report::render::html(&r);
        assert!(html.contains("<li><code>s13</code> × <code>openclaw-2026.9.6</code>: why &lt;13&gt; | a</li>"), "{html}");
        let xml = crate::report::junit::junit(&r);
        assert!(xml.contains("<property name=\"host\" value=\"openclaw@2026.9.6\"/>"), "{xml}");
        // 14 not-drivable cases, and the hollow profile's certification failure.
        assert!(xml.contains("tests=\"15\"") && xml.contains("failures=\"1\""), "not-drivable cases are counted: {xml}");
        assert!(xml.contains("<failure message=\"hollow: no scenario ran\" type=\"NotCertified\"/>"), "{xml}");
        assert!(xml.contains("skipped=\"14\""), "{xml}");
        assert!(xml.contains("<testcase name=\"not-drivable s13\" classname=\"clawspec.openclaw-2026_9_6\"><skipped type=\"not-drivable\" message=\"not drivable on openclaw@2026.9.6: why &lt;13&gt; | a\"/></testcase>"), "{xml}");
        let json = r.to_json();
        assert!(json.contains("\"notDrivable\""), "{json}");
        // Nothing ran: never certified.
        assert!(!r.certified());
    }

    #[test]
    fn a_reference_report_has_no_host() {
        let r = crate::report::build("builtin:window", &[], vec![], &["openclaw-2026.9.6".to_string()], false, None);
        assert!(!r.to_json().contains("\"host\""));
        assert!(!crate::report::junit::junit(&r).contains("<properties>"));
    }
}
