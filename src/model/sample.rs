//! The estimation sample as typed data with its pure rules: the strata a document pair
//! falls in (by the best similarity any detector run or the low-threshold candidate
//! generator gave it; pairs nobody proposed form the last, "random" stratum), how many
//! pairs to draw per stratum for a target confidence-interval width, and the seeded draw
//! itself. The store persists these types; `learn::estimate` turns the labeled sample into
//! estimates.
//!
//! Why strata by score: true near-duplicate pairs are rare among all n(n−1)/2 pairs and
//! concentrate at high similarity, so a simple random sample of pairs would hold almost no
//! positives; stratifying lets every score band be measured with its own sample while the
//! stratum weights (population / drawn) keep the estimates about the whole collection.

use std::collections::HashSet;

use serde::Serialize;

use crate::sig::imatch::SplitMix64;

/// The lower score edges of the candidate strata, highest first; a candidate below the last
/// edge falls in the "low" stratum, a pair that is no candidate in the random stratum.
pub const SCORE_EDGES: [f64; 4] = [0.9, 0.7, 0.5, 0.3];

/// The number of strata: one per score edge, the low candidates, the random pairs.
pub const STRATA: usize = SCORE_EDGES.len() + 2;

/// Index of the random stratum (pairs no detector or candidate generator proposed).
pub const RANDOM_STRATUM: usize = STRATA - 1;

/// Index of the lowest candidate stratum (candidates scored below the last edge).
pub const LOW_STRATUM: usize = SCORE_EDGES.len();

/// The lowest candidate stratum is sized for this fraction of `--width` (about four times
/// the draws): it is by far the largest candidate stratum (57,399 pairs on ci-dd, 3,537 on
/// the news corpus against a few hundred in each scored one) and holds the true pairs only
/// partial-overlap candidates find at a rate of a few percent, so its positive count — a
/// large population times a small fraction — decides the recall intervals (BENCHMARKS.md,
/// issue 20 session 3: with the plain width, 94 draws saw none of its ≈ 105 news copies
/// on some seeds).
pub const LOW_STRATUM_WIDTH: f64 = 0.5;

/// Default target width of a 95% interval of a stratum's positive fraction.
pub const DEFAULT_WIDTH: f64 = 0.2;

/// z of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The stratum of a pair with this best candidate score (None: no candidate).
pub fn stratum_of(score: Option<f64>) -> usize {
    match score {
        None => RANDOM_STRATUM,
        Some(s) => SCORE_EDGES
            .iter()
            .position(|&edge| s >= edge)
            .unwrap_or(SCORE_EDGES.len()),
    }
}

/// The name of a stratum as the tables show it.
pub fn stratum_name(h: usize) -> String {
    match h {
        0 => format!("score >= {}", SCORE_EDGES[0]),
        h if h < SCORE_EDGES.len() => {
            format!("{} <= score < {}", SCORE_EDGES[h], SCORE_EDGES[h - 1])
        }
        h if h == SCORE_EDGES.len() => {
            format!("candidate < {}", SCORE_EDGES[SCORE_EDGES.len() - 1])
        }
        _ => "random (no candidate)".to_string(),
    }
}

/// Pairs to draw from a stratum of `population` pairs so that the normal-approximation
/// 95% interval of its positive fraction is at most `width` wide in the worst case (p =
/// ½), with the finite-population correction: n₀ = z²/(4·(w/2)²), n = n₀ / (1 + (n₀−1)/N).
pub fn size_for_width(width: f64, population: u64) -> u64 {
    if population == 0 {
        return 0;
    }
    let half = (width / 2.0).max(1e-6);
    let n0 = Z95 * Z95 * 0.25 / (half * half);
    let n = n0 / (1.0 + (n0 - 1.0) / population as f64);
    (n.ceil() as u64).clamp(1, population)
}

/// Splits `total` draws as evenly as the strata allow: each stratum gets an equal share
/// capped at its population, and what a small stratum cannot take goes to the others.
pub fn allocate_total(total: u64, populations: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; populations.len()];
    let mut left = total;
    loop {
        let open: Vec<usize> = (0..populations.len())
            .filter(|&h| out[h] < populations[h])
            .collect();
        if left == 0 || open.is_empty() {
            return out;
        }
        let share = (left / open.len() as u64).max(1);
        for h in open {
            let take = share.min(populations[h] - out[h]).min(left);
            out[h] += take;
            left -= take;
            if left == 0 {
                break;
            }
        }
    }
}

