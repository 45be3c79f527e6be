//! All pairs of sets whose Jaccard similarity reaches a threshold, exactly: prefix filtering
//! over one rare-first order of the elements (AllPairs, Bayardo, Ma and Srikant, WWW 2007).
//! Two sets with Jaccard ≥ t share an element among the first `|x| − ⌈t·|x|⌉ + 1` of each
//! in that order, so only sets sharing a prefix element are compared, and only when their
//! sizes allow the threshold (`|small| ≥ t·|large|`). The result equals comparing every
//! pair (a property test checks it against the quadratic loop).
//!
//! Used by SpotSigs' fallback for the pages it cannot sign (`detect::spotsigs`): those are
//! few (index and member-list pages, news in languages whose prose rarely holds an
//! antecedent) and a set of word shingles each. [`containment_pairs`] is the same join for
//! copies cut short: the smaller set's share held by the larger, with a Jaccard floor.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Every pair `(i, j, jaccard)` with `i < j` of `sets` (each sorted, without repeats) whose
/// Jaccard similarity is at least `threshold` (in (0, 1]), sorted by `(i, j)`. Empty sets
/// pair with nothing.
pub fn jaccard_pairs(sets: &[Vec<u64>], threshold: f64) -> Vec<(u32, u32, f64)> {
    let ranked = ranked_rare_first(sets);
    let postings = prefix_postings(&ranked, threshold);
    let mut pairs: Vec<(u32, u32, f64)> = (0..ranked.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let x = &ranked[i];
            let probe = &x[..prefix_len(x.len(), threshold)];
            let ranked = &ranked;
            candidates(probe, &postings, |j| j as usize > i).filter_map(move |j| {
                let y = &ranked[j as usize];
                let (small, large) = (x.len().min(y.len()), x.len().max(y.len()));
                if (small as f64) < threshold * large as f64 {
                    return None;
                }
                let j_sim = jaccard(x, y);
                (j_sim >= threshold).then_some((i as u32, j, j_sim))
            })
        })
        .collect();
    pairs.sort_unstable_by_key(|p| (p.0, p.1));
    pairs
}

/// Every pair `(i, j, jaccard)` with `i < j` of `sets` (each sorted, without repeats) of
/// which the smaller set has at least the share `containment` (in (0, 1]) of its elements in
/// the other, and whose Jaccard similarity is at least `floor`, sorted by `(i, j)`: a copy
/// cut short is most of itself in its original, whatever was cut. The smaller set `x` of
/// such a pair shares an element among its first `|x| − ⌈c·|x|⌉ + 1` (rare-first), so each
/// set indexes that prefix and every set probes with all its elements the sets no larger
/// than itself.
pub fn containment_pairs(sets: &[Vec<u64>], containment: f64, floor: f64) -> Vec<(u32, u32, f64)> {
    let ranked = ranked_rare_first(sets);
    let postings = prefix_postings(&ranked, containment);
    // `x` is the smaller of a pair when its (size, index) is the smaller: each pair is
    // looked at from its larger set only.
    let smaller = |x: usize, y: usize| (ranked[x].len(), x) < (ranked[y].len(), y);
    let mut pairs: Vec<(u32, u32, f64)> = (0..ranked.len())
        .into_par_iter()
        .flat_map_iter(|y| {
            let large = &ranked[y];
            let ranked = &ranked;
            candidates(large, &postings, |x| smaller(x as usize, y)).filter_map(move |x| {
                let small = &ranked[x as usize];
                // Jaccard is at most |small| / |large|.
                if (small.len() as f64) < floor * large.len() as f64 {
                    return None;
                }
                let (inter, union) = intersection_union(small, large);
                let j_sim = inter as f64 / union as f64;
                let held = inter as f64 >= containment * small.len() as f64 - 1e-9;
                (held && j_sim >= floor).then(|| {
                    let (a, b) = (x.min(y as u32), x.max(y as u32));
                    (a, b, j_sim)
                })
            })
        })
        .collect();
    pairs.sort_unstable_by_key(|p| (p.0, p.1));
    pairs
}

/// The sets (by index) of each element among their first [`prefix_len`] elements.
fn prefix_postings(ranked: &[Vec<u32>], share: f64) -> FxHashMap<u32, Vec<u32>> {
    let mut postings: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for (i, r) in ranked.iter().enumerate() {
        for &e in &r[..prefix_len(r.len(), share)] {
            postings.entry(e).or_default().push(i as u32);
        }
    }
    postings
}

/// The sets `keep` accepts among the postings of `probe`'s elements, each once, in order.
fn candidates(
    probe: &[u32],
    postings: &FxHashMap<u32, Vec<u32>>,
    keep: impl Fn(u32) -> bool,
) -> std::vec::IntoIter<u32> {
    let mut found: Vec<u32> = probe
        .iter()
        .filter_map(|e| postings.get(e))
        .flatten()
        .copied()
        .filter(|&j| keep(j))
        .collect();
    found.sort_unstable();
    found.dedup();
    found.into_iter()
}

/// Each set's elements as ranks in one rare-first order of all elements (ties by value:
/// one order for every run), sorted: the order prefix filtering needs.
fn ranked_rare_first(sets: &[Vec<u64>]) -> Vec<Vec<u32>> {
    let mut freq: FxHashMap<u64, u32> = FxHashMap::default();
    for s in sets {
        for &e in s {
            *freq.entry(e).or_default() += 1;
        }
    }
    let mut order: Vec<(u32, u64)> = freq.iter().map(|(&e, &f)| (f, e)).collect();
    order.sort_unstable();
    let rank: FxHashMap<u64, u32> = order
        .iter()
        .enumerate()
        .map(|(r, &(_, e))| (e, r as u32))
        .collect();
    drop(order);
    drop(freq);
    let ranked: Vec<Vec<u32>> = sets
        .par_iter()
        .map(|s| {
            let mut r: Vec<u32> = s.iter().filter_map(|e| rank.get(e).copied()).collect();
            r.sort_unstable();
            r
        })
        .collect();
    ranked
}

