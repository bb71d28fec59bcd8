//! Loading scenario files with errors located as `file:line:col`.

use std::fmt;
use std::path::{Path, PathBuf};

use super::lint;
use super::model::Scenario;

/// A scenario together with where it came from.
#[derive(Clone, Debug)]
pub struct Located {
    pub path: PathBuf,
    pub source: String,
    pub scenario: Scenario,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.path.display(), self.line, self.column, self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n  hint: {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Parse (YAML, or JSON — JSON is YAML) and lint one file.
pub fn load_file(path: &Path) -> Result<Located, Vec<LoadError>> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        vec![LoadError { path: path.into(), line: 1, column: 1, message: format!("cannot read: {e}"), hint: None }]
    })?;
    parse(path, &source)
}

/// Deepest YAML nesting (mappings + sequences) a scenario may use. The
/// deepest library scenario nests about 10 levels; the limit stops
/// pathological inputs (100 000 levels once took 46 s to lint) with a
/// located error before any work grows with the depth.
pub const MAX_DEPTH: usize = 64;

pub fn parse(path: &Path, source: &str) -> Result<Located, Vec<LoadError>> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! { max_depth: MAX_DEPTH },
        with_snippet: false,
        // YAML 1.2 core schema, as serde_yaml read it: `y`, `yes`, `on`
        // stay strings (tool arguments like `{path: y}` must not turn into booleans).
        strict_booleans: true,
        legacy_octal_numbers: false,
    };
    let scenario: Scenario = serde_saphyr::from_str_with_options(source, options).map_err(|e| {
        let (line, column) = e.location().map(|l| (l.line() as usize, l.column() as usize)).unwrap_or((1, 1));
        let mut message = plain_message(&e.without_snippet().to_string());
        if message.contains("recursion limit") || message.contains("depth") {
            message = format!("nesting deeper than {MAX_DEPTH} levels ({message})");
        }
        let hint = hint_for(&message);
        vec![LoadError { path: path.into(), line, column, message, hint }]
    })?;
    let mut located = Located { path: path.into(), source: source.to_string(), scenario };
    let problems = lint::check(&located);
    if problems.is_empty() {
        // After lint, so errors point at the `generate` step as written.
        located.scenario.generated = located.scenario.script.iter().any(|s| matches!(s, super::model::Step::Generate(_)));
        located.scenario.script = super::generate::expand(&located.scenario.script);
        Ok(located)
    } else {
        Err(problems)
    }
}

/// The parser's message without the location it appends (ours is in front).
fn plain_message(m: &str) -> String {
    let m = m.trim();
    let m = match m.rfind(" at line ") {
        Some(i) => &m[..i],
        None => m,
    };
    // Advice addressed to the library's caller, not to a scenario author.
    let m = m.split(", set DuplicateKeyPolicy").next().unwrap_or(m);
    m.to_string()
}

fn hint_for(message: &str) -> Option<String> {
    if message.contains("unknown field") {
        Some("see docs/scenarios.md or docs/schema/scenario.json for the allowed keys".into())
    } else if message.contains("unknown variant") {
        Some("a script step is one of: turn, announce, collect, inter_session, heartbeat, compact, spawn, subagent_ended, switch_model, orphan_user, generate".into())
    } else if message.contains("did not match any variant") {
        Some("a model reply is either a string or a map with thinking/signature/redacted/text/tool_calls/error".into())
    } else if message.starts_with("nesting deeper") {
        Some(format!("scenarios nest at most {MAX_DEPTH} levels of mappings and sequences"))
    } else if message.contains("missing field") {
        Some("required keys: id, title, description, script".into())
    } else {
        None
    }
}

/// Every `*.yaml`, `*.yml` and `*.json` under `dir`, sorted by path.
pub fn scenario_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Load every scenario under `dir`; all errors are collected, none lost.
pub fn load_dir(dir: &Path) -> Result<Vec<Located>, Vec<LoadError>> {
    let files = scenario_files(dir).map_err(|e| {
        vec![LoadError { path: dir.into(), line: 1, column: 1, message: format!("cannot list: {e}"), hint: None }]
    })?;
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match load_file(&f) {
            Ok(l) => ok.push(l),
            Err(mut e) => errors.append(&mut e),
        }
    }
    errors.extend(duplicate_ids(&ok));
    if errors.is_empty() {
        Ok(ok)
    } else {
        Err(errors)
    }
}

/// One error per scenario whose id another file already uses, at its `id:`.
pub fn duplicate_ids(scenarios: &[Located]) -> Vec<LoadError> {
    let mut seen = std::collections::BTreeMap::new();
    let mut errors = Vec::new();
    for l in scenarios {
        if let Some(prev) = seen.insert(l.scenario.id.clone(), l.path.clone()) {
            let (line, column) = super::locate::top_key(&l.source, "id").unwrap_or((1, 1));
            errors.push(LoadError {
                path: l.path.clone(),
                line,
                column,
                message: format!("duplicate scenario id {:?} (also in {})", l.scenario.id, prev.display()),
                hint: Some("every scenario needs its own id (the file stem)".into()),
            });
        }
    }
    errors
}
