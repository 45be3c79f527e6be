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

/// Width the pilot of a Neyman-allocated sample is sized for (about 25 pairs a stratum).
pub const PILOT_WIDTH: f64 = 0.4;

/// Neyman allocation of `total` draws over the candidate strata, from a labeled pilot.
///
/// The estimate every run's recall rests on is the number of true pairs T̂ = Σₕ Nₕ·p̂ₕ; its
/// variance Σₕ Nₕ²·Sₕ²/nₕ (without the finite-population factor) is smallest for a given
/// total at nₕ ∝ Nₕ·Sₕ (Neyman 1934), with Sₕ = √(pₕ(1 − pₕ)). pₕ comes from the pilot's
/// labels of stratum h under Jeffreys' prior, (sameₕ + ½)/(labeledₕ + 1), so a stratum the
/// pilot saw all one way keeps a non-zero share. Each stratum keeps at least its pilot
/// draws (`floor`) and takes at most its population. The random stratum is not allocated
/// here: a prior share of a stratum of millions of pairs would take every draw, and its
/// sample only checks for true pairs no candidate generator found (the caller sizes it
/// from the width). `strata[h] = (population, floor, labeled, same)` for every stratum;
/// returns the draws per stratum (the random stratum's = its floor).
pub fn neyman_allocation(total: u64, strata: &[(u64, u64, u64, u64)]) -> Vec<u64> {
    let k = strata.len();
    let mut out: Vec<u64> = strata.iter().map(|s| s.1.min(s.0)).collect();
    let weight = |h: usize| -> f64 {
        let (pop, _, labeled, same) = strata[h];
        let p = (same as f64 + 0.5) / (labeled as f64 + 1.0);
        pop as f64 * (p * (1.0 - p)).sqrt()
    };
    let candidate = |h: usize| h != RANDOM_STRATUM || k != STRATA;
    // Strata whose share is pinned at their floor or population, by iteration: a share
    // below the floor or above the population is fixed there, the rest shared again.
    let mut fixed: Vec<bool> = (0..k).map(|h| !candidate(h)).collect();
    let mut shares = vec![0.0f64; k];
    loop {
        let spent: u64 = (0..k).filter(|&h| fixed[h]).map(|h| out[h]).sum();
        let budget = total.saturating_sub(spent) as f64;
        let free: Vec<usize> = (0..k).filter(|&h| !fixed[h]).collect();
        let wsum: f64 = free.iter().map(|&h| weight(h)).sum();
        if free.is_empty() {
            break;
        }
        let mut changed = false;
        for &h in &free {
            shares[h] = if wsum > 0.0 {
                budget * weight(h) / wsum
            } else {
                budget / free.len() as f64
            };
            let (pop, floor) = (strata[h].0, strata[h].1.min(strata[h].0));
            if shares[h] <= floor as f64 {
                out[h] = floor;
                fixed[h] = true;
                changed = true;
            } else if shares[h] >= pop as f64 {
                out[h] = pop;
                fixed[h] = true;
                changed = true;
            }
        }
        if !changed {
            // Whole draws: round down, then hand the remainder out by largest fraction.
            for &h in &free {
                out[h] = shares[h].floor() as u64;
            }
            let used: u64 = out.iter().sum();
            let mut left = total.saturating_sub(used);
            let mut order = free.clone();
            order.sort_by(|&x, &y| {
                let fx = shares[x] - shares[x].floor();
                let fy = shares[y] - shares[y].floor();
                fy.total_cmp(&fx).then(x.cmp(&y))
            });
            for h in order {
                if left == 0 {
                    break;
                }
                if out[h] < strata[h].0 {
                    out[h] += 1;
                    left -= 1;
                }
            }
            break;
        }
    }
    out
}

