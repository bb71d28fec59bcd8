//! The mock providers over real HTTP: a valid request gets a reply in the
//! provider's format, an invalid one the provider's status and body.

use clawspec_mock_providers::client::post_json;
use clawspec_mock_providers::provider::ALL;
use clawspec_mock_providers::server::{MockProvider, REPLY_HEADER};
use clawspec_mock_providers::validate::Rules;
use clawspec_mock_providers::wire::{to_wire, RequestOptions};
use clawspec_mock_providers::Provider;
use serde_json::json;

fn transcript() -> Vec<clawspec_contract::AgentMessage> {
    serde_json::from_value(json!([
        {"role":"user","content":"read it"},
        {"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{"p":1}}]},
        {"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"body"}]},
        {"role":"user","content":"thanks"}
    ]))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_provider_accepts_valid_and_rejects_invalid_over_http() {
    for p in ALL {
        let server = MockProvider::start(p, Rules::default()).await;
        let url = server.endpoint();
        // As OpenClaw sends it: after the host's repair for this provider.
        let fixed = clawspec_mock_providers::repair::repair(&clawspec_mock_providers::repair::Policy::for_provider(p), transcript());
        let ok = to_wire(p, &fixed, &RequestOptions { model: "m".into(), ..Default::default() });
        let reply = json!({"text": "hello", "toolCalls": [{"id": "c1", "name": "read", "arguments": {}}]}).to_string();
        let (status, body) = tokio::task::spawn_blocking(move || post_json(&url, &ok, &[(REPLY_HEADER, reply)])).await.unwrap().unwrap();
        assert_eq!(status, 200, "{p}: {body}");
        assert!(body.to_string().contains("hello"), "{p} renders the scripted reply: {body}");
        // Drop the tool result: every provider rejects an unanswered call.
        let mut broken = transcript();
        // Gemini has no rule against a call answered by plain user text, so
        // break it the way #296 did: history starting with the call.
        broken.remove(if p == Provider::Gemini { 0 } else { 2 });
        // Sent verbatim: the transport would otherwise add "No result provided".
        let bad = clawspec_mock_providers::wire::to_wire_verbatim(p, &broken, &RequestOptions { model: "m".into(), ..Default::default() });
        let url = server.endpoint();
        let (status, body) = tokio::task::spawn_blocking(move || post_json(&url, &bad, &[])).await.unwrap().unwrap();
        assert_eq!(status, 400, "{p}: {body}");
        let text = body.to_string();
        let expect = match p {
            Provider::Anthropic => "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01",
            Provider::OpenAiChat => "did not have response messages: toolu_01",
            Provider::OpenAiResponses => "No tool output found for function call toolu_01.",
            Provider::Gemini => "function call turn comes immediately after",
            Provider::Bedrock => "Expected toolResult blocks at messages.2.content for the following Ids: toolu_01",
            Provider::Mistral => "Tool call id was toolu_01 but must be a-z, A-Z, 0-9, with a length of 9.",
        };
        assert!(text.contains(expect), "{p}: {text}");
        assert_eq!(server.received().await, 2);
    }
}
