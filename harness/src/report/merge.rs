//! `clawspec merge`: shard reports of one run back into one report. Only
//! shards of the same run (engine, strictness, scenario set digest, profiles,
//! clauses, split N) merge; a shard given twice is refused; missing shards
//! give a report that says it is incomplete and is never certified.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::baseline::Baseline;
use super::selection::Shard;
use super::{summarize, Report};
use crate::runtime::profile::PROFILE_IDS;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Merged {
    /// True when every shard 1..N went in.
    pub complete: bool,
    /// Shards merged, as `K/N`.
    pub shards: Vec<String>,
    /// Shards of the split that were not given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// A report with the name it was loaded from (for error messages).
pub struct Part {
    pub name: String,
    pub report: Report,
}

/// Merge shard reports. `baseline` overrides the shards' own baseline; without
/// it, the baseline the shards ran with (all the same one, or none) is applied
/// to the merged verdicts.
pub fn merge(parts: Vec<Part>, baseline: Option<&Baseline>) -> Result<Report, String> {
    let first = parts.first().ok_or("nothing to merge")?;
    let mut shards: Vec<(Shard, &str)> = Vec::new();
    for p in &parts {
        let sel = p.report.selection.as_ref().ok_or_else(|| format!("{}: no selection record (written by an older clawspec, report version {}); re-run it", p.name, p.report.report_version))?;
        if p.report.merged.is_some() {
            return Err(format!("{}: already a merged report; merge the shard reports themselves", p.name));
        }
        let shard = sel.shard.ok_or_else(|| format!("{}: a full (unsharded) report, not a shard; only `certify --shard K/N` reports merge", p.name))?;
        let base = &first.report;
        // A plugin is the same engine when its build is (`plugin` below),
        // whatever path each runner's checkout put it at.
        if p.report.engine != base.engine && !(base.plugin.is_some() && p.report.plugin.is_some()) {
            return Err(format!("{} and {}: different engines ({} vs {})", first.name, p.name, base.engine, p.report.engine));
        }
        if p.report.strict != base.strict {
            return Err(format!("{} and {}: one ran with --strict, the other without", first.name, p.name));
        }
        if p.report.clawspec_version != base.clawspec_version || p.report.clawspec_build != base.clawspec_build {
            let shown = |r: &Report| format!("{}{}", r.clawspec_version, r.clawspec_build.as_deref().map(|c| format!(" ({})", &c[..c.len().min(12)])).unwrap_or_default());
            return Err(format!("{} and {}: different clawspec builds ({} vs {})", first.name, p.name, shown(base), shown(&p.report)));
        }
        // What a run does besides its selection: shards run differently are
        // not one run, and the merge could keep only one set of reproduce
        // options and one plugin build.
        if same_options(&p.report.run_args) != same_options(&base.run_args) {
            return Err(format!("{} and {}: ran with different options ({} vs {})", first.name, p.name, shown(&base.run_args), shown(&p.report.run_args)));
        }
        if p.report.no_sandbox != base.no_sandbox {
            return Err(format!("{} and {}: one ran with --no-sandbox, the other sandboxed", first.name, p.name));
        }
        if p.report.plugin.as_ref().map(build) != base.plugin.as_ref().map(build) {
            let id = |r: &Report| r.plugin.as_ref().map(|pl| pl.line()).unwrap_or_else(|| "no plugin".into());
            return Err(format!("{} and {}: different plugin builds ({} vs {})", first.name, p.name, id(base), id(&p.report)));
        }
        base.selection.as_ref().expect("checked above").same_run(sel).map_err(|e| format!("{} and {} are shards of different runs: {e}", first.name, p.name))?;
        if let Some((_, other)) = shards.iter().find(|(s, _)| *s == shard) {
            return Err(format!("shard {shard} given twice ({other} and {})", p.name));
        }
        shards.push((shard, &p.name));
    }
    let baseline = match baseline {
        Some(b) => Some(b.clone()),
        None => shard_baseline(&parts)?,
    };
    let count = shards[0].0.count;
    let mut present: Vec<u32> = shards.iter().map(|(s, _)| s.index).collect();
    present.sort();
    let missing: Vec<String> = (1..=count).filter(|k| !present.contains(k)).map(|k| format!("{k}/{count}")).collect();

    let host = super::host::merged(parts.iter().map(|p| (p.name.as_str(), &p.report.host)))?;
    // A profile some shard ran is judged over all of them; one no shard ran
    // stays out, named. Each profile's SDK line is any shard's that ran it.
    let ordered = |mut v: Vec<String>| {
        v.sort_by_key(|p| PROFILE_IDS.iter().position(|x| x == p).unwrap_or(usize::MAX));
        v.dedup();
        v
    };
    let profiles = ordered(parts.iter().flat_map(|p| p.report.profiles.iter().map(|s| s.profile.clone())).collect());
    let not_run = ordered(parts.iter().flat_map(|p| p.report.profiles_not_run.iter().cloned()).filter(|p| !profiles.contains(p)).collect());
    let mut sdks: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    for s in parts.iter().flat_map(|p| &p.report.profiles) {
        match sdks.iter_mut().find(|(id, ..)| id == &s.profile) {
            Some(kept) if kept.1.is_none() && kept.2.is_none() => *kept = (s.profile.clone(), s.sdk.clone(), s.peer_range.clone()),
            Some(_) => {}
            None => sdks.push((s.profile.clone(), s.sdk.clone(), s.peer_range.clone())),
        }
    }
    let coverages: Vec<Vec<super::coverage::Coverage>> = parts.iter().map(|p| p.report.coverage.clone()).collect();
    let mut it = parts.into_iter();
    let mut out = it.next().expect("at least one part").report;
    for p in it {
        let r = p.report;
        out.runs.extend(r.runs);
        out.verdicts.extend(r.verdicts);
        out.golden_drift.extend(r.golden_drift);
        // One interrupted or unsandboxed shard makes the whole run so.
        out.interrupted |= r.interrupted;
        out.no_sandbox |= r.no_sandbox;
        out.stray_processes += r.stray_processes;
        let sel = out.selection.as_mut().expect("checked");
        sel.scenarios.extend(r.selection.expect("checked").scenarios);
        if out.engine_info.is_none() {
            out.engine_info = r.engine_info;
        }
    }
    let sel = out.selection.as_mut().expect("checked");
    sel.scenarios.sort();
    if let Some(w) = sel.scenarios.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("scenario {} is in two shards: the shards were not made from one split", w[0]));
    }
    sel.shard = None;
    out.runs.sort_by(|a, b| (&a.scenario, &a.profile).cmp(&(&b.scenario, &b.profile)));
    out.verdicts.sort_by(|a, b| (&a.scenario, &a.profile, &a.clause).cmp(&(&b.scenario, &b.profile, &b.clause)));
    out.golden_drift.sort();
    out.coverage = if coverages.iter().all(Vec::is_empty) { Vec::new() } else { super::coverage::merge(&coverages, &profiles) };
    out.profiles_not_run = not_run;
    out.profiles = summarize(&out.verdicts, &profiles, out.strict, &|_| false, &out.coverage);
    for p in &mut out.profiles {
        let kept = sdks.iter().find(|(id, ..)| id == &p.profile);
        p.sdk = kept.and_then(|(_, s, _)| s.clone());
        p.peer_range = kept.and_then(|(.., w)| w.clone());
    }
    out.baseline = None;
    if let Some(b) = &baseline {
        out.apply_baseline(b);
    }
    out.host = host;
    out.timing = None;
    // Certification is a verdict on the whole selection: no profile of an
    // incomplete or interrupted merge is certified.
    if !missing.is_empty() || out.interrupted || out.stray_processes > 0 {
        for p in &mut out.profiles {
            p.certified = false;
        }
    }
    out.merged = Some(Merged { complete: missing.is_empty(), shards: present.iter().map(|k| format!("{k}/{count}")).collect(), missing });
    Ok(out)
}

