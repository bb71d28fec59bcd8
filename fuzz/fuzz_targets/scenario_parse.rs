//! The scenario loader never panics: every input is a scenario or a located error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = clawspec::scenario::load::parse(std::path::Path::new("fuzz.yaml"), s);
    }
});
