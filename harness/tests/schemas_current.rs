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
