//! Times the exact SpotSigs matcher (partitions + pruning) against its ablations (no
//! partitions; plain inverted-index join) at τ = 0.9, 0.8, 0.6, and asserts that all
//! return the same pairs.
//!
//! ```text
//! cargo run --release --example spotsigs_bench -- 100000          # synthetic collection
//! cargo run --release --example spotsigs_bench -- sigs.jsonl      # `spotcheck sigs` output
//! cargo run --release --example spotsigs_bench -- 100000 --no-plain  # skip the slow join
//! cargo run --release --example spotsigs_bench -- sigs.jsonl --repeat 5 # best of 5 runs
//! ```
//!
//! Each mode reports its wall time and its CPU time (all threads, Linux only): on a shared
//! machine the CPU time is the steadier measure. `--repeat N` times every mode N times
//! and reports the fastest run (the least disturbed); `--taus 0.9,0.8` picks the thresholds;
//! `--modes full,plain` picks the modes (`none` only loads the collection: with
//! `perf stat -e instructions` that is the baseline to subtract, a measure that does not
//! depend on what else the machine runs).
//!
//! The synthetic collection: a skewed signature vocabulary (rare signatures far more
//! numerous than common ones, as after the idf window), document lengths from 5 to ~400
//! signatures, and 30% of the documents derived from an earlier one by replacing 0–35% of
//! its signatures (near-duplicate chains), 3% exact copies.

use std::collections::HashMap;
use std::time::Instant;

use spotcheck::cluster::spotsigs_matcher::{match_pairs, MatchMode, MatchStats, Pair};
use spotcheck::sig::spotsigs::{SigVector, SigVocab};

/// SplitMix64: a tiny deterministic generator, so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn synthetic(n: usize, seed: u64) -> Vec<SigVector> {
    let mut rng = Rng(seed);
    let vocab = (n as u64 * 40).max(1000);
    let random_sig = |rng: &mut Rng| (vocab as f64 * rng.unit().powi(2)) as u32;
    let mut docs: Vec<SigVector> = Vec::with_capacity(n);
    for i in 0..n {
        let r = rng.unit();
        let doc = if i > 0 && r < 0.03 {
            docs[rng.below(i as u64) as usize].clone()
        } else if i > 0 && r < 0.33 {
            let base = docs[rng.below(i as u64) as usize].entries().to_vec();
            let change = rng.unit() * 0.35;
            let mut e = Vec::with_capacity(base.len());
            for (id, f) in base {
                if rng.unit() < change {
                    e.push((random_sig(&mut rng), f));
                } else {
                    e.push((id, f));
                }
            }
            SigVector::from_counts(e)
        } else {
            let len = 5 + (400.0 * rng.unit().powi(3)) as usize;
            let ids = (0..len).map(|_| random_sig(&mut rng));
            SigVector::from_ids(ids)
        };
        docs.push(doc);
    }
    docs
}

/// Reads `{"spotsigs": {"sig": freq, ...}}` lines (the `spotcheck sigs` format).
fn load_jsonl(path: &str) -> anyhow::Result<Vec<SigVector>> {
    let text = std::fs::read_to_string(path)?;
    let mut vocab = SigVocab::new();
    let mut docs = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let mut counts = Vec::new();
        if let Some(obj) = v.get("spotsigs").and_then(|s| s.as_object()) {
            for (sig, f) in obj {
                counts.push((vocab.intern(sig), f.as_u64().unwrap_or(1) as u32));
            }
        }
        docs.push(SigVector::from_counts(counts));
    }
    Ok(docs)
}

/// CPU time of all threads of this process so far, in seconds, from Linux's per-thread
/// `/proc/self/task/*/schedstat` (nanoseconds on a CPU); `None` elsewhere. Unlike wall
/// time it barely changes when other programs compete for the cores.
fn process_cpu_secs() -> Option<f64> {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 / 1e9)
}

