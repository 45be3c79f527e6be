//! Tests of `src/extract`: visible and main text on real news pages, the content text on
//! fixtures written for it, property tests, extraction benchmarks.
//! One test crate per source area (`cargo test --test extract`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod content;
mod news;
mod proptest;
