//! ANDD training (Hajishirzi, Yih, Kolcz, SIGIR 2010; TWEAK, Yih EMNLP 2009): learn the
//! feature weights λ of `sig::andd` from labeled document pairs, choose a detection
//! threshold on them, and (de)serialize the model. Pure: the caller reads the store and
//! writes the file.
//!
//! Objective. Labeled pairs are positives (near-duplicates) and negatives. Every preference
//! (p, n) of a positive pair p over a negative pair n costs the logistic loss
//! `ln(1 + exp(−γ (sim_p − sim_n)))`; the objective is the mean over preferences plus
//! `(α/2)‖λ − λ₀‖²`. Both similarities are scale invariant (sim(cλ) = sim(λ) for c > 0), so
//! plain L2 toward 0 has no minimum: it shrinks λ forever without changing a score. The
//! regularizer therefore pulls toward λ₀ = TF·IDF (the `tf_idf` feature alone), the weight
//! training starts from: with few labels the model stays close to TF·IDF cosine, with many
//! it moves as far as the labels ask. When |positives| × |negatives| exceeds
//! `max_preferences`, each positive is paired with an equal share of negatives drawn with
//! the seed (SplitMix64), so a run is reproducible; sums are taken in a fixed order, so the
//! same seed gives the same model byte for byte.
//!
//! Optimizer: L-BFGS (argmin) with the More–Thuente line search. The gradient is analytic
//! (see `pair_gradient`); a unit test checks it against finite differences.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{CostFunction, Error as ArgminError, Executor, Gradient, State, KV};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::sig::andd::{feature_names, linear, n_features, DocFeatures, Similarity, TF_IDF};
use crate::sig::imatch::SplitMix64;

/// The `format` field of a model file.
pub const MODEL_FORMAT: &str = "spotcheck-andd-model";
/// The model file version this build writes and reads.
pub const MODEL_VERSION: u32 = 1;

/// Fewest labeled pairs of each class training accepts.
pub const MIN_PAIRS_PER_CLASS: usize = 5;

/// Training settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainOptions {
    pub k: usize,
    pub similarity: Similarity,
    /// α of the regularizer (α/2)‖λ − λ₀‖².
    pub l2: f64,
    /// γ of the logistic preference loss.
    pub gamma: f64,
    pub seed: u64,
    pub max_iters: u64,
    /// Most preference pairs (positive over negative) in the objective.
    pub max_preferences: usize,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            k: 1,
            similarity: Similarity::Cosine,
            l2: 1.0,
            gamma: 10.0,
            seed: 0x00a1_dd5e_ed00_0001,
            max_iters: 100,
            max_preferences: 200_000,
        }
    }
}

/// A labeled pair of documents (indices into the feature list).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainPair {
    pub a: usize,
    pub b: usize,
    /// True: near-duplicates.
    pub same: bool,
    /// How many pairs of the collection this one stands for when the threshold is chosen
    /// (1 for a labeled pair; more for a sampled negative, which represents every
    /// unlabeled cross-cluster pair of the labeled documents). The loss ignores it.
    pub weight: f64,
}

impl TrainPair {
    pub fn new(a: usize, b: usize, same: bool) -> TrainPair {
        TrainPair {
            a,
            b,
            same,
            weight: 1.0,
        }
    }
}

/// The starting point and regularization center: TF·IDF.
pub fn prior(k: usize) -> Vec<f64> {
    let mut l = vec![0.0; n_features(k)];
    l[TF_IDF] = 1.0;
    l
}

/// Clamped weights `max(0, λ·φ)` of every k-gram of a document.
fn weights(f: &DocFeatures, lambda: &[f64]) -> Vec<f64> {
    (0..f.len())
        .map(|i| linear(lambda, f.row(i)).max(0.0))
        .collect()
}

