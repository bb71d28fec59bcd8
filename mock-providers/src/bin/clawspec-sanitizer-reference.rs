//! The reference transcript repair as an external sanitizer (protocol v1 `sanitize` on stdio).

fn main() {
    clawspec_mock_providers::sanitizer::run_stdio(clawspec_mock_providers::sanitizer::Mode::Reference);
}
