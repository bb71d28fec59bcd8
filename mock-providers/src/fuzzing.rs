//! The checks behind the fuzz targets and property tests (shared with the
//! stable corpus replay), a shrinker for failing transcripts, and a writer of
//! ready-to-commit fixture files.

use std::path::{Path, PathBuf};

use clawspec_contract::*;
use serde_json::json;

use crate::gen::transcript;
use crate::provider::ALL;
use crate::repair::{placeholders, repair, repair_to_fixed_point, Policy};
use crate::validate::{validate, ValidatorConfig};
use crate::wire::{into_wire, to_wire, RequestOptions};
use crate::Provider;

/// The prompt appended for a model call (OpenClaw sends the current user
/// prompt after the replayed history).
pub const PROMPT: &str = "continue";

/// The messages of one model call: history plus the current prompt.
pub fn model_call(history: &[AgentMessage]) -> Vec<AgentMessage> {
    let mut ms = history.to_vec();
    ms.push(AgentMessage::user_text(PROMPT));
    ms
}

pub fn request_options(p: Provider) -> RequestOptions {
    RequestOptions { model: crate::repair::default_model(p).into(), system: Some("You are a test agent.".into()), thinking: false }
}

/// Repair → transport → validate, as the host does for one model call.
pub fn accepted_after_repair(p: Provider, history: &[AgentMessage], cfg: &ValidatorConfig) -> Result<Vec<AgentMessage>, String> {
    let (policy, options) = fixed_inputs(p);
    let fixed = repair(policy, model_call(history));
    validate(p, &to_wire(p, &fixed, options), cfg).map_err(|r| rejected(p, &r.message))?;
    Ok(fixed)
}

fn rejected(p: Provider, message: &str) -> String {
    format!("{p} rejects the repaired transcript: {message}")
}

fn user_texts(ms: &[AgentMessage]) -> Vec<String> {
    ms.iter().filter(|m| matches!(m, AgentMessage::User(_))).map(|m| m.text()).filter(|t| !t.trim().is_empty()).collect()
}

/// Every non-blank user text of `before` survives in `after`, and `after`
/// has no user text but those, OpenClaw placeholders and inter-session headers.
pub fn user_text_preserved(before: &[AgentMessage], after: &[AgentMessage]) -> Result<(), String> {
    user_texts_preserved(user_texts(before), user_texts(after))
}

fn user_texts_preserved(mut inputs: Vec<String>, outputs: Vec<String>) -> Result<(), String> {
    if inputs == outputs {
        return Ok(()); // the common case, and trivially preserved: skip the search
    }
    let all_after = outputs.join("\n");
    if let Some(lost) = inputs.iter().find(|u| !all_after.contains(u.trim())) {
        return Err(format!("user text {lost:?} lost"));
    }
    inputs.sort_by_key(|t| std::cmp::Reverse(t.len()));
    for out in outputs {
        let mut rest = out.clone();
        for i in &inputs {
            rest = rest.replacen(i.trim(), "", 1);
        }
        for p in [placeholders::SESSION_BOOTSTRAP, placeholders::EMPTY_CONTENT_OMITTED] {
            rest = rest.replace(p, "");
        }
        let rest: String = rest.lines().filter(|l| !l.starts_with(placeholders::INTER_SESSION_PREFIX) && !l.starts_with(placeholders::IMAGE_PAYLOAD_OMITTED) && !l.starts_with(placeholders::EMPTY_IMAGE_OMITTED)).collect();
        if !rest.trim().is_empty() {
            return Err(format!("invented user text {rest:?} in {out:?}"));
        }
    }
    Ok(())
}

/// All properties for one provider: accepted, idempotent, user text kept.
pub fn check_provider(p: Provider, history: &[AgentMessage]) -> Result<(), String> {
    check_call(p, model_call(history))
}

/// Idempotence is checked through the fixed point: `repair` stops when one
/// more pass changes nothing, so reaching it means `repair(repair(x)) ==
/// repair(x)` without running the pipeline twice more per input. The call
/// is consumed and the repaired transcript handed to the transport, not
/// copied: this runs once per fuzz execution.
fn check_call(p: Provider, call: Vec<AgentMessage>) -> Result<(), String> {
    let (policy, options) = fixed_inputs(p);
    let before = user_texts(&call);
    let (fixed, stable) = repair_to_fixed_point(policy, call);
    let after = user_texts(&fixed);
    validate(p, &into_wire(p, fixed, options), &ValidatorConfig::default()).map_err(|r| rejected(p, &r.message))?;
    if !stable {
        return Err(format!("{p}: repair is not idempotent (no fixed point after 4 passes)"));
    }
    user_texts_preserved(before, after).map_err(|e| format!("{p}: {e}"))
}

