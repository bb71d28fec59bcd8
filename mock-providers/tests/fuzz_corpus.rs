//! Replays the committed fuzz corpus and any kept crash artifacts of the
//! `repair_validate` target on stable Rust, through the same check.

use std::path::Path;

#[test]
fn repair_validate_corpus_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut n = 0;
    for dir in [root.join("corpus/repair_validate"), root.join("artifacts/repair_validate")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            if let Err(e) = clawspec_mock_providers::fuzzing::repair_validate(&data) {
                panic!("{}: {e}", f.display());
            }
            n += 1;
        }
    }
    assert!(n >= 5, "the corpus is committed ({n} inputs found)");
}
