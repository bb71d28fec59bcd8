//! Building an [`EngineSpec`]: from a command line as a user types it, or for
//! a built-in engine served by the `clawspec` executable itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::EngineSpec;

/// A command line that does not describe a program to run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("engine command line {line:?} cannot be split into words: {detail}")]
    Unparsable { line: String, detail: String },
    #[error("engine command line {line:?} names no program")]
    NoProgram { line: String },
}

impl EngineSpec {
    /// Split `line` like a POSIX shell (quotes, backslashes) into program and
    /// arguments. Leading `NAME=value` words become environment, as in
    /// `NODE_OPTIONS=--no-warnings node adapter.js`. Whether the program
    /// exists is only known at start: a made-up one fails there with
    /// [`super::EngineFault::SpawnFailed`] naming it.
    pub fn from_command_line(line: &str) -> Result<EngineSpec, SpecError> {
        let words = shell_words::split(line).map_err(|e| SpecError::Unparsable { line: line.into(), detail: e.to_string() })?;
        let mut env = BTreeMap::new();
        let mut words = words.into_iter().peekable();
        while let Some((k, v)) = words.peek().and_then(|w| env_assignment(w)) {
            env.insert(k, v);
            words.next();
        }
        let program = words.next().ok_or_else(|| SpecError::NoProgram { line: line.into() })?;
        Ok(EngineSpec { program, args: words.collect(), env, cwd: None, display: line.trim().to_string() })
    }

    /// A built-in engine: `clawspec engine <name>`, with the executable found
    /// by [`resolve_clawspec_exe`].
    pub fn builtin(name: &str) -> EngineSpec {
        let exe = resolve_clawspec_exe(std::env::var_os("CLAWSPEC_EXE").map(PathBuf::from), std::env::current_exe().ok());
        EngineSpec::builtin_at(&exe.to_string_lossy(), name)
    }
}

/// The `clawspec` executable: `CLAWSPEC_EXE` if set, else the current
/// executable when it is `clawspec`, else a `clawspec` next to it or one
/// directory up (cargo puts test and bench binaries in `target/<profile>/deps/`),
/// else plain `clawspec` looked up on PATH.
pub fn resolve_clawspec_exe(env: Option<PathBuf>, current_exe: Option<PathBuf>) -> PathBuf {
    if let Some(p) = env.filter(|p| !p.as_os_str().is_empty()) {
        return p;
    }
    let Some(cur) = current_exe else { return PathBuf::from("clawspec") };
    if cur.file_stem().and_then(|s| s.to_str()) == Some("clawspec") {
        return cur;
    }
    let dir = cur.parent().unwrap_or(Path::new("."));
    let mut candidates = vec![dir.join("clawspec")];
    if let Some(up) = dir.parent() {
        candidates.push(up.join("clawspec"));
    }
    candidates.into_iter().find(|c| c.is_file()).unwrap_or_else(|| PathBuf::from("clawspec"))
}

/// `NAME=value` with a shell-valid name.
fn env_assignment(word: &str) -> Option<(String, String)> {
    let (k, v) = word.split_once('=')?;
    let mut chars = k.chars();
    let first_ok = chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic());
    (first_ok && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())).then(|| (k.to_string(), v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("node adapter.js --plugin ./p", &["node", "adapter.js", "--plugin", "./p"], &[])]
    #[case("  python3 -m  engine  ", &["python3", "-m", "engine"], &[])]
    #[case(r#"sh -c "exec my-engine --flag 'a b'""#, &["sh", "-c", "exec my-engine --flag 'a b'"], &[])]
    #[case(r"./my\ engine 'x y' z\'s", &["./my engine", "x y", "z's"], &[])]
    #[case("NODE_OPTIONS=--no-warnings DEBUG=1 node a.js X=1", &["node", "a.js", "X=1"], &[("DEBUG", "1"), ("NODE_OPTIONS", "--no-warnings")])]
    #[case("./=odd arg", &["./=odd", "arg"], &[])]
    fn splits_like_a_shell(#[case] line: &str, #[case] argv: &[&str], #[case] env: &[(&str, &str)]) {
        let s = EngineSpec::from_command_line(line).unwrap();
        let mut got = vec![s.program.clone()];
        got.extend(s.args.clone());
        assert_eq!(got, argv);
        let env: BTreeMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(s.env, env);
        assert_eq!(s.display, line.trim());
    }

    #[rstest]
    #[case("node 'unterminated", "cannot be split")]
    #[case("   ", "names no program")]
    #[case("A=1 B=2", "names no program")]
    fn bad_command_lines_are_named(#[case] line: &str, #[case] needle: &str) {
        let e = EngineSpec::from_command_line(line).unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("clawspec-spec-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("debug/deps")).unwrap();
        d
    }

    #[test]
    fn exe_from_env_wins() {
        let p = resolve_clawspec_exe(Some("/opt/x/clawspec".into()), Some("/usr/bin/clawspec".into()));
        assert_eq!(p, PathBuf::from("/opt/x/clawspec"));
        // An empty variable counts as unset.
        let p = resolve_clawspec_exe(Some("".into()), Some("/usr/bin/clawspec".into()));
        assert_eq!(p, PathBuf::from("/usr/bin/clawspec"));
    }

    #[test]
    fn exe_is_the_current_one_or_a_sibling_of_a_test_binary() {
        let d = scratch("sibling");
        let test_bin = d.join("debug/deps/driver-0123abcd");
        // Nothing next to it: fall back to PATH.
        assert_eq!(resolve_clawspec_exe(None, Some(test_bin.clone())), PathBuf::from("clawspec"));
        std::fs::write(d.join("debug/clawspec"), "").unwrap();
        assert_eq!(resolve_clawspec_exe(None, Some(test_bin.clone())), d.join("debug/clawspec"));
        std::fs::write(d.join("debug/deps/clawspec"), "").unwrap();
        assert_eq!(resolve_clawspec_exe(None, Some(test_bin)), d.join("debug/deps/clawspec"));
        assert_eq!(resolve_clawspec_exe(None, Some(d.join("x/clawspec"))), d.join("x/clawspec"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn builtin_runs_the_engine_subcommand() {
        let s = EngineSpec::builtin("legacy");
        assert_eq!(s.args, ["engine", "legacy"]);
        assert_eq!(s.display, "builtin:legacy");
    }
}
