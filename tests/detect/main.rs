//! Tests of `src/detect`: the method table's parameters (ranges and consistency as usage
//! errors naming the flag), and explanations made with the parameters of the run that
//! proposed a pair.
//! One test crate per source area (`cargo test --test detect`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod params;
