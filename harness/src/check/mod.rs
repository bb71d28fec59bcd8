//! Contract clauses and their checks. Clauses never re-run the engine: they
//! read the trace. Verdict per clause × scenario × profile: pass, fail, warn
//! (a failed SHOULD), info (a failed INFO), not-applicable, error (the run
//! could not exercise the clause: engine fault or harness error).

pub mod assembly;
pub mod authority;
pub mod catalogue;
pub mod matching;
pub mod rules;
pub mod summaries;
pub mod state;
pub mod text_keys;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::trace::{Outcome, Trace};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Must,
    Should,
    Info,
}

pub struct Clause {
    pub id: &'static str,
    pub level: Level,
    pub text: &'static str,
    /// OpenClaw source path, PR/issue or seed section.
    pub source: &'static str,
    /// Profiles it applies to (empty = every base profile).
    pub profiles: &'static [&'static str],
    /// Optional methods it needs; missing ⇒ not-applicable.
    pub methods: &'static [&'static str],
    pub check: fn(&Ctx<'_>) -> rules::Outcome,
}

pub struct Ctx<'a> {
    pub trace: &'a Trace,
    pub owns_compaction: bool,
    /// For rfc-82137 runs: the openclaw-2026.9.6 trace of the same scenario.
    pub sibling: Option<&'a Trace>,
    /// Every successful assemble with its messages, materialised once for
    /// all clauses: a dozen clauses read them, and resolving each call's
    /// whole history per clause made the checks' constant a dozen times
    /// what it needs to be on long sessions. Calls share their histories
    /// ([`assembly`]), so this grows with the session, not its square.
    assembled: std::sync::OnceLock<Vec<assembly::Assembled<'a>>>,
    /// Messages' `role|text` keys as integers, once per message ([`text_keys`]).
    pub text_keys: text_keys::TextKeys,
}

impl<'a> Ctx<'a> {
    pub fn new(trace: &'a Trace, owns_compaction: bool, sibling: Option<&'a Trace>) -> Ctx<'a> {
        Ctx { trace, owns_compaction, sibling, assembled: Default::default(), text_keys: Default::default() }
    }

    /// assemble calls that returned a well-formed messages array, parsed, in
    /// call order.
    pub fn assembled(&self) -> &[assembly::Assembled<'a>] {
        self.assembled.get_or_init(|| assembly::resolve(self.trace))
    }

    /// One assemble call's (input, output), when it returned a readable array.
    pub fn assembled_of(&self, call: &crate::trace::CallRecord) -> Option<(&assembly::Shared, &assembly::Shared)> {
        if call.method != "assemble" {
            return None;
        }
        let a = self.assembled();
        // Calls are recorded in seq order; a trace that breaks that (hand
        // edited) is searched linearly.
        let found = a.binary_search_by_key(&call.seq, |(c, _, _)| c.seq).ok().filter(|&i| std::ptr::eq(a[i].0, call));
        let (_, input, output) = match found {
            Some(i) => &a[i],
            None => a.iter().find(|(c, _, _)| std::ptr::eq(*c, call))?,
        };
        Some((input, output))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Fail,
    Warn,
    Info,
    NotApplicable,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub clause: String,
    pub level: Level,
    pub scenario: String,
    pub profile: String,
    pub status: Status,
    /// Why it failed / is not applicable / errored (one line per problem).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// For errors: who broke the run (Bowtie's caught vs uncaught).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// For a verdict that is not a pass: what the engine said (host
    /// callbacks, `$/log`) during the calls its details name (`call #N`),
    /// or, for an engine fault, the stderr the fault captured. Bounded
    /// ([`EXCERPT_LINES`] lines, [`EXCERPT_BYTES`] bytes); deterministic
    /// (per-call stderr is shown by `clawspec run` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_output: Vec<String>,
}

/// Bounds of [`Verdict::engine_output`].
pub const EXCERPT_LINES: usize = 20;
pub const EXCERPT_BYTES: usize = 2048;

