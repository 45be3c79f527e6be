//! Tests of `src/extract`: visible and main text on real news pages, property tests, extraction
//! benchmarks.
//! One test crate per source area (`cargo test --test extract`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod news;
mod proptest;
