//! Human renderings of a report: terminal, Markdown (CI job summary), HTML
//! (one self-contained file).

use super::Report;
use crate::check::{self, Status, Verdict};

fn blocking<'a>(r: &'a Report) -> Vec<&'a Verdict> {
    let forgiven = |v: &Verdict| r.baseline.as_ref().is_some_and(|b| b.used.iter().any(|e| e.matches(v)));
    r.verdicts.iter().filter(|v| super::blocks(v, r.strict) && !forgiven(v)).collect()
}

/// Failures, warnings and errors, with the clauses a broken-off run left
/// unjudged shown once per run ([`unjudged`]): one engine fault would
/// otherwise bury the report under an ERROR block per clause.
fn notable<'a>(r: &'a Report) -> Vec<&'a Verdict> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    r.verdicts
        .iter()
        .filter(|v| matches!(v.status, Status::Fail | Status::Warn | Status::Error))
        .filter(|v| {
            if !broke_off(v) {
                return true;
            }
            let run = (v.scenario.as_str(), v.profile.as_str());
            let first = !seen.contains(&run);
            seen.push(run);
            first
        })
        .collect()
}

/// A clause not judged because the engine's fault ended the run (`check`:
/// `engine fault …`, uncaught); the fault itself is CE-LIFE-001/002's verdict.
fn broke_off(v: &Verdict) -> bool {
    v.status == Status::Error && v.error_kind == Some(check::ErrorKind::Uncaught) && v.details.first().is_some_and(|d| d.starts_with("engine fault "))
}

/// For the verdict [`notable`] keeps of a broken-off run: every clause that
/// run left unjudged.
fn unjudged<'a>(r: &'a Report, v: &Verdict) -> Option<Vec<&'a str>> {
    broke_off(v).then(|| r.verdicts.iter().filter(|w| w.scenario == v.scenario && w.profile == v.profile && broke_off(w)).map(|w| w.clause.as_str()).collect())
}

/// One-line reproduction of a scenario × profile run, quoted for a POSIX
/// shell (an engine command may itself hold quotes and spaces).
pub fn repro(engine: &str, v: &Verdict) -> String {
    let (flag, value) = engine_flag(engine);
    shell_words::join(["clawspec", "run", "--scenario", &v.scenario, "--profile", &v.profile, flag, value])
}

fn engine_flag(engine: &str) -> (&'static str, &str) {
    match engine.strip_prefix("plugin:") {
        Some(path) => ("--plugin", path),
        None => ("--engine", engine),
    }
}

/// [`repro`] on the host the report ran on: a real-host run reproduces with
/// `certify --host` of that one scenario.
fn repro_in(r: &Report, v: &Verdict) -> String {
    match &r.host {
        None => {
            let mut line = repro(&r.engine, v);
            if !r.run_args.is_empty() {
                line.push(' ');
                line.push_str(&shell_words::join(&r.run_args));
            }
            line
        }
        Some(h) => {
            let (flag, value) = engine_flag(&r.engine);
            shell_words::join(["clawspec", "certify", "--host", &h.host, "--scenario", &v.scenario, flag, value])
        }
    }
}

/// Terminal lines listing the scenarios the host could not run.
const NOT_DRIVABLE_SHOWN: usize = 12;

/// Lines about what this report covers: a merge (complete or not) and
/// baseline entries it did not judge.
fn coverage(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if r.interrupted {
        out.push("INTERRUPTED: only the runs below finished; not certified".to_string());
    }
    if r.stray_processes > 0 {
        out.push(format!("LEFTOVER PROCESSES: the engines left {} process(es) running that no run could be blamed for (killed); not certified", r.stray_processes));
    }
    if r.no_sandbox {
        out.push("NO SANDBOX: the engine ran with --no-sandbox (whole environment, writes outside its state dir)".to_string());
    }
    if let Some(h) = &r.host {
        out.push(h.line(r.runs.len()));
    }
    if let Some(m) = &r.merged {
        if m.complete {
            out.push(format!("merged shards {} (complete)", m.shards.join(", ")));
        } else {
            out.push(format!("INCOMPLETE merge: shard(s) {} missing (merged {}) — not a verdict on the whole selection", m.missing.join(", "), m.shards.join(", ")));
        }
    }
    if let Some(sh) = r.selection.as_ref().and_then(|s| s.shard) {
        out.push(format!("shard {sh}: {} of {} selected scenarios", r.selection.as_ref().map_or(0, |s| s.scenarios.len()), r.selection.as_ref().map_or(0, |s| s.scenario_count)));
    }
    if !r.profiles_not_run.is_empty() {
        let scope = if r.selection.as_ref().is_some_and(|s| s.shard.is_some()) {
            " of this shard"
        } else if r.merged.as_ref().is_some_and(|m| !m.complete) {
            // The missing shards may hold its scenarios.
            " of the merged shards"
        } else {
            ""
        };
        out.push(format!("not run: no selected scenario{scope} runs under {}; not certified by this run, not counted against it", r.profiles_not_run.join(", ")));
    }
    if let Some(b) = r.baseline.as_ref().filter(|b| !b.outside_selection.is_empty()) {
        out.push(format!("{} baseline entr{} outside this selection, not judged", b.outside_selection.len(), if b.outside_selection.len() == 1 { "y" } else { "ies" }));
    }
    out
}

