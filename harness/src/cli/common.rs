//! Arguments shared by the commands that run engines.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::Value;

use crate::driver::{DriverConfig, EngineSpec, Sandbox};
use crate::runtime::profile::Profile;
use crate::scenario::Located;

#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Engine under test: `builtin:window`, `builtin:legacy`, or a command line.
    #[arg(long, default_value = "builtin:window")]
    pub engine: String,
    /// An OpenClaw plugin entry (ESM/CJS) served through the Node adapter.
    #[arg(long, conflicts_with = "engine")]
    pub plugin: Option<PathBuf>,
    /// Engine id when the plugin registers several.
    #[arg(long)]
    pub engine_id: Option<String>,
    /// Plugin/engine configuration: JSON text or @file.
    #[arg(long)]
    pub plugin_config: Option<String>,
    /// Node interpreter for --plugin.
    #[arg(long, default_value = "node")]
    pub node: String,
    /// Which `openclaw/plugin-sdk/*` a --plugin sees under each profile:
    /// `auto` the profile's real openclaw package when cached, else shims;
    /// `real` fetch it when missing; `shim` never the real one.
    #[arg(long, value_enum, default_value_t = super::sdk::SdkMode::Auto)]
    pub sdk: super::sdk::SdkMode,
    /// Per-call timeout in ms (compaction keeps OpenClaw's 180 s unless set).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub call_timeout_ms: Option<u64>,
    /// `compact` timeout in ms (default 180 000, OpenClaw's).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub compact_timeout_ms: Option<u64>,
    /// Time allowed for process start plus the `initialize` handshake, in ms
    /// (default 30 000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub handshake_timeout_ms: Option<u64>,
    /// Run the engine without the sandbox: it inherits the whole environment,
    /// HOME and the working directory and can write anywhere (named in the
    /// report).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Pass this environment variable to the sandboxed engine (repeatable);
    /// see docs/protocol.md, "Sandbox", for the default allow-list.
    #[arg(long = "pass-env", value_name = "NAME", value_parser = env_name)]
    pub pass_env: Vec<String>,
    /// Send every model call over HTTP through the mock of the scenario's
    /// provider (host repair, then the provider's validator).
    #[arg(long)]
    pub via_http: bool,
}

#[derive(Args, Debug, Clone)]
pub struct SelectArgs {
    /// Scenario directory (default: ./scenarios, else the library shipped with clawspec).
    #[arg(long)]
    pub scenarios: Option<PathBuf>,
    /// Profiles to run (repeatable); default: all three. Append `+marker-drift` for the variant.
    #[arg(long = "profile")]
    pub profiles: Vec<String>,
    /// Only scenarios whose id matches this glob (`*` and `?`); repeatable: the union.
    #[arg(long = "scenario")]
    pub scenario: Vec<String>,
}

impl EngineArgs {
    pub fn spec(&self) -> Result<EngineSpec, String> {
        self.spec_for(&Profile::all())
    }

    /// The engine; a plugin gets the SDK of each of these profiles.
    pub fn spec_for(&self, profiles: &[Profile]) -> Result<EngineSpec, String> {
        if let Some(entry) = &self.plugin {
            return plugin_spec(self, entry, &super::sdk::plan(self.sdk, profiles)?);
        }
        if let Some(name) = self.engine.strip_prefix("builtin:") {
            let base = name.split(':').next().unwrap_or(name);
            if !crate::engines::BUILTIN.contains(&base) {
                return Err(format!("unknown built-in engine {name:?}; built-ins: {}", crate::engines::BUILTIN.join(", ")));
            }
            return Ok(builtin_spec(name));
        }
        command_spec(&self.engine)
    }

    pub fn driver(&self) -> DriverConfig {
        let mut d = DriverConfig::default();
        if let Some(ms) = self.call_timeout_ms {
            d.call_timeout = std::time::Duration::from_millis(ms);
        }
        if let Some(ms) = self.compact_timeout_ms {
            d.compact_timeout = std::time::Duration::from_millis(ms);
        }
        if let Some(ms) = self.handshake_timeout_ms {
            d.initialize_timeout = std::time::Duration::from_millis(ms);
        }
        d.sandbox = Sandbox { enabled: !self.no_sandbox, pass_env: self.pass_env.clone(), state_dir: None, extra_writable: Vec::new() };
        if self.plugin.is_some() && !self.no_sandbox {
            // The real OpenClaw SDK locks its SQLite stores in a fixed /tmp
            // directory (sandbox::openclaw_lock_dir): allow exactly that one.
            match crate::driver::sandbox::openclaw_lock_dir() {
                Ok(dir) => d.sandbox.extra_writable.push(dir),
                Err(e) => eprintln!("warning: the OpenClaw SDK's lock directory is not writable for the plugin: {e}"),
            }
        }
        d
    }

