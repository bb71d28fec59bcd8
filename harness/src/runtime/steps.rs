//! Script steps → runtime actions. Turn-like steps become a [`TurnInput`] for
//! the turn loop; standalone paths (manual /compact, subagent hooks) call the
//! engine directly, with 2026.9.6's quarantine on throw
//! (openclaw `src/context-engine/registry.ts`).

use clawspec_contract::markers;
use clawspec_contract::*;
use serde_json::{json, Value};

use super::inject::{self, announce_provenance, format_internal_events, suppress_persistence, task_completion_event};
use super::profile::PromptTexts;
use super::{entry, prompt};
use super::transcript::{expand_message, text_block};
use super::turn::{self, TurnInput, TurnKind};
use super::{Abort, CallOutcome, Sim};
use crate::driver::CallOptions;
use crate::scenario::model::*;
use crate::trace::CallMeta;

pub async fn run_script(sim: &mut Sim<'_>) -> Result<(), Abort> {
    // Pre-existing transcript: written before the first step.
    let initial: Vec<AgentMessage> = sim
        .scenario
        .setup
        .transcript
        .iter()
        .enumerate()
        .map(|(i, m)| expand_message(m, &sim.setup, i as u64))
        .collect::<Result<_, _>>()
        .map_err(Abort::Harness)?;
    if !initial.is_empty() || sim.setup.session_exists {
        for m in initial {
            let ts = message_ts(&m).unwrap_or(sim.clock.now());
            sim.transcript.append(m, ts);
        }
        sim.flush();
    }
    sim.fire_hook("gateway_start").await?;
    let script = sim.scenario.script.clone();
    for (i, step) in script.iter().enumerate() {
        sim.step = i;
        sim.clock.tick();
        // Steps that resolve an engine instance: agent runs, and a manual
        // /compact (2026.9.6 disposes the command's instance too: `clawspec twin
        // compaction-timeout` shows compact → dispose before the next run).
        let run = matches!(step, Step::Turn(_) | Step::Announce(_) | Step::Collect(_) | Step::InterSession(_) | Step::Heartbeat(_) | Step::Compact(_)) && !acknowledged_reset(sim, step);
        match step {
            Step::Turn(t) => user_turn(sim, t).await?,
            Step::Announce(a) => announce_turn(sim, std::slice::from_ref(a), &a.model, a.private).await?,
            Step::Collect(c) => announce_turn(sim, &c.announces, &c.model, false).await?,
            Step::InterSession(x) => inter_session_turn(sim, x).await?,
            Step::Heartbeat(h) => heartbeat_turn(sim, h).await?,
            Step::Compact(c) => manual_compact(sim, c).await?,
            Step::Spawn(s) => spawn(sim, s).await?,
            Step::SubagentEnded(e) => subagent_ended(sim, e).await?,
            Step::SwitchModel(s) => {
                sim.setup.provider = s.provider.clone();
                sim.setup.model = s.model.clone();
                sim.session_model = Some(s.model.clone());
                if let Some(api) = &s.api {
                    sim.setup.api = api.clone();
                }
                // The new model's provider plugin builds its own system prompt (twin only).
                if let Some(sys) = sim.setup.system_prompts_by_model.get(&s.model) {
                    sim.setup.system_prompt = Some(sys.clone());
                }
                sim.note("model-switch", format!("provider/model switched to {}/{}", s.provider, s.model));
            }
            Step::Generate(_) => return Err(Abort::Harness("a generate step reached the runtime: scenarios are expanded when loaded (scenario::generate)".into())),
            Step::OrphanUser(text) => {
                let mut m = AgentMessage::user_text(text.clone());
                set_ts(&mut m, sim.clock.now());
                sim.persist(m);
                sim.note("orphan-user", "a crashed run left a user message without a reply");
            }
        }
        if run && sim.profile.dispose_per_run {
            sim.call("dispose", json!({}), CallMeta::default(), CallOptions::default()).await?;
        }
        // After the announce run's instance is gone (runtime::subagent).
        super::subagent::clean_up_announced(sim).await?;
    }
    sim.step = script.len();
    sim.turn += 1;
    sim.attempt = 0;
    sim.fire_hook("session_end").await?;
    // dispose at the end of the session (openclaw §4.1 step 4) — unless each
    // run already disposed its engine instance.
    if !sim.profile.dispose_per_run {
        sim.call("dispose", json!({}), CallMeta::default(), CallOptions::default()).await?;
    }
    sim.fire_hook("gateway_stop").await?;
    Ok(())
}

