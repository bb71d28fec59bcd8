//! Long sessions from a compact description: a `generate` step expands, when
//! the scenario is loaded, into ordinary `turn` (and `announce`) steps, so the
//! runtime never sees it. Expansion is a pure function of the spec: a seeded
//! splitmix64 stream picks words, tools and sizes, so the same file gives the
//! same steps, traces and reports on every machine.

use serde_json::json;

use super::model::*;

/// Upper bound on generated turns (lint rejects more): keeps a typo from
/// generating a session no machine can hold.
pub const MAX_TURNS: usize = 5_000;

/// Upper bound on the words of one generated user message or reply.
pub const MAX_WORDS: usize = 100_000;

/// Upper bound on the text all `generate` steps of a scenario may expand to:
/// each limit above alone allows far more than a machine holds.
pub const MAX_GENERATED_BYTES: usize = 64 << 20;

/// At most how many bytes of message text `g` expands to (words counted at
/// 8 bytes; every turn at its maximum of tool calls, each with its call and
/// result).
pub fn size_bound(g: &GenerateSpec) -> usize {
    let words = g.user_words.saturating_add(g.reply_words).saturating_mul(8);
    let calls = g.tool_calls[1].saturating_mul(g.result_chars.saturating_add(256));
    g.turns.saturating_mul(words.saturating_add(calls).saturating_add(512))
}

/// Replace every `generate` step with the steps it describes.
pub fn expand(script: &[Step]) -> Vec<Step> {
    let mut out = Vec::with_capacity(script.len());
    for step in script {
        match step {
            Step::Generate(g) => out.extend(steps(g)),
            other => out.push(other.clone()),
        }
    }
    out
}

/// The steps one `generate` spec stands for.
pub fn steps(g: &GenerateSpec) -> Vec<Step> {
    let mut rng = SplitMix(g.seed ^ 0x9e37_79b9_7f4a_7c15);
    let tools: Vec<String> = if g.tools.is_empty() { vec!["exec".into(), "read".into(), "write".into()] } else { g.tools.clone() };
    let [lo, hi] = g.tool_calls;
    let mut out = Vec::new();
    for n in 1..=g.turns {
        let calls = lo + rng.below(hi.saturating_sub(lo) + 1);
        let mut model: Vec<ModelReply> = (0..calls)
            .map(|k| {
                let tool = &tools[rng.below(tools.len())];
                let target = format!("{}/{}.{}", rng.word(), rng.word(), ["rs", "ts", "md", "log"][rng.below(4)]);
                ModelReply::Full(ModelStep {
                    text: (k == 0).then(|| rng.sentence(6)),
                    tool_calls: vec![ToolCallSpec {
                        id: None,
                        name: tool.clone(),
                        arguments: tool_arguments(tool, &target, k + 1),
                        result: rng.block(g.result_chars, &format!("{tool} {target}")),
                        is_error: false,
                        image: false,
                    }],
                    ..Default::default()
                })
            })
            .collect();
        model.push(ModelReply::Text(format!("Turn {n} done. {}", rng.sentence(g.reply_words))));
        out.push(Step::Turn(TurnSpec { user: format!("Task {n}: {}", rng.sentence(g.user_words)), model, ..Default::default() }));
        if g.announce_every > 0 && n % g.announce_every == 0 {
            out.push(Step::Announce(AnnounceSpec {
                child: format!("agent:main:subagent:gen-{n}"),
                child_session_id: None,
                task: format!("check {}", rng.sentence(4)),
                result: rng.sentence(g.reply_words),
                status: "ok".into(),
                error: None,
                source: "subagent".into(),
                stats: None,
                private: false,
                model: vec![ModelReply::Text(format!("The subagent finished: {}", rng.sentence(8)))],
            }));
        }
    }
    out
}

/// A call's arguments: the target path and step, plus the string arguments
/// the real core tool's schema requires (`realhost::tools` required_args:
/// exec `command`, write `content`), so a generated session can be driven on
/// a real OpenClaw, which answers a call failing validation itself. Derived
/// from the target, not drawn from the seeded stream, so every other
/// generated value stays the same.
fn tool_arguments(tool: &str, target: &str, step: usize) -> serde_json::Value {
    let mut args = json!({"path": target, "step": step});
    match tool {
        "exec" => args["command"] = json!(format!("cat {target}")),
        "write" => args["content"] = json!(format!("notes on {target}, step {step}\n")),
        _ => {}
    }
    args
}

/// Messages a spec produces (user + assistant per model call + tool results),
/// announces included; for docs, lint notes and tests.
pub fn message_count(g: &GenerateSpec) -> (usize, usize) {
    let mut min = 0;
    let mut max = 0;
    let [lo, hi] = g.tool_calls;
    min += g.turns * (2 + 2 * lo);
    max += g.turns * (2 + 2 * hi);
    if g.announce_every > 0 {
        let a = g.turns / g.announce_every * 2;
        min += a;
        max += a;
    }
    (min, max)
}

