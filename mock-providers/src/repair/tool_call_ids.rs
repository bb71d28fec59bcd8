//! A3.11 `sanitizeToolCallIdsForCloudCodeAssist`
//! (`src/agents/tool-call-id.ts`): `strict` (alphanumerics, ≤ 40) and
//! `strict9` (exactly 9 alphanumerics, Mistral). Occurrence-aware: each call
//! gets its own id and results are remapped in encounter order.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use clawspec_contract::*;

use super::util::sha256_hex;
use super::{IdMode, Policy};

/// `STRICT_MAX_LEN` in tool-call-id.ts.
pub const STRICT_MAX: usize = 40;

fn alnum(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
}

/// Native Kimi ids `functions.<name>:<n>` are kept in strict mode.
fn native_kimi(id: &str) -> bool {
    id.strip_prefix("functions.").and_then(|r| r.rsplit_once(':')).is_some_and(|(n, k)| !n.is_empty() && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

fn native_anthropic(id: &str) -> bool {
    id.strip_prefix("toolu_").is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

pub fn valid_id(mode: IdMode, id: &str) -> bool {
    match mode {
        IdMode::Strict => !id.is_empty() && id.len() <= STRICT_MAX && id.bytes().all(|b| b.is_ascii_alphanumeric()),
        IdMode::Strict9 => id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
    }
}

/// `makeUniqueToolId` on the occurrence's seed: the id itself the first
/// time, `<id>:<n>` for its n-th repeat (`allocatePreservingNativeAnthropicId`,
/// tool-call-id-*.mjs of 2026.9.6, tool-call-id-*.js of 2026.4.26), so a
/// repeated `call_dup` becomes `calldup2` (twin of regression-a8-duplicate-tool-ids).
fn sanitize_one(mode: IdMode, id: &str, occurrence: usize, used: &BTreeSet<String>) -> String {
    let seed = if occurrence == 1 { id.to_string() } else { format!("{id}:{occurrence}") };
    match mode {
        IdMode::Strict => {
            let base: String = alnum(&seed).chars().take(STRICT_MAX).collect();
            let base = if base.is_empty() { "sanitizedtoolid".to_string() } else { base };
            if !used.contains(&base) {
                return base;
            }
            // Collision: truncated base + 8 hex of sha256(seed), then x2, x3 … within 40.
            let suffix = &sha256_hex(&seed)[..8];
            let cand = format!("{}{suffix}", &base[..base.len().min(STRICT_MAX - 8)]);
            if !used.contains(&cand) {
                return cand;
            }
            (2..).map(|n| format!("{}x{n}", &cand[..cand.len().min(STRICT_MAX - 1 - n.to_string().len())])).find(|c| !used.contains(c)).unwrap()
        }
        IdMode::Strict9 => {
            let a = alnum(&seed);
            let base = if a.len() >= 9 { a[..9].to_string() } else if a.is_empty() { sha256_hex("sanitized")[..9].to_string() } else { sha256_hex(&a)[..9].to_string() };
            if !used.contains(&base) {
                return base;
            }
            (0..).map(|i| sha256_hex(&format!("{seed}:{i}"))[..9].to_string()).find(|c| !used.contains(c)).unwrap()
        }
    }
}

pub fn sanitize_tool_call_ids(p: &Policy, ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let Some(mode) = p.tool_call_id_mode else { return ms };
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut seen_native: BTreeSet<String> = BTreeSet::new();
    let mut occurrences: BTreeMap<String, usize> = BTreeMap::new();
    let mut pending: BTreeMap<String, VecDeque<String>> = BTreeMap::new();
    let mut ms = ms;
    for m in &mut ms {
        match m {
            AgentMessage::Assistant(a) => {
                for b in &mut a.content {
                    let ContentBlock::ToolCall(c) = b else { continue };
                    let n = occurrences.entry(c.id.clone()).or_default();
                    *n += 1;
                    let keep = !used.contains(&c.id)
                        && (valid_id(mode, &c.id)
                            // Native Kimi ids only survive where the wire admits `.` and `:`
                            // (OpenAI-compatible); Anthropic-shaped providers reject them (#12757, fuzz finding F2).
                            || (mode == IdMode::Strict && p.provider == crate::Provider::OpenAiChat && native_kimi(&c.id))
                            || (p.preserve_native_anthropic_ids && native_anthropic(&c.id) && seen_native.insert(c.id.clone())));
                    let new = if keep { c.id.clone() } else { sanitize_one(mode, &c.id, *n, &used) };
                    used.insert(new.clone());
                    pending.entry(c.id.clone()).or_default().push_back(new.clone());
                    c.id = new;
                }
            }
            AgentMessage::ToolResult(r) => {
                if let Some(new) = pending.get_mut(&r.tool_call_id).and_then(|q| q.pop_front()) {
                    r.tool_call_id = new;
                }
            }
            _ => {}
        }
    }
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::msgs;
    use crate::Provider;
    use rstest::rstest;
    use serde_json::json;

    fn ids_after(p: Provider, ids: &[&str]) -> (Vec<String>, Vec<String>) {
        let mut v = vec![json!({"role":"assistant","content":ids.iter().map(|id| json!({"type":"toolCall","id":id,"name":"r","arguments":{}})).collect::<Vec<_>>()})];
        v.extend(ids.iter().map(|id| json!({"role":"toolResult","toolCallId":id,"content":[{"type":"text","text":"x"}]})));
        let out = sanitize_tool_call_ids(&Policy::for_provider(p), msgs(json!(v)));
        let calls = out[0].tool_call_ids().iter().map(|s| s.to_string()).collect();
        let results = out[1..].iter().map(|m| if let AgentMessage::ToolResult(r) = m { r.tool_call_id.clone() } else { panic!() }).collect();
        (calls, results)
    }

    #[rstest]
    #[case::pipe(Provider::OpenAiChat, "call|item:123", "callitem123")]
    #[case::spaces_12757(Provider::Bedrock, "     functions.read:37", "functionsread37")]
    #[case::kimi_native(Provider::OpenAiChat, "functions.read:0", "functions.read:0")]
    #[case::cap40_4718(Provider::OpenAiChat, &format!("call_{}", "a".repeat(434)), &format!("call{}", "a".repeat(36)))]
    #[case::native_toolu(Provider::Anthropic, "toolu_01_abc", "toolu_01_abc")]
    #[case::toolu_elsewhere(Provider::Bedrock, "toolu_01_abc", "toolu01abc")]
    #[case::empty(Provider::OpenAiChat, "%%", "sanitizedtoolid")]
    #[case::responses_untouched(Provider::OpenAiResponses, "call_1|fc_1", "call_1|fc_1")]
    fn strict(#[case] p: Provider, #[case] id: &str, #[case] expect: &str) {
        let (calls, results) = ids_after(p, &[id]);
        assert_eq!(calls, [expect]);
        assert_eq!(results, [expect], "the result follows its call");
    }

    #[test]
    fn distinct_ids_stay_distinct() {
        let (calls, results) = ids_after(Provider::OpenAiChat, &["call_a|b", "call_a:b"]);
        assert_ne!(calls[0], calls[1]);
        assert_eq!(calls, results);
        let (calls, results) = ids_after(Provider::Mistral, &["call_1767225600123", "call_1767225600124", "x"]);
        assert!(calls.iter().all(|c| c.len() == 9 && c.bytes().all(|b| b.is_ascii_alphanumeric())), "{calls:?}");
        assert_ne!(calls[0], calls[1]);
        assert_eq!(calls, results);
    }

    #[test]
    fn duplicates_per_occurrence_40897() {
        let (calls, results) = ids_after(Provider::Anthropic, &["call_dup", "call_dup"]);
        // The repeat's seed is `call_dup:2` (`allocatePreservingNativeAnthropicId`).
        assert_eq!(calls, ["calldup", "calldup2"]);
        assert_eq!(calls, results);
    }
}