/// One stratum of a drawn sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stratum {
    pub index: usize,
    pub name: String,
    /// Pairs of the collection in the stratum.
    pub population: u64,
    /// Pairs drawn from it.
    pub drawn: u64,
}

/// One drawn pair (a < b) with its stratum and best candidate score (None in the random
/// stratum).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SamplePair {
    pub a: i64,
    pub b: i64,
    pub stratum: usize,
    pub score: Option<f64>,
}

/// `k` distinct elements of `items` chosen uniformly (a partial Fisher–Yates shuffle), in
/// the order drawn.
pub fn choose<T: Copy>(items: &[T], k: usize, rng: &mut SplitMix64) -> Vec<T> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    let k = k.min(items.len());
    for i in 0..k {
        let j = i + rng.below(idx.len() - i);
        idx.swap(i, j);
    }
    idx[..k].iter().map(|&i| items[i]).collect()
}

/// `k` distinct pairs of `docs` (ids, a < b) that are not in `exclude`, uniform over all
/// such pairs. Rejection sampling while the pairs left are plentiful; enumeration when
/// they are few (so it always ends).
pub fn draw_random_pairs(
    docs: &[i64],
    k: u64,
    exclude: &HashSet<(i64, i64)>,
    rng: &mut SplitMix64,
) -> Vec<(i64, i64)> {
    let n = docs.len() as u64;
    let all = n * n.saturating_sub(1) / 2;
    let available = all.saturating_sub(exclude.len() as u64);
    let k = k.min(available);
    if k == 0 {
        return Vec::new();
    }
    let key = |x: i64, y: i64| (x.min(y), x.max(y));
    if available < 4 * k || all <= 200_000 {
        let mut pool = Vec::with_capacity(available as usize);
        for (i, &x) in docs.iter().enumerate() {
            for &y in &docs[i + 1..] {
                let p = key(x, y);
                if !exclude.contains(&p) {
                    pool.push(p);
                }
            }
        }
        return choose(&pool, k as usize, rng);
    }
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    let mut out = Vec::with_capacity(k as usize);
    while (out.len() as u64) < k {
        let i = rng.below(docs.len());
        let j = rng.below(docs.len());
        if i == j {
            continue;
        }
        let p = key(docs[i], docs[j]);
        if exclude.contains(&p) || !seen.insert(p) {
            continue;
        }
        out.push(p);
    }
    out
}

