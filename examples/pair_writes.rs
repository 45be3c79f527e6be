//! Benchmark of storing one run's pairs (`Store::write_run_pairs`) into a database that
//! already holds other runs' pairs, the way `detect` stores Cooper's at a million pages:
//! pairs in `(a, b)` order, `b` scattered. Three ways on copies of one prepared database:
//! `default` (SQLite's 2 MiB page cache, the `b` index updated pair by pair), `cache64`
//! (ingest's 64 MiB page cache, index updated pair by pair) and `rebuild` (64 MiB, and the
//! batch large enough that the `b` index is dropped and created again after the inserts).
//!
//! Usage: cargo run --release --example pair_writes -- DIR [DOCS [STORED [NEW [TEXT]]]]
//! (defaults 1,000,000 documents, 4,000,000 stored pairs, 5,000,000 new pairs, 1 byte of
//! text a document — TEXT bytes make `documents` as large as a real one, whose foreign-key
//! lookups then miss the cache; DIR is scratch: a copy of the database per way). Prints
//! CPU and wall seconds per way; `bulk` is the way `detect` now takes (no per-row
//! foreign-key lookups, the `b` index rebuilt).

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use spotcheck::store::Store;

/// A deterministic scatter of `b` over the documents (splitmix64).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `n` pairs among documents `1..=docs`, sorted by `(a, b)`, `b` scattered above `a`.
fn pairs(n: u64, docs: u64, salt: u64) -> Vec<(i64, i64)> {
    let per = n.div_ceil(docs - 1).max(1);
    let mut v: Vec<(i64, i64)> = (0..n)
        .map(|i| {
            let a = 1 + (i / per) % (docs - 1);
            let b = a + 1 + mix(i ^ salt) % (docs - a);
            (a as i64, b as i64)
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (tick(11) + tick(12)) / 100.0
}

fn prepare(path: &Path, docs: u64, stored: u64, text: u64) -> Result<()> {
    let mut s = Store::open(path)?;
    s.insert_test_document("u/0", "", "t", None)?;
    drop(s);
    let conn = rusqlite::Connection::open(path)?;
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO documents(source_id, record_offset, record_length, compression,
           record_type, url, title, encoding, text_hash, visible_text, main_text, dup_group)
         SELECT (SELECT source_id FROM documents LIMIT 1), i, 0, 'none', 'resource',
           'u/' || i, '', 'utf-8', 'h' || i, printf('%.*c', ?2, 't'), NULL, i + 1 FROM n",
        [docs as i64, text.max(1) as i64],
    )?;
    drop(conn);
    let mut s = Store::open(path)?;
    for (run, salt) in [(1u64, 11u64), (2, 22)] {
        let id = s.create_run("bench", &serde_json::json!({ "run": run }))?;
        let p = pairs(stored / 2, docs, salt);
        s.write_run_pairs(id, p.into_iter().map(|(a, b)| (a, b, 0.9, None)))?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(
        args.get(1)
            .context("usage: pair_writes DIR [DOCS [STORED [NEW]]]")?,
    );
    let num = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (docs, stored, new, text) = (
        num(2, 1_000_000),
        num(3, 4_000_000),
        num(4, 5_000_000),
        num(5, 1),
    );
    std::fs::create_dir_all(dir)?;
    let base = dir.join("base.db");
    if !base.exists() {
        prepare(&base, docs, stored, text)?;
    }
    let batch = pairs(new, docs, 33);
    println!(
        "{docs} documents of {text} bytes, {stored} stored pairs, {} new pairs",
        batch.len()
    );
    for way in ["bulk", "cache64", "default"] {
        let db = dir.join(format!("{way}.db"));
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
        std::fs::copy(&base, &db)?;
        let mut s = Store::open(&db)?;
        if way != "default" {
            s.tune_for_bulk_load()?;
        }
        let run = s.create_run("bench", &serde_json::json!({ "way": way }))?;
        let rows = batch
            .iter()
            .map(|&(a, b)| (a, b, 0.95, Some(format!("{} of 47 terms differ", b % 4))));
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        // `filter` hides the batch's size, so the index is updated pair by pair.
        let n = if way == "bulk" {
            s.write_run_pairs(run, rows)?
        } else {
            s.write_run_pairs(run, rows.filter(|_| true))?
        };
        println!(
            "{way}: {n} pairs in {:.1} s wall, {:.1} CPU s",
            wall.elapsed().as_secs_f64(),
            cpu_seconds() - cpu
        );
        drop(s);
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
    }
    Ok(())
}
