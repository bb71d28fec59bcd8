//! Comparing what an engine received on the real OpenClaw host with what it
//! received from the reference runtime. Both traces are reduced to the calls
//! (step, method, params, reply) and normalised by the rules below — and
//! nothing else — then diffed line by line. The rules only erase values that
//! are unique to one run by construction:
//!
//! 1. **Ids** at the keys in [`ID_FAMILIES`] become `<family:N>`, N counting
//!    distinct values in order of first appearance (so "the same session
//!    twice" and "two different sessions" stay distinguishable). AbortSignal
//!    handles (`$abortSignal`) and session-entry revisions are ids too.
//! 2. **Wall-clock times** at the keys in [`TIME_KEYS`] become `<time>`
//!    (a session store entry's `updatedAt`/`sessionStartedAt`/`lastInteractionAt` too).
//! 3. **Paths**: the run's state directory is `$STATE` on both hosts
//!    (done when each trace is recorded); the agent's workspace directory
//!    (real: `$WORK/workspace`, the host-runner's `agents.defaults.workspace`;
//!    reference: `$STATE/workspace`) is `$WORKSPACE` — only as a whole value
//!    or a path prefix, and inside the one prompt line that names it:
//!    2026.4.26's heartbeat hint `When reading HEARTBEAT.md, use workspace
//!    file <workspace>/HEARTBEAT.md` (dist/heartbeat-runner-*.js
//!    `appendHeartbeatWorkspacePathHint`).
//! 4. **The bridge's registration id** `clawspec-bridge` (the real host needs
//!    one plugin id per slot) reads as the engine's own `info.id`.
//! 5. **Host environment**: the values at [`ENVIRONMENT_KEYS`] (the host's
//!    whole loaded configuration, skill catalogue and session store record
//!    inside `runtimeContext`)
//!    become `<host environment>`: compared for presence, not content — the
//!    reference runtime does not reproduce OpenClaw's config defaults.
//! 6. **Key order**: object keys are compared sorted (JSON objects are
//!    unordered; engines receive parsed objects).
//! 7. **Envelope times**: the wall-clock stamp a gateway puts on a message
//!    body, `[Ddd YYYY-MM-DD HH:MM UTC]` (2026.4.26 dist agent-timestamp-*.js
//!    `injectTimestamp`), reads `[<envelope time>]` anywhere in a string; the
//!    rest of the string is compared as is.
//! 8. **Session file names**: the file stem of a `sessionFile` (or a spawn's
//!    `parentSessionFile`/`childSessionFile`) ending in `.jsonl` (2026.4.x
//!    names the transcript `<sessionId>.jsonl`) is a session id (rule 1's
//!    `session` family); a branched session's stem `<ISO time>_<sessionId>`
//!    (a fork, pi's createBranchedSession) reads `<time>_<session:N>`; the
//!    directory is compared as is.
//! 9. **Subagent session keys**: inside any string, the child part of
//!    `agent:<agentId>:subagent:<id>` (the host mints a UUID,
//!    docs/tools/subagents.md; a scenario scripts its own) becomes
//!    `<child:N>`, counted like rule 1; the agent id and the rest of the
//!    string are kept, so another agent or key shape still differs.
//! 10. **Measured completion stats**: in a subagent completion's text, the
//!    `session_id: <id>` line (the child's minted session id, counted in the
//!    `session` family of rule 1) and the `Stats: runtime …` line (measured
//!    runtime and token usage; docs/tools/subagents/announce.md "Stats line")
//!    read `<session:N>` and `Stats: <measured>`.
//! 11. **Current-time lines**: the wall-clock line OpenClaw appends to a
//!    cron-style prompt (the heartbeat poll, the bare-reset prompt; dist
//!    current-time-*.mjs `appendCronStyleCurrentTimeLine`), a line
//!    `Current time: <local time> (UTC)` (2026.4.26: ` / <utc>` after it)
//!    and 2026.9.6's `Reference UTC: YYYY-MM-DD HH:MM UTC`, reads
//!    `Current time: <current time> (UTC)` and `Reference UTC: <current
//!    time>`. The local time's format follows the host's locale (12 or
//!    24 hours) and is erased with it; the rest of the string is compared.
//! 12. **Measured tool durations**: a number at `durationMs` (a real tool's
//!    run time, e.g. 2026.4.26 exec details, dist/bash-tools-*.js
//!    `buildExecForegroundResult`) becomes `<duration>`.
//! 13. **Provider endpoint**: a `modelRoute`'s `baseUrl` (2026.9.6
//!    `runtimeAuthPlan.modelRoute`, prepare-auth-*.mjs `toPreparedRoute`)
//!    reads `<provider endpoint>`: the real host's points at the mock
//!    provider on a loopback port the OS picked, the reference's at the
//!    provider's public endpoint; the rest of the route is compared as is.
//! 14. **Inbound media**: a media note's staged attachment path
//!    (`[media attached: <workspace>/media/inbound/…`, media-note-*.mjs)
//!    reads `$WORKSPACE/…` as in rule 3, and the ids the gateway mints for
//!    a stored attachment — `openclaw-staged-<id>/`, `input-<id>.`,
//!    `media://inbound/<id>.` — read `<media:N>`, counted like rule 1 (the
//!    staged file and the media URL share one id).
//! 15. **Spawn receipts**: the text of the host's `sessions_spawn` answer
//!    (`"status": "accepted"`, dist/sessions-spawn-tool-*.mjs, pretty JSON
//!    by dist/tool-results-*.mjs `jsonResult`) names the child's minted run
//!    id as `"runId": "<uuid>"`; that value counts in rule 1's `run` family
//!    (the same receipt's `details.runId` is already an id by rule 1).
//! 16. **Budgets that count a measured duration**: an `assemble` whose
//!    `prompt` carries a completion's `Stats: runtime …` line (rule 10) has
//!    its `tokenBudget` and `runtimeSettings.limits.promptTokenBudget` read
//!    `<budget counting measured stats>`: the host subtracts the prompt's
//!    estimate, which counts the child's measured run time (`571ms`, `3s`,
//!    dist/subagent-announce-output-*.mjs `buildCompactAnnounceStatsLine`
//!    `formatDurationCompact`), so the budget moves by a token or two with
//!    the machine's load. The prompt itself is still compared (rule 10).
//!    So does a prompt carrying a current-time line (rule 11: the heartbeat
//!    poll, the bare-reset prompt): its budget reads `<budget counting the
//!    current time>`, since the line's length — and the host's estimate of
//!    it, `chars / 4` — follows the wall clock (twin of heartbeat-ok on
//!    2026.9.6: equal on 2026-11-24, "Tuesday, November 24th, 2026 - 9:34
//!    AM" as long as the reference's fixed time; two tokens more budget on
//!    Sunday the 29th at 4:30 AM, one character shorter).
//! 17. **System event times**: the moment a queued system event was
//!    enqueued, stamped on its `System: [YYYY-MM-DD HH:MM:SS UTC] …` line
//!    (2026.4.26 dist/session-system-events-*.js `drainFormattedSystemEvents`:
//!    `event.ts`, the gateway's `Date.now()` when the `system-event` RPC
//!    queued it, `formatUtcTimestamp(…, {displaySeconds: true})` under the
//!    runner's `TZ=UTC`), reads `System: [<event time>]` (also after `System
//!    (untrusted):`); the event text is compared as is. The gateway's clock
//!    cannot be pinned by a documented setting (`TZ` and
//!    `agents.defaults.envelopeTimezone` choose the zone, not the time).
//! 18. **Estimates over erased text**: an engine's `assemble` answer
//!    `estimatedTokens` reads `<estimate counting erased text>` when the
//!    messages it was given carry text rules 3 or 11 erase: 2026.4.26 keeps
//!    the heartbeat prompt in history as a runtime-context message
//!    (dist/runtime-context-prompt-*.js `queueRuntimeContextForNextTurn`),
//!    with its wall-clock line and the run's workspace path, whose lengths
//!    differ per run and host (twin of heartbeat-ok on builtin:window: 160 vs
//!    165). The messages themselves are still compared.
//!
//! **Not compared: what the engine said.** A call's host callbacks and
//! `output.log` (its `$/log` lines) are recorded on both hosts — the bridge
//! records `$/log` per call as the reference driver reads it, capped the same
//! way (adapters/openclaw-bridge/index.js `engineNotification`,
//! `realhost::record` `call_log`) — so `certify --host` failing verdicts show
//! them, but the twin compares what the engine *received* (and answered), not
//! what it logged: an engine may log wall-clock times or pids, and a log line
//! is never a verdict input (docs/protocol.md, "Notifications").
//!
//! Inputs the reference runtime does not model are taken from the real run
//! before the reference runs (`cli::twin`): the system prompt text the host
//! built for the attempt (rebuilt from what it sent the model, see
//! [`host_system_prompt`]) and the tool catalogue it offered (`availableTools`).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::trace::{ReplyRecord, Trace};