/// A bare `/new` or `/reset` the release answers without an agent run, so
/// without an engine instance to dispose (`command::acknowledges_bare_reset`).
fn acknowledged_reset(sim: &Sim<'_>, step: &Step) -> bool {
    matches!(step, Step::Turn(t) if prompt::is_bare_reset(&t.user)) && super::command::acknowledges_bare_reset(sim.profile)
}

fn message_ts(m: &AgentMessage) -> Option<u64> {
    serde_json::to_value(m).ok()?.get("timestamp")?.as_u64()
}

pub fn set_ts(m: &mut AgentMessage, ts: u64) {
    if let AgentMessage::User(u) = m {
        u.timestamp = Some(ts.into());
    }
}

async fn user_turn(sim: &mut Sim<'_>, t: &TurnSpec) -> Result<(), Abort> {
    let is_new = !sim.transcript.exists();
    // 2026.9.6: a turn with channel facts is a channel message (runtime::channel),
    // judged on the scripted turn (a chat.send image is staged as media below);
    // facts no channel reports keep the gateway entry (realhost: not drivable).
    // 2026.4.26 too: its channel entry is twinned (prompt-inbound-metadata on the real 4.26 host).
    let channels = sim.profile.attempt_runtime_context_v2026_9 || sim.profile.webchat_entry_v2026_4;
    sim.channel_message = if channels && super::channel::needs_channel(t) { super::channel::message(t).ok().map(|m| super::channel::ChannelMessage { first_in_session: is_new, ..m }) } else { None };
    // 2026.4.26 entry (runtime::entry): a gateway WebChat `chat.send` stamps the
    // body and adds the client's Sender block; a channel message is neither
    // stamped (that is the chat.send handler's injectTimestamp) nor from the client.
    let entry_4x = sim.profile.webchat_entry_v2026_4 && !prompt::is_bare_reset(&t.user);
    let webchat = entry_4x && sim.channel_message.is_none();
    let stamped;
    let t = if webchat {
        stamped = TurnSpec { user: entry::inject_timestamp_2026_4(&t.user, sim.clock.now()), ..t.clone() };
        &stamped
    } else {
        t
    };
    let drained;
    let t = if sim.pending_system_events.is_empty() {
        t
    } else {
        let mut events = std::mem::take(&mut sim.pending_system_events);
        events.extend(t.system_events.iter().cloned());
        drained = TurnSpec { system_events: events, ..t.clone() };
        &drained
    };
    let sender = webchat.then(entry::webchat_sender_block_2026_4);
    // 2026.9.6 `chat.send` attachment: the gateway stores the image as inbound
    // media instead of inline content (see [`staged_attachment`]).
    let staged = (sim.profile.attempt_runtime_context_v2026_9 && t.image).then(|| staged_attachment(sim));
    let attached;
    let t = match &staged {
        Some(a) => {
            attached = TurnSpec { image: false, media: vec![MediaSpec { path: a.path.clone(), mime: "image/png".into() }], ..t.clone() };
            &attached
        }
        None => t,
    };
    let body = prompt::build_with_channel(sim.profile, t, is_new, sim.clock.now(), sender.as_deref(), sim.channel_message.as_ref());
    if body.session_reset {
        sim.before_reset(&t.user).await?;
        if super::command::acknowledges_bare_reset(sim.profile) {
            // 2026.9.6: the command layer answers, no agent run (runtime::command).
            return super::command::acknowledge_bare_reset(sim, &t.user);
        }
        sim.new_session();
        sim.note("session-reset", format!("/new: session reset to {}", sim.transcript.session_id));
    }
    // 2026.4.26 runs the bare reset's prompt turn runtime-only (see [`reset_turn_message_2026_4`]).
    let reset_4x = body.session_reset && sim.profile.webchat_entry_v2026_4;
    let ts = sim.clock.now();
    let user = |text: &str| {
        let content = if t.image {
            MessageContent::Blocks(vec![
                text_block(text),
                ContentBlock::Image(ImageBlock { data: TINY_PNG.into(), mime_type: "image/png".into(), extra: Extra::new() }),
            ])
        } else if entry_4x {
            MessageContent::Blocks(vec![text_block(text)])
        } else {
            MessageContent::Text(text.to_string())
        };
        AgentMessage::User(UserMessage {
            content,
            timestamp: Some(ts.into()),
            provenance: None,
            idempotency_key: (!entry_4x).then(|| format!("run-{:04}:user", sim.turn + 1)),
            extra: Extra::new(),
        })
    };
    let (msg, model_message) = match &staged {
        // Stored: the typed text with the media reference; the prompt carries the note.
        Some(a) => {
            let mut msg = user(&t.user);
            if let AgentMessage::User(u) = &mut msg {
                u.content = MessageContent::Text(t.user.clone());
                u.extra.insert("__openclaw".into(), a.meta.clone());
            }
            (msg, Some(user(&body.text)))
        }
        None if reset_4x => (reset_turn_message_2026_4(ts), None),
        None => (user(&body.transcript), (body.transcript != body.text).then(|| user(&body.text))),
    };
    // 2026.9.6: inbound metadata travels in a hidden carrier (`currentInboundContext`).
    let carriers = if body.context_fragments.is_empty() { Vec::new() } else { vec![inject::carrier(sim.profile, &body.context_fragments, ts)] };
    let next_turn_context = if entry_4x { entry::runtime_context_of(&body.text, &body.transcript).map(|c| entry::runtime_context_message_2026_4(&c, ts)) } else { None };
    let input = TurnInput {
        kind: TurnKind::User,
        prompt: body.text,
        message: msg,
        model_message,
        persist: !reset_4x,
        admitted: t.admitted.unwrap_or(sim.setup.admitted_turns),
        is_heartbeat: false,
        carriers,
        persist_carriers: false,
        script: t.model.clone(),
        steer: t.steer.clone(),
        commit_replay: t.commit_replay,
        commit_conflict: t.commit_conflict,
        fallback: t.fallback.clone(),
        next_turn_context,
        assemble_prompt: None,
    };
    let out = turn::run_turn(sim, input).await;
    sim.channel_message = None;
    out
}

