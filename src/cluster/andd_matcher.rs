//! ANDD matching: all pairs of weighted k-gram vectors whose similarity (cosine or
//! extended Jaccard) reaches a threshold. Candidates come from one of two sources, and
//! every candidate is then scored exactly:
//!
//! * `Index` (exact): an inverted index over each vector's *heavy* k-grams, in the manner of
//!   Bayardo et al.'s All-Pairs (WWW 2007). k-grams are ordered by descending document
//!   frequency; each unit vector leaves out of the index its longest prefix whose best
//!   possible dot product with any vector, `min(‖prefix‖, Σ x_t · max_t)` (max_t the largest
//!   weight of t in the collection), stays below the cosine threshold. Two vectors with
//!   cosine ≥ t must then share a k-gram from the indexed part of one of them, so querying
//!   each vector's k-grams against the index finds every such pair. The extended Jaccard
//!   uses the cosine bound `2t/(1+t)` it implies. A property test checks the result equals
//!   brute force.
//! * `Lsh` (approximate): random-hyperplane signatures (`sig::andd::Lsh`) cut into bands;
//!   two documents are candidates when a band is equal. Fast and memory-light on large
//!   collections, with a recall below 1 that the banding sets.
//!
//! Pure and parallel (rayon); no I/O.

use rustc_hash::FxHashMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::sig::andd::{similarity, Lsh, Similarity, SparseVec};

/// How candidate pairs are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Candidates {
    /// The exact heavy-k-gram inverted index.
    Index,
    /// LSH signatures in `bands` bands of `bits / bands` bits.
    Lsh { lsh: Lsh, bands: usize },
}

/// What the matcher did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MatchStats {
    pub documents: usize,
    /// Documents with an empty vector (never matched).
    pub empty: usize,
    /// Posting-list entries of the index (Index) or band keys (Lsh).
    pub indexed: usize,
    /// Distinct candidate pairs scored exactly.
    pub candidates: usize,
    pub pairs: usize,
}

/// Bands for an LSH signature of `bits` bits at similarity threshold `t`: the most bands of
/// at least 8 rows that still give a pair at the threshold a ≥ 99% chance to collide in some
/// band, if any; otherwise bands of 8 rows.
pub fn auto_bands(bits: usize, sim: Similarity, t: f64) -> usize {
    let c = sim.min_cosine(t).clamp(-1.0, 1.0);
    let p = 1.0 - c.acos() / std::f64::consts::PI;
    // More rows per band: fewer false candidates; pick the largest row count that keeps
    // the collision probability at the threshold above 0.99.
    let mut best = (bits / 8).max(1);
    for rows in 8..=64 {
        let bands = bits / rows;
        if bands == 0 {
            break;
        }
        let hit = 1.0 - (1.0 - p.powi(rows as i32)).powi(bands as i32);
        if hit >= 0.99 {
            best = bands;
        }
    }
    best
}

/// Every pair (a < b) with similarity ≥ `threshold`, by exhaustive comparison.
pub fn brute_force(vecs: &[SparseVec], sim: Similarity, threshold: f64) -> Vec<(u32, u32, f64)> {
    let mut out: Vec<(u32, u32, f64)> = (0..vecs.len())
        .into_par_iter()
        .flat_map_iter(|a| {
            (a + 1..vecs.len()).filter_map(move |b| {
                if vecs[a].is_empty() || vecs[b].is_empty() {
                    return None;
                }
                let s = similarity(sim, &vecs[a], &vecs[b]);
                (s >= threshold).then_some((a as u32, b as u32, s))
            })
        })
        .collect();
    out.sort_by_key(|p| (p.0, p.1));
    out
}

