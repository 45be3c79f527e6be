//! spotcheck: a workbench for manual near-duplicate review of web crawls.
//!
//! The pipeline is ingest → extract → sign → match/cluster → review → export/train/eval.
//! Every module below owns one stage; `store` is the only one that talks to SQLite and
//! `tui` the only one that talks to the terminal (see DESIGN.md §3 of the project notes).

pub mod chart;
pub mod cli;
pub mod cluster;
pub mod cmd;
pub mod columnar;
pub mod detect;
pub mod extract;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod ingest;
pub mod learn;
pub mod model;
pub mod review;
pub mod sig;
pub mod store;
pub mod text;
pub mod tui;
