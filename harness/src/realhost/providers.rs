//! Which API the real host's model provider speaks, and the mock that answers it.
//!
//! The host-runner config names the scenario's provider id and `api` under
//! `models.providers.<id>` with `baseUrl` → the mock (openclaw docs
//! gateway/config-agents/models.md, concepts/model-providers/custom-providers.md).
//! Each transport appends its own path to `baseUrl`: the Anthropic SDK
//! `/v1/messages`; the OpenAI SDK (`openai-completions`, also for provider
//! `mistral`; `openai-responses`) `/chat/completions` and `/responses`;
//! @google/genai with `apiVersion: ""` (@openclaw/ai dist/google-*.mjs
//! `createClient`) `/models/{model}:streamGenerateContent?alt=sse`.

use clawspec_mock_providers::Provider;
use serde_json::Value;

use super::plan::NotDrivable;

/// openclaw@2026.9.6 ships no `bedrock-converse-stream` transport: the API
/// comes from the external plugin `@openclaw/amazon-bedrock-provider`
/// (dist/managed-handoff-runtime.mjs catalog, docs/providers/bedrock.md "Auth:
/// AWS credentials"), which clawspec does not install, and its AWS SDK client
/// would need ConverseStream's binary event-stream framing, which the mock
/// does not speak.
pub const BEDROCK_NOT_DRIVABLE: &str = "amazon-bedrock/bedrock-converse-stream: openclaw@2026.9.6 has no bundled Bedrock transport (the external plugin @openclaw/amazon-bedrock-provider, dist/managed-handoff-runtime.mjs; not installed by clawspec), and the mock does not speak ConverseStream's AWS event-stream framing";

/// The mock provider that answers the host's `provider`/`api`, checked
/// against the scenario's `http_provider` (which must name the same wire).
pub fn mock_for(provider: &str, api: &str, http_provider: Option<&str>) -> Result<Provider, NotDrivable> {
    let p = Provider::for_openclaw(provider, api).ok_or_else(|| NotDrivable(format!("setup.provider {provider}/{api}: no mock provider speaks this API")))?;
    if p == Provider::Bedrock {
        return Err(NotDrivable(BEDROCK_NOT_DRIVABLE.into()));
    }
    // The real host always reaches the mock over HTTP, with the request its
    // transport builds for the configured api; a scenario naming another wire
    // would be validated by a server the host never talks to.
    if let Some(h) = http_provider.filter(|h| *h != p.name()) {
        return Err(NotDrivable(format!("setup.http_provider {h}: the host's {provider}/{api} transport speaks {p}")));
    }
    Ok(p)
}

/// `models.providers.<id>.baseUrl` for the mock at `uri`.
pub fn base_url(p: Provider, uri: &str) -> String {
    match p {
        Provider::Anthropic => uri.to_string(),
        Provider::Gemini => format!("{uri}/v1beta"),
        _ => format!("{uri}/v1"),
    }
}

/// A `switch_model` step: from `step` on, the session's attempts run on
/// `provider/model` over `api` (the scenario's api, else the one the
/// provider's own transport uses), answered by its own mock.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ModelSwitch {
    pub step: usize,
    pub provider: String,
    pub api: String,
    pub model: String,
    #[serde(skip)]
    pub wire: Provider,
}

impl ModelSwitch {
    pub fn new(step: usize, m: &crate::scenario::model::SwitchModelSpec, setup: &crate::scenario::model::Setup) -> Result<ModelSwitch, NotDrivable> {
        let api = match (&m.api, m.provider.as_str()) {
            (Some(a), _) => a.clone(),
            (None, p) if p == setup.provider => setup.api.clone(),
            (None, "anthropic") => "anthropic-messages".into(),
            (None, "openai") => "openai-responses".into(),
            (None, "google") => "google-generative-ai".into(),
            (None, p) => return Err(NotDrivable(format!("switch to {p}/{}: the scenario names no api for this provider", m.model))),
        };
        let wire = mock_for(&m.provider, &api, None).map_err(|NotDrivable(why)| NotDrivable(format!("switch to {}/{}: {why}", m.provider, m.model)))?;
        // One mock per provider id (models.providers.<id> has one baseUrl).
        if m.provider == setup.provider {
            return Err(NotDrivable(format!("switch to {}/{}: a switch within the scenario's own provider is not mapped yet (one mock per provider id)", m.provider, m.model)));
        }
        Ok(ModelSwitch { step, provider: m.provider.clone(), api, model: m.model.clone(), wire })
    }

