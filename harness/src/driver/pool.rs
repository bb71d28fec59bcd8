//! Warm engine processes (docs/protocol.md, "Warm reuse"). Starting an
//! engine can cost more than the run it serves (a Node adapter loads the
//! plugin and the OpenClaw SDK), so an engine that declares `warm: true` in
//! its `initialize` result is parked here after a clean run instead of being
//! shut down, and the next run with the same engine, profile and state root
//! takes it back: `reset {env}` (forget every earlier run, adopt this run's
//! variables), then a fresh `initialize`. The first process of an engine only
//! tells whether it can be reused: it runs confined to its own state dir and
//! is shut down as usual.
//!
//! Confinement is per process (Landlock cannot be widened or moved after
//! exec), so a warm process is confined to the *state root* — the parent of
//! every run's state dir of one command — instead of one run's dir. It can
//! still write nowhere else; that it could write into another run's dir of
//! the same command is the documented price. A process is never reused after
//! a fault, a timeout, or leftover descendants, and serves at most
//! [`MAX_RUNS`] runs (bounded memory); everything parked is shut down by
//! [`Pool::drain`] (and killed when the pool is dropped, e.g. on a signal).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clawspec_contract::protocol::InitializeParams;

use super::{EngineSpec, Sandbox};

/// Runs one warm process serves before it is replaced: module graphs of
/// earlier runs cannot always be collected (a plugin's timers, native
/// handles), so memory stays bounded by recycling.
pub const MAX_RUNS: u32 = 24;

/// Variables that differ per run and are handed over by `reset`, not part of
/// what makes two runs share a process.
pub const PER_RUN_ENV: &[&str] = &["CLAWSPEC_STATE_DIR", "CLAWSPEC_OPENCLAW_STATE_DIR"];

/// Parked engines, keyed by [`key`].
#[derive(Debug, Default)]
pub struct Pool {
    idle: Mutex<BTreeMap<String, Vec<super::Engine>>>,
    /// Whether the engine of a key declared `warm: true` (learnt from its
    /// first process).
    known: Mutex<BTreeMap<String, bool>>,
}

impl std::fmt::Debug for super::Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("pid", &self.pid()).finish()
    }
}

/// What makes a process reusable for a run: the same command, environment
/// (per-run variables aside), sandbox, state root and profile (an adapter
/// chooses the profile's SDK once per process).
pub fn key(spec: &EngineSpec, sandbox: &Sandbox, root: &Path, init: &InitializeParams) -> String {
    let env: Vec<(&String, &String)> = spec.env.iter().filter(|(k, _)| !PER_RUN_ENV.contains(&k.as_str())).collect();
    let profile = init.profile.split('+').next().unwrap_or(&init.profile);
    format!("{:?}|{:?}|{:?}|{:?}|{}|{:?}|{}|{}", spec.program, spec.args, env, spec.cwd, sandbox.enabled, sandbox.pass_env, root.display(), profile)
}

/// The directory a warm process may write in: the parent of the run's state dir.
pub fn root_of(state_dir: &Path) -> Option<PathBuf> {
    state_dir.parent().map(Path::to_path_buf)
}

impl Pool {
    pub fn new() -> Pool {
        Pool::default()
    }

    pub(super) fn take(&self, key: &str) -> Option<super::Engine> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).get_mut(key).and_then(Vec::pop)
    }

    pub(super) fn put(&self, key: String, e: super::Engine) {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).entry(key).or_default().push(e);
    }

    pub(super) fn capability(&self, key: &str) -> Option<bool> {
        self.known.lock().unwrap_or_else(|p| p.into_inner()).get(key).copied()
    }

    pub(super) fn learn(&self, key: String, warm: bool) {
        self.known.lock().unwrap_or_else(|p| p.into_inner()).insert(key, warm);
    }

    /// How many processes are parked.
    pub fn idle_count(&self) -> usize {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).values().map(Vec::len).sum()
    }

    /// Kill every parked process now (an interrupted command: no grace).
    pub fn abandon(&self) {
        // Dropping an engine kills its process group (`Engine`'s Drop).
        drop(std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner())));
    }

    /// Shut every parked process down (`shutdown`, exit, no descendants left),
    /// returning the faults of those that did not end cleanly.
    pub async fn drain(&self) -> Vec<super::EngineFault> {
        let all: Vec<super::Engine> = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner())).into_values().flatten().collect();
        let mut faults = Vec::new();
        for e in all {
            if let Some(f) = e.shutdown_process().await.fault {
                faults.push(f);
            }
        }
        faults
    }
}
