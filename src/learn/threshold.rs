//! Where ANDD's detection threshold comes from when `detect` is given none (issue 20): the
//! threshold chosen on the training pairs does not carry over between families (a family
//! whose copies are identical up to a few words asks for 0.999, another family's best is
//! 0.97), so by default it is chosen on the *target collection's own* pair scores, without
//! labels: transductive, unsupervised.
//!
//! The rule ([`collection_threshold`]): the scores of every pair at or above a floor
//! ([`COLLECTION_FLOOR`]) are fitted by a two-component mixture on [floor, 1] — "different"
//! pairs as an exponential decaying up from the floor, "near-duplicate" pairs as an
//! exponential decaying down from 1 (most copies score close to 1, fewer further down) —
//! by EM; the threshold is the one that maximizes the F1 *expected* under the fit
//! (expected true positives above t = the sum of the pairs' posterior probabilities of
//! being copies). Identical texts (score 1 up to rounding) are copies for certain and are
//! left out of the fit (they would shrink the copy component onto themselves: on
//! qtbase5-doc 777 of 1,200 gold pairs score 1, and the fit then called every edited copy
//! "different"); the copy component's scale is kept at least [`MIN_COPY_SCALE`] for the
//! same reason. With no copy component (a collection without copies) it returns None and
//! the caller keeps the model's threshold. Pure; `detect::andd` calls it on the pairs it
//! found. Scoring every pair down to the floor costs ~60× the candidates of matching at a
//! doc family's threshold (linux-doc-6.1, 6,372 pages: 5.9 M against 99 k, 30–40 s against
//! 0.5–0.8 s), and the count grows with the square of the collection, so on a collection of
//! more than [`FIT_DOCUMENTS`] matchable documents the fit sees only the pairs among a seeded
//! random subset of that many ([`fit_subset`]): copies and other pairs both survive in a
//! subset with probability (m/n)², so the mixture's shares are kept. Floor and minimum scale were chosen on the training families' pairs (BENCHMARKS,
//! issue 20 session 5).

use crate::sig::imatch::SplitMix64;

/// The fitted mixture and the threshold it gives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixtureFit {
    /// Share of the pairs (≥ floor) that are copies under the fit (identical ones included).
    pub copies: f64,
    /// Scale of the near-duplicate component's decay from 1.
    pub copy_scale: f64,
    /// Scale of the other component's decay from the floor.
    pub other_scale: f64,
    /// The threshold with the highest expected F1 under the fit.
    pub threshold: f64,
    /// That expected F1.
    pub expected_f1: f64,
    /// EM iterations run.
    pub iterations: usize,
}

/// Fewest pairs a mixture is fitted to.
pub const MIN_PAIRS: usize = 20;

/// Pairs below this similarity are not fitted (nor listed by `detect` for the fit).
pub const COLLECTION_FLOOR: f64 = 0.3;

/// Smallest scale of the copy component's decay from 1.
pub const MIN_COPY_SCALE: f64 = 0.01;

/// Scores at or above this are identical texts (cosine of a vector with itself, rounded).
pub const IDENTICAL: f64 = 1.0 - 1e-6;

/// Most documents whose pairs the fit scores (see the module header).
pub const FIT_DOCUMENTS: usize = 2_500;

/// Seed of the fit's document subset (fixed: the same collection gives the same threshold).
pub const FIT_SEED: u64 = 0x7468_7265_7368;

/// The documents (indices into `matchable`) whose pairs the fit scores: all of them up to
/// `max`, else a seeded uniform subset of `max`, in ascending order.
pub fn fit_subset(matchable: &[usize], max: usize, seed: u64) -> Vec<usize> {
    if matchable.len() <= max {
        return matchable.to_vec();
    }
    let mut rng = SplitMix64::new(seed);
    let mut v = matchable.to_vec();
    // Partial Fisher–Yates: the first `max` are a uniform subset.
    for i in 0..max {
        let j = i + rng.below(v.len() - i);
        v.swap(i, j);
    }
    v.truncate(max);
    v.sort_unstable();
    v
}

