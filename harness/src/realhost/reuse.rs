//! One real gateway for several rows (opt-in: `twin --reuse-gateway`,
//! docs/performance.md "One gateway for several rows").
//!
//! A row that may share a gateway is sent to a `host-runner.mjs --serve`
//! process kept between rows. That runner starts a gateway for its first
//! row; for each later row it compares the row's config with the gateway's,
//! with the row's own values blanked (trace, engine cwd, workspace, mock
//! provider address, session store: host-runner.mjs `rowNeutral`), and
//! either hot-applies the row's values (2026.9.6 reruns the bridge's
//! registration, which starts a fresh engine for the new trace, and opens
//! the row's own session store; it waits for gateway.log's "config hot
//! reload applied") or, when anything else differs, starts a fresh gateway.
//! Each row gets its own session store, workspace, engine process, mock
//! provider, trace and chat.send idempotency keys (`clawspec-r<N>-…`).
//!
//! Which rows may share one ([`eligible`]) is decided here, conservatively:
//! only 2026.9.x (2026.4.26 needs a gateway restart for any `plugins`
//! change: its docs/gateway/configuration.md "What hot-applies vs what needs
//! a restart"), and no row whose set-up writes the state database before the
//! gateway starts (seeded sessions, lib/seed.js), holds a model call
//! (in-flight steps), takes turns through the channel plugin, or has
//! heartbeats (not identical when reused: the proof, docs/performance.md).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::plan::{Plan, PlanStep};

static ON: AtomicBool = AtomicBool::new(false);
/// Runners between rows, oldest first.
static IDLE: Mutex<VecDeque<Served>> = Mutex::new(VecDeque::new());
/// Idle gateways kept at most (each holds a Node process of ~0.5 GB): one per
/// `--jobs` slot and engine of the gate's row order needs at most two.
pub const MAX_IDLE: usize = 2;

pub fn enable(on: bool) {
    ON.store(on, Ordering::SeqCst);
}

pub fn enabled() -> bool {
    ON.load(Ordering::SeqCst)
}

/// Why a row must have a gateway of its own, or `None` when it may share one.
pub fn eligible(plan: &Plan, release: &str) -> Option<&'static str> {
    if release.starts_with("2026.") && release.split('.').nth(1).and_then(|m| m.parse::<u32>().ok()).is_some_and(|m| m <= 4) {
        return Some("2026.4.x restarts for any plugins change");
    }
    if plan.setup.seed.is_some() {
        return Some("a seeded session is written before the gateway starts");
    }
    if plan.holds > 0 {
        return Some("holds a model call (in-flight steps)");
    }
    if plan.steps.iter().any(|s| matches!(s, PlanStep::ChannelTurn { .. })) {
        return Some("turns through the channel plugin");
    }
    // Proof run (docs/performance.md "One gateway for several rows"):
    // heartbeat-reply with builtin:window on a reused gateway lost the
    // heartbeat run's engine calls (556 lines of its normalised trace), where
    // a fresh gateway gives them; the heartbeat runner is gateway-lifetime state.
    if plan.steps.iter().any(|s| matches!(s, PlanStep::Heartbeat { .. })) {
        return Some("heartbeats (the gateway's heartbeat runner outlives a row)");
    }
    None
}

struct Served {
    key: String,
    child: Child,
    stdin: ChildStdin,
    out: tokio::io::Lines<BufReader<ChildStdout>>,
    dir: PathBuf,
}

/// Run the plan at `plan_path` on a served gateway for `key` (release and
/// engine), starting a runner when none is idle. `Ok(true)` when the row
/// ran, `Ok(false)` when the runner reported a failure (its result file says
/// why), `Err` when the runner itself broke.
pub async fn run_plan(key: &str, node: &Path, bridge: &Path, plan_path: &Path) -> Result<bool, String> {
    let taken = {
        let mut idle = IDLE.lock().unwrap();
        idle.iter().position(|s| s.key == key).and_then(|i| idle.remove(i))
    };
    let mut s = match taken {
        Some(s) => s,
        None => spawn(key, node, bridge, plan_path)?,
    };
    let line = format!("{}\n", plan_path.display());
    s.stdin.write_all(line.as_bytes()).await.map_err(|e| format!("served host runner: {e}"))?;
    s.stdin.flush().await.map_err(|e| format!("served host runner: {e}"))?;
    let answer = s.out.next_line().await.map_err(|e| format!("served host runner: {e}"))?.ok_or_else(|| format!("served host runner exited (gateway dir {})", s.dir.display()))?;
    let v: serde_json::Value = serde_json::from_str(&answer).map_err(|e| format!("served host runner said {answer:?}: {e}"))?;
    let ok = v["ok"].as_bool() == Some(true);
    let evicted = {
        let mut idle = IDLE.lock().unwrap();
        idle.push_back(s);
        if idle.len() > MAX_IDLE {
            idle.pop_front()
        } else {
            None
        }
    };
    if let Some(old) = evicted {
        close(old).await;
    }
    Ok(ok)
}

fn spawn(key: &str, node: &Path, bridge: &Path, plan_path: &Path) -> Result<Served, String> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    // As wide as a row's directory ("row-NNNNNN", mod.rs run): the host's
    // prompts embed the gateway's paths, and its token budget counts them.
    let dir = super::work_root().join(format!("gwy-{:06}", N.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut child = tokio::process::Command::new(node)
        .arg(bridge.join("host-runner.mjs"))
        .arg("--serve")
        .arg(&dir)
        .arg(plan_path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", node.display()))?;
    let stdin = child.stdin.take().expect("piped stdin");
    let out = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    Ok(Served { key: key.to_string(), child, stdin, out, dir })
}

/// Close a runner's stdin (it stops its gateway and exits), wait for it,
/// then release the gateway's lock files and remove its directory.
async fn close(s: Served) {
    let Served { mut child, stdin, dir, .. } = s;
    drop(stdin);
    if tokio::time::timeout(std::time::Duration::from_secs(30), child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
    super::release_gateway_locks(&dir);
    if std::env::var_os("CLAWSPEC_KEEP_GATEWAY").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Stop every served gateway (end of a `--reuse-gateway` run).
pub async fn shutdown() {
    let all: Vec<Served> = IDLE.lock().unwrap().drain(..).collect();
    for s in all {
        close(s).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(id: &str) -> Plan {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(format!("{id}.yaml"));
        let src = std::fs::read_to_string(&path).unwrap();
        let s = crate::scenario::load::parse(&path, &src).expect("scenario parses").scenario;
        super::super::plan::plan(&s).expect("drivable")
    }

    /// 2026.9.x rows share a gateway unless their set-up or steps need one of
    /// their own; 2026.4.x rows never do.
    #[test]
    fn which_rows_may_share_a_gateway() {
        let plain = plan_of("new-session-no-bootstrap");
        assert_eq!(eligible(&plain, "2026.9.6"), None);
        assert!(eligible(&plain, "2026.4.26").is_some_and(|why| why.contains("2026.4.x")));
        assert!(eligible(&plan_of("existing-empty-session"), "2026.9.6").is_some_and(|why| why.contains("seeded")));
        assert!(eligible(&plan_of("steer-user-text"), "2026.9.6").is_some_and(|why| why.contains("holds")));
        assert!(eligible(&plan_of("heartbeat-reply"), "2026.9.6").is_some_and(|why| why.contains("heartbeat")));
    }

    /// Off unless asked for.
    #[test]
    fn reuse_is_opt_in() {
        assert!(!enabled());
    }
}
