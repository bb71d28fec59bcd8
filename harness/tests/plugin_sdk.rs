//! `--sdk`: a plugin sees the `openclaw/plugin-sdk/*` of each profile's
//! release (issue 15). A function only the newer release exports works under
//! its profile and fails under the older one with a named error while the
//! run goes on; the report says which SDK each profile used. The stand-in
//! releases (adapters/node/test/sdk/) laid out as a clawspec cache make this
//! run everywhere; the real packages are used when they are cached.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn certify(cache: &Path, plugin: &str, extra: &[&str], report: &Path) -> (i32, String, serde_json::Value) {
    let entry = root().join("adapters/node/test/plugins").join(plugin);
    let mut args = vec!["certify", "--plugin", entry.to_str().unwrap(), "--scenario", "new-session-no-bootstrap", "--profile", "openclaw-2026.4.26", "--profile", "openclaw-2026.9.6", "--report", report.to_str().unwrap()];
    args.extend(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(&args).env("CLAWSPEC_CACHE", cache).current_dir(root()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let r = serde_json::from_str(&std::fs::read_to_string(report).unwrap_or_else(|_| panic!("no report; stderr:\n{stderr}"))).unwrap();
    (out.status.code().unwrap_or(-1), stderr, r)
}

fn sdk_of<'a>(r: &'a serde_json::Value, profile: &str) -> &'a str {
    r["profiles"].as_array().unwrap().iter().find(|p| p["profile"] == profile).unwrap()["sdk"].as_str().unwrap_or("")
}

/// Verdict details mentioning `needle`, per profile.
fn mentions(r: &serde_json::Value, profile: &str, needle: &str) -> bool {
    r["verdicts"].as_array().unwrap().iter().filter(|v| v["profile"] == profile).any(|v| v["details"].to_string().contains(needle))
}

/// The engine answered assemble under `profile` (so "no error" means something).
fn assembled(r: &serde_json::Value, profile: &str) -> bool {
    r["coverage"].as_array().unwrap().iter().any(|c| c["profile"] == profile && c["methods"]["assemble"].as_u64().unwrap_or(0) > 0)
}

fn tmp(name: &str) -> PathBuf {
    support::tmp(&format!("sdk-{name}"))
}