/// The user message of a bare `/new` or `/reset` turn on 2026.4.26. Its
/// transcript prompt is the reset's trailing text, empty for a bare reset
/// (dist/get-reply-*.js `transcriptBodyBase = … isBareSessionReset ?
/// softResetTail`), so `resolveRuntimeContextPromptParts` makes the turn
/// runtime-only: the reset prompt goes to the system prompt and
/// `activeSession.prompt("")` sends one empty text block
/// (dist/runtime-context-prompt-*.js, dist/selection-*.js). The engine ingests
/// that message, but the next turn's history does not hold it (twin of
/// prompt-bare-new over openai-completions, --keep: the session JSONL has no
/// user entry, the assistant's parentId names the missing one; pi-coding-agent
/// dist/core/session-manager.js `_persist` defers entries until the first
/// assistant). `assemble.prompt` stays the reset prompt.
pub fn reset_turn_message_2026_4(ts: u64) -> AgentMessage {
    AgentMessage::User(UserMessage { content: MessageContent::Blocks(vec![text_block("")]), timestamp: Some(ts.into()), provenance: None, idempotency_key: None, extra: Extra::new() })
}

/// A completion announce (or a collect batch of them) as a new agent turn.
/// 2026.4.26: the formatted block is the (persisted) prompt; several queued
/// announces are batched by `buildCollectPrompt`. 2026.9.6: the events reach the
/// model only as runtime-context fragments and the prompt is
/// `OPENCLAW_RUNTIME_EVENT_USER_PROMPT` (`resolveRuntimeContextPromptParts`);
/// a batch is modelled as one runtime-only turn carrying every event (the 9.6
/// delivery queue itself is not simulated).
async fn announce_turn(sim: &mut Sim<'_>, announces: &[AnnounceSpec], script: &[ModelReply], private: bool) -> Result<(), Abort> {
    let texts = sim.profile.prompt_texts;
    let mut events: Vec<AgentInternalEvent> = announces.iter().map(|a| task_completion_event(texts, a)).collect();
    // A child the run spawned through the host's tool: the host fills in what
    // it minted and measured, and the run is the leased announce run (runtime::subagent).
    let mut live = false;
    let mut live_private = false;
    let mut source = announces[0].child.clone();
    if sim.profile.host_spawn_tool && announces.len() == 1 {
        if let Some(i) = super::subagent::live_child_for(sim, &announces[0]) {
            let AgentInternalEvent::TaskCompletion(e) = &mut events[0];
            let child = sim.live_children[i].clone();
            super::subagent::complete_event(sim.profile, &child, e);
            super::subagent::child_run(sim, i, &announces[0].result).await?;
            sim.live_children[i].announced = true;
            source = child.child.clone();
            live = true;
            live_private = child.private;
        }
    }
    let mut prov = announce_provenance(&source);
    // 2026.4.26's announce is an `agent` call on the requester's channel (twin of announce-subagent).
    let live_4x = live && sim.profile.host_spawn_v2026_4;
    if live_4x {
        prov.source_channel = Some("webchat".into());
    }
    let ts = sim.clock.now();
    // 2026.9.6 assembles with the attempt prompt annotated as the embedded
    // attempt builds it: the inter-session header and explanation, then the
    // events' internal-context block; the model gets only the runtime-event
    // prompt and the carrier (observed with `clawspec twin` on a real
    // sessions_spawn + announce, realhost::spawn; audit item 1; dist
    // builtin-openclaw-*.mjs prepareEmbeddedAttemptPromptAssembly).
    let mut assemble_prompt = None;
    let (prompt, carriers) = if sim.profile.announce_runtime_context {
        let mut frags = inject::event_fragments(sim.profile, &events);
        frags.extend(inject::origin_fragments(sim.profile, &prov));
        assemble_prompt = Some(inject::annotated_announce_prompt(sim.profile, &prov, &events));
        (markers::RUNTIME_EVENT_PROMPT.to_string(), vec![inject::carrier(sim.profile, &frags, ts)])
    } else if announces.len() > 1 {
        let items: Vec<String> = events.iter().map(|e| format_internal_events(sim.profile, std::slice::from_ref(e))).collect();
        (inject::collect_prompt_2026_4(&items), Vec::new())
    } else if live_4x {
        (super::entry::inject_timestamp_2026_4(&format_internal_events(sim.profile, &events), ts), Vec::new())
    } else {
        (format_internal_events(sim.profile, &events), Vec::new())
    };
    let persist = !(sim.profile.suppress_announce_persistence && suppress_persistence(Some(&prov), &events, private));
    // A private completion of a live child is an admitted requester turn
    // (dist/agent-turn-service-*.mjs: `suppressPromptPersistence =
    // !params.privateCompletion && …`, `display: false` for a private
    // completion, `trackInputCompletion`): the transcript keeps the events'
    // internal-context block with the turn's idempotency key, hidden from
    // display, not owner-sent (twin of announce-private: then commitTurn and
    // maintain like a user turn).
    let admitted_private = live_private && sim.profile.announce_runtime_context;
    let (content, idempotency_key, extra) = if admitted_private {
        let mut extra = Extra::new();
        extra.insert("__openclaw".into(), json!({"senderIsOwner": false}));
        extra.insert("display".into(), json!(false));
        (format_internal_events(sim.profile, &events), Some(sim.ids.next("idem")), extra)
    } else {
        (prompt.clone(), None, Extra::new())
    };
    // 2026.4.26's `agent` RPC stores the run's message as blocks (no
    // pending-bootstrap prefix: the workspace is set up, runtime::subagent::Spawned4x).
    let content = if live_4x { MessageContent::Blocks(vec![super::transcript::text_block(&content)]) } else { MessageContent::Text(content) };
    let msg = AgentMessage::User(UserMessage {
        content,
        timestamp: Some(ts.into()),
        provenance: Some(prov),
        idempotency_key,
        extra,
    });
    if !persist {
        sim.unpersisted.push(prompt.clone());
        sim.note("announce-not-persisted", "shouldSuppressAgentPromptPersistence: the announce trigger is not written to the transcript");
    }
    sim.events_by_text.insert(prompt.clone(), events);
    // The announce run's own system prompt, when the twin knows it (Setup::host_run_prompts).
    let own_prompt = if live { sim.setup.host_run_prompts.announce.clone() } else { None };
    let parent_prompt = own_prompt.map(|p| std::mem::replace(&mut sim.setup.system_prompt, Some(p)));
    let input = TurnInput {
        kind: TurnKind::Announce,
        prompt,
        message: msg,
        model_message: None,
        persist,
        // No user-turn transcript entry is admitted for a runtime event
        // (except a live child's private completion, above).
        admitted: admitted_private,
        is_heartbeat: false,
        carriers,
        // The live child's announce run persists no carrier (the next turn's
        // positions on the real host, `clawspec twin announce-then-followup`).
        persist_carriers: !live,
        script: script.to_vec(),
        steer: Vec::new(),
        commit_replay: false,
        commit_conflict: false,
        fallback: None,
        next_turn_context: None,
        assemble_prompt,
    };
    let out = turn::run_turn(sim, input).await;
    if let Some(p) = parent_prompt {
        sim.setup.system_prompt = p;
    }
    if live_4x {
        sim.spawned_4x.skills_snapshot = true;
    }
    out
}

