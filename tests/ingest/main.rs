//! Tests of `src/ingest` (crawl readers: WARC/ARC/JSONL, torture and damage, real captures) and of
//! `spotcheck ingest`.
//! One test crate per source area (`cargo test --test ingest`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod duplicates;
mod formats;
mod pages;
mod readers_bench;
mod readers_damage;
mod readers_real;
mod readers_torture;
mod real;
mod torture;
