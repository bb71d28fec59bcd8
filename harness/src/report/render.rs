//! Human renderings of a report: terminal, Markdown (CI job summary), HTML
//! (one self-contained file).

use super::Report;
use crate::check::{self, Status, Verdict};

fn blocking<'a>(r: &'a Report) -> Vec<&'a Verdict> {
    let forgiven = |v: &Verdict| r.baseline.as_ref().is_some_and(|b| b.used.iter().any(|e| e.matches(v)));
    r.verdicts.iter().filter(|v| super::blocks(v, r.strict) && !forgiven(v)).collect()
}

fn notable<'a>(r: &'a Report) -> Vec<&'a Verdict> {
    r.verdicts.iter().filter(|v| matches!(v.status, Status::Fail | Status::Warn | Status::Error)).collect()
}

/// One-line reproduction of a scenario × profile run.
pub fn repro(engine: &str, v: &Verdict) -> String {
    let engine_arg = if engine.starts_with("plugin:") {
        format!("--plugin '{}'", engine.trim_start_matches("plugin:"))
    } else {
        format!("--engine '{engine}'")
    };
    format!("clawspec run --scenario {} --profile {} {engine_arg}", v.scenario, v.profile)
}

pub fn terminal(r: &Report) -> String {
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
        s.push_str(&format!("  reproduce: {}\n", repro(&r.engine, v)));
    }
    for d in &r.golden_drift {
        s.push_str(&format!("\nREGRESSION (golden drift) {d}\n"));
    }
    if let Some(b) = &r.baseline {
        for e in &b.stale {
            s.push_str(&format!("\nSTALE baseline entry (now passes — remove it): {} {} {}\n", e.scenario, e.clause.as_deref().unwrap_or("*"), e.profile.as_deref().unwrap_or("*")));
        }
    }
    s.push_str(&format!("\nengine {}{}\n", r.engine, if r.strict { " (strict)" } else { "" }));
    s.push_str(&format!("{:<34} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9}  verdict\n", "profile", "pass", "fail", "warn", "info", "n/a", "error", "baselined"));
    for p in &r.profiles {
        s.push_str(&format!(
            "{:<34} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9}  {}\n",
            p.profile, p.pass, p.fail, p.warn, p.info, p.not_applicable, p.error, p.baselined,
            if p.certified { "CERTIFIED" } else { "NOT CERTIFIED" }
        ));
    }
    if !r.coverage.is_empty() {
        s.push_str("coverage (what the engine was given to do):\n");
        for c in &r.coverage {
            s.push_str(&format!("  {:<32} {}\n", c.profile, super::coverage::line(c)));
        }
    }
    s.push_str(&format!("{} scenario runs, {} verdicts\n", r.runs.len(), r.verdicts.len()));
    s
}

pub fn markdown(r: &Report) -> String {
    let mut s = format!("## clawspec: `{}` {}\n\n", r.engine, if r.certified() { "✅ certified" } else { "❌ not certified" });
    s.push_str("| profile | verdict | pass | fail | warn | n/a | error | baselined |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for p in &r.profiles {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            p.profile, if p.certified { "certified" } else { "**not certified**" }, p.pass, p.fail, p.warn, p.not_applicable, p.error, p.baselined
        ));
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
    let n = notable(r);
    if !n.is_empty() {
        s.push_str("\n<details><summary>Failures and warnings</summary>\n\n| clause | level | scenario | profile | detail |\n|---|---|---|---|---|\n");
        for v in n {
            s.push_str(&format!("| `{}` | {:?} | `{}` | `{}` | {} |\n", v.clause, v.level, v.scenario, v.profile, v.details.first().map(|d| d.replace('|', "\\|")).unwrap_or_default()));
        }
        s.push_str("\n</details>\n");
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub fn html(r: &Report) -> String {
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
        let text = check::clause(&v.clause).map(|c| c.text).unwrap_or("");
        fails.push_str(&format!(
            "<details><summary><code>{}</code> {:?} — {} × {}</summary><p>{}</p><ul>{}</ul><pre>{}</pre></details>\n",
            esc(&v.clause), v.level, esc(&v.scenario), esc(&v.profile), esc(text),
            v.details.iter().map(|d| format!("<li>{}</li>", esc(d))).collect::<String>(),
            esc(&repro(&r.engine, v))
        ));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>clawspec report — {engine}</title>\n<style>body{{font:14px system-ui,sans-serif;margin:2em;max-width:72em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.3em .6em}}tr.ok td:nth-child(2){{color:#070}}tr.bad td:nth-child(2){{color:#b00;font-weight:bold}}pre{{background:#f4f4f4;padding:.5em}}details{{margin:.4em 0}}</style></head>\n<body><h1>clawspec: {engine}</h1><p>{verdict}</p>\n<table><tr><th>profile</th><th>verdict</th><th>pass</th><th>fail</th><th>warn</th><th>n/a</th><th>error</th></tr>\n{rows}</table>\n<h2>Coverage</h2><ul>{cov}</ul>\n<h2>Failures and warnings</h2>\n{fails}</body></html>\n",
        engine = esc(&r.engine),
        verdict = if r.certified() { "Certified" } else { "Not certified" },
    )
}