#[test]
fn each_profile_gets_its_release_and_the_report_says_which() {
    let d = tmp("standin");
    let cache = d.join("cache");
    for (version, dir) in [("2026.4.26", "openclaw-old"), ("2026.9.6", "openclaw-new")] {
        let nm = cache.join(format!("openclaw@{version}/node_modules"));
        std::fs::create_dir_all(&nm).unwrap();
        std::os::unix::fs::symlink(root().join("adapters/node/test/sdk").join(dir).canonicalize().unwrap(), nm.join("openclaw")).unwrap();
    }
    let (code, stderr, r) = certify(&cache, "sdk-user/index.js", &[], &d.join("auto.json"));
    assert_ne!(code, 2, "{stderr}");
    assert!(stderr.contains("plugin SDK under openclaw-2026.4.26: openclaw@2026.4.26"), "{stderr}");
    assert_eq!(sdk_of(&r, "openclaw-2026.4.26"), "openclaw@2026.4.26");
    assert_eq!(sdk_of(&r, "openclaw-2026.9.6"), "openclaw@2026.9.6");
    // The newer-only function fails under 4.26 only, as an engine error the run survives.
    assert!(mentions(&r, "openclaw-2026.4.26", "core.newOnly is not a function"), "{r:#}");
    assert!(!mentions(&r, "openclaw-2026.9.6", "is not a function"), "{r:#}");
    assert!(assembled(&r, "openclaw-2026.9.6"), "{r:#}");
    assert!(r["runs"].as_array().unwrap().iter().all(|run| run["outcome"] == "completed"), "{r:#}");

    // --sdk shim: never the real package, whatever the cache holds.
    let (_, _, r) = certify(&cache, "sdk-user/index.js", &["--sdk", "shim"], &d.join("shim.json"));
    assert_eq!(sdk_of(&r, "openclaw-2026.4.26"), "clawspec shims");
    assert_eq!(sdk_of(&r, "openclaw-2026.9.6"), "clawspec shims");
    assert!(mentions(&r, "openclaw-2026.9.6", "core.release is not a function"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn real_releases_buildjsonpluginconfigschema_is_9_6_only() {
    let cache = clawspec::realhost::install::cache_root();
    let have = ["2026.4.26", "2026.9.6"].iter().all(|v| cache.join(format!("openclaw@{v}/node_modules/openclaw/package.json")).exists());
    if !have {
        // Tests never download 600 MB; `clawspec certify --sdk real` (or `cargo xtask real-engines`) fills the cache.
        eprintln!("skipped: openclaw@2026.4.26 and @2026.9.6 are not both in {}", cache.display());
        return;
    }
    let d = tmp("real");
    let (_, stderr, r) = certify(&cache, "sdk-real/index.js", &["--sdk", "real"], &d.join("real.json"));
    assert_eq!(sdk_of(&r, "openclaw-2026.4.26"), "openclaw@2026.4.26", "{stderr}");
    assert_eq!(sdk_of(&r, "openclaw-2026.9.6"), "openclaw@2026.9.6");
    assert!(mentions(&r, "openclaw-2026.4.26", "core.buildJsonPluginConfigSchema is not a function"), "{r:#}");
    assert!(!mentions(&r, "openclaw-2026.9.6", "is not a function"), "{r:#}");
    assert!(assembled(&r, "openclaw-2026.9.6"), "{r:#}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_profile_outside_the_plugins_declared_range_is_warned_on_the_terminal_and_in_the_report() {
    let d = tmp("peer");
    let cache = d.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let (code, stderr, r) = certify(&cache, "peer-range/index.js", &["--profile", "rfc-82137", "--markdown", d.join("r.md").to_str().unwrap()], &d.join("r.json"));
    assert_ne!(code, 2, "{stderr}");
    let peer = |p: &str| r["profiles"].as_array().unwrap().iter().find(|x| x["profile"] == p).unwrap()["peerRange"].as_str().map(str::to_string);
    let w = peer("openclaw-2026.9.6").expect("9.6 is above <2026.7.2-0");
    assert!(w.contains("peerDependencies.openclaw >=2026.5.28 <2026.7.2-0"), "{w}");
    assert!(!w.contains("minGatewayVersion"), "9.6 is above the minimum: {w}");
    assert!(peer("openclaw-2026.4.26").unwrap().contains("openclaw.compat.minGatewayVersion >=2026.5.28"));
    assert_eq!(peer("rfc-82137"), None, "a proposal is no release");
    assert!(std::fs::read_to_string(d.join("r.md")).unwrap().contains("Outside the declared range"));
    // The terminal summary (stdout) says it too.
    let entry = root().join("adapters/node/test/plugins/peer-range/index.js");
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(["certify", "--plugin", entry.to_str().unwrap(), "--scenario", "new-session-no-bootstrap", "--profile", "openclaw-2026.9.6"]).env("CLAWSPEC_CACHE", &cache).current_dir(root()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("warning: openclaw-2026.9.6: OpenClaw 2026.9.6 is outside the versions the plugin declares"), "{text}");
    // In range: no warning (the same engine without a declared range).
    let (_, _, r) = certify(&cache, "legacy/index.js", &[], &d.join("in.json"));
    assert!(r["profiles"].as_array().unwrap().iter().all(|p| p.get("peerRange").is_none()), "{r:#}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_plugin_that_cannot_start_under_one_release_is_still_certified_under_the_others() {
    // openclaw-universal-capture 0.7.0's factory reads `ctx.agentDir`;
    // 2026.4.26 calls the factory with no context (lib/loader.js
    // factoryArgs). The preflight used to try the first profile only and
    // stopped the whole certify there (exit 2) with nothing about 9.6.
    let d = tmp("factory");
    let cache = d.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let (code, stderr, r) = certify(&cache, "factory-ctx/index.js", &[], &d.join("r.json"));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("warning: the engine cannot start under openclaw-2026.4.26 (bad-handshake)") && stderr.contains("calls the engine factory with no context"), "{stderr}");
    assert!(!stderr.contains("cannot start under openclaw-2026.9.6"), "{stderr}");
    let runs = r["runs"].as_array().unwrap();
    assert!(runs.iter().any(|run| run["profile"] == "openclaw-2026.4.26" && run["outcome"] == "engine-fault:bad-handshake"), "{r:#}");
    assert!(runs.iter().any(|run| run["profile"] == "openclaw-2026.9.6" && run["outcome"] == "completed"), "{r:#}");
    assert!(assembled(&r, "openclaw-2026.9.6"), "{r:#}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn reproduce_lines_carry_the_options_that_change_a_run_and_run_as_pasted() {
    // issue 15: "`reproduce:` lines carry `--node`, `--scenarios`,
    // `--plugin-config` so they run as pasted".
    let d = tmp("repro");
    let cache = d.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let node = String::from_utf8(Command::new("node").args(["-p", "process.execPath"]).output().unwrap().stdout).unwrap().trim().to_string();
    let scenarios = root().join("scenarios").canonicalize().unwrap();
    let extra = ["--node", node.as_str(), "--plugin-config", r#"{"mode": "it's"}"#, "--scenarios", scenarios.to_str().unwrap(), "--call-timeout-ms", "60000"];
    let (code, stderr, r) = certify(&cache, "factory-ctx/index.js", &extra, &d.join("r.json"));
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(r["runArgs"][1], node.as_str(), "{:#}", r["runArgs"]);
    // "The report records node version, plugin path and digest, plugin
    // config, resolved SDK version, adapter version."
    let plugin = &r["plugin"];
    let version = String::from_utf8(Command::new(&node).arg("--version").output().unwrap().stdout).unwrap();
    assert_eq!(plugin["nodeVersion"], version.trim(), "{plugin:#}");
    assert!(plugin["entrySha256"].as_str().unwrap().starts_with("sha256:") && plugin["entry"].as_str().unwrap().ends_with("factory-ctx/index.js"), "{plugin:#}");
    assert!(plugin["adapter"].as_str().unwrap().starts_with("clawspec-node-adapter@"), "{plugin:#}");
    let entry = root().join("adapters/node/test/plugins/factory-ctx/index.js");
    let mut args: Vec<&str> = vec!["certify", "--plugin", entry.to_str().unwrap(), "--scenario", "new-session-no-bootstrap", "--profile", "openclaw-2026.4.26", "--profile", "openclaw-2026.9.6"];
    args.extend(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(&args).env("CLAWSPEC_CACHE", &cache).current_dir(root()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("plugin: ") && l.contains("sha256:") && l.contains(version.trim())), "{text}");
    let line = text.lines().filter(|l| l.contains("openclaw-2026.4.26")).find_map(|l| l.trim().strip_prefix("reproduce: ")).unwrap_or_else(|| panic!("no reproduce line:\n{text}"));
    let words = shell_words::split(line).unwrap();
    for (flag, value) in [("--node", node.as_str()), ("--sdk", "auto"), ("--plugin-config", r#"{"mode": "it's"}"#), ("--scenarios", scenarios.to_str().unwrap()), ("--call-timeout-ms", "60000")] {
        let at = words.iter().position(|w| w == flag).unwrap_or_else(|| panic!("{flag} missing from {line}"));
        assert_eq!(words[at + 1], value, "{line}");
    }
    // As pasted: the same run, the same engine fault.
    let again = Command::new(env!("CARGO_BIN_EXE_clawspec")).args(&words[1..]).env("CLAWSPEC_CACHE", &cache).current_dir(root()).output().unwrap();
    let both = format!("{}{}", String::from_utf8_lossy(&again.stdout), String::from_utf8_lossy(&again.stderr));
    assert!(both.contains("calls the engine factory with no context"), "{both}");
    let _ = std::fs::remove_dir_all(&d);
}
