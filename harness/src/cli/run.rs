//! `clawspec run --scenario ID|GLOB [--profile P…] [--engine …] [--json]`:
//! the trace of each selected scenario × profile (one trace: the golden
//! format; several with `--json`: a JSON array of them).

use super::common::{state_root, EngineArgs, SelectArgs};
use crate::runtime::RunConfig;
use crate::trace::{Event, Outcome, ReplyRecord, Trace};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the trace as JSON (the golden format).
    #[arg(long)]
    pub json: bool,
}

pub async fn main(a: Args) -> u8 {
    super::or_usage("clawspec run", run(a).await)
}

/// Every scenario matching `--scenario` (ids or globs, repeatable) under
/// every `--profile` given, or every profile the scenario applies to.
async fn run(a: Args) -> Result<u8, String> {
    if a.select.scenario.is_empty() {
        return Err("give --scenario ID (or a glob such as 'overflow-*'); `clawspec certify` runs the whole library".into());
    }
    let spec = a.engine.spec()?;
    let profiles = a.select.profiles()?;
    let scenarios = a.select.load()?;
    let config = a.engine.config()?;
    let jobs = crate::suite::jobs(&scenarios, &profiles);
    if jobs.is_empty() {
        return Err(format!("no selected scenario applies to profile(s) {}", profiles.iter().map(|p| p.id.as_str()).collect::<Vec<_>>().join(", ")));
    }
    let cfg = RunConfig { engine: spec, driver: a.engine.driver(), state_root: state_root(), engine_config: config, via_http: a.engine.via_http };
    let parallel = if jobs.len() == 1 { 1 } else { crate::suite::default_parallelism() };
    let (stop, caught) = super::certify::interruption()?;
    let (mut traces, interrupted) = crate::suite::run_jobs_until(jobs, &cfg, parallel, |_| {}, stop).await;
    crate::driver::reaper::sweep_strays(interrupted);
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    if interrupted {
        return Ok(super::certify::interrupted_exit("clawspec run", caught.load(std::sync::atomic::Ordering::SeqCst), traces.len()));
    }
    let order = |p: &str| crate::runtime::profile::PROFILE_IDS.iter().position(|x| *x == p).unwrap_or(usize::MAX);
    traces.sort_by(|x, y| (&x.scenario, order(&x.profile), &x.profile).cmp(&(&y.scenario, order(&y.profile), &y.profile)));
    let judged: Vec<Vec<crate::check::Verdict>> = traces.iter().map(|t| crate::check::evaluate(t, None, &[])).collect();
    match (a.json, traces.as_slice()) {
        (true, [one]) => print!("{}", one.to_pretty_json()),
        (true, many) => {
            let all: Vec<serde_json::Value> = many.iter().map(|t| serde_json::from_str(&t.to_pretty_json()).expect("trace JSON")).collect();
            println!("{}", serde_json::to_string_pretty(&all).expect("traces serialise"));
        }
        (false, all) => {
            for (i, t) in all.iter().enumerate() {
                if i > 0 {
                    println!();
                }
                print!("{}", crate::report::render::printable(&human(t)));
                print!("{}", crate::report::render::printable(&verdicts(&judged[i])));
            }
        }
    }
    // Each faulted trace is printed (it keeps what the engine read and said
    // before it failed); an engine that never got a call in any run could
    // not start: exit 2, as certify's preflight does.
    let at_start = |k: &str| matches!(k, "spawn-failed" | "crash-at-start" | "bad-handshake" | "unsupported-protocol-version");
    let never_started = traces.iter().all(|t| matches!(&t.outcome, Outcome::EngineFault { kind, step: 0, .. } if at_start(kind) || (kind == "timeout" && t.calls().next().is_none())));
    if never_started {
        if let Some(Outcome::EngineFault { kind, message, .. }) = traces.first().map(|t| &t.outcome) {
            eprintln!("{}", crate::report::render::printable(&format!("clawspec run: the engine cannot start ({kind}): {message}")));
        }
        return Ok(super::EXIT_USAGE);
    }
    // A reproduce line reproduces the verdict too: exit 1 when one of the
    // run's verdicts stops certification, as certify would.
    let completed = traces.iter().all(|t| matches!(t.outcome, Outcome::Completed { .. }));
    let blocked = judged.iter().flatten().any(|v| crate::report::blocks(v, false));
    Ok(if completed && !blocked { super::EXIT_OK } else { super::EXIT_FAILURES })
}