/// A message another session (or an internal tool) routes into this one.
///
/// 2026.9.6 (twin of inter-session-send, realhost::inter_session: the
/// gateway's `agent` RPC with `inputProvenance`, as `sessions_send` calls it):
/// `assemble.prompt` is the annotated text — header, explanation, text, one
/// per line (dist/agent-turn-service-*.mjs `annotateInterSessionPromptText`)
/// — while the model gets the bare text and the header and explanation as
/// runtime-context fragments; the stored message is the bare text with its
/// provenance, the run's idempotency key and `__openclaw.senderIsOwner:
/// false` (the RPC's sender is not the owner); the run's system prompt is its
/// own (no WebChat message context, `Setup::host_run_prompts`). Earlier
/// hosts showed the header in front of the text.
async fn inter_session_turn(sim: &mut Sim<'_>, x: &InterSessionSpec) -> Result<(), Abort> {
    let prov = InputProvenance::inter_session(&x.from, &x.tool);
    let ts = sim.clock.now();
    let v2026_9 = sim.profile.prompt_texts == PromptTexts::V2026_9_6;
    let (prompt, carriers) = if sim.profile.runtime_context_carriers {
        let c = inject::carrier(sim.profile, &inject::origin_fragments(sim.profile, &prov), ts);
        (x.text.clone(), vec![c])
    } else {
        // 2026.4.26: the gateway `agent` method stamps the message
        // (dist/server-methods-*.js `injectTimestamp`) and that is the run's
        // prompt and stored text (as a text block); the `[Inter-session
        // message]` header only appears when history is replayed (audit item 1
        // is 2026.9.6's; twin of inter-session-send).
        (entry::inject_timestamp_2026_4(&x.text, ts), Vec::new())
    };
    let assemble_prompt = v2026_9.then(|| inject::annotated_inter_session_prompt(sim.profile, &prov, &x.text));
    let mut extra = Extra::new();
    if v2026_9 {
        extra.insert("__openclaw".into(), json!({"senderIsOwner": false}));
        // A completion report is stored hidden from display (dist/agent-turn-service-*.mjs:
        // `isCompletionReportInputProvenance(...) ? { display: false }`; twin of inter-session-tools).
        if inject::is_completion_report_tool(&x.tool) {
            extra.insert("display".into(), json!(false));
        }
    }
    let content = if v2026_9 { MessageContent::Text(x.text.clone()) } else { MessageContent::Blocks(vec![text_block(&prompt)]) };
    let msg = AgentMessage::User(UserMessage {
        content,
        timestamp: Some(ts.into()),
        provenance: Some(prov),
        idempotency_key: v2026_9.then(|| format!("run-{:04}:user", sim.turn + 1)),
        extra,
    });
    let own_prompt = if v2026_9 { sim.setup.host_run_prompts.inter_session.clone() } else { None };
    sim.agent_rpc_run = true;
    let session_prompt = own_prompt.map(|p| std::mem::replace(&mut sim.setup.system_prompt, Some(p)));
    let input = TurnInput {
        kind: TurnKind::InterSession,
        prompt,
        message: msg,
        model_message: None,
        persist: true,
        admitted: sim.setup.admitted_turns,
        is_heartbeat: false,
        carriers,
        // 2026.9.6 writes no carrier for it (the real store: thinking_level_change,
        // model-snapshot, the message, the answer).
        persist_carriers: !v2026_9,
        script: x.model.clone(),
        steer: Vec::new(),
        commit_replay: false,
        commit_conflict: false,
        fallback: None,
        next_turn_context: None,
        assemble_prompt,
    };
    let out = turn::run_turn(sim, input).await;
    sim.agent_rpc_run = false;
    sim.session_skills_snapshot = !v2026_9;
    if let Some(p) = session_prompt {
        sim.setup.system_prompt = p;
    }
    out
}