/// Key → family; values in one family share a counter.
pub const ID_FAMILIES: &[(&str, &str)] = &[
    ("sessionId", "session"),
    ("childSessionId", "session"),
    ("parentSessionId", "session"),
    ("originSessionId", "session"),
    ("advancementKey", "turn"),
    ("logicalTurnId", "turn"),
    ("entryId", "entry"),
    ("effectiveParentId", "entry"),
    ("firstKeptEntryId", "entry"),
    ("generation", "generation"),
    ("idempotencyKey", "idempotency"),
    ("runId", "run"),
    ("responseId", "response"),
    ("diagId", "diag"),
    ("expectedLifecycleRevision", "revision"),
    ("expectedWriterRunId", "run"),
    // The inbound message id of a turn (`chat.send`'s idempotency key on the gateway).
    ("currentMessageId", "message"),
    // AbortSignal handles (`{"$abortSignal": id}`, docs/protocol.md): the
    // bridge numbers them `sig-<n>`, the reference `sig-<nnnn>`.
    ("$abortSignal", "signal"),
    // The session store entry's owner revision (same family as the target's
    // `expectedLifecycleRevision`, so one session's revision matches itself).
    ("lifecycleRevision", "revision"),
];

/// Workspace paths of the two hosts (rule 3).
pub const WORKSPACE_PATHS: &[&str] = &["$WORK/workspace", "$STATE/workspace"];

pub const TIME_KEYS: &[&str] = &["timestamp", "recordTimestampMs", "expiresAt", "lastCacheTouchAt", "endedAt", "startedAt", "createdAt", "updatedAt", "sessionStartedAt", "lastInteractionAt"];

pub const BRIDGE_ID: &str = "clawspec-bridge";

/// Keys (inside `runtimeContext`) whose values are the host's environment:
/// its loaded config, skill catalogue, and (a manual `/compact`'s context)
/// the session store record, which after a turn holds the host's own
/// bookkeeping — workspace-file fingerprints, the system-prompt report with
/// hashes, the utility model's activity recap (seen in `clawspec twin
/// compact-state-effect`).
pub const ENVIRONMENT_KEYS: &[&str] = &["config", "skillsSnapshot", "sessionEntry"];

/// `SYSTEM_PROMPT_CACHE_BOUNDARY` / `SYSTEM_PROMPT_RELOCATABLE_BOUNDARY(_END)`
/// (2026.9.6 `@openclaw/ai` dist `simple-options-*.mjs`).
pub const CACHE_BOUNDARY: &str = "\n<!-- OPENCLAW_CACHE_BOUNDARY -->\n";
pub const RELOCATABLE_BOUNDARY: &str = "\n<!-- OPENCLAW-RELOCATABLE-BOUNDARY -->\n";
pub const RELOCATABLE_BOUNDARY_END: &str = "\n<!-- /OPENCLAW-RELOCATABLE-BOUNDARY -->";

/// The system prompt as the host built it for the attempt (the text its
/// assemble budget estimates), from the Anthropic `system` blocks it sent.
/// 2026.9.6 builds `STABLE + CACHE_BOUNDARY + DYNAMIC` (builtin-openclaw-*.mjs
/// `buildAttemptSystemPrompt`), with the `Runtime:` line wrapped in the
/// relocatable markers (system-prompt-params-*.mjs, `## Runtime` section);
/// the Anthropic transport splits at the cache boundary into two blocks and
/// replaces the opening marker by a newline and drops the closing one
/// (anthropic-stream-reducer-*.mjs `applyAnthropicCacheControlToSystem`).
/// Both markers count in the budget (`estimateRenderedLlmBoundaryTokenPressure`),
/// so joining the blocks with a newline under-counts by 112 characters.
pub fn host_system_prompt(blocks: &[&str]) -> String {
    let rebuilt: Vec<String> = blocks
        .iter()
        .map(|b| {
            // The stripped opening marker leaves "\n\n\n" before the Runtime line.
            let Some(at) = b.rfind("\n\n\nRuntime: ") else { return b.to_string() };
            let line_start = at + 3;
            let line_end = b[line_start..].find('\n').map_or(b.len(), |i| line_start + i);
            format!("{}\n{}\n{}{}{}", &b[..at], RELOCATABLE_BOUNDARY, &b[line_start..line_end], RELOCATABLE_BOUNDARY_END, &b[line_end..])
        })
        .collect();
    rebuilt.join(CACHE_BOUNDARY)
}

/// Rule 7: every `[Ddd YYYY-MM-DD HH:MM UTC]` in `s` becomes `[<envelope time>]`.
pub fn erase_envelope_times(s: &str) -> Option<String> {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    // "[Ddd " + "dddd-dd-dd dd:dd" + " UTC]"
    let is_stamp = |w: &[u8]| {
        w.len() == 26
            && w[0] == b'['
            && DAYS.iter().any(|d| &w[1..4] == d.as_bytes())
            && w[4] == b' '
            && w[5..21].iter().zip(b"dddd-dd-dd dd:dd").all(|(c, p)| if *p == b'd' { c.is_ascii_digit() } else { c == p })
            && &w[21..] == b" UTC]"
    };
    let b = s.as_bytes();
    if !(0..(b.len() + 1).saturating_sub(26)).any(|i| is_stamp(&b[i..i + 26])) {
        return None;
    }
    let (mut out, mut i) = (String::with_capacity(s.len()), 0);
    while i < b.len() {
        if i + 26 <= b.len() && is_stamp(&b[i..i + 26]) {
            out.push_str("[<envelope time>]");
            i += 26;
        } else {
            let ch = s[i..].chars().next().expect("char boundary");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    Some(out)
}

/// Rule 18: history text whose length rules 3 and 11 erase (a current-time
/// line, the heartbeat hint's workspace path).
fn counts_erased_text(messages: &str) -> bool {
    messages.contains("Current time: ") || messages.contains(HEARTBEAT_HINT)
}

/// Rule 3: the words before the workspace path in 2026.4.26's heartbeat hint.
const HEARTBEAT_HINT: &str = "When reading HEARTBEAT.md, use workspace file ";

/// Rule 17: `System: [YYYY-MM-DD HH:MM:SS UTC] ` (and `System (untrusted): […] `)
/// at a line start in `s` reads `System: [<event time>] `.
pub fn erase_system_event_times(s: &str) -> Option<String> {
    const SHAPE: &[u8] = b"[dddd-dd-dd dd:dd:dd UTC] ";
    let is_stamp = |w: &[u8]| w.len() == SHAPE.len() && w.iter().zip(SHAPE).all(|(c, p)| if *p == b'd' { c.is_ascii_digit() } else { c == p });
    if !s.contains("System") {
        return None;
    }
    let mut changed = false;
    let lines: Vec<String> = s
        .split('\n')
        .map(|line| {
            for prefix in ["System: ", "System (untrusted): "] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    if rest.len() >= SHAPE.len() && is_stamp(&rest.as_bytes()[..SHAPE.len()]) {
                        changed = true;
                        return format!("{prefix}[<event time>] {}", &rest[SHAPE.len()..]);
                    }
                }
            }
            line.to_string()
        })
        .collect();
    changed.then(|| lines.join("\n"))
}