    /// `sessions.patch`'s `model`: `provider/model`.
    pub fn model_ref(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

/// The model a logged request was for (body `model`; Gemini's URL path).
pub fn request_model<'a>(body: &'a Value, path: &'a str) -> Option<&'a str> {
    body["model"].as_str().or_else(|| clawspec_mock_providers::stream::model_in_path(path))
}

/// The system prompt the host built for an agent attempt, from the request
/// its transport sent.
///
/// Anthropic splits it at the cache boundary into `system` blocks
/// ([`crate::twin::host_system_prompt`] rebuilds it). Every other 2026.9.6
/// transport sends it as one text with the boundary markers stripped
/// (@openclaw/ai dist/simple-options-*.mjs `stripSystemPromptCacheBoundary`:
/// the cache boundary and the relocatable opening marker become "\n", the
/// closing marker goes), as the first `system`/`developer` message
/// (openai-completions-stream-*.mjs, openai-responses-shared-*.mjs
/// `buildResponsesInputMessage`) or Gemini's `systemInstruction`
/// (google-shared-*.mjs). [`unstripped`] puts the markers back.
pub fn system_prompt(p: Provider, body: &Value) -> Option<String> {
    let joined = |parts: &Value| parts.as_array().map(|a| a.iter().filter_map(|x| x["text"].as_str()).collect::<Vec<_>>().join(""));
    let sent = match p {
        Provider::Anthropic => {
            return match &body["system"] {
                Value::String(s) => Some(s.clone()),
                Value::Array(blocks) => Some(crate::twin::host_system_prompt(&blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>())),
                _ => None,
            };
        }
        Provider::OpenAiChat | Provider::Mistral => {
            let ms = body["messages"].as_array()?;
            let m = ms.iter().find(|m| matches!(m["role"].as_str(), Some("system" | "developer")))?;
            let sys = m["content"].as_str().map(str::to_string).or_else(|| joined(&m["content"]))?;
            // A string content gets "\n\n" + the region; an array gets it as its own
            // last text block (relocateNonBehavioralRegion).
            let first_user = ms.iter().find(|m| m["role"] == "user").map(|u| match &u["content"] {
                Value::Array(a) => a.last().and_then(|b| b["text"].as_str()).map(|t| format!("\n\n{t}")).unwrap_or_default(),
                c => c.as_str().unwrap_or_default().to_string(),
            });
            relocated_back(&sys, first_user.as_deref().unwrap_or(""))
        }
        Provider::OpenAiResponses => match body["instructions"].as_str() {
            Some(s) => s.to_string(),
            None => {
                let m = body["input"].as_array()?.iter().find(|m| matches!(m["role"].as_str(), Some("system" | "developer")))?;
                m["content"].as_str().map(str::to_string).or_else(|| joined(&m["content"]))?
            }
        },
        Provider::Gemini => match &body["systemInstruction"] {
            Value::String(s) => s.clone(),
            v => joined(&v["parts"])?,
        },
        Provider::Bedrock => joined(&body["system"])?,
    };
    Some(unstripped(&sent))
}

/// Chat Completions moves the relocatable region (the `Runtime:` line) out of
/// the system message to the end of the first user message, and joins what
/// surrounded it trimmed with "\n" (openai-completions-stream-*.mjs
/// `relocateNonBehavioralRegion`, simple-options-*.mjs
/// `splitSystemPromptRelocatableBoundary`); put it back where the other
/// transports leave it: after a blank line, before the DYNAMIC section's
/// closing marker.
fn relocated_back(sys: &str, first_user: &str) -> String {
    const CLOSE: &str = "\n<!-- /openclaw:attempt:DYNAMIC -->";
    let runtime = first_user.rfind("\n\nRuntime: ").map(|i| &first_user[i + 2..]);
    match (runtime, sys.rfind(CLOSE)) {
        (Some(r), Some(at)) if !sys.contains("\nRuntime: ") && !r.contains('\n') => format!("{}\n\n\n{r}{}", &sys[..at], &sys[at..]),
        _ => sys.to_string(),
    }
}

/// The attempt system prompt from its marker-stripped text: 2026.9.6 builds
/// `STABLE + CACHE_BOUNDARY + DYNAMIC` (builtin-openclaw-*.mjs
/// `buildAttemptSystemPrompt`); stripping joined the two with "\n". Split
/// there, the parts are what the Anthropic transport sends as its two
/// `system` blocks, and [`crate::twin::host_system_prompt`] rebuilds the rest.
pub fn unstripped(sent: &str) -> String {
    match split_point(sent) {
        Some(b) => crate::twin::host_system_prompt(&[&sent[..b], &sent[b + 1..]]),
        None => crate::twin::host_system_prompt(&[sent]),
    }
}

/// Where the cache boundary was (the index of the "\n" it left): between
/// the closing STABLE and the opening DYNAMIC section markers
/// (builtin-openclaw-*.mjs `ATTEMPT_PROMPT_SECTION`:
/// `<!-- openclaw:attempt:${section} -->\n…\n<!-- /openclaw:attempt:${section} -->`).
fn split_point(sent: &str) -> Option<usize> {
    sent.find("<!-- /openclaw:attempt:STABLE -->\n<!-- openclaw:attempt:DYNAMIC -->").map(|i| i + "<!-- /openclaw:attempt:STABLE -->".len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    #[case::anthropic("anthropic", "anthropic-messages", None, Provider::Anthropic)]
    #[case::http_anthropic("anthropic", "anthropic-messages", Some("anthropic"), Provider::Anthropic)]
    #[case::chat("openai", "openai-completions", Some("openai-chat"), Provider::OpenAiChat)]
    #[case::responses("openai", "openai-responses", None, Provider::OpenAiResponses)]
    #[case::gemini("google", "google-generative-ai", Some("gemini"), Provider::Gemini)]
    #[case::mistral("mistral", "openai-completions", Some("mistral"), Provider::Mistral)]
    fn each_api_gets_the_mock_that_speaks_it(#[case] provider: &str, #[case] api: &str, #[case] http: Option<&str>, #[case] want: Provider) {
        assert_eq!(mock_for(provider, api, http), Ok(want));
    }

    #[rstest]
    #[case::bedrock("amazon-bedrock", "bedrock-converse-stream", None, "@openclaw/amazon-bedrock-provider")]
    #[case::other_wire("openai", "openai-responses", Some("openai-chat"), "setup.http_provider openai-chat: the host's openai/openai-responses transport speaks openai-responses")]
    #[case::unknown("ollama", "ollama", None, "no mock provider speaks this API")]
    fn what_no_mock_answers_says_why(#[case] provider: &str, #[case] api: &str, #[case] http: Option<&str>, #[case] why: &str) {
        let NotDrivable(w) = mock_for(provider, api, http).unwrap_err();
        assert!(w.contains(why), "{w}");
    }

    #[test]
    fn base_urls_leave_each_transport_its_own_path() {
        assert_eq!(base_url(Provider::Anthropic, "http://h"), "http://h");
        assert_eq!(base_url(Provider::OpenAiChat, "http://h"), "http://h/v1");
        assert_eq!(base_url(Provider::Gemini, "http://h"), "http://h/v1beta");
    }

    #[test]
    fn the_system_prompt_is_found_where_each_api_carries_it() {
        let sys = "You are helpful.";
        assert_eq!(system_prompt(Provider::OpenAiChat, &json!({"messages":[{"role":"system","content":sys},{"role":"user","content":"hi"}]})).as_deref(), Some(sys));
        assert_eq!(system_prompt(Provider::Mistral, &json!({"messages":[{"role":"developer","content":[{"type":"text","text":sys}]}]})).as_deref(), Some(sys));
        assert_eq!(system_prompt(Provider::OpenAiResponses, &json!({"input":[{"role":"developer","content":[{"type":"input_text","text":sys}]}]})).as_deref(), Some(sys));
        assert_eq!(system_prompt(Provider::OpenAiResponses, &json!({"instructions":sys,"input":[]})).as_deref(), Some(sys));
        assert_eq!(system_prompt(Provider::Gemini, &json!({"systemInstruction":{"parts":[{"text":sys}]}})).as_deref(), Some(sys));
        assert_eq!(system_prompt(Provider::OpenAiChat, &json!({"messages":[{"role":"user","content":"hi"}]})), None);
    }

    #[test]
    fn the_stripped_prompt_gets_its_markers_back_as_the_anthropic_blocks_would() {
        let stable = "<!-- openclaw:attempt:STABLE -->\nYou are a personal assistant.\n<!-- /openclaw:attempt:STABLE -->";
        let dynamic = "<!-- openclaw:attempt:DYNAMIC -->\nReasoning=off.\n\n\nRuntime: agent=main | channel=webchat\n<!-- /openclaw:attempt:DYNAMIC -->";
        // What stripSystemPromptCacheBoundary leaves of the built prompt.
        let built = crate::twin::host_system_prompt(&[stable, dynamic]);
        let stripped = built.replace(crate::twin::CACHE_BOUNDARY, "\n").replace(crate::twin::RELOCATABLE_BOUNDARY, "\n").replace(crate::twin::RELOCATABLE_BOUNDARY_END, "");
        assert_eq!(stripped, format!("{stable}\n{dynamic}"));
        assert_eq!(unstripped(&stripped), built);
        assert_eq!(system_prompt(Provider::Gemini, &json!({"systemInstruction":{"parts":[{"text":stripped}]}})), Some(built));
    }

    #[test]
    fn chat_completions_gets_its_relocated_runtime_line_back() {
        let stable = "<!-- openclaw:attempt:STABLE -->\nYou are a personal assistant.\n<!-- /openclaw:attempt:STABLE -->";
        let dynamic = "<!-- openclaw:attempt:DYNAMIC -->\nReasoning=off.\n\n\nRuntime: agent=main | channel=webchat\n<!-- /openclaw:attempt:DYNAMIC -->";
        let built = crate::twin::host_system_prompt(&[stable, dynamic]);
        // What relocateNonBehavioralRegion sends: the region moved to the first user message.
        let sys = format!("{stable}\n<!-- openclaw:attempt:DYNAMIC -->\nReasoning=off.\n<!-- /openclaw:attempt:DYNAMIC -->");
        let body = json!({"messages":[{"role":"system","content":sys},{"role":"user","content":"[Mon] hi\n\nRuntime: agent=main | channel=webchat"}]});
        assert_eq!(system_prompt(Provider::OpenAiChat, &body), Some(built.clone()));
        let blocks = json!({"messages":[{"role":"system","content":sys},{"role":"user","content":[{"type":"text","text":"[Mon] hi"},{"type":"text","text":"Runtime: agent=main | channel=webchat"}]}]});
        assert_eq!(system_prompt(Provider::Mistral, &blocks), Some(built), "an array content gets the region as its own block");
    }

    #[test]
    fn the_model_of_a_gemini_request_is_in_its_url() {
        assert_eq!(request_model(&json!({}), "/v1beta/models/gemini-2.5-pro:streamGenerateContent"), Some("gemini-2.5-pro"));
        assert_eq!(request_model(&json!({"model":"gpt-4.1"}), "/v1/chat/completions"), Some("gpt-4.1"));
    }
}