/// A heartbeat run: the transcript keeps `[OpenClaw heartbeat poll]`
/// (`HEARTBEAT_TRANSCRIPT_PROMPT`, 2026.4.26 `get-reply`; 2026.9.6
/// `resolveInternalTurnTranscript`, with `internal_system` provenance), the
/// model gets the release's `HEARTBEAT_PROMPT`; the default answer is its ack
/// token (`HEARTBEAT_OK` / `NO_REPLY`).
///
/// 2026.9.6 runs the poll as an admitted logical turn (bootstrap, assemble,
/// commitTurn with `isHeartbeat: true`), like a gateway turn but entered
/// through the heartbeat runner (dist/heartbeat-runner-run-*.mjs
/// `heartbeatContext`): the body is the prompt with the cron-style current
/// time line (`appendCronStyleCurrentTimeLine`), the stored user message has
/// the run's idempotency key and `__openclaw.senderIsOwner: false`, the
/// attempt context has no channel or sender (`runtime::entry`), the system
/// prompt is the heartbeat run's own (`setup.heartbeat_system_prompts`), and
/// no `openclaw:bootstrap-context:full` event follows the run
/// (dist/builtin-openclaw-*.mjs resolveAttemptBootstrapContext:
/// `!isHeartbeatLifecycleRun`). Twinned:
/// heartbeat-reply, heartbeat-ok on builtin:window (`realhost::heartbeat`).
async fn heartbeat_turn(sim: &mut Sim<'_>, h: &HeartbeatSpec) -> Result<(), Abort> {
    let ts = sim.clock.now();
    let v2026_9 = sim.profile.prompt_texts == PromptTexts::V2026_9_6;
    let (prompt, ack, provenance) = match sim.profile.prompt_texts {
        // dist/heartbeat-runner-*.js: `appendHeartbeatWorkspacePathHint`, then
        // `Body: appendCronStyleCurrentTimeLine(prompt, cfg, startedAt)`.
        PromptTexts::V2026_4_26 => (prompt::with_cron_time_line(sim.profile.prompt_texts, &heartbeat_prompt_2026_4(&sim.workspace_dir()), ts), markers::HEARTBEAT_OK, None),
        PromptTexts::V2026_9_6 => (
            prompt::with_cron_time_line(sim.profile.prompt_texts, markers::HEARTBEAT_PROMPT, ts),
            markers::NO_REPLY,
            Some(InputProvenance::internal_system("heartbeat")),
        ),
    };
    // 2026.4.26 stores the prompt the session submits as a text block (as
    // for a gateway turn, `runtime::entry`).
    let user = |text: &str| {
        let content = if v2026_9 { MessageContent::Text(text.into()) } else { MessageContent::Blocks(vec![text_block(text)]) };
        AgentMessage::User(UserMessage { content, timestamp: Some(ts.into()), provenance: provenance.clone(), idempotency_key: None, extra: Extra::new() })
    };
    let mut message = user(markers::HEARTBEAT_WAKE_PROMPT);
    if let (true, AgentMessage::User(u)) = (v2026_9, &mut message) {
        u.idempotency_key = Some(format!("run-{:04}:user", sim.turn + 1));
        u.extra.insert("__openclaw".into(), json!({"senderIsOwner": false}));
    }
    let reply = h.reply.clone().unwrap_or_else(|| ack.to_string());
    // 2026.4.26: the transcript prompt is the poll marker, so the whole
    // heartbeat prompt becomes the next-turn `openclaw.runtime-context`
    // message persisted after it (dist/runtime-context-prompt-*.js
    // `resolveRuntimeContextPromptParts`: the marker is not in the prompt;
    // `queueRuntimeContextForNextTurn`). Between poll and ack it also keeps
    // 4.26's `filterHeartbeatPairs` (adjacent pairs only) from dropping them.
    let next_turn_context = (!v2026_9).then(|| entry::runtime_context_of(&prompt, markers::HEARTBEAT_WAKE_PROMPT)).flatten().map(|c| entry::runtime_context_message_2026_4(&c, ts));
    let input = TurnInput {
        kind: TurnKind::Heartbeat,
        prompt: prompt.clone(),
        message,
        model_message: Some(user(&prompt)),
        persist: true,
        admitted: v2026_9,
        is_heartbeat: true,
        carriers: Vec::new(),
        persist_carriers: true,
        script: vec![ModelReply::Text(reply)],
        steer: Vec::new(),
        commit_replay: false,
        commit_conflict: false,
        fallback: None,
        next_turn_context,
        assemble_prompt: None,
    };
    sim.heartbeat_run = true;
    // The host builds each heartbeat run's system prompt for its own entry point
    // (the second one of a session differs again: a direct-chat line, no silent-reply section).
    let nth = sim.heartbeats;
    sim.heartbeats += 1;
    let own = sim.setup.heartbeat_system_prompts.get(nth).or(sim.setup.heartbeat_system_prompts.last()).cloned();
    let ordinary = match (v2026_9, own) {
        (true, Some(p)) => Some(std::mem::replace(&mut sim.setup.system_prompt, Some(p))),
        _ => None,
    };
    let result = turn::run_turn(sim, input).await;
    if let Some(p) = ordinary {
        sim.setup.system_prompt = p;
    }
    sim.heartbeat_run = false;
    result
}

