//! Reliability under attack (issue 17): the command-line contract with hostile crawls
//! (closed pipes, escape sequences in every place crawled text can reach a terminal),
//! decompression and parser bombs, kills at deterministic points, two processes on one
//! database, a full disk and a corrupt database file. Every case runs the real binary.

#[path = "../common/mod.rs"]
mod common;

mod bombs;
mod concurrent;
mod contract;
mod damage;
mod disk;
mod fuzzing;
mod kills;
