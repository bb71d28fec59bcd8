//! Building the engine's command: its own process group, a token naming it
//! (see `reaper`), and — unless `--no-sandbox` — the sandbox.

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use super::reaper::TOKEN_VAR;
use super::sandbox::{self, Confinement};
use super::{DriverConfig, EngineFault, EngineSpec};

/// A command ready to spawn, with what the engine owns.
pub struct Prepared {
    pub cmd: Command,
    pub token: String,
    /// A state dir the driver made for this engine (no runtime-provided one):
    /// removed with the engine.
    pub owned_dir: Option<PathBuf>,
}

pub fn prepare(spec: &EngineSpec, config: &DriverConfig) -> Result<Prepared, EngineFault> {
    prepare_in(spec, config, None)
}

/// [`prepare`], writable in `writable_root` instead of the state dir alone
/// (a warm process serves several runs' state dirs under one root, `pool`);
/// HOME, TMPDIR and the working directory stay in the state dir.
pub fn prepare_in(spec: &EngineSpec, config: &DriverConfig, writable_root: Option<&std::path::Path>) -> Result<Prepared, EngineFault> {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let token = format!("{}-{n}", std::process::id());
    let sb = &config.sandbox;
    let mut owned_dir = None;
    let mut cmd;
    let mut confinement = None;
    if sb.enabled {
        let state = match &sb.state_dir {
            Some(d) => d.clone(),
            None => {
                let d = std::env::temp_dir().join(format!("clawspec-engine-{token}"));
                owned_dir = Some(d.clone());
                d
            }
        };
        let made = [state.join("home"), state.join("tmp")].iter().try_for_each(std::fs::create_dir_all);
        made.map_err(|e| EngineFault::SpawnFailed { message: format!("cannot create the engine's state dir {}: {e}", state.display()) })?;
        let base = match &spec.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        };
        let (program, args) = sandbox::absolutize(&spec.program, &spec.args, &base);
        cmd = Command::new(program);
        cmd.args(args).env_clear().envs(sandbox::environment(sb, std::env::vars_os(), &spec.env, &state)).current_dir(&state);
        confinement = Some(Confinement::new(writable_root.unwrap_or(&state), &sb.extra_writable).map_err(|message| EngineFault::SpawnFailed { message })?);
        sandbox::hide_own_environ();
    } else {
        cmd = Command::new(&spec.program);
        cmd.args(&spec.args).envs(&spec.env);
        if let Some(d) = &spec.cwd {
            cmd.current_dir(d);
        }
    }
    cmd.env(TOKEN_VAR, &token).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // Own process group, so one killpg reaches grandchildren too (a Node
    // adapter's workers, a shell wrapper's real engine); then the Landlock
    // domain, which the engine and everything it starts inherit.
    // SAFETY: setpgid, prctl and landlock_restrict_self are async-signal-safe
    // syscalls; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(c) = &confinement {
                c.restrict_self()?;
            }
            Ok(())
        });
    }
    Ok(Prepared { cmd, token, owned_dir })
}
