//! The real `clawspec` binary, run from the repository root (or a given folder).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn clawspec_in(dir: &Path, args: &[&str]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(args).current_dir(dir).output().expect("runs");
    Out { code: out.status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

pub fn clawspec(args: &[&str]) -> Out {
    clawspec_in(&root(), args)
}

/// A fresh, empty temporary folder for one test.
pub fn tmp(name: &str) -> PathBuf {
    remove_dead_test_dirs();
    let d = std::env::temp_dir().join(format!("clawspec-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A folder parallel tests may share (never emptied): named like [`tmp`]'s,
/// so it is removed once this test process has exited.
pub fn shared_tmp(name: &str) -> PathBuf {
    remove_dead_test_dirs();
    std::env::temp_dir().join(format!("clawspec-test-{}-{name}", std::process::id()))
}

/// Test binaries have no teardown hook, so the folders of test processes
/// that have exited are removed by the next one (once per process).
fn remove_dead_test_dirs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) else { return };
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix("clawspec-test-").and_then(|r| r.split('-').next()).and_then(|p| p.parse::<u32>().ok()) else { continue };
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
}