/// 2026.4.26's `HEARTBEAT_PROMPT` with `appendHeartbeatWorkspacePathHint`
/// (dist/heartbeat-runner-*.js): the prompt names HEARTBEAT.md, so the hint
/// points at the agent workspace's file.
pub fn heartbeat_prompt_2026_4(workspace: &str) -> String {
    format!("{}\nWhen reading HEARTBEAT.md, use workspace file {workspace}/HEARTBEAT.md (exact case). Do not read docs/heartbeat.md.", markers::HEARTBEAT_PROMPT_2026_4)
}

/// Manual `/compact`: `force: true`, `compactionTarget: "threshold"`,
/// `customInstructions`, `runtimeContext.forceReason: "manual"`
/// (openclaw `src/agents/embedded-agent-runner/compact.ts`, contract §4.6).
async fn manual_compact(sim: &mut Sim<'_>, c: &CompactSpec) -> Result<(), Abort> {
    sim.turn += 1;
    sim.attempt = 0;
    if sim.quarantined {
        sim.note("quarantined", "engine quarantined: /compact served by legacy");
        return Ok(());
    }
    let current = sim.profile.estimator.messages(&sim.transcript.messages());
    let budget = sim.budget();
    let mut params = sim.compact_params(budget, Some(current), "threshold", "manual", 1);
    if let Some(i) = &c.instructions {
        params["customInstructions"] = json!(i);
    }
    params["runtimeContext"]["forceReason"] = json!("manual");
    // 2026.9.6: the gateway command's own context, no token count (runtime::command).
    if sim.profile.attempt_runtime_context_v2026_9 {
        params.as_object_mut().expect("object").remove("currentTokenCount");
        params["runtimeContext"] = sim.manual_compact_context(budget, c.instructions.as_deref());
        // The compaction path names the selection by the engine's own id
        // (embedded-agent-*.mjs: `contextEngine.info.id === "legacy" ?
        // "default" : "configured"`), unlike an attempt's routing by slot.
        if sim.info.id == "legacy" {
            params["runtimeSettings"]["contextEngineSelection"]["source"] = json!("default");
        }
    } else if sim.profile.builtin_compaction_v2026_4 {
        // 2026.4.26: the command's own params too (runtime::command).
        params.as_object_mut().expect("object").remove("currentTokenCount");
        params["runtimeContext"] = sim.manual_compact_context_2026_4(budget, c.instructions.as_deref());
    }
    let threw_before = sim.events.len();
    turn::compact(sim, params, "manual").await?;
    // A throw on this standalone path quarantines the engine (2026.9.6).
    let threw = sim.events[threw_before..].iter().find_map(|e| match e {
        crate::trace::Event::Call(c) if c.method == "compact" => match &c.reply {
            crate::trace::ReplyRecord::Threw { message, .. } => Some(message.clone()),
            _ => None,
        },
        _ => None,
    });
    if let Some(m) = &threw {
        standalone_throw(sim, "compact", &CallOutcome::Threw(m.clone()));
    }
    if sim.profile.builtin_compaction_v2026_4 {
        let result = last_compact_result(sim, threw_before, threw.as_deref());
        let line = super::command::compact_system_event_2026_4(&result, sim.setup.context_window);
        // The command replies `⚙️ ${line}` (commands-handlers.runtime-*.js
        // `handleCompactCommand`), which the gateway keeps in the transcript.
        sim.persist_command_reply_2026_4(&format!("⚙️ {line}"));
        sim.pending_system_events.push(line);
    }
    if sim.profile.attempt_runtime_context_v2026_9 {
        let result = sim.events[threw_before..].iter().rev().find_map(|e| match e {
            crate::trace::Event::Call(c) if c.method == "compact" => match &c.reply {
                crate::trace::ReplyRecord::Ok(v) => Some(v.clone()),
                _ => None,
            },
            _ => None,
        });
        let result = result.unwrap_or_else(|| json!({"ok": false, "compacted": false, "reason": threw.unwrap_or_default()}));
        let text = match &c.instructions {
            Some(i) => format!("/compact {i}"),
            None => "/compact".to_string(),
        };
        let ctx = super::command::manual_context_token_budget(&sim.setup.provider, &sim.setup.model, sim.setup.context_window);
        let reply = super::command::compact_reply_text(&result, ctx);
        sim.persist_command_turn(&text, &reply);
    }
    Ok(())
}