/// Candidate pairs (a < b) from the heavy-k-gram index over unit vectors at cosine `t`.
fn index_candidates(vecs: &[SparseVec], t: f64, stats: &mut MatchStats) -> Vec<(u32, u32)> {
    // Global order: descending document frequency, then hash.
    let mut df: FxHashMap<u64, u32> = FxHashMap::default();
    for v in vecs {
        for &h in &v.terms {
            *df.entry(h).or_insert(0) += 1;
        }
    }
    let mut order: Vec<(u64, u32)> = df.into_iter().collect();
    order.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let rank: FxHashMap<u64, u32> = order
        .iter()
        .enumerate()
        .map(|(i, &(h, _))| (h, i as u32))
        .collect();
    // Unit vectors as (rank, weight), rank ascending (most frequent first).
    let units: Vec<Vec<(u32, f32)>> = vecs
        .par_iter()
        .map(|v| {
            let u = v.unit();
            let mut r: Vec<(u32, f32)> = u
                .terms
                .iter()
                .zip(&u.weights)
                .map(|(h, &w)| (rank[h], w))
                .collect();
            r.sort_unstable_by_key(|e| e.0);
            r
        })
        .collect();
    let mut max_w = vec![0.0f32; order.len()];
    for u in &units {
        for &(r, w) in u {
            let m = &mut max_w[r as usize];
            *m = m.max(w);
        }
    }
    // Index each vector's suffix from the first position where the prefix bound reaches t
    // (a small margin absorbs rounding, so no true pair is lost to it).
    let margin = 1e-6;
    let mut postings: Vec<Vec<u32>> = vec![Vec::new(); order.len()];
    for (d, u) in units.iter().enumerate() {
        let (mut b1, mut b2) = (0.0f64, 0.0f64);
        let mut start = u.len();
        for (i, &(r, w)) in u.iter().enumerate() {
            let w = f64::from(w);
            b1 += w * f64::from(max_w[r as usize]);
            b2 += w * w;
            if b1.min(b2.sqrt()) >= t - margin {
                start = i;
                break;
            }
        }
        for &(r, _) in &u[start..] {
            postings[r as usize].push(d as u32);
        }
    }
    stats.indexed = postings.iter().map(Vec::len).sum();
    let mut pairs: Vec<(u32, u32)> = (0..units.len())
        .into_par_iter()
        .flat_map_iter(|a| {
            let mut found: Vec<u32> = units[a]
                .iter()
                .flat_map(|&(r, _)| postings[r as usize].iter().copied())
                .filter(|&b| b as usize > a)
                .collect();
            found.sort_unstable();
            found.dedup();
            found.into_iter().map(move |b| (a as u32, b))
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

/// Candidate pairs (a < b) that agree on at least one band of their LSH signatures.
fn lsh_candidates(
    vecs: &[SparseVec],
    lsh: &Lsh,
    bands: usize,
    stats: &mut MatchStats,
) -> Vec<(u32, u32)> {
    let sigs: Vec<Vec<u64>> = vecs.par_iter().map(|v| lsh.signature(v)).collect();
    lsh_candidates_from(&sigs, vecs, lsh.bits, bands, stats)
}

/// The bits `[from, to)` of a signature as a band key (with the band number mixed in).
fn band_key(sig: &[u64], band: usize, from: usize, to: usize) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ band as u64;
    let mut i = from;
    while i < to {
        let take = (64 - i % 64).min(to - i);
        let bits = (sig[i / 64] >> (i % 64))
            & if take == 64 {
                u64::MAX
            } else {
                (1 << take) - 1
            };
        h = (h ^ bits)
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(29);
        i += take;
    }
    h
}

fn lsh_candidates_from(
    sigs: &[Vec<u64>],
    vecs: &[SparseVec],
    bits: usize,
    bands: usize,
    stats: &mut MatchStats,
) -> Vec<(u32, u32)> {
    let bands = bands.clamp(1, bits);
    let rows = bits / bands;
    let per_band: Vec<Vec<(u32, u32)>> = (0..bands)
        .into_par_iter()
        .map(|band| {
            let (from, to) = (band * rows, (band + 1) * rows);
            let mut keyed: Vec<(u64, u32)> = sigs
                .iter()
                .enumerate()
                .filter(|(d, _)| !vecs[*d].is_empty())
                .map(|(d, s)| (band_key(s, band, from, to), d as u32))
                .collect();
            keyed.sort_unstable();
            let mut out = Vec::new();
            let mut i = 0;
            while i < keyed.len() {
                let mut j = i + 1;
                while j < keyed.len() && keyed[j].0 == keyed[i].0 {
                    j += 1;
                }
                for x in i..j {
                    for y in x + 1..j {
                        out.push((keyed[x].1, keyed[y].1));
                    }
                }
                i = j;
            }
            out
        })
        .collect();
    stats.indexed = bands * sigs.len();
    let mut pairs: Vec<(u32, u32)> = per_band.into_iter().flatten().collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Every pair (a < b) of `vecs` whose similarity is ≥ `threshold` (which must be > 0: two
/// vectors without a shared k-gram have similarity 0 and are never candidates) among the
/// candidates, with its similarity, sorted by (a, b). With `Candidates::Index` this is
/// exactly the brute-force result.
pub fn match_pairs(
    vecs: &[SparseVec],
    sim: Similarity,
    threshold: f64,
    candidates: Candidates,
) -> (Vec<(u32, u32, f64)>, MatchStats) {
    let mut stats = MatchStats {
        documents: vecs.len(),
        empty: vecs.iter().filter(|v| v.is_empty()).count(),
        ..MatchStats::default()
    };
    let cands = match candidates {
        Candidates::Index => index_candidates(vecs, sim.min_cosine(threshold), &mut stats),
        Candidates::Lsh { lsh, bands } => lsh_candidates(vecs, &lsh, bands, &mut stats),
    };
    stats.candidates = cands.len();
    let pairs: Vec<(u32, u32, f64)> = cands
        .par_iter()
        .filter_map(|&(a, b)| {
            let s = similarity(sim, &vecs[a as usize], &vecs[b as usize]);
            (s >= threshold).then_some((a, b, s))
        })
        .collect();
    stats.pairs = pairs.len();
    (pairs, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sig::imatch::SplitMix64;
    use proptest::prelude::*;

    fn sv(e: &[(u64, f32)]) -> SparseVec {
        SparseVec::from_entries(e.to_vec())
    }

    /// Random collections with near-duplicate families: a base vector per family, copies
    /// with some weights perturbed and some k-grams swapped, plus a common "template" part.
    fn collection(seed: u64, families: usize, per: usize, vocab: u64) -> Vec<SparseVec> {
        let mut rng = SplitMix64::new(seed);
        let mut out = Vec::new();
        for _ in 0..families {
            let len = 3 + rng.below(25);
            let base: Vec<(u64, f32)> = (0..len)
                .map(|_| (rng.next_u64() % vocab, 0.1 + (rng.below(100) as f32) / 50.0))
                .collect();
            for _ in 0..per {
                let mut v: Vec<(u64, f32)> = base
                    .iter()
                    .map(|&(h, w)| {
                        let r = rng.below(10);
                        if r == 0 {
                            (rng.next_u64() % vocab, w)
                        } else if r == 1 {
                            (h, w * 1.5)
                        } else {
                            (h, w)
                        }
                    })
                    .collect();
                // Template k-grams every document shares.
                v.push((vocab, 0.3));
                v.push((vocab + 1, 0.2));
                out.push(sv(&v));
            }
        }
        out.push(SparseVec::default());
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn index_candidates_find_exactly_the_brute_force_pairs(
            seed in any::<u64>(),
            families in 1usize..12,
            per in 1usize..5,
            vocab in 20u64..400,
            t in 0.3f64..0.99,
            jaccard in any::<bool>(),
        ) {
            let vecs = collection(seed, families, per, vocab);
            let sim = if jaccard { Similarity::Jaccard } else { Similarity::Cosine };
            let want = brute_force(&vecs, sim, t);
            let (mut got, stats) = match_pairs(&vecs, sim, t, Candidates::Index);
            got.sort_by_key(|p| (p.0, p.1));
            prop_assert_eq!(got, want);
            prop_assert!(stats.candidates >= stats.pairs);
        }
    }

    #[test]
    fn lsh_candidates_find_near_copies() {
        let vecs = collection(5, 40, 3, 5000);
        let t = 0.8;
        let want = brute_force(&vecs, Similarity::Cosine, t);
        let lsh = Lsh::default();
        let bands = auto_bands(lsh.bits, Similarity::Cosine, t);
        assert!((1..=48).contains(&bands), "{bands}");
        let (got, stats) =
            match_pairs(&vecs, Similarity::Cosine, t, Candidates::Lsh { lsh, bands });
        // Every LSH pair is a true pair (exact verification); most true pairs are found.
        assert!(got.iter().all(|p| want.contains(p)));
        assert!(
            got.len() as f64 >= 0.9 * want.len() as f64,
            "{} of {} pairs ({stats:?})",
            got.len(),
            want.len()
        );
        // The same inputs give the same pairs.
        let (again, _) = match_pairs(&vecs, Similarity::Cosine, t, Candidates::Lsh { lsh, bands });
        assert_eq!(got, again);
    }

    #[test]
    fn band_keys_read_only_their_bits() {
        let a = vec![0xFFFF_0000_0000_0000u64, 0x0000_0000_0000_00FF];
        // Bits 48..72: the top 16 of word 0 and the low 8 of word 1.
        let b = vec![0xFFFF_0000_1234_5678u64, 0xABCD_0000_0000_00FF];
        assert_eq!(band_key(&a, 1, 48, 72), band_key(&b, 1, 48, 72));
        let c = vec![0xFFFF_0000_0000_0000u64, 0x0000_0000_0000_00FE];
        assert_ne!(band_key(&a, 1, 48, 72), band_key(&c, 1, 48, 72));
        assert_ne!(band_key(&a, 1, 0, 64), band_key(&a, 2, 0, 64));
    }

    #[test]
    fn empty_vectors_never_match() {
        let vecs = vec![SparseVec::default(), SparseVec::default(), sv(&[(1, 1.0)])];
        let (p, s) = match_pairs(&vecs, Similarity::Cosine, 0.0, Candidates::Index);
        assert!(p.is_empty());
        assert_eq!(s.empty, 2);
    }
}