/// What an engine wrote, made safe to print: control characters other than
/// newline and tab (terminal escapes, carriage returns, backspaces) shown as
/// `\u{1b}`, so an engine cannot repaint the user's terminal or CI log.
pub fn printable(s: &str) -> String {
    if !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return s.to_string();
    }
    s.chars().map(|c| if c.is_control() && c != '\n' && c != '\t' { format!("\\u{{{:x}}}", c as u32) } else { c.to_string() }).collect()
}

pub fn terminal(r: &Report) -> String {
    printable(&terminal_text(r))
}

fn terminal_text(r: &Report) -> String {
    let mut s = String::new();
    let block = blocking(r);
    for v in notable(r) {
        let c = check::clause(&v.clause);
        let kind = match (v.status, v.error_kind) {
            (Status::Error, Some(k)) => format!("ERROR ({})", k.as_str()),
            (Status::Error, None) => "ERROR".to_string(),
            (Status::Warn, _) => "warn".to_string(),
            _ => "FAIL".to_string(),
        };
        let forgiven = super::blocks(v, r.strict) && !block.contains(&v);
        let mark = if forgiven { format!("{kind}, baselined") } else { kind };
        if let Some(clauses) = unjudged(r, v) {
            s.push_str(&format!("\n{mark} {} clause(s) not judged × {} × {}: the run broke off\n", clauses.len(), v.scenario, v.profile));
            s.push_str(&format!("  - {}\n  clauses: {}\n  reproduce: {}\n", v.details[0].replace('\n', "\n      "), clauses.join(", "), repro_in(r, v)));
            continue;
        }
        s.push_str(&format!("\n{mark} {} [{:?}] {} × {}\n", v.clause, v.level, v.scenario, v.profile));
        if let Some(c) = c {
            s.push_str(&format!("  clause: {}\n  source: {}\n", c.text, c.source));
        }
        for d in v.details.iter().take(6) {
            s.push_str(&format!("  - {}\n", d.replace('\n', "\n      ")));
        }
        if v.details.len() > 6 {
            s.push_str(&format!("  … {} more\n", v.details.len() - 6));
        }
        if !v.engine_output.is_empty() {
            s.push_str("  the engine said:\n");
            for l in &v.engine_output {
                s.push_str(&format!("    | {}\n", l.replace('\n', " ")));
            }
        }
        s.push_str(&format!("  reproduce: {}\n", repro_in(r, v)));
    }
    for d in &r.golden_drift {
        s.push_str(&format!("\nREGRESSION (golden drift) {d}\n"));
    }
    let unknown = super::unknown_api_members(r);
    if !unknown.is_empty() {
        s.push_str(&format!("\nthe plugin read API members this host does not provide (undefined for it): {}\n", unknown_list(&unknown, r.runs.len())));
    }
    if let Some(b) = &r.baseline {
        for e in &b.stale {
            s.push_str(&format!("\nSTALE baseline entry (now passes — remove it): {} {} {}\n", e.scenario, e.clause.as_deref().unwrap_or("*"), e.profile.as_deref().unwrap_or("*")));
        }
    }
    s.push_str(&format!("\nengine {}{}{}\n", r.engine, if r.strict { " (strict)" } else { "" }, if r.no_sandbox { " (NO SANDBOX)" } else { "" }));
    for line in coverage(r) {
        s.push_str(&format!("{line}\n"));
    }
    if let Some(h) = &r.host {
        for n in h.not_drivable.iter().take(NOT_DRIVABLE_SHOWN) {
            s.push_str(&format!("  not drivable: {} × {}: {}\n", n.scenario, n.profile, n.reason));
        }
        if h.not_drivable.len() > NOT_DRIVABLE_SHOWN {
            s.push_str(&format!("  … {} more not drivable (all listed in the JSON, Markdown and HTML reports)\n", h.not_drivable.len() - NOT_DRIVABLE_SHOWN));
        }
    }
    s.push_str(&format!("{:<34} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9}  verdict\n", "profile", "pass", "fail", "warn", "info", "n/a", "error", "baselined"));
    for p in &r.profiles {
        s.push_str(&format!(
            "{:<34} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9}  {}\n",
            p.profile, p.pass, p.fail, p.warn, p.info, p.not_applicable, p.error, p.baselined,
            match (crate::runtime::profile::is_proposal(&p.profile), p.certified) {
                (false, true) => "CERTIFIED",
                (false, false) => "NOT CERTIFIED",
                (true, true) => "would pass (proposed contract, not a release; not part of the verdict)",
                (true, false) => "would fail (proposed contract, not a release; not part of the verdict)",
            }
        ));
    }
    for p in r.profiles.iter().filter(|p| p.untested) {
        s.push_str(&format!("{}: nothing tested: no verdict judged any run (every selected clause was not applicable); never certified\n", p.profile));
    }
    if let Some(p) = &r.plugin {
        s.push_str(&format!("{}\n", p.line()));
    }
    for p in r.profiles.iter().filter(|p| p.sdk.is_some()) {
        s.push_str(&format!("plugin SDK under {}: {}\n", p.profile, p.sdk.as_deref().unwrap_or_default()));
    }
    for p in &r.profiles {
        if let Some(w) = &p.peer_range {
            s.push_str(&format!("warning: {}: {w}\n", p.profile));
        }
    }
    if !r.coverage.is_empty() {
        s.push_str("coverage (what the engine was given to do):\n");
        for c in &r.coverage {
            s.push_str(&format!("  {:<32} {}\n", c.profile, super::coverage::line(c)));
        }
    }
    s.push_str(&format!("{} scenario runs, {} verdicts\n", r.runs.len(), r.verdicts.len()));
    // Reasons beyond the verdicts are named even when a profile row already
    // says NOT CERTIFIED (an incomplete merge certifies no profile).
    let why = not_green_because(r);
    if !r.certified() && !why.is_empty() {
        s.push_str(&format!("overall: NOT CERTIFIED ({})\n", why.join(", ")));
    }
    s
}

