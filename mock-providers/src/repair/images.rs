//! A3.2 `sanitizeSessionMessagesImages` (`src/agents/tool-images.ts`,
//! `embedded-agent-helpers/images.ts`) with A3.4 `stripThoughtSignatures`
//! (`embedded-agent-helpers/thought-signatures.ts`): blank text removed,
//! broken image payloads replaced by a note, emptied results/users given
//! `[empty content omitted]`, emptied assistants dropped.

use clawspec_contract::*;

use super::placeholders::{EMPTY_CONTENT_OMITTED, EMPTY_IMAGE_OMITTED, IMAGE_PAYLOAD_OMITTED};
use super::util::{filter_in_place, is_blank_text, text};
use super::{Policy, ThoughtSignatures};

/// `MAX_IMAGE_BYTES` in tool-images.ts: 10 MB input size limit.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;

/// Decoded length of a standard/url-safe base64 string, or None if invalid.
pub fn base64_decoded_len(s: &str) -> Option<usize> {
    let t = s.trim_end_matches('=');
    if s.len() - t.len() > 2 || !t.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_')) {
        return None;
    }
    if t.len() % 4 == 1 {
        return None;
    }
    Some(t.len() * 3 / 4)
}

/// First decoded bytes (for magic-number sniffing).
pub fn base64_prefix(s: &str, n: usize) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let vs: Vec<u32> = chunk.iter().map_while(|c| val(*c)).collect();
        let mut acc = 0u32;
        for (i, v) in vs.iter().enumerate() {
            acc |= v << (18 - 6 * i);
        }
        for i in 0..vs.len().saturating_sub(1) {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
        if out.len() >= n || vs.len() < 4 {
            break;
        }
    }
    out.truncate(n);
    out
}

/// Mime type from magic bytes (tool-images.ts re-sniffs before trusting `mimeType`).
pub fn sniff_mime(data: &str) -> Option<&'static str> {
    let b = base64_prefix(data, 12);
    Some(if b.starts_with(&[0x89, b'P', b'N', b'G']) {
        "image/png"
    } else if b.starts_with(&[0xff, 0xd8, 0xff]) {
        "image/jpeg"
    } else if b.starts_with(b"GIF8") {
        "image/gif"
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        "image/webp"
    } else {
        return None;
    })
}

/// Hex sha256 (stable fixture names).
pub fn digest_hex(s: &str) -> String {
    super::util::sha256_hex(s)
}

fn sanitize_image(b: ContentBlock) -> ContentBlock {
    let ContentBlock::Image(mut i) = b else { return b };
    if i.data.is_empty() {
        return text(EMPTY_IMAGE_OMITTED);
    }
    if i.mime_type.trim().is_empty() {
        return text(&format!("{IMAGE_PAYLOAD_OMITTED}missing data or mimeType"));
    }
    match base64_decoded_len(&i.data) {
        None => text(&format!("{IMAGE_PAYLOAD_OMITTED}invalid base64")),
        Some(n) if n > MAX_IMAGE_BYTES => text(&format!("{IMAGE_PAYLOAD_OMITTED}image exceeds input size limit (10.00MB)")),
        Some(_) => {
            if let Some(m) = sniff_mime(&i.data) {
                i.mime_type = m.into();
            }
            ContentBlock::Image(i)
        }
    }
}

fn sanitize_blocks(blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    blocks.into_iter().map(sanitize_image).filter(|b| !is_blank_text(b)).collect()
}

fn base64ish(s: &str) -> bool {
    !s.is_empty() && base64_decoded_len(s).is_some()
}

/// A3.4: without options only Claude message ids (`msg_…`) are stripped;
/// the Google family keeps only values that round-trip as base64.
pub fn strip_thought_signatures(mode: ThoughtSignatures, a: &mut AssistantMessage) {
    let strip = |v: &str| match mode {
        ThoughtSignatures::ClaudeIdsOnly => v.starts_with("msg_"),
        ThoughtSignatures::Base64Only => !base64ish(v),
    };
    for b in &mut a.content {
        if let ContentBlock::ToolCall(c) = b {
            if c.thought_signature.as_deref().is_some_and(strip) {
                c.thought_signature = None;
            }
            let keys: Vec<String> = c.extra.keys().filter(|k| *k == "thought_signature" || *k == "thoughtSignature").cloned().collect();
            for k in keys {
                if c.extra.get(&k).and_then(|v| v.as_str()).is_some_and(strip) {
                    c.extra.remove(&k);
                }
            }
        }
    }
}

