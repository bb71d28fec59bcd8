//! The fidelity table (`docs/fidelity.md`, generated): every scenario ×
//! released profile × built-in engine twinned on the real OpenClaw.
//!
//! Exit status is what CI gates on: 1 when a row that the previous table
//! recorded as *equal* no longer is (a change to the reference runtime broke
//! equality with the real host); 0 otherwise. Rows whose real-host run
//! errored (a gateway that did not start, an unreachable registry) are listed
//! as *error* in the table and on stderr but do not fail the command: they
//! say nothing about the reference runtime. New *differs* rows are visible in
//! the table and its diffs.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use super::common::EngineArgs;
use super::fidelity_store::{self as store, Section, SectionTiming};
use super::twin::{twin_one, Row, Verdict};
use crate::realhost::measure::InstallTiming;
use crate::runtime::profile::Profile;
use crate::scenario::model::Scenario;

pub const PROFILES: &[&str] = &["openclaw-2026.4.26", "openclaw-2026.9.6"];
pub const ENGINES: &[&str] = &["builtin:legacy", "builtin:window"];
const DIFF_LINES: usize = 60;

fn key(s: &str, p: &str, e: &str) -> String {
    format!("{s}|{p}|{e}")
}

/// Rows recorded as equal in an existing table.
fn previously_equal(md: &str) -> BTreeSet<String> {
    md.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() >= 6 && cells[4] == "equal").then(|| key(cells[1].trim_matches('`'), cells[2], cells[3].trim_matches('`')))
        })
        .collect()
}

/// `only`: run one released profile; the other profiles' sections of the
/// existing table are kept as they are (each profile's section is generated
/// whole, between `<!-- fidelity:P -->` markers), so the 2026.4.26 rows, run
/// outside CI, survive CI's 2026.9.6 runs. `measure_install`: time a fresh
/// npm install of each release (cold and warm npm cache) for the timing section.
pub async fn write(scenarios: &[Scenario], base: &EngineArgs, out: &Path, only: Option<&str>, measure_install: bool, jobs: usize) -> u8 {
    let old = std::fs::read_to_string(out).unwrap_or_default();
    let before = previously_equal(&old);
    if let Some(p) = only.filter(|p| !PROFILES.contains(p)) {
        eprintln!("clawspec twin --fidelity: --profile {p} is not a released profile ({})", PROFILES.join(", "));
        return super::EXIT_USAGE;
    }
    let started = Instant::now();
    let mut stop = interruptible();
    let mut stored = store::load(out).unwrap_or_default();
    let mut rows: Vec<Row> = Vec::new();
    let mut sections: Vec<(String, String)> = Vec::new();
    for pid in PROFILES {
        if only.is_some_and(|o| o != *pid) {
            // Kept as it is: rendered again from its rows when they were
            // stored, else its markdown is copied.
            let text = match stored.sections.get(*pid) {
                Some(sec) => render_stored(pid, sec),
                None => section_of(&old, pid).unwrap_or_else(|| not_run(pid)),
            };
            sections.push((pid.to_string(), text));
            continue;
        }
        let profile = Profile::by_id(pid).expect("released profile");
        let profile_started = Instant::now();
        let install = if measure_install { measure(&profile) } else { None };
        let first = rows.len();
        let todo: Vec<RowJob> = ENGINES.iter().flat_map(|e| scenarios.iter().map(|s| RowJob { scenario: s.clone(), profile: profile.clone(), engine: e })).collect();
        let parallelism = row_parallelism(jobs);
        match run_rows(todo, base, parallelism, "fidelity", &mut stop).await {
            Ok(done) => rows.extend(done),
            // The table is left as it was.
            Err(h) => return h.exit(),
        }
        let timing = SectionTiming { install, total_ms: profile_started.elapsed().as_millis() as u64, jobs: parallelism };
        let sec = Section { rows: rows[first..].to_vec(), timing, whole: true, refreshed: Vec::new() };
        sections.push((pid.to_string(), render_stored(pid, &sec)));
        stored.sections.insert(pid.to_string(), sec);
    }
    stored.total_ms = started.elapsed().as_millis() as u64;
    if let Err(e) = store::save(out, &stored) {
        eprintln!("clawspec: {e}");
        return super::EXIT_USAGE;
    }
    // Every row removed its work dir and state root; the per-process roots are left empty.
    let _ = std::fs::remove_dir(crate::realhost::work_root());
    let _ = std::fs::remove_dir(super::common::state_root());
    let md = render(&sections, stored.total_ms);
    if let Err(e) = std::fs::write(out, md) {
        eprintln!("clawspec: cannot write {}: {e}", out.display());
        return super::EXIT_USAGE;
    }
    outcome(&rows, &before)
}

/// Exit status of a run that rewrote rows: 1 when a row the old table
/// recorded as equal no longer is; errored rows are printed, not failed.
fn outcome(rows: &[Row], before: &BTreeSet<String>) -> u8 {
    let broken: Vec<&Row> = rows.iter().filter(|r| before.contains(&key(&r.scenario, &r.profile, &r.engine)) && !matches!(r.verdict, Verdict::Equal)).collect();
    for r in &broken {
        eprintln!("fidelity: {} · {} · {} was equal and now is {}", r.scenario, r.profile, r.engine, label(&r.verdict));
    }
    for r in rows {
        if let Verdict::Error(e) = &r.verdict {
            eprintln!("fidelity: {} · {} · {}: error: {e}", r.scenario, r.profile, r.engine);
        }
    }
    if broken.is_empty() {
        super::EXIT_OK
    } else {
        super::EXIT_FAILURES
    }
}

/// Whether `rows` hold a row for every library scenario on every engine.
fn covers_library(rows: &[Row], scenarios: &[Scenario]) -> bool {
    ENGINES.iter().all(|e| scenarios.iter().all(|s| rows.iter().any(|r| r.engine == *e && r.scenario == s.id)))
}