/// Why a report whose profiles all pass is still not green.
fn not_green_because(r: &Report) -> Vec<&'static str> {
    let mut why = Vec::new();
    if r.merged.as_ref().is_some_and(|m| !m.complete) {
        why.push("incomplete merge");
    }
    if r.baseline.as_ref().is_some_and(|b| !b.stale.is_empty()) {
        why.push("stale baseline entries");
    }
    if !r.golden_drift.is_empty() {
        why.push("golden drift");
    }
    if r.stray_processes > 0 {
        why.push("leftover processes");
    }
    if r.profiles.iter().all(|p| crate::runtime::profile::is_proposal(&p.profile)) {
        why.push("only proposed-contract profiles ran: no released profile was certified");
    }
    why
}

pub fn markdown(r: &Report) -> String {
    printable(&markdown_text(r))
}

fn markdown_text(r: &Report) -> String {
    let mut s = format!("## clawspec: `{}` {}\n\n", r.engine, if r.certified() { "✅ certified" } else { "❌ not certified" });
    for line in coverage(r) {
        s.push_str(&format!("{line}\n\n"));
    }
    s.push_str("| profile | verdict | pass | fail | warn | n/a | error | baselined |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for p in &r.profiles {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            p.profile,
            match (crate::runtime::profile::is_proposal(&p.profile), p.certified) {
                (false, true) => "certified",
                (false, false) => "**not certified**",
                (true, true) => "would pass (proposed contract, not part of the verdict)",
                (true, false) => "would fail (proposed contract, not part of the verdict)",
            },
            p.pass, p.fail, p.warn, p.not_applicable, p.error, p.baselined
        ));
    }
    if let Some(p) = &r.plugin {
        s.push_str(&format!("\n{}\n", p.line()));
    }
    let sdks: Vec<String> = r.profiles.iter().filter_map(|p| Some(format!("`{}`: {}", p.profile, p.sdk.as_ref()?))).collect();
    if !sdks.is_empty() {
        s.push_str(&format!("\nPlugin SDK (`openclaw/plugin-sdk/*`): {}\n", sdks.join(" · ")));
    }
    for p in &r.profiles {
        if let Some(w) = &p.peer_range {
            s.push_str(&format!("\n> **Outside the declared range** — `{}`: {w}\n", p.profile));
        }
    }
    if !r.coverage.is_empty() {
        s.push_str("\n### Coverage\n\n| profile | turns on engine | on legacy | quarantined ops | stored | returned | compacted | summarised | hollow |\n|---|---:|---:|---:|---:|---:|---|---|---|\n");
        for c in &r.coverage {
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                c.profile, c.turns_on_engine(), c.turns_on_legacy, c.quarantined_operations, c.messages_stored, c.messages_returned,
                if c.compacted() { "yes" } else { "no" }, if c.summarised() { "yes" } else { "no" },
                c.hollow().map(|h| format!("**{}**", h.replace('|', "\\|"))).unwrap_or_else(|| "—".into())
            ));
        }
    }
    let unknown = super::unknown_api_members(r);
    if !unknown.is_empty() {
        s.push_str(&format!("\n> The plugin read API members this host does not provide: {}\n", unknown_list(&unknown, r.runs.len())));
    }
    let n = notable(r);
    if !n.is_empty() {
        s.push_str("\n<details><summary>Failures and warnings</summary>\n\n| clause | level | scenario | profile | detail |\n|---|---|---|---|---|\n");
        for v in n {
            let clause = unjudged(r, v).map_or_else(|| format!("`{}`", v.clause), |c| format!("{} clause(s) not judged (the run broke off)", c.len()));
            s.push_str(&format!("| {clause} | {:?} | `{}` | `{}` | {} |\n", v.level, v.scenario, v.profile, v.details.first().map(|d| d.replace('|', "\\|")).unwrap_or_default()));
        }
        s.push_str("\n</details>\n");
        let said: Vec<&Verdict> = notable(r).into_iter().filter(|v| !v.engine_output.is_empty()).collect();
        if !said.is_empty() {
            s.push_str("\n<details><summary>What the engine said during failing calls</summary>\n");
            for v in said {
                s.push_str(&format!("\n`{}` × `{}` × `{}`:\n\n```text\n{}\n```\n", v.clause, v.scenario, v.profile, v.engine_output.join("\n").replace("```", "ˋˋˋ")));
            }
            s.push_str("\n</details>\n");
        }
    }
    if let Some(h) = r.host.as_ref().filter(|h| !h.not_drivable.is_empty()) {
        s.push_str(&format!("\n<details><summary>Not drivable on {} (not run, never passed): {}</summary>\n\n| scenario | profile | why |\n|---|---|---|\n", h.host, h.not_drivable.len()));
        for n in &h.not_drivable {
            s.push_str(&format!("| `{}` | `{}` | {} |\n", n.scenario, n.profile, n.reason.replace('|', "\\|").replace('\n', " ")));
        }
        s.push_str("\n</details>\n");
    }
    s
}

