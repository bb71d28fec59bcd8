//! Reports: a stable JSON document (schema in docs/schema/report.json) built
//! from verdicts, rendered for terminals, CI summaries (Markdown), JUnit and a
//! self-contained HTML page. Reports never compute verdicts; they count them.
//! Timing lives only in the clearly named `timing` field.

pub mod baseline;
pub mod coverage;
pub mod diff;
pub mod host;
pub mod junit;
pub mod merge;
pub mod peer;
pub mod render;
pub mod selection;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::check::{Level, Status, Verdict};
use crate::trace::{Outcome, Trace};

/// 2: `selection` and `merged` replace the bare `shard` string.
pub const REPORT_VERSION: u32 = 2;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub report_version: u32,
    pub clawspec_version: String,
    /// The git commit clawspec was built from, when it was built from a
    /// checkout: shards of two builds with one version number are not one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clawspec_build: Option<String>,
    pub engine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_info: Option<serde_json::Value>,
    /// The real OpenClaw the runs went through (`certify --host`); absent:
    /// clawspec's reference runtime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<host::HostRun>,
    pub strict: bool,
    /// What was run: scenario set digest, profiles, clauses, shard K/N.
    /// Absent only in reports of older clawspec versions (which cannot be merged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<selection::Selection>,
    /// Set by `clawspec merge`: which shards went in and whether any is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<merge::Merged>,
    pub profiles: Vec<ProfileSummary>,
    /// What the engine was given to do, per profile (docs/reports.md "Coverage").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coverage: Vec<coverage::Coverage>,
    pub runs: Vec<RunSummary>,
    pub verdicts: Vec<Verdict>,
    /// Baseline bookkeeping (when `--baseline` is used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<baseline::Applied>,
    /// Golden drift (when `--golden` is used): one line per drifted trace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub golden_drift: Vec<String>,
    /// The options besides the engine, `--scenario` and `--profile` that a
    /// `clawspec run` of one of these runs needs to behave the same (`--node`,
    /// `--sdk`, `--engine-id`, `--plugin-config`, `--scenarios`, timeouts,
    /// sandbox and transport flags): every `reproduce:` line carries them, so
    /// it runs as pasted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_args: Vec<String>,
    /// A `--plugin` certify: which plugin build, Node and adapter ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<PluginRun>,
    /// The engine ran without the sandbox (`--no-sandbox`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_sandbox: bool,
    /// Processes the engines left running that no run could be blamed for
    /// (a daemon that cleared its environment and left its state dir):
    /// killed at the end, and the report is not certified (CE-LIFE-002's
    /// rule for the whole run).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stray_processes: u32,
    /// Selected profiles under which no selected scenario (of this shard)
    /// runs: left out of `profiles`, so neither certified nor held against
    /// the run (a scenario for 2026.9.6 only does not make 2026.4.26 hollow).
    /// A profile named with `--profile` is never here: certify refuses one
    /// that nothing would test.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles_not_run: Vec<String>,
    /// The run was stopped by a signal: only the runs listed finished, so the
    /// report can never certify.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Wall-clock figures: the only non-deterministic field; ignored by diff/merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

/// Provenance of a `--plugin` certify (issue 15: "the report records node
/// version, plugin path and digest, plugin config, resolved SDK version,
/// adapter version"; the config is in `runArgs`, the SDK per profile).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginRun {
    /// The entry file as given.
    pub entry: String,
    /// `sha256:<hex>` of the entry file's bytes (a bundled plugin: the build).
    pub entry_sha256: String,
    /// The plugin's package (`name@version`), as the adapter found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The Node interpreter and what `--version` answered.
    pub node: String,
    pub node_version: String,
    /// The Node adapter (`implementation` of `initialize`: `name@version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
}

