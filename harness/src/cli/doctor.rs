//! `clawspec doctor`: what the engine sandbox enforces on this machine,
//! measured, not assumed — a real sandboxed `sh` tries to write outside its
//! state dir and to read clawspec's environment.

use std::process::{Command, Stdio};

use crate::driver::{reaper, sandbox, Sandbox};

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn main(_: Args) -> u8 {
    let e = sandbox::probe();
    let s = Sandbox::default();
    println!("kernel: {}", std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim());
    println!("running as: {}", if unsafe { libc::geteuid() } == 0 { "root (Landlock confines root too)" } else { "a regular user" });
    println!("landlock ABI: {}{}", e.landlock_abi, if e.landlock_abi == 0 { " (not available)" } else { "" });
    println!("child subreaper: {}", if reaper::become_subreaper() { "yes" } else { "NO" });
    println!("unprivileged user namespaces: {} (not used by the sandbox)", userns());
    println!("{}", e.summary(&s));
    match live_check() {
        Ok(lines) => lines.iter().for_each(|l| println!("measured: {l}")),
        Err(err) => println!("measured: could not run the live check: {err}"),
    }
    let warnings = e.warnings(&s);
    for w in &warnings {
        println!("warning: {w}");
    }
    println!("environment passed to engines: {} and LC_*, plus --pass-env NAME and the NAME=value words that start --engine; HOME and TMPDIR point into the per-run state dir", sandbox::ENV_ALLOW.join(", "));
    super::EXIT_OK
}

fn userns() -> &'static str {
    let max: u64 = std::fs::read_to_string("/proc/sys/user/max_user_namespaces").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
    if max == 0 {
        return "no";
    }
    let ok = Command::new("unshare").args(["--user", "true"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if ok {
        "yes"
    } else {
        "no (or `unshare` missing)"
    }
}

/// Spawn `sh` exactly as an engine is spawned and report what it could do.
fn live_check() -> Result<Vec<String>, String> {
    let dir = std::env::temp_dir().join(format!("clawspec-doctor-{}", std::process::id()));
    let outside = std::env::temp_dir().join(format!("clawspec-doctor-outside-{}", std::process::id()));
    let config = crate::driver::DriverConfig { sandbox: Sandbox { state_dir: Some(dir.clone()), ..Sandbox::default() }, ..Default::default() };
    let script = format!(
        "if ( : > '{}' ) 2>/dev/null; then echo 'write outside the state dir: ALLOWED'; else echo 'write outside the state dir: denied'; fi; \
         if ( : > \"$HOME/x\" ) 2>/dev/null; then echo 'write in the state dir: allowed'; else echo 'write in the state dir: DENIED'; fi; \
         if head -c1 /proc/$PPID/environ >/dev/null 2>&1; then echo 'read /proc/<ppid>/environ: ALLOWED'; else echo 'read /proc/<ppid>/environ: denied'; fi",
        outside.display()
    );
    let spec = crate::driver::EngineSpec { program: "sh".into(), args: vec!["-c".into(), script], env: Default::default(), cwd: None, display: "doctor".into() };
    let out = crate::driver::sandboxed_output(&spec, &config).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&outside);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(String::from_utf8_lossy(&out?).lines().map(str::to_string).collect())
}