/// The run's verdicts that are not passes, as certify judges them
/// (not-applicable ones omitted), after its trace.
fn verdicts(vs: &[crate::check::Verdict]) -> String {
    use crate::check::Status;
    // Clauses a fault left unjudged: one line, not one each.
    let unjudged = |v: &&crate::check::Verdict| v.status == Status::Error && v.details.first().is_some_and(|d| d.starts_with("engine fault "));
    let skipped = vs.iter().filter(unjudged).count();
    let bad: Vec<_> = vs.iter().filter(|v| matches!(v.status, Status::Fail | Status::Warn | Status::Error) && !unjudged(v)).collect();
    let mut out = format!("verdicts: {} judged, {} not met\n", vs.iter().filter(|v| v.status != Status::NotApplicable).count() - skipped, bad.len());
    if skipped > 0 {
        out.push_str(&format!("  {skipped} clause(s) not judged: the engine fault ended the run\n"));
    }
    for v in bad {
        out.push_str(&format!("  {:?} {} [{:?}]\n", v.status, v.clause, v.level));
        for d in v.details.iter().take(3) {
            out.push_str(&format!("    - {}\n", d.replace('\n', "\n      ")));
        }
    }
    out
}

/// A readable rendering of a trace: one line per call, model call and note.
pub fn human(t: &Trace) -> String {
    let mut out = format!("scenario {} · profile {} · engine {}\n", t.scenario, t.profile, t.engine.display);
    for e in &t.events {
        match e {
            Event::Call(c) => {
                let reply = match &c.reply {
                    ReplyRecord::Ok(v) => summarize(&t.resolve(v)),
                    ReplyRecord::Threw { message, .. } => format!("THREW {message}"),
                    ReplyRecord::Fault { kind, .. } => format!("FAULT {kind}"),
                    ReplyRecord::Skipped => "skipped".into(),
                };
                let why = c.meta.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
                // `#seq` is the call number verdicts cite ("call #13").
                out.push_str(&format!("  #{} t{}.a{} → {}{why} {}\n      ← {reply}\n", c.seq, c.turn, c.attempt, c.method, summarize(&t.params(c))));
                for cb in &c.callbacks {
                    out.push_str(&format!("      ↺ {} → {}\n", cb.method, summarize(&cb.result)));
                }
                for l in &c.output.log {
                    out.push_str(&format!("      $/log {}: {}\n", l.level, l.message.replace('\n', "\n        ")));
                }
                for l in c.output.stderr.lines().filter(|l| !l.trim().is_empty()) {
                    out.push_str(&format!("      stderr: {l}\n"));
                }
            }
            Event::Model(m) => out.push_str(&format!(
                "  t{}.a{} ⇢ model {}/{}: {} messages, ~{} tokens → {}\n",
                m.turn, m.attempt, m.provider, m.model, m.message_count, m.prompt_tokens, m.error.as_deref().unwrap_or(&m.outcome)
            )),
            Event::Note(n) => out.push_str(&format!("  t{} · {}: {}\n", n.turn, n.code, n.text)),
        }
    }
    if !t.unknown_api_members.is_empty() {
        out.push_str(&format!("the plugin read API members this host does not provide: {}\n", t.unknown_api_members.join(", ")));
    }
    out.push_str(&format!("outcome: {}\n", serde_json::to_string(&t.outcome).unwrap()));
    out
}

/// `user assistant toolResult …`, the middle elided past 16.
fn roles(a: &[serde_json::Value]) -> String {
    let role = |m: &serde_json::Value| m.get("role").and_then(|r| r.as_str()).unwrap_or("?").to_string();
    if a.len() <= 16 {
        return a.iter().map(role).collect::<Vec<_>>().join(" ");
    }
    let head: Vec<String> = a[..6].iter().map(role).collect();
    let tail: Vec<String> = a[a.len() - 6..].iter().map(role).collect();
    format!("{} … {}", head.join(" "), tail.join(" "))
}

fn summarize(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(o) => {
            let parts: Vec<String> = o
                .iter()
                .map(|(k, v)| match v {
                    // Messages by role, so a dropped or reordered one shows.
                    serde_json::Value::Array(a) if k == "messages" && !a.is_empty() => format!("{k}:[{}: {}]", a.len(), roles(a)),
                    serde_json::Value::Array(a) => format!("{k}:[{}]", a.len()),
                    serde_json::Value::Object(_) => format!("{k}:{{…}}"),
                    serde_json::Value::String(s) if s.len() > 40 => format!("{k}:\"{}…\"", s.chars().take(40).collect::<String>()),
                    other => format!("{k}:{other}"),
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}
