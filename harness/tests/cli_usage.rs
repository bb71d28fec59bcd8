//! Everyday command-line behaviour through the real binary: `run` with globs,
//! repeatable `--scenario`, the scenario library outside a checkout, lint of
//! duplicate ids, output paths checked before running, `record --out`
//! errors, one progress line per scenario when stderr is not a terminal and
//! a progress bar when it is (a real pseudo-terminal).

mod support;

use support::{clawspec, clawspec_in, json, s, tmp};

#[test]
fn run_takes_a_glob_and_every_profile() {
    let o = clawspec(&["run", "--scenario", "tool-loop-*", "--engine", "builtin:legacy"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let headers: Vec<&str> = o.stdout.lines().filter(|l| l.starts_with("scenario ")).collect();
    assert_eq!(headers.len(), 6, "2 scenarios × 3 profiles: {headers:?}");
    assert!(headers[0].starts_with("scenario tool-loop-multi-step · profile openclaw-2026.4.26"), "{headers:?}");
    let o = clawspec(&["run", "--scenario", "tool-loop-*", "--profile", "openclaw-2026.9.6", "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let traces: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(traces.as_array().map(Vec::len), Some(2), "several traces: a JSON array");
    // One id and one profile: the golden format, a single object.
    let o = clawspec(&["run", "--scenario", "tool-loop-parallel", "--profile", "openclaw-2026.9.6", "--json"]);
    assert!(serde_json::from_str::<serde_json::Value>(&o.stdout).unwrap().is_object());
    let o = clawspec(&["run", "--scenario", "no-such-*"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("matches no scenario"), "{}", o.stderr);
}

#[test]
fn scenario_is_repeatable_and_takes_the_union() {
    let d = tmp("union");
    let r = d.join("r.json");
    let o = clawspec(&["certify", "--scenario", "tool-loop-parallel", "--scenario", "prompt-abort-*", "--report", s(&r)]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let sel = &json(&r)["selection"];
    assert_eq!(sel["scenarios"], serde_json::json!(["prompt-abort-hint", "tool-loop-parallel"]), "{sel}");
    assert_eq!(sel["scenarioGlobs"], serde_json::json!(["tool-loop-parallel", "prompt-abort-*"]));
}

#[test]
fn outside_a_checkout_the_shipped_library_is_used() {
    let d = tmp("elsewhere");
    let o = clawspec_in(&d, &["list", "scenarios"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("tool-loop-parallel"), "{}", o.stdout);
    let o = clawspec_in(&d, &["certify", "--scenario", "tool-loop-parallel"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    // A --scenarios folder that does not exist is one plain usage error.
    let o = clawspec_in(&d, &["certify", "--scenarios", "nowhere"]);
    assert_eq!(o.code, 2);
    assert_eq!(o.stderr.trim(), "clawspec: --scenarios nowhere: no such directory", "not a lint-looking file:line:col error");
}

#[test]
fn lint_catches_duplicate_ids_across_files() {
    let d = tmp("dupids");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        std::fs::write(d.join(sub).join("same.yaml"), "title: t\nid: same\ndescription: d\nscript:\n  - heartbeat: {}\n").unwrap();
    }
    let o = clawspec(&["lint", s(&d)]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(o.stdout.contains("b/same.yaml:2:1: duplicate scenario id \"same\""), "{}", o.stdout);
}

#[test]
fn output_paths_are_checked_before_the_run() {
    let d = tmp("outputs");
    let missing = d.join("no/such/folder/r.json");
    let o = clawspec(&["certify", "--report", s(&missing)]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("--report") && o.stderr.contains("does not exist"), "{}", o.stderr);
    assert!(o.stdout.is_empty() && !o.stderr.contains("[1/"), "nothing ran: {}{}", o.stdout, o.stderr);
    let o = clawspec(&["certify", "--junit", s(&d)]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("is a directory"), "{}", o.stderr);
}

#[test]
fn record_out_errors_name_the_path() {
    let d = tmp("record-out");
    let file = d.join("a-file");
    std::fs::write(&file, "").unwrap();
    let o = clawspec(&["record", "--scenario", "prompt-abort-hint", "--out", s(&file)]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains(&format!("--out {}", file.display())), "{}", o.stderr);
    let nested = file.join("sub");
    let o = clawspec(&["record", "--scenario", "prompt-abort-hint", "--out", s(&nested)]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains(s(&nested)), "{}", o.stderr);
}

#[test]
fn one_line_per_finished_scenario_when_not_a_terminal() {
    let o = clawspec(&["certify", "--engine", "builtin:window:split-tool-pair", "--scenario", "tool-loop-*"]);
    assert_eq!(o.code, 1);
    let lines: Vec<&str> = o.stderr.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    assert!(lines.iter().any(|l| l.contains("tool-loop-multi-step: ok")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("tool-loop-parallel: FAIL CE-ASM-003 (")), "{lines:?}");
    assert!(lines.iter().all(|l| l.contains("/2] ")), "{lines:?}");
}

/// `clawspec ARGS` with stderr on a fresh pseudo-terminal (120 columns):
/// everything written to the terminal, and the exit code.
fn clawspec_on_a_terminal(args: &[&str]) -> (String, i32) {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: the POSIX pty calls on a descriptor we own; ptsname_r writes
    // into the buffer it is given; the master fd is wrapped once.
    let (master, slave_path) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0 && libc::grantpt(fd) == 0 && libc::unlockpt(fd) == 0, "no pseudo-terminal");
        let ws = libc::winsize { ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0 };
        libc::ioctl(fd, libc::TIOCSWINSZ, &ws);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
        (std::fs::File::from_raw_fd(fd), std::ffi::CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned())
    };
    let slave = std::fs::OpenOptions::new().read(true).write(true).open(&slave_path).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(args)
        .current_dir(support::root())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(slave)
        .spawn()
        .expect("runs");
    // Our copy of the slave is gone (moved into the child), so reading the
    // master ends (EIO) once the child and its engines have exited.
    let reader = std::thread::spawn(move || {
        let (mut master, mut out) = (master, Vec::new());
        let mut buf = [0u8; 8192];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&out).into_owned()
    });
    let code = child.wait().unwrap().code().unwrap_or(-1);
    (reader.join().unwrap(), code)
}

#[test]
fn a_progress_bar_on_a_terminal() {
    let (screen, code) = clawspec_on_a_terminal(&["certify", "--engine", "builtin:window:split-tool-pair", "--scenario", "tool-loop-*"]);
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains(" runs (2 scenarios × 3 profiles) "), "the bar is drawn:\n{screen:?}");
    assert!(screen.contains(" failing"), "{screen:?}");
    assert!(!screen.lines().any(|l| l.starts_with("[1/2] ")), "no per-scenario lines on a terminal:\n{screen:?}");
}

/// `serve-provider` stops on SIGINT, SIGTERM and SIGHUP alike and exits
/// 128 + the signal, as every other command does.
#[rstest::rstest]
#[case(libc::SIGINT, 130)]
#[case(libc::SIGTERM, 143)]
#[case(libc::SIGHUP, 129)]
fn serve_provider_exits_128_plus_the_signal(#[case] sig: i32, #[case] code: i32) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_clawspec"))
        .args(["serve-provider", "--provider", "anthropic", "--port", "0"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("listening on http://"), "{line}");
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, sig) };
    assert_eq!(child.wait().unwrap().code(), Some(code));
}

/// `run` is what every `reproduce:` line runs: it numbers the calls the
/// verdicts cite, shows messages by role, prints the run's verdicts and
/// exits 1 when one stops certification, as certify does.
#[test]
fn run_reproduces_the_verdict() {
    let o = clawspec(&["run", "--scenario", "prompt-abort-hint", "--profile", "openclaw-2026.9.6", "--engine", "builtin:window:reorder-messages"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("  #3 t1.a1 → assemble (attempt) {") && o.stdout.contains("messages:[2: user assistant]"), "{}", o.stdout);
    assert!(o.stdout.contains("verdicts: 18 judged, 1 not met\n  Fail CE-ASM-004 [Must]\n    - turn 1 attempt 1 assemble (call #3)"), "{}", o.stdout);
    let o = clawspec(&["run", "--scenario", "prompt-abort-hint", "--profile", "openclaw-2026.9.6"]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert!(o.stdout.contains("verdicts: 18 judged, 0 not met"), "{}", o.stdout);
}
