//! The checks behind the fuzz targets, shared with the stable corpus replay.

use clawspec_contract::AgentMessage;

use crate::gen::transcript;
use crate::provider::ALL;
use crate::repair::{repair, Policy};
use crate::validate::{validate, Rules};
use crate::wire::{to_wire, RequestOptions};

fn user_texts(ms: &[AgentMessage]) -> Vec<String> {
    ms.iter().filter(|m| matches!(m, AgentMessage::User(_))).map(|m| m.text()).filter(|t| !t.trim().is_empty()).collect()
}

/// Repair then validate for every provider; idempotent; user text kept.
pub fn repair_validate(bytes: &[u8]) -> Result<(), String> {
    let t = transcript(bytes);
    for p in ALL {
        let policy = Policy::for_provider(p);
        let fixed = repair(&policy, t.clone());
        let body = to_wire(p, &fixed, &RequestOptions { model: "m".into(), ..Default::default() });
        validate(p, &body, &Rules::default()).map_err(|r| format!("{p} rejects the repaired transcript: {}", r.message))?;
        if repair(&policy, fixed.clone()) != fixed {
            return Err(format!("{p}: repair is not idempotent"));
        }
        let after = user_texts(&fixed).join("\n");
        if let Some(lost) = user_texts(&t).iter().find(|u| !after.contains(u.trim())) {
            return Err(format!("{p}: user text {lost:?} lost"));
        }
    }
    Ok(())
}
