//! Smoke test of `clawspec mutate` through the real binary: three operators
//! on two scenarios, each mutant a real proxy process around the window
//! engine. The full catalogue over the library is `cargo xtask mutation`.

use std::process::Command;

use serde_json::Value;

fn mutate(out: &std::path::Path) -> (std::process::Output, Value, String) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let json = out.join("m.json");
    let md = out.join("m.md");
    let o = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .current_dir(root)
        .args(["mutate", "--engine", "builtin:window", "--scenario", "durable-commit-*", "--profile", "openclaw-2026.9.6", "-j", "2", "--no-timing"])
        .args(["--operator", "commit-never-duplicate", "--operator", "asm-negative-estimate", "--operator", "rollback-throws"])
        .args(["--json", json.to_str().unwrap(), "--markdown", md.to_str().unwrap()])
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&json).map(|t| serde_json::from_str(&t).unwrap()).unwrap_or(Value::Null);
    (o, report, std::fs::read_to_string(md).unwrap_or_default())
}

#[test]
fn mutate_reports_killed_and_surviving_mutants_deterministically() {
    let dir = std::env::temp_dir().join(format!("clawspec-mutate-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (o, r, md) = mutate(&dir);
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let status = |id: &str| r["mutants"].as_array().unwrap().iter().find(|m| m["id"] == id).map(|m| (m["status"].clone(), m["killedBy"].clone(), m["exercised"].clone()));
    assert_eq!(status("commit-never-duplicate").unwrap().0, "killed");
    assert_eq!(status("commit-never-duplicate").unwrap().1, serde_json::json!(["CE-TURN-005"]));
    // No selected scenario spawns a subagent: a blind spot, reported as such.
    assert_eq!(status("rollback-throws").unwrap(), ("survived".into(), serde_json::json!([]), false.into()));
    assert_eq!(r["survivors"], serde_json::json!(["rollback-throws"]));
    assert_eq!(status("asm-negative-estimate").unwrap().1, serde_json::json!(["CE-ASM-008"]));
    assert_eq!(r["score"]["percent"], 66.7);
    assert!(md.contains("**Score: 66.7%**") && md.contains("`rollback-throws` — the rollback handle throws"), "{md}");
    // Deterministic: a second run writes the same bytes.
    let dir2 = dir.join("again");
    std::fs::create_dir_all(&dir2).unwrap();
    let (_, r2, md2) = mutate(&dir2);
    assert_eq!(r, r2);
    assert_eq!(md, md2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_uncertified_engine_is_refused() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let o = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .current_dir(root)
        .args(["mutate", "--engine", "builtin:window:commit-never-duplicate", "--scenario", "durable-commit-replay", "--profile", "openclaw-2026.9.6", "--operator", "asm-drop-last"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the unmutated engine is not certified"), "{}", String::from_utf8_lossy(&o.stderr));
}