/// `--fidelity TABLE --scenario GLOB` (no `--gate`): re-twin only the rows
/// of the matching scenarios (both engines; `only`'s release when given)
/// and render the table again from its stored rows (`fidelity_store`), so a
/// fix is recorded without the whole library's hour. A release the table
/// has no rows for gets a section marked partial. Exit 1 when a row the
/// table recorded as equal no longer is; 2 when nothing matches or the
/// table's rows were never stored. `measure_install`: time the release's
/// npm install again for its section (as [`write`] does).
pub async fn refresh(scenarios: &[Scenario], base: &EngineArgs, out: &Path, only: Option<&str>, filter: &str, measure_install: bool, jobs: usize) -> u8 {
    let mut stored = match store::load(out) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("clawspec twin --fidelity --scenario: {e}");
            return super::EXIT_USAGE;
        }
    };
    if let Some(p) = only.filter(|p| !PROFILES.contains(p)) {
        eprintln!("clawspec twin --fidelity: --profile {p} is not a released profile ({})", PROFILES.join(", "));
        return super::EXIT_USAGE;
    }
    // Several globs, comma-separated (scenario ids have no commas).
    let globs: Vec<&str> = filter.split(',').map(str::trim).filter(|g| !g.is_empty()).collect();
    let picked: Vec<&Scenario> = scenarios.iter().filter(|s| globs.iter().any(|g| super::common::glob_match(g, &s.id))).collect();
    if picked.is_empty() {
        eprintln!("clawspec twin --fidelity: no scenario matches {filter:?}: nothing to re-twin");
        return super::EXIT_USAGE;
    }
    let old = std::fs::read_to_string(out).unwrap_or_default();
    let before = previously_equal(&old);
    let mut stop = interruptible();
    let order = |r: &Row| (ENGINES.iter().position(|e| *e == r.engine).unwrap_or(usize::MAX), scenarios.iter().position(|s| s.id == r.scenario).unwrap_or(usize::MAX));
    let mut fresh = Vec::new();
    for pid in PROFILES.iter().filter(|p| only.is_none_or(|o| o == **p)) {
        let profile = Profile::by_id(pid).expect("released profile");
        let install = if measure_install { measure(&profile) } else { None };
        let started = Instant::now();
        let todo: Vec<RowJob> = ENGINES.iter().flat_map(|e| picked.iter().map(|s| RowJob { scenario: (*s).clone(), profile: profile.clone(), engine: e })).collect();
        let parallelism = row_parallelism(jobs);
        let done = match run_rows(todo, base, parallelism, "fidelity", &mut stop).await {
            Ok(done) => done,
            Err(h) => return h.exit(),
        };
        let sec = stored.sections.entry(pid.to_string()).or_insert_with(|| Section { whole: false, timing: SectionTiming { install: None, total_ms: 0, jobs: parallelism }, ..Section::default() });
        if install.is_some() {
            sec.timing.install = install;
        }
        if !sec.whole {
            // A partial section's time is that of all its runs so far.
            sec.timing.total_ms += started.elapsed().as_millis() as u64;
        }
        store::splice(sec, done.clone(), &order);
        // Refreshes that have covered every scenario × engine make the
        // section as complete as a whole run (whose own rows may also be
        // re-twinned later): it gets totals, not the "only these rows" note.
        if !sec.whole && covers_library(&sec.rows, scenarios) {
            sec.whole = true;
        }
        fresh.extend(done);
    }
    let _ = std::fs::remove_dir(crate::realhost::work_root());
    let _ = std::fs::remove_dir(super::common::state_root());
    let sections: Vec<(String, String)> = PROFILES
        .iter()
        .map(|pid| {
            let text = match stored.sections.get(*pid) {
                Some(sec) => render_stored(pid, sec),
                None => section_of(&old, pid).unwrap_or_else(|| not_run(pid)),
            };
            (pid.to_string(), text)
        })
        .collect();
    if let Err(e) = store::save(out, &stored).and_then(|()| std::fs::write(out, render(&sections, stored.total_ms)).map_err(|e| format!("cannot write {}: {e}", out.display()))) {
        eprintln!("clawspec: {e}");
        return super::EXIT_USAGE;
    }
    outcome(&fresh, &before)
}

/// CI's gate: re-run only the rows `table` records as *equal* (of `only`'s
/// profile when given; of the scenarios matching the glob `filter` when
/// given), without rewriting it, `jobs` real gateways at once. Exit 1 when
/// one is no longer equal, or when the table records as equal a scenario the
/// library no longer has (a renamed scenario would silently leave the gate);
/// 2 when it would re-run nothing (a gate that tests nothing is never green);
/// 0 when every one still is.
pub async fn gate(scenarios: &[Scenario], base: &EngineArgs, table: &Path, only: Option<&str>, filter: Option<&str>, jobs: usize) -> u8 {
    let Ok(md) = std::fs::read_to_string(table) else {
        eprintln!("clawspec twin --fidelity --gate: cannot read {}", table.display());
        return super::EXIT_USAGE;
    };
    let plan = gate_plan(&md, scenarios, only, filter);
    if plan.rows.is_empty() && plan.stale.is_empty() {
        eprintln!(
            "fidelity gate: {} records no equal row{}{}: nothing to re-run, so nothing is gated",
            table.display(),
            only.map(|p| format!(" of {p}")).unwrap_or_default(),
            filter.map(|f| format!(" matching {f:?}")).unwrap_or_default()
        );
        return super::EXIT_USAGE;
    }
    if let Some(pid) = ungated_release(&plan, only, filter) {
        eprintln!("fidelity gate: {} records no equal row of {pid}: the gate of both releases would test nothing of it (pass --profile to gate one release)", table.display());
        return super::EXIT_USAGE;
    }
    let mut stop = interruptible();
    let mut rows = Vec::new();
    let mut ran: Vec<RowJob> = Vec::new();
    for pid in PROFILES {
        let todo: Vec<RowJob> = plan.rows.iter().filter(|r| r.profile.id == *pid).cloned().collect();
        if todo.is_empty() {
            continue;
        }
        ran.extend(todo.iter().cloned());
        // With --reuse-gateway, rows of one gateway config run next to each
        // other (realhost::reuse::group_order), so consecutive rows on a
        // runner share its gateway; the report keeps the table's order.
        let order = if crate::realhost::reuse::enabled() { reuse_order(&todo) } else { (0..todo.len()).collect() };
        let sorted: Vec<RowJob> = order.iter().map(|&i| todo[i].clone()).collect();
        match run_rows(sorted, base, row_parallelism(jobs), "fidelity gate", &mut stop).await {
            Ok(done) => rows.extend(unpermute(&order, done)),
            Err(h) => return h.exit(),
        }
    }
    // The real host's timing moves with the machine's load (two gateways, a
    // shared CI core), so a row that differs or errs is re-run once, alone:
    // equal then, it is reported flaky with its first diff and does not fail
    // the gate; not equal twice, it fails. A regression breaks many rows,
    // so past GATE_RETRY_MAX nothing is re-run (no time spent confirming it).
    let retry: Vec<usize> = (0..rows.len()).filter(|&i| matches!(rows[i].verdict, Verdict::Differs(_) | Verdict::Error(_))).collect();
    let mut flaky = Vec::new();
    if !retry.is_empty() && retry.len() <= GATE_RETRY_MAX {
        eprintln!("fidelity gate: {} row(s) not equal; re-running each once, alone", retry.len());
        let todo: Vec<RowJob> = retry.iter().map(|&i| ran[i].clone()).collect();
        // On a gateway of its own: a row that differed on a shared gateway
        // and is equal alone then shows as FLAKY with its first diff.
        crate::realhost::reuse::enable(false);
        let again = match run_rows(todo, base, 1, "fidelity gate (re-run)", &mut stop).await {
            Ok(done) => done,
            Err(h) => return h.exit(),
        };
        for (&i, second) in retry.iter().zip(again) {
            if matches!(second.verdict, Verdict::Equal) {
                flaky.push(std::mem::replace(&mut rows[i], second));
            } else {
                rows[i] = second;
            }
        }
    }
    let _ = std::fs::remove_dir(crate::realhost::work_root());
    let _ = std::fs::remove_dir(super::common::state_root());
    let (code, mut lines) = gate_verdict(&rows, &plan.stale, table);
    lines.extend(flaky_lines(&flaky));
    for l in lines {
        eprintln!("{l}");
    }
    code
}

