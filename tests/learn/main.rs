//! Tests of `src/learn`: labels out (export, gold), ANDD training and detection.
//! One test crate per source area (`cargo test --test learn`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;
#[path = "../tui/support.rs"]
mod support;

mod andd;
mod andd_corpus;
mod labels_corpus;
mod labels_export;
mod sample;
