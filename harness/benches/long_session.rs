//! Long sessions: a generated N-step scenario (one user question and one
//! answer per step) certified in two regimes (see [`regimes`]): **bounded**
//! (a real 16 000-token window, OpenClaw's legacy engine under 2026.4.26: the
//! host compacts, so what each call carries stays bounded) and **whole
//! history** (`builtin:window` under 2026.9.6 with a window nothing
//! overflows: every `assemble`/`afterTurn` carries the whole session), then
//! checked. `--profile=ID --engine=NAME --window=TOKENS` runs one regime of
//! your own instead. `compacts` counts `compact` calls, `longest` the
//! longest history an `assemble` carried. Reports the
//! trace size, the message store, peak memory, wall time and the bytes
//! actually written to the engine per size, as ratios against the first size
//! of the same run. `--no-delta` turns `messageDelta` off (every call then
//! carries the whole history, as before the capability existed).
//!
//! `floor` is the CPU this process takes to write every call's message
//! arrays as JSON and read them back once (see [`floor_cpu`]); `host/floor`
//! and `eng/floor` staying flat across sizes means per-call cost linear in
//! the history each call carries.
//!
//! `--per-clause` also prints the CPU seconds of each clause (and of
//! resolving every assemble once, which the clauses share), per size: what to
//! look at when the checks grow faster than the trace.
//!
//!     cargo bench -p clawspec --bench long_session [-- [--no-delta] [--per-clause] [--profile=ID] [--engine=NAME] [--window=TOKENS] 100 500 2000]

use std::path::Path;
use std::time::Instant;

use clawspec::driver::{DriverConfig, EngineSpec};
use clawspec::runtime::profile::Profile;
use clawspec::runtime::RunConfig;
use clawspec::scenario::load::parse;
use clawspec::trace::{Event, Trace};

