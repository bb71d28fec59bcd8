//! `clawspec validate --provider P FILE` and `clawspec serve-provider --provider P --port N`.

use std::path::PathBuf;

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::repair::{repair, Policy};
use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::wire::{to_wire, RequestOptions};
use clawspec_mock_providers::Provider;

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// anthropic, openai-chat, openai-responses, gemini, bedrock, mistral
    #[arg(long)]
    pub provider: Provider,
    /// A transcript: a JSON array of OpenClaw messages, or JSONL (one per line;
    /// OpenClaw session files' `{type:"message"}` lines are understood).
    pub file: PathBuf,
    /// Run the host's transcript repair first (as OpenClaw does before sending).
    #[arg(long)]
    pub repair: bool,
    /// Print the wire request that was validated.
    #[arg(long)]
    pub show_request: bool,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    #[arg(long)]
    pub provider: Provider,
    #[arg(long, default_value_t = 8089)]
    pub port: u16,
    /// Keep request bodies in the request log (GET /_clawspec/requests);
    /// off by default so a long run holds no payloads.
    #[arg(long)]
    pub keep_bodies: bool,
    /// How many requests the log keeps (oldest dropped first).
    #[arg(long, default_value_t = 256)]
    pub log_capacity: usize,
}

/// Messages from a JSON array or JSONL; errors carry file:line:col.
pub fn read_transcript(path: &PathBuf) -> Result<Vec<AgentMessage>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()));
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("{}:{}:{}: {e}", path.display(), i + 1, e.column()))?;
        if v.get("type").and_then(|t| t.as_str()) == Some("session") {
            continue;
        }
        if v.get("type").and_then(|t| t.as_str()) == Some("message") {
            v = v["message"].take();
        }
        out.push(serde_json::from_value(v).map_err(|e| format!("{}:{}:1: not an OpenClaw message: {e}", path.display(), i + 1))?);
    }
    Ok(out)
}

pub fn validate_main(a: ValidateArgs) -> u8 {
    let ms = match read_transcript(&a.file) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("clawspec validate: {e}");
            return super::EXIT_USAGE;
        }
    };
    let ms = if a.repair { repair(&Policy::for_provider(a.provider), ms) } else { ms };
    let body = to_wire(a.provider, &ms, &RequestOptions { model: "mock".into(), ..Default::default() });
    if a.show_request {
        println!("{}", serde_json::to_string_pretty(&body).unwrap());
    }
    match validate(a.provider, &body, &Rules::default()) {
        Ok(()) => {
            println!("{}: accepted ({} messages)", a.provider, ms.len());
            super::EXIT_OK
        }
        Err(r) => {
            println!("{}: HTTP {}\n{}", a.provider, r.status, serde_json::to_string_pretty(&r.body).unwrap());
            super::EXIT_FAILURES
        }
    }
}

pub async fn serve_main(a: ServeArgs) -> u8 {
    let options = clawspec_mock_providers::server::ServeOptions { keep_bodies: a.keep_bodies, log_capacity: a.log_capacity };
    match clawspec_mock_providers::server::serve(a.provider, a.port, Rules::default(), options).await {
        Ok(()) => super::EXIT_OK,
        Err(e) => {
            eprintln!("clawspec serve-provider: {e}");
            super::EXIT_USAGE
        }
    }
}
