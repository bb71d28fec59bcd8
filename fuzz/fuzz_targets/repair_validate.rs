//! Repair then validate, for every provider: a repaired transcript must be
//! accepted. Same check as mock-providers' corpus replay test on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = clawspec_mock_providers::fuzzing::repair_validate(data) {
        panic!("{e}");
    }
});
