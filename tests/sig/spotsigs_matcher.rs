//! The exact SpotSigs matcher must return the same pairs as brute force, with every
//! ablation of its machinery (partitions and pruning on/off), on random collections that
//! include near-duplicate chains, exact duplicates, single-signature documents and
//! lengths sitting on partition boundaries.

use proptest::prelude::*;
use spotcheck::cluster::spotsigs_matcher::{
    brute_force, jaccard, match_pairs, partition_bounds, MatchMode, Pair,
};
use spotcheck::sig::spotsigs::SigVector;

const TAUS: [f64; 5] = [0.5, 0.6, 0.8, 0.9, 1.0];

/// Lengths around the partition boundaries of the τ values above (e.g. 0.8: 1, 2, 3, 4,
/// 6, 8, 11, 14, 18; 0.9: …, 10, 12, 14, 16, 18, 21).
fn boundary_lengths() -> Vec<u32> {
    let mut v: Vec<u32> = TAUS
        .iter()
        .flat_map(|&t| partition_bounds(24, t))
        .flat_map(|p| [p.saturating_sub(1), p, p + 1])
        .filter(|&l| (1..=26).contains(&l))
        .map(|l| l as u32)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A recipe for one document; see `build`.
type Recipe = (u8, Vec<(u32, u32)>, usize, Vec<(u32, u32)>, usize);

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        0u8..5,
        prop::collection::vec((0u32..24, 1u32..4), 1..16),
        any::<usize>(),
        prop::collection::vec((0u32..24, 0u32..4), 1..3),
        any::<usize>(),
    )
}

fn build(recipes: Vec<Recipe>) -> Vec<SigVector> {
    let lengths = boundary_lengths();
    let mut docs: Vec<SigVector> = Vec::new();
    for (kind, counts, src, edits, len_pick) in recipes {
        let fresh = SigVector::from_counts(counts.iter().copied());
        let doc = match (kind, docs.len()) {
            // A near-duplicate of an earlier document: a few frequencies changed.
            (0 | 1, n) if n > 0 => {
                let base = &docs[src % n];
                let mut e: Vec<(u32, u32)> = base.entries().to_vec();
                for &(id, f) in &edits {
                    e.retain(|&(i, _)| i != id);
                    e.push((id, f));
                }
                let v = SigVector::from_counts(e);
                if v.is_empty() {
                    fresh
                } else {
                    v
                }
            }
            // An exact duplicate.
            (2, n) if n > 0 => docs[src % n].clone(),
            // One signature repeated to a length near a partition boundary: similarities
            // between such documents are ratios like 12/15 that hit τ exactly.
            (3, _) => {
                let len = lengths[len_pick % lengths.len()];
                SigVector::from_counts([(counts[0].0 % 2, len)])
            }
            _ => fresh,
        };
        docs.push(doc);
    }
    docs
}

fn assert_same(expected: &[Pair], got: &[Pair], what: &str) {
    let ids = |p: &[Pair]| p.iter().map(|&(a, b, _)| (a, b)).collect::<Vec<_>>();
    assert_eq!(ids(expected), ids(got), "{what}: pair sets differ");
    for (e, g) in expected.iter().zip(got) {
        assert!(
            (e.2 - g.2).abs() <= 1e-12,
            "{what}: similarity of {e:?} vs {g:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn all_modes_equal_brute_force(recipes in prop::collection::vec(recipe(), 1..40)) {
        let docs = build(recipes);
        for tau in TAUS {
            let expected = brute_force(&docs, tau);
            for mode in [MatchMode::Full, MatchMode::NoPartitions, MatchMode::PlainJoin] {
                let (got, stats) = match_pairs(&docs, tau, mode);
                assert_same(&expected, &got, &format!("{mode:?} τ={tau}"));
                prop_assert_eq!(stats.pairs, expected.len());
            }
        }
    }

    /// Signature ids spread over the whole `u32` range (the matcher then ranks them
    /// through a sorted table instead of a direct one): the same pairs and, since the
    /// spreading keeps the ids' order, the same work counters.
    #[test]
    fn sparse_ids_match_like_dense_ones(recipes in prop::collection::vec(recipe(), 1..40)) {
        let docs = build(recipes);
        const STRIDE: u32 = u32::MAX / 24;
        let sparse: Vec<SigVector> = docs
            .iter()
            .map(|v| SigVector::from_counts(v.entries().iter().map(|&(s, f)| (s * STRIDE, f))))
            .collect();
        for tau in TAUS {
            for mode in [MatchMode::Full, MatchMode::NoPartitions, MatchMode::PlainJoin] {
                let (dense_pairs, dense_stats) = match_pairs(&docs, tau, mode);
                let (sparse_pairs, sparse_stats) = match_pairs(&sparse, tau, mode);
                assert_same(&dense_pairs, &sparse_pairs, &format!("sparse {mode:?} τ={tau}"));
                prop_assert_eq!(dense_stats, sparse_stats);
            }
        }
    }
}

#[test]
fn brute_force_reference_is_sane() {
    let a = SigVector::from_counts([(0, 12)]);
    let b = SigVector::from_counts([(0, 15)]);
    assert_eq!(jaccard(&a, &b), 0.8);
    assert_eq!(brute_force(&[a.clone(), b.clone()], 0.8), vec![(0, 1, 0.8)]);
    assert!(brute_force(&[a, b], 0.8000000000000002).is_empty());
}

/// Lengths exactly on every boundary, all in one collection, every τ.
#[test]
fn boundary_lengths_single_signature_collection() {
    let docs: Vec<SigVector> = (1..=40u32)
        .map(|l| SigVector::from_counts([(0, l)]))
        .collect();
    for tau in [0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 1.0] {
        let expected = brute_force(&docs, tau);
        assert!(tau == 1.0 || !expected.is_empty());
        for mode in [
            MatchMode::Full,
            MatchMode::NoPartitions,
            MatchMode::PlainJoin,
        ] {
            assert_same(
                &expected,
                &match_pairs(&docs, tau, mode).0,
                &format!("{mode:?} {tau}"),
            );
        }
    }
}

/// Output and work counters do not depend on the number of threads.
#[test]
fn results_do_not_depend_on_thread_count() {
    let recipes: Vec<Recipe> = (0..300usize)
        .map(|i| {
            let counts = (0..(i % 7 + 1) as u32)
                .map(|k| ((i as u32 * 7 + k * 3) % 12, k % 3 + 1))
                .collect();
            (
                (i % 5) as u8,
                counts,
                i * 31,
                vec![((i % 12) as u32, (i % 3) as u32)],
                i,
            )
        })
        .collect();
    let docs = build(recipes);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| match_pairs(&docs, 0.6, MatchMode::Full))
    };
    let (p1, s1) = run(1);
    let (p4, s4) = run(4);
    assert!(!p1.is_empty());
    assert_eq!(p1, p4);
    assert_eq!(s1, s4);
    assert_same(&brute_force(&docs, 0.6), &p1, "threads");
}

#[test]
fn empty_inputs_give_no_pairs() {
    for mode in [
        MatchMode::Full,
        MatchMode::NoPartitions,
        MatchMode::PlainJoin,
    ] {
        assert!(match_pairs(&[], 0.8, mode).0.is_empty());
        let empties = vec![SigVector::default(); 3];
        let (pairs, stats) = match_pairs(&empties, 0.8, mode);
        assert!(pairs.is_empty());
        assert_eq!(stats.docs, 0);
    }
}