/// The order to run a release's rows in on shared gateways: grouped by
/// engine and gateway config (realhost::reuse::group_order).
fn reuse_order(todo: &[RowJob]) -> Vec<usize> {
    let keys: Vec<Option<String>> = todo
        .iter()
        .map(|r| {
            let version = crate::realhost::HostVersion::for_profile(&r.profile).ok()?;
            crate::realhost::reuse::shareable_group(&r.scenario, &version).map(|k| format!("{}\u{1f}{k}", r.engine))
        })
        .collect();
    crate::realhost::reuse::group_order(&keys)
}

/// `done[j]` is the result of row `order[j]`: back in row order.
fn unpermute<T>(order: &[usize], done: Vec<T>) -> Vec<T> {
    let mut slots: Vec<Option<T>> = (0..order.len()).map(|_| None).collect();
    for (&i, row) in order.iter().zip(done) {
        slots[i] = Some(row);
    }
    slots.into_iter().map(|r| r.expect("a result for every row")).collect()
}

/// One row to twin.
#[derive(Clone)]
struct RowJob {
    scenario: Scenario,
    profile: Profile,
    engine: &'static str,
}

/// The rows `md` records as equal that the gate re-runs, and the recorded
/// equal rows whose scenario is gone from the library.
struct GatePlan {
    rows: Vec<RowJob>,
    stale: Vec<String>,
}

fn gate_plan(md: &str, scenarios: &[Scenario], only: Option<&str>, filter: Option<&str>) -> GatePlan {
    let equal = previously_equal(md);
    let selected = |s: &str, p: &str| only.is_none_or(|o| o == p) && filter.is_none_or(|f| f.split(',').map(str::trim).filter(|g| !g.is_empty()).any(|g| super::common::glob_match(g, s)));
    let mut rows = Vec::new();
    for pid in PROFILES {
        let profile = Profile::by_id(pid).expect("released profile");
        for engine in ENGINES {
            for s in scenarios.iter().filter(|s| selected(&s.id, pid) && equal.contains(&key(&s.id, pid, engine))) {
                rows.push(RowJob { scenario: s.clone(), profile: profile.clone(), engine });
            }
        }
    }
    let known: BTreeSet<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
    let stale = equal
        .iter()
        .filter_map(|k| {
            let mut parts = k.splitn(3, '|');
            let (s, p, e) = (parts.next()?, parts.next()?, parts.next()?);
            (selected(s, p) && PROFILES.contains(&p) && !known.contains(s)).then(|| format!("{s} · {p} · {e}"))
        })
        .collect();
    GatePlan { rows, stale }
}

/// A gate of every release (no `--profile`, no `--scenario`) that would
/// re-run nothing of one of them: CI's gate covers both releases, and a table
/// that lost one release's equal rows must not leave it green on the other's.
fn ungated_release(plan: &GatePlan, only: Option<&str>, filter: Option<&str>) -> Option<&'static str> {
    if only.is_some() || filter.is_some() {
        return None;
    }
    PROFILES.iter().copied().find(|pid| !plan.rows.iter().any(|r| r.profile.id == *pid) && !plan.stale.iter().any(|s| s.contains(&format!(" · {pid} · "))))
}

/// The gate's exit status and what it prints.
fn gate_verdict(rows: &[Row], stale: &[String], table: &Path) -> (u8, Vec<String>) {
    let broken: Vec<&Row> = rows.iter().filter(|r| !matches!(r.verdict, Verdict::Equal)).collect();
    let mut lines = vec![format!("fidelity gate: {} row(s) recorded equal in {} re-run; {} no longer equal", rows.len(), table.display(), broken.len())];
    for r in &broken {
        let why = match &r.verdict {
            Verdict::Error(e) | Verdict::NotDrivable(e) => format!(": {e}"),
            // A red CI must say what differed, not only which row: the
            // normalised diff, capped so a runaway row cannot flood the log.
            Verdict::Differs(d) => format!(":\n{}", capped_diff(d, GATE_DIFF_LINES)),
            Verdict::Equal => String::new(),
        };
        lines.push(format!("fidelity gate: {} · {} · {} was equal and now is {}{why}", r.scenario, r.profile, r.engine, label(&r.verdict)));
    }
    for s in stale {
        lines.push(format!("fidelity gate: {s} is recorded equal but the library has no such scenario (renamed or removed?): regenerate {}", table.display()));
    }
    let code = if broken.is_empty() && stale.is_empty() { super::EXIT_OK } else { super::EXIT_FAILURES };
    (code, lines)
}

/// Rows re-run once when not equal (see `gate`).
const GATE_RETRY_MAX: usize = 8;