/// The engine's last compact result since event `from`, or a failure with
/// the throw's message.
fn last_compact_result(sim: &Sim<'_>, from: usize, threw: Option<&str>) -> Value {
    let found = sim.events[from..].iter().rev().find_map(|e| match e {
        crate::trace::Event::Call(c) if c.method == "compact" => match &c.reply {
            crate::trace::ReplyRecord::Ok(v) => Some(v.clone()),
            _ => None,
        },
        _ => None,
    });
    found.unwrap_or_else(|| json!({"ok": false, "compacted": false, "reason": threw.unwrap_or_default()}))
}

fn standalone_throw(sim: &mut Sim<'_>, op: &str, out: &CallOutcome) {
    if let CallOutcome::Threw(msg) = out {
        if sim.profile.quarantine {
            sim.quarantined = true;
            // Log text of openclaw `src/context-engine/registry.ts` quarantine.
            let id = sim.info.id.clone();
            sim.note("quarantine", format!("context engine \"{id}\" failed during {op}: {msg}; quarantining it for this process and falling back to default engine \"legacy\""));
        }
    }
}

/// `prepareSubagentSpawn` (openclaw `src/agents/subagents/spawn/subagent-spawn-context.ts`).
async fn spawn(sim: &mut Sim<'_>, s: &SpawnSpec) -> Result<(), Abort> {
    sim.turn += 1;
    sim.attempt = 0;
    // PR #88667: no preparation for light isolated spawns.
    if s.light && s.mode == "isolated" && sim.profile.skip_light_isolated_spawn_prep {
        sim.note("spawn-prep-skipped", format!("light isolated spawn of {}: prepareSubagentSpawn skipped", s.child));
        return Ok(());
    }
    if sim.quarantined {
        sim.note("quarantined", "engine quarantined: subagent spawn served by legacy");
        return Ok(());
    }
    let child_id = sim.ids.next("child");
    let fork = s.mode == "fork";
    let params = json!({
        "parentSessionKey": sim.setup.session_key,
        "childSessionKey": s.child,
        "contextMode": s.mode,
        "parentSessionId": sim.transcript.session_id,
        "parentSessionFile": sim.setup.session_key,
        "childSessionId": child_id,
        "childSessionFile": if fork { Value::String(format!("{}/sessions/{child_id}.jsonl", sim.state_str())) } else { json!(s.child) },
        "ttlMs": s.timeout_seconds.unwrap_or(600) * 1000,
    });
    let out = sim.call("prepareSubagentSpawn", params, CallMeta::reason(&s.mode), CallOptions::default()).await?;
    match &out {
        CallOutcome::Threw(m) => {
            sim.note("spawn-failed", format!("Context engine subagent preparation failed: {m}"));
            standalone_throw(sim, "prepareSubagentSpawn", &out);
        }
        CallOutcome::Returned(v, _) => {
            let handle = v.get("rollback").and_then(|r| r.get("$handle")).and_then(Value::as_str).map(str::to_string);
            if s.launch_fails {
                sim.note("spawn-launch-failed", format!("launch of {} failed after preparation; rolling back", s.child));
                if let Some(h) = handle {
                    sim.call("rollback", json!({"handle": h}), CallMeta::reason("launch-failed"), CallOptions::default()).await?;
                }
            } else if let Some(h) = handle {
                sim.rollbacks.insert(s.child.clone(), h);
            }
        }
        CallOutcome::Absent => {}
    }
    Ok(())
}

