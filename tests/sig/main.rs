//! Tests of `src/sig` and its matchers in `src/cluster`: SpotSigs extraction, matcher and bridges;
//! I-Match stability, real pages and the papers' spurious match.
//! One test crate per source area (`cargo test --test sig`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod imatch_real_pages;
mod imatch_spurious;
mod imatch_stability;
mod imatch_support;
mod spotsigs_bridges;
mod spotsigs_extract;
mod spotsigs_matcher;
