//! Semantic checks after parsing; each problem is located at the offending
//! script step (`file:line:col`) with a hint.

use clawspec_contract::AgentMessage;

use super::load::{LoadError, Located};
use super::locate;
use super::model::*;
use crate::runtime::profile::Profile;
use crate::runtime::transcript::expand_message;

const REASONS: [&str; 4] = ["completed", "deleted", "swept", "released"];
const STATUSES: [&str; 4] = ["ok", "timeout", "error", "unknown"];
const SOURCES: [&str; 5] = ["subagent", "cron", "image_generation", "video_generation", "music_generation"];

pub fn check(l: &Located) -> Vec<LoadError> {
    let s = &l.scenario;
    let mut out = Vec::new();
    let at = |line: usize, col: usize, msg: String, hint: Option<&str>| LoadError {
        path: l.path.clone(),
        line,
        column: col,
        message: msg,
        hint: hint.map(str::to_string),
    };
    let key_pos = |key: &str| locate::top_key(&l.source, key).unwrap_or((1, 1));
    let transcript_items = locate::sequence_items(&l.source, "setup", "transcript");

    let stem = l.path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if s.id != stem {
        let (ln, c) = key_pos("id");
        out.push(at(ln, c, format!("scenario id {:?} differs from the file name {:?}", s.id, stem), Some("rename the file or the id")));
    }
    if !s.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') || s.id.is_empty() {
        let (ln, c) = key_pos("id");
        out.push(at(ln, c, format!("scenario id {:?} is not kebab-case", s.id), None));
    }
    for p in &s.profiles {
        if Profile::by_id(p).is_none() {
            let (ln, c) = key_pos("profiles");
            out.push(at(ln, c, format!("unknown profile {p:?}"), Some("profiles: openclaw-2026.4.26, openclaw-2026.9.6, rfc-82137 (optionally +marker-drift)")));
        }
    }
    for c in &s.clauses {
        if !is_clause_id(c) {
            let (ln, col) = key_pos("clauses");
            out.push(at(ln, col, format!("{c:?} is not a clause id"), Some("clause ids look like CE-ASM-003; see `clawspec list clauses`")));
        }
    }
    for (i, m) in s.setup.transcript.iter().enumerate() {
        if let Err(e) = expand_message(m, &s.setup, i as u64) {
            let (ln, c) = transcript_items.get(i).copied().unwrap_or_else(|| key_pos("setup"));
            out.push(at(ln, c, format!("setup.transcript[{i}]: {e}"), Some("use {user: text}, {assistant: …}, {tool_result: {id, text}}, {summary: text} or a full OpenClaw message with a role")));
        }
    }
    if s.script.is_empty() {
        let (ln, c) = key_pos("script");
        out.push(at(ln, c, "script is empty".into(), None));
    }
    let step_lines = locate::sequence_items(&l.source, "", "script");
    // What the generate steps so far expand to, at most (bytes of text).
    let mut generated = 0usize;
    for (i, step) in s.script.iter().enumerate() {
        let (ln, c) = step_lines.get(i).copied().unwrap_or((1, 1));
        let mut bad = |msg: String, hint: Option<&str>| out.push(at(ln, c, format!("script[{i}]: {msg}"), hint));
        match step {
            Step::Turn(t) => {
                if t.model.is_empty() {
                    bad("a turn needs at least one model reply".into(), Some("add `model: [\"…\"]`"));
                }
                for st in &t.steer {
                    if st.at == 0 || st.at >= t.model.len().max(1) + 1 {
                        bad(format!("steer.at {} is outside the turn's model calls 1..{}", st.at, t.model.len()), None);
                    }
                    if st.text.is_some() == st.announce.is_some() {
                        bad("a steer has exactly one of text and announce".into(), None);
                    }
                }
            }
            Step::Announce(a) => check_announce(a, &mut bad, true),
            Step::Collect(c) => {
                if c.announces.len() < 2 {
                    bad("collect batches two or more announces".into(), None);
                }
                for a in &c.announces {
                    check_announce(a, &mut bad, false);
                }
                if c.model.is_empty() {
                    bad("collect needs at least one model reply".into(), None);
                }
            }
            Step::InterSession(x) => {
                if x.model.is_empty() {
                    bad("inter_session needs at least one model reply".into(), None);
                }
            }
            Step::Spawn(sp) => {
                if sp.mode != "isolated" && sp.mode != "fork" {
                    bad(format!("spawn mode {:?} is not isolated|fork", sp.mode), None);
                }
            }
            Step::SubagentEnded(e) => {
                if !REASONS.contains(&e.reason.as_str()) {
                    bad(format!("reason {:?} is not one of {REASONS:?}", e.reason), None);
                }
            }
            Step::Generate(g) => {
                if g.turns == 0 || g.turns > super::generate::MAX_TURNS {
                    bad(format!("generate.turns {} is outside 1..={}", g.turns, super::generate::MAX_TURNS), None);
                }
                if g.tool_calls[0] > g.tool_calls[1] {
                    bad(format!("generate.tool_calls {:?} is not [min, max]", g.tool_calls), Some("e.g. `tool_calls: [1, 4]`"));
                }
                if g.tool_calls[1] > 32 {
                    bad(format!("generate.tool_calls max {} is above 32 per turn", g.tool_calls[1]), None);
                }
                if g.result_chars > 200_000 {
                    bad(format!("generate.result_chars {} is above 200000", g.result_chars), None);
                }
                for (field, words) in [("user_words", g.user_words), ("reply_words", g.reply_words)] {
                    if words > super::generate::MAX_WORDS {
                        bad(format!("generate.{field} {words} is above {}", super::generate::MAX_WORDS), None);
                    }
                }
                generated = generated.saturating_add(super::generate::size_bound(g));
                if generated > super::generate::MAX_GENERATED_BYTES {
                    // Each limit alone allows far more than memory holds
                    // (5 000 turns × 32 calls × 200 000 chars ≈ 32 GB).
                    bad(
                        format!("the generate steps would expand to ~{} MB of messages, above the {} MB a scenario may generate", generated >> 20, super::generate::MAX_GENERATED_BYTES >> 20),
                        Some("fewer turns, tool calls or result_chars"),
                    );
                }
                for t in &g.tools {
                    if !s.setup.tools.contains(t) && !s.setup.client_tools.contains(t) {
                        bad(format!("generate.tools: {t:?} is not in setup.tools"), Some("add it to setup.tools or drop it"));
                    }
                }
            }
            Step::Heartbeat(_) | Step::Compact(_) | Step::SwitchModel(_) | Step::OrphanUser(_) => {}
        }
    }
    out
}