/// The calls `details` name as `(call #N)` ([`rules::at`]), in order, once.
fn named_calls(details: &[String]) -> Vec<u32> {
    let mut out = Vec::new();
    for d in details {
        let mut rest = d.as_str();
        while let Some(i) = rest.find("(call #") {
            rest = &rest[i + 7..];
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = n.parse::<u32>() {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// [`Verdict::engine_output`] for a verdict on `trace` with these details.
pub fn engine_output_excerpt(trace: &Trace, details: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    let seqs = named_calls(details);
    for c in trace.calls().filter(|c| seqs.contains(&c.seq)) {
        for cb in &c.callbacks {
            let result: String = cb.result.to_string().chars().take(200).collect();
            lines.push(format!("call #{} {} ↺ {} → {result}", c.seq, c.method, cb.method));
        }
        for l in &c.output.log {
            lines.push(format!("call #{} {} $/log {}: {}", c.seq, c.method, l.level, l.message));
        }
        // Per-call stderr stays out: which call a stderr byte lands in races
        // the answer on stdout, and a report must be byte-identical run to
        // run. `clawspec run` shows it; a fault's stderr (below) is stable.
    }
    if let Outcome::EngineFault { stderr, kind, .. } = &trace.outcome {
        if seqs.is_empty() {
            for l in stderr.lines().filter(|l| !l.trim().is_empty()) {
                lines.push(format!("{kind} stderr: {l}"));
            }
        }
    }
    bound_excerpt(lines)
}

fn bound_excerpt(lines: Vec<String>) -> Vec<String> {
    let total = lines.len();
    let mut out = Vec::new();
    let mut bytes = 0;
    for mut l in lines {
        if out.len() == EXCERPT_LINES || bytes >= EXCERPT_BYTES {
            break;
        }
        if bytes + l.len() > EXCERPT_BYTES {
            let mut cut = EXCERPT_BYTES - bytes;
            while !l.is_char_boundary(cut) {
                cut -= 1;
            }
            l.truncate(cut);
            l.push('…');
        }
        bytes += l.len();
        out.push(l);
    }
    if out.len() < total {
        out.push(format!("… {} more lines of engine output", total - out.len()));
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The engine threw on every call the clause judges: nothing to judge.
    Caught,
    /// The engine crashed, hung or broke the protocol (a named driver fault).
    Uncaught,
    /// The harness failed (bad scenario at run time, I/O).
    Harness,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Caught => "caught",
            ErrorKind::Uncaught => "uncaught",
            ErrorKind::Harness => "harness",
        }
    }
}

pub fn clause(id: &str) -> Option<&'static Clause> {
    catalogue::CLAUSES.iter().find(|c| c.id == id)
}

/// Profile lists are explicit (drift variants named); empty means every profile.
fn applies(c: &Clause, profile: &str) -> bool {
    c.profiles.is_empty() || c.profiles.contains(&profile)
}

/// Every applicable clause for one trace.
pub fn evaluate(trace: &Trace, sibling: Option<&Trace>, only: &[String]) -> Vec<Verdict> {
    let methods = &trace.engine.methods;
    let owns = trace.engine.info.as_ref().and_then(|i| i.get("ownsCompaction")).and_then(|v| v.as_bool()) == Some(true);
    let ctx = Ctx::new(trace, owns, sibling);
    let mut out = Vec::new();
    for c in catalogue::CLAUSES {
        if !only.is_empty() && !only.iter().any(|o| o == c.id) {
            continue;
        }
        if !applies(c, &trace.profile) {
            continue;
        }
        let mk = |status, details: Vec<String>, error_kind: Option<ErrorKind>| Verdict {
            clause: c.id.into(),
            level: c.level,
            scenario: trace.scenario.clone(),
            profile: trace.profile.clone(),
            status,
            engine_output: Vec::new(),
            details,
            error_kind,
        };
        let missing: Vec<&str> = c
            .methods
            .iter()
            .copied()
            .filter(|m| !clawspec_contract::protocol::method::REQUIRED.contains(m) && !methods.iter().any(|x| x == m))
            .collect();
        if !missing.is_empty() {
            out.push(mk(Status::NotApplicable, vec![format!("the engine does not implement {}", missing.join(", "))], None));
            continue;
        }
        // The LIFE clauses judge faults themselves; others cannot be judged
        // when the run broke off.
        let is_life = c.id.starts_with("CE-LIFE-001") || c.id.starts_with("CE-LIFE-002");
        match (&trace.outcome, is_life) {
            (Outcome::HarnessError { message }, _) => {
                out.push(mk(Status::Error, vec![format!("harness error: {message}")], Some(ErrorKind::Harness)));
                continue;
            }
            (Outcome::EngineFault { kind, message, .. }, false) => {
                out.push(mk(Status::Error, vec![format!("engine fault {kind}: {message}")], Some(ErrorKind::Uncaught)));
                continue;
            }
            _ => {}
        }
        let v = match (c.check)(&ctx) {
            Err(rules::Skip::NotApplicable(why)) => mk(Status::NotApplicable, vec![why], None),
            Err(rules::Skip::Caught(why)) => mk(Status::Error, vec![why], Some(ErrorKind::Caught)),
            Ok(problems) if problems.is_empty() => mk(Status::Pass, vec![], None),
            Ok(problems) => {
                let status = match c.level {
                    Level::Must => Status::Fail,
                    Level::Should => Status::Warn,
                    Level::Info => Status::Info,
                };
                mk(status, problems, None)
            }
        };
        let mut v = v;
        if !matches!(v.status, Status::Pass | Status::NotApplicable) {
            v.engine_output = engine_output_excerpt(trace, &v.details);
        }
        out.push(v);
    }
    out
}

/// Verdicts for a whole run, in (scenario, profile, clause) order. rfc-82137
/// traces are compared with their openclaw-2026.9.6 sibling (CE-RFC-003).
pub fn evaluate_all(traces: &[Trace], only: &[String]) -> Vec<Verdict> {
    let mut out = Vec::new();
    for t in traces {
        out.extend(evaluate(t, sibling(t, traces), only));
    }
    out
}

/// The run an rfc-82137 trace is compared with: rfc-82137 is
/// openclaw-2026.9.6 plus the RFC fields; drift variants pair up too.
pub fn sibling<'a>(t: &Trace, traces: &'a [Trace]) -> Option<&'a Trace> {
    let base = t.profile.strip_prefix("rfc-82137").map(|rest| format!("openclaw-2026.9.6{rest}"))?;
    traces.iter().find(|s| s.scenario == t.scenario && s.profile == base)
}

