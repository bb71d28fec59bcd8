//! The protocol decoder never panics on any line.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = clawspec_contract::protocol::Frame::decode(s);
    }
});
