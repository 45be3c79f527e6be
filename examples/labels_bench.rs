//! Labels-out benchmark: a scripted coder labels every proposed cluster of the latest runs
//! (and confirms the gold clusters) of a detected database, then the training pairs and the
//! label gold are built, each step timed. Time the CLI exports on the result afterwards.
//!
//! ```sh
//! cp ~/.cache/spotcheck/dd-bench.db /tmp/labels-bench.db
//! spotcheck detect --db /tmp/labels-bench.db
//! cargo run --release --example labels_bench -- /tmp/labels-bench.db \
//!     ~/.cache/spotcheck/dd-bench/gold.tsv
//! ```

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use spotcheck::cmd::eval::read_gold_file;
use spotcheck::learn::labels::{label_gold, merge_labels};
use spotcheck::learn::pairs::{training_pairs, PairOptions};
use spotcheck::review::oracle::{Oracle, OracleOptions};
use spotcheck::store::Store;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, gold] = args.as_slice() else {
        bail!("usage: labels_bench DB GOLD.tsv");
    };
    let mut store = Store::open_existing(&PathBuf::from(db))?;
    if store.runs()?.iter().all(|r| !r.finished) {
        bail!("{db} has no finished detector run: run `spotcheck detect --db {db}` first");
    }
    let rows = read_gold_file(&PathBuf::from(gold))?;
    let t = Instant::now();
    let mut oracle = Oracle::new(&store, &rows, "bench")?;
    let q = oracle.label_queue(&mut store, &OracleOptions::default())?;
    let g = oracle.confirm_gold(&mut store, &OracleOptions::default())?;
    println!(
        "oracle: {} queue decisions ({} confirmed, {} split, {} rejected, {} skipped as \
         labeled), {} gold clusters confirmed, {} documents, {:.1}s",
        q.decisions(),
        q.confirmed,
        q.split,
        q.rejected,
        q.skipped_labeled,
        g.confirmed,
        oracle.labeled_documents().len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let sets = store.label_sets(Some("bench"))?;
    let read = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let lg = label_gold(&merge_labels(&sets));
    println!(
        "label gold: {} sets read in {read:.2}s, {} documents in {} clusters in {:.2}s",
        sets.len(),
        lg.documents(),
        lg.clusters.len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let set = training_pairs(
        &store,
        &PairOptions {
            coder: Some("bench".into()),
            ..PairOptions::default()
        },
    )?;
    println!(
        "training pairs: {} ({} positive, {} hard, {} sampled; train {} / test {}) in {:.2}s",
        set.counts.pairs,
        set.counts.positives,
        set.counts.hard_negatives,
        set.counts.sampled,
        set.counts.train_pairs,
        set.counts.test_pairs,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
