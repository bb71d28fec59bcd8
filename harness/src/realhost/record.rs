//! The bridge's NDJSON (one line per engine call as received, plus the host
//! runner's step markers) → a [`Trace`], in the reference runtime's shape:
//! the run's state directory reads `$STATE`, as in reference traces.

use std::path::Path;

use serde_json::Value;

use crate::driver::EngineSpec;
use crate::runtime::profile::Profile;
use crate::scenario::model::Scenario;
use crate::runtime::callbacks::Callbacks;
use crate::trace::{CallRecord, CallbackRecord, EngineOutput, EngineRecord, Event, LogLine, Outcome, ReplyRecord, Trace};

pub fn to_trace(scenario: &Scenario, profile: &Profile, engine: &EngineSpec, ndjson: &str, work: &Path) -> Result<Trace, String> {
    to_trace_on(scenario, profile, engine, ndjson, work, None)
}

/// [`to_trace`] for a row run on a gateway started for an earlier row
/// (`realhost::reuse`): the gateway's own directory (config, log, the state
/// dir holding plugin skills and the host's databases) is the row's `$WORK`
/// and `$STATE` too, as it is on a gateway started for the row, where both
/// are one directory. The row's own paths (session store, workspace, engine
/// cwd, trace) are under `work`.
pub fn to_trace_on(scenario: &Scenario, profile: &Profile, engine: &EngineSpec, ndjson: &str, work: &Path, gateway: Option<&Path>) -> Result<Trace, String> {
    let state = work.join("state").to_string_lossy().into_owned();
    let work = work.to_string_lossy().into_owned();
    let gateway = gateway.map(|g| (g.join("state").to_string_lossy().into_owned(), g.to_string_lossy().into_owned()));
    let mut rec = EngineRecord { display: engine.display.clone(), info: None, methods: vec![], implementation: None, hooks: Value::Null };
    let mut events = Vec::new();
    // Message arrays go to the trace's content-addressed store, as the
    // reference runtime records them.
    let mut store = crate::trace::MessageStore::default();
    let (mut step, mut turns) = (0usize, 0u32);
    let mut lines = Vec::new();
    for (n, line) in ndjson.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let mut v: Value = serde_json::from_str(line).map_err(|e| format!("bridge trace line {}: {e}", n + 1))?;
        relocate(&mut v, &state, "$STATE");
        relocate(&mut v, &work, "$WORK");
        if let Some((gstate, gwork)) = &gateway {
            relocate(&mut v, gstate, "$STATE");
            relocate(&mut v, gwork, "$WORK");
        }
        lines.push(v);
    }
    let lanes = HostRunLanes::of(&lines);
    for mut v in lines {
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
                let step = lanes.step_of(&v).unwrap_or(step);
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
                let output = EngineOutput { log: call_log(&v), stderr: String::new() };
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
                    // The engine's `$/log` lines the bridge received while
                    // the call was in flight (per-call stderr stays out, as
                    // in reference traces).
                    output,
                    reply,
                }));
            }
            _ => {}
        }
    }
    // A host run's calls moved to their step: in step order, recorded order within a step.
    events.sort_by_key(|e| match e {
        Event::Call(c) => c.step,
        _ => usize::MAX,
    });
    for (i, e) in events.iter_mut().enumerate() {
        if let Event::Call(c) = e {
            c.seq = i as u32 + 1;
        }
    }
    Ok(Trace::new(scenario.id.clone(), profile.id.clone(), rec, events, Outcome::Completed { turns, failed_turns: vec![] }, store))
}

/// A bridge call's `log` (the engine's `$/log` params as received, the
/// bridge keeping at most 64 KiB of them and counting the rest in
/// `logDropped`) as the reference runtime records a call's log: through the
/// same handler, so capped the same way (`LOG_KEEP_BYTES` of messages, long
/// lines cut, then one `clawspec` line counting every line dropped). The
/// bridge keeps more than the cap, so its dropped lines are past the cap
/// here too and are counted with the rest.
fn call_log(v: &Value) -> Vec<LogLine> {
    use crate::driver::HostHandler;
    let mut cb = Callbacks::new(&[]);
    for l in v["log"].as_array().into_iter().flatten() {
        cb.notification(clawspec_contract::protocol::method::LOG, l);
    }
    cb.log_dropped += v["logDropped"].as_u64().unwrap_or(0) as usize;
    cb.take_log()
}

