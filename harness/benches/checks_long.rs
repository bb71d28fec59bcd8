//! The clause checks alone on long pass-through sessions, without running
//! them: a synthetic N-step trace recorded the way the runtime records one
//! (each step an `assemble` whose result is its input, then an `afterTurn`
//! with the answer appended, all interned in the trace's message store), so
//! the checks can be measured at sizes the real run takes an hour to reach.
//! Prints CPU seconds and peak memory of resolving every assemble the way
//! the checks did before `check/assembly.rs` (a list per call, all held at
//! once) and as they do now (shared spines), and of the whole `evaluate`.
//!
//! `--per-clause` also prints each clause's CPU seconds per size.
//!
//!     cargo bench -p clawspec --bench checks_long [-- [--per-clause] 500 1000 2000 4000]

use clawspec::trace::{CallMeta, CallRecord, EngineRecord, Event, MessageStore, Outcome, ReplyRecord, Trace};
use serde_json::{json, Value};

fn trace(steps: usize) -> Trace {
    let mut store = MessageStore::default();
    let mut history: Vec<Value> = Vec::new();
    let mut events = Vec::new();
    let mut seq = 0u32;
    let mut call = |method: &str, params: Value, reply: Value, turn: u32, store: &mut MessageStore| {
        seq += 1;
        let params = store.interned(&params);
        let reply = store.interned(&reply);
        Event::Call(CallRecord { seq, turn, attempt: 1, step: turn as usize, method: method.into(), params, meta: CallMeta { boundary: Some(0), ..Default::default() }, callbacks: vec![], output: Default::default(), reply: ReplyRecord::Ok(reply) })
    };
    for i in 1..=steps {
        let turn = i as u32;
        history.push(json!({"role": "user", "content": format!("Question {i}: what does module {i} of the billing service do?"), "timestamp": 2 * i}));
        let p = json!({"sessionId": "s", "messages": history, "tokenBudget": 100_000_000u64});
        let r = json!({"messages": history, "estimatedTokens": 1});
        events.push(call("assemble", p, r, turn, &mut store));
        history.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("Module {i} reconciles invoices with payments (invoices_{i}).")}], "timestamp": 2 * i + 1}));
        let p = json!({"sessionId": "s", "messages": history, "prePromptMessageCount": history.len() - 2});
        events.push(call("afterTurn", p, json!(null), turn, &mut store));
    }
    let engine = EngineRecord { display: "synthetic".into(), info: None, methods: vec!["assemble".into(), "afterTurn".into()], implementation: None, hooks: Value::Null };
    Trace::new(format!("long-session-{steps}"), "openclaw-2026.9.6".into(), engine, events, Outcome::Completed { turns: steps as u32, failed_turns: vec![] }, store)
}

fn cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn peak_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
}

/// CPU seconds and peak-memory growth (MB) of `f`.
fn measure<T>(f: impl FnOnce() -> T) -> (f64, f64) {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let (m0, t0) = (peak_mb(), cpu());
    let out = f();
    let r = (cpu() - t0, peak_mb() - m0);
    drop(out);
    r
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if args.is_empty() { vec![500, 1000, 2000, 4000] } else { args };
    let per_clause = std::env::args().any(|a| a == "--per-clause");
    let mut clause_rows: Vec<(usize, Vec<(&'static str, f64)>)> = Vec::new();
    println!("{:>6} {:>14} {:>14} {:>14} {:>14} {:>12}", "steps", "per-call cpu", "per-call mem", "shared cpu", "shared mem", "evaluate cpu");
    for steps in sizes {
        let t = trace(steps);
        let (pc, pm) = measure(|| t.calls().filter(|x| x.method == "assemble").filter_map(|c| Some((c, c.input(&t)?, c.output(&t)?))).collect::<Vec<_>>());
        let (sc, sm) = measure(|| {
            let ctx = clawspec::check::Ctx::new(&t, false, None);
            ctx.assembled().len()
        });
        let (ec, _) = measure(|| clawspec::check::evaluate(&t, None, &[]));
        println!("{steps:>6} {pc:>13.3}s {pm:>12.1}MB {sc:>13.3}s {sm:>12.1}MB {ec:>11.3}s");
        if per_clause {
            clause_rows.push((steps, clause_cpu(&t)));
        }
    }
    if let Some((_, first)) = clause_rows.first() {
        println!("\nCPU seconds per clause (shared: every assemble resolved once), and against the first size:");
        for (i, (id, _)) in first.iter().enumerate() {
            let f = first[i].1.max(1e-6);
            let cells: Vec<String> = clause_rows.iter().map(|(s, r)| format!("{s}: {:.3}s ({:.0}×)", r[i].1, r[i].1.max(1e-6) / f)).collect();
            println!("{id:<12} {}", cells.join("  "));
        }
    }
}

/// CPU seconds of resolving the assembles ("shared") and of each clause on
/// a context where that is already done, as `evaluate` runs them.
fn clause_cpu(t: &Trace) -> Vec<(&'static str, f64)> {
    let ctx = clawspec::check::Ctx::new(t, false, None);
    let t0 = cpu();
    let _ = ctx.assembled();
    let mut out = vec![("shared", cpu() - t0)];
    for c in clawspec::check::catalogue::CLAUSES {
        let t0 = cpu();
        let _ = (c.check)(&ctx);
        out.push((c.id, cpu() - t0));
    }
    out
}