fn check_announce(a: &AnnounceSpec, bad: &mut impl FnMut(String, Option<&str>), needs_model: bool) {
    if !STATUSES.contains(&a.status.as_str()) {
        bad(format!("announce status {:?} is not one of {STATUSES:?}", a.status), None);
    }
    if !SOURCES.contains(&a.source.as_str()) {
        bad(format!("announce source {:?} is not one of {SOURCES:?}", a.source), None);
    }
    if needs_model && a.model.is_empty() {
        bad("an announce needs at least one model reply".into(), Some("announces are delivered as a new agent turn"));
    }
}

pub fn is_clause_id(c: &str) -> bool {
    let parts: Vec<&str> = c.split('-').collect();
    parts.len() == 3
        && parts[0] == "CE"
        && parts[1].len() >= 2
        && parts[1].chars().all(|c| c.is_ascii_uppercase())
        && parts[2].len() == 3
        && parts[2].chars().all(|c| c.is_ascii_digit())
}

/// Expand the setup transcript into OpenClaw messages.
pub fn transcript_messages(s: &Scenario) -> Result<Vec<AgentMessage>, String> {
    s.setup.transcript.iter().enumerate().map(|(i, m)| expand_message(m, &s.setup, i as u64)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn errors(name: &str, src: &str) -> Vec<String> {
        match crate::scenario::load::parse(Path::new(name), src) {
            Ok(_) => vec![],
            Err(e) => e.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn located_parse_error() {
        let src = "id: x\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      modle: [ok]\n";
        let e = errors("scenarios/x.yaml", src);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with("scenarios/x.yaml:7:"), "{}", e[0]);
        assert!(e[0].contains("unknown field `modle`"), "{}", e[0]);
        assert!(e[0].contains("hint:"), "{}", e[0]);
    }

    #[test]
    fn located_semantic_error() {
        let src = "id: y\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      model: [ok]\n  - subagent_ended:\n      child: c\n      reason: vanished\n";
        let e = errors("s/y.yaml", src);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with("s/y.yaml:8:3: script[1]: reason \"vanished\""), "{}", e[0]);
    }

    #[test]
    fn id_must_match_file() {
        let src = "id: other\ntitle: t\ndescription: d\nscript:\n  - heartbeat: {}\n";
        let e = errors("s/z.yaml", src);
        assert!(e[0].starts_with("s/z.yaml:1:1: scenario id \"other\""), "{e:?}");
    }

    #[test]
    fn transcript_errors_point_at_the_item() {
        let src = "id: x\ntitle: t\ndescription: d\nsetup:\n  transcript:\n    - {user: hi}\n    - {bogus: 1}\nscript:\n  - heartbeat: {}\n";
        let e = errors("s/x.yaml", src);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].starts_with("s/x.yaml:7:5: setup.transcript[1]: not a message"), "{}", e[0]);
    }

    #[test]
    fn duplicate_keys_point_at_the_repeat() {
        let top = "id: y\ntitle: t\ntitle: t2\ndescription: d\nscript:\n  - heartbeat: {}\n";
        let e = errors("s/y.yaml", top);
        assert!(e[0].starts_with("s/y.yaml:3:1: duplicate mapping key: title"), "{e:?}");
        let nested = "id: y\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      model: [ok]\n      user: again\n";
        let e = errors("s/y.yaml", nested);
        assert!(e[0].starts_with("s/y.yaml:8:7: duplicate mapping key: user"), "{e:?}");
    }

    #[test]
    fn generate_errors_point_at_the_step_as_written() {
        let src = "id: g\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      model: [ok]\n  - generate:\n      turns: 0\n      tool_calls: [4, 1]\n      tools: [browser]\n";
        let e = errors("s/g.yaml", src);
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e.iter().all(|e| e.starts_with("s/g.yaml:8:3: script[1]: generate.")), "{e:?}");
        let typo = errors("s/g.yaml", "id: g\ntitle: t\ndescription: d\nscript:\n  - generate:\n      turn: 10\n");
        assert!(typo[0].starts_with("s/g.yaml:6:") && typo[0].contains("unknown field `turn`"), "{typo:?}");
    }

    /// Each limit alone allows more than memory holds; together they are
    /// refused before anything is expanded (the bomb took 34 s and aborted).
    #[rstest::rstest]
    #[case::tool_results("turns: 5000\n      tool_calls: [32, 32]\n      result_chars: 200000", "would expand to ~")]
    #[case::words("turns: 1\n      user_words: 4000000000", "generate.user_words 4000000000 is above 100000")]
    #[case::many_steps("turns: 400\n      tool_calls: [8, 8]\n      result_chars: 20000\n  - generate:\n      turns: 400\n      tool_calls: [8, 8]\n      result_chars: 20000", "above the 64 MB")]
    fn generate_bombs_are_refused_before_expansion(#[case] spec: &str, #[case] reason: &str) {
        let src = format!("id: g\ntitle: t\ndescription: d\nscript:\n  - generate:\n      {spec}\n");
        let e = errors("s/g.yaml", &src);
        assert!(e.iter().any(|e| e.starts_with("s/g.yaml:") && e.contains(reason)), "{e:?}");
    }

    #[test]
    fn generate_expands_at_load_time() {
        let src = "id: g\ntitle: t\ndescription: d\nscript:\n  - orphan_user: x\n  - generate:\n      turns: 250\n      tool_calls: [2, 2]\n";
        let l = crate::scenario::load::parse(Path::new("s/g.yaml"), src).unwrap();
        assert!(l.scenario.generated);
        assert_eq!(l.scenario.script.len(), 251);
        assert!(l.scenario.script[1..].iter().all(|s| matches!(s, Step::Turn(t) if t.model.len() == 3)));
    }

    #[test]
    fn deep_nesting_is_a_located_error() {
        // 100 000 levels once took 46 s (quadratic); the depth limit stops
        // the parse at the first level past it.
        for depth in [crate::scenario::load::MAX_DEPTH + 1, 100_000] {
            let src = format!("id: deep\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      model: [{{tool_calls: [{{name: r, arguments: {}1{}}}]}}]\n", "[".repeat(depth), "]".repeat(depth));
            let e = errors("s/deep.yaml", &src);
            assert_eq!(e.len(), 1, "{e:?}");
            assert!(e[0].starts_with("s/deep.yaml:7:"), "{}", e[0]);
            assert!(e[0].contains("nesting deeper than 64 levels"), "{}", e[0]);
        }
        let ok = format!("id: deep\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      model: [{{tool_calls: [{{name: r, arguments: {}1{}}}]}}]\n", "[".repeat(40), "]".repeat(40));
        assert!(errors("s/deep.yaml", &ok).is_empty(), "{:?}", errors("s/deep.yaml", &ok));
    }

    #[test]
    fn yaml_1_1_booleans_stay_strings() {
        let src = "id: b\ntitle: t\ndescription: d\nscript:\n  - turn:\n      user: hi\n      model: [{tool_calls: [{name: r, arguments: {path: y, a: yes, b: on, c: true}}]}]\n";
        let l = crate::scenario::load::parse(Path::new("s/b.yaml"), src).unwrap();
        let v = serde_json::to_value(&l.scenario.script).unwrap().to_string();
        assert!(v.contains(r#""path":"y""#) && v.contains(r#""a":"yes""#) && v.contains(r#""b":"on""#) && v.contains(r#""c":true"#), "{v}");
    }

    #[test]
    fn clause_ids() {
        assert!(is_clause_id("CE-ASM-003"));
        assert!(!is_clause_id("CE-asm-003"));
        assert!(!is_clause_id("ASM-003"));
    }
}