    pub fn config(&self) -> Result<Option<Value>, String> {
        let Some(c) = &self.plugin_config else { return Ok(None) };
        let text = match c.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path).map_err(|e| format!("--plugin-config {path}: {e}"))?,
            None => c.clone(),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| format!("--plugin-config is not JSON: {e}"))
    }
}

/// `clawspec engine <name>` with this very executable (or CLAWSPEC_EXE).
pub fn builtin_spec(name: &str) -> EngineSpec {
    let exe = std::env::var("CLAWSPEC_EXE").map(PathBuf::from).unwrap_or_else(|_| clawspec_exe());
    EngineSpec::builtin_at(&exe.to_string_lossy(), name)
}

/// The `clawspec` binary: the current executable, or its sibling when running
/// from a test binary in target/<profile>/deps/.
fn clawspec_exe() -> PathBuf {
    let cur = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("clawspec"));
    if cur.file_stem().and_then(|s| s.to_str()) == Some("clawspec") {
        return cur;
    }
    let dir = cur.parent().map(Path::to_path_buf).unwrap_or_default();
    for cand in [dir.join("clawspec"), dir.join("../clawspec")] {
        if cand.exists() {
            return cand;
        }
    }
    PathBuf::from("clawspec")
}

/// `--pass-env NAME`: one variable's name. HOME and TMPDIR always point into
/// the state dir, so passing them would be silently undone; a value
/// (`A=B`), a pattern or an empty name is a mistake, said at once.
fn env_name(s: &str) -> Result<String, String> {
    if matches!(s, "HOME" | "TMPDIR") {
        return Err(format!("{s} always points into the engine's state dir and cannot be passed (use --no-sandbox to run with the caller's)"));
    }
    let ok = !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()) && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok { Ok(s.to_string()) } else { Err(format!("{s:?} is not a variable name (letters, digits and _; no value, no pattern)")) }
}

/// A command line split like a POSIX shell would (quotes and backslashes).
pub fn command_spec(line: &str) -> Result<EngineSpec, String> {
    // One splitter for every engine command line: leading `NAME=value` words
    // become the engine's environment (docs/protocol.md, "Sandbox").
    EngineSpec::from_command_line(line).map_err(|e| format!("--engine: {e}"))
}

/// The Node adapter (adapters/node): env CLAWSPEC_NODE_ADAPTER, else the
/// repository copy next to the workspace this binary was built from.
pub fn node_adapter_bin() -> PathBuf {
    if let Ok(p) = std::env::var("CLAWSPEC_NODE_ADAPTER") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/node/bin/clawspec-node-adapter.js")
}

/// The plugin SDK plan of `--plugin` runs (empty for other engines), for the certify header.
impl EngineArgs {
    pub fn sdk_lines(&self, profiles: &[Profile]) -> Vec<String> {
        if self.plugin.is_none() {
            return Vec::new();
        }
        super::sdk::plan(self.sdk, profiles).map(|p| super::sdk::describe(&p)).unwrap_or_default()
    }
}

