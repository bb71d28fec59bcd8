//! A plugin call that never answers in time: the timeout fault says what the
//! engine was doing (adapters/node/lib/watchdog.js), not just "did not
//! answer". Needs `node` (≥ 20.6).

use std::path::Path;
use std::process::Command;

#[test]
fn a_timed_out_plugin_call_reports_the_engines_javascript_stack() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::temp_dir().join(format!("clawspec-plugin-hang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(["certify", "--plugin"])
        .arg(root.join("adapters/node/test/plugins/hang/index.js"))
        // bootstrap runs synchronous code for 15 s; the call gives up after 6.
        .args(["--plugin-config", r#"{"hang":"spin","ms":15000}"#])
        .args(["--scenario", "existing-session-bootstrap", "--profile", "openclaw-2026.4.26", "--call-timeout-ms", "6000", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("engine did not answer bootstrap within 6000 ms"), "{stdout}");
    // The fault carries the adapter's report (clawspec passes two thirds of
    // the call timeout as --hang-report-ms), on the terminal and in the report.
    let json = std::fs::read_to_string(&report).unwrap();
    for text in [stdout.as_ref(), json.as_str()] {
        assert!(text.contains("bootstrap has not answered after"), "{text}");
        assert!(text.contains("the main thread has not turned its event loop"), "{text}");
        assert!(text.contains("at spinUntil (file://"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
