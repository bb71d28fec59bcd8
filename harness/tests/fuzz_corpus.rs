//! Replays the committed corpora of the `frame_decode` and `scenario_parse`
//! fuzz targets on stable Rust.

use std::path::Path;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut out = Vec::new();
    for dir in [root.join("corpus").join(target), root.join("artifacts").join(target)] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        out.extend(files.into_iter().map(|f| std::fs::read(f).unwrap()));
    }
    assert!(!out.is_empty(), "{target}: corpus missing");
    out
}

#[test]
fn frame_decode_corpus_replays() {
    for data in corpus("frame_decode") {
        if let Ok(s) = std::str::from_utf8(&data) {
            let _ = clawspec_contract::protocol::Frame::decode(s);
        }
    }
}

#[test]
fn scenario_parse_corpus_replays() {
    for data in corpus("scenario_parse") {
        if let Ok(s) = std::str::from_utf8(&data) {
            // Never panics; a failure is a located error.
            if let Err(errs) = clawspec::scenario::load::parse(Path::new("fuzz.yaml"), s) {
                assert!(errs.iter().all(|e| e.line >= 1 && e.column >= 1));
            }
        }
    }
}
