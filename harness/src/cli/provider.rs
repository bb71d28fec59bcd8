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
    let at = |offset: usize, msg: String| {
        let (l, c) = line_col(&text, offset);
        format!("{}:{l}:{c}: {msg}", path.display())
    };
    let mut out = Vec::new();
    if text.trim_start().starts_with('[') {
        // Element by element, so an error names the message it is in (serde
        // reports a buffered message's errors after its end).
        let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
        for raw in items {
            let base = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            out.push(message(raw.get()).map_err(|(off, e)| at(base + off, e))?);
        }
        return Ok(out);
    }
    let mut base = 0;
    for line in text.split_inclusive('\n') {
        let here = base;
        base += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        // An OpenClaw session file wraps each message: {"type":"message","message":{…}}.
        #[derive(serde::Deserialize)]
        struct Entry<'a> {
            #[serde(rename = "type")]
            kind: Option<String>,
            #[serde(borrow)]
            message: Option<&'a serde_json::value::RawValue>,
        }
        let entry: Option<Entry> = serde_json::from_str(line).ok();
        match entry {
            Some(Entry { kind: Some(k), .. }) if k == "session" => {}
            Some(Entry { kind: Some(k), message: Some(raw) }) if k == "message" => {
                let inner = raw.get().as_ptr() as usize - line.as_ptr() as usize;
                out.push(message(raw.get()).map_err(|(off, e)| at(here + inner + off, e))?);
            }
            _ => out.push(message(line).map_err(|(off, e)| at(here + off, e))?),
        }
    }
    Ok(out)
}

/// One message from its JSON text: duplicate keys refused (as in a JSON
/// array). The error's offset in `text`: serde's own position when it lies
/// inside the message, a duplicated key's second definition, else the
/// message's start.
fn message(text: &str) -> Result<AgentMessage, (usize, String)> {
    serde_json::from_str(text).map_err(|e| {
        let off = offset_of(text, e.line(), e.column());
        let off = if e.is_syntax() || e.is_eof() || (e.line() > 0 && off + 1 < text.trim_end().len()) {
            off
        } else {
            // A buffered message (tagged by its role) reports a duplicate
            // after its end: find the second definition ourselves.
            let msg = e.to_string();
            let dup = msg.strip_prefix("duplicate field `").and_then(|m| m.split('`').next());
            dup.and_then(|k| duplicate_key_offset(text, k)).unwrap_or(0)
        };
        // The position is ours to give (in the file, not in the message).
        let shown = e.to_string();
        let shown = shown.rfind(" at line ").map_or(shown.as_str(), |i| &shown[..i]);
        (off, if e.is_data() { format!("not an OpenClaw message: {shown}") } else { shown.to_string() })
    })
}

/// Offset of the first key named `key` that an object of `text` (any
/// depth) defines a second time: the opening quote of that second key.
fn duplicate_key_offset(text: &str, key: &str) -> Option<usize> {
    let b = text.as_bytes();
    // One entry per open bracket: the keys seen, for objects.
    let mut open: Vec<Option<Vec<&str>>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => open.push(Some(Vec::new())),
            b'[' => open.push(None),
            b'}' | b']' => {
                open.pop();
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let name = text.get(start + 1..i.min(b.len()))?;
                let rest = text.get(i + 1..)?.trim_start();
                if let (true, Some(Some(keys))) = (rest.starts_with(':'), open.last_mut()) {
                    if name == key && keys.contains(&name) {
                        return Some(start);
                    }
                    keys.push(name);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Byte offset of serde's 1-based line and column (0 for "unknown").
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
    (start + column.saturating_sub(1)).min(text.len())
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.chars().count(), |nl| before[nl + 1..].chars().count()) + 1;
    (line, col)
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
        Ok(sig) => (128 + sig) as u8,
        Err(e) => {
            eprintln!("clawspec serve-provider: {e}");
            super::EXIT_USAGE
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    #[rstest]
    #[case(r#"{"a":1,"a":2}"#, "a", Some(7))]
    // The same key in sibling or nested objects is no duplicate.
    #[case(r#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#, "a", None)]
    #[case(r#"{"x":[{"t":1,"t":2}]}"#, "t", Some(13))]
    // A key inside a string value, and escaped quotes, are not keys.
    #[case(r#"{"s":"\"k\":1","k":1,"k\"":2,"k":3}"#, "k", Some(29))]
    #[case(r#"{"a":"a","b":1}"#, "a", None)]
    fn the_second_definition_of_a_key(#[case] text: &str, #[case] key: &str, #[case] at: Option<usize>) {
        assert_eq!(super::duplicate_key_offset(text, key), at);
    }
}