/// `onSubagentEnded`, best effort (openclaw
/// `src/agents/subagents/registry/subagent-registry-context-cleanup.ts`).
async fn subagent_ended(sim: &mut Sim<'_>, e: &SubagentEndedSpec) -> Result<(), Abort> {
    sim.turn += 1;
    sim.attempt = 0;
    if sim.quarantined {
        sim.note("quarantined", "engine quarantined: onSubagentEnded served by legacy");
        return Ok(());
    }
    let params = json!({"childSessionKey": e.child, "reason": e.reason, "agentDir": "/agent", "workspaceDir": "/workspace"});
    let out = sim.call("onSubagentEnded", params, CallMeta::reason(&e.reason), CallOptions::default()).await?;
    if let CallOutcome::Threw(m) = &out {
        sim.note("subagent-ended-failed", format!("context-engine onSubagentEnded failed (best-effort): {m}"));
        standalone_throw(sim, "onSubagentEnded", &out);
    }
    Ok(())
}

/// A 1×1 transparent PNG.
/// An image sent with `chat.send` on 2026.9.6, as the gateway stores it: a
/// staged copy in the workspace that the prompt's media note names
/// (`[media attached: <workspace>/media/inbound/openclaw-staged-<id>/input-<id>.png (image/png)]`,
/// media-note-*.mjs), and on the persisted user message, instead of the
/// inline image, `__openclaw.media` (`media://inbound/<id>.png`, type, size)
/// with an inline `mediaImageLayout` slot (chat-send-handler-*.mjs;
/// real host, `clawspec twin image-user`). The gateway mints UUIDs; the
/// reference numbers them (twin rule 14).
struct StagedAttachment {
    path: String,
    meta: Value,
}

fn staged_attachment(sim: &mut Sim<'_>) -> StagedAttachment {
    let n = sim.turn + 1;
    // UUID-shaped, as long as the gateway's: the note's length feeds the budget.
    let (stage, id) = (format!("00000000-0000-4000-a000-{n:012}"), format!("00000000-0000-4000-8000-{n:012}"));
    let size = TINY_PNG_BYTES;
    StagedAttachment {
        path: format!("{}/media/inbound/openclaw-staged-{stage}/input-{id}.png", sim.workspace_dir()),
        meta: json!({"media": [{"url": format!("media://inbound/{id}.png"), "contentType": "image/png", "kind": "image", "sizeBytes": size}],
                     "mediaImageLayout": {"slots": [{"kind": "inline", "factIndex": 0}]}}),
    }
}

/// The decoded size of [`TINY_PNG`].
const TINY_PNG_BYTES: usize = 68;

pub const TINY_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