/// How many of a set's first elements (in the rare-first order) a pair at Jaccard ≥ t must
/// share one of: `n − ⌈t·n⌉ + 1`, all of a set when t is tiny, none of an empty one. The
/// small slack keeps a product like 0.8 · 5 = 4.000000000000001 from rounding up to 5.
fn prefix_len(n: usize, threshold: f64) -> usize {
    if n == 0 {
        return 0;
    }
    let need = ((threshold * n as f64) - 1e-9).ceil().max(1.0) as usize;
    (n + 1).saturating_sub(need).min(n)
}

/// Jaccard similarity of two sorted sets without repeats (0 for two empty sets).
pub fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    match intersection_union(a, b) {
        (_, 0) => 0.0,
        (inter, union) => inter as f64 / union as f64,
    }
}

/// `(|A ∩ B|, |A ∪ B|)` of two sorted sets without repeats, in one merge pass.
pub fn intersection_union<T: Ord>(a: &[T], b: &[T]) -> (usize, usize) {
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (inter, a.len() + b.len() - inter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every pair compared: those `keep` accepts given (|A ∩ B|, |A ∪ B|, the smaller size).
    fn every_pair_where(
        sets: &[Vec<u64>],
        keep: impl Fn(usize, usize, usize) -> bool,
    ) -> Vec<(u32, u32, f64)> {
        let mut out = Vec::new();
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let (a, b) = (&sets[i], &sets[j]);
                let inter = a.iter().filter(|e| b.binary_search(e).is_ok()).count();
                let union = a.len() + b.len() - inter;
                if union > 0 && keep(inter, union, a.len().min(b.len())) {
                    out.push((i as u32, j as u32, inter as f64 / union as f64));
                }
            }
        }
        out
    }

    /// The definition: every pair compared.
    fn every_pair(sets: &[Vec<u64>], t: f64) -> Vec<(u32, u32, f64)> {
        every_pair_where(sets, |inter, union, _| inter as f64 / union as f64 >= t)
    }

    #[test]
    fn near_copies_pair_and_others_do_not() {
        let a: Vec<u64> = (0..10).collect();
        let b: Vec<u64> = (0..9).chain([100]).collect(); // 9 of 11: 0.818
        let c: Vec<u64> = (50..60).collect();
        let pairs = jaccard_pairs(&[a, b, c, Vec::new()], 0.8);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
        assert!((pairs[0].2 - 9.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn the_prefix_is_never_longer_than_the_set() {
        assert_eq!(prefix_len(0, 0.8), 0);
        assert_eq!(prefix_len(5, 0.8), 2);
        assert_eq!(prefix_len(1, 0.8), 1);
        assert_eq!(prefix_len(4, 0.01), 4);
        assert_eq!(prefix_len(4, 1.0), 1);
    }

    /// The containment join's definition: every pair compared.
    fn every_contained_pair(sets: &[Vec<u64>], c: f64, floor: f64) -> Vec<(u32, u32, f64)> {
        every_pair_where(sets, |inter, union, small| {
            small > 0
                && inter as f64 >= c * small as f64 - 1e-9
                && inter as f64 / union as f64 >= floor
        })
    }

    #[test]
    fn a_copy_cut_short_is_contained_in_its_original() {
        let whole: Vec<u64> = (0..40).collect();
        let cut: Vec<u64> = (0..28).chain([900]).collect(); // 28 of 29 held, J 28/41
        let other: Vec<u64> = (100..130).collect();
        let tiny: Vec<u64> = (0..5).collect(); // held, but J 5/40 under the floor
        let pairs = containment_pairs(&[whole, cut, other, tiny], 0.8, 0.2);
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
        assert!((pairs[0].2 - 28.0 / 41.0).abs() < 1e-12);
    }

    proptest! {
        #[test]
        fn containment_prefix_filtering_finds_exactly_the_pairs_every_comparison_finds(
            raw in proptest::collection::vec(proptest::collection::btree_set(0u64..24, 0..12), 0..24),
            c in prop_oneof![Just(0.8), Just(0.5), Just(1.0), 0.05f64..1.0],
            floor in prop_oneof![Just(0.2), Just(0.0), 0.0f64..1.0],
        ) {
            let sets: Vec<Vec<u64>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            let fast = containment_pairs(&sets, c, floor);
            let slow = every_contained_pair(&sets, c, floor);
            prop_assert_eq!(
                fast.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
                slow.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>()
            );
            for (f, s) in fast.iter().zip(&slow) {
                prop_assert!((f.2 - s.2).abs() < 1e-12);
            }
        }

        #[test]
        fn prefix_filtering_finds_exactly_the_pairs_every_comparison_finds(
            raw in proptest::collection::vec(proptest::collection::btree_set(0u64..24, 0..12), 0..24),
            t in prop_oneof![Just(0.8), Just(0.5), Just(1.0), 0.05f64..1.0],
        ) {
            let sets: Vec<Vec<u64>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            let fast = jaccard_pairs(&sets, t);
            let slow = every_pair(&sets, t);
            prop_assert_eq!(
                fast.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
                slow.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>()
            );
            for (f, s) in fast.iter().zip(&slow) {
                prop_assert!((f.2 - s.2).abs() < 1e-12);
            }
        }
    }
}