/// What the gate prints for rows equal only on their re-run: never silent.
fn flaky_lines(first: &[Row]) -> Vec<String> {
    let mut lines = Vec::new();
    if !first.is_empty() {
        lines.push(format!("fidelity gate: {} row(s) FLAKY: not equal on the first run, equal on the re-run alone (not a failure; the first run's result follows)", first.len()));
    }
    for r in first {
        let what = match &r.verdict {
            Verdict::Differs(d) => format!("differs:\n{}", capped_diff(d, GATE_DIFF_LINES)),
            Verdict::Error(e) => format!("error: {e}"),
            v => label(v).to_string(),
        };
        lines.push(format!("fidelity gate: flaky {} · {} · {}: first run {what}", r.scenario, r.profile, r.engine));
    }
    lines
}

/// Lines of a broken row's diff the gate prints (`clawspec twin --scenario
/// S --profile P --engine E` prints it whole).
const GATE_DIFF_LINES: usize = 200;

fn capped_diff(d: &str, max: usize) -> String {
    let total = d.lines().count();
    let mut out: Vec<&str> = d.lines().take(max).collect();
    let more = format!("… {} more line(s): rerun the row alone with `clawspec twin` for the whole diff", total.saturating_sub(max));
    if total > max {
        out.push(&more);
    }
    out.join("\n")
}

/// At most `asked` real gateways at once (at least one).
fn row_parallelism(asked: usize) -> usize {
    asked.max(1)
}

/// Why rows stopped coming: an engine spec was refused (printed), or a signal.
enum Halt {
    Usage,
    Interrupted(i32),
}

impl Halt {
    fn exit(&self) -> u8 {
        match self {
            Halt::Usage => super::EXIT_USAGE,
            Halt::Interrupted(sig) => 128 + *sig as u8,
        }
    }
}

/// SIGINT/SIGTERM, watched for the whole table: every gateway and engine a
/// cancelled row started is swept (they re-parent to this process, a child
/// subreaper) and the work dirs removed, so an interrupted CI job leaves
/// nothing running. Installed once, as early as `twin --fidelity` starts: a
/// background job of a non-interactive shell starts with SIGINT ignored, so
/// a signal before this is lost, not fatal.
pub fn interruptible() -> tokio::sync::watch::Receiver<i32> {
    static STOP: std::sync::OnceLock<tokio::sync::watch::Receiver<i32>> = std::sync::OnceLock::new();
    STOP.get_or_init(install_interruption).clone()
}

fn install_interruption() -> tokio::sync::watch::Receiver<i32> {
    crate::driver::reaper::become_subreaper();
    let (tx, rx) = tokio::sync::watch::channel(0);
    match super::certify::interruption() {
        Ok((stop, caught)) => {
            tokio::spawn(async move {
                stop.await;
                let _ = tx.send(caught.load(std::sync::atomic::Ordering::SeqCst));
                // Kept open: a closed channel would read as a stop.
                std::future::pending::<()>().await;
            });
        }
        Err(e) => {
            eprintln!("warning: {e}; an interrupted run may leave gateways running");
            tokio::spawn(async move {
                let _tx = tx;
                std::future::pending::<()>().await;
            });
        }
    }
    rx
}

/// Twin `todo` with `parallelism` rows at once, the first row alone
/// ([`spawn_warm_first`]); rows come back in the order given, each printed
/// as it finishes.
async fn run_rows(todo: Vec<RowJob>, base: &EngineArgs, parallelism: usize, tag: &'static str, stop: &mut tokio::sync::watch::Receiver<i32>) -> Result<Vec<Row>, Halt> {
    let mut jobs = Vec::with_capacity(todo.len());
    for job in todo {
        let Some((args, spec)) = with_engine(base, job.engine) else { return Err(Halt::Usage) };
        jobs.push((job, args, spec));
    }
    let mut handles = spawn_warm_first(jobs, parallelism, move |(job, args, spec)| async move {
        let row = twin_one(&job.scenario, &job.profile, &spec, &args, false).await;
        eprintln!("{tag}: {} · {} · {} → {}", row.scenario, row.profile, job.engine, label(&row.verdict));
        row
    })
    .await;
    let mut rows = Vec::with_capacity(handles.len());
    for i in 0..handles.len() {
        let sig = tokio::select! {
            r = &mut handles[i] => {
                rows.push(r.expect("twin row panicked"));
                continue;
            }
            Ok(sig) = stop.wait_for(|s| *s != 0) => *sig,
        };
        {
            // Aborting drops each row's host runner (killed on drop); the
            // gateways and engines it started are swept below.
            for h in &handles[i..] {
                h.abort();
            }
            for h in handles.drain(i..) {
                let _ = h.await;
            }
            {
                let killed = crate::driver::reaper::sweep_strays(true);
                let _ = std::fs::remove_dir_all(crate::realhost::work_root());
                let _ = std::fs::remove_dir_all(super::common::state_root());
                eprintln!("{tag}: interrupted; {killed} gateway/engine process(es) killed, work dirs removed");
            }
            return Err(Halt::Interrupted(sig));
        }
    }
    Ok(rows)
}

/// Spawn `work` for every job, at most `parallelism` at once, and the first
/// one alone: it is a release's first gateway start on this machine, the one
/// that does the one-time work later starts reuse (2026.4.x: staging plugin
/// dependencies under the host's `.openclaw-runtime-deps.lock`, the plugin
/// subset and the persisted plugin registry, lib/bundled-subset.js and
/// host-runner.mjs persistPluginRegistry; both releases: the first clean exit
/// writes the module compile cache, lib/gateway.js). Concurrent first starts
/// would each redo it or wait on the host's lock with their event loop
/// blocked; once it is done, rows share nothing but read-only caches and run
/// `parallelism` at once. (2026.4.x ran every row alone before: measured
/// two concurrent warm 4.26 rows at 20 s and 22 s wall against 12–16 s each
/// alone, docs/performance.md#real-host-twin.)
async fn spawn_warm_first<J, F, Fut>(jobs: Vec<J>, parallelism: usize, work: F) -> Vec<tokio::task::JoinHandle<Fut::Output>>
where
    J: Send + 'static,
    F: Fn(J) -> Fut,
    Fut: std::future::Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    let parallelism = parallelism.max(1);
    let sem = std::sync::Arc::new(tokio::sync::Semaphore::new(parallelism));
    // Taken here, before any other job is spawned, so no later job can start
    // before the first has finished, whatever order the tasks are polled in.
    let mut first = Some(sem.clone().acquire_many_owned(parallelism as u32).await.expect("semaphore"));
    jobs.into_iter()
        .map(|job| {
            let fut = work(job);
            let held = first.take();
            let sem = sem.clone();
            tokio::spawn(async move {
                let _permit = match held {
                    Some(p) => p,
                    None => sem.acquire_owned().await.expect("semaphore"),
                };
                fut.await
            })
        })
        .collect()
}

