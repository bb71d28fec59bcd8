//! The engine sandbox (Linux). An engine is untrusted code: it gets an
//! allow-listed environment, `HOME`, `TMPDIR` and its working directory in the
//! per-run state dir, and a Landlock domain that makes the whole filesystem
//! read-only except that dir (and `/dev/null`), hides every other process's
//! `/proc/<pid>` (so `/proc/<ppid>/environ` is unreadable, for root too) and
//! forbids signalling processes outside the sandbox. As a fallback without
//! Landlock, clawspec makes itself non-dumpable and the engine starts without
//! CAP_SYS_PTRACE. What this kernel
//! enforces is [`probe`]d and shown by `clawspec doctor` and certify's header;
//! a missing feature degrades to a warning, never to a silent pass.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    path_beneath_rules, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};

/// Variables an engine keeps from clawspec's environment (plus `--pass-env`).
/// Everything else — API keys, cloud credentials, tokens — is dropped.
pub const ENV_ALLOW: &[&str] = &["PATH", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "RUST_BACKTRACE"];
/// Prefixes allowed the same way (`LC_ALL`, `LC_CTYPE`, …).
pub const ENV_ALLOW_PREFIX: &[&str] = &["LC_"];

/// The Landlock ABI this policy is written for; newer kernels run it as is,
/// older ones in best-effort mode (reported by [`probe`]).
const TARGET_ABI: ABI = ABI::V6;

/// linux/capability.h
const CAP_SETPCAP: u32 = 8;
const CAP_SYS_PTRACE: libc::c_ulong = 19;

/// Sandbox policy for engine processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    /// `false` with `--no-sandbox`: the engine inherits everything (named in
    /// the report).
    pub enabled: bool,
    /// Extra variables passed through (`--pass-env NAME`).
    pub pass_env: Vec<String>,
    /// The only writable directory; also `HOME`'s and `TMPDIR`'s parent and
    /// the working directory. The runtime sets the per-run state dir; when
    /// unset the driver makes (and removes) one per engine.
    pub state_dir: Option<PathBuf>,
    /// Directories writable besides the state dir: only the OpenClaw SDK's
    /// hard-coded lock directory for `--plugin` runs ([`openclaw_lock_dir`]).
    pub extra_writable: Vec<PathBuf>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox { enabled: true, pass_env: Vec::new(), state_dir: None, extra_writable: Vec::new() }
    }
}