const WORDS: &[&str] = &[
    "alpha", "build", "cache", "delta", "entry", "fetch", "graph", "index", "join", "kernel", "layer", "merge", "node", "order", "parse", "query",
    "route", "shard", "token", "update", "vector", "window", "yield", "zone", "config", "deploy", "schema", "lambda", "stream", "buffer", "socket",
    "commit", "branch", "review", "metric", "report", "ledger", "budget", "invoice", "ticket", "client", "server", "module", "policy", "replica",
];

/// splitmix64: tiny, fast, and fully determined by its seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len())]
    }
    fn sentence(&mut self, words: usize) -> String {
        (0..words.max(1)).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
    /// Tool output of about `chars` characters: numbered lines of words.
    fn block(&mut self, chars: usize, head: &str) -> String {
        let mut s = format!("$ {head}\n");
        let mut line = 1;
        while s.len() < chars {
            s.push_str(&format!("{line:>4}: {}\n", self.sentence(8)));
            line += 1;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn spec(turns: usize, tool_calls: [usize; 2], announce_every: usize) -> GenerateSpec {
        GenerateSpec { turns, tool_calls, announce_every, ..GenerateSpec::default() }
    }

    fn messages(steps: &[Step]) -> usize {
        steps
            .iter()
            .map(|s| match s {
                Step::Turn(t) => 1 + t.model.iter().map(|m| match m {
                    ModelReply::Full(f) => 1 + f.tool_calls.len(),
                    ModelReply::Text(_) => 1,
                }).sum::<usize>(),
                Step::Announce(a) => 1 + a.model.len(),
                _ => 0,
            })
            .sum()
    }

    #[rstest]
    #[case::fixed_tool_calls(spec(10, [3, 3], 0), 10, 10 * 8)]
    #[case::with_announces(spec(10, [1, 1], 5), 12, 10 * 4 + 2 * 2)]
    #[case::no_tools(spec(4, [0, 0], 0), 4, 4 * 2)]
    fn expands_into_ordinary_steps(#[case] g: GenerateSpec, #[case] steps_n: usize, #[case] msgs: usize) {
        let s = steps(&g);
        assert_eq!(s.len(), steps_n);
        assert_eq!(messages(&s), msgs);
        let (lo, hi) = message_count(&g);
        assert!(lo <= msgs && msgs <= hi, "{lo}..{hi} vs {msgs}");
    }

    #[test]
    fn same_seed_same_steps_other_seed_other_steps() {
        let g = spec(20, [1, 5], 7);
        assert_eq!(steps(&g), steps(&g));
        assert_ne!(steps(&g), steps(&GenerateSpec { seed: 1, ..g.clone() }));
    }

    #[test]
    fn tool_results_have_the_requested_size_and_counts_stay_in_range() {
        let g = GenerateSpec { turns: 50, tool_calls: [2, 4], result_chars: 900, ..GenerateSpec::default() };
        for s in steps(&g) {
            let Step::Turn(t) = s else { continue };
            let calls: Vec<&ToolCallSpec> = t.model.iter().filter_map(|m| if let ModelReply::Full(f) = m { f.tool_calls.first() } else { None }).collect();
            assert!((2..=4).contains(&calls.len()));
            for c in calls {
                assert!((900..1000).contains(&c.result.len()), "{}", c.result.len());
            }
        }
    }

    #[test]
    fn every_generated_call_passes_the_real_tools_schema() {
        let g = GenerateSpec { turns: 40, tool_calls: [1, 4], ..GenerateSpec::default() };
        let calls: Vec<ToolCallSpec> = steps(&g)
            .into_iter()
            .filter_map(|s| if let Step::Turn(t) = s { Some(t.model) } else { None })
            .flatten()
            .filter_map(|m| if let ModelReply::Full(f) = m { Some(f.tool_calls) } else { None })
            .flatten()
            .collect();
        for tool in ["exec", "read", "write"] {
            assert!(calls.iter().any(|c| c.name == tool), "{tool} never drawn");
        }
        for c in &calls {
            crate::realhost::tools::scripted(c, "id".into()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        }
    }

    #[test]
    fn other_steps_are_kept_in_place() {
        let script = vec![Step::OrphanUser("x".into()), Step::Generate(spec(2, [0, 0], 0)), Step::Compact(CompactSpec::default())];
        let e = expand(&script);
        assert_eq!(e.len(), 4);
        assert!(matches!(e[0], Step::OrphanUser(_)) && matches!(e[3], Step::Compact(_)));
    }
}
