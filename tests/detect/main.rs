//! Tests of `src/detect`: the method table's parameters (ranges and consistency as usage
//! errors naming the flag), explanations made with the parameters of the run that proposed a
//! pair, and MinHash LSH (the fifth method) against brute force and through the CLI.
//! One test crate per source area (`cargo test --test detect`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod minhash;
mod params;
