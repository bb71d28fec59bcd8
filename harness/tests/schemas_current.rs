//! Scenario-file and trace schemas under docs/schema/ are generated from the
//! Rust types; `CLAWSPEC_BLESS=1 cargo test` rewrites them.

use std::path::PathBuf;

use schemars::schema_for;

#[test]
fn harness_schemas_are_current() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schema");
    let bless = std::env::var_os("CLAWSPEC_BLESS").is_some();
    let schemas = [
        ("scenario", schema_for!(clawspec::scenario::Scenario)),
        ("trace", schema_for!(clawspec::trace::Trace)),
        ("report", schema_for!(clawspec::report::Report)),
        ("baseline", schema_for!(clawspec::report::baseline::Baseline)),
    ];
    let mut stale = Vec::new();
    for (name, schema) in schemas {
        let path = dir.join(format!("{name}.json"));
        let want = clawspec_contract::schema::render(&schema);
        if std::fs::read_to_string(&path).unwrap_or_default() != want {
            if bless {
                std::fs::write(&path, want).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(stale.is_empty(), "stale schemas (CLAWSPEC_BLESS=1 regenerates):\n{}", stale.join("\n"));
}

#[test]
fn clause_docs_are_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/clauses.md");
    let want = clawspec::check::catalogue_markdown();
    if std::env::var_os("CLAWSPEC_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), want, "docs/clauses.md is stale (CLAWSPEC_BLESS=1 regenerates)");
}

#[test]
fn every_clause_a_scenario_names_exists() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    for l in clawspec::scenario::load_dir(&dir).unwrap() {
        for c in &l.scenario.clauses {
            assert!(clawspec::check::clause(c).is_some(), "{}: unknown clause {c}", l.path.display());
        }
    }
}