/// Rule 11: `Current time: … (UTC)` / `Reference UTC: … UTC` lines in `s`.
pub fn erase_current_time_lines(s: &str) -> Option<String> {
    if !s.contains("Current time: ") && !s.contains("Reference UTC: ") {
        return None;
    }
    let mut changed = false;
    let lines: Vec<String> = s
        .split('\n')
        .map(|line| {
            if let Some(rest) = line.strip_prefix("Current time: ") {
                if let Some(at) = rest.find(" (UTC)") {
                    let tail = &rest[at + " (UTC)".len()..];
                    // 2026.4.26 adds ` / YYYY-MM-DD HH:MM UTC` on the same line.
                    let tail = if tail.starts_with(" / ") && tail.ends_with(" UTC") { " / <current time>" } else { tail };
                    changed = true;
                    return format!("Current time: <current time> (UTC){tail}");
                }
            }
            if line.starts_with("Reference UTC: ") && line.ends_with(" UTC") {
                changed = true;
                return "Reference UTC: <current time>".to_string();
            }
            line.to_string()
        })
        .collect();
    changed.then(|| lines.join("\n"))
}

#[derive(Default)]
struct Normaliser {
    seen: BTreeMap<&'static str, BTreeMap<String, usize>>,
    engine_id: Option<String>,
}

impl Normaliser {
    fn value(&mut self, key: Option<&str>, v: &mut Value) {
        if let Some(k) = key {
            if let Some((_, fam)) = ID_FAMILIES.iter().find(|(name, _)| *name == k) {
                if !v.is_null() {
                    let raw = match &*v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let ids = self.seen.entry(fam).or_default();
                    let n = ids.len() + 1;
                    let n = *ids.entry(raw).or_insert(n);
                    *v = json!(format!("<{fam}:{n}>"));
                    return;
                }
            }
            if SESSION_FILE_KEYS.contains(&k) {
                if let Some((dir, stem)) = v.as_str().and_then(|f| f.strip_suffix(".jsonl")).and_then(|f| f.rsplit_once('/')) {
                    // A branched session's file: `<ISO time>_<session id>` (rule 8).
                    let (time, id) = match stem.split_once('_') {
                        Some((t, id)) if is_file_time(t) => ("<time>_", id),
                        _ => ("", stem),
                    };
                    let ids = self.seen.entry("session").or_default();
                    let n = ids.len() + 1;
                    let n = *ids.entry(id.to_string()).or_insert(n);
                    *v = json!(format!("{dir}/{time}<session:{n}>.jsonl"));
                    return;
                }
            }
            if TIME_KEYS.contains(&k) && v.is_number() {
                *v = json!("<time>");
                return;
            }
            if k == "durationMs" && v.is_number() {
                *v = json!("<duration>");
                return;
            }
        }
        if let Value::String(s) = v {
            if let Some(erased) = erase_envelope_times(s) {
                *s = erased;
            }
            if let Some(erased) = erase_current_time_lines(s) {
                *s = erased;
            }
            if let Some(erased) = erase_system_event_times(s) {
                *s = erased;
            }
            for w in WORKSPACE_PATHS {
                let hint = format!("{HEARTBEAT_HINT}{w}/");
                if s.contains(&hint) {
                    *s = s.replace(&hint, &format!("{HEARTBEAT_HINT}$WORKSPACE/"));
                }
            }
            self.measured_text(s);
            self.media_text(s);
        }
        match v {
            Value::String(s) if WORKSPACE_PATHS.iter().any(|w| s == w || s.starts_with(&format!("{w}/"))) => {
                let w = WORKSPACE_PATHS.iter().find(|w| s.starts_with(*w)).expect("matched");
                *s = format!("$WORKSPACE{}", &s[w.len()..]);
            }
            Value::String(s) if s == BRIDGE_ID => {
                if let Some(id) = &self.engine_id {
                    *s = id.clone();
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.value(None, x)),
            Value::Object(o) => {
                // Sorted before the walk: ids are numbered in a canonical
                // order, not in each host's key-insertion order.
                o.sort_keys();
                erase_measured_budgets(o);
                for (k, x) in o.iter_mut() {
                    if key == Some("runtimeContext") && ENVIRONMENT_KEYS.contains(&k.as_str()) {
                        *x = json!("<host environment>");
                        continue;
                    }
                    if key == Some("modelRoute") && k == "baseUrl" && x.is_string() {
                        *x = json!("<provider endpoint>");
                        continue;
                    }
                    self.value(Some(k.as_str()), x);
                }
            }
            _ => {}
        }
    }
}

/// Rule 16: the budgets of an assemble whose prompt counts a measured stats
/// line or a current-time line.
fn erase_measured_budgets(o: &mut serde_json::Map<String, Value>) {
    let prompt = o.get("prompt").and_then(Value::as_str).unwrap_or_default();
    let erased = if prompt.contains(STATS_LINE) && prompt.contains("[Internal task completion event]") {
        "<budget counting measured stats>"
    } else if prompt.contains("Current time: ") || prompt.contains("Reference UTC: ") {
        "<budget counting the current time>"
    } else {
        return;
    };
    if let Some(b) = o.get_mut("tokenBudget").filter(|b| b.is_number()) {
        *b = json!(erased);
    }
    if let Some(b) = o.get_mut("runtimeSettings").and_then(|r| r.get_mut("limits")).and_then(|l| l.get_mut("promptTokenBudget")).filter(|b| b.is_number()) {
        *b = json!(erased);
    }
}

/// `agent:<agentId>:subagent:` — a subagent session key's fixed part (rule 7).
const SUBAGENT_KEY_INFIX: &str = ":subagent:";
/// The completion block's lines rule 8 rewrites.
const SESSION_ID_LINE: &str = "session_id: ";
const STATS_LINE: &str = "Stats: runtime ";
/// Rule 11: a spawn receipt's run id.
const RECEIPT_RUN_ID: &str = "\"runId\": \"";
const RECEIPT_ACCEPTED: &str = "\"status\": \"accepted\"";

impl Normaliser {
    fn counted(&mut self, fam: &'static str, raw: &str) -> String {
        let ids = self.seen.entry(fam).or_default();
        let n = ids.len() + 1;
        let n = *ids.entry(raw.to_string()).or_insert(n);
        format!("<{fam}:{n}>")
    }

    /// Rules 7 and 8 inside one string.
    fn measured_text(&mut self, s: &mut String) {
        if s.contains(SUBAGENT_KEY_INFIX) {
            *s = self.child_keys(s);
        }
        if s.contains(SESSION_ID_LINE) && s.contains("[Internal task completion event]") {
            *s = self.rewrite_line_values(s, SESSION_ID_LINE, |n, id| n.counted("session", id));
        }
        if s.contains(RECEIPT_RUN_ID) && s.contains(RECEIPT_ACCEPTED) {
            *s = self.rewrite_line_values(s, RECEIPT_RUN_ID, |n, id| n.counted("run", id));
        }
        if s.contains(STATS_LINE) {
            *s = self.rewrite_line_values(s, STATS_LINE, |_, _| "<measured>".to_string()).replace("Stats: runtime <measured>", "Stats: <measured>");
        }
    }

