//! Properties of the repair pipeline over generated hostile transcripts, per
//! provider: repair(policy) is accepted by that provider's validator (after
//! the transport), repair is idempotent, it never invents user text and never
//! loses a non-empty user turn's text.

use clawspec_mock_providers::fuzzing::check_provider;
use clawspec_mock_providers::gen::arb_transcript;
use clawspec_mock_providers::Provider;
use proptest::prelude::*;
use rstest::rstest;

fn run(p: Provider) {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() });
    let result = runner.run(&arb_transcript(40), |t| {
        check_provider(p, &t).map_err(|e| TestCaseError::fail(format!("{e}\n{}", serde_json::to_string(&t).unwrap())))
    });
    if let Err(e) = result {
        panic!("{p}: {e}");
    }
}

#[rstest]
#[case::anthropic(Provider::Anthropic)]
#[case::openai_chat(Provider::OpenAiChat)]
#[case::openai_responses(Provider::OpenAiResponses)]
#[case::gemini(Provider::Gemini)]
#[case::bedrock(Provider::Bedrock)]
#[case::mistral(Provider::Mistral)]
fn repaired_transcripts_are_accepted(#[case] p: Provider) {
    run(p);
}