impl PluginRun {
    pub fn line(&self) -> String {
        format!(
            "plugin: {} ({}{}); node {} ({}); adapter {}",
            self.entry,
            self.package.as_deref().map(|p| format!("{p}, ")).unwrap_or_default(),
            self.entry_sha256,
            self.node_version,
            self.node,
            self.adapter.as_deref().unwrap_or("unknown")
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    pub wall_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSummary {
    pub profile: String,
    pub certified: bool,
    pub pass: u32,
    pub fail: u32,
    pub warn: u32,
    pub info: u32,
    pub not_applicable: u32,
    pub error: u32,
    /// Failures forgiven by the baseline.
    pub baselined: u32,
    /// Why the engine did no real work under this profile; a hollow profile
    /// is never certified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hollow: Option<String>,
    /// No verdict under this profile judged anything (none, or all
    /// not-applicable: a `--clause` the profile never judges): nothing was
    /// tested, so the profile is never certified.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untested: bool,
    /// The `openclaw/plugin-sdk` the engine (a plugin through the Node
    /// adapter) saw under this profile: `openclaw@<version>` (that release's
    /// package) or `clawspec shims`. Absent for engines that do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk: Option<String>,
    /// Set when the plugin's declared OpenClaw versions
    /// (`peerDependencies.openclaw`, `openclaw.compat.*`) exclude this
    /// profile's release (`peer`): failures here may be expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_range: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub scenario: String,
    pub profile: String,
    /// `completed`, `engine-fault:<kind>` or `harness-error`.
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_turns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// Plugin API members the plugin read that the host does not provide
    /// (Node adapter; the trace's `unknownApiMembers`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_api_members: Vec<String>,
}

/// Every plugin API member read that the host does not provide, over all
/// runs, in first-seen order, with how many runs read it.
pub fn unknown_api_members(r: &Report) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for m in r.runs.iter().flat_map(|run| &run.unknown_api_members) {
        match out.iter_mut().find(|(n, _)| n == m) {
            Some((_, k)) => *k += 1,
            None => out.push((m.clone(), 1)),
        }
    }
    out
}

/// Does this verdict stop certification?
pub fn blocks(v: &Verdict, strict: bool) -> bool {
    match v.status {
        Status::Fail | Status::Error => v.level == Level::Must || (strict && v.level == Level::Should),
        Status::Warn => strict,
        _ => false,
    }
}

pub fn run_summary(t: &Trace) -> RunSummary {
    let (outcome, failed_turns, stderr) = match &t.outcome {
        Outcome::Completed { failed_turns, .. } => ("completed".to_string(), failed_turns.clone(), None),
        Outcome::EngineFault { kind, stderr, .. } => (format!("engine-fault:{kind}"), vec![], (!stderr.is_empty()).then(|| stderr.chars().rev().take(2000).collect::<String>().chars().rev().collect())),
        Outcome::HarnessError { message } => (format!("harness-error: {message}"), vec![], None),
    };
    RunSummary { scenario: t.scenario.clone(), profile: t.profile.clone(), outcome, failed_turns, stderr, unknown_api_members: t.unknown_api_members.clone() }
}

/// Recount the per-profile summaries from the verdicts and coverage (also
/// after merging). Empty `coverage` (reports from before coverage) judges
/// verdicts only.
pub fn summarize(verdicts: &[Verdict], profiles: &[String], strict: bool, forgiven: &dyn Fn(&Verdict) -> bool, coverage: &[coverage::Coverage]) -> Vec<ProfileSummary> {
    profiles
        .iter()
        .map(|p| {
            let hollow = coverage.iter().find(|c| &c.profile == p).and_then(coverage::Coverage::hollow);
            let mut s = ProfileSummary { profile: p.clone(), certified: hollow.is_none(), hollow, ..Default::default() };
            for v in verdicts.iter().filter(|v| &v.profile == p) {
                match v.status {
                    Status::Pass => s.pass += 1,
                    Status::Fail => s.fail += 1,
                    Status::Warn => s.warn += 1,
                    Status::Info => s.info += 1,
                    Status::NotApplicable => s.not_applicable += 1,
                    Status::Error => s.error += 1,
                }
                if blocks(v, strict) {
                    if forgiven(v) {
                        s.baselined += 1;
                    } else {
                        s.certified = false;
                    }
                }
            }
            if s.pass + s.fail + s.warn + s.error == 0 {
                s.untested = true;
                s.certified = false;
            }
            s
        })
        .collect()
}

/// Each profile's plugin SDK, as the engine's `initialize` reported it
/// (`implementation.sdk`); several values (never expected) are all named.
fn with_sdk(mut summaries: Vec<ProfileSummary>, traces: &[Trace]) -> Vec<ProfileSummary> {
    for s in &mut summaries {
        let mut seen: Vec<&str> = traces
            .iter()
            .filter(|t| t.profile == s.profile)
            .filter_map(|t| t.engine.implementation.as_ref()?.get("sdk")?.as_str())
            .collect();
        seen.sort_unstable();
        seen.dedup();
        s.sdk = (!seen.is_empty()).then(|| seen.join(" + "));
        s.peer_range = traces
            .iter()
            .filter(|t| t.profile == s.profile)
            .find_map(|t| t.engine.implementation.as_ref()?.get("plugin")?.get("peer"))
            .and_then(|peer| peer::warning(peer, &s.profile));
    }
    summaries
}

pub fn build(engine: &str, traces: &[Trace], mut verdicts: Vec<Verdict>, profiles: &[String], strict: bool, selection: Option<selection::Selection>) -> Report {
    // One canonical order, so shard reports merge into exactly the full report.
    verdicts.sort_by(|a, b| (&a.scenario, &a.profile, &a.clause).cmp(&(&b.scenario, &b.profile, &b.clause)));
    let engine_info = traces.iter().find_map(|t| t.engine.info.clone());
    let coverage = coverage::of_traces(traces, profiles);
    Report {
        report_version: REPORT_VERSION,
        clawspec_version: env!("CARGO_PKG_VERSION").into(),
        clawspec_build: option_env!("CLAWSPEC_BUILD_COMMIT").map(str::to_string),
        engine: engine.into(),
        engine_info,
        host: None,
        strict,
        selection,
        merged: None,
        profiles: with_sdk(summarize(&verdicts, profiles, strict, &|_| false, &coverage), traces),
        coverage,
        runs: {
            let mut r: Vec<RunSummary> = traces.iter().map(run_summary).collect();
            r.sort_by(|a, b| (&a.scenario, &a.profile).cmp(&(&b.scenario, &b.profile)));
            r
        },
        verdicts,
        baseline: None,
        golden_drift: Vec::new(),
        run_args: Vec::new(),
        plugin: None,
        no_sandbox: false,
        stray_processes: 0,
        profiles_not_run: Vec::new(),
        interrupted: false,
        timing: None,
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Report {
    /// Green only when every profile is certified, no baseline entry is
    /// stale, no golden drifted and — for a merge — no shard is missing.
    pub fn certified(&self) -> bool {
        !self.interrupted
            // Proposal profiles (rfc-82137) are reported, never decisive.
            && self.profiles.iter().filter(|p| !crate::runtime::profile::is_proposal(&p.profile)).all(|p| p.certified)
            && self.profiles.iter().any(|p| !crate::runtime::profile::is_proposal(&p.profile))
            && self.baseline.as_ref().is_none_or(|b| b.stale.is_empty())
            && self.golden_drift.is_empty()
            && self.stray_processes == 0
            && self.merged.as_ref().is_none_or(|m| m.complete)
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("report serialises");
        s.push('\n');
        s
    }

    /// The scenario × profile pairs this report executed.
    pub fn executed(&self) -> Vec<(String, String)> {
        self.runs.iter().map(|r| (r.scenario.clone(), r.profile.clone())).collect()
    }

    /// Apply a baseline: forgiven failures counted as `baselined`, entries
    /// judged only against the pairs (and clauses) this report executed.
    pub fn apply_baseline(&mut self, b: &baseline::Baseline) {
        let runs = self.executed();
        let clauses = self.selection.as_ref().map(|s| s.clauses.clone()).unwrap_or_default();
        // An entry is in use while its verdict still fails or warns, blocking
        // or not: a SHOULD entry written by a `--strict` job is not stale in a
        // run without it.
        let failing: Vec<&Verdict> = self.verdicts.iter().filter(|v| matches!(v.status, Status::Fail | Status::Error | Status::Warn)).collect();
        self.baseline = Some(b.apply(&failing, &baseline::Scope { runs: &runs, clauses: &clauses }));
        let profiles: Vec<String> = self.profiles.iter().map(|p| p.profile.clone()).collect();
        self.profiles = summarize(&self.verdicts, &profiles, self.strict, &|v| b.forgives(v), &self.coverage);
    }
}

#[cfg(test)]
mod proposal_tests {
    use super::*;

    fn report(certified: &[(&str, bool)]) -> Report {
        let ids: Vec<String> = certified.iter().map(|(p, _)| p.to_string()).collect();
        let mut r = build("e", &[], vec![], &ids, false, None);
        for p in &mut r.profiles {
            p.certified = certified.iter().find(|(id, _)| *id == p.profile).unwrap().1;
        }
        r
    }

    #[test]
    fn a_proposal_profile_never_decides_the_verdict() {
        assert!(report(&[("openclaw-2026.4.26", true), ("openclaw-2026.9.6", true), ("rfc-82137", false)]).certified());
        assert!(!report(&[("openclaw-2026.9.6", false), ("rfc-82137", true)]).certified());
        assert!(!report(&[("rfc-82137", true)]).certified(), "a run of proposals alone certifies nothing released");
    }
}