/// Runs the matcher `repeat` times (at least once) and returns the last result with the
/// fastest wall time and the smallest CPU time (all threads) of one run.
fn timed(
    docs: &[SigVector],
    tau: f64,
    mode: MatchMode,
    repeat: usize,
) -> (Vec<Pair>, MatchStats, f64, Option<f64>) {
    let mut best = f64::INFINITY;
    let mut best_cpu: Option<f64> = None;
    let mut out = None;
    for _ in 0..repeat.max(1) {
        let cpu0 = process_cpu_secs();
        let t = Instant::now();
        let r = match_pairs(docs, tau, mode);
        best = best.min(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (cpu0, process_cpu_secs()) {
            best_cpu = Some(best_cpu.map_or(b - a, |c: f64| c.min(b - a)));
        }
        out = Some(r);
    }
    let (pairs, stats) = out.unwrap_or_default();
    (pairs, stats, best, best_cpu)
}

/// The value after `--name`, if given.
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let no_plain = args.iter().any(|a| a == "--no-plain");
    let repeat: usize = flag(&args, "--repeat").map_or(Ok(1), str::parse)?;
    let taus: Vec<f64> = match flag(&args, "--taus") {
        Some(t) => t.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![0.9, 0.8, 0.6],
    };
    let modes: Vec<MatchMode> = match flag(&args, "--modes") {
        None => vec![
            MatchMode::Full,
            MatchMode::NoPartitions,
            MatchMode::PlainJoin,
        ],
        Some(m) => m
            .split(',')
            .filter(|x| *x != "none")
            .map(|x| match x {
                "full" => Ok(MatchMode::Full),
                "nopartitions" => Ok(MatchMode::NoPartitions),
                "plain" => Ok(MatchMode::PlainJoin),
                other => Err(anyhow::anyhow!("unknown mode {other}")),
            })
            .collect::<anyhow::Result<_>>()?,
    };
    let values: Vec<&str> = ["--repeat", "--taus", "--modes"]
        .iter()
        .filter_map(|f| flag(&args, f))
        .collect();
    let arg = args
        .iter()
        .find(|a| !a.starts_with("--") && !values.contains(&a.as_str()))
        .cloned()
        .unwrap_or_else(|| "20000".into());
    let docs = match arg.parse::<usize>() {
        Ok(n) => synthetic(n, 42),
        Err(_) => load_jsonl(&arg)?,
    };
    let total: u64 = docs.iter().map(|d| d.len()).sum();
    let distinct: HashMap<u32, ()> = docs
        .iter()
        .flat_map(|d| d.entries().iter().map(|&(s, _)| (s, ())))
        .collect();
    println!(
        "{} documents, {} signature occurrences, {} distinct signatures, {} threads, best of {}",
        docs.len(),
        total,
        distinct.len(),
        rayon::current_num_threads(),
        repeat.max(1)
    );
    println!("tau  mode          secs  cpu_secs     pairs  partitions  checked     pruned      len_breaks  early_exits postings");
    for tau in taus {
        let mut reference: Option<Vec<Pair>> = None;
        for &mode in &modes {
            if no_plain && mode == MatchMode::PlainJoin {
                continue;
            }
            let (pairs, s, secs, cpu) = timed(&docs, tau, mode, repeat);
            let cpu = cpu.map_or("-".to_string(), |c| format!("{c:.3}"));
            println!(
                "{tau:<4} {:<13} {secs:>7.3} {cpu:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12}",
                format!("{mode:?}"),
                s.pairs,
                s.partitions,
                s.candidates_checked,
                s.pruned_by_bound,
                s.length_breaks,
                s.early_terminations,
                s.postings_scanned
            );
            match &reference {
                None => reference = Some(pairs),
                Some(r) => {
                    assert_eq!(r.len(), pairs.len(), "{mode:?} τ={tau}: pair count differs");
                    for (a, b) in r.iter().zip(&pairs) {
                        assert!(
                            a.0 == b.0 && a.1 == b.1 && (a.2 - b.2).abs() <= 1e-12,
                            "{mode:?} τ={tau}: {a:?} vs {b:?}"
                        );
                    }
                }
            }
        }
    }
    println!("all modes returned identical pair sets");
    Ok(())
}
