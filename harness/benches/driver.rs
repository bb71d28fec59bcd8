//! Assemble round trip through the driver: built-in `legacy` engine vs a bare
//! echo child (the floor: parse a line, write it back), same payload, same
//! run. Prints medians, the ratio and per-message cost (linearity).
//!
//!     cargo bench -p clawspec --bench driver

use std::time::{Duration, Instant};

use clawspec::driver::{CallOptions, DriverConfig, Engine, EngineSpec, HostHandler};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::Sim;
use clawspec_contract::protocol::RpcError;
use serde_json::{json, Value};

struct NoHost;
impl HostHandler for NoHost {
    fn request(&mut self, _: &str, _: &Value) -> Result<Value, RpcError> {
        Ok(Value::Null)
    }
    fn notification(&mut self, _: &str, _: &Value) {}
}

fn spec(program: &str, args: &[&str]) -> EngineSpec {
    EngineSpec { program: program.into(), args: args.iter().map(|s| s.to_string()).collect(), env: Default::default(), cwd: None, display: program.into() }
}

fn payload(n: usize) -> Value {
    let messages: Vec<Value> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                json!({"role":"user","content":format!("message {i}: please look at the build logs and tell me what failed"),"timestamp":1767225600000u64 + i as u64})
            } else {
                json!({"role":"assistant","content":[{"type":"text","text":format!("answer {i}: the integration stage failed on a flaky network test")}],
                       "api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","stopReason":"stop","timestamp":1767225600000u64 + i as u64})
            }
        })
        .collect();
    json!({"sessionId":"sess-0001","sessionKey":"agent:main:main","messages":messages,"tokenBudget":200000,"model":"claude-sonnet-4-6","prompt":"next"})
}

async fn median(e: &mut Engine, p: &Value, iters: usize) -> Duration {
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        e.call("assemble", p.clone(), CallOptions::default(), &mut NoHost).await.expect("assemble");
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // cargo bench --list
    }
    let init = Sim::initialize_params(&Profile::current_2026_9_6(), None);
    let cfg = DriverConfig::default();
    let mut floor = Engine::start(&spec(env!("CARGO_BIN_EXE_clawspec-fault-engine"), &["echo"]), &cfg, &init).await.unwrap();
    let mut legacy = Engine::start(&spec(env!("CARGO_BIN_EXE_clawspec"), &["engine", "legacy"]), &cfg, &init).await.unwrap();
    println!("assemble round trip through the driver (median of N)");
    println!("{:>8} {:>6} {:>12} {:>12} {:>7} {:>14}", "messages", "N", "echo floor", "legacy", "ratio", "legacy/msg");
    for (n, iters) in [(10usize, 400usize), (1_000, 100), (10_000, 20)] {
        let p = payload(n);
        // warm up both
        median(&mut floor, &p, 3).await;
        median(&mut legacy, &p, 3).await;
        let f = median(&mut floor, &p, iters).await;
        let l = median(&mut legacy, &p, iters).await;
        println!(
            "{n:>8} {iters:>6} {:>10.1}µs {:>10.1}µs {:>6.2}× {:>12.2}µs",
            f.as_secs_f64() * 1e6,
            l.as_secs_f64() * 1e6,
            l.as_secs_f64() / f.as_secs_f64(),
            l.as_secs_f64() * 1e6 / n as f64
        );
    }
    floor.shutdown().await;
    legacy.shutdown().await;
}
