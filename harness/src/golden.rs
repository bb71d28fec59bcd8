//! Golden call traces: plain pretty JSON under `golden/<engine>/<scenario>/<profile>.json`,
//! readable without Rust tooling. The same files serve our own regression tests
//! (built-in engines) and `clawspec record`/`certify --golden` for any engine.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use similar::{ChangeTag, TextDiff};

use crate::trace::Trace;

/// `builtin:window` → `window`; commands and plugins → a file-safe slug.
pub fn engine_dir_name(display: &str) -> String {
    let base = display.strip_prefix("builtin:").unwrap_or(display);
    base.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

pub fn path(root: &Path, engine: &str, scenario: &str, profile: &str) -> PathBuf {
    root.join(engine).join(scenario).join(format!("{profile}.json"))
}

pub fn render(t: &Trace) -> String {
    t.to_pretty_json()
}

/// Long sessions (generated scenarios) give traces of 100 MB and more, too big
/// to keep in git: their golden is `<profile>.digest.json`, the SHA-256 of the
/// full trace plus one line per event with short hashes of params and reply,
/// so a change is still caught and its diff points at the first call that moved.
pub fn digest_path(root: &Path, engine: &str, scenario: &str, profile: &str) -> PathBuf {
    root.join(engine).join(scenario).join(format!("{profile}.digest.json"))
}

pub fn render_digest(t: &Trace) -> String {
    use crate::trace::{Event, ReplyRecord};
    use sha2::{Digest, Sha256};
    let hex = |s: &str, n: usize| -> String { Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect::<String>()[..n].to_string() };
    let count = |v: &serde_json::Value| v.get("messages").and_then(|m| m.as_array()).map(|a| a.len().to_string()).unwrap_or_else(|| "-".into());
    let events: Vec<String> = t
        .events
        .iter()
        .map(|e| match e {
            Event::Call(c) => {
                let reply = match &c.reply {
                    ReplyRecord::Ok(v) => format!("ok out={} r={}", count(&t.resolve(v)), hex(&v.to_string(), 10)),
                    ReplyRecord::Threw { message, .. } => format!("threw {}", hex(message, 10)),
                    ReplyRecord::Fault { kind, .. } => format!("fault {kind}"),
                    ReplyRecord::Skipped => "skipped".into(),
                };
                format!("#{} t{}.{} {} in={} p={} {reply}", c.seq, c.turn, c.attempt, c.method, count(&t.params(c)), hex(&c.params.to_string(), 10))
            }
            Event::Model(m) => format!("#{} t{}.{} model {} msgs={} tokens={}", m.seq, m.turn, m.attempt, m.outcome, m.message_count, m.prompt_tokens),
            Event::Note(n) => format!("#{} t{} note {}", n.seq, n.turn, n.code),
        })
        .collect();
    let full = t.to_pretty_json();
    let doc = serde_json::json!({
        "scenario": t.scenario,
        "profile": t.profile,
        "engine": t.engine.display,
        "traceBytes": full.len(),
        "traceSha256": hex(&full, 64),
        "outcome": t.outcome,
        "events": events,
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("digest serialises");
    s.push('\n');
    s
}

/// [`check`] for long sessions: compare or (bless) write the digest golden.
pub fn check_digest(root: &Path, engine: &str, t: &Trace, bless: bool) -> Result<(), String> {
    compare(&digest_path(root, engine, &t.scenario, &t.profile), render_digest(t), bless)
}

/// `None` when equal, else a unified diff (expected → actual), 3 lines of context.
#[cfg(test)]
mod tests {
    #[test]
    fn version_1_goldens_are_named_not_diffed() {
        assert_eq!(super::format_mismatch(r#"{"scenario":"x","events":[]}"#), Some(1));
        assert_eq!(super::format_mismatch(&format!(r#"{{"formatVersion":{},"events":[]}}"#, crate::trace::FORMAT_VERSION)), None);
        assert_eq!(super::format_mismatch(""), None);
    }
}

pub fn diff(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let d = TextDiff::from_lines(expected, actual);
    let mut out = String::new();
    for group in d.grouped_ops(3) {
        for op in group {
            for change in d.iter_changes(&op) {
                let sign = match change.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                out.push(sign);
                out.push_str(change.value());
                if !change.value().ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        out.push_str("@@\n");
    }
    Some(out)
}

/// Compare with, or (bless) write, the golden file of a trace.
pub fn check(root: &Path, engine: &str, t: &Trace, bless: bool) -> Result<(), String> {
    let p = path(root, engine, &t.scenario, &t.profile);
    // A full trace golden names its format; digests (`check_digest`) have none.
    if let Some(v) = format_mismatch(&std::fs::read_to_string(&p).unwrap_or_default()) {
        if !bless {
            return Err(format!(
                "{}: golden has trace format version {v}, this clawspec writes version {} (message arrays stored once per trace): re-record it (`clawspec record`, or CLAWSPEC_BLESS=1 for ours)",
                p.display(),
                crate::trace::FORMAT_VERSION
            ));
        }
    }
    compare(&p, render(t), bless)
}

fn compare(p: &Path, actual: String, bless: bool) -> Result<(), String> {
    let expected = std::fs::read_to_string(p).unwrap_or_default();
    match diff(&expected, &actual) {
        None => Ok(()),
        Some(_) if bless => {
            let dir = p.parent().expect("a golden path has a folder");
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::write(&p, actual).map_err(|e| format!("{}: {e}", p.display()))
        }
        Some(d) if expected.is_empty() => Err(format!("{}: no golden yet (bless to create)\n{}", p.display(), &d[..d.len().min(2000)])),
        Some(d) => Err(format!("{}: trace differs from the golden (- golden, + actual):\n{d}", p.display())),
    }
}

/// The format version of a golden file when it is not the current one.
fn format_mismatch(text: &str) -> Option<u32> {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(rename = "formatVersion", default = "one")]
        v: u32,
    }
    fn one() -> u32 {
        1
    }
    if text.is_empty() {
        return None;
    }
    let v = serde_json::from_str::<Head>(text).map(|h| h.v).unwrap_or(1);
    (v != crate::trace::FORMAT_VERSION).then_some(v)
}

/// Golden files under `root/<engine>/` that no (scenario, profile) pair refers to.
pub fn unreferenced(root: &Path, engine: &str, referenced: &BTreeSet<(String, String)>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let dir = root.join(engine);
    let Ok(scenarios) = std::fs::read_dir(&dir) else { return out };
    let mut entries: Vec<_> = scenarios.flatten().map(|e| e.path()).collect();
    entries.sort();
    for sdir in entries {
        let sid = sdir.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(&sdir) else { continue };
        let mut files: Vec<_> = files.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            let pid = stem.strip_suffix(".digest").map(str::to_string).unwrap_or(stem);
            if !referenced.contains(&(sid.clone(), pid)) {
                out.push(f);
            }
        }
    }
    out
}