/// Index pairs (i in a, j in b) of the k-grams two documents share.
fn shared(a: &DocFeatures, b: &DocFeatures) -> Vec<(usize, usize)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.hashes.len() && j < b.hashes.len() {
        match a.hashes[i].cmp(&b.hashes[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push((i, j));
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Similarity of a pair from the clamped weights.
fn pair_similarity(sim: Similarity, a: &DocFeatures, b: &DocFeatures, lambda: &[f64]) -> f64 {
    let (wa, wb) = (weights(a, lambda), weights(b, lambda));
    let dot: f64 = shared(a, b).iter().map(|&(i, j)| wa[i] * wb[j]).sum();
    sim.from_parts(
        dot,
        wa.iter().map(|w| w * w).sum(),
        wb.iter().map(|w| w * w).sum(),
    )
}

/// Similarity of a pair and its gradient with respect to λ.
///
/// With x = weights of a, y = weights of b, p = x·y, A = |x|², B = |y|²:
/// cosine s = p/√(AB), ∂s/∂x_i = y_i/√(AB) − s·x_i/A;
/// extended Jaccard s = p/D with D = A + B − p, ∂s/∂x_i = (y_i(A+B) − 2p·x_i)/D²;
/// and symmetrically for y. Then ∂s/∂λ = Σ_i ∂s/∂x_i · φ_a,i over the active k-grams
/// (λ·φ > 0) of a, plus the same over b.
pub fn pair_gradient(
    sim: Similarity,
    a: &DocFeatures,
    b: &DocFeatures,
    lambda: &[f64],
) -> (f64, Vec<f64>) {
    let nf = lambda.len();
    let (wa, wb) = (weights(a, lambda), weights(b, lambda));
    let sh = shared(a, b);
    let p: f64 = sh.iter().map(|&(i, j)| wa[i] * wb[j]).sum();
    let aa: f64 = wa.iter().map(|w| w * w).sum();
    let bb: f64 = wb.iter().map(|w| w * w).sum();
    let s = sim.from_parts(p, aa, bb);
    let mut grad = vec![0.0; nf];
    // Partner weights: y_i for each k-gram of a, x_j for each of b (0 when not shared).
    let mut ya = vec![0.0; wa.len()];
    let mut xb = vec![0.0; wb.len()];
    for &(i, j) in &sh {
        ya[i] = wb[j];
        xb[j] = wa[i];
    }
    // ds/dw = c_partner · partner + c_self · self
    let (c_partner, c_self_a, c_self_b) = match sim {
        Similarity::Cosine => {
            if aa <= 0.0 || bb <= 0.0 {
                return (s, grad);
            }
            let d = (aa * bb).sqrt();
            (1.0 / d, -s / aa, -s / bb)
        }
        Similarity::Jaccard => {
            let d = aa + bb - p;
            if d <= 0.0 {
                return (s, grad);
            }
            let d2 = d * d;
            ((aa + bb) / d2, -2.0 * p / d2, -2.0 * p / d2)
        }
    };
    let mut add = |f: &DocFeatures, w: &[f64], partner: &[f64], c_self: f64| {
        for i in 0..w.len() {
            if w[i] <= 0.0 {
                continue;
            }
            let g = c_partner * partner[i] + c_self * w[i];
            if g != 0.0 {
                for (gk, xk) in grad.iter_mut().zip(f.row(i)) {
                    *gk += g * xk;
                }
            }
        }
    };
    add(a, &wa, &ya, c_self_a);
    add(b, &wb, &xb, c_self_b);
    (s, grad)
}

/// Numerically stable ln(1 + e^z).
fn softplus(z: f64) -> f64 {
    if z > 30.0 {
        z
    } else if z < -30.0 {
        z.exp()
    } else {
        z.exp().ln_1p()
    }
}

/// 1 / (1 + e^−z).
fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// The training objective over fixed documents, pairs and preferences.
pub struct Objective<'a> {
    docs: &'a [DocFeatures],
    pairs: &'a [TrainPair],
    /// (positive pair index, negative pair index).
    prefs: Vec<(u32, u32)>,
    sim: Similarity,
    gamma: f64,
    l2: f64,
    prior: Vec<f64>,
}

impl<'a> Objective<'a> {
    /// The objective of `opts` over `pairs` of `docs`; preferences are all positive ×
    /// negative combinations, or a seeded sample of `opts.max_preferences` of them.
    pub fn new(docs: &'a [DocFeatures], pairs: &'a [TrainPair], opts: &TrainOptions) -> Self {
        let pos: Vec<u32> = (0..pairs.len() as u32)
            .filter(|&i| pairs[i as usize].same)
            .collect();
        let neg: Vec<u32> = (0..pairs.len() as u32)
            .filter(|&i| !pairs[i as usize].same)
            .collect();
        let mut prefs = Vec::new();
        if pos.len() * neg.len() <= opts.max_preferences {
            for &p in &pos {
                prefs.extend(neg.iter().map(|&n| (p, n)));
            }
        } else if !neg.is_empty() {
            let per = (opts.max_preferences / pos.len().max(1)).max(1);
            let mut rng = SplitMix64::new(opts.seed);
            for &p in &pos {
                for _ in 0..per {
                    prefs.push((p, neg[rng.below(neg.len())]));
                }
            }
        }
        Objective {
            docs,
            pairs,
            prefs,
            sim: opts.similarity,
            gamma: opts.gamma,
            l2: opts.l2,
            prior: prior(opts.k),
        }
    }

    pub fn preferences(&self) -> usize {
        self.prefs.len()
    }

    fn regularizer(&self, lambda: &[f64]) -> f64 {
        0.5 * self.l2
            * lambda
                .iter()
                .zip(&self.prior)
                .map(|(l, p)| (l - p) * (l - p))
                .sum::<f64>()
    }

    /// Similarity of every labeled pair under λ (computed in parallel, in pair order).
    pub fn similarities(&self, lambda: &[f64]) -> Vec<f64> {
        self.pairs
            .par_iter()
            .map(|p| pair_similarity(self.sim, &self.docs[p.a], &self.docs[p.b], lambda))
            .collect()
    }

    /// The objective at λ.
    pub fn loss(&self, lambda: &[f64]) -> f64 {
        let s = self.similarities(lambda);
        let m = self.prefs.len().max(1) as f64;
        let data: f64 = self
            .prefs
            .iter()
            .map(|&(p, n)| softplus(-self.gamma * (s[p as usize] - s[n as usize])))
            .sum::<f64>()
            / m;
        data + self.regularizer(lambda)
    }

    /// The objective and its gradient at λ.
    pub fn loss_and_gradient(&self, lambda: &[f64]) -> (f64, Vec<f64>) {
        let per_pair: Vec<(f64, Vec<f64>)> = self
            .pairs
            .par_iter()
            .map(|p| pair_gradient(self.sim, &self.docs[p.a], &self.docs[p.b], lambda))
            .collect();
        let m = self.prefs.len().max(1) as f64;
        let mut d_sim = vec![0.0; self.pairs.len()];
        let mut data = 0.0;
        for &(p, n) in &self.prefs {
            let delta = per_pair[p as usize].0 - per_pair[n as usize].0;
            data += softplus(-self.gamma * delta);
            // d/dΔ ln(1 + e^{−γΔ}) = −γ σ(−γΔ)
            let g = -self.gamma * sigmoid(-self.gamma * delta) / m;
            d_sim[p as usize] += g;
            d_sim[n as usize] -= g;
        }
        let mut grad: Vec<f64> = lambda
            .iter()
            .zip(&self.prior)
            .map(|(l, p)| self.l2 * (l - p))
            .collect();
        for ((_, g), c) in per_pair.iter().zip(&d_sim) {
            if *c != 0.0 {
                for (gk, x) in grad.iter_mut().zip(g) {
                    *gk += c * x;
                }
            }
        }
        (data / m + self.regularizer(lambda), grad)
    }
}

impl CostFunction for Objective<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, lambda: &Vec<f64>) -> Result<f64, ArgminError> {
        Ok(self.loss(lambda))
    }
}