pub fn sanitize_session_messages_images(p: &Policy, mut ms: Vec<AgentMessage>) -> Vec<AgentMessage> {
    filter_in_place(&mut ms, |_, m| {
        match m {
            AgentMessage::ToolResult(r) => {
                r.content = sanitize_blocks(std::mem::take(&mut r.content));
                if r.content.is_empty() {
                    r.content.push(text(EMPTY_CONTENT_OMITTED));
                }
            }
            AgentMessage::User(u) => {
                if let MessageContent::Blocks(b) = &mut u.content {
                    *b = sanitize_blocks(std::mem::take(b));
                    if b.is_empty() {
                        b.push(text(EMPTY_CONTENT_OMITTED));
                    }
                }
            }
            AgentMessage::Assistant(a) => {
                if a.stop_reason.as_deref() != Some("error") && !p.preserve_signatures {
                    strip_thought_signatures(p.thought_signatures, a);
                }
                a.content = sanitize_blocks(std::mem::take(&mut a.content));
                if a.content.is_empty() {
                    return false;
                }
            }
            _ => {}
        }
        true
    });
    ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::test_support::{msgs, shape};
    use crate::Provider;
    use rstest::rstest;
    use serde_json::{json, Value};

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUg==";

    #[rstest]
    #[case::empty_result(json!([{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":""}]}]), vec!["toolResult:[empty content omitted]"])]
    #[case::empty_image(json!([{"role":"toolResult","toolCallId":"t","content":[{"type":"image","data":"","mimeType":"image/png"}]}]), vec!["toolResult:[session:history] omitted empty image payload"])]
    #[case::no_mime(json!([{"role":"user","content":[{"type":"image","data":PNG,"mimeType":""}]}]), vec!["user:[session:history] omitted image payload: missing data or mimeType"])]
    #[case::bad_base64(json!([{"role":"user","content":[{"type":"image","data":"%%%","mimeType":"image/png"}]}]), vec!["user:[session:history] omitted image payload: invalid base64"])]
    #[case::assistant_blank_dropped(json!([{"role":"assistant","content":[{"type":"text","text":" "}],"usage":{"output":1}}]), Vec::<&str>::new())]
    fn images(#[case] input: Value, #[case] expect: Vec<&str>) {
        assert_eq!(shape(&sanitize_session_messages_images(&Policy::for_provider(Provider::OpenAiChat), msgs(input))), expect);
    }

    #[test]
    fn mime_is_resniffed_from_magic_bytes() {
        let out = sanitize_session_messages_images(&Policy::for_provider(Provider::Anthropic), msgs(json!([{"role":"user","content":[{"type":"image","data":PNG,"mimeType":"image/jpeg"}]}])));
        let AgentMessage::User(u) = &out[0] else { panic!() };
        let MessageContent::Blocks(b) = &u.content else { panic!() };
        assert!(matches!(&b[0], ContentBlock::Image(i) if i.mime_type == "image/png"));
    }

    #[rstest]
    #[case::claude_id_stripped(ThoughtSignatures::ClaudeIdsOnly, "msg_01abc", None)]
    #[case::opaque_kept(ThoughtSignatures::ClaudeIdsOnly, "c2lnbmF0dXJl", Some("c2lnbmF0dXJl"))]
    #[case::google_non_base64(ThoughtSignatures::Base64Only, "not base64!", None)]
    #[case::google_base64(ThoughtSignatures::Base64Only, "c2lnbmF0dXJl", Some("c2lnbmF0dXJl"))]
    fn thought_signatures(#[case] mode: ThoughtSignatures, #[case] sig: &str, #[case] expect: Option<&str>) {
        let mut ms = msgs(json!([{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"r","arguments":{},"thoughtSignature":sig}]}]));
        let AgentMessage::Assistant(a) = &mut ms[0] else { panic!() };
        strip_thought_signatures(mode, a);
        assert!(matches!(&a.content[0], ContentBlock::ToolCall(c) if c.thought_signature.as_deref() == expect));
    }
}
