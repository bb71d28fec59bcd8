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
//! no row that holds a model call (in-flight steps), takes turns through the
//! channel plugin, or has heartbeats (not identical when reused: the proof,
//! docs/performance.md), nor a 2026.4.x row with inter-session sends. A
//! seeded row's session is written into its own store before the reload
//! that points the gateway at it. 2026.4.26 needs a gateway restart for any
//! `plugins` change (its docs/gateway/configuration.md "What hot-applies vs
//! what needs a restart"), so there the bridge's plugin config is the
//! gateway's and a row's own values reach the bridge through a row file
//! (host-runner.mjs `writeBridgeRow`, index.js `rowConfig`).
//!
//! [`group_order`] lets a run put rows of one gateway config next to each
//! other, so that consecutive rows on a runner share its gateway.

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
    // A seeded session is written into the row's own store before the config
    // edit that points the served gateway at it (host-runner.mjs serveRow,
    // lib/seed.js `storePath`): 2026.9.6 resolves a session's store from the
    // runtime config at each access (dist/session-utils-store-*.mjs
    // loadSessionEntryWithMode, dist/session-accessor.sqlite-entry-*.mjs
    // resolveSessionStorePathForScope), so it opens that store only after
    // the reload, as a fresh gateway opens its seeded store only after start.
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
    // Whole 2026.4.26 gate on reused gateways (docs/performance.md, reuse3
    // round): inter-session-send and inter-session-spawn-settle with
    // builtin:window got `thinkLevel` "adaptive" where a fresh gateway gives
    // "off" (the `agent` RPC path resolves it from gateway-lifetime state);
    // equal again alone on a fresh gateway.
    if release_4x(release) && plan.steps.iter().any(|s| matches!(s, PlanStep::InterSession { .. })) {
        return Some("2026.4.x inter-session sends (the agent RPC's think level outlives a row)");
    }
    None
}

/// A 2026.1–2026.4 release: `plugins` changes restart its gateway, and
/// host-runner.mjs configures it the 4.x way (`RELEASE_4X` there).
pub fn release_4x(release: &str) -> bool {
    release.starts_with("2026.") && release.split('.').nth(1).and_then(|m| m.parse::<u32>().ok()).is_some_and(|m| m <= 4)
}

/// The part of a row's gateway config that is not the row's own (what
/// host-runner.mjs `config()` builds from the plan, less what `rowNeutral`
/// blanks: trace, engine cwd, workspace, mock address, model limits, provider
/// timeout, session store, and the seed, which is no config): rows with the
/// same key may hot-reload into each other's gateway. Engine and release
/// are the runner's key (`run_plan`), not part of this one.
pub fn group_key(plan: &Plan, setup: &crate::scenario::model::Setup) -> String {
    // Sorted (a BTreeMap): removing a key may reorder serde_json's map.
    let mut host: std::collections::BTreeMap<String, serde_json::Value> = match serde_json::to_value(&plan.setup) {
        Ok(serde_json::Value::Object(o)) => o.into_iter().collect(),
        _ => Default::default(),
    };
    host.remove("seed");
    if let Some(d) = host.get_mut("agentDefaults").and_then(serde_json::Value::as_object_mut) {
        // Becomes models[].contextTokens on 2026.9.x (a model limit, blanked).
        let mut sorted: std::collections::BTreeMap<String, serde_json::Value> = std::mem::take(d).into_iter().collect();
        sorted.remove("contextTokens");
        *d = sorted.into_iter().collect();
    }
    let switches: Vec<_> = plan.model_switches.iter().map(|m| (&m.provider, &m.api, &m.model)).collect();
    serde_json::json!([setup.provider, setup.api, setup.model, setup.engine_config, host, plan.tool_results, plan.spawns.runner_config(), switches]).to_string()
}

/// `scenario`'s [`group_key`] on `version` when its row may share a gateway.
pub fn shareable_group(scenario: &crate::scenario::model::Scenario, version: &super::HostVersion) -> Option<String> {
    let plan = super::drive_plan(scenario, version).ok()?;
    eligible(&plan, &version.0).is_none().then(|| group_key(&plan, &scenario.setup))
}

