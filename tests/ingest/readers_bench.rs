//! A manual benchmark (ignored by default): iterate the dd-bench WARC like warcio does.
//! Run with `cargo test --release --test ingest -- --ignored --nocapture readers_bench::`.

use std::path::PathBuf;
use std::time::Instant;

use spotcheck::ingest::{expand_inputs, open_reader, ReadItem, ReaderOptions};

#[test]
#[ignore = "benchmark: run explicitly in release mode (see the file header)"]
fn iterate_bench_warc() {
    let path = std::env::var("SPOTCHECK_BENCH_WARC").map_or_else(
        |_| PathBuf::from("/root/.cache/spotcheck/dd-bench/crawl.warc.gz"),
        PathBuf::from,
    );
    if !path.exists() {
        crate::common::skip(&format!("benchmark input {} not found", path.display()));
        return;
    }
    let start = Instant::now();
    let (mut records, mut docs, mut errors, mut bytes) = (0u64, 0u64, 0u64, 0usize);
    for input in expand_inputs(&[path]).expect("input") {
        for item in open_reader(&input, &ReaderOptions::default()).expect("open") {
            match item {
                ReadItem::Record(r) => {
                    records += 1;
                    if let Some(b) = &r.body {
                        docs += 1;
                        bytes += b.len();
                    }
                }
                ReadItem::Error(_) => errors += 1,
            }
        }
    }
    println!(
        "{records} records, {docs} documents ({bytes} body bytes), {errors} errors in {:.2?}",
        start.elapsed()
    );
    assert_eq!(errors, 0);
}
