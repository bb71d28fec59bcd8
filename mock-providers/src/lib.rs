//! Mock LLM providers for clawspec.
//!
//! - [`Provider`]: Anthropic Messages, OpenAI Chat Completions, OpenAI
//!   Responses, Google Gemini, Amazon Bedrock Converse, Mistral.
//! - [`wire::to_wire`]: OpenClaw `AgentMessage`s → the provider's request body,
//!   as OpenClaw's transports build it.
//! - [`validate::validate`]: a strict validator answering each violation with
//!   the provider's real HTTP status and error body
//!   (shared/reference/provider-rules.md B1–B6); inferred rules are switches in
//!   [`validate::Rules`].
//! - [`repair::repair`]: OpenClaw's transcript hygiene, pass by pass, per
//!   provider policy (A2–A6).
//! - [`server`]: a wiremock HTTP server per provider that validates each
//!   request and answers with a scripted reply or the rejection.

pub mod client;
pub mod fuzzing;
pub mod gen;
pub mod provider;
pub mod repair;
pub mod server;
pub mod validate;
pub mod wire;

pub use provider::{Provider, Rejection};
