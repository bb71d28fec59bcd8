//! Long sessions: a generated N-step scenario (one user question and one
//! answer per step, a context window large enough that nothing is compacted,
//! so every `assemble`/`afterTurn` carries the whole history) certified
//! against `builtin:window` under openclaw-2026.9.6, then checked. Reports the
//! trace size, the message store, peak memory and wall time per size, as
//! ratios against the first size of the same run.
//!
//!     cargo bench -p clawspec --bench long_session [-- 100 500 2000]

use std::path::Path;
use std::time::Instant;

use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::RunConfig;
use clawspec::scenario::load::parse;
use clawspec::trace::{Event, Trace};

/// A session of `steps` turns; every message is distinct (as in real use).
fn scenario(steps: usize) -> String {
    let mut y = format!("id: long-session-{steps}\ntitle: {steps} turns\ndescription: generated\nsetup:\n  context_window: 100000000\nscript:\n");
    for i in 1..=steps {
        y.push_str(&format!(
            "  - turn:\n      user: \"Question {i}: what does module {i} of the billing service do?\"\n      model:\n        - \"Module {i} reconciles invoices with payments (invoices_{i}).\"\n"
        ));
    }
    y
}

/// Peak resident set of this process since the last reset (kB).
fn peak_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok()).unwrap_or(0)
}

fn reset_peak() {
    // Linux: writing 5 resets VmHWM to the current RSS.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// What the trace would weigh with every message array written out in
/// full (trace format 1), computed call by call without materialising it.
fn expanded_bytes(t: &Trace) -> usize {
    let mut n = serde_json::to_vec(&Trace { store: Default::default(), ..t.clone() }).map(|v| v.len()).unwrap_or(0);
    for e in &t.events {
        if let Event::Call(c) = e {
            for v in [Some(&c.params), match &c.reply { clawspec::trace::ReplyRecord::Ok(v) => Some(v), _ => None }].into_iter().flatten() {
                if let Some(ms) = t.messages(v) {
                    n += serde_json::to_vec(&ms).map(|b| b.len()).unwrap_or(0);
                }
            }
        }
    }
    n
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sizes = if args.is_empty() { vec![100, 500, 2000] } else { args };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let profile = Profile::current_2026_9_6();
    let cfg = RunConfig {
        engine: EngineSpec {
            program: env!("CARGO_BIN_EXE_clawspec").into(),
            args: vec!["engine".into(), "window".into()],
            env: Default::default(),
            cwd: None,
            display: "builtin:window".into(),
        },
        driver: DriverConfig::default(),
        state_root: std::env::temp_dir().join(format!("clawspec-bench-long-{}", std::process::id())),
        engine_config: None,
        via_http: false,
    };
    println!("long session × builtin:window × {}", profile.id);
    println!(
        "{:>6} {:>7} {:>9} {:>9} {:>11} {:>11} {:>10} {:>9} {:>9}",
        "steps", "calls", "run", "checks", "trace", "format-1", "messages", "peak RSS", "verdicts"
    );
    let mut first: Option<(f64, f64, f64, f64, f64, f64)> = None;
    let mut rows = Vec::new();
    for steps in sizes {
        let src = scenario(steps);
        let located = parse(Path::new(&format!("long-session-{steps}.yaml")), &src).unwrap_or_else(|e| panic!("generated scenario: {e:?}"));
        let base_rss = {
            reset_peak();
            peak_kb()
        };
        let t0 = Instant::now();
        let trace = rt.block_on(async {
            let (model, _server) = clawspec::suite::model_for(&located.scenario, false).await.expect("model");
            clawspec::runtime::run(&located.scenario, &profile, &cfg, model).await
        });
        let run = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let verdicts = clawspec::check::evaluate(&trace, None, &[]);
        let checks = t1.elapsed().as_secs_f64();
        let bytes = trace.to_pretty_json().len() as f64;
        let peak = peak_kb().saturating_sub(base_rss) as f64;
        let expanded = expanded_bytes(&trace) as f64;
        assert!(matches!(trace.outcome, clawspec::trace::Outcome::Completed { .. }), "{:?}", trace.outcome);
        let calls = trace.calls().count();
        println!(
            "{steps:>6} {calls:>7} {run:>8.2}s {checks:>8.2}s {:>9.1}MB {:>9.1}MB {:>10} {:>7.0}MB {:>9}",
            bytes / 1e6,
            expanded / 1e6,
            trace.store.messages.len(),
            peak / 1024.0,
            verdicts.len()
        );
        let f = *first.get_or_insert((steps as f64, run, checks, bytes, peak.max(1.0), expanded));
        rows.push((steps, run / f.1, checks / f.2.max(1e-9), bytes / f.3, peak / f.4, steps as f64 / f.0, expanded / f.5));
    }
    // The floor: what OpenClaw itself sends (format-1 = every message array
    // written out, as on the engine's pipe) grows with the square of the
    // session, because every assemble/afterTurn carries the whole history.
    // Run and check time can at best follow it; trace and memory must follow
    // the step count.
    println!("\nratios against the first size (same run); `sent` is the floor (bytes the host sends the engine):");
    println!("{:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}", "steps", "steps", "sent", "run", "checks", "trace", "peak");
    for (s, run, checks, bytes, peak, k, sent) in rows {
        println!("{s:>6} {k:>7.1}× {sent:>7.1}× {run:>7.1}× {checks:>7.1}× {bytes:>7.1}× {peak:>7.1}×");
    }
    let _ = std::fs::remove_dir_all(&cfg.state_root);
}