impl Gradient for Objective<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, lambda: &Vec<f64>) -> Result<Vec<f64>, ArgminError> {
        Ok(self.loss_and_gradient(lambda).1)
    }
}

/// What training did, stored in the model file (no timings, so a seed reproduces the file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSummary {
    /// Labeled documents (edited copies not counted).
    pub documents: usize,
    /// Labeled pairs of each class (edited-copy positives and mined negatives are counted
    /// in `edited_positives` and `mined_negatives`).
    pub positive_pairs: usize,
    pub negative_pairs: usize,
    pub preferences: usize,
    pub iterations: u64,
    pub loss_initial: f64,
    pub loss_final: f64,
    /// Objective after each iteration.
    pub loss_per_iteration: Vec<f64>,
    pub stopped: String,
    /// Pairwise precision/recall/F1 of the chosen threshold on the training pairs.
    pub train_precision: f64,
    pub train_recall: f64,
    pub train_f1: f64,
    /// Mean similarity of the positive and of the negative training pairs.
    pub mean_sim_positive: f64,
    pub mean_sim_negative: f64,
    /// Who labeled the pairs (empty: every coder).
    #[serde(default)]
    pub coders: Vec<String>,
    #[serde(default)]
    pub seed: u64,
    /// Negatives mined among the labeled documents (`learn::robust`); 0 in older files.
    #[serde(default)]
    pub mined_negatives: usize,
    /// Edited-copy positives added (`learn::robust`); 0 in older files.
    #[serde(default)]
    pub edited_positives: usize,
    /// Whether α was chosen by cross-validation on the training pairs.
    #[serde(default)]
    pub l2_cv: bool,
}