/// `api.foo (3 of 5 runs), api.bar (5 of 5 runs)`.
fn unknown_list(unknown: &[(String, usize)], runs: usize) -> String {
    unknown.iter().map(|(m, k)| format!("`{m}` ({k} of {runs} runs)")).collect::<Vec<_>>().join(", ")
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A failing verdict's [`Verdict::engine_output`] (already bounded by
/// `check::EXCERPT_LINES` / `EXCERPT_BYTES`), escaped, as the Markdown
/// report's "What the engine said during failing calls" shows it.
fn engine_said_html(v: &Verdict) -> String {
    if v.engine_output.is_empty() {
        return String::new();
    }
    format!("<p>What the engine said during the failing calls:</p><pre class=\"said\">{}</pre>", esc(&v.engine_output.join("\n")))
}

pub fn html(r: &Report) -> String {
    printable(&html_text(r))
}

fn html_text(r: &Report) -> String {
    let mut rows = String::new();
    for p in &r.profiles {
        rows.push_str(&format!(
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            if p.certified { "ok" } else { "bad" }, esc(&p.profile), if p.certified { "certified" } else { "not certified" }, p.pass, p.fail, p.warn, p.not_applicable, p.error
        ));
    }
    let cov: String = r.coverage.iter().map(|c| format!("<li><code>{}</code>: {}</li>", esc(&c.profile), esc(&super::coverage::line(c)))).collect();
    let mut fails = String::new();
    for v in notable(r) {
        if let Some(c) = unjudged(r, v) {
            fails.push_str(&format!(
                "<details><summary>{} clause(s) not judged — {} × {}: the run broke off</summary><ul><li>{}</li><li>clauses: {}</li></ul><pre>{}</pre></details>\n",
                c.len(), esc(&v.scenario), esc(&v.profile), esc(&v.details[0]), esc(&c.join(", ")), esc(&repro_in(r, v))
            ));
            continue;
        }
        let text = check::clause(&v.clause).map(|c| c.text).unwrap_or("");
        fails.push_str(&format!(
            "<details><summary><code>{}</code> {:?} — {} × {}</summary><p>{}</p><ul>{}</ul>{}<pre>{}</pre></details>\n",
            esc(&v.clause), v.level, esc(&v.scenario), esc(&v.profile), esc(text),
            v.details.iter().map(|d| format!("<li>{}</li>", esc(d))).collect::<String>(),
            engine_said_html(v),
            esc(&repro_in(r, v))
        ));
    }
    let unknown = super::unknown_api_members(r);
    if !unknown.is_empty() {
        fails.push_str(&format!(
            "<p>The plugin read API members this host does not provide: {}</p>\n",
            unknown.iter().map(|(m, k)| format!("<code>{}</code> ({k} of {} runs)", esc(m), r.runs.len())).collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(h) = r.host.as_ref().filter(|h| !h.not_drivable.is_empty()) {
        fails.push_str(&format!("<h2>Not drivable on {} (not run, never passed)</h2>\n<ul>", esc(&h.host)));
        for n in &h.not_drivable {
            fails.push_str(&format!("<li><code>{}</code> × <code>{}</code>: {}</li>", esc(&n.scenario), esc(&n.profile), esc(&n.reason)));
        }
        fails.push_str("</ul>\n");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>clawspec report — {engine}</title>\n<style>body{{font:14px system-ui,sans-serif;margin:2em;max-width:72em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.3em .6em}}tr.ok td:nth-child(2){{color:#070}}tr.bad td:nth-child(2){{color:#b00;font-weight:bold}}pre{{background:#f4f4f4;padding:.5em}}details{{margin:.4em 0}}</style></head>\n<body><h1>clawspec: {engine}</h1><p>{verdict}</p>\n{coverage}<table><tr><th>profile</th><th>verdict</th><th>pass</th><th>fail</th><th>warn</th><th>n/a</th><th>error</th></tr>\n{rows}</table>\n<h2>Coverage</h2><ul>{cov}</ul>\n<h2>Failures and warnings</h2>\n{fails}</body></html>\n",
        engine = esc(&r.engine),
        verdict = if r.certified() { "Certified" } else { "Not certified" },
        coverage = coverage(r).iter().map(|l| format!("<p>{}</p>\n", esc(l))).collect::<String>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Level;

    #[test]
    fn reproduce_lines_survive_quotes_in_the_engine_command() {
        let v = Verdict { clause: "CE-ASM-003".into(), level: Level::Must, scenario: "tool-loop".into(), profile: "openclaw-2026.9.6".into(), status: Status::Fail, details: vec![], error_kind: None, engine_output: vec![] };
        let engine = r#"python3 -c 'print("it'"'"'s")' --name "a b""#;
        let line = repro(engine, &v);
        let words = shell_words::split(&line).expect("the line parses as a shell command");
        assert_eq!(words, ["clawspec", "run", "--scenario", "tool-loop", "--profile", "openclaw-2026.9.6", "--engine", engine]);
        let words = shell_words::split(&repro("plugin:/tmp/it's here/index.js", &v)).unwrap();
        assert_eq!(words[6..], ["--plugin", "/tmp/it's here/index.js"]);
    }

    #[test]
    fn engine_text_cannot_repaint_the_terminal() {
        let shown = printable("ok\tline\n\u{1b}]0;PWNED\u{7}\u{1b}[2J\rCERTIFIED\u{8}");
        assert_eq!(shown, "ok\tline\n\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J\\u{d}CERTIFIED\\u{8}");
        assert!(!shown.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
    }
}
