//! Cross-validation on the training labels: stratified folds of labeled pairs, F1 at a
//! model's own threshold on pairs it did not see, and the choice of the regularization α by
//! that held-out F1. Owns nothing else; training itself is `learn::andd::train`.
//!
//! Why: with 10–60 labeled documents a fixed α is a knife edge (BENCHMARKS, issue 7): too
//! small and λ chases a few stub pairs, too large and λ stays at TF·IDF. Choosing α by the
//! F1 the model reaches *at its own threshold* on held-out labels also measures whether
//! that threshold carries over, which Max-F1 does not.

use anyhow::{bail, Result};

use crate::learn::andd::{check_label_counts, train, Objective, TrainOptions, TrainPair};
use crate::sig::andd::DocFeatures;
use crate::sig::imatch::SplitMix64;

/// Regularization strengths tried when the caller gives none: from nearly free λ to λ held
/// at the TF·IDF prior.
pub const DEFAULT_L2_GRID: [f64; 5] = [0.01, 0.1, 1.0, 10.0, 100.0];

/// Fold number (0..folds) of every pair, stratified: positives and negatives are each
/// shuffled with `seed` and dealt round-robin, so every fold gets both classes in the
/// proportion of the whole set (as far as counts allow).
pub fn stratified_folds(pairs: &[TrainPair], folds: usize, seed: u64) -> Vec<usize> {
    let folds = folds.max(1);
    let mut out = vec![0; pairs.len()];
    let mut rng = SplitMix64::new(seed);
    for class in [true, false] {
        let mut idx: Vec<usize> = (0..pairs.len())
            .filter(|&i| pairs[i].same == class)
            .collect();
        // Fisher–Yates with the project's deterministic generator.
        for i in (1..idx.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            idx.swap(i, j);
        }
        for (n, &i) in idx.iter().enumerate() {
            out[i] = n % folds;
        }
    }
    out
}

/// Weighted F1 of the prediction "score ≥ threshold" over `(score, same, weight)`; 0 when
/// nothing is predicted or there is no positive.
pub fn f1_at(scored: &[(f64, bool, f64)], threshold: f64) -> f64 {
    let (mut tp, mut fp, mut fneg) = (0.0, 0.0, 0.0);
    for &(s, same, w) in scored {
        match (s >= threshold, same) {
            (true, true) => tp += w,
            (true, false) => fp += w,
            (false, true) => fneg += w,
            (false, false) => {}
        }
    }
    if tp <= 0.0 {
        return 0.0;
    }
    2.0 * tp / (2.0 * tp + fp + fneg)
}

/// The outcome of choosing α.
#[derive(Debug, Clone, PartialEq)]
pub struct L2Choice {
    pub l2: f64,
    /// (α, mean held-out F1 at each fold model's own threshold) for every α tried.
    pub scores: Vec<(f64, f64)>,
}

