//! Every process an engine starts dies with it. clawspec is a child
//! subreaper (PR_SET_CHILD_SUBREAPER), so a descendant that escapes the
//! engine's process group (`setsid`, a double fork) is re-parented to
//! clawspec instead of PID 1. Each engine carries a token in its environment
//! ([`TOKEN_VAR`]); its members are the live descendants of its process plus
//! every re-parented child of ours carrying its token or working in its state
//! dir, and their descendants. A descendant that also scrubbed its
//! environment and left the state dir before being orphaned is still ours: [`sweep_strays`] kills every non-engine child at the end of a
//! command and on a signal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Environment variable naming the engine a process belongs to.
pub const TOKEN_VAR: &str = "CLAWSPEC_ENGINE_TOKEN";

/// Engine processes spawned and not yet reaped. Held while spawning, so a
/// sweep never mistakes a just-forked engine for a stray.
static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

pub fn live() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Become a child subreaper (once per process). Returns whether it holds.
pub fn become_subreaper() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    // SAFETY: plain prctl on this process.
    *OK.get_or_init(|| unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 })
}

/// One row of /proc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    pub state: char,
    pub comm: String,
}

impl Proc {
    pub fn alive(&self) -> bool {
        self.state != 'Z' && self.state != 'X'
    }
}

pub fn stat(pid: i32) -> Option<Proc> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text[open + 1..close].to_string();
    let mut rest = text[close + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some(Proc { pid, ppid, state, comm })
}

fn table() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return vec![] };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()).filter_map(stat).collect()
}

fn token_of(pid: i32) -> Option<String> {
    let env = environ(pid)?;
    let key = format!("{TOKEN_VAR}=");
    env.split(|b| *b == 0).find_map(|kv| kv.strip_prefix(key.as_bytes()).map(|v| String::from_utf8_lossy(v).into_owned()))
}

