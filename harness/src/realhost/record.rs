//! The bridge's NDJSON (one line per engine call as received, plus the host
//! runner's step markers) → a [`Trace`], in the reference runtime's shape:
//! the run's state directory reads `$STATE`, as in reference traces.

use std::path::Path;

use serde_json::Value;

use crate::driver::EngineSpec;
use crate::runtime::profile::Profile;
use crate::scenario::model::Scenario;
use crate::trace::{CallRecord, CallbackRecord, EngineRecord, Event, Outcome, ReplyRecord, Trace};

pub fn to_trace(scenario: &Scenario, profile: &Profile, engine: &EngineSpec, ndjson: &str, work: &Path) -> Result<Trace, String> {
    let state = work.join("state").to_string_lossy().into_owned();
    let work = work.to_string_lossy().into_owned();
    let mut rec = EngineRecord { display: engine.display.clone(), info: None, methods: vec![], implementation: None, hooks: Value::Null };
    let mut events = Vec::new();
    // Message arrays go to the trace's content-addressed store, as the
    // reference runtime records them.
    let mut store = crate::trace::MessageStore::default();
    let (mut step, mut turns) = (0usize, 0u32);
    for (n, line) in ndjson.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let mut v: Value = serde_json::from_str(line).map_err(|e| format!("bridge trace line {}: {e}", n + 1))?;
        relocate(&mut v, &state, "$STATE");
        relocate(&mut v, &work, "$WORK");
        match v["kind"].as_str() {
            Some("step") => {
                step = v["step"].as_u64().unwrap_or(0) as usize;
                turns += 1;
            }
            Some("initialize") => {
                rec.info = Some(v["info"].clone());
                rec.methods = v["methods"].as_array().into_iter().flatten().filter_map(|m| m.as_str().map(str::to_string)).collect();
                rec.implementation = Some(v["implementation"].clone()).filter(|i| !i.is_null());
            }
            Some("call") => {
                let reply = if let Some(ok) = v["reply"].get("ok") {
                    let mut ok = ok.clone();
                    store.intern_field(&mut ok);
                    ReplyRecord::Ok(ok)
                } else if let Some(t) = v["reply"].get("threw") {
                    ReplyRecord::Threw { code: t["code"].as_i64().unwrap_or(-32000), message: t["message"].as_str().unwrap_or_default().to_string() }
                } else if let Some(f) = v["reply"].get("fault") {
                    ReplyRecord::Fault { kind: f["kind"].as_str().unwrap_or("engine-fault").into(), message: f["message"].as_str().unwrap_or_default().into() }
                } else {
                    ReplyRecord::Skipped
                };
                let callbacks = v["callbacks"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        let mut params = c["params"].clone();
                        store.intern_field(&mut params);
                        // A callback the host failed (the bridge records `threw`): the engine got that error.
                        let result = match c.get("threw") {
                            Some(t) => serde_json::json!({"threw": t}),
                            None => c["result"].clone(),
                        };
                        CallbackRecord { method: c["method"].as_str().unwrap_or_default().into(), params, result }
                    })
                    .collect();
                let mut params = v["params"].take();
                store.intern_field(&mut params);
                events.push(Event::Call(CallRecord {
                    seq: events.len() as u32 + 1,
                    turn: turns,
                    attempt: 1,
                    step,
                    method: v["method"].as_str().unwrap_or_default().into(),
                    params,
                    meta: Default::default(),
                    callbacks,
                    reply,
                }));
            }
            _ => {}
        }
    }
    Ok(Trace::new(scenario.id.clone(), profile.id.clone(), rec, events, Outcome::Completed { turns, failed_turns: vec![] }, store))
}

/// Replace the absolute `from` prefix in every string with `to`.
fn relocate(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) if s.contains(from) => *s = s.replace(from, to),
        Value::Array(a) => a.iter_mut().for_each(|x| relocate(x, from, to)),
        Value::Object(o) => o.values_mut().for_each(|x| relocate(x, from, to)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host callback the real host failed reads as its error, so a
    /// fallback the engine took is explained in the trace.
    #[test]
    fn a_failed_host_callback_is_recorded_with_its_error() {
        let s = super::super::plan::scenario_from_script("  - compact: {}");
        let engine = EngineSpec::builtin_at("clawspec", "window");
        let ndjson = [
            r#"{"kind":"initialize","info":{"id":"window"},"methods":["compact"]}"#,
            r#"{"kind":"step","step":0}"#,
            r#"{"kind":"call","seq":1,"method":"compact","params":{},"reply":{"ok":{"ok":true,"compacted":false}},"callbacks":[{"method":"host/llm.complete","params":{"messages":[]},"threw":"Async work scope is closed"},{"method":"host/llm.complete","params":{},"result":{"text":"S"}}]}"#,
        ]
        .join("\n");
        let t = to_trace(&s, &Profile::current_2026_9_6(), &engine, &ndjson, Path::new("/w")).expect("trace");
        let call = t.calls().next().expect("one call");
        assert_eq!(call.callbacks[0].result, serde_json::json!({"threw": "Async work scope is closed"}));
        assert_eq!(call.callbacks[1].result, serde_json::json!({"text": "S"}));
    }
}