/// The step a spawned child's run belongs to. The host runs a child on its
/// own lane (`subagent`, docs/concepts/queue.md), concurrently with the
/// parent's run and whatever step the runner drives next, so when its engine
/// calls arrive says nothing about the step: under load they landed inside
/// the spawn turn's step, even before the parent's own last calls (fidelity
/// table of 2026-11-24, 2026.9.6 subagent-ended-reasons and spawn-light-isolated
/// on builtin:window). The runner names the child each announce step's run
/// reports (`hostRun` records, adapters/openclaw-bridge/lib/steps.js
/// awaitRun, from the announce's run id), and every call on that child's
/// session — by the call's `sessionKey`, or for a sessionless call (dispose)
/// by the session of the engine instance it was made on (the bridge's
/// `instance`) — belongs to that step, as in the reference runtime.
/// Nothing else moves: the parent's own calls stay where they were recorded.
#[derive(Default)]
struct HostRunLanes {
    step_of_session: std::collections::HashMap<String, usize>,
    session_of_instance: std::collections::HashMap<u64, String>,
}

impl HostRunLanes {
    fn of(lines: &[Value]) -> Self {
        let mut lanes = HostRunLanes::default();
        for v in lines {
            match v["kind"].as_str() {
                Some("hostRun") => {
                    if let (Some(key), Some(step)) = (v["sessionKey"].as_str(), v["step"].as_u64()) {
                        lanes.step_of_session.entry(key.to_string()).or_insert(step as usize);
                    }
                }
                Some("call") => {
                    if let (Some(i), Some(key)) = (v["instance"].as_u64(), v["params"]["sessionKey"].as_str()) {
                        lanes.session_of_instance.entry(i).or_insert_with(|| key.to_string());
                    }
                }
                _ => {}
            }
        }
        lanes
    }

    fn step_of(&self, call: &Value) -> Option<usize> {
        let session = call["params"]["sessionKey"].as_str().map(str::to_string).or_else(|| call["instance"].as_u64().and_then(|i| self.session_of_instance.get(&i).cloned()))?;
        self.step_of_session.get(&session).copied()
    }
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

