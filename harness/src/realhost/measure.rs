//! Wall-clock cost of getting a real OpenClaw onto a machine, for the timing
//! section of `docs/fidelity.md` (never part of a verdict). The cached
//! install (`install::ensure_openclaw`) says nothing after its first use, so
//! this installs `openclaw@<version>` afresh into scratch directories the way
//! `install` does (`--ignore-scripts --omit=optional`): once with an empty npm
//! cache (cold: everything downloaded) and once more with the cache that
//! install filled (warm: the user's second machine-local install).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::install::InstallError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InstallTiming {
    /// `npm install` with an empty npm cache (ms).
    pub cold_npm_cache_ms: u64,
    /// The same install into a fresh directory with the npm cache warm (ms).
    pub warm_npm_cache_ms: u64,
}

fn install_into(dir: &Path, cache: &Path, spec: &str) -> Result<u64, InstallError> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("package.json"), "{\"name\":\"clawspec-measure\",\"private\":true}\n")?;
    let started = Instant::now();
    let out = Command::new("npm")
        .args(["install", spec, "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error", "--engine-strict=false", "--prefer-offline"])
        .arg("--cache")
        .arg(cache)
        .current_dir(dir)
        .output()
        .map_err(|_| InstallError::NoNpm(spec.to_string()))?;
    if !out.status.success() {
        return Err(InstallError::Npm { spec: spec.into(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() });
    }
    Ok(started.elapsed().as_millis() as u64)
}

/// Install `openclaw@version` cold, then warm, in a scratch directory that is
/// removed afterwards (about 1.5 GB while it runs).
pub fn npm_install(version: &str) -> Result<InstallTiming, InstallError> {
    let scratch = std::env::temp_dir().join(format!("clawspec-install-timing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let spec = format!("openclaw@{version}");
    let cache = scratch.join("npm-cache");
    let r = (|| {
        let cold = install_into(&scratch.join("cold"), &cache, &spec)?;
        let warm = install_into(&scratch.join("warm"), &cache, &spec)?;
        Ok(InstallTiming { cold_npm_cache_ms: cold, warm_npm_cache_ms: warm })
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    r
}