/// Largest scale of a component (beyond it the component is as good as flat).
const MAX_SCALE: f64 = 1e3;

/// Mean of an exponential of scale `b` truncated to [0, l].
fn truncated_mean(b: f64, l: f64) -> f64 {
    let r = l / b;
    if r < 1e-6 {
        return l / 2.0;
    }
    b - l / r.exp_m1()
}

/// The scale whose truncated mean on [0, l] is `m` (bisection; the mean rises with the
/// scale from 0 to l/2).
fn scale_for_mean(m: f64, l: f64) -> f64 {
    if m >= l / 2.0 * (1.0 - 1e-9) {
        return MAX_SCALE;
    }
    let (mut lo, mut hi) = (1e-9f64, MAX_SCALE);
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if truncated_mean(mid, l) < m {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi / lo < 1.0 + 1e-12 {
            break;
        }
    }
    (lo * hi).sqrt()
}

/// ln of the density at distance `d` of an exponential of scale `b` truncated to [0, l].
fn ln_density(d: f64, b: f64, l: f64) -> f64 {
    let r = l / b;
    // normalizer b·(1 − e^{−l/b})
    let norm = if r < 1e-9 { l } else { -b * (-r).exp_m1() };
    -d / b - norm.ln()
}

/// One EM fit of the mixture to the non-identical scores `x` (all in [floor, 1)).
struct Em {
    /// Posterior probability of each score being a copy.
    r: Vec<f64>,
    /// Copy and other scales.
    bc: f64,
    bo: f64,
    /// Log-likelihood at the last E step.
    ll: f64,
    iterations: usize,
}

/// EM for the mixture from copy scale `bc0`, other scale l/5 and a copy share of 0.1.
fn em(x: &[f64], floor: f64, bc0: f64) -> Em {
    let l = 1.0 - floor;
    let n = x.len() as f64;
    let mut pi = 0.1f64;
    let (mut bc, mut bo) = (bc0, l / 5.0);
    let mut r = vec![0.0f64; x.len()];
    let mut iterations = 0;
    let mut ll = 0.0;
    if !x.is_empty() {
        let mut last = f64::NEG_INFINITY;
        for it in 0..500 {
            iterations = it + 1;
            // E step (log-space).
            ll = 0.0;
            for (ri, &s) in r.iter_mut().zip(x) {
                let a = pi.ln() + ln_density(1.0 - s, bc, l);
                let b = (1.0 - pi).ln() + ln_density(s - floor, bo, l);
                let m = a.max(b);
                let z = m + ((a - m).exp() + (b - m).exp()).ln();
                *ri = (a - z).exp();
                ll += z;
            }
            // M step.
            let w: f64 = r.iter().sum();
            pi = (w / n).clamp(1e-9, 1.0 - 1e-9);
            let mc = r.iter().zip(x).map(|(ri, s)| ri * (1.0 - s)).sum::<f64>() / w.max(1e-12);
            let mo = r
                .iter()
                .zip(x)
                .map(|(ri, s)| (1.0 - ri) * (s - floor))
                .sum::<f64>()
                / (n - w).max(1e-12);
            bc = scale_for_mean(mc.max(1e-9), l).max(MIN_COPY_SCALE);
            bo = scale_for_mean(mo.max(1e-9), l);
            if (ll - last).abs() < 1e-9 * ll.abs().max(1.0) {
                break;
            }
            last = ll;
        }
    }
    Em {
        r,
        bc,
        bo,
        ll,
        iterations,
    }
}