/// A trained ANDD model: what detection needs to rebuild the vectors, and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnddModel {
    pub format: String,
    pub version: u32,
    pub k: usize,
    pub similarity: Similarity,
    /// Which stored text the vectors read: "content", "main" or "visible".
    pub text: String,
    /// Feature names in the order of λ (see `sig::andd`).
    pub features: Vec<String>,
    /// How each feature is computed, for a reader of the file.
    pub transforms: BTreeMap<String, String>,
    pub lambda: Vec<f64>,
    /// λ₀, the center of the regularizer and the starting point.
    pub prior: Vec<f64>,
    pub gamma: f64,
    pub l2: f64,
    /// Detection threshold chosen on the training pairs (best F1 there).
    pub threshold: f64,
    pub training: TrainSummary,
}

/// What each feature means (stored in the model file).
pub fn transforms(k: usize) -> BTreeMap<String, String> {
    let mut m: BTreeMap<String, String> = [
        ("bias", "1"),
        ("log_tf", "ln(1 + tf)"),
        (
            "idf",
            "ln(N/df)/ln(N) over the collection being processed, in [0,1]",
        ),
        ("tf_idf", "ln(1 + tf) * idf"),
        ("position", "token index of the first occurrence / tokens"),
        ("doc_length", "ln(1 + tokens) / 10"),
        (
            "capitalized",
            "share of occurrences whose first word starts upper-case",
        ),
        ("in_title", "1 if every word of the k-gram is a title word"),
        ("in_url", "1 if every word of the k-gram is a URL word"),
        ("df_avg", "mean idf of the k-gram's words"),
        ("df_median", "median idf of the k-gram's words"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    m.retain(|name, _| feature_names(k).contains(&name.as_str()));
    m
}

impl AnddModel {
    pub fn to_json(&self) -> String {
        // Serializing plain data cannot fail; fall back to an empty object all the same.
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }

    /// Parses and checks a model file's text; `origin` names the file in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<AnddModel> {
        let v: serde_json::Value = serde_json::from_str(text)
            .with_context(|| format!("{origin}: not a JSON ANDD model"))?;
        if v.get("format").and_then(|f| f.as_str()) != Some(MODEL_FORMAT) {
            bail!("{origin}: not a spotcheck ANDD model (format is not {MODEL_FORMAT:?})");
        }
        let version = v.get("version").and_then(|x| x.as_u64()).unwrap_or(0);
        if version != u64::from(MODEL_VERSION) {
            bail!(
                "{origin}: model version {version}, this spotcheck reads version {MODEL_VERSION}"
            );
        }
        let m: AnddModel =
            serde_json::from_value(v).with_context(|| format!("{origin}: malformed ANDD model"))?;
        if !(1..=crate::sig::andd::MAX_K).contains(&m.k) {
            bail!("{origin}: k = {} is not supported", m.k);
        }
        let want: Vec<&str> = feature_names(m.k);
        if m.features
            .iter()
            .map(String::as_str)
            .ne(want.iter().copied())
        {
            bail!(
                "{origin}: the model's features {:?} are not this spotcheck's {:?}",
                m.features,
                want
            );
        }
        if m.lambda.len() != want.len() || m.lambda.iter().any(|x| !x.is_finite()) {
            bail!(
                "{origin}: λ must have {} finite values, found {:?}",
                want.len(),
                m.lambda
            );
        }
        if !["content", "main", "visible"].contains(&m.text.as_str()) {
            bail!(
                "{origin}: text must be \"content\", \"main\" or \"visible\", found {:?}",
                m.text
            );
        }
        if !m.threshold.is_finite() {
            bail!("{origin}: threshold is not a number");
        }
        Ok(m)
    }
}

/// The threshold with the best F1 over weighted labeled scores `(score, same, weight)`
/// (predicted: score ≥ threshold; a pair of weight w counts as w pairs), placed halfway
/// between the lowest score it keeps and the next lower score. Returns
/// (threshold, precision, recall, F1).
pub fn best_threshold(scored: &[(f64, bool, f64)]) -> (f64, f64, f64, f64) {
    let mut v = scored.to_vec();
    v.sort_by(|x, y| y.0.total_cmp(&x.0));
    let total_pos: f64 = v.iter().filter(|x| x.1).map(|x| x.2).sum();
    let mut best = (1.0, 1.0, 0.0, 0.0);
    let (mut tp, mut n) = (0.0, 0.0);
    let mut i = 0;
    while i < v.len() {
        let s = v[i].0;
        while i < v.len() && v[i].0 == s {
            n += v[i].2;
            if v[i].1 {
                tp += v[i].2;
            }
            i += 1;
        }
        let p = if n > 0.0 { tp / n } else { 1.0 };
        let r = if total_pos > 0.0 { tp / total_pos } else { 0.0 };
        let f1 = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        if f1 > best.3 {
            let next = v.get(i).map_or(s, |x| x.0);
            best = ((s + next) / 2.0, p, r, f1);
        }
    }
    best
}

/// Counts of the two classes; an error that says what to do when either is too small.
pub fn check_label_counts(pairs: &[TrainPair]) -> Result<(usize, usize)> {
    let pos = pairs.iter().filter(|p| p.same).count();
    let neg = pairs.len() - pos;
    if pos < MIN_PAIRS_PER_CLASS || neg < MIN_PAIRS_PER_CLASS {
        bail!(
            "too few labels to train ANDD: {pos} near-duplicate pair(s) and {neg} \
             non-duplicate pair(s); at least {MIN_PAIRS_PER_CLASS} of each are needed \
             (confirm clusters, split or reject look-alikes in `spotcheck review`)"
        );
    }
    Ok((pos, neg))
}

/// The best (objective, λ) seen so far.
type BestPoint = Arc<Mutex<Option<(f64, Vec<f64>)>>>;

/// Records the objective after every iteration and hands it to a progress callback.
struct Progress {
    losses: Arc<Mutex<Vec<f64>>>,
    best: BestPoint,
    report: Box<dyn FnMut(u64, f64) + Send>,
}

impl<I: State<Param = Vec<f64>, Float = f64>> Observe<I> for Progress {
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> Result<(), ArgminError> {
        let cost = state.get_cost();
        if let Ok(mut l) = self.losses.lock() {
            l.push(cost);
        }
        if let (Ok(mut b), Some(p)) = (self.best.lock(), state.get_best_param()) {
            *b = Some((state.get_best_cost(), p.clone()));
        }
        (self.report)(state.get_iter(), cost);
        Ok(())
    }
}

/// Trains λ on labeled pairs of `docs` and chooses the threshold. `text` is recorded in the
/// model; `progress(iteration, objective)` is called after every L-BFGS iteration.
pub fn train(
    docs: &[DocFeatures],
    pairs: &[TrainPair],
    opts: &TrainOptions,
    text: &str,
    progress: impl FnMut(u64, f64) + Send + 'static,
) -> Result<AnddModel> {
    let (pos, neg) = check_label_counts(pairs)?;
    let nf = n_features(opts.k);
    if let Some(bad) = docs.iter().find(|d| d.nf != nf) {
        bail!(
            "documents have {} features, a k = {} model has {nf}",
            bad.nf,
            opts.k
        );
    }
    if let Some(p) = pairs
        .iter()
        .find(|p| p.a >= docs.len() || p.b >= docs.len())
    {
        bail!("pair ({}, {}) names a document out of range", p.a, p.b);
    }
    let objective = Objective::new(docs, pairs, opts);
    let start = prior(opts.k);
    let loss_initial = objective.loss(&start);
    let losses = Arc::new(Mutex::new(Vec::new()));
    let best = Arc::new(Mutex::new(None));
    let observer = Progress {
        losses: Arc::clone(&losses),
        best: Arc::clone(&best),
        report: Box::new(progress),
    };
    let linesearch = MoreThuenteLineSearch::new();
    let solver = LBFGS::new(linesearch, 10)
        .with_tolerance_grad(1e-7)?
        .with_tolerance_cost(1e-10)?;
    let n_prefs = objective.preferences();
    let run = Executor::new(objective, solver)
        .configure(|s| s.param(start.clone()).max_iters(opts.max_iters))
        .add_observer(observer, ObserverMode::Always)
        .run();
    let (lambda, loss_final, iterations, stopped) = match run {
        Ok(mut res) => {
            let iters = res.state.get_iter();
            let cost = res.state.get_best_cost();
            let reason = res
                .state
                .get_termination_reason()
                .map_or_else(|| "unknown".to_string(), |r| r.text().to_string());
            let p = res.state.take_best_param().unwrap_or_else(|| start.clone());
            (p, cost, iters, reason)
        }
        Err(e) => {
            // A line search that cannot make progress (the clamp's kinks) ends the run; keep
            // the best point reached so far.
            let (cost, p) = best
                .lock()
                .ok()
                .and_then(|b| b.clone())
                .unwrap_or((loss_initial, start.clone()));
            let iters = losses.lock().map(|l| l.len() as u64).unwrap_or(0);
            (p, cost, iters, format!("stopped early: {e}"))
        }
    };
    let (lambda, loss_final) = if loss_final.is_finite() && loss_final <= loss_initial {
        (lambda, loss_final)
    } else {
        (start.clone(), loss_initial)
    };
    let objective = Objective::new(docs, pairs, opts);
    let sims = objective.similarities(&lambda);
    let scored: Vec<(f64, bool, f64)> = sims
        .iter()
        .zip(pairs)
        .map(|(&s, p)| (s, p.same, p.weight))
        .collect();
    let (threshold, tp, tr, tf1) = best_threshold(&scored);
    let mean = |want: bool| {
        let v: Vec<f64> = scored.iter().filter(|x| x.1 == want).map(|x| x.0).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let mut used: Vec<usize> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    used.sort_unstable();
    used.dedup();
    let loss_per_iteration = losses.lock().map(|l| l.clone()).unwrap_or_default();
    Ok(AnddModel {
        format: MODEL_FORMAT.into(),
        version: MODEL_VERSION,
        k: opts.k,
        similarity: opts.similarity,
        text: text.into(),
        features: feature_names(opts.k)
            .iter()
            .map(|s| s.to_string())
            .collect(),
        transforms: transforms(opts.k),
        lambda,
        prior: start,
        gamma: opts.gamma,
        l2: opts.l2,
        threshold,
        training: TrainSummary {
            documents: used.len(),
            positive_pairs: pos,
            negative_pairs: neg,
            preferences: n_prefs,
            iterations,
            loss_initial,
            loss_final,
            loss_per_iteration,
            stopped,
            train_precision: tp,
            train_recall: tr,
            train_f1: tf1,
            mean_sim_positive: mean(true),
            mean_sim_negative: mean(false),
            coders: Vec::new(),
            seed: opts.seed,
            mined_negatives: 0,
            edited_positives: 0,
            l2_cv: false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sig::andd::{doc_terms, features, DocFreqs, DocInput};

    /// Random documents with dense, non-degenerate feature rows.
    fn random_docs(n: usize, nf: usize, seed: u64) -> Vec<DocFeatures> {
        let mut rng = SplitMix64::new(seed);
        let mut u = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (0..n)
            .map(|_| {
                let mut hashes: Vec<u64> = (0..30).map(|_| (u() * 60.0) as u64).collect();
                hashes.sort_unstable();
                hashes.dedup();
                let x: Vec<f64> = (0..hashes.len() * nf)
                    .map(|i| if i % nf == 0 { 1.0 } else { u() })
                    .collect();
                DocFeatures { nf, hashes, x }
            })
            .collect()
    }

    fn opts(sim: Similarity) -> TrainOptions {
        TrainOptions {
            k: 3,
            similarity: sim,
            l2: 0.05,
            ..TrainOptions::default()
        }
    }

    #[test]
    fn analytic_gradient_equals_finite_differences() {
        let nf = n_features(3);
        let docs = random_docs(12, nf, 42);
        let pairs: Vec<TrainPair> = (0..11)
            .map(|i| TrainPair::new(i, i + 1, i % 2 == 0))
            .chain((0..6).map(|i| TrainPair::new(i, 11 - i, i % 3 == 0)))
            .collect();
        let mut rng = SplitMix64::new(9);
        for sim in [Similarity::Cosine, Similarity::Jaccard] {
            let o = opts(sim);
            let obj = Objective::new(&docs, &pairs, &o);
            for _ in 0..5 {
                // A point where some weights are clamped and most are active.
                let lambda: Vec<f64> = (0..nf)
                    .map(|_| (rng.next_u64() % 2000) as f64 / 1000.0 - 0.5)
                    .collect();
                let (l, g) = obj.loss_and_gradient(&lambda);
                assert!((l - obj.loss(&lambda)).abs() < 1e-12);
                let h = 1e-6;
                for k in 0..nf {
                    let mut up = lambda.clone();
                    let mut down = lambda.clone();
                    up[k] += h;
                    down[k] -= h;
                    let fd = (obj.loss(&up) - obj.loss(&down)) / (2.0 * h);
                    assert!(
                        (fd - g[k]).abs() <= 1e-5 * (1.0 + fd.abs()),
                        "{sim:?} feature {k}: analytic {} vs finite difference {fd}",
                        g[k]
                    );
                }
            }
        }
    }

    #[test]
    fn pair_gradient_matches_similarity() {
        let docs = random_docs(2, 9, 3);
        let l = prior(1);
        for sim in [Similarity::Cosine, Similarity::Jaccard] {
            let (s, _) = pair_gradient(sim, &docs[0], &docs[1], &l);
            assert!((s - pair_similarity(sim, &docs[0], &docs[1], &l)).abs() < 1e-12);
            let (one, _) = pair_gradient(sim, &docs[0], &docs[0], &l);
            assert!((one - 1.0).abs() < 1e-12);
        }
    }

    /// Documents where a "template" word is shared by all and "topic" words decide.
    fn toy_collection() -> (Vec<DocFeatures>, Vec<TrainPair>) {
        let mut texts = Vec::new();
        for topic in 0..12 {
            let body: String = (0..6).map(|w| format!("topic{topic}w{w} ")).collect();
            for version in 0..2 {
                texts.push(format!(
                    "Menu Home About Search Index {body} release{version} footer copyright"
                ));
            }
        }
        let terms: Vec<_> = texts
            .iter()
            .map(|t| {
                doc_terms(
                    &DocInput {
                        text: t,
                        title: "",
                        url: "",
                    },
                    1,
                )
            })
            .collect();
        let mut df = DocFreqs::default();
        terms.iter().for_each(|t| df.add(t));
        let feats: Vec<DocFeatures> = terms.iter().map(|t| features(t, &df)).collect();
        let mut pairs = Vec::new();
        for a in 0..texts.len() {
            for b in a + 1..texts.len() {
                pairs.push(TrainPair::new(a, b, a / 2 == b / 2));
            }
        }
        (feats, pairs)
    }

    #[test]
    fn training_lowers_the_loss_and_is_reproducible() {
        let (docs, pairs) = toy_collection();
        let o = TrainOptions {
            max_iters: 30,
            ..TrainOptions::default()
        };
        let seen = Arc::new(Mutex::new(0u64));
        let s2 = Arc::clone(&seen);
        let m = train(&docs, &pairs, &o, "main", move |_, _| {
            if let Ok(mut n) = s2.lock() {
                *n += 1;
            }
        })
        .unwrap();
        assert!(m.training.loss_final <= m.training.loss_initial);
        assert!(*seen.lock().unwrap() as usize == m.training.loss_per_iteration.len());
        assert!(m.training.mean_sim_positive > m.training.mean_sim_negative);
        assert_eq!(m.training.train_f1, 1.0);
        let again = train(&docs, &pairs, &o, "main", |_, _| {}).unwrap();
        assert_eq!(m.to_json(), again.to_json());
    }

    #[test]
    fn model_round_trips_and_bad_files_are_named() {
        let (docs, pairs) = toy_collection();
        let m = train(
            &docs,
            &pairs,
            &TrainOptions::default(),
            "visible",
            |_, _| {},
        )
        .unwrap();
        let text = m.to_json();
        let back = AnddModel::from_json(&text, "m.json").unwrap();
        assert_eq!(back, m);
        let e = AnddModel::from_json("{}", "m.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m.json") && e.contains("not a spotcheck ANDD model"),
            "{e}"
        );
        let newer = text.replace("\"version\": 1", "\"version\": 99");
        let e = AnddModel::from_json(&newer, "m.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("version 99"), "{e}");
        let short = text.replace("\"k\": 1", "\"k\": 3");
        let e = AnddModel::from_json(&short, "m.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("features"), "{e}");
        let e = AnddModel::from_json("not json", "x/m.json").unwrap_err();
        assert!(format!("{e:#}").contains("x/m.json"));
    }

    #[test]
    fn too_few_labels_of_either_class_are_refused() {
        let (docs, pairs) = toy_collection();
        let few_pos: Vec<TrainPair> = pairs
            .iter()
            .filter(|p| !p.same)
            .copied()
            .chain(pairs.iter().filter(|p| p.same).take(4).copied())
            .collect();
        let e = train(&docs, &few_pos, &TrainOptions::default(), "main", |_, _| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("4 near-duplicate pair(s)"), "{e}");
        let few_neg: Vec<TrainPair> = pairs
            .iter()
            .filter(|p| p.same)
            .copied()
            .chain(pairs.iter().filter(|p| !p.same).take(2).copied())
            .collect();
        let e = check_label_counts(&few_neg).unwrap_err().to_string();
        assert!(e.contains("2 non-duplicate pair(s)"), "{e}");
        assert!(check_label_counts(&pairs).is_ok());
    }

    #[test]
    fn best_threshold_splits_between_scores_and_counts_weights() {
        let s = [
            (0.9, true, 1.0),
            (0.8, true, 1.0),
            (0.5, false, 1.0),
            (0.7, true, 1.0),
            (0.2, false, 1.0),
        ];
        let (t, p, r, f1) = best_threshold(&s);
        assert!((t - 0.6).abs() < 1e-12);
        assert_eq!((p, r, f1), (1.0, 1.0, 1.0));
        // A negative at 0.85 standing for 10 pairs: keeping 0.8 and 0.7 would cost 10 false
        // positives, so the best threshold keeps 0.9 only.
        let w = [
            (0.9, true, 1.0),
            (0.85, false, 10.0),
            (0.8, true, 1.0),
            (0.7, true, 1.0),
        ];
        let (t, p, r, _) = best_threshold(&w);
        assert!((t - 0.875).abs() < 1e-12, "{t}");
        assert_eq!(p, 1.0);
        assert!((r - 1.0 / 3.0).abs() < 1e-12);
        // With weight 1 it is worth keeping all of them.
        let one: Vec<_> = w.iter().map(|x| (x.0, x.1, 1.0)).collect();
        assert!((best_threshold(&one).0 - 0.7).abs() < 1e-12);
    }

    #[test]
    fn sampled_preferences_are_seeded() {
        let (docs, pairs) = toy_collection();
        let o = TrainOptions {
            max_preferences: 100,
            ..TrainOptions::default()
        };
        let a = Objective::new(&docs, &pairs, &o);
        let b = Objective::new(&docs, &pairs, &o);
        assert_eq!(a.prefs, b.prefs);
        assert!(a.preferences() <= 100 && a.preferences() > 0);
        let c = Objective::new(&docs, &pairs, &TrainOptions { seed: 7, ..o });
        assert_ne!(a.prefs, c.prefs);
    }
}
