//! Replays the committed fuzz corpus and any kept crash artifacts of the
//! `repair_validate` targets (all providers and `repair_validate_<provider>`,
//! which share the corpus) on stable Rust. Every input goes through the
//! all-provider check, a superset of each per-provider target.

use std::path::Path;

#[test]
fn repair_validate_corpus_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut n = 0;
    let mut dirs = vec![root.join("corpus/repair_validate")];
    if let Ok(artifacts) = std::fs::read_dir(root.join("artifacts")) {
        let mut found: Vec<_> = artifacts.flatten().map(|e| e.path()).filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("repair_validate"))).collect();
        found.sort();
        dirs.extend(found);
    }
    for dir in dirs {
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

/// The corpus is only worth keeping while the same bytes decode to the same
/// transcripts: a change to `gen` that shifts the decoding shows up here
/// (re-bless with `INSTA_UPDATE=always` only when the shift is intended).
#[test]
fn corpus_decodes_to_the_same_transcripts() {
    use sha2::{Digest, Sha256};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/repair_validate");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let mut h = Sha256::new();
    let mut messages = 0;
    for f in &files {
        let t = clawspec_mock_providers::gen::transcript(&std::fs::read(f).unwrap());
        messages += t.len();
        h.update(serde_json::to_string(&t).unwrap());
        h.update(b"\n");
    }
    let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    insta::assert_snapshot!(format!("{} inputs, {messages} messages, sha256 {digest}", files.len()));
}