/// The order to run `keys` in (indices into it): rows that get a gateway
/// of their own (`None`) first, in their order, then the shareable rows
/// grouped by key, each group at the place of its first row and in its
/// rows' order. Stable, so a run without shareable rows keeps its order.
pub fn group_order(keys: &[Option<String>]) -> Vec<usize> {
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some(k) = k {
            first.entry(k.as_str()).or_insert(i);
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| match &keys[i] {
        None => (0, i, i),
        Some(k) => (1, first[k.as_str()], i),
    });
    order
}

struct Served {
    /// The [`group_key`] of the last row it ran (its gateway's config).
    group: String,
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
/// An idle runner whose gateway has the row's `group` is taken first.
pub async fn run_plan(key: &str, group: &str, node: &Path, bridge: &Path, plan_path: &Path) -> Result<bool, String> {
    let taken = {
        let mut idle = IDLE.lock().unwrap();
        let same = idle.iter().position(|s| s.key == key && s.group == group);
        same.or_else(|| idle.iter().position(|s| s.key == key)).and_then(|i| idle.remove(i))
    };
    let mut s = match taken {
        Some(s) => s,
        None => spawn(key, node, bridge, plan_path)?,
    };
    s.group = group.to_string();
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
    Ok(Served { group: String::new(), key: key.to_string(), child, stdin, out, dir })
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

    /// Rows share a gateway unless their set-up or steps need one of their own.
    #[test]
    fn which_rows_may_share_a_gateway() {
        let plain = plan_of("new-session-no-bootstrap");
        assert_eq!(eligible(&plain, "2026.9.6"), None);
        assert_eq!(eligible(&plain, "2026.4.26"), None);
        // Seeded rows share (the seed goes into the row's own store).
        assert_eq!(eligible(&plan_of("existing-empty-session"), "2026.9.6"), None);
        assert_eq!(eligible(&plan_of("existing-empty-session"), "2026.4.26"), None);
        assert_eq!(eligible(&plan_of("inter-session-send"), "2026.9.6"), None);
        assert!(eligible(&plan_of("inter-session-send"), "2026.4.26").is_some_and(|why| why.contains("inter-session")));
        assert!(eligible(&plan_of("steer-user-text"), "2026.9.6").is_some_and(|why| why.contains("holds")));
        assert!(eligible(&plan_of("heartbeat-reply"), "2026.9.6").is_some_and(|why| why.contains("heartbeat")));
    }

    /// Rows of one gateway config run next to each other; rows of a gateway
    /// of their own first; order kept within each.
    #[test]
    fn rows_grouped_by_gateway_config() {
        let k = |s: &str| Some(s.to_string());
        assert_eq!(group_order(&[k("a"), None, k("b"), k("a"), None, k("b"), k("c"), k("a")]), vec![1, 4, 0, 3, 7, 2, 5, 6]);
        assert_eq!(group_order(&[None, None]), vec![0, 1]);
        assert_eq!(group_order(&[]), Vec::<usize>::new());
    }

    /// The key leaves out what a row brings of its own (its seed, its model
    /// limits) and keeps what needs another gateway (tools, subagents).
    #[test]
    fn group_key_is_the_shared_config() {
        let setup_of = |id: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(format!("{id}.yaml"));
            let src = std::fs::read_to_string(&path).unwrap();
            crate::scenario::load::parse(&path, &src).expect("scenario parses").scenario.setup
        };
        let key = |id: &str| group_key(&plan_of(id), &setup_of(id));
        assert_eq!(key("existing-empty-session"), key("new-session-no-bootstrap"), "a seed is no config");
        assert_ne!(key("spawn-isolated"), key("new-session-no-bootstrap"), "subagents set tools.toolSearch");
    }

    /// Off unless asked for.
    #[test]
    fn reuse_is_opt_in() {
        assert!(!enabled());
    }
}