/// The directory where the real OpenClaw SDK (2026.9.6) takes the locks of
/// its SQLite state databases: `/tmp/openclaw-state-locks-<uid>`, hard-coded
/// (dist `managed-handoff-runtime.mjs` `resolveStateLifecycleRuntimeDirectory`
/// returns `"/tmp"` unless a gateway-internal AsyncLocalStorage says
/// otherwise; neither TMPDIR nor OPENCLAW_STATE_DIR moves it). A plugin that
/// opens the transcript store through the SDK needs to write there, so
/// clawspec creates it as the SDK would (a private, real directory of this
/// user) and allows exactly it. Lock files are named after a hash of the
/// database path, which is per run, so runs never share one; [`remove_locks_of`]
/// deletes a run's. `Err` names why the directory cannot be used (another
/// user's, a symlink): the sandbox then does not allow it and the SDK's own
/// error shows in the run.
pub fn openclaw_lock_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
    // SAFETY: getuid never fails.
    let uid = unsafe { libc::getuid() };
    let dir = PathBuf::from(format!("/tmp/openclaw-state-locks-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
    }
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !meta.file_type().is_dir() {
        return Err(format!("{} is not a real directory", dir.display()));
    }
    if meta.uid() != uid {
        return Err(format!("{} belongs to another user (uid {})", dir.display(), meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(dir)
}

/// Remove the SDK lock files that belong to databases under `state_dir`
/// (`<family>.<sha256(db path)[..8]>.lock.sqlite*`, dist
/// `resolveLifecycleCoordinatorBase`), so a run leaves nothing behind in
/// the shared lock directory.
pub fn remove_locks_of(lock_dir: &Path, state_dir: &Path) {
    use sha2::{Digest as _, Sha256};
    let mut hashes = Vec::new();
    let mut todo = vec![state_dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push(p),
                Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "sqlite") => {
                    let canon = std::fs::canonicalize(&p).unwrap_or(p);
                    let hex: String = Sha256::digest(canon.to_string_lossy().as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
                    hashes.push(hex[..8].to_string());
                }
                _ => {}
            }
        }
    }
    if hashes.is_empty() {
        return;
    }
    let Ok(rd) = std::fs::read_dir(lock_dir) else { return };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if hashes.iter().any(|h| name.contains(&format!(".{h}.lock.sqlite"))) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What the running kernel lets the sandbox enforce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enforcement {
    /// Landlock ABI version (0: none).
    pub landlock_abi: i32,
    pub filesystem: bool,
    /// Signals and abstract unix sockets scoped to the sandbox (ABI ≥ 6).
    pub ipc_scoped: bool,
    /// `/proc/<clawspec>/environ` unreadable to the engine (clawspec
    /// non-dumpable; CAP_SYS_PTRACE dropped for root engines).
    pub parent_environ_hidden: bool,
    pub subreaper: bool,
}

impl Enforcement {
    /// One line for certify's header and the report.
    pub fn summary(&self, sandbox: &Sandbox) -> String {
        if !sandbox.enabled {
            return "sandbox: OFF (--no-sandbox): the engine inherits the environment and can write anywhere".into();
        }
        let yes = |b: bool| if b { "yes" } else { "NO" };
        format!(
            "sandbox: env allow-list yes, HOME/TMPDIR/cwd in state dir yes, filesystem read-only outside state dir {} (Landlock ABI {}: contents and names; file modes, owners, timestamps and xattrs are not confined), parent environ hidden {}, signals scoped {}, descendants killed after each run {}",
            yes(self.filesystem),
            self.landlock_abi,
            yes(self.parent_environ_hidden),
            yes(self.ipc_scoped),
            yes(self.subreaper)
        )
    }

    /// Warnings for features this kernel lacks.
    pub fn warnings(&self, sandbox: &Sandbox) -> Vec<String> {
        let mut w = Vec::new();
        if !sandbox.enabled {
            return w;
        }
        if !self.filesystem {
            w.push("Landlock is not available on this kernel: the engine can write wherever this user can".into());
        }
        if !self.parent_environ_hidden {
            w.push("the engine may read clawspec's environment from /proc/<ppid>/environ (root without CAP_SETPCAP)".into());
        }
        if !self.ipc_scoped && self.filesystem {
            w.push("Landlock ABI < 6: the engine can signal processes outside its sandbox".into());
        }
        w
    }
}

/// Probe the kernel (no side effects on this process).
pub fn probe() -> Enforcement {
    let abi = landlock_abi();
    let root = unsafe { libc::geteuid() } == 0;
    Enforcement {
        landlock_abi: abi,
        filesystem: abi >= 1,
        ipc_scoped: abi >= 6,
        // Landlock leaves other processes' /proc entries unreadable; without
        // it, non-dumpability protects clawspec's own entry against non-root
        // engines (and root ones that lose CAP_SYS_PTRACE — on kernels that
        // honour it).
        parent_environ_hidden: abi >= 1 || !root || has_cap(CAP_SETPCAP),
        subreaper: cfg!(target_os = "linux"),
    }
}

/// Whether this process has `cap` in its bounding set and effective set.
fn has_cap(cap: u32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let eff = status.lines().find_map(|l| l.strip_prefix("CapEff:")).and_then(|h| u64::from_str_radix(h.trim(), 16).ok()).unwrap_or(0);
    eff & (1u64 << cap) != 0
}

fn landlock_abi() -> i32 {
    // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    let v = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
    if v < 0 {
        0
    } else {
        v as i32
    }
}

/// Make clawspec's own `/proc/<pid>/environ` unreadable to same-user
/// processes that lack CAP_SYS_PTRACE (the fallback when Landlock is missing;
/// engines do not inherit it: execve resets dumpability).
pub fn hide_own_environ() {
    // SAFETY: plain prctl on this process.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// The environment an engine starts with: the allow-list, `--pass-env`, the
/// engine spec's own variables, and HOME/TMPDIR in the state dir.
pub fn environment(sandbox: &Sandbox, parent: impl IntoIterator<Item = (OsString, OsString)>, spec_env: &BTreeMap<String, String>, state: &Path) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = parent
        .into_iter()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            ENV_ALLOW.contains(&k.as_ref()) || ENV_ALLOW_PREFIX.iter().any(|p| k.starts_with(p)) || sandbox.pass_env.iter().any(|p| *p == k)
        })
        .collect();
    env.insert("HOME".into(), state.join("home").into());
    env.insert("TMPDIR".into(), state.join("tmp").into());
    for (k, v) in spec_env {
        env.insert(k.into(), v.into());
    }
    env
}

