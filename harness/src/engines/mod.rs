//! Built-in engines: real processes speaking protocol v1 through the same
//! driver as any external engine. `clawspec engine <name>` runs one on
//! stdin/stdout; `--engine builtin:<name>` spawns the current executable so.

pub mod legacy;
pub mod serve;
pub mod window;

/// Names accepted by `builtin:<name>` (`window:<mutation>` selects a mutant).
pub const BUILTIN: &[&str] = &["legacy", "window"];

/// Serve engine `name` on stdin/stdout until `shutdown`. Returns the exit code.
pub fn run(name: &str) -> i32 {
    let (base, variant) = match name.split_once(':') {
        Some((b, v)) => (b, Some(v)),
        None => (name, None),
    };
    match (base, variant) {
        ("legacy", None) => serve::serve(&mut legacy::Legacy),
        ("window", None) => serve::serve(&mut window::Window::new(window::Mutation::None)),
        ("window", Some(m)) => match window::mutation(m) {
            Some(mu) => serve::serve(&mut window::Window::new(mu)),
            None => {
                let names: Vec<&str> = window::MUTATIONS.iter().map(|(n, _)| *n).collect();
                eprintln!("clawspec: unknown window mutation {m:?}; mutations: {}", names.join(", "));
                2
            }
        },
        _ => {
            eprintln!("clawspec: unknown built-in engine {name:?}; built-ins: {}", BUILTIN.join(", "));
            2
        }
    }
}