    /// Rule 14 inside one string.
    fn media_text(&mut self, s: &mut String) {
        const NOTE: &str = "[media attached";
        if s.contains(NOTE) {
            for w in WORKSPACE_PATHS {
                *s = s.replace(&format!(": {w}/media/"), ": $WORKSPACE/media/");
            }
        }
        for (open, close) in [("openclaw-staged-", '/'), ("/input-", '.'), ("media://inbound/", '.')] {
            if !s.contains(open) {
                continue;
            }
            let mut out = String::with_capacity(s.len());
            let mut rest = s.as_str();
            while let Some(at) = rest.find(open) {
                let start = at + open.len();
                out.push_str(&rest[..start]);
                let end = rest[start..].find(close).map_or(rest.len(), |e| start + e);
                let id = rest[start..end].to_string();
                out.push_str(&self.counted("media", &id));
                rest = &rest[end..];
            }
            out.push_str(rest);
            *s = out;
        }
    }

    fn child_keys(&mut self, s: &str) -> String {
        let is_agent = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find(SUBAGENT_KEY_INFIX) {
            let (head, tail) = rest.split_at(at);
            let agent_start = head.rfind(|c: char| !is_agent(c)).map_or(0, |i| i + 1);
            let id_len = tail[SUBAGENT_KEY_INFIX.len()..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(tail.len() - SUBAGENT_KEY_INFIX.len());
            let is_key = head[..agent_start].ends_with("agent:") && agent_start < head.len() && id_len > 0;
            out.push_str(head);
            if is_key {
                let id = &tail[SUBAGENT_KEY_INFIX.len()..SUBAGENT_KEY_INFIX.len() + id_len];
                let n = self.counted("child", id);
                out.push_str(SUBAGENT_KEY_INFIX);
                out.push_str(&n);
                rest = &tail[SUBAGENT_KEY_INFIX.len() + id_len..];
            } else {
                out.push_str(SUBAGENT_KEY_INFIX);
                rest = &tail[SUBAGENT_KEY_INFIX.len()..];
            }
        }
        out.push_str(rest);
        out
    }

    /// Replace the value after each `label` up to the line's end (a newline,
    /// an escaped `\n` inside JSON-quoted conversation data, or a quote).
    fn rewrite_line_values(&mut self, s: &str, label: &str, mut f: impl FnMut(&mut Self, &str) -> String) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find(label) {
            let start = at + label.len();
            out.push_str(&rest[..start]);
            let value = &rest[start..];
            let end = [value.find('\n'), value.find("\\n"), value.find('"')].into_iter().flatten().min().unwrap_or(value.len());
            out.push_str(&f(self, &value[..end]));
            rest = &value[end..];
        }
        out.push_str(rest);
        out
    }
}

/// The calls of `t`, normalised: one JSON object per call.
pub fn normalise(t: &Trace) -> Vec<Value> {
    let mut n = Normaliser { engine_id: t.engine.info.as_ref().and_then(|i| i["id"].as_str()).map(str::to_string), ..Default::default() };
    t.calls()
        .map(|c| {
            let reply = match &c.reply {
                ReplyRecord::Ok(v) => json!({"ok": t.resolve(v).into_owned()}),
                ReplyRecord::Threw { message, .. } => json!({"threw": message}),
                ReplyRecord::Fault { kind, .. } => json!({"fault": kind}),
                ReplyRecord::Skipped => json!("skipped"),
            };
            let params = t.params(c).into_owned();
            let estimate_counts_erased = c.method == "assemble" && params.get("messages").is_some_and(|m| counts_erased_text(&m.to_string()));
            let mut v = json!({"step": c.step, "method": c.method, "params": params, "reply": reply});
            n.value(None, &mut v);
            if estimate_counts_erased {
                if let Some(e) = v.pointer_mut("/reply/ok/estimatedTokens").filter(|e| e.is_number()) {
                    *e = json!("<estimate counting erased text>");
                }
            }
            v
        })
        .collect()
}

/// Why the pair tested nothing, when it did not: a run where the engine
/// never started, the reference ended in a harness/engine fault, or every
/// real turn failed before the engine was called records no calls, and two
/// empty traces must then never read as *equal* (a built-in engine whose
/// executable the real host could not spawn once passed every row that way).
/// `real_errors` are the host runner's failed steps (plan step index, the
/// error the host surfaced), quoted so the cause is visible.
///
/// Verdict rule V1 (failed before the engine, on both hosts): when the real
/// host called the engine nowhere and some of its steps failed, the row
/// still compared something only if the reference failed exactly the same
/// steps and called the engine nowhere either — then the empty call lists
/// and the per-step outcome (which steps failed) agree, as a run whose turns
/// all succeeded without the engine agrees by its empty call lists. The
/// error *texts* are not compared: the real host surfaces its user-facing
/// rendering of the provider error (2026.9.6 dist
/// embedded-agent-helpers-*.mjs `formatAssistantErrorText`, e.g. a 400
/// "…role…" reads "Message ordering conflict - please try again…"), which
/// the reference does not model; it records the provider's message. Any
/// other combination (different failed steps, calls on one side only) is
/// *error*, naming both sides' failed steps.
pub fn untested(reference: &Trace, real: &Trace, real_errors: &[(usize, String)]) -> Option<String> {
    use crate::trace::Outcome;
    let because = || match real_errors.first() {
        Some((_, e)) => format!(" (first step error on the real host: {e})"),
        None => String::new(),
    };
    match &reference.outcome {
        Outcome::EngineFault { kind, message, .. } => return Some(format!("the reference run ended early: engine fault {kind}: {message}")),
        Outcome::HarnessError { message } => return Some(format!("the reference run ended early: {message}")),
        Outcome::Completed { .. } => {}
    }
    if real.engine.info.is_none() {
        return Some(format!("the engine never started on the real host (the bridge recorded no initialize){}", because()));
    }
    // The real host ran the engine but every turn failed before reaching it
    // (e.g. its context-window guard): name the host's error, not a diff,
    // unless the reference failed the same steps without the engine (V1).
    if real.calls().next().is_none() && !real_errors.is_empty() {
        let real_failed: std::collections::BTreeSet<usize> = real_errors.iter().map(|(s, _)| *s).collect();
        let reference_failed = failed_steps(reference);
        if reference.calls().next().is_none() && reference_failed == real_failed {
            return None;
        }
        return Some(format!(
            "no engine call was recorded on the real host: nothing was compared (failed steps: real {real_failed:?}, reference {reference_failed:?}){}",
            because()
        ));
    }
    // Otherwise the diff decides: an engine both hosts kept out of every turn
    // (9.6 degrades an unfenced engine to its own legacy) legitimately agrees.
    None
}

/// The plan steps whose turn failed in a reference run (its `turn-failed` notes).
fn failed_steps(t: &Trace) -> std::collections::BTreeSet<usize> {
    t.events
        .iter()
        .filter_map(|e| match e {
            crate::trace::Event::Note(n) if n.code == "turn-failed" => Some(n.step),
            _ => None,
        })
        .collect()
}

/// Pretty text of normalised calls: the unit the diff works on.
pub fn render(calls: &[Value]) -> String {
    let mut out = String::new();
    for c in calls {
        out.push_str(&serde_json::to_string_pretty(c).unwrap());
        out.push('\n');
    }
    out
}

/// `None` when the twins agree, else a unified diff (`reference` → `real`).
pub fn diff(reference: &Trace, real: &Trace) -> Option<String> {
    let (a, b) = (render(&normalise(reference)), render(&normalise(real)));
    if a == b {
        return None;
    }
    let d = similar::TextDiff::from_lines(&a, &b);
    Some(d.unified_diff().context_radius(std::env::var("CLAWSPEC_TWIN_CONTEXT").ok().and_then(|v| v.parse().ok()).unwrap_or(4)).header("reference runtime", "real OpenClaw").to_string())
}

/// The keys whose value is a session's JSONL file (rule 8): the run's own,
/// and a spawn preparation's parent and child (2026.4.26 prepareSubagentSpawn
/// of a fork, dist/subagent-spawn-*.js prepareContextEngineSubagentSpawn).
const SESSION_FILE_KEYS: [&str; 3] = ["sessionFile", "parentSessionFile", "childSessionFile"];

/// pi's branched-session file time, `new Date().toISOString()` with `:` and
/// `.` as `-` (`2026-11-24T13-07-24-800Z`; @mariozechner/pi-coding-agent
/// dist/core/session-manager.js createBranchedSession).
fn is_file_time(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 24 && b[10] == b'T' && b[23] == b'Z' && b.iter().enumerate().all(|(i, c)| match i {
        4 | 7 | 13 | 16 | 19 => *c == b'-',
        10 | 23 => true,
        _ => c.is_ascii_digit(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{CallRecord, EngineRecord, Event, Outcome};

    fn trace(calls: Vec<(&str, Value)>) -> Trace {
        let mut store = crate::trace::MessageStore::default();
        let engine = EngineRecord { display: "e".into(), info: Some(json!({"id": "window"})), methods: vec![], implementation: None, hooks: Value::Null };
        let events = calls
                .into_iter()
                .enumerate()
                .map(|(i, (m, mut p))| {
                    store.intern_field(&mut p);
                    Event::Call(CallRecord { seq: i as u32, turn: 1, attempt: 1, step: 0, method: m.into(), params: p, meta: Default::default(), callbacks: vec![], output: Default::default(), reply: ReplyRecord::Ok(Value::Null) })
                })
                .collect();
        Trace::new("s".into(), "p".into(), engine, events, Outcome::Completed { turns: 1, failed_turns: vec![] }, store)
    }

    #[test]
    fn system_event_stamps_erase_their_time_and_keep_the_text() {
        // Rule 17 (twin of prompt-system-events on 2026.4.26).
        let real = "System: [2026-11-24 08:15:33 UTC] Cron job \"daily\" completed\nSystem (untrusted): [2026-11-24 08:15:34 UTC] ping\n\nhi";
        let reference = "System: [2026-01-01 00:00:01 UTC] Cron job \"daily\" completed\nSystem (untrusted): [2026-01-01 00:00:01 UTC] ping\n\nhi";
        let erased = erase_system_event_times(real).unwrap();
        assert_eq!(erased, "System: [<event time>] Cron job \"daily\" completed\nSystem (untrusted): [<event time>] ping\n\nhi");
        assert_eq!(erase_system_event_times(reference).unwrap(), erased);
        // Another event text still differs; a stamp elsewhere in a line is kept.
        assert_ne!(erase_system_event_times("System: [2026-01-01 00:00:01 UTC] Cron job \"weekly\" completed\nSystem (untrusted): [2026-01-01 00:00:01 UTC] ping\n\nhi").unwrap(), erased);
        assert_eq!(erase_system_event_times("said System: [2026-01-01 00:00:01 UTC] x"), None);
        assert_eq!(erase_system_event_times("System: [2026-01-01 00:00 UTC] x"), None);
    }

    #[test]
    fn an_estimate_over_a_current_time_line_is_erased_and_others_are_kept() {
        // Rule 18.
        let assemble = |text: &str, est: u64| {
            let mut t = trace(vec![("assemble", json!({"messages": [{"role": "custom", "content": text}]}))]);
            if let Event::Call(c) = &mut t.events[0] {
                c.reply = ReplyRecord::Ok(json!({"estimatedTokens": est, "messages": []}));
            }
            t
        };
        let a = assemble("poll\nCurrent time: Thursday, January 1st, 2026 - 12:00 AM (UTC) / 2026-01-01 00:00 UTC", 165);
        let b = assemble("poll\nCurrent time: Tuesday, November 24th, 2026 - 9:34 AM (UTC) / 2026-11-24 09:34 UTC", 160);
        assert_eq!(diff(&a, &b), None);
        assert!(diff(&assemble("plain", 165), &assemble("plain", 160)).is_some(), "no erased text: the estimate is compared");
    }

    #[test]
    fn the_heartbeat_hint_names_the_workspace_on_both_hosts() {
        // Rule 3 inside 2026.4.26's heartbeat prompt.
        let prompt = |w: &str| json!({"prompt": format!("reply HEARTBEAT_OK.\nWhen reading HEARTBEAT.md, use workspace file {w}/HEARTBEAT.md (exact case). Do not read docs/heartbeat.md.")});
        let a = trace(vec![("assemble", prompt("$STATE/workspace"))]);
        let b = trace(vec![("assemble", prompt("$WORK/workspace"))]);
        assert_eq!(diff(&a, &b), None);
        assert!(render(&normalise(&a)).contains("use workspace file $WORKSPACE/HEARTBEAT.md"));
        assert!(diff(&a, &trace(vec![("assemble", prompt("/elsewhere"))])).is_some());
    }

    #[test]
    fn ids_times_and_the_bridge_id_normalise_and_nothing_else_does() {
        let reference = trace(vec![
            ("assemble", json!({"sessionId": "sess-0001", "messages": [{"role": "user", "content": "hi", "timestamp": 1}], "runtimeSettings": {"contextEngineSelection": {"selectedId": "window"}}})),
            ("afterTurn", json!({"sessionId": "sess-0001"})),
        ]);
        let real = trace(vec![
            ("assemble", json!({"sessionId": "8630574f-c8a3", "messages": [{"role": "user", "content": "hi", "timestamp": 1795446426299u64}], "runtimeSettings": {"contextEngineSelection": {"selectedId": "clawspec-bridge"}}})),
            ("afterTurn", json!({"sessionId": "8630574f-c8a3"})),
        ]);
        assert_eq!(diff(&reference, &real), None);
    }

    #[test]
    fn workspace_paths_and_message_ids_normalise_but_other_paths_do_not() {
        let reference = trace(vec![("bootstrap", json!({"runtimeContext": {"cwd": "$STATE/workspace", "workspaceDir": "$STATE/workspace", "currentMessageId": "msg-0001", "agentDir": "$STATE/agents/main/agent"}}))]);
        let real = trace(vec![("bootstrap", json!({"runtimeContext": {"cwd": "$WORK/workspace", "workspaceDir": "$WORK/workspace", "currentMessageId": "clawspec-run-1", "agentDir": "$STATE/agents/main/agent"}}))]);
        assert_eq!(diff(&reference, &real), None);
        let elsewhere = trace(vec![("bootstrap", json!({"runtimeContext": {"cwd": "$WORK/workspace-2", "workspaceDir": "$WORK/workspace", "currentMessageId": "clawspec-run-1", "agentDir": "$STATE/agents/main/agent"}}))]);
        assert!(diff(&reference, &elsewhere).unwrap().contains("workspace-2"));
    }

    #[test]
    fn measured_tool_durations_normalise_but_the_rest_of_the_details_do_not() {
        let details = |ms: u64, out: &str| json!({"message": {"role": "toolResult", "details": {"status": "completed", "exitCode": 0, "durationMs": ms, "aggregated": out}}});
        let reference = trace(vec![("ingest", details(0, "30G /var/log"))]);
        assert_eq!(diff(&reference, &trace(vec![("ingest", details(17, "30G /var/log"))])), None);
        assert!(diff(&reference, &trace(vec![("ingest", details(17, "31G /var/log"))])).unwrap().contains("31G"));
    }

    #[test]
    fn a_model_routes_endpoint_normalises_and_the_rest_of_the_route_does_not() {
        let route = |url: &str, api: &str| trace(vec![("bootstrap", json!({"runtimeContext": {"runtimeAuthPlan": {"modelRoute": {"api": api, "baseUrl": url}}, "baseUrl": url}}))]);
        let reference = route("https://api.openai.com/v1", "openai-completions");
        assert_eq!(diff(&reference, &route("http://127.0.0.1:33839/v1", "openai-completions")).as_deref().map(|d| d.contains("baseUrl")), Some(true), "only inside a modelRoute");
        let inside = |url: &str, api: &str| trace(vec![("bootstrap", json!({"runtimeContext": {"runtimeAuthPlan": {"modelRoute": {"api": api, "baseUrl": url}}}}))]);
        assert_eq!(diff(&inside("https://api.openai.com/v1", "openai-completions"), &inside("http://127.0.0.1:33839/v1", "openai-completions")), None);
        assert!(diff(&inside("https://api.openai.com/v1", "openai-completions"), &inside("http://127.0.0.1:33839/v1", "openai-responses")).is_some());
    }

    #[test]
    fn inbound_media_ids_and_the_staged_path_normalise() {
        let m = |prompt: &str, url: &str| trace(vec![("assemble", json!({"prompt": prompt, "messages": [{"role": "user", "content": "x", "__openclaw": {"media": [{"url": url}]}}]}))]);
        let reference = m("[media attached: $STATE/workspace/media/inbound/openclaw-staged-stage-0001/input-media-0001.png (image/png)]\nx", "media://inbound/media-0001.png");
        let real = m("[media attached: $WORK/workspace/media/inbound/openclaw-staged-ae25844f-191e/input-8f6d5a62-a4eb.png (image/png)]\nx", "media://inbound/8f6d5a62-a4eb.png");
        assert_eq!(diff(&reference, &real), None);
        // The URL naming another file than the staged one still differs.
        let other = m("[media attached: $WORK/workspace/media/inbound/openclaw-staged-ae25844f-191e/input-8f6d5a62-a4eb.png (image/png)]\nx", "media://inbound/0000.png");
        assert!(diff(&reference, &other).is_some());
        let jpeg = m("[media attached: $WORK/workspace/media/inbound/openclaw-staged-ae25844f-191e/input-8f6d5a62-a4eb.jpg (image/png)]\nx", "media://inbound/8f6d5a62-a4eb.png");
        assert!(diff(&reference, &jpeg).is_some());
    }

    #[test]
    fn signal_handles_and_session_entry_revisions_and_times_normalise() {
        let reference = trace(vec![("compact", json!({"runtimeContext": {"abortSignal": {"$abortSignal": "sig-0001"}, "sessionEntry": {"lifecycleRevision": "rev-sess-0001", "sessionStartedAt": 5, "lastInteractionAt": 6}}, "abortSignal": {"$abortSignal": "sig-0002"}}))]);
        let real = trace(vec![("compact", json!({"runtimeContext": {"abortSignal": {"$abortSignal": "sig-1"}, "sessionEntry": {"lifecycleRevision": "5fdcede2", "sessionStartedAt": 1795467900633u64, "lastInteractionAt": 1795467982189u64}}, "abortSignal": {"$abortSignal": "sig-2"}}))]);
        assert_eq!(diff(&reference, &real), None);
        // Key order does not decide which handle is which.
        let reordered = trace(vec![("compact", json!({"abortSignal": {"$abortSignal": "sig-2"}, "runtimeContext": {"sessionEntry": {"lastInteractionAt": 1, "sessionStartedAt": 1, "lifecycleRevision": "r"}, "abortSignal": {"$abortSignal": "sig-1"}}}))]);
        assert_eq!(diff(&reference, &reordered), None);
        // One signal passed twice is not two signals.
        let same = trace(vec![("compact", json!({"runtimeContext": {"abortSignal": {"$abortSignal": "sig-1"}, "sessionEntry": {"lifecycleRevision": "5fdcede2", "sessionStartedAt": 1, "lastInteractionAt": 1}}, "abortSignal": {"$abortSignal": "sig-1"}}))]);
        assert!(diff(&reference, &same).is_some());
    }

    #[test]
    fn the_session_store_record_is_compared_for_presence_only() {
        let reference = trace(vec![("compact", json!({"runtimeContext": {"sessionEntry": {"sessionId": "s", "systemSent": false}}}))]);
        let real = trace(vec![("compact", json!({"runtimeContext": {"sessionEntry": {"sessionId": "x", "systemSent": true, "systemPromptReport": {"hash": "efc3"}}}}))]);
        assert_eq!(diff(&reference, &real), None);
        let absent = trace(vec![("compact", json!({"runtimeContext": {}}))]);
        assert!(diff(&reference, &absent).is_some());
    }

    #[test]
    fn a_second_distinct_session_is_a_difference() {
        let reference = trace(vec![("ingest", json!({"sessionId": "a"})), ("ingest", json!({"sessionId": "a"}))]);
        let real = trace(vec![("ingest", json!({"sessionId": "x"})), ("ingest", json!({"sessionId": "y"}))]);
        let d = diff(&reference, &real).expect("differs");
        assert!(d.contains("-    \"sessionId\": \"<session:1>\"") && d.contains("+    \"sessionId\": \"<session:2>\""), "{d}");
    }

    #[test]
    fn the_attempt_system_prompt_is_rebuilt_with_its_boundary_markers() {
        let stable = "<!-- openclaw:attempt:STABLE -->\nYou are a personal assistant.\n<!-- /openclaw:attempt:STABLE -->";
        let dynamic = "<!-- openclaw:attempt:DYNAMIC -->\nReasoning=off.\n\n\nRuntime: agent=main | channel=webchat\n<!-- /openclaw:attempt:DYNAMIC -->";
        let built = host_system_prompt(&[stable, dynamic]);
        assert_eq!(
            built,
            format!("{stable}{CACHE_BOUNDARY}<!-- openclaw:attempt:DYNAMIC -->\nReasoning=off.\n{RELOCATABLE_BOUNDARY}\nRuntime: agent=main | channel=webchat{RELOCATABLE_BOUNDARY_END}\n<!-- /openclaw:attempt:DYNAMIC -->")
        );
        // What the transport sends: boundary split, markers stripped (the inverse).
        let sent = built.replace(RELOCATABLE_BOUNDARY, "\n").replace(RELOCATABLE_BOUNDARY_END, "");
        assert_eq!(sent.split(CACHE_BOUNDARY).collect::<Vec<_>>(), vec![stable, dynamic]);
        assert_eq!(built.len(), stable.len() + dynamic.len() + 34 + 39 + 40);
        // A single block without a Runtime line is kept as is.
        assert_eq!(host_system_prompt(&["plain"]), "plain");
    }

    #[test]
    fn two_runs_that_recorded_nothing_are_not_equal() {
        let mut empty = trace(vec![]);
        assert_eq!(diff(&empty, &empty), None, "the diff alone cannot tell");
        let errs = vec![(0, "Model context window too small".to_string())];
        // The engine never started on the real host.
        empty.engine.info = None;
        let why = untested(&trace(vec![("assemble", json!({}))]), &empty, &errs).expect("untested");
        assert!(why.contains("never started") && why.contains("too small"), "{why}");
        // It started but every turn failed before reaching it.
        let started = trace(vec![]);
        assert!(untested(&trace(vec![("assemble", json!({}))]), &started, &errs).unwrap().contains("the real host"));
        // It started, the turns ran, and both hosts kept it out: the diff decides.
        assert_eq!(untested(&trace(vec![]), &started, &[]), None);
        // The reference engine faulted before the script ran.
        let mut faulted = trace(vec![]);
        faulted.outcome = crate::trace::Outcome::EngineFault { kind: "spawn-failed".into(), message: "ENOENT".into(), step: 0, stderr: String::new() };
        assert!(untested(&faulted, &trace(vec![("assemble", json!({}))]), &[]).unwrap().contains("spawn-failed"));
        // Both ran and called the engine: the diff decides.
        assert_eq!(untested(&trace(vec![("assemble", json!({}))]), &trace(vec![("assemble", json!({}))]), &[]), None);
    }

    fn failing(steps: &[usize]) -> Trace {
        let mut t = trace(vec![]);
        t.events = steps.iter().map(|&step| Event::Note(crate::trace::NoteRecord { seq: 0, turn: step as u32 + 1, step, code: "turn-failed".into(), text: "429".into() })).collect();
        t
    }

    /// Rule V1: both hosts failed the same steps before any engine call.
    #[rstest::rstest]
    #[case::same_steps_failed(&[0, 1], &[0, 1], true)]
    #[case::reference_failed_fewer(&[0], &[0, 1], false)]
    #[case::reference_failed_none(&[], &[0], false)]
    #[case::another_step(&[1], &[0], false)]
    fn failures_before_the_engine_compare_only_when_both_failed_the_same_steps(#[case] reference: &[usize], #[case] real: &[usize], #[case] compared: bool) {
        let errs: Vec<(usize, String)> = real.iter().map(|&s| (s, "⚠️ The model request was rate-limited.".to_string())).collect();
        let why = untested(&failing(reference), &trace(vec![]), &errs);
        assert_eq!(why.is_none(), compared, "{why:?}");
        if let Some(why) = why {
            assert!(why.contains("nothing was compared") && why.contains("rate-limited"), "{why}");
        }
    }

    #[test]
    fn a_reference_that_called_the_engine_never_matches_a_real_host_that_failed_before_it() {
        let mut reference = failing(&[0]);
        let call = trace(vec![("assemble", json!({}))]).events.remove(0);
        reference.events.push(call);
        assert!(untested(&reference, &trace(vec![]), &[(0, "boom".into())]).is_some());
    }

    #[test]
    fn envelope_times_normalise_and_the_text_around_them_does_not() {
        assert_eq!(erase_envelope_times("Sender\n\n[Mon 2026-11-23 20:55 UTC] Hello.").as_deref(), Some("Sender\n\n[<envelope time>] Hello."));
        assert_eq!(erase_envelope_times("[Thu 2026-01-01 00:00 UTC] a [Fri 2026-01-02 10:11 UTC] é"), Some("[<envelope time>] a [<envelope time>] é".into()));
        assert_eq!(erase_envelope_times("[Xyz 2026-01-01 00:00 UTC] a"), None);
        assert_eq!(erase_envelope_times("System: [2026-01-01 00:00:01 UTC] Cron"), None);
    }

    #[test]
    fn current_time_lines_read_as_placeholders() {
        let real = "Reply NO_REPLY.\nCurrent time: Tuesday, November 24th, 2026 - 12:01 AM (UTC)\nReference UTC: 2026-11-24 00:01 UTC";
        let reference = "Reply NO_REPLY.\nCurrent time: Thursday, January 1st, 2026 - 00:00 (UTC)\nReference UTC: 2026-01-01 00:00 UTC";
        assert_eq!(erase_current_time_lines(real), erase_current_time_lines(reference));
        assert_eq!(erase_current_time_lines(real).as_deref(), Some("Reply NO_REPLY.\nCurrent time: <current time> (UTC)\nReference UTC: <current time>"));
        assert_eq!(erase_current_time_lines("Current time: Thursday, January 1st, 2026 - 00:00 (UTC) / 2026-01-01 00:00 UTC").as_deref(), Some("Current time: <current time> (UTC) / <current time>"));
        // Only whole lines of that shape: another prompt text stays as it is.
        assert_eq!(erase_current_time_lines("Reply NO_REPLY."), None);
        assert_eq!(erase_current_time_lines("Current time: soon"), None);
        assert_ne!(erase_current_time_lines(&real.replace("Reply NO_REPLY.", "Reply HEARTBEAT_OK.")), erase_current_time_lines(reference));
        let reference = trace(vec![("assemble", json!({"prompt": "[Thu 2026-01-01 00:00 UTC] Hello."}))]);
        let real = trace(vec![("assemble", json!({"prompt": "[Mon 2026-11-23 20:55 UTC] Hello."}))]);
        assert_eq!(diff(&reference, &real), None);
        let other = trace(vec![("assemble", json!({"prompt": "[Mon 2026-11-23 20:55 UTC] Hello!"}))]);
        assert!(diff(&reference, &other).is_some());
    }

    #[test]
    fn a_session_files_stem_is_its_session_id_and_its_directory_is_compared() {
        let reference = trace(vec![("bootstrap", json!({"sessionId": "sess-0001", "sessionFile": "$STATE/agents/main/sessions/sess-0001.jsonl"}))]);
        let real = trace(vec![("bootstrap", json!({"sessionId": "9f3d-uuid", "sessionFile": "$STATE/agents/main/sessions/9f3d-uuid.jsonl"}))]);
        assert_eq!(diff(&reference, &real), None);
        let other = trace(vec![("bootstrap", json!({"sessionId": "9f3d-uuid", "sessionFile": "$STATE/agents/main/sessions/other.jsonl"}))]);
        assert!(diff(&reference, &other).unwrap().contains("<session:2>"));
        let moved = trace(vec![("bootstrap", json!({"sessionId": "9f3d-uuid", "sessionFile": "$STATE/sessions/9f3d-uuid.jsonl"}))]);
        assert!(diff(&reference, &moved).is_some());
    }

    #[test]
    fn a_branched_session_file_is_its_time_and_session_id() {
        let reference = trace(vec![("prepareSubagentSpawn", json!({"childSessionId": "c-1", "parentSessionFile": "$STATE/agents/main/sessions/p-1.jsonl", "childSessionFile": "$STATE/agents/main/sessions/2026-11-24T00-00-00-000Z_c-1.jsonl"}))]);
        let real = trace(vec![("prepareSubagentSpawn", json!({"childSessionId": "01a2", "parentSessionFile": "$STATE/agents/main/sessions/ce6d.jsonl", "childSessionFile": "$STATE/agents/main/sessions/2026-11-24T13-07-24-800Z_01a2.jsonl"}))]);
        assert_eq!(diff(&reference, &real), None);
        // The file names another session than the spawn's child: a difference.
        let other = trace(vec![("prepareSubagentSpawn", json!({"childSessionId": "01a2", "parentSessionFile": "$STATE/agents/main/sessions/ce6d.jsonl", "childSessionFile": "$STATE/agents/main/sessions/2026-11-24T13-07-24-800Z_ffff.jsonl"}))]);
        assert!(diff(&reference, &other).is_some());
        assert!(!is_file_time("2026-11-24T13:07:24.800Z") && is_file_time("2026-11-24T13-07-24-800Z"));
    }

    #[test]
    fn a_host_minted_child_key_and_a_scripted_one_normalise_equal() {
        let minted = "agent:main:subagent:6e22f1fa-560b-4f60-8759-98e6fad6742a";
        let text = |key: &str, sid: &str, stats: &str| format!("\"[Internal task completion event]\\nsource: subagent\\nsession_key: {key}\\nsession_id: {sid}\\ntask: t\\n\\n{stats}\"");
        let reference = trace(vec![("prepareSubagentSpawn", json!({"childSessionKey": "agent:main:subagent:21", "parentSessionKey": "agent:main:main"})), ("assemble", json!({"prompt": text("agent:main:subagent:21", "child-0001", "Stats: runtime 1s • tokens 10 (in 5 / out 5)")}))]);
        let real = trace(vec![("prepareSubagentSpawn", json!({"childSessionKey": minted, "parentSessionKey": "agent:main:main"})), ("assemble", json!({"prompt": text(minted, "602ce8e7-3e12-4d3e-a8da-2b946cabdea0", "Stats: runtime 8s • tokens unknown")}))]);
        assert_eq!(diff(&reference, &real), None);
        // Two children stay two, and the agent id and key shape still count.
        let two = trace(vec![("prepareSubagentSpawn", json!({"childSessionKey": "agent:main:subagent:a", "parentSessionKey": "agent:main:main"})), ("assemble", json!({"prompt": text("agent:main:subagent:b", "child-0001", "Stats: runtime 1s")}))]);
        assert!(diff(&reference, &two).unwrap().contains("<child:2>"));
        let other_agent = trace(vec![("prepareSubagentSpawn", json!({"childSessionKey": "agent:ops:subagent:21", "parentSessionKey": "agent:main:main"})), ("assemble", json!({"prompt": text("agent:ops:subagent:21", "child-0001", "Stats: runtime 1s")}))]);
        assert!(diff(&reference, &other_agent).unwrap().contains("agent:ops:subagent:<child:1>"));
        let other_shape = trace(vec![("prepareSubagentSpawn", json!({"childSessionKey": "agent:main:cron:21", "parentSessionKey": "agent:main:main"})), ("assemble", json!({"prompt": text("agent:main:subagent:21", "child-0001", "Stats: runtime 1s")}))]);
        assert!(diff(&reference, &other_shape).unwrap().contains("agent:main:cron:21"));
    }

    #[test]
    fn a_spawn_receipts_run_id_is_an_id_and_nothing_else_in_it_is() {
        let receipt = |run: &str, mode: &str| format!("{{\n  \"status\": \"accepted\",\n  \"runId\": \"{run}\",\n  \"mode\": \"{mode}\"\n}}");
        let reference = trace(vec![("commitTurn", json!({"text": receipt("child-run-0001", "run"), "runId": "child-run-0001"}))]);
        let real = trace(vec![("commitTurn", json!({"text": receipt("7ca8ef26-d948-493e-b558-555272ad86b1", "run"), "runId": "7ca8ef26-d948-493e-b558-555272ad86b1"}))]);
        assert_eq!(diff(&reference, &real), None);
        let other_mode = trace(vec![("commitTurn", json!({"text": receipt("x", "session"), "runId": "x"}))]);
        assert!(diff(&reference, &other_mode).unwrap().contains("session"));
        // Two different run ids stay two.
        let two = trace(vec![("commitTurn", json!({"text": receipt("x", "run"), "runId": "y"}))]);
        assert!(diff(&reference, &two).unwrap().contains("<run:2>"));
        // Outside a receipt a runId inside text is compared as is.
        let plain = |run: &str| trace(vec![("assemble", json!({"prompt": format!("\"runId\": \"{run}\"")}))]);
        assert!(diff(&plain("a"), &plain("b")).is_some());
    }

    #[test]
    fn only_completion_stats_and_ids_are_measured() {
        // A session_id line outside a completion block and the announce's other lines are compared as they are.
        let reference = trace(vec![("assemble", json!({"prompt": "session_id: a\n[Internal task completion event]\nstatus: completed\nStats: runtime 1s"}))]);
        let real = trace(vec![("assemble", json!({"prompt": "session_id: a\n[Internal task completion event]\nstatus: failed\nStats: runtime 9s"}))]);
        let d = diff(&reference, &real).unwrap();
        assert!(d.contains("status: failed") && !d.contains("9s"), "{d}");
    }

    #[test]
    fn a_budget_counting_a_measured_stats_line_is_measured_and_no_other_is() {
        let completion = |stats: &str| format!("[Internal task completion event]\nstatus: completed\n\n{stats}");
        let call = |stats: &str, budget: u64| ("assemble", json!({"prompt": completion(stats), "tokenBudget": budget, "runtimeSettings": {"limits": {"promptTokenBudget": budget, "maxOutputTokens": 8000}}}));
        // 2026.9.6 announce runs (twin of subagent-ended-reasons): "runtime 571ms" vs the reference's "0s" moved the budget by one.
        assert_eq!(diff(&trace(vec![call("Stats: runtime 0s • tokens unknown", 12307)]), &trace(vec![call("Stats: runtime 571ms • tokens unknown", 12306)])), None);
        // The prompt is still compared, and so is every other limit.
        assert!(diff(&trace(vec![call("Stats: runtime 0s", 1)]), &trace(vec![("assemble", json!({"prompt": completion("Stats: runtime 0s").replace("completed", "failed"), "tokenBudget": 1, "runtimeSettings": {"limits": {"promptTokenBudget": 1, "maxOutputTokens": 8000}}}))])).is_some());
        assert!(diff(&trace(vec![call("Stats: runtime 0s", 1)]), &trace(vec![("assemble", json!({"prompt": completion("Stats: runtime 0s"), "tokenBudget": 1, "runtimeSettings": {"limits": {"promptTokenBudget": 1, "maxOutputTokens": 4000}}}))])).is_some());
        // Without a completion's stats line a budget is compared as is.
        let plain = |budget: u64| trace(vec![("assemble", json!({"prompt": "Stats: runtime 1s", "tokenBudget": budget}))]);
        assert!(diff(&plain(1), &plain(2)).is_some());
    }

    #[test]
    fn a_budget_counting_a_current_time_line_is_erased_and_the_prompt_compared() {
        // Twin of heartbeat-ok on 2026.9.6, run on 2026-11-29 at 4:30 AM: one
        // character less of wall-clock time, two tokens more budget.
        let poll = |time: &str| format!("Read HEARTBEAT.md if it exists.\nCurrent time: {time} (UTC)\nReference UTC: 2026-01-01 00:00 UTC");
        let call = |prompt: String, budget: u64| ("assemble", json!({"prompt": prompt, "tokenBudget": budget, "runtimeSettings": {"limits": {"promptTokenBudget": budget}}}));
        let reference = trace(vec![call(poll("Thursday, January 1st, 2026 - 12:00 AM"), 15982)]);
        assert_eq!(diff(&reference, &trace(vec![call(poll("Sunday, November 29th, 2026 - 4:30 AM"), 15984)])), None);
        assert!(diff(&reference, &trace(vec![call(poll("Thursday, January 1st, 2026 - 12:00 AM").replace("HEARTBEAT", "OTHER"), 15984)])).is_some(), "the prompt is compared");
        let plain = |budget: u64| trace(vec![call("hello".into(), budget)]);
        assert!(diff(&plain(15982), &plain(15984)).is_some(), "no time line: the budget is compared");
    }

    #[test]
    fn a_changed_budget_is_a_difference() {
        let reference = trace(vec![("assemble", json!({"tokenBudget": 23950}))]);
        let real = trace(vec![("assemble", json!({"tokenBudget": 11047}))]);
        assert!(diff(&reference, &real).unwrap().contains("11047"));
    }
}