/// `base` with the table's built-in `engine`, and its spec (None: printed why).
fn with_engine(base: &EngineArgs, engine: &str) -> Option<(EngineArgs, crate::driver::EngineSpec)> {
    let mut args = base.clone();
    args.engine = engine.to_string();
    match args.spec() {
        Ok(spec) => Some((args, spec)),
        Err(e) => {
            eprintln!("clawspec: {e}");
            None
        }
    }
}

fn measure(profile: &Profile) -> Option<InstallTiming> {
    let version = crate::realhost::HostVersion::for_profile(profile).ok()?;
    eprintln!("fidelity: timing a fresh `npm install openclaw@{}` (cold, then warm npm cache)…", version.0);
    match crate::realhost::measure::npm_install(&version.0) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("fidelity: install timing not measured: {e}");
            None
        }
    }
}


fn begin(pid: &str) -> String {
    format!("<!-- fidelity:{pid} -->")
}

fn end(pid: &str) -> String {
    format!("<!-- /fidelity:{pid} -->")
}

/// A profile's section of an existing table, markers included.
fn section_of(md: &str, pid: &str) -> Option<String> {
    let (b, e) = (begin(pid), end(pid));
    let from = md.find(&b)?;
    let to = md[from..].find(&e)? + from + e.len();
    Some(format!("{}\n", &md[from..to]))
}

fn not_run(pid: &str) -> String {
    format!(
        "{}\n## {pid}\n\nNot run in this table (`cargo xtask fidelity -- --profile {pid}` fills this section). CI's gate (`.ci/run`, `cargo xtask fidelity-gate`) re-runs the equal rows of every release, 2026.4.26 and 2026.9.6, and fails while a release records none.\n{}\n",
        begin(pid),
        end(pid)
    )
}

fn label(v: &Verdict) -> &'static str {
    match v {
        Verdict::Equal => "equal",
        Verdict::Differs(_) => "differs",
        Verdict::NotDrivable(_) => "not drivable",
        Verdict::Error(_) => "error",
    }
}

const LABELS: [&str; 4] = ["equal", "differs", "not drivable", "error"];

/// Totals from the row lines of the sections (fresh or kept).
fn totals(sections: &[(String, String)]) -> String {
    let mut md = String::from("| profile | engine | rows | drivable | equal | of which the engine was called | differs | not drivable | error |\n|---|---|---|---|---|---|---|---|---|\n");
    for (pid, text) in sections {
        for engine in ENGINES {
            // (verdict, engine calls on the real host: a number, or "–" when it did not run)
            let verdicts: Vec<(&str, &str)> = text
                .lines()
                .filter_map(|l| {
                    let c: Vec<&str> = l.split('|').map(str::trim).collect();
                    (c.len() >= 7 && c[2] == pid && c[3].trim_matches('`') == *engine && LABELS.contains(&c[4])).then(|| (c[4], c[5]))
                })
                .collect();
            if verdicts.is_empty() {
                continue;
            }
            let n = |l: &str| verdicts.iter().filter(|v| v.0 == l).count();
            let called = verdicts.iter().filter(|v| v.0 == "equal" && v.1.parse::<usize>().is_ok_and(|n| n > 0)).count();
            md += &format!(
                "| {pid} | `{engine}` | {} | {} | {} | {called} | {} | {} | {} |\n",
                verdicts.len(),
                verdicts.len() - n("not drivable"),
                n("equal"),
                n("differs"),
                n("not drivable"),
                n("error")
            );
        }
    }
    md
}

fn render(sections: &[(String, String)], total_ms: u64) -> String {
    let mut md = String::from(
        "# Fidelity: the reference runtime against the real OpenClaw\n\n\
         Generated by `cargo xtask fidelity` (`clawspec twin --fidelity docs/fidelity.md`); do not edit.\n\
         Each row runs one scenario on the reference runtime and on the real OpenClaw release of the\n\
         profile (npm `openclaw@<version>`, gateway on loopback, the engine behind\n\
         `adapters/openclaw-bridge/`), and compares what the engine received, normalised by the rules in\n\
         `harness/src/twin.rs` (ids, wall-clock times, state and workspace paths, the bridge's registration id,\n\
         the host's config/skill catalogue/session store record as environment, key order — nothing else; the system prompt (as the\n\
         host built it, boundary markers included) and tool catalogue the real host used are given to the\n\
         reference run).\n\
         *not drivable* rows say which step the real host cannot be driven to reproduce yet.\n\
         *engine calls* counts the lifecycle calls the real host made to the engine: an *equal* row with 0\n\
         shows only that both hosts kept the engine out of every turn (2026.9.6 runs its own legacy engine\n\
         in place of an engine that does not own compaction, such as `builtin:legacy`), not what an engine receives.\n\
         Each release has its own section, regenerated whole when that release is run\n\
         (`cargo xtask fidelity -- --profile P` keeps the other sections as they are).\n\n## Totals\n\n",
    );
    md += &totals(sections);
    md += &format!("\nLast table run: {:.0} s (wall clock, this machine).\n\n", total_ms as f64 / 1000.0);
    for (_, text) in sections {
        md += text;
        md += "\n";
    }
    md.truncate(md.trim_end().len());
    md.push('\n');
    md
}

fn render_stored(pid: &str, sec: &Section) -> String {
    render_section_noted(pid, &sec.rows, &sec.timing, &sec.refreshed, sec.whole)
}

#[cfg(test)]
fn render_section(pid: &str, rows: &[Row], timing: &SectionTiming) -> String {
    render_section_noted(pid, rows, timing, &[], true)
}

