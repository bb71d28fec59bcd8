//! Row scheduling shared by `twin --fidelity` (table and gate) and
//! `certify --host`: a release's first gateway start on a machine does the
//! one-time work later starts reuse (2026.4.x: staging plugin dependencies
//! under the host's `.openclaw-runtime-deps.lock`, dist/bundled-runtime-root-*.js
//! `withBundledRuntimeDepsFilesystemLock`; the bundled-plugin subset,
//! adapters/openclaw-bridge/lib/bundled-subset.js; the persisted plugin
//! registry, host-runner.mjs `persistPluginRegistry`; both releases: the
//! first clean exit writes the module compile cache, lib/gateway.js).
//! Concurrent first starts would each redo it, or wait on the host's lock
//! with their event loop blocked; so the first row runs alone and the rest
//! `--jobs` at once (docs/performance.md "Both releases in CI").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::watch;

/// A gate that lets exactly one row through at once, and every other row
/// only after that first one has finished (or was cancelled: its guard
/// opens the gate when dropped, so a failed or aborted first row never
/// blocks the rest).
#[derive(Clone)]
pub struct WarmFirst {
    claimed: Arc<AtomicBool>,
    open: Arc<watch::Sender<bool>>,
}

/// Held by the first row while it runs; opens the gate when dropped.
pub struct FirstRow(Arc<watch::Sender<bool>>);

impl Drop for FirstRow {
    fn drop(&mut self) {
        self.0.send_replace(true);
    }
}

impl Default for WarmFirst {
    fn default() -> Self {
        WarmFirst { claimed: Arc::new(AtomicBool::new(false)), open: Arc::new(watch::channel(false).0) }
    }
}

impl WarmFirst {
    /// Wait for this row's turn: the first caller goes at once and gets the
    /// guard; later callers return once the first row's guard is dropped.
    pub async fn enter(&self) -> Option<FirstRow> {
        if !self.claimed.swap(true, Ordering::SeqCst) {
            return Some(FirstRow(self.open.clone()));
        }
        let mut rx = self.open.subscribe();
        // The sender lives in `self`: the channel cannot close while we wait.
        let _ = rx.wait_for(|open| *open).await;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// Under any outer parallelism, nothing runs beside the first row, and
    /// after it rows overlap as the caller allows.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_first_row_runs_alone_then_the_rest_together() {
        let gate = WarmFirst::default();
        let running = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let tasks: Vec<_> = (0..6)
            .map(|i| {
                let (gate, running, log) = (gate.clone(), running.clone(), log.clone());
                tokio::spawn(async move {
                    let first = gate.enter().await;
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    let mut peak = now;
                    for _ in 0..20 {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        peak = peak.max(running.load(Ordering::SeqCst));
                    }
                    running.fetch_sub(1, Ordering::SeqCst);
                    log.lock().unwrap().push((i, first.is_some(), peak));
                    drop(first);
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        let log = log.lock().unwrap().clone();
        assert_eq!(log.iter().filter(|(_, first, _)| *first).count(), 1, "exactly one first row: {log:?}");
        assert!(log[0].1 && log[0].2 == 1, "the first row finished first and ran alone: {log:?}");
        assert!(log[1..].iter().any(|(_, _, peak)| *peak > 1), "later rows overlapped: {log:?}");
    }

    /// A first row that is cancelled (its task aborted) still lets the others run.
    #[tokio::test]
    async fn a_cancelled_first_row_opens_the_gate() {
        let gate = WarmFirst::default();
        let g = gate.clone();
        let first = tokio::spawn(async move {
            let _guard = g.enter().await;
            std::future::pending::<()>().await;
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        first.abort();
        let _ = first.await;
        tokio::time::timeout(Duration::from_secs(5), gate.enter()).await.expect("the gate opened");
    }
}
