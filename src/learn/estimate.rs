//! Estimates over the whole collection from a labeled stratified sample of pairs
//! (`model::sample`): the number of true pairs, and each run's true positives, precision,
//! recall and F1, with 95% intervals.
//!
//! Method (what a methods section can state):
//! - True pairs: the stratified estimator T̂ = Σₕ Nₕ·p̂ₕ (Nₕ pairs in stratum h, p̂ₕ the
//!   fraction of its labeled sample pairs labeled "same").
//! - A run's true positives: a post-stratified ratio estimator TP̂ = Σₕ Nₕᵣ·q̂ₕᵣ, where Nₕᵣ
//!   (the run's pairs in stratum h) is known exactly and q̂ₕᵣ is the fraction "same" among
//!   the labeled sample pairs of h the run also proposed; when none of the run's pairs in h
//!   was drawn, the run's own "same" rate over every stratum's draws (not p̂ₕ: a run's few
//!   pairs in a low stratum are far likelier copies than the candidates around them).
//!   Precision = TP̂ / (the run's pairs, exact), recall = TP̂ / T̂ (at most 1),
//!   F1 = 2·TP̂ / (pairs + T̂).
//! - Intervals: a stratified Bayesian bootstrap. Within each stratum the labeled pairs fall
//!   in cells (label × which runs proposed the pair); each replicate draws the cells'
//!   shares from a Dirichlet posterior, independently per stratum, and recomputes every
//!   quantity; the 2.5% and 97.5% percentiles of [`REPLICATES`] replicates (fixed seed) are
//!   the interval, F1 included. The candidate strata get Jeffreys' prior (½ on "same" and on
//!   "different" of every observed run pattern), so a stratum whose sample is all one label
//!   still has an interval (a plain bootstrap gives it none: a run that was right on all 60
//!   sampled pairs got [0.9991, 0.9992] on ci-dd while its true precision was 0.983). The
//!   random stratum gets no prior (½ a positive over millions of pairs would swamp every
//!   recall interval), so its interval is the sampling variation of what was seen.
//! - A stratum whose sample holds no positive contributes 0 to T̂; for it the exact
//!   one-sided 95% upper bound on its true pairs, Nₕ·(1 − 0.05^(1/nₕ)), is reported beside
//!   the interval.
//!
//! Unlabeled, unsure and unresolved sample pairs are left out (treated as missing at
//! random within their stratum).

use serde::Serialize;

use crate::sig::imatch::SplitMix64;

/// Bootstrap replicates.
pub const REPLICATES: usize = 2000;

/// Seed of the bootstrap (fixed: the same labels give the same intervals).
pub const BOOTSTRAP_SEED: u64 = 0x5A3F_1E00_0000_0020;

/// The method as one sentence, for tables and the report.
pub const METHOD: &str = "stratified estimators (post-stratified ratio estimator for each \
run's true positives) with 95% stratified Bayesian-bootstrap percentile intervals (Dirichlet \
posterior per stratum, Jeffreys prior on candidate strata, 2000 replicates)";

/// A labeled sample pair: its stratum, its label, and which runs proposed it.
#[derive(Debug, Clone, PartialEq)]
pub struct LabeledPair {
    pub stratum: usize,
    pub same: bool,
    /// Parallel to the runs of [`EstimateInput::run_counts`].
    pub in_run: Vec<bool>,
    /// Whether any detector run proposed it.
    pub in_any: bool,
}

/// What the estimates are made from.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateInput {
    /// Pairs of the collection per stratum.
    pub populations: Vec<u64>,
    /// Per run: its pairs in each stratum.
    pub run_counts: Vec<Vec<u64>>,
    /// Per stratum: pairs any run proposed.
    pub any_counts: Vec<u64>,
    pub labeled: Vec<LabeledPair>,
    /// Per stratum: the Dirichlet prior on each cell (see the module notes); missing: 0.
    pub prior: Vec<f64>,
}

/// A point estimate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    pub fn contains(&self, x: f64) -> bool {
        self.low - 1e-9 <= x && x <= self.high + 1e-9
    }
}

/// One run's estimates (None where undefined: precision of a run without pairs, recall
/// when no true pair is estimated).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunEstimate {
    pub predicted: u64,
    pub true_positives: Interval,
    pub precision: Option<Interval>,
    pub recall: Option<Interval>,
    pub f1: Option<Interval>,
}

/// Labeled sample counts of one stratum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StratumCounts {
    pub population: u64,
    pub labeled: u64,
    pub same: u64,
    /// With no positive in the sample: the exact one-sided 95% upper bound on its true pairs.
    pub upper_if_none: Option<f64>,
}

