//! What a run selected, recorded in its report so that `merge` can tell the
//! shards of one run from a mix of runs, and a baseline can tell "outside this
//! selection" from "now passes".

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::scenario::Located;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    /// `sha256:` over every selected scenario (id and file text, by id),
    /// before sharding: shards of one run carry the same digest.
    pub scenarios_digest: String,
    /// Scenarios selected before sharding.
    pub scenario_count: u32,
    /// `--scenario` globs as given (empty: the whole library).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenario_globs: Vec<String>,
    /// Profiles run, in run order.
    pub profiles: Vec<String>,
    /// `--clause` filter (empty: every clause).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clauses: Vec<String>,
    /// This report's shard (absent: unsharded, or the result of a merge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Scenario ids this report covers (after sharding), sorted.
    pub scenarios: Vec<String>,
}

/// Shard `index` of `count`, 1-based (`--shard 2/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// `K/N` with 1 ≤ K ≤ N.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or_else(|| format!("--shard {s}: expected K/N, e.g. 2/4"))?;
        let k: u32 = k.trim().parse().map_err(|_| format!("--shard {s}: K is not a number"))?;
        let n: u32 = n.trim().parse().map_err(|_| format!("--shard {s}: N is not a number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("--shard {s}: need 1 ≤ K ≤ N"));
        }
        Ok(Shard { index: k, count: n })
    }

    /// The scenarios of this shard: by position in the id-sorted selection,
    /// so every profile of a scenario lands in the same shard (cross-profile
    /// clauses compare them) and the split does not depend on file layout.
    pub fn take(&self, scenarios: Vec<Located>) -> Vec<Located> {
        let mut sorted = scenarios;
        sorted.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
        sorted.into_iter().enumerate().filter(|(i, _)| *i as u32 % self.count == self.index - 1).map(|(_, l)| l).collect()
    }
}

impl Selection {
    /// `selected` is the whole selection (before sharding), `ran` the ids of
    /// the scenarios this report covers.
    pub fn new(selected: &[Located], globs: &[String], profiles: &[String], clauses: &[String], shard: Option<Shard>, ran: &[Located]) -> Selection {
        let mut ids: Vec<String> = ran.iter().map(|l| l.scenario.id.clone()).collect();
        ids.sort();
        Selection {
            scenarios_digest: digest(selected),
            scenario_count: selected.len() as u32,
            scenario_globs: globs.to_vec(),
            profiles: profiles.to_vec(),
            clauses: clauses.to_vec(),
            shard,
            scenarios: ids,
        }
    }

    /// The same run, shard and covered scenarios aside.
    pub fn same_run(&self, other: &Selection) -> Result<(), String> {
        let mut diffs = Vec::new();
        if self.scenarios_digest != other.scenarios_digest || self.scenario_count != other.scenario_count {
            diffs.push(format!("scenario sets differ ({} scenarios {} vs {} scenarios {})", self.scenario_count, self.scenarios_digest, other.scenario_count, other.scenarios_digest));
        }
        // The same profiles given in another order are the same run.
        let sorted = |s: &Selection| {
            let mut p = s.profiles.clone();
            p.sort();
            p
        };
        if sorted(self) != sorted(other) {
            diffs.push(format!("profiles differ ({} vs {})", self.profiles.join(","), other.profiles.join(",")));
        }
        if self.clauses != other.clauses {
            diffs.push(format!("--clause differs ({:?} vs {:?})", self.clauses, other.clauses));
        }
        let n = |s: &Selection| s.shard.map(|s| s.count);
        if n(self) != n(other) {
            diffs.push(format!("shard splits differ ({} vs {})", fmt_shard(self.shard), fmt_shard(other.shard)));
        }
        if diffs.is_empty() { Ok(()) } else { Err(diffs.join("; ")) }
    }
}

fn fmt_shard(s: Option<Shard>) -> String {
    s.map(|s| s.to_string()).unwrap_or_else(|| "unsharded".into())
}

/// `sha256:<hex>` over (id, NUL, file text, NUL) of every scenario, by id.
pub fn digest(scenarios: &[Located]) -> String {
    let mut sorted: Vec<&Located> = scenarios.iter().collect();
    sorted.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
    let mut h = Sha256::new();
    for l in sorted {
        h.update(l.scenario.id.as_bytes());
        h.update([0]);
        h.update(l.source.as_bytes());
        h.update([0]);
    }
    let bytes = h.finalize();
    format!("sha256:{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("1/4", Ok((1, 4)))]
    #[case("4/4", Ok((4, 4)))]
    #[case("0/4", Err("need 1 ≤ K ≤ N"))]
    #[case("5/4", Err("need 1 ≤ K ≤ N"))]
    #[case("1/0", Err("need 1 ≤ K ≤ N"))]
    #[case("x/4", Err("K is not a number"))]
    #[case("14", Err("expected K/N"))]
    fn shards_parse(#[case] s: &str, #[case] want: Result<(u32, u32), &str>) {
        match (Shard::parse(s), want) {
            (Ok(sh), Ok((k, n))) => assert_eq!((sh.index, sh.count), (k, n)),
            (Err(e), Err(w)) => assert!(e.contains(w), "{e}"),
            (got, want) => panic!("{s}: {got:?} vs {want:?}"),
        }
    }

    fn located(id: &str, text: &str) -> Located {
        let src = format!("id: {id}\ntitle: {text}\ndescription: d\nscript:\n  - heartbeat: {{}}\n");
        crate::scenario::load::parse(std::path::Path::new(&format!("s/{id}.yaml")), &src).unwrap()
    }

    #[test]
    fn shards_partition_the_selection_whatever_the_input_order() {
        let all: Vec<Located> = ["c", "a", "e", "b", "d"].iter().map(|id| located(id, "t")).collect();
        let mut seen = Vec::new();
        for k in 1..=3 {
            let part = Shard { index: k, count: 3 }.take(all.clone());
            seen.extend(part.iter().map(|l| l.scenario.id.clone()));
        }
        seen.sort();
        assert_eq!(seen, ["a", "b", "c", "d", "e"]);
        let mut reversed = all.clone();
        reversed.reverse();
        let ids = |v: Vec<Located>| v.into_iter().map(|l| l.scenario.id).collect::<Vec<_>>();
        assert_eq!(ids(Shard { index: 2, count: 3 }.take(all)), ids(Shard { index: 2, count: 3 }.take(reversed)));
    }

    #[test]
    fn digest_sees_content_not_order() {
        let a = [located("a", "t"), located("b", "t")];
        let b = [located("b", "t"), located("a", "t")];
        let c = [located("a", "t"), located("b", "changed")];
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&c));
        assert!(digest(&a).starts_with("sha256:"));
    }
}