/// The options that make two shards one run: `--scenarios` names a folder,
/// which runners with different checkouts spell differently; what it held is
/// compared by the selection's scenario set digest.
fn same_options(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        out.push(a.as_str());
        if a == "--scenarios" {
            it.next();
        }
    }
    out
}

/// A plugin build, wherever its entry file and Node were on disk.
fn build(p: &super::PluginRun) -> (&str, Option<&str>, &str, Option<&str>) {
    (&p.entry_sha256, p.package.as_deref(), &p.node_version, p.adapter.as_deref())
}

fn shown(args: &[String]) -> String {
    if args.is_empty() { "none".into() } else { args.join(" ") }
}

/// The baseline the shards ran with: every shard's bookkeeping lists make up
/// the whole file, so they must all name the same entries (or none).
fn shard_baseline(parts: &[Part]) -> Result<Option<Baseline>, String> {
    let of = |p: &Part| p.report.baseline.as_ref().map(|a| a.entries());
    let first = of(&parts[0]);
    if let Some(p) = parts.iter().find(|p| of(p) != first) {
        return Err(format!(
            "{} and {} ran with different baselines (or one with none); re-run them alike, or pass `merge --baseline FILE`",
            parts[0].name, p.name
        ));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    #[test]
    fn options_compare_without_the_scenarios_folders_spelling() {
        let a: Vec<String> = ["--scenarios", "scenarios", "--call-timeout-ms", "5"].map(String::from).to_vec();
        let b: Vec<String> = ["--scenarios", "/ci/checkout/scenarios", "--call-timeout-ms", "5"].map(String::from).to_vec();
        let c: Vec<String> = ["--scenarios", "scenarios", "--call-timeout-ms", "6"].map(String::from).to_vec();
        assert_eq!(super::same_options(&a), super::same_options(&b));
        assert_ne!(super::same_options(&a), super::same_options(&c));
    }

    #[test]
    fn a_plugin_build_is_its_bytes_not_its_path() {
        let p = |entry: &str, sha: &str, node: &str| super::super::PluginRun {
            entry: entry.into(),
            entry_sha256: sha.into(),
            package: Some("p@1".into()),
            node: node.into(),
            node_version: "v24.1.0".into(),
            adapter: Some("a@1".into()),
        };
        assert_eq!(super::build(&p("dist/index.js", "sha256:1", "node")), super::build(&p("/runner/x/dist/index.js", "sha256:1", "/usr/bin/node")));
        assert_ne!(super::build(&p("dist/index.js", "sha256:1", "node")), super::build(&p("dist/index.js", "sha256:2", "node")));
    }
}