fn plugin_spec(a: &EngineArgs, entry: &Path, sdk: &[(String, Option<PathBuf>)]) -> Result<EngineSpec, String> {
    if !entry.exists() {
        return Err(format!("--plugin {}: no such file", entry.display()));
    }
    let adapter = node_adapter_bin();
    if !adapter.exists() {
        return Err(format!("Node adapter not found at {} (set CLAWSPEC_NODE_ADAPTER)", adapter.display()));
    }
    let entry_abs = std::fs::canonicalize(entry).map_err(|e| e.to_string())?;
    let mut args = vec![adapter.to_string_lossy().into_owned(), entry_abs.to_string_lossy().into_owned()];
    if let Some(id) = &a.engine_id {
        args.push("--engine-id".into());
        args.push(id.clone());
    }
    if let Some(c) = &a.plugin_config {
        args.push("--plugin-config".into());
        args.push(c.clone());
    }
    args.extend(super::sdk::adapter_args(sdk));
    // The adapter says on stderr what a slow call is doing (awaiting, or
    // running synchronous code: its stack) before the call timeout gives up,
    // so the timeout fault carries it (adapters/node/lib/watchdog.js).
    let timeout_ms = a.call_timeout_ms.unwrap_or(DriverConfig::default().call_timeout.as_millis() as u64);
    args.push("--hang-report-ms".into());
    args.push((timeout_ms * 2 / 3).max(1).to_string());
    Ok(EngineSpec {
        program: a.node.clone(),
        args,
        env: Default::default(),
        cwd: None,
        display: format!("plugin:{}", entry.display()),
    })
}

impl SelectArgs {
    pub fn profiles(&self) -> Result<Vec<Profile>, String> {
        if self.profiles.is_empty() {
            return Ok(Profile::all());
        }
        let mut out: Vec<Profile> = Vec::new();
        for id in &self.profiles {
            let p = Profile::by_id(id).ok_or_else(|| format!("unknown profile {id:?}; profiles: {}", crate::runtime::profile::PROFILE_IDS.join(", ")))?;
            // `--profile P --profile P` runs P once (twice would count every verdict twice).
            if !out.iter().any(|q| q.id == p.id) {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// Every scenario of the chosen library matching any `--scenario` glob
    /// (all when none is given), in id order. A glob that matches nothing is
    /// reported with the library it searched.
    pub fn load(&self) -> Result<Vec<Located>, String> {
        let all = crate::scenario::library::load(self.scenarios.as_deref())?;
        // A run that would test nothing is a usage error, not a pass.
        if all.is_empty() {
            return Err(format!("no scenarios in {}: nothing to test", crate::scenario::library::describe(self.scenarios.as_deref())));
        }
        for g in &self.scenario {
            if !all.iter().any(|l| glob_match(g, &l.scenario.id)) {
                return Err(format!("--scenario {g:?} matches no scenario in {}", crate::scenario::library::describe(self.scenarios.as_deref())));
            }
        }
        Ok(all.into_iter().filter(|l| self.scenario.is_empty() || self.scenario.iter().any(|g| glob_match(g, &l.scenario.id))).collect())
    }
}

/// `*` any run, `?` one char.
pub fn glob_match(pat: &str, s: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some('*'), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some('?'), Some(_)) => go(&p[1..], &s[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    go(&pat.chars().collect::<Vec<_>>(), &s.chars().collect::<Vec<_>>())
}

pub fn state_root() -> PathBuf {
    // Fixed width: prompts embed the workspace path (2026.4.26's heartbeat
    // hint) and token estimates count it, so two runs of one scenario must
    // not differ by the number of digits in their pids.
    std::env::temp_dir().join(format!("clawspec-{:010}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::glob_match;
    #[test]
    fn command_lines_split_like_a_shell() {
        let s = super::command_spec(r#"node "my plugin/x.js" --a 'b c' d\ e"#).unwrap();
        assert_eq!(s.program, "node");
        assert_eq!(s.args, ["my plugin/x.js", "--a", "b c", "d e"]);
        assert!(super::command_spec("node 'x").is_err());
        let s = super::command_spec("FOO=1 BAR='a b' python3 e.py").unwrap();
        assert_eq!((s.program.as_str(), s.args.as_slice()), ("python3", &["e.py".to_string()][..]));
        assert_eq!(s.env.get("FOO").map(String::as_str), Some("1"));
        assert_eq!(s.env.get("BAR").map(String::as_str), Some("a b"));
    }

    #[test]
    fn pass_env_takes_names_only() {
        assert_eq!(super::env_name("MY_TOKEN_2").as_deref(), Ok("MY_TOKEN_2"));
        for bad in ["", "A=B", "LC_*", "2X", "HOME", "TMPDIR"] {
            assert!(super::env_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn globs() {
        assert!(glob_match("announce-*", "announce-steer"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("a?c", "abc"));
    }
}

/// `--jobs N`: at least one (zero would run nothing, or everything at once).
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}
