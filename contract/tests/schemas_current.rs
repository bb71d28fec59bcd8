//! The JSON Schemas under docs/schema/ are generated from the Rust types. This
//! test fails when they drift; `CLAWSPEC_BLESS=1 cargo test` rewrites them.

use std::path::PathBuf;

#[test]
fn protocol_schemas_are_current() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schema");
    let bless = std::env::var_os("CLAWSPEC_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, schema) in clawspec_contract::schema::all() {
        let path = dir.join(format!("{name}.json"));
        let want = clawspec_contract::schema::render(&schema);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, want).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(stale.is_empty(), "stale schemas (run with CLAWSPEC_BLESS=1 to regenerate):\n{}", stale.join("\n"));
}