/// `clawspec list clauses`.
pub fn print_catalogue() -> u8 {
    for c in catalogue::CLAUSES {
        let profiles = if c.profiles.is_empty() { "all".to_string() } else { c.profiles.join(",") };
        // A closed pipe (`| head`) ends the listing quietly.
        use std::io::Write;
        if writeln!(std::io::stdout(), "{:<12} {:<6} {}\n             source: {} · profiles: {profiles}", c.id, format!("{:?}", c.level).to_uppercase(), c.text, c.source).is_err() {
            break;
        }
    }
    0
}

/// docs/clauses.md, generated (tested current).
pub fn catalogue_markdown() -> String {
    let mut s = String::from("# Contract clauses\n\nGenerated from `harness/src/check/catalogue.rs` — do not edit; `cargo xtask bless` regenerates.\n\nAn engine is **certified** for a profile when no MUST clause fails or errors (`--strict`: no SHOULD either). A clause on an optional method the engine does not implement is *not applicable*; a clause whose every judged call threw is an *error (caught)*. Profiles: *all* includes the `+marker-drift` variants; a listed profile means exactly that run.\n\n| id | level | clause | source | profiles | needs |\n|---|---|---|---|---|---|\n");
    for c in catalogue::CLAUSES {
        let profiles = if c.profiles.is_empty() { "all".to_string() } else { c.profiles.join(", ") };
        s.push_str(&format!("| `{}` | {:?} | {} | {} | {} | {} |\n", c.id, c.level, c.text.replace('|', "\\|"), c.source.replace('|', "\\|"), profiles, c.methods.join(", ")));
    }
    s
}

#[cfg(test)]
mod excerpt_tests {
    use super::*;

    #[test]
    fn details_name_calls_once_in_order() {
        let d = vec!["turn 1 attempt 1 assemble (call #12): x; see (call #3)".to_string(), "again (call #12), and (call #)".to_string()];
        assert_eq!(named_calls(&d), vec![12, 3]);
    }

    #[test]
    fn an_excerpt_is_bounded_in_lines_and_bytes() {
        let many: Vec<String> = (0..50).map(|i| format!("line {i}")).collect();
        let out = bound_excerpt(many);
        assert_eq!(out.len(), EXCERPT_LINES + 1);
        assert_eq!(out.last().unwrap(), "… 30 more lines of engine output");
        let big = bound_excerpt(vec!["é".repeat(EXCERPT_BYTES), "next".into()]);
        assert!(big[0].len() <= EXCERPT_BYTES + '…'.len_utf8(), "{}", big[0].len());
        assert_eq!(big[1], "… 1 more lines of engine output");
    }
}
