//! Tests of `src/detect`: the method table's parameters (ranges and consistency as usage
//! errors naming the flag), explanations made with the parameters of the run that proposed a
//! pair, MinHash LSH (the fifth method) against brute force and through the CLI, SpotSigs'
//! default rules for truncated copies and signatureless pages, and documents in other
//! languages (identification, a Spanish wire story found like an English one), Cooper's
//! containment rule for truncated copies on other sites and its passage rule for copies on
//! one-page sites that keep their template's prose, its equal-text rule for pages of one to
//! three terms, and I-Match on a copy with a dateline.
//! One test crate per source area (`cargo test --test detect`); each file below is one
//! concern, named after what it tests.

#[path = "../common/mod.rs"]
mod common;

mod cooper_equal_text;
mod cooper_imatch_defaults;
mod cooper_passage;
mod imatch_across_sites;
mod imatch_releases;
mod languages;
mod minhash;
mod params;
mod query;
mod spotsigs_defaults;
mod staged;

/// Each case (extra arguments, the flag, a piece of its valid range) run after `base` is a
/// usage error: exit 2, the message naming the flag and what is valid.
fn assert_usage_errors(base: &[&str], cases: &[(&[&str], &str, &str)]) {
    for (args, flag, range) in cases {
        let mut all = base.to_vec();
        all.extend_from_slice(args);
        let (code, _, err) = common::spotcheck_run(&all);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains(range), "{args:?}: {err}");
    }
}
