//! Whether the OpenClaw release a profile simulates is inside the versions a
//! plugin declares (`peerDependencies.openclaw`, `openclaw.compat.*`, read
//! by the Node adapter into `implementation.plugin.peer`). A plugin tested
//! outside its declared range may fail for reasons its authors never
//! promised to handle, so the report says so next to the verdict.
//!
//! Ranges are npm's (node-semver); they are translated to the `semver`
//! crate's syntax (comparators joined by `,`, a bare version meaning `=`,
//! `a - b` meaning `>=a, <=b`, `||` alternatives evaluated one by one).

use semver::{Version, VersionReq};
use serde_json::Value;

/// The release a profile simulates (`openclaw-2026.9.6+marker-drift` →
/// 2026.9.6); `None` for proposals (`rfc-82137`).
pub fn release_of(profile: &str) -> Option<Version> {
    let base = profile.split('+').next()?;
    Version::parse(base.strip_prefix("openclaw-")?).ok()
}

/// Does `version` satisfy the npm range `range`? `Err` names a range that
/// cannot be read.
pub fn satisfies(range: &str, version: &Version) -> Result<bool, String> {
    for alt in range.split("||") {
        let req = translate(alt.trim()).and_then(|r| VersionReq::parse(&r).map_err(|e| e.to_string())).map_err(|e| format!("range {range:?}: {e}"))?;
        if req.matches(version) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn translate(alt: &str) -> Result<String, String> {
    if alt.is_empty() || alt == "*" || alt == "x" {
        return Ok("*".into());
    }
    if let Some((lo, hi)) = alt.split_once(" - ") {
        return Ok(format!(">={}, <={}", lo.trim(), hi.trim()));
    }
    let mut parts = Vec::new();
    let mut words = alt.split_whitespace().peekable();
    while let Some(w) = words.next() {
        // `>= 1.2.3` (operator and version apart) is valid npm.
        let w = if matches!(w, ">" | ">=" | "<" | "<=" | "=" | "^" | "~") { format!("{w}{}", words.next().ok_or("operator without a version")?) } else { w.to_string() };
        let bare = w.chars().next().is_some_and(|c| c.is_ascii_digit());
        let exact = bare && !w.contains(['x', 'X', '*']) && w.split('.').count() == 3;
        parts.push(if exact { format!("={w}") } else { w.trim_start_matches('v').to_string() });
    }
    Ok(parts.join(", "))
}

/// The warning for `profile`, when the plugin's declared versions (`peer`:
/// field → npm range) exclude its release; unreadable ranges are named too.
pub fn warning(peer: &Value, profile: &str) -> Option<String> {
    let version = release_of(profile)?;
    let fields = peer.as_object()?;
    let mut out = Vec::new();
    for (field, range) in fields {
        let Some(range) = range.as_str() else { continue };
        match satisfies(range, &version) {
            Ok(true) => {}
            Ok(false) => out.push(format!("{field} {range}")),
            Err(e) => out.push(format!("{field}: cannot read {e}")),
        }
    }
    (!out.is_empty()).then(|| format!("OpenClaw {version} is outside the versions the plugin declares ({}): failures may be expected there", out.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    // lossless-claw 0.15.3 and 1.0.0-beta.4 (docs/real-engines.md)
    #[case(">=2026.5.28 <2026.7.2-0", "2026.4.26", false)]
    #[case(">=2026.5.28 <2026.7.2-0", "2026.9.6", false)]
    #[case(">=2026.5.28 <2026.7.2-0", "2026.6.1", true)]
    #[case(">=2026.7.2-beta.2", "2026.9.6", true)]
    #[case(">=2026.7.2-beta.2", "2026.4.26", false)]
    #[case("^2026.4.0", "2026.9.6", true)]
    #[case("~2026.4.0", "2026.9.6", false)]
    #[case("2026.4.26", "2026.4.26", true)]
    #[case("2026.4.26", "2026.9.6", false)]
    #[case("2026.4.x || >= 2026.9.0", "2026.9.6", true)]
    #[case("2026.4.x || >= 2026.9.0", "2026.6.0", false)]
    #[case("2026.1.0 - 2026.5.0", "2026.4.26", true)]
    #[case("*", "2026.9.6", true)]
    fn npm_ranges(#[case] range: &str, #[case] version: &str, #[case] inside: bool) {
        assert_eq!(satisfies(range, &Version::parse(version).unwrap()), Ok(inside), "{range} ∋ {version}");
    }

    #[test]
    fn warns_for_a_profile_outside_and_names_the_field() {
        let peer = json!({"peerDependencies.openclaw": ">=2026.5.28 <2026.7.2-0", "openclaw.compat.minGatewayVersion": ">=2026.5.28"});
        let w = warning(&peer, "openclaw-2026.9.6").unwrap();
        assert!(w.contains("OpenClaw 2026.9.6") && w.contains("peerDependencies.openclaw >=2026.5.28 <2026.7.2-0") && !w.contains("minGateway"), "{w}");
        assert!(warning(&peer, "openclaw-2026.4.26+marker-drift").unwrap().contains("minGatewayVersion"));
        assert_eq!(warning(&json!({"peerDependencies.openclaw": ">=2026.7.2-beta.2"}), "openclaw-2026.9.6"), None);
        assert_eq!(warning(&peer, "rfc-82137"), None, "a proposal is no release");
        assert!(warning(&json!({"peerDependencies.openclaw": ">=banana"}), "openclaw-2026.9.6").unwrap().contains("cannot read"));
    }
}
