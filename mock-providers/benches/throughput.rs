//! Repair + wire conversion + validation throughput per provider on generated
//! transcripts of 10, 100 and 1 000 messages, against a floor measured in the
//! same run: a serde JSON round trip of the same transcript.
//!
//! Second table: what one execution of the `repair_validate_<provider>` fuzz
//! targets costs without libFuzzer's instrumentation (bytes → transcript →
//! repair to its fixed point → wire → validate → user-text check), on the
//! small inputs the 50 000 exec/s target speaks of.
//!
//!     cargo bench -p clawspec-mock-providers --bench throughput

use std::time::Instant;

use clawspec_contract::AgentMessage;
use clawspec_mock_providers::gen::transcript;
use clawspec_mock_providers::provider::ALL;
use clawspec_mock_providers::repair::{repair, Policy};
use clawspec_mock_providers::validate::{validate, Rules};
use clawspec_mock_providers::wire::{to_wire, RequestOptions};

fn bytes(n: usize) -> Vec<u8> {
    // Deterministic, realistic mix (mostly user/assistant/tool pairs).
    (0..n).flat_map(|i| {
        let op = [0u8, 4, 5, 6, 4, 0, 7, 3, 5, 6][i % 10];
        [op, (i % 7) as u8]
    }).collect()
}

fn median(mut f: impl FnMut(), iters: usize) -> f64 {
    let mut t: Vec<f64> = (0..iters).map(|_| { let s = Instant::now(); f(); s.elapsed().as_secs_f64() }).collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

/// Median times of `floor` and `subject`, measured in alternating rounds so
/// that a machine slowing down or speeding up mid-run (shared CI boxes do)
/// moves both and leaves the ratio alone.
fn paired(mut floor: impl FnMut(), mut subject: impl FnMut(), iters: usize) -> (f64, f64) {
    let rounds = 5;
    let per = (iters / rounds).max(3);
    let (mut fs, mut ss) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        fs.push(median(&mut floor, per));
        ss.push(median(&mut subject, per));
    }
    let mid = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    (mid(fs), mid(ss))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("{:>8} {:<18} {:>12} {:>12} {:>8}", "messages", "provider", "floor", "repair+val", "ratio");
    for n in [10usize, 100, 1000] {
        let t: Vec<AgentMessage> = transcript(&bytes(n));
        let iters = (20_000 / n).max(20);
        for p in ALL {
            let policy = Policy::for_provider(p);
            let opts = RequestOptions { model: "m".into(), ..Default::default() };
            let (floor, d) = paired(
                || {
                    let s = serde_json::to_string(&t).unwrap();
                    let _: Vec<AgentMessage> = serde_json::from_str(&s).unwrap();
                },
                || {
                    let fixed = repair(&policy, t.clone());
                    let body = to_wire(p, &fixed, &opts);
                    validate(p, &body, &Rules::default()).expect("accepted");
                },
                iters,
            );
            println!("{n:>8} {:<18} {:>10.1}µs {:>10.1}µs {:>7.2}×  ({:.0} transcripts/s)", p.name(), floor * 1e6, d * 1e6, d / floor, 1.0 / d);
        }
    }
    println!();
    println!("fuzz-target check per execution (uninstrumented), 200 pseudo-random inputs per size;");
    println!("floor: decoding the same bytes into a transcript (the first step of the execution):");
    println!("{:>6} {:<18} {:>10} {:>10} {:>8} {:>12}", "bytes", "provider", "floor µs", "µs/exec", "ratio", "exec/s");
    for len in [16usize, 32, 64] {
        let inputs: Vec<Vec<u8>> = (0..200u32).map(|k| (0..len as u32).map(|i| (k.wrapping_mul(2654435761).wrapping_add(i.wrapping_mul(40503)) >> 7) as u8).collect()).collect();
        for p in ALL {
            let (floor, d) = paired(
                || {
                    for i in &inputs {
                        std::hint::black_box(transcript(i));
                    }
                },
                || {
                    for i in &inputs {
                        let _ = clawspec_mock_providers::fuzzing::repair_validate_one(p, i);
                    }
                },
                15,
            );
            let (floor, d) = (floor / inputs.len() as f64, d / inputs.len() as f64);
            println!("{len:>6} {:<18} {:>10.2} {:>10.1} {:>7.1}× {:>12.0}", p.name(), floor * 1e6, d * 1e6, d / floor, 1.0 / d);
        }
    }
}