/// The collection threshold: a two-exponential mixture fitted to the `scores` in [floor,
/// 1] and the threshold of highest expected F1 under it (see the module header). None
/// with fewer than [`MIN_PAIRS`] scores at or above the floor, or when the fit finds no
/// copy component (its share below one pair).
pub fn collection_threshold(scores: &[f64], floor: f64) -> Option<MixtureFit> {
    if !(0.0..1.0).contains(&floor) {
        return None;
    }
    let mut all: Vec<f64> = scores
        .iter()
        .copied()
        .filter(|s| s.is_finite() && *s >= floor)
        .map(|s| s.min(1.0))
        .collect();
    if all.len() < MIN_PAIRS {
        return None;
    }
    all.sort_by(|a, b| b.total_cmp(a));
    let identical = all.iter().take_while(|&&s| s >= IDENTICAL).count();
    let x = &all[identical..];
    let l = 1.0 - floor;
    // EM from two starting copy scales, the fit of higher likelihood kept: from l/20 alone
    // EM can end in a local optimum with a flat copy component (linux-doc-6.1, 6,372
    // pages: log-likelihood 14,011 against 14,030 from 0.01, cut at 1.000 against 0.990).
    let fits = [(l / 20.0).max(MIN_COPY_SCALE), MIN_COPY_SCALE].map(|bc0| em(x, floor, bc0));
    // `fits` is not empty, so `reduce` gives Some.
    let Em {
        r,
        bc,
        bo,
        iterations,
        ..
    } = fits
        .into_iter()
        .reduce(|best, f| if f.ll > best.ll { f } else { best })?;
    // Identical pairs are copies (posterior 1), then the fitted ones.
    let post: Vec<f64> = std::iter::repeat_n(1.0, identical)
        .chain(r.iter().copied())
        .collect();
    let positives: f64 = post.iter().sum();
    if positives < 1.0 {
        return None;
    }
    // Expected F1 of each cut between distinct scores (`all` is sorted descending).
    let (mut tp, mut best) = (0.0, (0.0f64, 1.0f64));
    let mut i = 0;
    while i < all.len() {
        let s = all[i];
        while i < all.len() && all[i] == s {
            tp += post[i];
            i += 1;
        }
        let f1 = 2.0 * tp / (i as f64 + positives);
        if f1 > best.0 {
            let next = all.get(i).copied().unwrap_or(floor);
            best = (f1, (s + next) / 2.0);
        }
    }
    Some(MixtureFit {
        copies: positives / all.len() as f64,
        copy_scale: bc,
        other_scale: bo,
        threshold: best.1,
        expected_f1: best.0,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_subset_is_all_documents_up_to_the_cap_else_a_seeded_sorted_sample() {
        let m: Vec<usize> = (0..100).map(|i| i * 3).collect();
        assert_eq!(fit_subset(&m, 100, 1), m);
        let a = fit_subset(&m, 40, 1);
        assert_eq!(a.len(), 40);
        assert!(a.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        assert!(a.iter().all(|x| m.contains(x)));
        assert_eq!(a, fit_subset(&m, 40, 1), "seeded");
        assert_ne!(a, fit_subset(&m, 40, 2));
    }

    fn unit(rng: &mut SplitMix64) -> f64 {
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponential of scale b truncated to [0, l] by inversion.
    fn draw(rng: &mut SplitMix64, b: f64, l: f64) -> f64 {
        let u = unit(rng);
        -b * (1.0 - u * (1.0 - (-l / b).exp())).ln()
    }

    #[test]
    fn the_truncated_mean_inverts() {
        for &(b, l) in &[(0.01, 0.5), (0.1, 0.5), (0.3, 0.8), (2.0, 0.5)] {
            let m = truncated_mean(b, l);
            assert!(m > 0.0 && m < l / 2.0);
            assert!((scale_for_mean(m, l) - b).abs() / b < 1e-6, "{b} {l}");
        }
        assert_eq!(scale_for_mean(0.3, 0.5), MAX_SCALE);
    }

    #[test]
    fn a_mixture_of_copies_and_others_is_split_near_the_bayes_cut() {
        let mut rng = SplitMix64::new(7);
        let floor = 0.5;
        let mut scores = Vec::new();
        let mut truth = Vec::new();
        for _ in 0..400 {
            scores.push(1.0 - draw(&mut rng, 0.02, 0.5));
            truth.push(true);
        }
        for _ in 0..4000 {
            scores.push(floor + draw(&mut rng, 0.08, 0.5));
            truth.push(false);
        }
        let fit = collection_threshold(&scores, floor).unwrap();
        assert!((fit.copies - 400.0 / 4400.0).abs() < 0.02, "{fit:?}");
        // The F1 at the fitted threshold is within 0.02 of the best F1 on the truth.
        let f1_at = |t: f64| {
            let tp = scores
                .iter()
                .zip(&truth)
                .filter(|(s, y)| **s >= t && **y)
                .count() as f64;
            let pred = scores.iter().filter(|s| **s >= t).count() as f64;
            2.0 * tp / (pred + 400.0)
        };
        let best = (500..1000)
            .map(|i| f1_at(i as f64 / 1000.0))
            .fold(0.0, f64::max);
        assert!(f1_at(fit.threshold) > best - 0.02, "{fit:?} {best}");
        assert!(fit.threshold > 0.75 && fit.threshold < 0.98, "{fit:?}");
    }

    #[test]
    fn identical_copies_do_not_pull_the_threshold_to_one() {
        // 300 identical pairs, 100 edited copies around 0.97, 3000 others from the floor.
        let mut rng = SplitMix64::new(11);
        let floor = COLLECTION_FLOOR;
        let mut scores = vec![1.0; 300];
        scores.extend((0..100).map(|_| 1.0 - draw(&mut rng, 0.03, 0.7)));
        scores.extend((0..3000).map(|_| floor + draw(&mut rng, 0.1, 0.7)));
        let fit = collection_threshold(&scores, floor).unwrap();
        assert!(fit.threshold < 0.95, "{fit:?}");
        assert!(fit.threshold > 0.7, "{fit:?}");
        assert!(fit.copy_scale >= MIN_COPY_SCALE);
    }

    #[test]
    fn the_fit_of_higher_likelihood_of_the_two_starts_is_kept() {
        // (The flat-copy-component optimum of linux-doc-6.1 was not reproduced by a
        // simulated mixture; BENCHMARKS issue 20 session 5 §4 measures it. Here: whichever
        // start wins, the kept fit is the more likely one, and it is a fixed point.)
        let mut rng = SplitMix64::new(5);
        let floor = COLLECTION_FLOOR;
        let l = 1.0 - floor;
        let mut scores = vec![1.0; 300];
        scores.extend((0..3000).map(|_| floor + draw(&mut rng, 0.157, l)));
        scores.extend((0..100).map(|_| 0.9 + 0.08 * unit(&mut rng)));
        scores.extend((0..45).map(|_| 1.0 - 1e-5 - draw(&mut rng, 0.002, l)));
        let mut x: Vec<f64> = scores.iter().copied().filter(|s| *s < IDENTICAL).collect();
        x.sort_by(|a, b| b.total_cmp(a));
        let starts = [em(&x, floor, l / 20.0), em(&x, floor, MIN_COPY_SCALE)];
        let best = if starts[1].ll > starts[0].ll {
            &starts[1]
        } else {
            &starts[0]
        };
        let fit = collection_threshold(&scores, floor).unwrap();
        assert_eq!(fit.copy_scale, best.bc);
        assert_eq!(fit.other_scale, best.bo);
        assert!(starts.iter().all(|f| f.ll <= best.ll));
        // Started where it ended, EM stays (up to its tolerance).
        let again = em(&x, floor, best.bc);
        assert!(
            (again.ll - best.ll).abs() < 1e-6 * best.ll.abs(),
            "{} {}",
            again.ll,
            best.ll
        );
    }

    #[test]
    fn too_few_pairs_or_a_bad_floor_give_none() {
        assert_eq!(collection_threshold(&[0.9; 5], 0.5), None);
        assert_eq!(collection_threshold(&[0.9; 50], 1.0), None);
        assert_eq!(collection_threshold(&[f64::NAN; 50], 0.5), None);
    }
}
