//! `clawspec-sanitizer [reference|weak]`: both external sanitizers in one
//! binary (see `clawspec-sanitizer-reference` / `clawspec-sanitizer-weak`).

use clawspec_mock_providers::sanitizer::{run_stdio, Mode};

fn main() {
    match std::env::args().nth(1).as_deref() {
        None | Some("reference") => run_stdio(Mode::Reference),
        Some("weak") => run_stdio(Mode::Weak),
        Some(other) => {
            eprintln!("clawspec-sanitizer: unknown mode {other:?} (reference | weak)");
            std::process::exit(2);
        }
    }
}