/// `/proc/<pid>/environ`, waiting out an `execve` in flight: between the
/// kernel swapping in the new image and laying out its stack the file reads
/// empty (`env_end` is still 0), so a leftover that happened to be exec'ing
/// (a `setsid` about to become `sleep`) would lose its token and escape the
/// sweep. A live process that really has an empty environment costs at most
/// the 50 ms this waits.
fn environ(pid: i32) -> Option<Vec<u8>> {
    let deadline = Instant::now() + Duration::from_millis(50);
    loop {
        let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        if !env.is_empty() || Instant::now() >= deadline || !stat(pid).is_some_and(|p| p.alive()) {
            return Some(env);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn me() -> i32 {
    // SAFETY: getpid never fails.
    unsafe { libc::getpid() }
}

/// Whether `pid`'s working directory is inside `dir` (a sandboxed engine
/// runs in its state dir; a daemon that scrubbed its environment usually
/// keeps the directory).
fn works_in(pid: i32, dir: &Path) -> bool {
    std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|c| c.starts_with(dir))
}

/// The processes belonging to an engine (its own process excluded): the
/// descendants of `root` (when still ours), the re-parented children of ours
/// carrying `token` or working in `state_dir`, and all their descendants.
pub fn members(root: Option<i32>, token: &str, state_dir: Option<&Path>) -> Vec<Proc> {
    let t = table();
    let me = me();
    let mut children: BTreeMap<i32, Vec<&Proc>> = BTreeMap::new();
    for p in &t {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut seeds: Vec<i32> = root.into_iter().collect();
    for p in children.get(&me).into_iter().flatten() {
        if Some(p.pid) != root && (token_of(p.pid).as_deref() == Some(token) || state_dir.is_some_and(|d| works_in(p.pid, d))) {
            seeds.push(p.pid);
        }
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut todo = seeds.clone();
    while let Some(pid) = todo.pop() {
        if !seen.insert(pid) {
            continue;
        }
        if Some(pid) != root {
            if let Some(p) = t.iter().find(|p| p.pid == pid) {
                out.push(p.clone());
            }
        }
        for c in children.get(&pid).into_iter().flatten() {
            todo.push(c.pid);
        }
    }
    out.sort_by_key(|p| p.pid);
    out
}

/// SIGKILL `procs`, then reap the ones that are (or become) our children.
/// Bounded: a process that stays unreapable (uninterruptible sleep) is left
/// after one second.
pub fn kill_and_reap(procs: &[Proc]) {
    for p in procs {
        // SAFETY: plain kill; the pids were read from /proc just now and
        // belong to the engine's tree (or to our own children).
        unsafe {
            libc::kill(p.pid, libc::SIGKILL);
        }
    }
    let me = me();
    let mut left: Vec<i32> = procs.iter().map(|p| p.pid).collect();
    let deadline = Instant::now() + Duration::from_secs(1);
    while !left.is_empty() && Instant::now() < deadline {
        left.retain(|&pid| match stat(pid) {
            None => false,
            Some(p) if p.ppid == me => {
                // SAFETY: reaping our own (re-parented) child by pid.
                let r = unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
                r == 0
            }
            // A zombie of a dying parent: it is re-parented to us shortly.
            Some(_) => true,
        });
        if !left.is_empty() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Kill an engine's members until none is left (a forking process may add
/// some while we kill). Returns every member found running in any round: a
/// process that hops to a new pid (fork, exit, setsid) between two rounds
/// was running all the same, and the verdict must not depend on when the
/// snapshot fell.
pub fn sweep(root: Option<i32>, token: &str, state_dir: Option<&Path>) -> Vec<Proc> {
    let mut running: BTreeMap<i32, Proc> = BTreeMap::new();
    for _ in 0..20 {
        let m = members(root, token, state_dir);
        for p in m.iter().filter(|p| p.alive()) {
            running.entry(p.pid).or_insert_with(|| p.clone());
        }
        if m.is_empty() {
            break;
        }
        kill_and_reap(&m);
    }
    running.into_values().collect()
}

/// Kill every child of ours that is not a live engine, with its descendants
/// (`all`: the live engines too — on a signal). Returns how many were killed.
pub fn sweep_strays(all: bool) -> usize {
    let live = live();
    let me = me();
    let mut killed = BTreeSet::new();
    for _ in 0..20 {
        let t = table();
        let mut children: BTreeMap<i32, Vec<&Proc>> = BTreeMap::new();
        for p in &t {
            children.entry(p.ppid).or_default().push(p);
        }
        let mut doomed = Vec::new();
        let mut todo: Vec<i32> = children.get(&me).into_iter().flatten().filter(|p| all || !live.contains(&p.pid)).map(|p| p.pid).collect();
        while let Some(pid) = todo.pop() {
            if let Some(p) = t.iter().find(|p| p.pid == pid) {
                doomed.push(p.clone());
            }
            todo.extend(children.get(&pid).into_iter().flatten().map(|c| c.pid));
        }
        // Zombie children that tokio still owns are not ours to reap.
        doomed.retain(|p| p.alive() || !live.contains(&p.pid));
        if doomed.is_empty() {
            break;
        }
        killed.extend(doomed.iter().filter(|p| p.alive()).map(|p| p.pid));
        if all {
            for pid in live.iter() {
                // SAFETY: our own engine process groups.
                unsafe {
                    libc::killpg(*pid, libc::SIGKILL);
                }
            }
        }
        let (ours, theirs): (Vec<Proc>, Vec<Proc>) = doomed.into_iter().partition(|p| live.contains(&p.pid));
        for p in &ours {
            // SAFETY: our own engine; tokio reaps it.
            unsafe {
                libc::kill(p.pid, libc::SIGKILL);
            }
        }
        kill_and_reap(&theirs);
        if theirs.is_empty() {
            // Only live engines remain: they are SIGKILLed and tokio reaps them.
            break;
        }
    }
    killed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_parses_odd_command_names() {
        let me = stat(std::process::id() as i32).expect("own stat");
        assert_eq!(me.pid, std::process::id() as i32);
        assert!(me.alive());
        assert!(me.ppid > 0);
    }

    #[test]
    fn a_setsid_grandchild_is_a_member_until_swept() {
        assert!(become_subreaper());
        // sh (our child) starts a setsid sleep and exits: the sleep is
        // re-parented to us and found by its token.
        let token = format!("t-{}", std::process::id());
        let mut c = std::process::Command::new("sh")
            .args(["-c", "setsid sleep 30 >/dev/null 2>&1 & echo $!"])
            .env(TOKEN_VAR, &token)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = {
            use std::io::Read;
            let mut s = String::new();
            c.stdout.take().unwrap().read_to_string(&mut s).unwrap();
            s
        };
        c.wait().unwrap();
        let pid: i32 = out.trim().parse().unwrap();
        let found = members(None, &token, None);
        assert!(found.iter().any(|p| p.pid == pid && p.alive()), "{found:?}");
        let swept = sweep(None, &token, None);
        assert!(swept.iter().any(|p| p.pid == pid));
        assert!(stat(pid).is_none(), "killed and reaped");
        assert!(members(None, &token, None).is_empty());
    }
}