/// Every estimate of one labeled sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimates {
    pub true_pairs: Interval,
    /// True pairs no detector run proposed.
    pub unfound: Interval,
    pub runs: Vec<RunEstimate>,
    pub strata: Vec<StratumCounts>,
    pub method: &'static str,
    pub replicates: usize,
}

/// The quantities of one (re)sample: T, each run's TP, and TP of all runs together.
struct Point {
    total: f64,
    tp: Vec<f64>,
    tp_any: f64,
}

/// One labeled pair with its weight in a (re)sample.
type Weighted<'a> = (&'a LabeledPair, f64);

/// The weight and the "same" weight of the pairs `proposed` takes among `pairs`.
fn proposed_weights(pairs: &[Weighted], proposed: &dyn Fn(&LabeledPair) -> bool) -> (f64, f64) {
    pairs.iter().fold((0.0, 0.0), |(k, s), &(x, w)| {
        if proposed(x) {
            (k + w, s + if x.same { w } else { 0.0 })
        } else {
            (k, s)
        }
    })
}

fn compute(input: &EstimateInput, groups: &[Vec<Weighted>]) -> Point {
    let runs = input.run_counts.len();
    let mut total = 0.0;
    let mut tp = vec![0.0; runs];
    let mut tp_any = 0.0;
    // A run's "same" rate over every stratum's draws: what a stratum in which none of the
    // run's pairs was drawn falls back to. (The stratum's own rate is the wrong fallback: in
    // a low-similarity stratum the run's few pairs are far likelier copies than the random
    // candidates around them, and using it biased precision low on news.)
    let pooled = |proposed: &dyn Fn(&LabeledPair) -> bool| {
        let (k, s) = groups
            .iter()
            .map(|g| proposed_weights(g, proposed))
            .fold((0.0, 0.0), |(k, s), (a, b)| (k + a, s + b));
        (k > 0.0).then(|| s / k)
    };
    let pooled_run: Vec<Option<f64>> = (0..runs)
        .map(|r| pooled(&|x: &LabeledPair| x.in_run[r]))
        .collect();
    let pooled_any = pooled(&|x: &LabeledPair| x.in_any);
    for (h, g) in groups.iter().enumerate() {
        let n: f64 = g.iter().map(|x| x.1).sum();
        let same: f64 = g.iter().filter(|x| x.0.same).map(|x| x.1).sum();
        let p = if n > 0.0 { same / n } else { 0.0 };
        total += input.populations[h] as f64 * p;
        let fraction = |proposed: &dyn Fn(&LabeledPair) -> bool, fallback: Option<f64>| {
            let (k, s) = proposed_weights(g, proposed);
            if k > 0.0 {
                s / k
            } else {
                fallback.unwrap_or(p)
            }
        };
        for (r, slot) in tp.iter_mut().enumerate() {
            let count = input.run_counts[r].get(h).copied().unwrap_or(0);
            if count > 0 {
                *slot += count as f64 * fraction(&|x: &LabeledPair| x.in_run[r], pooled_run[r]);
            }
        }
        let any = input.any_counts.get(h).copied().unwrap_or(0);
        if any > 0 {
            tp_any += any as f64 * fraction(&|x: &LabeledPair| x.in_any, pooled_any);
        }
    }
    Point { total, tp, tp_any }
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut SplitMix64) -> f64 {
    let u1 = ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// A Gamma(shape, 1) draw (Marsaglia–Tsang; shape < 1 by the boost U^(1/shape)).
fn gamma(shape: f64, rng: &mut SplitMix64) -> f64 {
    if shape <= 0.0 {
        return 0.0;
    }
    if shape < 1.0 {
        let u = ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        return gamma(shape + 1.0, rng) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// The cells of one stratum: one representative pair per (label, run pattern), with the
/// count observed, plus the unobserved label of every observed run pattern (count 0), so
/// a prior can give it weight.
fn cells(g: &[&LabeledPair]) -> Vec<(LabeledPair, f64)> {
    let mut out: Vec<(LabeledPair, f64)> = Vec::new();
    for p in g {
        match out.iter_mut().find(|(c, _)| c == *p) {
            Some(c) => c.1 += 1.0,
            None => out.push(((*p).clone(), 1.0)),
        }
    }
    let observed: Vec<LabeledPair> = out.iter().map(|c| c.0.clone()).collect();
    for p in observed {
        let flipped = LabeledPair { same: !p.same, ..p };
        if !out.iter().any(|(c, _)| *c == flipped) {
            out.push((flipped, 0.0));
        }
    }
    out
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn interval(estimate: f64, mut reps: Vec<f64>) -> Interval {
    reps.retain(|x| x.is_finite());
    reps.sort_by(f64::total_cmp);
    Interval {
        estimate,
        low: percentile(&reps, 0.025).min(estimate),
        high: percentile(&reps, 0.975).max(estimate),
    }
}

fn precision(tp: f64, predicted: u64) -> f64 {
    if predicted == 0 {
        f64::NAN
    } else {
        tp / predicted as f64
    }
}

fn recall(tp: f64, total: f64) -> f64 {
    if total <= 0.0 {
        f64::NAN
    } else {
        (tp / total).min(1.0)
    }
}

fn f1(tp: f64, predicted: u64, total: f64) -> f64 {
    let d = predicted as f64 + total;
    if d <= 0.0 {
        f64::NAN
    } else {
        (2.0 * tp / d).min(1.0)
    }
}

fn defined(i: Interval) -> Option<Interval> {
    i.estimate.is_finite().then_some(i)
}

/// The estimates with their intervals (see the module notes for the method).
pub fn estimate(input: &EstimateInput) -> Estimates {
    let strata = input.populations.len();
    let mut groups: Vec<Vec<&LabeledPair>> = vec![Vec::new(); strata];
    for p in &input.labeled {
        if p.stratum < strata {
            groups[p.stratum].push(p);
        }
    }
    let weighted: Vec<Vec<Weighted>> = groups
        .iter()
        .map(|g| g.iter().map(|&p| (p, 1.0)).collect())
        .collect();
    let point = compute(input, &weighted);
    let runs = input.run_counts.len();
    let predicted: Vec<u64> = input.run_counts.iter().map(|c| c.iter().sum()).collect();
    let cell_sets: Vec<Vec<(LabeledPair, f64)>> = groups.iter().map(|g| cells(g)).collect();
    let mut rng = SplitMix64::new(BOOTSTRAP_SEED);
    let mut reps_total = Vec::with_capacity(REPLICATES);
    let mut reps_unfound = Vec::with_capacity(REPLICATES);
    let mut reps: Vec<[Vec<f64>; 4]> = (0..runs).map(|_| Default::default()).collect();
    for _ in 0..REPLICATES {
        let drawn: Vec<Vec<Weighted>> = cell_sets
            .iter()
            .enumerate()
            .map(|(h, cs)| {
                let prior = input.prior.get(h).copied().unwrap_or(0.0);
                cs.iter()
                    .map(|(c, n)| (c, gamma(n + prior, &mut rng)))
                    .collect()
            })
            .collect();
        let p = compute(input, &drawn);
        reps_total.push(p.total);
        reps_unfound.push((p.total - p.tp_any).max(0.0));
        for r in 0..runs {
            reps[r][0].push(p.tp[r]);
            reps[r][1].push(precision(p.tp[r], predicted[r]));
            reps[r][2].push(recall(p.tp[r], p.total));
            reps[r][3].push(f1(p.tp[r], predicted[r], p.total));
        }
    }
    let run_estimates = reps
        .into_iter()
        .enumerate()
        .map(|(r, [tp, pr, re, f])| {
            let t = point.tp[r];
            RunEstimate {
                predicted: predicted[r],
                true_positives: interval(t, tp),
                precision: defined(interval(precision(t, predicted[r]), pr)),
                recall: defined(interval(recall(t, point.total), re)),
                f1: defined(interval(f1(t, predicted[r], point.total), f)),
            }
        })
        .collect();
    let counts = groups
        .iter()
        .enumerate()
        .map(|(h, g)| {
            let same = g.iter().filter(|p| p.same).count() as u64;
            let n = g.len() as u64;
            StratumCounts {
                population: input.populations[h],
                labeled: n,
                same,
                upper_if_none: (same == 0 && n > 0)
                    .then(|| input.populations[h] as f64 * (1.0 - 0.05f64.powf(1.0 / n as f64))),
            }
        })
        .collect();
    Estimates {
        true_pairs: interval(point.total, reps_total),
        unfound: interval((point.total - point.tp_any).max(0.0), reps_unfound),
        runs: run_estimates,
        strata: counts,
        method: METHOD,
        replicates: REPLICATES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(stratum: usize, same: bool, in_run: bool) -> LabeledPair {
        LabeledPair {
            stratum,
            same,
            in_run: vec![in_run],
            in_any: in_run,
        }
    }

    #[test]
    fn a_fully_labeled_population_gives_the_exact_values() {
        // Stratum 0: 4 pairs, all proposed, 3 same; stratum 1: 2 pairs, none proposed,
        // 1 same. Every pair labeled: T = 4, TP = 3, P = 3/4, R = 3/4.
        let labeled = vec![
            pair(0, true, true),
            pair(0, true, true),
            pair(0, true, true),
            pair(0, false, true),
            pair(1, true, false),
            pair(1, false, false),
        ];
        let e = estimate(&EstimateInput {
            populations: vec![4, 2],
            run_counts: vec![vec![4, 0]],
            any_counts: vec![4, 0],
            labeled,
            prior: vec![0.0, 0.0],
        });
        assert!((e.true_pairs.estimate - 4.0).abs() < 1e-12);
        let r = &e.runs[0];
        assert!((r.precision.unwrap().estimate - 0.75).abs() < 1e-12);
        assert!((r.recall.unwrap().estimate - 0.75).abs() < 1e-12);
        assert!((e.unfound.estimate - 1.0).abs() < 1e-12);
        assert!(r.recall.unwrap().contains(0.75));
        assert_eq!(e.strata[1].upper_if_none, None);
    }

    #[test]
    fn stratum_weights_scale_the_sample_up_and_the_interval_covers_the_truth() {
        // Stratum 0: 1000 pairs, the run proposes all, 80% same; sample 100 of them.
        // Stratum 1: 100 000 pairs, none proposed, 0.2% same (200 pairs); sample 500.
        let mut labeled = Vec::new();
        for i in 0..100 {
            labeled.push(pair(0, i % 5 != 0, true));
        }
        for i in 0..500 {
            labeled.push(pair(1, i == 0, false));
        }
        let e = estimate(&EstimateInput {
            populations: vec![1000, 100_000],
            run_counts: vec![vec![1000, 0]],
            any_counts: vec![1000, 0],
            labeled,
            prior: vec![0.5, 0.0],
        });
        assert!((e.runs[0].precision.unwrap().estimate - 0.8).abs() < 1e-12);
        assert!(
            (e.true_pairs.estimate - 1000.0).abs() < 1e-9,
            "{:?}",
            e.true_pairs
        );
        let recall = e.runs[0].recall.unwrap();
        assert!(recall.contains(800.0 / 1000.0));
        assert!(recall.low < recall.estimate && recall.estimate < recall.high);
        assert!(e.unfound.contains(200.0));
    }

    #[test]
    fn a_stratum_where_none_of_a_runs_pairs_was_drawn_takes_the_runs_own_rate() {
        // Stratum 0: 100 pairs, all the run's, 90% same, all labeled. Stratum 1: 10,000
        // candidates, 1% same, 10 of them the run's, none of those drawn among 100 labeled.
        // The run's 10 pairs there count at its own rate (0.9), not at the stratum's (~0.01):
        // TP = 90 + 9 of 110 predicted.
        let mut labeled = Vec::new();
        for i in 0..100 {
            labeled.push(pair(0, i % 10 != 0, true));
        }
        for i in 0..100 {
            labeled.push(pair(1, i == 0, false));
        }
        let e = estimate(&EstimateInput {
            populations: vec![100, 10_000],
            run_counts: vec![vec![100, 10]],
            any_counts: vec![100, 10],
            labeled,
            prior: vec![0.0, 0.0],
        });
        let p = e.runs[0].precision.unwrap();
        assert!((p.estimate - 99.0 / 110.0).abs() < 1e-9, "{p:?}");
    }

    #[test]
    fn a_stratum_sampled_all_same_still_has_an_interval_under_the_prior() {
        // 60 sampled pairs of a run, all same, in a stratum of 2000: a plain bootstrap would
        // give a zero-width interval at 1.0.
        let labeled: Vec<LabeledPair> = (0..60).map(|_| pair(0, true, true)).collect();
        let e = estimate(&EstimateInput {
            populations: vec![2000],
            run_counts: vec![vec![2000]],
            any_counts: vec![2000],
            labeled,
            prior: vec![0.5],
        });
        let p = e.runs[0].precision.unwrap();
        assert_eq!(p.estimate, 1.0);
        assert!(p.low < 0.99 && p.low > 0.9, "{p:?}");
        assert!(p.contains(0.98));
    }

    #[test]
    fn gamma_draws_have_the_right_mean() {
        let mut rng = SplitMix64::new(1);
        for shape in [0.5, 1.0, 7.5] {
            let n = 20_000;
            let mean = (0..n).map(|_| gamma(shape, &mut rng)).sum::<f64>() / n as f64;
            assert!(
                (mean - shape).abs() < 0.05 * shape.max(1.0),
                "{shape}: {mean}"
            );
        }
    }

    #[test]
    fn a_stratum_without_positives_reports_its_upper_bound() {
        let labeled: Vec<LabeledPair> = (0..59).map(|_| pair(0, false, false)).collect();
        let e = estimate(&EstimateInput {
            populations: vec![10_000],
            run_counts: vec![vec![0]],
            any_counts: vec![0],
            labeled,
            prior: vec![0.0],
        });
        // 1 − 0.05^(1/59) ≈ 0.0495: about 495 of 10 000.
        let up = e.strata[0].upper_if_none.unwrap();
        assert!((up - 495.0).abs() < 5.0, "{up}");
        assert_eq!(e.runs[0].precision, None, "no pairs: precision undefined");
    }
}
