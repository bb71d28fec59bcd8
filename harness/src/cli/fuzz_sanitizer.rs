//! `clawspec fuzz-sanitizer --sanitizer CMD --provider P [--cases N] [--seed S] [--out DIR]`:
//! feed generated transcripts to an external sanitizer (protocol `sanitize`),
//! validate its output with the provider's mock, shrink every rejected input
//! to a minimal transcript and write it as a ready-to-commit fixture.

use std::path::PathBuf;

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::gen::transcript;
use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::wire::{to_wire, RequestOptions};
use clawspec_mock_providers::Provider;
use serde_json::{json, Value};

use crate::driver::{CallOptions, DriverConfig, Engine, HostHandler, Reply};
use crate::runtime::profile::Profile;
use crate::runtime::Sim;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sanitizer command (speaks protocol v1 and implements `sanitize`).
    #[arg(long)]
    pub sanitizer: String,
    #[arg(long)]
    pub provider: Provider,
    #[arg(long, default_value_t = 500)]
    pub cases: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where minimal reproducers are written.
    #[arg(long, default_value = "sanitizer-findings")]
    pub out: PathBuf,
}

struct NoHost;
impl HostHandler for NoHost {
    fn request(&mut self, m: &str, _: &Value) -> Result<Value, clawspec_contract::protocol::RpcError> {
        Err(clawspec_contract::protocol::RpcError { code: -32601, message: format!("{m} not offered"), data: None })
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

/// xorshift64*: deterministic case generation from `--seed`.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545F4914F6CDD1D)
}

/// Ok(None) accepted, Ok(Some(error)) rejected, Err(fault) the sanitizer broke.
async fn try_one(e: &mut Engine, p: Provider, ms: &[AgentMessage]) -> Result<Option<String>, String> {
    let params = json!({"provider": p.name(), "messages": ms});
    match e.call("sanitize", params, CallOptions::default(), &mut NoHost).await {
        Ok(Reply::Ok(v)) => {
            let out: Vec<AgentMessage> = serde_json::from_value(v["messages"].clone()).map_err(|e| format!("sanitizer returned invalid messages: {e}"))?;
            let body = to_wire(p, &out, &RequestOptions { model: "mock".into(), ..Default::default() });
            Ok(validate(p, &body, &Rules::default()).err().map(|r| r.message))
        }
        Ok(Reply::Threw(err)) => Err(format!("sanitize threw: {}", err.message)),
        Err(f) => Err(format!("sanitizer fault {}: {f}", f.kind())),
    }
}

/// Drop messages one at a time while the sanitizer's output is still rejected.
async fn shrink(e: &mut Engine, p: Provider, mut ms: Vec<AgentMessage>) -> Result<(Vec<AgentMessage>, String), String> {
    let mut err = try_one(e, p, &ms).await?.unwrap_or_default();
    loop {
        let mut smaller = None;
        for i in 0..ms.len() {
            let mut cand = ms.clone();
            cand.remove(i);
            if let Some(e2) = try_one(e, p, &cand).await? {
                smaller = Some((cand, e2));
                break;
            }
        }
        match smaller {
            Some((c, e2)) => {
                ms = c;
                err = e2;
            }
            None => return Ok((ms, err)),
        }
    }
}

/// The rule an error message reports, without ids and indices: one finding per rule.
fn rule_of(msg: &str) -> String {
    let cut = msg.find(": ").map(|i| &msg[i + 2..]).unwrap_or(msg);
    let cut = cut.split(['.', ':']).next().unwrap_or(cut);
    cut.chars().filter(|c| !c.is_ascii_digit()).collect()
}

pub async fn main(a: Args) -> u8 {
    let spec = match super::common::command_spec(&a.sanitizer) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("clawspec fuzz-sanitizer: {e}");
            return super::EXIT_USAGE;
        }
    };
    let init = Sim::initialize_params(&Profile::current_2026_9_6(), None);
    let mut engine = match Engine::start(&spec, &DriverConfig::default(), &init).await {
        Ok(e) => e,
        Err(f) => {
            eprintln!("clawspec fuzz-sanitizer: {f}");
            return super::EXIT_USAGE;
        }
    };
    if !engine.init.methods.iter().any(|m| m == "sanitize") {
        eprintln!("clawspec fuzz-sanitizer: {} does not implement `sanitize`", a.sanitizer);
        return super::EXIT_USAGE;
    }
    let mut state = a.seed.max(1);
    let mut findings: Vec<(String, Vec<AgentMessage>)> = Vec::new();
    for case in 0..a.cases {
        let len = (next(&mut state) % 40) as usize + 2;
        let bytes: Vec<u8> = (0..len).map(|_| next(&mut state) as u8).collect();
        let ms = transcript(&bytes);
        match try_one(&mut engine, a.provider, &ms).await {
            Ok(None) => {}
            Ok(Some(_)) => match shrink(&mut engine, a.provider, ms).await {
                Ok((min, err)) => {
                    if !findings.iter().any(|(e, _)| rule_of(e) == rule_of(&err)) {
                        println!("case {case}: {} rejects the sanitized transcript: {err}", a.provider);
                        findings.push((err, min));
                    }
                }
                Err(e) => {
                    eprintln!("clawspec fuzz-sanitizer: {e}");
                    return super::EXIT_FAILURES;
                }
            },
            Err(e) => {
                eprintln!("case {case}: {e}");
                return super::EXIT_FAILURES;
            }
        }
    }
    engine.shutdown().await;
    if findings.is_empty() {
        println!("{} cases: every sanitized transcript was accepted by {}", a.cases, a.provider);
        return super::EXIT_OK;
    }
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("clawspec fuzz-sanitizer: {}: {e}", a.out.display());
        return super::EXIT_USAGE;
    }
    for (i, (err, min)) in findings.iter().enumerate() {
        let path = a.out.join(format!("{}-{i:02}.json", a.provider));
        let mut text = serde_json::to_string_pretty(min).unwrap();
        text.push('\n');
        if std::fs::write(&path, text).is_ok() {
            println!("minimal reproducer ({} messages): {}\n  provider error: {err}\n  replay: clawspec validate --provider {} {}", min.len(), path.display(), a.provider, path.display());
        }
    }
    super::EXIT_FAILURES
}