/// The engine runs in its state dir, so relative paths on its command line
/// (`python3 my_engine.py`) are resolved against clawspec's working directory
/// first: the program when it contains a `/`, and every argument that names
/// an existing file or directory.
pub fn absolutize(program: &str, args: &[String], cwd: &Path) -> (String, Vec<String>) {
    let abs = |w: &str, must_exist: bool| -> Option<String> {
        let p = Path::new(w);
        if p.is_absolute() || w.starts_with('-') || w.is_empty() {
            return None;
        }
        let full = cwd.join(p);
        (!must_exist || full.exists()).then(|| full.to_string_lossy().into_owned())
    };
    let program = if program.contains('/') { abs(program, false).unwrap_or_else(|| program.into()) } else { program.into() };
    let args = args.iter().map(|a| abs(a, true).unwrap_or_else(|| a.clone())).collect();
    (program, args)
}

/// A Landlock ruleset built before fork; [`Confinement::restrict_self`] is
/// async-signal-safe (two syscalls), so it runs between fork and exec.
pub struct Confinement {
    fd: Option<OwnedFd>,
    read_bits: u64,
}

/// System-wide `/proc` files an engine may read (runtimes size thread pools
/// from them).
const PROC_READABLE: &[&str] = &["cpuinfo", "meminfo", "stat", "uptime", "loadavg", "version", "filesystems", "sys"];

/// `struct landlock_path_beneath_attr` (linux/landlock.h).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

