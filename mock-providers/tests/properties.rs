//! Properties of the repair pipeline over generated hostile transcripts:
//! for every provider, repair(policy) is accepted by that provider's validator;
//! repair is idempotent; it never invents user text and never loses a
//! non-empty user turn's text.

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::gen::transcript;
use clawspec_mock_providers::provider::ALL;
use clawspec_mock_providers::repair::{repair, Policy};
use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::wire::{to_wire, RequestOptions};
use proptest::prelude::*;

fn user_texts(ms: &[AgentMessage]) -> Vec<String> {
    ms.iter().filter(|m| matches!(m, AgentMessage::User(_))).map(|m| m.text()).filter(|t| !t.trim().is_empty()).collect()
}

pub fn accepted(bytes: &[u8]) -> Result<(), String> {
    let t = transcript(bytes);
    for p in ALL {
        let policy = Policy::for_provider(p);
        let fixed = repair(&policy, t.clone());
        let body = to_wire(p, &fixed, &RequestOptions { model: "m".into(), ..Default::default() });
        if let Err(r) = validate(p, &body, &Rules::default()) {
            return Err(format!("{p} rejects the repaired transcript: {}\nwire: {body}", r.message));
        }
        let again = repair(&policy, fixed.clone());
        if again != fixed {
            return Err(format!("{p}: repair is not idempotent"));
        }
        let before = user_texts(&t);
        let after = user_texts(&fixed).join("\n");
        for u in &before {
            if !after.contains(u.trim()) {
                return Err(format!("{p}: user text {u:?} lost"));
            }
        }
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