    /// A child's calls that reached the engine inside the spawn turn's step
    /// (its lane runs concurrently) belong to the announce step that reports
    /// it; its sessionless dispose goes with its instance; the parent's calls
    /// and a sessionless call of another instance stay where they were.
    #[test]
    fn a_childs_calls_belong_to_the_step_of_its_announce() {
        let s = super::super::plan::scenario_from_script("  - compact: {}");
        let engine = EngineSpec::builtin_at("clawspec", "window");
        let child = "agent:main:subagent:c1";
        let ndjson = [
            r#"{"kind":"step","step":0}"#.to_string(),
            r#"{"kind":"call","instance":1,"method":"assemble","params":{"sessionKey":"agent:main:main"},"reply":{"ok":{}}}"#.into(),
            r#"{"kind":"call","instance":2,"method":"prepareSubagentSpawn","params":{"childSessionKey":"agent:main:subagent:c1"},"reply":{"ok":{}}}"#.into(),
            r#"{"kind":"call","instance":2,"method":"dispose","params":{},"reply":{"ok":null}}"#.into(),
            format!(r#"{{"kind":"call","instance":3,"method":"assemble","params":{{"sessionKey":"{child}"}},"reply":{{"ok":{{}}}}}}"#),
            r#"{"kind":"call","instance":1,"method":"commitTurn","params":{"sessionKey":"agent:main:main"},"reply":{"ok":{}}}"#.into(),
            r#"{"kind":"step","step":1}"#.into(),
            format!(r#"{{"kind":"call","instance":3,"method":"commitTurn","params":{{"sessionKey":"{child}"}},"reply":{{"ok":{{}}}}}}"#),
            r#"{"kind":"call","instance":3,"method":"dispose","params":{},"reply":{"ok":null}}"#.into(),
            format!(r#"{{"kind":"hostRun","step":1,"sessionKey":"{child}","runId":"announce:v1:{child}:r1"}}"#),
            r#"{"kind":"call","instance":4,"method":"bootstrap","params":{"sessionKey":"agent:main:main"},"reply":{"ok":{}}}"#.into(),
        ]
        .join("\n");
        let t = to_trace(&s, &Profile::current_2026_9_6(), &engine, &ndjson, Path::new("/w")).expect("trace");
        let got: Vec<(usize, String, String)> = t.calls().map(|c| (c.step, c.method.clone(), c.params["sessionKey"].as_str().unwrap_or("-").to_string())).collect();
        let want: Vec<(usize, &str, &str)> = vec![
            (0, "assemble", "agent:main:main"),
            (0, "prepareSubagentSpawn", "-"),
            (0, "dispose", "-"),
            (0, "commitTurn", "agent:main:main"),
            (1, "assemble", child),
            (1, "commitTurn", child),
            (1, "dispose", "-"),
            (1, "bootstrap", "agent:main:main"),
        ];
        assert_eq!(got, want.into_iter().map(|(a, b, c)| (a, b.to_string(), c.to_string())).collect::<Vec<_>>());
        assert_eq!(t.calls().map(|c| c.seq).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>(), "renumbered in the new order");
        // Without the runner's hostRun record nothing moves.
        let unmarked: String = ndjson.lines().filter(|l| !l.contains("hostRun")).collect::<Vec<_>>().join("\n");
        let t = to_trace(&s, &Profile::current_2026_9_6(), &engine, &unmarked, Path::new("/w")).expect("trace");
        assert_eq!(t.calls().map(|c| c.step).collect::<Vec<_>>(), [0, 0, 0, 0, 0, 1, 1, 1]);
    }

    /// The engine's `$/log` lines the bridge recorded for a call are that
    /// call's `output.log`, capped as the reference runtime caps them (the
    /// bridge's own dropped lines counted with the rest); the twin compares
    /// what the engine received, so they never make a row differ.
    #[test]
    fn the_bridges_log_lines_are_the_calls_output_capped_as_the_reference_caps_them() {
        let s = super::super::plan::scenario_from_script("  - compact: {}");
        let engine = EngineSpec::builtin_at("clawspec", "window");
        let long = "x".repeat(1000);
        let lines: Vec<String> = (0..40).map(|_| format!(r#"{{"level":"info","message":"{long}"}}"#)).collect();
        let ndjson = [
            r#"{"kind":"initialize","info":{"id":"window"},"methods":["compact"]}"#.to_string(),
            r#"{"kind":"notification","method":"$/log","params":{"level":"info","message":"during initialize: not a call's"}}"#.into(),
            r#"{"kind":"step","step":0}"#.into(),
            format!(r#"{{"kind":"call","seq":1,"method":"compact","params":{{}},"reply":{{"ok":{{"ok":true,"compacted":false}}}},"log":[{{"level":"warn","message":"state at /w/state/x"}},{{"level":7,"message":{{"a":1}}}},{}],"logDropped":5}}"#, lines.join(",")),
            r#"{"kind":"call","seq":2,"method":"compact","params":{},"reply":{"ok":{"ok":true,"compacted":false}}}"#.into(),
        ]
        .join("\n");
        let t = to_trace(&s, &Profile::current_2026_9_6(), &engine, &ndjson, Path::new("/w")).expect("trace");
        let calls: Vec<&CallRecord> = t.calls().collect();
        let log = &calls[0].output.log;
        assert_eq!((log[0].level.as_str(), log[0].message.as_str()), ("warn", "state at $STATE/x"));
        assert_eq!((log[1].level.as_str(), log[1].message.as_str()), ("7", r#"{"a":1}"#));
        // The reference runtime's handler, fed the same 42 lines.
        let mut reference = Callbacks::new(&[]);
        {
            use crate::driver::HostHandler;
            reference.notification("$/log", &serde_json::json!({"level": "warn", "message": "state at $STATE/x"}));
            reference.notification("$/log", &serde_json::json!({"level": 7, "message": {"a": 1}}));
            for _ in 0..40 {
                reference.notification("$/log", &serde_json::json!({"level": "info", "message": long}));
            }
        }
        let kept = reference.log.len();
        let want_dropped = reference.log_dropped + 5;
        assert_eq!(log.len(), kept + 1);
        assert_eq!(log[..kept], reference.take_log()[..kept]);
        assert_eq!(log[kept].level, "clawspec");
        assert_eq!(log[kept].message, format!("[… {want_dropped} more `$/log` lines dropped (over {} bytes in this call) …]", crate::trace::LOG_KEEP_BYTES));
        assert!(calls[1].output.log.is_empty(), "a call during which the engine said nothing has no log");
        // Not part of the twin comparison.
        let mut quiet = t.clone();
        for e in &mut quiet.events {
            if let Event::Call(c) = e {
                c.output = Default::default();
            }
        }
        assert!(crate::twin::diff(&t, &quiet).is_none());
    }

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
