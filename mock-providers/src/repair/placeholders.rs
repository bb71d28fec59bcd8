//! Placeholder texts OpenClaw writes into repaired transcripts, byte-exact
//! (shared/reference/provider-rules.md A4). Each cites where OpenClaw emits it.

/// `src/agents/session-transcript-repair.ts` (`makeMissingToolResult`), A3.10.
pub const MISSING_TOOL_RESULT: &str =
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";
/// Responses family synthetic result (Codex parity), `embedded-agent-runner/replay-history.ts`, A3.10.
pub const ABORTED: &str = "aborted";
/// `@openclaw/ai` `transcript-transform.ts` (`transformMessages`), A3.16.
pub const NO_RESULT_PROVIDED: &str = "No result provided";
/// `embedded-agent-helpers/thinking.ts` (`stripInvalidThinkingSignatures`, `dropThinkingBlocks`), A3.6–A3.8.
pub const REASONING_OMITTED: &str = "[assistant reasoning omitted]";
/// `src/agents/tool-images.ts` via `sanitizeSessionMessagesImages`, A3.2.
pub const EMPTY_CONTENT_OMITTED: &str = "[empty content omitted]";
/// `validateAnthropicTurns` (`embedded-agent-helpers/turns.ts`), A5.
pub const TOOL_CALLS_OMITTED: &str = "[tool calls omitted]";
/// Send-time Anthropic replay tool-result cleanup (`run/attempt-tool-call-replay-sanitization.ts`).
pub const TOOL_RESULTS_OMITTED: &str = "[tool results omitted]";
/// `sanitizeGoogleTurnOrdering` (`embedded-agent-helpers/google.ts`), A3.14.
pub const SESSION_BOOTSTRAP: &str = "(session bootstrap)";
/// Stream-error turn text (`session-file-repair.ts`, A3.15).
pub const TURN_FAILED_EMPTY: &str = "[assistant turn failed before producing content]";
/// `transcript-transform.ts`, failed assistant with text, A3.16.
pub const TURN_FAILED: &str =
    "[This turn failed before it completed. Do not redo its work without confirming with the user first.]";
/// Blank user turn rewritten by legacy JSONL repair (`session-file-repair.ts`, A3.15).
pub const CONTINUE: &str = "(continue)";
/// Empty tool result in the Anthropic/Bedrock converters (`providers/anthropic.ts`, `amazon-bedrock`), A3.17/18.
pub const NO_OUTPUT: &str = "(no output)";
pub const TOOL_ERROR_NO_OUTPUT: &str = "[tool error with no output]";
/// `transcript-transform.ts` on non-vision models, A3.16.
pub const IMAGE_OMITTED: &str = "(image omitted: model does not support images)";
pub const TOOL_IMAGE_OMITTED: &str = "(tool image omitted: model does not support images)";
/// `src/agents/tool-images.ts`, A3.2.
pub const IMAGE_PAYLOAD_OMITTED: &str = "[session:history] omitted image payload: ";
pub const EMPTY_IMAGE_OMITTED: &str = "[session:history] omitted empty image payload";
/// `INTER_SESSION_PROMPT_PREFIX_BASE` (`src/sessions/input-provenance.ts`), A2 #1.
pub const INTER_SESSION_PREFIX: &str = "[Inter-session message]";
/// `SILENT_REPLY_TOKEN` (`src/auto-reply/tokens.ts`), removed by A3.1.
pub const NO_REPLY: &str = "NO_REPLY";
/// pi-ai `openai-completions.ts` `requiresAssistantAfterToolResult` bridge.
pub const TOOL_RESULTS_PROCESSED: &str = "I have processed the tool results.";
