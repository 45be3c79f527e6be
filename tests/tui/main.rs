//! Tests of `src/review` and `src/tui`: screens as insta snapshots driven by keys, saving behind
//! the key, the store a session writes, the real binary under tmux, benchmarks.
//! One test crate per source area (`cargo test --test tui`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod adjudicate;
mod bench;
mod charts;
mod entry;
mod group;
mod jumps;
mod saving;
mod screens;
mod store;
mod support;
mod tmux;
mod waiting;
