//! `--sdk`: which `openclaw/plugin-sdk/*` a plugin sees under each profile
//! (issue 15). One `openclaw` package for every profile lets a plugin call
//! 2026.9.6-only functions under the 2026.4.26 profile; with the real
//! packages each profile gets its own release's surface.

use std::path::PathBuf;

use crate::realhost::install;
use crate::runtime::profile::Profile;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SdkMode {
    /// The real `openclaw@<version>` of each profile when it is already in the
    /// cache (`CLAWSPEC_CACHE`, ~/.cache/clawspec), the adapter's shims
    /// otherwise; never downloads.
    #[default]
    Auto,
    /// The real `openclaw@<version>` of each profile, fetched from npm into the
    /// cache on first use (~600 MB each).
    Real,
    /// The adapter's shims (or the plugin's own `openclaw`) under every profile.
    Shim,
}

/// The cached package dir of `version`, if installed.
fn cached(version: &str) -> Option<PathBuf> {
    let pkg = install::cache_root().join(format!("openclaw@{version}")).join("node_modules/openclaw");
    pkg.join("package.json").exists().then_some(pkg)
}

/// Profile id → the `openclaw` package serving its SDK (`None`: shims).
/// `--sdk real` installs what is missing; an install failure is an error,
/// never a silent fall back to shims.
pub fn plan(mode: SdkMode, profiles: &[Profile]) -> Result<Vec<(String, Option<PathBuf>)>, String> {
    let mut out: Vec<(String, Option<PathBuf>)> = Vec::new();
    for p in profiles {
        let base = p.id.split('+').next().unwrap_or(&p.id).to_string();
        if out.iter().any(|(id, _)| id == &base) {
            continue;
        }
        let dir = match mode {
            SdkMode::Shim => None,
            SdkMode::Auto => cached(p.openclaw_version),
            SdkMode::Real => Some(install::ensure_openclaw(p.openclaw_version).map_err(|e| format!("--sdk real: {e}"))?),
        };
        out.push((base, dir));
    }
    Ok(out)
}

/// Adapter arguments: `--sdk PROFILE=DIR` for each profile with a real package.
pub fn adapter_args(plan: &[(String, Option<PathBuf>)]) -> Vec<String> {
    plan.iter().filter_map(|(id, dir)| Some(["--sdk".to_string(), format!("{id}={}", dir.as_ref()?.display())])).flatten().collect()
}

/// Lines for the certify header.
pub fn describe(plan: &[(String, Option<PathBuf>)]) -> Vec<String> {
    plan.iter()
        .map(|(id, dir)| match dir {
            Some(d) => format!("plugin SDK under {id}: {} ({})", package_name(d), d.display()),
            None => format!("plugin SDK under {id}: clawspec shims (or the plugin's own openclaw)"),
        })
        .collect()
}

fn package_name(dir: &std::path::Path) -> String {
    let v = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    format!("openclaw@{v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shim_mode_passes_no_package_and_drift_variants_share_their_base() {
        let profiles: Vec<Profile> = ["openclaw-2026.4.26", "openclaw-2026.4.26+marker-drift", "openclaw-2026.9.6"].iter().map(|id| Profile::by_id(id).unwrap()).collect();
        let plan = plan(SdkMode::Shim, &profiles).unwrap();
        assert_eq!(plan, vec![("openclaw-2026.4.26".to_string(), None), ("openclaw-2026.9.6".to_string(), None)]);
        assert!(adapter_args(&plan).is_empty());
    }

    #[test]
    fn real_packages_become_adapter_arguments() {
        let plan = vec![("openclaw-2026.9.6".to_string(), Some(PathBuf::from("/c/openclaw@2026.9.6/node_modules/openclaw"))), ("rfc-82137".to_string(), None)];
        assert_eq!(adapter_args(&plan), ["--sdk", "openclaw-2026.9.6=/c/openclaw@2026.9.6/node_modules/openclaw"]);
        assert_eq!(describe(&plan)[1], "plugin SDK under rfc-82137: clawspec shims (or the plugin's own openclaw)");
    }
}