/// A session of `steps` turns; every message is distinct (as in real use).
fn scenario(steps: usize, window: u64) -> String {
    let mut y = format!("id: long-session-{steps}\ntitle: {steps} turns\ndescription: generated\nsetup:\n  context_window: {window}\nscript:\n");
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

/// CPU seconds (user + system) of this process, and of its reaped children
/// (the engines): wall time means little on a shared, loaded machine.
fn cpu() -> (f64, f64) {
    let of = |who| {
        // SAFETY: getrusage fills the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut u) };
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
        t(u.ru_utime) + t(u.ru_stime)
    };
    (of(libc::RUSAGE_SELF), of(libc::RUSAGE_CHILDREN))
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

/// The floor of a host that hands each call its whole history across a
/// process boundary, as the contract's params are: CPU seconds to write every
/// call's message arrays as JSON once and read them back once (the trace's
/// format-1 content, which OpenClaw's in-process host does not pay but its
/// provider request does, every turn). Host and engine CPU against this, per
/// size: a constant ratio means their per-call cost is linear in the
/// history they are given, and the session's growth is the contract's.
fn floor_cpu(t: &Trace) -> f64 {
    let t0 = cpu().0;
    for e in &t.events {
        if let Event::Call(c) = e {
            for v in [Some(&c.params), match &c.reply { clawspec::trace::ReplyRecord::Ok(v) => Some(v), _ => None }].into_iter().flatten() {
                if let Some(ms) = t.messages(v) {
                    let bytes = serde_json::to_vec(&ms).expect("messages serialise");
                    let back: Vec<serde_json::Value> = serde_json::from_slice(&bytes).expect("and parse");
                    std::hint::black_box(back);
                }
            }
        }
    }
    cpu().0 - t0
}

/// How a session is run: the release, the engine, and the context window
/// that decides whether the host ever compacts.
struct Regime {
    what: &'static str,
    profile: Profile,
    engine: String,
    window: u64,
}

/// The two regimes a long session can be in. **Bounded**: a real window and
/// an engine that leaves compaction to the host (OpenClaw's legacy engine,
/// 2026.4.26, which calls it): the host compacts on overflow, so what each
/// call carries stays bounded and the whole session is linear. **Whole
/// history**: a window nothing overflows, or an engine that trims within the
/// budget (the host then never overflows, so it never compacts — as
/// OpenClaw does): every `assemble`/`afterTurn` carries the whole session by
/// contract, and per-call cost is measured against `floor`.
fn regimes() -> Vec<Regime> {
    let flag = |name: &str| std::env::args().find_map(|a| a.strip_prefix(&format!("--{name}=")).map(str::to_string));
    let (profile, engine, window) = (flag("profile"), flag("engine"), flag("window"));
    if profile.is_none() && engine.is_none() && window.is_none() {
        return vec![
            Regime { what: "bounded: a real window, the host compacts", profile: Profile::classic_2026_4_26(), engine: "legacy".into(), window: 16_000 },
            Regime { what: "whole history: nothing overflows, every call carries the session", profile: Profile::current_2026_9_6(), engine: "window".into(), window: 100_000_000 },
        ];
    }
    vec![Regime {
        what: "as given",
        profile: profile.map(|p| Profile::by_id(&p).unwrap_or_else(|| panic!("--profile={p}: no such profile"))).unwrap_or_else(Profile::current_2026_9_6),
        engine: engine.unwrap_or_else(|| "window".into()),
        window: window.map(|w| w.parse().expect("--window=TOKENS")).unwrap_or(100_000_000),
    }]
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sizes = if args.is_empty() { vec![100, 500, 2000] } else { args };
    let delta = !std::env::args().any(|a| a == "--no-delta");
    let per_clause = std::env::args().any(|a| a == "--per-clause");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    for (i, regime) in regimes().iter().enumerate() {
        if i > 0 {
            println!();
        }
        bench(&rt, regime, &sizes, delta, per_clause);
    }
}

fn bench(rt: &tokio::runtime::Runtime, regime: &Regime, sizes: &[usize], delta: bool, per_clause: bool) {
    let mut clause_rows: Vec<(usize, Vec<(&'static str, f64)>)> = Vec::new();
    let (profile, engine, window) = (&regime.profile, &regime.engine, regime.window);
    let cfg = RunConfig {
        engine: EngineSpec {
            program: env!("CARGO_BIN_EXE_clawspec").into(),
            args: vec!["engine".into(), engine.clone()],
            env: Default::default(),
            cwd: None,
            display: format!("builtin:{engine}"),
        },
        driver: DriverConfig { message_delta: delta, ..DriverConfig::default() },
        state_root: std::env::temp_dir().join(format!("clawspec-bench-long-{}", std::process::id())),
        engine_config: None,
        via_http: false,
    };
    println!("{}: long session × builtin:{engine} × {} × context window {window} × messageDelta {}", regime.what, profile.id, if delta { "on" } else { "off" });
    println!(
        "{:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11} {:>11} {:>10} {:>9} {:>9} {:>9} {:>10} {:>9} {:>8} {:>8} {:>8}",
        "steps", "calls", "run", "host-cpu", "eng-cpu", "checks", "chk-cpu", "trace", "format-1", "wire", "messages", "peak RSS", "verdicts", "floor", "host/floor", "eng/floor", "compacts", "longest", "blocking"
    );
    let mut first: Option<[f64; 10]> = None;
    let mut rows = Vec::new();
    for &steps in sizes {
        let src = scenario(steps, window);
        let located = parse(Path::new(&format!("long-session-{steps}.yaml")), &src).unwrap_or_else(|e| panic!("generated scenario: {e:?}"));
        let base_rss = {
            reset_peak();
            peak_kb()
        };
        let t0 = Instant::now();
        let cpu0 = cpu();
        let wire0 = clawspec::driver::total_bytes_sent();
        let trace = rt.block_on(async {
            let (model, _server) = clawspec::suite::model_for(&located.scenario, false).await.expect("model");
            clawspec::runtime::run(&located.scenario, profile, &cfg, model).await
        });
        let run = t0.elapsed().as_secs_f64();
        let cpu1 = cpu();
        let (host_cpu, engine_cpu) = (cpu1.0 - cpu0.0, cpu1.1 - cpu0.1);
        let wire = (clawspec::driver::total_bytes_sent() - wire0) as f64;
        // Per phase as it ends: a size that cannot finish still says how far it got.
        eprintln!("[{steps} steps] session done: wall {run:.1}s, host-cpu {host_cpu:.2}s, eng-cpu {engine_cpu:.2}s");
        let t1 = Instant::now();
        let verdicts = clawspec::check::evaluate(&trace, None, &[]);
        let checks = t1.elapsed().as_secs_f64();
        let check_cpu = cpu().0 - cpu1.0;
        eprintln!("[{steps} steps] checks done: wall {checks:.1}s, chk-cpu {check_cpu:.2}s");
        let bytes = trace.to_pretty_json().len() as f64;
        let peak = peak_kb().saturating_sub(base_rss) as f64;
        let expanded = expanded_bytes(&trace) as f64;
        let floor = floor_cpu(&trace).max(1e-9);
        assert!(matches!(trace.outcome, clawspec::trace::Outcome::Completed { .. }), "{:?}", trace.outcome);
        let calls = trace.calls().count();
        // Verdicts that would stop certification: 0 means the session certifies.
        let blocking = verdicts.iter().filter(|v| clawspec::report::blocks(v, false)).count();
        let compactions = trace.calls().filter(|c| c.method == "compact").count();
        let longest = trace.calls().filter(|c| c.method == "assemble").filter_map(|c| trace.messages(&c.params).map(|m| m.len())).max().unwrap_or(0);

        println!(
            "{steps:>6} {calls:>7} {run:>8.2}s {host_cpu:>8.2}s {engine_cpu:>8.2}s {checks:>8.2}s {check_cpu:>8.2}s {:>9.1}MB {:>9.1}MB {:>9.1}MB {:>10} {:>7.0}MB {:>9} {floor:>8.2}s {:>9.1}× {:>8.1}× {compactions:>8} {longest:>8} {blocking:>8}",
            bytes / 1e6,
            expanded / 1e6,
            wire / 1e6,
            trace.store.messages.len(),
            peak / 1024.0,
            verdicts.len(),
            host_cpu / floor,
            engine_cpu / floor
        );
        let now = [steps as f64, run, checks.max(1e-9), bytes, peak.max(1.0), expanded, wire.max(1.0), host_cpu.max(1e-9), engine_cpu.max(1e-9), check_cpu.max(1e-9)];
        let f = *first.get_or_insert(now);
        let r: Vec<f64> = now.iter().zip(&f).map(|(a, b)| a / b).collect();
        rows.push((steps, r));
        if per_clause {
            clause_rows.push((steps, clause_cpu(&trace)));
        }
    }
    // `format-1` is what OpenClaw's params weigh written out in full: it grows
    // with the square of the session, because every assemble/afterTurn
    // carries the whole history. `wire` is what the driver actually wrote to
    // the engine: the same without messageDelta, linear with it. Trace and
    // memory must follow the step count.
    println!("\nratios against the first size (same run):");
    println!("{:>6} {:>8} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}", "steps", "steps", "format-1", "wire", "run", "host-cpu", "eng-cpu", "checks", "chk-cpu", "trace", "peak");
    for (s, r) in rows {
        println!(
            "{s:>6} {:>7.1}× {:>8.1}× {:>7.1}× {:>7.1}× {:>8.1}× {:>7.1}× {:>7.1}× {:>7.1}× {:>7.1}× {:>7.1}×",
            r[0], r[5], r[6], r[1], r[7], r[8], r[2], r[9], r[3], r[4]
        );
    }
    if let Some((_, first)) = clause_rows.first() {
        println!("\nCPU seconds per clause (shared: every assemble resolved once), and against the first size:");
        for (i, (id, _)) in first.iter().enumerate() {
            let f = clause_rows[0].1[i].1.max(1e-6);
            let cells: Vec<String> = clause_rows.iter().map(|(s, r)| format!("{s}: {:.3}s ({:.0}×)", r[i].1, r[i].1.max(1e-6) / f)).collect();
            println!("{id:<12} {}", cells.join("  "));
        }
    }
    let _ = std::fs::remove_dir_all(&cfg.state_root);
}

/// CPU seconds of resolving the assembles ("shared") and of each clause on
/// a context where that is already done, as `evaluate` runs them.
fn clause_cpu(trace: &Trace) -> Vec<(&'static str, f64)> {
    let ctx = clawspec::check::Ctx::new(trace, false, None);
    let t0 = cpu().0;
    let _ = ctx.assembled();
    let mut out = vec![("shared", cpu().0 - t0)];
    for c in clawspec::check::catalogue::CLAUSES {
        let t0 = cpu().0;
        let _ = (c.check)(&ctx);
        out.push((c.id, cpu().0 - t0));
    }
    out
}
