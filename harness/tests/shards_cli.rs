//! Baselines, shards and merge through the real binary: staleness only
//! inside the selection, merge refusing what is not one run's shards, an
//! incomplete merge never green, the shards' baseline applied on merge.

mod support;

use support::{clawspec, json, s, tmp};

const MUTANT: &str = "builtin:window:split-tool-pair";
const SEL: &str = "tool-loop-*";

/// Shard reports of the mutant over tool-loop-*, optionally with a baseline.
fn shard(dir: &std::path::Path, k: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.join(format!("s{}{}.json", k.replace('/', "of"), extra.len()));
    let mut a = vec!["certify", "--engine", MUTANT, "--scenario", SEL, "--shard", k, "--report", s(&out)];
    a.extend(extra);
    let o = clawspec(&a);
    assert!(o.code == 0 || o.code == 1, "{}{}", o.stdout, o.stderr);
    out
}

#[test]
fn baseline_staleness_is_judged_only_inside_the_selection() {
    let d = tmp("bl-scope");
    let bl = d.join("known.json");
    // Record the mutant's failures over both scenarios and every profile.
    let o = clawspec(&["certify", "--engine", MUTANT, "--scenario", SEL, "--baseline", s(&bl), "--update-baseline"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let entries = json(&bl)["entries"].as_array().unwrap().len();
    assert!(entries >= 2, "several profiles fail: {entries}");
    // The entries the narrow --update-baseline below may drop.
    let narrow = json(&bl)["entries"].as_array().unwrap().iter().filter(|e| e["scenario"] == "tool-loop-parallel" && e["profile"] == "openclaw-2026.9.6").count();
    assert!(narrow >= 1);
    // One profile, one scenario: the other entries are outside, not stale.
    let r = d.join("one.json");
    let o = clawspec(&["certify", "--engine", MUTANT, "--scenario", "tool-loop-parallel", "--profile", "openclaw-2026.9.6", "--baseline", s(&bl), "--report", s(&r)]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert!(!o.stdout.contains("STALE"), "{}", o.stdout);
    assert!(o.stdout.contains("outside this selection"), "{}", o.stdout);
    let applied = &json(&r)["baseline"];
    assert_eq!(applied["stale"].as_array().unwrap().len(), 0);
    assert_eq!(applied["used"].as_array().unwrap().len() + applied["outsideSelection"].as_array().unwrap().len(), entries);
    // A shard that does not hold the failing scenario: nothing stale either.
    let o = clawspec(&["certify", "--engine", MUTANT, "--scenario", SEL, "--shard", "1/2", "--baseline", s(&bl)]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    // --update-baseline on a narrow selection keeps the entries it did not look at.
    let o = clawspec(&["certify", "--scenario", "tool-loop-parallel", "--profile", "openclaw-2026.9.6", "--baseline", s(&bl), "--update-baseline"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert_eq!(json(&bl)["entries"].as_array().unwrap().len(), entries - narrow, "only the fixed 9.6 entries go");
    // The fixed engine over the whole selection: now the rest are stale.
    let o = clawspec(&["certify", "--scenario", SEL, "--baseline", s(&bl)]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(o.stdout.contains("STALE baseline entry"), "{}", o.stdout);
}

#[test]
fn a_baseline_naming_an_unknown_clause_or_profile_is_an_error() {
    let d = tmp("bl-unknown");
    let bl = d.join("known.json");
    std::fs::write(&bl, "{\"entries\": [\n  {\"scenario\": \"tool-loop-parallel\", \"clause\": \"CE-ASM-999\", \"reason\": \"typo\"}\n]}\n").unwrap();
    let o = clawspec(&["certify", "--scenario", "tool-loop-parallel", "--baseline", s(&bl)]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("known.json:2:") && o.stderr.contains("unknown clause \"CE-ASM-999\""), "{}", o.stderr);
    std::fs::write(&bl, "{\"entries\": [{\"scenario\": \"tool-loop-parallel\", \"profile\": \"openclaw-2026.1.1\", \"reason\": \"r\"}]}").unwrap();
    let o = clawspec(&["certify", "--scenario", "tool-loop-parallel", "--baseline", s(&bl)]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("unknown profile \"openclaw-2026.1.1\""), "{}", o.stderr);
}

#[test]
fn merge_accepts_only_the_shards_of_one_run() {
    let d = tmp("merge");
    let (s1, s2) = (shard(&d, "1/2", &[]), shard(&d, "2/2", &[]));
    let merged = d.join("merged.json");
    // Complete: certified iff the run is; the report says complete.
    let o = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&merged)]);
    assert_eq!(o.code, 1, "the mutant fails: {}{}", o.stdout, o.stderr);
    let m = json(&merged);
    assert_eq!(m["merged"]["complete"], true);
    assert_eq!(m["merged"]["shards"], serde_json::json!(["1/2", "2/2"]));
    assert!(m["selection"].get("shard").is_none(), "{}", m["selection"]);
    // The merge equals the unsharded run, selection included.
    let full = d.join("full.json");
    assert_eq!(clawspec(&["certify", "--engine", MUTANT, "--scenario", SEL, "--report", s(&full)]).code, 1);
    let f = json(&full);
    for k in ["selection", "runs", "verdicts", "profiles"] {
        assert_eq!(m[k], f[k], "{k} differs between merge and full run");
    }
    // A lone shard: written, marked incomplete with the missing shard named, never green.
    let lone = clawspec(&["certify", "--scenario", SEL, "--shard", "2/2", "--report", s(&d.join("g2.json"))]);
    assert_eq!(lone.code, 0, "{}", lone.stdout);
    let o = clawspec(&["merge", s(&d.join("g2.json")), "-o", s(&merged)]);
    assert_eq!(o.code, 1, "an incomplete merge is not green: {}", o.stdout);
    assert!(o.stdout.contains("INCOMPLETE merge: shard(s) 1/2 missing"), "{}", o.stdout);
    assert!(o.stdout.contains("overall: NOT CERTIFIED (incomplete merge)"), "{}", o.stdout);
    assert_eq!(json(&merged)["merged"]["complete"], false);
    assert_eq!(json(&merged)["merged"]["missing"], serde_json::json!(["1/2"]));
    // Refused, exit 2, saying why.
    let other_split = shard(&d, "2/3", &[]);
    let other_profiles = d.join("p.json");
    assert!(clawspec(&["certify", "--engine", MUTANT, "--scenario", SEL, "--shard", "2/2", "--profile", "openclaw-2026.9.6", "--report", s(&other_profiles)]).code <= 1);
    let other_scenarios = d.join("sc.json");
    assert!(clawspec(&["certify", "--engine", MUTANT, "--scenario", "tool-loop-parallel", "--shard", "1/2", "--report", s(&other_scenarios)]).code <= 1);
    let x = d.join("x.json");
    for (args, why) in [
        (vec![s(&s1), s(&s1)], "shard 1/2 given twice"),
        (vec![s(&s1), s(&other_split)], "shard splits differ (1/2 vs 2/3)"),
        (vec![s(&s1), s(&other_profiles)], "profiles differ"),
        (vec![s(&s1), s(&other_scenarios)], "scenario sets differ"),
        (vec![s(&full), s(&s2)], "a full (unsharded) report, not a shard"),
        (vec![s(&merged)], "already a merged report"),
    ] {
        let mut a = vec!["merge"];
        a.extend(args);
        a.extend(["-o", s(&x)]);
        let o = clawspec(&a);
        assert_eq!(o.code, 2, "{why}: {}{}", o.stdout, o.stderr);
        assert!(o.stderr.contains(why), "want {why:?} in {}", o.stderr);
    }
}

#[test]
fn merge_applies_the_baseline_the_shards_ran_with() {
    let d = tmp("merge-bl");
    let bl = d.join("known.json");
    assert_eq!(clawspec(&["certify", "--engine", MUTANT, "--scenario", SEL, "--baseline", s(&bl), "--update-baseline"]).code, 0);
    let (s1, s2) = (shard(&d, "1/2", &["--baseline", s(&bl)]), shard(&d, "2/2", &["--baseline", s(&bl)]));
    let merged = d.join("merged.json");
    let o = clawspec(&["merge", s(&s1), s(&s2), "-o", s(&merged)]);
    assert_eq!(o.code, 0, "baselined failures stay forgiven after merge: {}{}", o.stdout, o.stderr);
    let m = json(&merged);
    assert!(m["profiles"].as_array().unwrap().iter().any(|p| p["baselined"].as_u64() > Some(0)), "{}", m["profiles"]);
    assert_eq!(m["baseline"]["stale"].as_array().unwrap().len(), 0);
    let full = d.join("full.json");
    assert_eq!(clawspec(&["certify", "--engine", MUTANT, "--scenario", SEL, "--baseline", s(&bl), "--report", s(&full)]).code, 0);
    let f = json(&full);
    for k in ["baseline", "profiles", "verdicts"] {
        assert_eq!(m[k], f[k], "{k}: merged shards differ from the unsharded run");
    }
    // Shards without a baseline, merged with --baseline: the same verdict.
    let (p1, p2) = (shard(&d, "1/2", &[]), shard(&d, "2/2", &[]));
    assert_eq!(clawspec(&["merge", s(&p1), s(&p2), "-o", s(&merged)]).code, 1);
    let o = clawspec(&["merge", s(&p1), s(&p2), "--baseline", s(&bl), "-o", s(&merged)]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    // One shard with the baseline, one without: refused.
    let o = clawspec(&["merge", s(&s1), s(&p2), "-o", s(&merged)]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("different baselines"), "{}", o.stderr);
}
