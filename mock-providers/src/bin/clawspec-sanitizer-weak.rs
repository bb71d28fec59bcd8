//! A deliberately weakened sanitizer (no pairing repair) that `clawspec fuzz-sanitizer` must catch.

fn main() {
    clawspec_mock_providers::sanitizer::run_stdio(clawspec_mock_providers::sanitizer::Mode::Weak);
}
