//! Built-in engines: real processes speaking protocol v1 through the same
//! driver as any external engine. `clawspec engine <name>` runs one on
//! stdin/stdout; `--engine builtin:<name>` spawns the current executable so.

/// Names accepted by `builtin:<name>`.
pub const BUILTIN: &[&str] = &["legacy", "window"];

/// Serve engine `name` on stdin/stdout until `shutdown`. Returns the exit code.
pub fn run(name: &str) -> i32 {
    eprintln!("clawspec: built-in engine {name:?} is not available yet");
    2
}