/// `refreshed`: rows re-twinned after the section's whole run; `whole`:
/// false when the library's other rows were never run for this release.
fn render_section_noted(pid: &str, rows: &[Row], timing: &SectionTiming, refreshed: &[String], whole: bool) -> String {
    let mut md = format!("{}\n## {pid}\n\n", begin(pid));
    if !whole {
        md += &format!(
            "Only the rows below were run for this release (`clawspec twin --fidelity docs/fidelity.md --scenario GLOB --profile {pid}`); the library's other rows were not run in this table.\n\n"
        );
    }
    if !refreshed.is_empty() {
        md += &format!(
            "{} row(s) re-twinned after this section's whole run, against the reference runtime of that later commit (`clawspec twin --fidelity docs/fidelity.md --scenario GLOB`): {}.\n\n",
            refreshed.len(),
            refreshed.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ")
        );
    }
    md += "### Rows\n\n| scenario | profile | engine | verdict | engine calls (real host) | why / first difference |\n|---|---|---|---|---|---|\n";
    for r in rows {
        let why = match &r.verdict {
            Verdict::NotDrivable(w) | Verdict::Error(w) => w.replace('|', "\\|").replace('\n', " "),
            Verdict::Differs(d) => format!("{} changed lines (diff below)", d.lines().filter(|l| l.starts_with('+') || l.starts_with('-')).count().saturating_sub(2)),
            Verdict::Equal => String::new(),
        };
        let calls = r.engine_calls.map_or("–".to_string(), |n| n.to_string());
        md += &format!("| `{}` | {} | `{}` | {} | {calls} | {why} |\n", r.scenario, r.profile, r.engine, label(&r.verdict));
    }
    md += "\n### Differences\n\n";
    for r in rows {
        if let Verdict::Differs(d) = &r.verdict {
            let lines: Vec<&str> = d.lines().collect();
            md += &format!("#### `{}` · {} · `{}`\n\n```diff\n{}\n", r.scenario, r.profile, r.engine, lines.iter().take(DIFF_LINES).copied().collect::<Vec<_>>().join("\n"));
            if lines.len() > DIFF_LINES {
                md += &format!("… {} more lines (`clawspec twin --scenario {} --profile {} --engine {}`)\n", lines.len() - DIFF_LINES, r.scenario, r.profile, r.engine);
            }
            md += "```\n\n";
        }
    }
    md += &format!("### Timing ({pid}; wall clock, this machine; not part of any verdict)\n\n");
    match &timing.install {
        Some(t) => {
            md += &format!(
                "- `npm install openclaw@{v}` into an empty directory (`--ignore-scripts --omit=optional`, as `realhost/install.rs`): \
                 cold npm cache **{:.0} s** (`coldNpmCacheMs` {}), warm npm cache **{:.0} s** (`warmNpmCacheMs` {}); \
                 clawspec does this once per machine (cached in `$CLAWSPEC_CACHE/openclaw@{v}`).\n",
                t.cold_npm_cache_ms as f64 / 1000.0, t.cold_npm_cache_ms, t.warm_npm_cache_ms as f64 / 1000.0, t.warm_npm_cache_ms,
                v = pid.trim_start_matches("openclaw-")
            );
        }
        None => md += "- npm install: not measured in this run (`--measure-install`).\n",
    }
    let starts: Vec<u64> = rows.iter().filter_map(|r| r.gateway_start_ms).collect();
    if let Some(first) = starts.first() {
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        let mut cpu: Vec<u64> = rows.iter().filter_map(|r| r.gateway_start_cpu_ms).collect();
        cpu.sort_unstable();
        let cpu = match (rows.iter().find_map(|r| r.gateway_start_cpu_ms), cpu.get(cpu.len() / 2)) {
            (Some(f), Some(m)) => format!("; CPU time of the gateway until ready: first {f} ms, median {m} ms"),
            _ => String::new(),
        };
        md += &format!(
            "- gateway start (spawn → `/readyz` 200): first of this run {first} ms, median {} ms, max {} ms over {} starts{cpu}{}.\n",
            sorted[sorted.len() / 2],
            sorted[sorted.len() - 1],
            sorted.len(),
            if pid.starts_with("openclaw-2026.4.") {
                "; 2026.4.x stages bundled plugins' npm dependencies into `OPENCLAW_PLUGIN_STAGE_DIR` (the cache's `plugin-stage/`) keyed by release version and package path \
                 (dist/bundled-runtime-root-*.js `resolveExternalBundledRuntimeDepsInstallRoots`: `openclaw-<version>-<sha256(packageRoot)>`), so the staging npm install happens once per cache, not per row; \
                 gateways sharing that directory serialise on its `.openclaw-runtime-deps.lock` (`withBundledRuntimeDepsFilesystemLock`, waits up to 5 min with the event loop blocked), so concurrent 2026.4.x runs on one machine slow each other"
            } else {
                ""
            }
        );
    }
    let mut walls: Vec<u64> = rows.iter().filter_map(|r| r.real_ms).collect();
    walls.sort_unstable();
    if let Some(median) = walls.get(walls.len() / 2) {
        md += &format!("- real-host run per drivable row (gateway start, steps, stop): median {median} ms over {} rows.\n", walls.len());
    }
    md += &format!(
        "- this release's rows: {:.0} s with {} real gateway(s) at once (`--jobs`); gateways compile OpenClaw's modules from `$CLAWSPEC_CACHE/node-compile-cache` (before/after: docs/performance.md#real-host-twin).\n\n",
        timing.total_ms as f64 / 1000.0,
        timing.jobs
    );
    md += "| scenario | engine | gateway start ms | gateway start CPU ms | real-host run ms |\n|---|---|---|---|---|\n";
    for r in rows.iter().filter(|r| r.real_ms.is_some()) {
        let cpu = r.gateway_start_cpu_ms.map_or("–".to_string(), |c| c.to_string());
        md += &format!("| `{}` | `{}` | {} | {cpu} | {} |\n", r.scenario, r.engine, r.gateway_start_ms.unwrap_or(0), r.real_ms.unwrap_or(0));
    }
    md += &format!("{}\n", end(pid));
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows run in a grouped order are reported in the table's order.
    #[test]
    fn grouped_rows_reported_in_table_order() {
        assert_eq!(unpermute(&[2, 0, 1], vec!["c", "a", "b"]), vec!["a", "b", "c"]);
        assert_eq!(unpermute::<u8>(&[], vec![]), Vec::<u8>::new());
    }
    use rstest::rstest;

    fn library(ids: &[&str]) -> Vec<Scenario> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let src = std::fs::read_to_string(root.join("new-session-no-bootstrap.yaml")).unwrap();
        let base = crate::scenario::load::parse(&root.join("new-session-no-bootstrap.yaml"), &src).map_err(|_| ()).unwrap().scenario;
        ids.iter().map(|id| Scenario { id: id.to_string(), ..base.clone() }).collect()
    }

    /// Refreshes that have reached every scenario on every engine make a
    /// partial section whole; one missing row keeps it partial.
    #[test]
    fn a_section_covering_the_library_counts_as_whole() {
        let lib = library(&["a", "b"]);
        let mut rows: Vec<Row> = ENGINES.iter().flat_map(|e| ["a", "b"].map(|s| row(s, "openclaw-2026.4.26", e, Verdict::Equal))).collect();
        assert!(covers_library(&rows, &lib));
        rows.pop();
        assert!(!covers_library(&rows, &lib));
    }

    fn table(rows: &[(&str, &str, &str, &str)]) -> String {
        let mut md = String::from("| scenario | profile | engine | verdict | why |\n|---|---|---|---|---|\n");
        for (s, p, e, v) in rows {
            md += &format!("| `{s}` | {p} | `{e}` | {v} |  |\n");
        }
        md
    }

    const P96: &str = "openclaw-2026.9.6";
    const P426: &str = "openclaw-2026.4.26";

    #[rstest]
    // Only rows recorded equal are re-run, each under its own profile and engine.
    #[case(None, None, &["a · openclaw-2026.4.26 · builtin:window", "a · openclaw-2026.9.6 · builtin:legacy", "b · openclaw-2026.9.6 · builtin:legacy"], &["gone · openclaw-2026.4.26 · builtin:legacy"])]
    #[case(Some(P96), None, &["a · openclaw-2026.9.6 · builtin:legacy", "b · openclaw-2026.9.6 · builtin:legacy"], &[])]
    #[case(None, Some("a*"), &["a · openclaw-2026.4.26 · builtin:window", "a · openclaw-2026.9.6 · builtin:legacy"], &[])]
    // A recorded-equal scenario the library lost is reported, never silently dropped.
    #[case(Some(P426), None, &["a · openclaw-2026.4.26 · builtin:window"], &["gone · openclaw-2026.4.26 · builtin:legacy"])]
    fn the_gate_reruns_exactly_the_recorded_equal_rows(#[case] only: Option<&str>, #[case] filter: Option<&str>, #[case] want: &[&str], #[case] stale: &[&str]) {
        let md = table(&[
            ("a", P96, "builtin:legacy", "equal"),
            ("a", P96, "builtin:window", "differs"),
            ("b", P96, "builtin:legacy", "equal"),
            ("c", P96, "builtin:legacy", "not drivable"),
            ("a", P426, "builtin:window", "equal"),
            ("gone", P426, "builtin:legacy", "equal"),
        ]);
        let plan = gate_plan(&md, &library(&["a", "b", "c"]), only, filter);
        let mut got: Vec<String> = plan.rows.iter().map(|r| format!("{} · {} · {}", r.scenario.id, r.profile.id, r.engine)).collect();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(plan.stale, stale);
    }

    #[rstest]
    #[case::all_still_equal(&[Verdict::Equal, Verdict::Equal], &[], 0)]
    // CI's point: a reference-runtime change that breaks a recorded-equal row fails.
    #[case::one_now_differs(&[Verdict::Equal, Verdict::Differs("-x\n+y".into())], &[], 1)]
    // A gateway that no longer starts is no proof of equality.
    #[case::one_errored(&[Verdict::Error("gateway not ready".into())], &[], 1)]
    #[case::one_not_drivable_any_more(&[Verdict::NotDrivable("plan changed".into())], &[], 1)]
    #[case::stale_table(&[Verdict::Equal], &["gone · openclaw-2026.9.6 · builtin:legacy"], 1)]
    fn the_gate_fails_unless_every_recorded_equal_row_still_is(#[case] verdicts: &[Verdict], #[case] stale: &[&str], #[case] code: u8) {
        let rows: Vec<Row> = verdicts
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let v = match v {
                    Verdict::Equal => Verdict::Equal,
                    Verdict::Differs(d) => Verdict::Differs(d.clone()),
                    Verdict::NotDrivable(d) => Verdict::NotDrivable(d.clone()),
                    Verdict::Error(d) => Verdict::Error(d.clone()),
                };
                row(&format!("s{i}"), P96, "builtin:legacy", v)
            })
            .collect();
        let stale: Vec<String> = stale.iter().map(|s| s.to_string()).collect();
        let (got, lines) = gate_verdict(&rows, &stale, Path::new("docs/fidelity.md"));
        assert_eq!(got, code, "{lines:#?}");
        assert!(lines[0].contains(&format!("{} row(s) recorded equal", rows.len())), "{lines:#?}");
        if code != 0 {
            assert!(lines.iter().any(|l| l.contains("was equal and now is") || l.contains("no such scenario")), "{lines:#?}");
        }
    }

    /// A red gate says what differed: the row's diff, capped.
    #[rstest]
    #[case::short(3, 3, false)]
    #[case::capped(GATE_DIFF_LINES + 50, GATE_DIFF_LINES, true)]
    fn a_broken_row_prints_its_diff_capped(#[case] lines_in: usize, #[case] shown: usize, #[case] cut: bool) {
        let d: String = (0..lines_in).map(|i| format!("-old {i}\n+new {i}\n")).collect::<String>().lines().take(lines_in).collect::<Vec<_>>().join("\n");
        let (code, lines) = gate_verdict(&[row("s", P426, "builtin:legacy", Verdict::Differs(d))], &[], Path::new("docs/fidelity.md"));
        assert_eq!(code, 1);
        let out = lines.join("\n");
        assert_eq!(out.lines().filter(|l| l.starts_with("-old ") || l.starts_with("+new ")).count(), shown, "{out}");
        assert_eq!(out.contains("more line(s): rerun the row alone"), cut, "{out}");
    }

    /// A row equal only on its re-run is reported, with its first diff.
    #[test]
    fn a_flaky_row_is_reported_with_its_first_result() {
        assert!(flaky_lines(&[]).is_empty());
        let lines = flaky_lines(&[row("s", P426, "builtin:legacy", Verdict::Differs("-a\n+b".into())), row("t", P96, "builtin:window", Verdict::Error("gateway not ready".into()))]);
        assert!(lines[0].contains("2 row(s) FLAKY"), "{lines:#?}");
        assert!(lines[1].contains("flaky s · openclaw-2026.4.26 · builtin:legacy: first run differs:\n-a\n+b"), "{lines:#?}");
        assert!(lines[2].contains("flaky t · openclaw-2026.9.6 · builtin:window: first run error: gateway not ready"), "{lines:#?}");
    }

    /// CI gates both releases in one run: a table with no equal row of one
    /// of them gates nothing of it, which is refused, not green.
    #[rstest]
    #[case(&[("a", P96, "builtin:legacy", "equal"), ("a", P426, "builtin:legacy", "equal")], None, None, None)]
    #[case(&[("a", P96, "builtin:legacy", "equal"), ("a", P426, "builtin:legacy", "differs")], None, None, Some(P426))]
    #[case(&[("a", P426, "builtin:legacy", "equal")], None, None, Some(P96))]
    // A lost scenario is reported by the gate (stale), so the release is not ungated.
    #[case(&[("a", P96, "builtin:legacy", "equal"), ("gone", P426, "builtin:legacy", "equal")], None, None, None)]
    // One release asked for, or a scenario selection: only the whole selection must be non-empty.
    #[case(&[("a", P96, "builtin:legacy", "equal")], Some(P96), None, None)]
    #[case(&[("a", P96, "builtin:legacy", "equal")], None, Some("a"), None)]
    fn a_gate_of_both_releases_refuses_one_that_gates_nothing(#[case] rows: &[(&str, &str, &str, &str)], #[case] only: Option<&str>, #[case] filter: Option<&str>, #[case] want: Option<&str>) {
        let plan = gate_plan(&table(rows), &library(&["a"]), only, filter);
        assert_eq!(ungated_release(&plan, only, filter), want);
    }

    /// The first row runs alone (the release's one-time warm-up), then up to
    /// `parallelism` rows at once, never more, and results keep their order.
    #[rstest]
    #[case(1, 1)]
    #[case(2, 2)]
    #[case(3, 3)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_first_row_runs_alone_then_rows_share_the_parallelism(#[case] parallelism: usize, #[case] peak_after: usize) {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        use std::sync::{Arc, Mutex};
        let running = Arc::new(AtomicUsize::new(0));
        // (job, how many ran at once while it ran), recorded at its end.
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handles = spawn_warm_first((0..8).collect(), parallelism, |i: usize| {
            let (running, seen) = (running.clone(), seen.clone());
            async move {
                let now = running.fetch_add(1, SeqCst) + 1;
                let mut peak = now;
                for _ in 0..20 {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    peak = peak.max(running.load(SeqCst));
                }
                running.fetch_sub(1, SeqCst);
                seen.lock().unwrap().push((i, peak));
                i
            }
        })
        .await;
        let mut out = Vec::new();
        for h in handles {
            out.push(h.await.unwrap());
        }
        assert_eq!(out, (0..8).collect::<Vec<_>>(), "results in the order given");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen[0], (0, 1), "the first row ran alone and finished first: {seen:?}");
        let peak = seen.iter().map(|(_, p)| *p).max().unwrap();
        assert_eq!(peak, peak_after, "never more than the parallelism, and all of it used: {seen:?}");
    }

    fn row(s: &str, p: &str, e: &str, v: Verdict) -> Row {
        Row { scenario: s.into(), profile: p.into(), engine: e.into(), verdict: v, real_ms: Some(20_000), gateway_start_ms: Some(15_000), gateway_start_cpu_ms: Some(9_000), engine_calls: Some(3) }
    }

    #[test]
    fn one_release_rerun_keeps_the_others_section() {
        let t = SectionTiming { install: Some(InstallTiming { cold_npm_cache_ms: 90_000, warm_npm_cache_ms: 30_000 }), total_ms: 1, jobs: 2 };
        let old426 = render_section("openclaw-2026.4.26", &[row("a", "openclaw-2026.4.26", "builtin:legacy", Verdict::Equal)], &t);
        let old96 = render_section("openclaw-2026.9.6", &[row("a", "openclaw-2026.9.6", "builtin:legacy", Verdict::NotDrivable("x | y".into()))], &t);
        let old = render(&[("openclaw-2026.4.26".into(), old426.clone()), ("openclaw-2026.9.6".into(), old96)], 5_000);
        assert!(old.contains("cold npm cache **90 s** (`coldNpmCacheMs` 90000)"), "{old}");
        // A 9.6-only run: the 4.26 section is kept byte for byte, totals recounted.
        let kept = section_of(&old, "openclaw-2026.4.26").unwrap();
        assert_eq!(kept, old426);
        let new96 = render_section("openclaw-2026.9.6", &[row("a", "openclaw-2026.9.6", "builtin:legacy", Verdict::Equal)], &SectionTiming { install: None, total_ms: 1, jobs: 1 });
        let new = render(&[("openclaw-2026.4.26".into(), kept), ("openclaw-2026.9.6".into(), new96)], 5_000);
        assert!(new.contains("| openclaw-2026.4.26 | `builtin:legacy` | 1 | 1 | 1 | 1 | 0 | 0 | 0 |"), "{new}");
        assert!(new.contains("| openclaw-2026.9.6 | `builtin:legacy` | 1 | 1 | 1 | 1 | 0 | 0 | 0 |"), "{new}");
        assert_eq!(previously_equal(&new).len(), 2);
        // An equal row whose engine the real host never called is counted apart.
        let mut quiet = row("b", "openclaw-2026.9.6", "builtin:legacy", Verdict::Equal);
        quiet.engine_calls = Some(0);
        let undriven = row("c", "openclaw-2026.9.6", "builtin:legacy", Verdict::NotDrivable("why".into()));
        let s96 = render_section("openclaw-2026.9.6", &[row("a", "openclaw-2026.9.6", "builtin:legacy", Verdict::Equal), quiet, Row { engine_calls: None, ..undriven }], &SectionTiming { install: None, total_ms: 1, jobs: 1 });
        assert!(s96.contains("| `b` | openclaw-2026.9.6 | `builtin:legacy` | equal | 0 |  |"), "{s96}");
        assert!(s96.contains("| `c` | openclaw-2026.9.6 | `builtin:legacy` | not drivable | – | why |"), "{s96}");
        let t96 = render(&[("openclaw-2026.9.6".into(), s96)], 1);
        assert!(t96.contains("| openclaw-2026.9.6 | `builtin:legacy` | 3 | 2 | 2 | 1 | 0 | 1 | 0 |"), "{t96}");
        assert_eq!(previously_equal(&new).len(), 2);
        // A release never run gets a note, not rows.
        let none = render(&[("openclaw-2026.4.26".into(), section_of("", "openclaw-2026.4.26").unwrap_or_else(|| not_run("openclaw-2026.4.26")))], 0);
        assert!(none.contains("Not run in this table"), "{none}");
        assert!(none.contains("re-runs the equal rows of every release") && !none.contains("2026.9.6 only"), "CI gates both releases (.ci/run): {none}");
    }
}
