//! Properties of the repair pipeline over generated hostile transcripts:
//! for every provider, repair(policy) is accepted by that provider's validator;
//! repair is idempotent; it never invents user text and never loses a
//! non-empty user turn's text.

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::gen::transcript;
use clawspec_mock_providers::provider::ALL;
use clawspec_mock_providers::repair::{repair, Policy};
use proptest::prelude::*;

fn user_texts(ms: &[AgentMessage]) -> Vec<String> {
    ms.iter().filter(|m| matches!(m, AgentMessage::User(_))).map(|m| m.text()).filter(|t| !t.trim().is_empty()).collect()
}

/// The fuzz target's check, plus: repair never invents user text.
pub fn accepted(bytes: &[u8]) -> Result<(), String> {
    clawspec_mock_providers::fuzzing::repair_validate(bytes)?;
    let t = transcript(bytes);
    let before = user_texts(&t);
    for p in ALL {
        let fixed = repair(&Policy::for_provider(p), t.clone());
        for u in user_texts(&fixed) {
            let known = before.iter().any(|b| b.contains(u.trim()) || u.contains(b.trim()))
                || ["(session bootstrap)", "[empty content omitted]"].contains(&u.as_str());
            if !known {
                return Err(format!("{p}: invented user text {u:?}"));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn repaired_transcripts_are_accepted_everywhere(bytes in proptest::collection::vec(any::<u8>(), 0..60)) {
        if let Err(e) = accepted(&bytes) {
            prop_assert!(false, "{}", e);
        }
    }
}