impl Confinement {
    /// Read (and execute) everywhere but `/proc`; everything in `state`;
    /// write to the null and zero devices. In `/proc` only system-wide files
    /// and — added in the child, see [`Confinement::restrict_self`] — the
    /// engine's own `/proc/<pid>`: every other process's `/proc` entry,
    /// `environ` included, stays unreadable (clawspec's, its caller's, a CI
    /// runner's). Best effort: on a kernel without Landlock the confinement
    /// is empty and [`probe`] says so.
    pub fn new(state: &Path, extra: &[PathBuf]) -> Result<Confinement, String> {
        let err = |e: &dyn std::fmt::Display| format!("landlock: {e}");
        let all = AccessFs::from_all(TARGET_ABI);
        let read = AccessFs::from_read(TARGET_ABI);
        let top: Vec<PathBuf> = std::fs::read_dir("/")
            .map_err(|e| err(&e))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p != Path::new("/proc"))
            .collect();
        let proc_files: Vec<PathBuf> = PROC_READABLE.iter().map(|f| Path::new("/proc").join(f)).filter(|p| p.exists()).collect();
        let ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .map_err(|e| err(&e))?
            .scope(Scope::Signal | Scope::AbstractUnixSocket)
            .map_err(|e| err(&e))?
            .create()
            .map_err(|e| err(&e))?
            .add_rules(path_beneath_rules(&top, read))
            .map_err(|e| err(&e))?
            .add_rules(path_beneath_rules(&proc_files, read))
            .map_err(|e| err(&e))?
            .add_rules(path_beneath_rules([state], all))
            .map_err(|e| err(&e))?
            .add_rules(path_beneath_rules(extra, all))
            .map_err(|e| err(&e))?
            .add_rules(path_beneath_rules(["/dev/null", "/dev/zero", "/dev/full"], AccessFs::ReadFile | AccessFs::WriteFile))
            .map_err(|e| err(&e))?;
        let fd: Option<OwnedFd> = ruleset.into();
        Ok(Confinement { fd, read_bits: read.bits() })
    }

    /// Between fork and exec: drop CAP_SYS_PTRACE from the bounding set (so
    /// a root engine cannot read the non-dumpable clawspec's
    /// `/proc/<pid>/environ`; ignored without CAP_SETPCAP, where it is not
    /// needed), set no_new_privs, then enter the domain.
    pub fn restrict_self(&self) -> std::io::Result<()> {
        // SAFETY: raw syscalls only, async-signal-safe.
        unsafe {
            libc::prctl(libc::PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0);
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        let Some(fd) = &self.fd else { return Ok(()) };
        // SAFETY: as above; `/proc/self` resolves to the child itself here.
        unsafe {
            let own = libc::open(c"/proc/self".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
            if own >= 0 {
                let attr = PathBeneathAttr { allowed_access: self.read_bits, parent_fd: own };
                libc::syscall(libc::SYS_landlock_add_rule, fd.as_raw_fd(), 1u32, &attr as *const PathBeneathAttr, 0u32);
                libc::close(own);
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn env_of(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))).collect()
    }

    #[test]
    fn secrets_are_dropped_and_home_moves_into_the_state_dir() {
        let s = Sandbox { pass_env: vec!["MY_TOKEN".into()], ..Sandbox::default() };
        let parent = env_of(&[("PATH", "/bin"), ("LC_ALL", "C"), ("AWS_SECRET_ACCESS_KEY", "x"), ("HOME", "/root"), ("MY_TOKEN", "t"), ("TMPDIR", "/tmp")]);
        let mut spec = BTreeMap::new();
        spec.insert("CLAWSPEC_STATE_DIR".to_string(), "/s".to_string());
        let env = environment(&s, parent, &spec, Path::new("/s"));
        let keys: Vec<String> = env.keys().map(|k| k.to_string_lossy().into_owned()).collect();
        assert_eq!(keys, ["CLAWSPEC_STATE_DIR", "HOME", "LC_ALL", "MY_TOKEN", "PATH", "TMPDIR"]);
        assert_eq!(env[&OsString::from("HOME")], OsString::from("/s/home"));
        assert_eq!(env[&OsString::from("TMPDIR")], OsString::from("/s/tmp"));
    }

    #[rstest]
    #[case("python3", &["engine.py", "--x", "missing.py"], "python3", &["/w/engine.py", "--x", "missing.py"])]
    #[case("./bin/e", &["/abs"], "/w/./bin/e", &["/abs"])]
    #[case("/usr/bin/node", &["-e", "1"], "/usr/bin/node", &["-e", "1"])]
    fn relative_paths_resolve_against_the_callers_directory(#[case] program: &str, #[case] args: &[&str], #[case] want_p: &str, #[case] want_a: &[&str]) {
        let d = std::env::temp_dir().join(format!("clawspec-abs-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("engine.py"), "").unwrap();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (p, a) = absolutize(program, &args, &d);
        let w = d.to_string_lossy();
        assert_eq!(p, want_p.replace("/w", &w));
        let want: Vec<String> = want_a.iter().map(|s| if s.starts_with("/w") { s.replace("/w", &w) } else { s.to_string() }).collect();
        assert_eq!(a, want);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn summary_names_what_is_off() {
        let e = Enforcement { landlock_abi: 0, filesystem: false, ipc_scoped: false, parent_environ_hidden: false, subreaper: true };
        let s = Sandbox::default();
        assert!(e.summary(&s).contains("read-only outside state dir NO"));
        assert_eq!(e.warnings(&s).len(), 2);
        let off = Sandbox { enabled: false, ..Sandbox::default() };
        assert!(e.summary(&off).contains("OFF"));
        assert!(e.warnings(&off).is_empty());
    }
}