/// Chooses α from `grid` by `folds`-fold cross-validation on `pairs`: for each α, train on
/// all folds but one and measure F1 at that model's threshold on the left-out fold; the α
/// with the best mean wins, ties going to the larger α (closer to the prior, the safer
/// model with few labels). Errors when a training fold lacks labels of either class.
pub fn choose_l2(
    docs: &[DocFeatures],
    pairs: &[TrainPair],
    opts: &TrainOptions,
    grid: &[f64],
    folds: usize,
) -> Result<L2Choice> {
    if grid.is_empty() {
        bail!("no regularization strengths to choose from");
    }
    if folds < 2 {
        bail!("cross-validation needs at least 2 folds, got {folds}");
    }
    check_label_counts(pairs)?;
    let fold = stratified_folds(pairs, folds, opts.seed);
    let mut scores = Vec::with_capacity(grid.len());
    for &l2 in grid {
        let o = TrainOptions { l2, ..opts.clone() };
        let mut sum = 0.0;
        for f in 0..folds {
            let (held, fit): (Vec<TrainPair>, Vec<TrainPair>) =
                pairs
                    .iter()
                    .enumerate()
                    .fold((vec![], vec![]), |mut acc, (i, p)| {
                        if fold[i] == f {
                            acc.0.push(*p);
                        } else {
                            acc.1.push(*p);
                        }
                        acc
                    });
            let model = train(docs, &fit, &o, "", |_, _| {})?;
            let sims = Objective::new(docs, &held, &o).similarities(&model.lambda);
            let scored: Vec<(f64, bool, f64)> = sims
                .iter()
                .zip(&held)
                .map(|(&s, p)| (s, p.same, p.weight))
                .collect();
            sum += f1_at(&scored, model.threshold);
        }
        scores.push((l2, sum / folds as f64));
    }
    let mut best = scores[0];
    for &s in &scores[1..] {
        if s.1 >= best.1 {
            best = s;
        }
    }
    Ok(L2Choice { l2: best.0, scores })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_are_stratified_and_deterministic() {
        let pairs: Vec<TrainPair> = (0..23)
            .map(|i| TrainPair::new(i, i + 1, i % 3 == 0))
            .collect();
        let f = stratified_folds(&pairs, 4, 7);
        assert_eq!(f, stratified_folds(&pairs, 4, 7));
        for k in 0..4 {
            let pos = (0..23).filter(|&i| f[i] == k && pairs[i].same).count();
            let neg = (0..23).filter(|&i| f[i] == k && !pairs[i].same).count();
            // 8 positives and 15 negatives dealt over 4 folds.
            assert!((1..=2).contains(&pos), "fold {k}: {pos} positives");
            assert!((3..=4).contains(&neg), "fold {k}: {neg} negatives");
        }
    }

    #[test]
    fn f1_at_counts_weights_and_threshold() {
        let s = [
            (0.9, true, 1.0),
            (0.8, false, 2.0),
            (0.4, true, 1.0),
            (0.1, false, 5.0),
        ];
        // ≥ 0.5: tp 1, fp 2, fn 1 → 2/(2+2+1).
        assert!((f1_at(&s, 0.5) - 0.4).abs() < 1e-12);
        // ≥ 0.3: tp 2, fp 2 → 4/6.
        assert!((f1_at(&s, 0.3) - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(f1_at(&s, 0.95), 0.0);
    }

    #[test]
    fn choose_l2_rejects_bad_grids() {
        let pairs: Vec<TrainPair> = (0..12)
            .map(|i| TrainPair::new(i, i + 1, i % 2 == 0))
            .collect();
        let o = TrainOptions::default();
        assert!(choose_l2(&[], &pairs, &o, &[], 3).is_err());
        assert!(choose_l2(&[], &pairs, &o, &[1.0], 1).is_err());
    }

    /// Documents 2i and 2i+1 are copies of each other (same terms and features); documents of
    /// different copies draw terms from disjoint-ish random sets.
    fn copied_docs(n_copies: usize, nf: usize, seed: u64) -> Vec<DocFeatures> {
        let mut rng = SplitMix64::new(seed);
        let mut u = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut docs = Vec::new();
        for _ in 0..n_copies {
            let mut hashes: Vec<u64> = (0..30).map(|_| (u() * 500.0) as u64).collect();
            hashes.sort_unstable();
            hashes.dedup();
            let x: Vec<f64> = (0..hashes.len() * nf)
                .map(|i| if i % nf == 0 { 1.0 } else { u() })
                .collect();
            let d = DocFeatures { nf, hashes, x };
            docs.push(d.clone());
            docs.push(d);
        }
        docs
    }

    #[test]
    fn choose_l2_separates_copies_from_strangers() {
        let o = TrainOptions {
            k: 1,
            max_iters: 20,
            ..TrainOptions::default()
        };
        let docs = copied_docs(12, crate::sig::andd::n_features(o.k), 3);
        let pairs: Vec<TrainPair> = (0..12)
            .map(|i| TrainPair::new(2 * i, 2 * i + 1, true))
            .chain((0..11).map(|i| TrainPair::new(2 * i, 2 * i + 3, false)))
            .collect();
        let grid = [0.1, 10.0];
        let c = choose_l2(&docs, &pairs, &o, &grid, 3).expect("enough labels in every fold");
        assert!(grid.contains(&c.l2));
        assert_eq!(c.scores.len(), grid.len());
        // Copies have similarity 1 and strangers share few terms: every held-out fold is
        // separated at the fold model's own threshold.
        let best = c.scores.iter().map(|s| s.1).fold(0.0, f64::max);
        assert!(best > 0.9, "{:?}", c.scores);
    }
}
