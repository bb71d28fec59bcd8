//! Replays the committed fuzz corpus and any kept crash artifacts of the
//! `repair_validate` targets (all providers and `repair_validate_<provider>`,
//! which share the corpus) on stable Rust. Every input goes through the
//! all-provider check, a superset of each per-provider target.

use std::path::Path;

/// The committed `repair_validate` corpus, in a stable order.
fn corpus_files() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/repair_validate");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    files
}

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
    let files = corpus_files();
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

/// Repair and the transport pinned over the whole corpus, per provider: the
/// repaired transcript, whether it reached its fixed point, and the wire
/// request, byte for byte. Lets the fuzz path be optimised (in-place passes,
/// fewer copies) with proof that its output did not move.
#[test]
fn corpus_repairs_to_the_same_requests() {
    use clawspec_mock_providers::fuzzing::{request_options, PROMPT};
    use clawspec_mock_providers::repair::{repair_to_fixed_point, Policy};
    use clawspec_mock_providers::wire::to_wire;
    use sha2::{Digest, Sha256};
    let files = corpus_files();
    let inputs: Vec<_> = files.iter().map(|f| clawspec_mock_providers::gen::transcript(&std::fs::read(f).unwrap())).collect();
    let mut lines = Vec::new();
    for p in clawspec_mock_providers::provider::ALL {
        let mut h = Sha256::new();
        let mut unstable = 0;
        for t in &inputs {
            let mut call = t.clone();
            call.push(clawspec_contract::AgentMessage::user_text(PROMPT));
            let (fixed, stable) = repair_to_fixed_point(&Policy::for_provider(p), call);
            unstable += usize::from(!stable);
            h.update(serde_json::to_string(&fixed).unwrap());
            h.update(serde_json::to_string(&to_wire(p, &fixed, &request_options(p))).unwrap());
            h.update(b"\n");
        }
        let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        lines.push(format!("{:<17} unstable {unstable}, sha256 {digest}", p.name()));
    }
    insta::assert_snapshot!(lines.join("\n"));
}