/// Draws the sample: `candidates` are every proposed pair (a < b, each once) with its best
/// score, `docs` every document; `sizes` how many to draw per stratum (see
/// [`size_for_width`], [`allocate_total`]) or None to size each stratum for `width`.
/// The same inputs and seed give the same sample.
pub fn draw_sample(
    docs: &[i64],
    candidates: &[(i64, i64, f64)],
    total: Option<u64>,
    width: f64,
    seed: u64,
) -> (Vec<Stratum>, Vec<SamplePair>) {
    let mut by_stratum: Vec<Vec<(i64, i64, f64)>> = vec![Vec::new(); STRATA];
    for &(a, b, s) in candidates {
        by_stratum[stratum_of(Some(s))].push((a, b, s));
    }
    let n = docs.len() as u64;
    let all = n * n.saturating_sub(1) / 2;
    let mut populations: Vec<u64> = by_stratum.iter().map(|v| v.len() as u64).collect();
    populations[RANDOM_STRATUM] = all.saturating_sub(candidates.len() as u64);
    let sizes = match total {
        Some(t) => allocate_total(t, &populations),
        None => populations
            .iter()
            .enumerate()
            .map(|(h, &p)| {
                let w = if h == LOW_STRATUM {
                    width * LOW_STRATUM_WIDTH
                } else {
                    width
                };
                size_for_width(w, p)
            })
            .collect(),
    };
    let mut rng = SplitMix64::new(seed);
    let mut pairs = Vec::new();
    for (h, pool) in by_stratum.iter().enumerate().take(RANDOM_STRATUM) {
        for (a, b, s) in choose(pool, sizes[h] as usize, &mut rng) {
            pairs.push(SamplePair {
                a,
                b,
                stratum: h,
                score: Some(s),
            });
        }
    }
    let exclude: HashSet<(i64, i64)> = candidates.iter().map(|&(a, b, _)| (a, b)).collect();
    let mut sorted_docs = docs.to_vec();
    sorted_docs.sort_unstable();
    for (a, b) in draw_random_pairs(&sorted_docs, sizes[RANDOM_STRATUM], &exclude, &mut rng) {
        pairs.push(SamplePair {
            a,
            b,
            stratum: RANDOM_STRATUM,
            score: None,
        });
    }
    let mut drawn = [0u64; STRATA];
    for p in &pairs {
        drawn[p.stratum] += 1;
    }
    let strata = (0..STRATA)
        .map(|h| Stratum {
            index: h,
            name: stratum_name(h),
            population: populations[h],
            drawn: drawn[h],
        })
        .collect();
    // The labeling order interleaves the strata (a seeded shuffle), so a coder who stops
    // early leaves every stratum partly labeled rather than some not at all.
    let order = choose(&(0..pairs.len()).collect::<Vec<_>>(), pairs.len(), &mut rng);
    let pairs = order.into_iter().map(|i| pairs[i]).collect();
    (strata, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_fall_in_their_bands_and_non_candidates_in_the_random_stratum() {
        assert_eq!(stratum_of(Some(1.0)), 0);
        assert_eq!(stratum_of(Some(0.9)), 0);
        assert_eq!(stratum_of(Some(0.89)), 1);
        assert_eq!(stratum_of(Some(0.3)), 3);
        assert_eq!(stratum_of(Some(0.1)), 4);
        assert_eq!(stratum_of(None), RANDOM_STRATUM);
        assert_eq!(stratum_name(RANDOM_STRATUM), "random (no candidate)");
    }

    #[test]
    fn the_width_sets_the_size_and_small_strata_are_taken_whole() {
        // z² / (4 · 0.1²) = 96.04 → 97 for a large stratum.
        assert_eq!(size_for_width(0.2, 10_000_000), 97);
        assert!(size_for_width(0.1, 10_000_000) > 380);
        assert_eq!(size_for_width(0.2, 5), 5);
        assert_eq!(size_for_width(0.2, 0), 0);
    }

    #[test]
    fn a_total_is_spread_evenly_and_what_a_small_stratum_cannot_take_goes_elsewhere() {
        assert_eq!(allocate_total(12, &[100, 100, 100]), [4, 4, 4]);
        assert_eq!(allocate_total(12, &[2, 100, 100]), [2, 5, 5]);
        assert_eq!(allocate_total(500, &[2, 3]), [2, 3]);
        assert_eq!(allocate_total(7, &[10, 10, 10]).iter().sum::<u64>(), 7);
    }

    #[test]
    fn the_draw_is_deterministic_distinct_and_avoids_candidates_in_the_random_stratum() {
        let docs: Vec<i64> = (1..=60).collect();
        let candidates: Vec<(i64, i64, f64)> =
            (1..30).map(|i| (i, i + 1, (i as f64) / 30.0)).collect();
        let (strata, pairs) = draw_sample(&docs, &candidates, None, 0.3, 7);
        let (strata2, pairs2) = draw_sample(&docs, &candidates, None, 0.3, 7);
        assert_eq!((&strata, &pairs), (&strata2, &pairs2));
        let (_, other) = draw_sample(&docs, &candidates, None, 0.3, 8);
        assert_ne!(pairs, other);
        assert_eq!(
            strata.iter().map(|s| s.population).sum::<u64>(),
            60 * 59 / 2
        );
        let set: HashSet<(i64, i64)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(set.len(), pairs.len(), "no pair twice");
        let cands: HashSet<(i64, i64)> = candidates.iter().map(|c| (c.0, c.1)).collect();
        for p in &pairs {
            assert!(p.a < p.b);
            assert_eq!(p.stratum == RANDOM_STRATUM, !cands.contains(&(p.a, p.b)));
            assert_eq!(p.stratum, stratum_of(p.score));
        }
        for s in &strata {
            assert_eq!(
                s.drawn,
                pairs.iter().filter(|p| p.stratum == s.index).count() as u64
            );
            let w = if s.index == LOW_STRATUM {
                0.3 * LOW_STRATUM_WIDTH
            } else {
                0.3
            };
            assert_eq!(s.drawn, size_for_width(w, s.population));
        }
    }

    #[test]
    fn random_pairs_by_rejection_are_distinct_and_never_excluded() {
        let docs: Vec<i64> = (0..2000).collect();
        let exclude: HashSet<(i64, i64)> = (0..1999).map(|i| (i, i + 1)).collect();
        let mut rng = SplitMix64::new(3);
        let got = draw_random_pairs(&docs, 500, &exclude, &mut rng);
        assert_eq!(got.len(), 500);
        let set: HashSet<_> = got.iter().copied().collect();
        assert_eq!(set.len(), 500);
        assert!(got.iter().all(|p| p.0 < p.1 && !exclude.contains(p)));
    }
}
