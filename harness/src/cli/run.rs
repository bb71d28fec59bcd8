//! `clawspec run --scenario ID --profile P [--engine …] [--json]`: one trace.

use super::common::{state_root, EngineArgs, SelectArgs};
use crate::runtime::{self, RunConfig};
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
    let spec = match a.engine.spec() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("clawspec: {e}");
            return super::EXIT_USAGE;
        }
    };
    let (Some(id), [profile]) = (a.select.scenario.as_deref(), a.select.profiles.as_slice()) else {
        eprintln!("clawspec run: give exactly one --scenario ID and one --profile P");
        return super::EXIT_USAGE;
    };
    let profile = match crate::runtime::profile::Profile::by_id(profile) {
        Some(p) => p,
        None => {
            eprintln!("clawspec run: unknown profile {profile:?}");
            return super::EXIT_USAGE;
        }
    };
    let all = match a.select.load() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{e}");
            return super::EXIT_USAGE;
        }
    };
    let Some(l) = all.into_iter().find(|l| l.scenario.id == id) else {
        eprintln!("clawspec run: no scenario {id:?} in {}", a.select.scenarios.display());
        return super::EXIT_USAGE;
    };
    let config = match a.engine.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("clawspec: {e}");
            return super::EXIT_USAGE;
        }
    };
    let cfg = RunConfig { engine: spec, driver: a.engine.driver(), state_root: state_root(), engine_config: config, via_http: a.engine.via_http };
    let (model, _server) = match crate::suite::model_for(&l.scenario, cfg.via_http).await {
        Ok(m) => m,
        Err(e) => {
            eprintln!("clawspec run: {e}");
            return super::EXIT_USAGE;
        }
    };
    let trace = runtime::run(&l.scenario, &profile, &cfg, model).await;
    let _ = std::fs::remove_dir_all(&cfg.state_root);
    if a.json {
        print!("{}", trace.to_pretty_json());
    } else {
        print!("{}", human(&trace));
    }
    match trace.outcome {
        Outcome::Completed { .. } => super::EXIT_OK,
        _ => super::EXIT_FAILURES,
    }
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
                out.push_str(&format!("  t{}.a{} → {}{why} {}\n      ← {reply}\n", c.turn, c.attempt, c.method, summarize(&t.params(c))));
                for cb in &c.callbacks {
                    out.push_str(&format!("      ↺ {} → {}\n", cb.method, summarize(&cb.result)));
                }
            }
            Event::Model(m) => out.push_str(&format!(
                "  t{}.a{} ⇢ model {}/{}: {} messages, ~{} tokens → {}\n",
                m.turn, m.attempt, m.provider, m.model, m.message_count, m.prompt_tokens, m.error.as_deref().unwrap_or(&m.outcome)
            )),
            Event::Note(n) => out.push_str(&format!("  t{} · {}: {}\n", n.turn, n.code, n.text)),
        }
    }
    out.push_str(&format!("outcome: {}\n", serde_json::to_string(&t.outcome).unwrap()));
    out
}

fn summarize(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(o) => {
            let parts: Vec<String> = o
                .iter()
                .map(|(k, v)| match v {
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