/// The policy and request options of a provider's model calls, built once:
/// deriving the policy from the model name on every execution was 3% of a
/// fuzz execution.
fn fixed_inputs(p: Provider) -> (&'static Policy, &'static RequestOptions) {
    static INPUTS: std::sync::LazyLock<Vec<(Policy, RequestOptions)>> = std::sync::LazyLock::new(|| ALL.iter().map(|p| (Policy::for_provider(*p), request_options(*p))).collect());
    let (policy, options) = &INPUTS[ALL.iter().position(|q| *q == p).expect("every provider is in ALL")];
    (policy, options)
}

/// The `repair_validate` fuzz target: every provider.
pub fn repair_validate(bytes: &[u8]) -> Result<(), String> {
    let t = transcript(bytes);
    ALL.iter().try_for_each(|p| check_provider(*p, &t))
}

/// The per-provider fuzz targets (`repair_validate_<provider>`): the same
/// bytes → transcript decoding as `repair_validate`, so corpora are shared.
pub fn repair_validate_one(p: Provider, bytes: &[u8]) -> Result<(), String> {
    let mut call = transcript(bytes);
    call.push(AgentMessage::user_text(PROMPT));
    check_call(p, call)
}

/// Minimise `ms` while `still_fails` holds: drop runs of messages (halving
/// the run length), then single content blocks, then shorten texts. The
/// result is 1-minimal for message removal.
pub fn shrink(mut ms: Vec<AgentMessage>, mut still_fails: impl FnMut(&[AgentMessage]) -> bool) -> Vec<AgentMessage> {
    let mut chunk = ms.len().max(1).next_power_of_two();
    while chunk >= 1 {
        let mut i = 0;
        let mut progressed = false;
        while i < ms.len() {
            let mut cand = ms.clone();
            cand.drain(i..(i + chunk).min(ms.len()));
            if still_fails(&cand) {
                ms = cand;
                progressed = true;
            } else {
                i += chunk;
            }
        }
        if !progressed {
            chunk /= 2;
        }
        if chunk == 0 {
            break;
        }
    }
    // Blocks inside messages.
    for i in 0..ms.len() {
        let mut k = 0;
        loop {
            let mut cand = ms.clone();
            let removed = match &mut cand[i] {
                AgentMessage::Assistant(a) if k < a.content.len() => {
                    a.content.remove(k);
                    true
                }
                AgentMessage::ToolResult(r) if k < r.content.len() => {
                    r.content.remove(k);
                    true
                }
                AgentMessage::User(UserMessage { content: MessageContent::Blocks(b), .. }) if k < b.len() => {
                    b.remove(k);
                    true
                }
                _ => false,
            };
            if !removed {
                break;
            }
            if still_fails(&cand) {
                ms = cand;
            } else {
                k += 1;
            }
        }
    }
    ms
}

/// Write a minimal failing transcript as a fixture: `{provider, rejection,
/// messages}` pretty JSON (readable by `clawspec validate`), named after the
/// provider and a stable digest of its content. Returns the path.
pub fn write_fixture(dir: &Path, p: Provider, messages: &[AgentMessage], rejection: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let doc = json!({
        "provider": p.name(),
        "rejection": rejection,
        "note": "minimised by clawspec's transcript shrinker; validate with `clawspec validate --provider <provider> --repair FILE`",
        "messages": messages,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)? + "\n";
    let digest = &crate::repair::images::digest_hex(&text)[..12];
    let path = dir.join(format!("{}-{digest}.json", p.name()));
    std::fs::write(&path, text)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_finds_the_single_culprit() {
        let ms: Vec<AgentMessage> = (0..37).map(|i| AgentMessage::user_text(format!("m{i}"))).collect();
        let out = shrink(ms, |c| c.iter().any(|m| m.text() == "m23"));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text(), "m23");
    }

    #[test]
    fn shrink_keeps_pairs_needed_together() {
        let ms: Vec<AgentMessage> = (0..20).map(|i| AgentMessage::user_text(format!("m{i}"))).collect();
        let out = shrink(ms, |c| c.iter().any(|m| m.text() == "m3") && c.iter().any(|m| m.text() == "m17"));
        assert_eq!(out.iter().map(|m| m.text()).collect::<Vec<_>>(), ["m3", "m17"]);
    }

    #[test]
    fn user_text_rules() {
        let a = vec![AgentMessage::user_text("hello")];
        assert!(user_text_preserved(&a, &a).is_ok());
        assert!(user_text_preserved(&a, &[AgentMessage::user_text("(session bootstrap)")]).is_err(), "lost");
        assert!(user_text_preserved(&a, &[AgentMessage::user_text("hello\nsurprise")]).is_err(), "invented");
    }
}