/// Draws per stratum of a Neyman-allocated sample ([`neyman_allocation`]) after a labeled
/// pilot: `pilot[h] = (drawn, labeled, same)` of the pilot's pairs in stratum h (by today's
/// candidate scores). The total is `total`, or what [`width_sizes`] would draw for
/// `width` (so the two allocations compare at one sample size); the random stratum gets
/// its width-sized draw (or the pilot's, if more).
pub fn neyman_sizes(
    populations: &[u64],
    pilot: &[(u64, u64, u64)],
    total: Option<u64>,
    width: f64,
) -> Vec<u64> {
    let plain = width_sizes(populations, None, width);
    let total = total.unwrap_or_else(|| plain.iter().sum());
    let strata: Vec<(u64, u64, u64, u64)> = (0..populations.len())
        .map(|h| {
            let (drawn, labeled, same) = pilot.get(h).copied().unwrap_or_default();
            let floor = if h == RANDOM_STRATUM {
                plain[h].max(drawn)
            } else {
                drawn
            };
            (populations[h], floor, labeled, same)
        })
        .collect();
    neyman_allocation(total, &strata)
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

/// A candidate pair `(a, b, best score)`, a < b.
pub type ScoredPair = (i64, i64, f64);

/// The candidates split by stratum, and every stratum's population (the random stratum:
/// every pair of `documents` that is no candidate).
pub fn split_strata(
    documents: usize,
    candidates: &[ScoredPair],
) -> (Vec<Vec<ScoredPair>>, Vec<u64>) {
    let mut by_stratum: Vec<Vec<ScoredPair>> = vec![Vec::new(); STRATA];
    for &(a, b, s) in candidates {
        by_stratum[stratum_of(Some(s))].push((a, b, s));
    }
    let n = documents as u64;
    let all = n * n.saturating_sub(1) / 2;
    let mut populations: Vec<u64> = by_stratum.iter().map(|v| v.len() as u64).collect();
    populations[RANDOM_STRATUM] = all.saturating_sub(candidates.len() as u64);
    (by_stratum, populations)
}

/// Draws per stratum without a pilot: `total` spread evenly ([`allocate_total`]), or each
/// stratum sized for `width` (the lowest candidate stratum for `width ·
/// LOW_STRATUM_WIDTH`).
pub fn width_sizes(populations: &[u64], total: Option<u64>, width: f64) -> Vec<u64> {
    match total {
        Some(t) => allocate_total(t, populations),
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
    }
}

/// Draws the sample: `candidates` are every proposed pair (a < b, each once) with its best
/// score, `docs` every document; `total` pairs spread evenly over the strata
/// ([`allocate_total`]), or None to size each stratum for `width` ([`width_sizes`]).
/// The same inputs and seed give the same sample.
pub fn draw_sample(
    docs: &[i64],
    candidates: &[(i64, i64, f64)],
    total: Option<u64>,
    width: f64,
    seed: u64,
) -> (Vec<Stratum>, Vec<SamplePair>) {
    let (by_stratum, populations) = split_strata(docs.len(), candidates);
    let sizes = width_sizes(&populations, total, width);
    draw_sizes(
        docs,
        candidates,
        &by_stratum,
        &populations,
        &sizes,
        &[],
        seed,
    )
}

/// Draws a sample that holds every pair of `kept` (a pilot: re-stratified by today's
/// candidate scores) and, per stratum, `sizes[h]` pairs in all (at least the kept ones):
/// the extra pairs are drawn uniformly from the stratum's pairs not kept, so each
/// stratum's pairs are still a simple random sample of it. Kept pairs come first in the
/// labeling order (they are labeled already), the new ones after, shuffled.
pub fn draw_with_pilot(
    docs: &[i64],
    candidates: &[(i64, i64, f64)],
    kept: &[(i64, i64)],
    sizes: &[u64],
    seed: u64,
) -> (Vec<Stratum>, Vec<SamplePair>) {
    let (by_stratum, populations) = split_strata(docs.len(), candidates);
    draw_sizes(
        docs,
        candidates,
        &by_stratum,
        &populations,
        sizes,
        kept,
        seed,
    )
}

fn draw_sizes(
    docs: &[i64],
    candidates: &[(i64, i64, f64)],
    by_stratum: &[Vec<(i64, i64, f64)>],
    populations: &[u64],
    sizes: &[u64],
    kept: &[(i64, i64)],
    seed: u64,
) -> (Vec<Stratum>, Vec<SamplePair>) {
    let score: std::collections::HashMap<(i64, i64), f64> =
        candidates.iter().map(|&(a, b, s)| ((a, b), s)).collect();
    let mut kept_pairs: Vec<SamplePair> = Vec::new();
    let mut kept_set: HashSet<(i64, i64)> = HashSet::new();
    for &(a, b) in kept {
        let key = (a.min(b), a.max(b));
        if key.0 == key.1 || !kept_set.insert(key) {
            continue;
        }
        let s = score.get(&key).copied();
        kept_pairs.push(SamplePair {
            a: key.0,
            b: key.1,
            stratum: stratum_of(s),
            score: s,
        });
    }
    let mut kept_in = [0u64; STRATA];
    for p in &kept_pairs {
        kept_in[p.stratum] += 1;
    }
    let mut rng = SplitMix64::new(seed);
    let mut pairs = Vec::new();
    for (h, pool) in by_stratum.iter().enumerate().take(RANDOM_STRATUM) {
        let want = sizes[h].saturating_sub(kept_in[h]) as usize;
        let pool: Vec<(i64, i64, f64)> = if kept_in[h] > 0 {
            pool.iter()
                .copied()
                .filter(|p| !kept_set.contains(&(p.0, p.1)))
                .collect()
        } else {
            pool.clone()
        };
        for (a, b, s) in choose(&pool, want, &mut rng) {
            pairs.push(SamplePair {
                a,
                b,
                stratum: h,
                score: Some(s),
            });
        }
    }
    let mut exclude: HashSet<(i64, i64)> = candidates.iter().map(|&(a, b, _)| (a, b)).collect();
    exclude.extend(kept_set.iter().copied());
    let mut sorted_docs = docs.to_vec();
    sorted_docs.sort_unstable();
    let want = sizes[RANDOM_STRATUM].saturating_sub(kept_in[RANDOM_STRATUM]);
    for (a, b) in draw_random_pairs(&sorted_docs, want, &exclude, &mut rng) {
        pairs.push(SamplePair {
            a,
            b,
            stratum: RANDOM_STRATUM,
            score: None,
        });
    }
    let mut drawn = kept_in;
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
    let mut out = kept_pairs;
    out.extend(order.into_iter().map(|i| pairs[i]));
    (strata, out)
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
    fn neyman_gives_each_stratum_draws_in_proportion_to_population_times_spread() {
        // Two candidate strata of equal population, one all "same" in the pilot (small
        // spread), one half and half (largest spread); the rest empty; random stratum fixed.
        let strata = [
            (10_000, 20, 20, 20),
            (10_000, 20, 20, 10),
            (0, 0, 0, 0),
            (0, 0, 0, 0),
            (0, 0, 0, 0),
            (1_000_000, 50, 20, 0),
        ];
        let n = neyman_allocation(250, &strata);
        assert_eq!(n.iter().sum::<u64>(), 250);
        assert_eq!(n[RANDOM_STRATUM], 50);
        assert_eq!(&n[2..5], &[0, 0, 0]);
        // S = √(p(1−p)): p = 20.5/21 → 0.152, p = 10.5/21 → 0.5: shares 0.233 : 0.767 of 200.
        assert_eq!((n[0], n[1]), (47, 153));
        // A floor above the Neyman share is kept, the rest shared again.
        let mut with_floor = strata;
        with_floor[0].1 = 80;
        let floored = neyman_allocation(250, &with_floor);
        assert_eq!((floored[0], floored[1]), (80, 120));
        // A population below its share is taken whole.
        let mut small = strata;
        small[2] = (30, 0, 0, 0);
        assert_eq!(
            neyman_allocation(100_000, &small),
            vec![10_000, 10_000, 30, 0, 0, 50]
        );
        // A total below the floors draws the floors.
        assert_eq!(neyman_allocation(10, &strata), vec![20, 20, 0, 0, 0, 50]);
    }

    #[test]
    fn a_pilot_is_kept_and_the_extension_stays_inside_its_strata() {
        let docs: Vec<i64> = (1..=80).collect();
        let candidates: Vec<(i64, i64, f64)> =
            (1..60).map(|i| (i, i + 1, (i as f64) / 60.0)).collect();
        let (_, pilot) = draw_sample(&docs, &candidates, None, 0.9, 3);
        let kept: Vec<(i64, i64)> = pilot.iter().map(|p| (p.a, p.b)).collect();
        let (_, populations) = split_strata(docs.len(), &candidates);
        let mut counts = vec![(0u64, 0u64, 0u64); STRATA];
        for p in &pilot {
            counts[p.stratum].0 += 1;
            counts[p.stratum].1 += 1;
            counts[p.stratum].2 += u64::from(p.score.unwrap_or(0.0) > 0.5);
        }
        let sizes = neyman_sizes(&populations, &counts, None, 0.3);
        let (strata, pairs) = draw_with_pilot(&docs, &candidates, &kept, &sizes, 4);
        // The pilot first, in its order; every stratum at its allocated size.
        assert_eq!(
            pairs[..kept.len()]
                .iter()
                .map(|p| (p.a, p.b))
                .collect::<Vec<_>>(),
            kept
        );
        let set: HashSet<(i64, i64)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(set.len(), pairs.len(), "no pair twice");
        for s in &strata {
            assert_eq!(s.drawn, sizes[s.index].min(s.population), "{s:?}");
            assert!(pairs.iter().filter(|p| p.stratum == s.index).count() as u64 == s.drawn);
        }
        for p in &pairs {
            assert_eq!(p.stratum, stratum_of(p.score));
        }
        // The same total as the width allocation.
        let plain = width_sizes(&populations, None, 0.3);
        assert_eq!(sizes.iter().sum::<u64>(), plain.iter().sum::<u64>());
        // Without a pilot the draw is the plain one.
        assert_eq!(
            draw_with_pilot(&docs, &candidates, &[], &plain, 9),
            draw_sample(&docs, &candidates, None, 0.3, 9)
        );
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
