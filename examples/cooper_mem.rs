//! Cooper's run alone on a database, for its memory at the end of the run (issue 16): runs
//! `run_with::<Cooper>` with the default settings (signing, matching, storing the pairs with
//! their details, clustering, the document signatures) and nothing after it — `detect`
//! goes on to build the review queue, whose memory is its own. Measure it with
//! `/usr/bin/time -v`; the database is changed (a run is added), so give it a copy.
//!
//! Usage: cargo run --release --example cooper_mem -- DB
//!
//! A database that gives Cooper millions of pairs: `python3 examples/cooper/many_pairs.py 50
//! 450 60 big.jsonl` (50 groups of 450 near-identical short pages, one host each: 5,051,250
//! pairs), then `spotcheck ingest --db big.db big.jsonl`.

use anyhow::{Context, Result};
use spotcheck::detect::cooper::{Cooper, CooperSettings};
use spotcheck::detect::run_with;
use spotcheck::store::Store;

fn main() -> Result<()> {
    let db = std::env::args().nth(1).context("usage: cooper_mem DB")?;
    let mut store = Store::open(std::path::Path::new(&db))?;
    let report = run_with::<Cooper>(&mut store, &CooperSettings::default())?;
    println!("{}", report.line());
    Ok(())
}
