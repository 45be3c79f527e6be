//! Interval coverage of `eval --sample` (issue 20): on a detected database with gold, for
//! each seed a sample is drawn as `spotcheck sample` draws it, the scripted coder labels it
//! from the gold through the workbench's store calls, and every run's true precision and
//! recall (from the gold) are checked against the estimated 95% intervals. Prints one line
//! per seed and run, then the table BENCHMARKS.md records. Works on a copy of DB (samples
//! and oracle labels are added to it).
//!
//! ```sh
//! spotcheck ingest --db /tmp/cov.db ~/.cache/spotcheck/ci-dd/html && spotcheck detect --db /tmp/cov.db
//! cargo run --release --example coverage_study -- /tmp/cov.db ~/.cache/spotcheck/ci-dd/gold.tsv \
//!     [--seeds 20] [--size N | --width W] [--neyman]
//! ```
//! `--neyman`: each seed draws a pilot (`--width 0.4`), labels it, then draws the same total
//! as without it by Neyman allocation from the pilot (`spotcheck sample --pilot ID`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use spotcheck::cmd::eval::{fmt_interval, read_gold_file};
use spotcheck::model::sample::DEFAULT_WIDTH;
use spotcheck::review::coverage::{coverage_study, Allocation};
use spotcheck::store::Store;

/// Per run: seeds, P covered, R covered, both, sum of P widths, sum of R widths.
type Tally = (u32, u32, u32, u32, f64, f64);

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        bail!("usage: coverage_study DB GOLD.tsv [--seeds N] [--size N | --width W] [--neyman]");
    }
    let (db, gold) = (PathBuf::from(&args[0]), PathBuf::from(&args[1]));
    let mut seeds = 20u64;
    let mut size = None;
    let mut width = DEFAULT_WIDTH;
    let mut allocation = Allocation::Width;
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        if flag == "--neyman" {
            allocation = Allocation::Neyman;
            continue;
        }
        let value = rest
            .next()
            .with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--seeds" => seeds = value.parse()?,
            "--size" => size = Some(value.parse()?),
            "--width" => width = value.parse()?,
            other => bail!("unknown option {other}"),
        }
    }
    let rows = read_gold_file(&gold)?;
    let mut store = Store::open_existing(&db)?;
    let t = std::time::Instant::now();
    let checks = coverage_study(
        &mut store,
        &rows,
        &(1..=seeds).collect::<Vec<_>>(),
        size,
        width,
        allocation,
    )?;
    println!("seed\trun\tmethod\tlabeled\ttrue_P\tP [95% CI]\ttrue_R\tR [95% CI]\tcovered");
    let mut table: BTreeMap<(i64, String), Tally> = BTreeMap::new();
    let mut all = 0;
    for c in &checks {
        for r in &c.runs {
            println!(
                "{}\t{}\t{}\t{}\t{:.4}\t{}\t{:.4}\t{}\t{}",
                c.seed,
                r.run,
                r.method,
                c.labeled,
                r.true_precision,
                fmt_interval(r.estimate.precision),
                r.true_recall,
                fmt_interval(r.estimate.recall),
                match (r.precision_covered, r.recall_covered) {
                    (true, true) => "both",
                    (true, false) => "P only",
                    (false, true) => "R only",
                    _ => "neither",
                }
            );
            let e = table.entry((r.run, r.method.clone())).or_default();
            e.0 += 1;
            e.1 += u32::from(r.precision_covered);
            e.2 += u32::from(r.recall_covered);
            e.3 += u32::from(r.precision_covered && r.recall_covered);
            e.4 += r.estimate.precision.map_or(0.0, |i| i.high - i.low);
            e.5 += r.estimate.recall.map_or(0.0, |i| i.high - i.low);
        }
        all += u32::from(c.all_covered());
    }
    let pairs: Vec<usize> = checks.iter().map(|c| c.pairs).collect();
    println!(
        "\n{} seeds, sample sizes {}..{} pairs, true pairs {} (estimates of the first seed: {}), {:.0}s",
        checks.len(),
        pairs.iter().min().unwrap_or(&0),
        pairs.iter().max().unwrap_or(&0),
        checks.first().map_or(0, |c| c.true_pairs),
        checks
            .first()
            .map(|c| fmt_interval(Some(c.true_pairs_estimate)))
            .unwrap_or_default(),
        t.elapsed().as_secs_f64()
    );
    println!("| run | method | P covered | R covered | both | mean P width | mean R width |");
    println!("|---|---|---|---|---|---|---|");
    for ((run, method), (n, p, r, b, wp, wr)) in &table {
        println!(
            "| {run} | {method} | {p}/{n} | {r}/{n} | {b}/{n} | {:.3} | {:.3} |",
            wp / f64::from(*n),
            wr / f64::from(*n)
        );
    }
    println!(
        "seeds where every run's P and R intervals cover the truth: {all}/{}",
        checks.len()
    );
    // Draws per stratum: population, mean drawn over the seeds (min–max).
    let strata: Vec<Vec<(String, u64, u64)>> = checks
        .iter()
        .map(|c| {
            store.sample_strata(c.sample).map(|v| {
                v.into_iter()
                    .map(|s| (s.name, s.population, s.drawn))
                    .collect()
            })
        })
        .collect::<Result<_, _>>()?;
    if let Some(first) = strata.first() {
        println!("| stratum | population | drawn mean (min–max) |");
        println!("|---|---|---|");
        for (h, (name, population, _)) in first.iter().enumerate() {
            let d: Vec<u64> = strata
                .iter()
                .filter_map(|s| s.get(h).map(|x| x.2))
                .collect();
            println!(
                "| {name} | {population} | {:.0} ({}–{}) |",
                d.iter().sum::<u64>() as f64 / d.len().max(1) as f64,
                d.iter().min().unwrap_or(&0),
                d.iter().max().unwrap_or(&0)
            );
        }
    }
    Ok(())
}
