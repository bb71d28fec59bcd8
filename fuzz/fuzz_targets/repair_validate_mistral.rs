//! Repair then validate for one provider (mistral): the repaired transcript
//! is accepted, repair reaches its fixed point, user text is kept. Smaller
//! and much faster per execution than `repair_validate` (all six providers).
#![no_main]
use libfuzzer_sys::fuzz_target;

use clawspec_mock_providers::Provider;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = clawspec_mock_providers::fuzzing::repair_validate_one(Provider::Mistral, data) {
        panic!("{e}");
    }
});
