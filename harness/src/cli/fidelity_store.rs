//! The rows a fidelity table was rendered from, kept beside it
//! (`docs/fidelity.json` for `docs/fidelity.md`), so that a fix to the
//! reference runtime can be recorded by re-twinning only the rows it touches
//! (`clawspec twin --fidelity docs/fidelity.md --scenario GLOB`) instead of
//! the whole library (over an hour on 2 cores). The markdown is always
//! rendered again from these rows, never patched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::twin::Row;
use crate::realhost::measure::InstallTiming;

const FORMAT: u32 = 1;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SectionTiming {
    pub install: Option<InstallTiming>,
    /// Wall clock of the section's last whole run (ms).
    pub total_ms: u64,
    /// Real gateways at once.
    pub jobs: usize,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// Every row twinned for this release, in library order per engine.
    pub rows: Vec<Row>,
    pub timing: SectionTiming,
    /// False when only some rows of the library were ever run for this
    /// release (`--scenario` on a release the table had no section for).
    pub whole: bool,
    /// Rows re-twinned after the section's whole run, `scenario · engine`.
    pub refreshed: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    pub format: u32,
    /// Wall clock of the last whole-table run (ms).
    pub total_ms: u64,
    pub sections: BTreeMap<String, Section>,
}

pub fn path_for(table: &Path) -> PathBuf {
    table.with_extension("json")
}

pub fn load(table: &Path) -> Result<Stored, String> {
    let p = path_for(table);
    let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e} (the rows are written by a whole-table run: `cargo xtask fidelity`)", p.display()))?;
    let s: Stored = serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", p.display(), e.line(), e.column()))?;
    if s.format != FORMAT {
        return Err(format!("{}: rows format {} (this clawspec reads {FORMAT}): run the whole table again", p.display(), s.format));
    }
    Ok(s)
}

pub fn save(table: &Path, s: &Stored) -> Result<(), String> {
    let p = path_for(table);
    let mut text = serde_json::to_string_pretty(&Stored { format: FORMAT, total_ms: s.total_ms, sections: s.sections.clone() }).expect("rows serialise");
    text.push('\n');
    std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

/// `fresh` rows replace the section's rows of the same scenario and engine
/// (or join it); rows stay in library order per engine, as a whole run
/// writes them.
pub fn splice(section: &mut Section, fresh: Vec<Row>, order: &dyn Fn(&Row) -> (usize, usize)) {
    for r in fresh {
        if section.whole {
            let tag = format!("{} · {}", r.scenario, r.engine);
            section.refreshed.retain(|t| *t != tag);
            section.refreshed.push(tag);
        }
        match section.rows.iter_mut().find(|o| o.scenario == r.scenario && o.engine == r.engine) {
            Some(o) => *o = r,
            None => section.rows.push(r),
        }
    }
    section.rows.sort_by_key(|r| order(r));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::twin::Verdict;

    fn row(s: &str, e: &str, v: Verdict) -> Row {
        Row { scenario: s.into(), profile: "openclaw-2026.9.6".into(), engine: e.into(), verdict: v, real_ms: Some(1), gateway_start_ms: None, gateway_start_cpu_ms: None, engine_calls: Some(2) }
    }

    #[test]
    fn rows_round_trip_and_fresh_rows_replace_in_library_order() {
        let mut sec = Section { rows: vec![row("a", "builtin:window", Verdict::Differs("-x\n+y".into())), row("c", "builtin:window", Verdict::NotDrivable("why".into()))], whole: true, ..Section::default() };
        let order = |r: &Row| (0usize, ["a", "b", "c"].iter().position(|s| *s == r.scenario).unwrap());
        splice(&mut sec, vec![row("b", "builtin:window", Verdict::Error("gateway".into())), row("a", "builtin:window", Verdict::Equal)], &order);
        let got: Vec<String> = sec.rows.iter().map(|r| format!("{}:{:?}", r.scenario, r.verdict)).collect();
        assert_eq!(got, ["a:Equal", "b:Error(\"gateway\")", "c:NotDrivable(\"why\")"]);
        assert_eq!(sec.refreshed, ["b · builtin:window", "a · builtin:window"]);
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("fidelity.md");
        let mut stored = Stored { total_ms: 7, ..Stored::default() };
        stored.sections.insert("openclaw-2026.9.6".into(), sec);
        save(&table, &stored).unwrap();
        let back = load(&table).unwrap();
        assert_eq!(serde_json::to_value(&back.sections).unwrap(), serde_json::to_value(&stored.sections).unwrap());
        let text = std::fs::read_to_string(path_for(&table)).unwrap();
        assert!(text.contains("\"verdict\": \"differs\"") || text.contains("\"verdict\": \"equal\""), "{text}");
        // A partial section does not list refreshes: all its rows are.
        let mut part = Section::default();
        splice(&mut part, vec![row("a", "builtin:window", Verdict::Equal)], &order);
        assert!(part.refreshed.is_empty() && part.rows.len() == 1);
    }

    #[test]
    fn a_table_without_stored_rows_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = load(&dir.path().join("fidelity.md")).unwrap_err();
        assert!(e.contains("fidelity.json") && e.contains("cargo xtask fidelity"), "{e}");
        std::fs::write(dir.path().join("fidelity.json"), "{\"format\": 1,\n \"totalMs\": x}").unwrap();
        let e = load(&dir.path().join("fidelity.md")).unwrap_err();
        assert!(e.contains("fidelity.json:2:"), "{e}");
    }
}
