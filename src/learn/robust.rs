//! Training pairs that make ANDD learn from few labels (issue 20): the labels of 10–60
//! documents give few positives and, in any order but the review queue's, only easy
//! negatives, so the objective is ≈ 0 at the TF·IDF prior and λ either does not move or
//! chases a handful of pairs. Two label-free additions, both pure and seeded:
//!
//! - **Mined hard negatives** ([`mine_hard_negatives`]): among the labeled documents, the
//!   pairs TF·IDF cosine (λ₀) ranks highest that the labels put in different clusters
//!   (connected components of the "same" verdicts) and that no label names — the template
//!   look-alikes a coder would have split had the queue shown them. They are labels, not
//!   gold: two confirmed clusters that are in truth one are mined as a negative.
//! - **Edited-copy positives** ([`edited_copy`]): a synthetic near-duplicate of a labeled
//!   document, made on its k-gram statistics the way syndication edits a story — the end
//!   cut off, a paragraph of another labeled document inserted, a few words substituted —
//!   paired with its original as a positive. They teach that such edits keep a pair
//!   together; they carry weight 0 when the threshold is chosen (they are not pairs of the
//!   collection).
//!
//! [`augment`] applies both to a training set.

use std::collections::{HashMap, HashSet};

use crate::cluster::andd_matcher::{match_pairs, Candidates};
use crate::cluster::union_find::UnionFind;
use anyhow::Result;

use crate::learn::andd::{
    best_threshold, check_label_counts, prior, train, AnddModel, Objective, TrainOptions, TrainPair,
};
use crate::learn::cv::{choose_l2, f1_at, DEFAULT_L2_GRID};
use crate::sig::andd::{
    features, weigh, DocFeatures, DocFreqs, DocTerms, Similarity, TermStat, MAX_K,
};
use crate::sig::imatch::SplitMix64;

/// Settings of the robust additions.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustOptions {
    /// Mined hard negatives per labeled positive pair (0: none).
    pub mined_per_positive: f64,
    /// Lowest TF·IDF cosine of a mined pair.
    pub mine_floor: f64,
    /// Edited copies per labeled document (0: none; at most 3, one of each edit).
    pub edited_per_document: usize,
    pub seed: u64,
}

impl Default for RobustOptions {
    fn default() -> Self {
        RobustOptions {
            mined_per_positive: 1.0,
            mine_floor: 0.3,
            edited_per_document: 1,
            seed: 0x0e0b_0057_0000_0001,
        }
    }
}

impl RobustOptions {
    /// Neither addition: the labels alone.
    pub fn off() -> Self {
        RobustOptions {
            mined_per_positive: 0.0,
            edited_per_document: 0,
            ..RobustOptions::default()
        }
    }
}

/// How a labeled document is edited into a synthetic copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// The last 10–30% of the tokens cut off.
    Truncate,
    /// A run of another document's tokens (10% of this one's length, at least 5) inserted
    /// at a random place.
    Insert,
    /// About 5% of the tokens (at least one) replaced by another document's words.
    Substitute,
}

pub const EDITS: [Edit; 3] = [Edit::Truncate, Edit::Insert, Edit::Substitute];

/// Uniform in [0, 1).
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A synthetic near-duplicate of `d` made by `edit`, with words taken from `donor`.
/// Works on the k-gram statistics (the text is not needed): term frequencies, first
/// positions, the token count and, for k > 1, the distinct words. Seeded by `rng`.
pub fn edited_copy(d: &DocTerms, donor: &DocTerms, edit: Edit, rng: &mut SplitMix64) -> DocTerms {
    let mut terms: Vec<TermStat> = d.terms.clone();
    let mut tokens = d.tokens;
    match edit {
        Edit::Truncate => {
            let keep = 0.7 + 0.2 * unit(rng);
            let cut = ((f64::from(d.tokens) * keep).ceil() as u32).max(1);
            terms.retain(|t| t.first < cut);
            for t in &mut terms {
                // Occurrences after the cut are gone; spread them evenly.
                let kept = (f64::from(t.tf) * keep).round() as u32;
                t.tf = kept.clamp(1, t.tf);
                t.capitalized = t.capitalized.min(t.tf);
            }
            tokens = cut;
        }
        Edit::Insert => {
            let len = ((f64::from(d.tokens) * 0.1).ceil() as u32).max(5);
            let start = if donor.tokens > len {
                (unit(rng) * f64::from(donor.tokens - len)) as u32
            } else {
                0
            };
            let at = (unit(rng) * f64::from(d.tokens)) as u32;
            let inserted: Vec<&TermStat> = donor
                .terms
                .iter()
                .filter(|t| t.first >= start && t.first < start + len)
                .collect();
            let span = inserted
                .iter()
                .map(|t| t.first - start + 1)
                .max()
                .unwrap_or(0);
            for t in &mut terms {
                if t.first >= at {
                    t.first += span;
                }
            }
            let index: HashMap<u64, usize> =
                terms.iter().enumerate().map(|(i, t)| (t.hash, i)).collect();
            for t in inserted {
                match index.get(&t.hash) {
                    Some(&i) => {
                        terms[i].tf += 1;
                        terms[i].first = terms[i].first.min(at + t.first - start);
                    }
                    None => terms.push(TermStat {
                        tf: 1,
                        first: at + t.first - start,
                        capitalized: u32::from(t.capitalized > 0),
                        in_title: false,
                        in_url: false,
                        ..t.clone()
                    }),
                }
            }
            tokens += span;
        }
        Edit::Substitute => {
            let n = ((f64::from(d.tokens) * 0.05).round() as usize).max(1);
            for _ in 0..n {
                if terms.is_empty() || donor.terms.is_empty() {
                    break;
                }
                let i = rng.below(terms.len());
                let first = terms[i].first;
                if terms[i].tf <= 1 {
                    terms.swap_remove(i);
                } else {
                    terms[i].tf -= 1;
                    terms[i].capitalized = terms[i].capitalized.min(terms[i].tf);
                }
                let w = &donor.terms[rng.below(donor.terms.len())];
                if let Some(t) = terms.iter_mut().find(|t| t.hash == w.hash) {
                    t.tf += 1;
                    t.first = t.first.min(first);
                } else {
                    terms.push(TermStat {
                        tf: 1,
                        first,
                        capitalized: 0,
                        in_title: false,
                        in_url: false,
                        ..w.clone()
                    });
                }
            }
        }
    }
    terms.sort_unstable_by_key(|t| t.hash);
    let mut words = Vec::new();
    if d.k > 1 {
        words = terms
            .iter()
            .flat_map(|t| t.words[..d.k.min(MAX_K)].iter().copied())
            .collect();
        words.sort_unstable();
        words.dedup();
    }
    DocTerms {
        k: d.k,
        tokens,
        terms,
        words,
    }
}

/// Connected components of the positive pairs over `n` documents (component id per
/// document).
fn components(n: usize, pairs: &[TrainPair]) -> Vec<u32> {
    let mut uf = UnionFind::new(n);
    for p in pairs.iter().filter(|p| p.same) {
        uf.union(p.a as u32, p.b as u32);
    }
    (0..n as u32).map(|i| uf.find(i)).collect()
}

/// The documents some pair names, sorted.
fn labeled_documents(pairs: &[TrainPair]) -> Vec<usize> {
    let mut v: Vec<usize> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Up to `n` negatives mined among the documents `pairs` names: the pairs of highest
/// TF·IDF cosine (at least `floor`) whose documents are in different components of the
/// positives and that no pair of `pairs` names (ties broken by document indices, so the
/// result is deterministic). Each has weight 1.
pub fn mine_hard_negatives(
    docs: &[DocFeatures],
    pairs: &[TrainPair],
    n: usize,
    floor: f64,
) -> Vec<TrainPair> {
    if n == 0 || docs.is_empty() {
        return Vec::new();
    }
    let k = match docs[0].nf {
        nf if nf == crate::sig::andd::n_features(1) => 1,
        _ => 3,
    };
    let comp = components(docs.len(), pairs);
    let labeled = labeled_documents(pairs);
    let known: HashSet<(usize, usize)> =
        pairs.iter().map(|p| (p.a.min(p.b), p.a.max(p.b))).collect();
    let l0 = prior(k);
    let vecs: Vec<_> = labeled.iter().map(|&i| weigh(&docs[i], &l0)).collect();
    let (found, _) = match_pairs(&vecs, Similarity::Cosine, floor, Candidates::Index);
    let mut mined: Vec<(f64, usize, usize)> = found
        .into_iter()
        .map(|(a, b, s)| {
            let (a, b) = (labeled[a as usize], labeled[b as usize]);
            (s, a.min(b), a.max(b))
        })
        .filter(|&(_, a, b)| comp[a] != comp[b] && !known.contains(&(a, b)))
        .collect();
    mined.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    mined.truncate(n);
    mined
        .into_iter()
        .map(|(_, a, b)| TrainPair::new(a, b, false))
        .collect()
}

/// What [`augment`] added.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Augmented {
    pub mined_negatives: usize,
    pub edited_positives: usize,
}

/// The training set with mined hard negatives and edited-copy positives added. `terms[i]`
/// are the k-gram statistics `docs[i]` was computed from (with `dfs`); edited copies are
/// appended to the documents. Deterministic for a seed.
pub fn augment(
    terms: &[DocTerms],
    dfs: &DocFreqs,
    mut docs: Vec<DocFeatures>,
    mut pairs: Vec<TrainPair>,
    o: &RobustOptions,
) -> (Vec<DocFeatures>, Vec<TrainPair>, Augmented) {
    let mut out = Augmented::default();
    let positives = pairs.iter().filter(|p| p.same && p.weight > 0.0).count();
    let want = (positives as f64 * o.mined_per_positive).round() as usize;
    let mined = mine_hard_negatives(&docs, &pairs, want, o.mine_floor);
    out.mined_negatives = mined.len();
    let labeled = labeled_documents(&pairs);
    let comp = components(docs.len(), &pairs);
    pairs.extend(mined);
    if o.edited_per_document > 0 && labeled.len() >= 2 {
        let mut rng = SplitMix64::new(o.seed);
        for &i in &labeled {
            if terms[i].terms.is_empty() {
                continue;
            }
            for e in 0..o.edited_per_document.min(EDITS.len()) {
                // A donor from another cluster where there is one.
                let mut donor = labeled[rng.below(labeled.len())];
                for _ in 0..8 {
                    if comp[donor] != comp[i] {
                        break;
                    }
                    donor = labeled[rng.below(labeled.len())];
                }
                let edit = EDITS[(rng.below(EDITS.len()) + e) % EDITS.len()];
                let copy = edited_copy(&terms[i], &terms[donor], edit, &mut rng);
                docs.push(features(&copy, dfs));
                pairs.push(TrainPair {
                    a: i,
                    b: docs.len() - 1,
                    same: true,
                    weight: 0.0,
                });
                out.edited_positives += 1;
            }
        }
    }
    (docs, pairs, out)
}

/// How a model is fitted: the training options, the robust additions, and whether α is
/// chosen by cross-validation (the grid and folds of `learn::cv`).
#[derive(Debug, Clone, PartialEq)]
pub struct FitOptions {
    pub train: TrainOptions,
    pub robust: RobustOptions,
    pub l2_cv: bool,
}

impl Default for FitOptions {
    /// `spotcheck train`'s defaults: both additions, α fixed (cross-validating α cost 15
    /// trainings and changed nothing the training side's cross-validation could see:
    /// BENCHMARKS, issue 20 session 4).
    fn default() -> Self {
        FitOptions {
            train: TrainOptions::default(),
            robust: RobustOptions::default(),
            l2_cv: false,
        }
    }
}

/// A fitted model and what the fit did.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub model: AnddModel,
    pub augmented: Augmented,
    /// (α, mean held-out F1) of every α tried (empty without cross-validation).
    pub l2_scores: Vec<(f64, f64)>,
}

/// Folds of the α cross-validation.
pub const CV_FOLDS: usize = 3;

/// Augments the labeled pairs ([`augment`]), chooses α by cross-validation on them when
/// asked, and trains. `terms[i]` are the statistics `docs[i]` was computed from.
pub fn fit(
    terms: &[DocTerms],
    dfs: &DocFreqs,
    docs: Vec<DocFeatures>,
    pairs: Vec<TrainPair>,
    o: &FitOptions,
    text: &str,
    progress: impl FnMut(u64, f64) + Send + 'static,
) -> Result<Fitted> {
    check_label_counts(&pairs)?;
    let labeled = labeled_documents(&pairs).len();
    let robust = RobustOptions {
        seed: o.robust.seed ^ o.train.seed,
        ..o.robust.clone()
    };
    let (docs, pairs, augmented) = augment(terms, dfs, docs, pairs, &robust);
    let mut opts = o.train.clone();
    let mut l2_scores = Vec::new();
    if o.l2_cv {
        match choose_l2(&docs, &pairs, &opts, &DEFAULT_L2_GRID, CV_FOLDS) {
            Ok(choice) => {
                opts.l2 = choice.l2;
                l2_scores = choice.scores;
            }
            // Too few labels for every fold to train: stay nearest the TF·IDF prior, which
            // is what the cross-validation's tie rule picks when the folds cannot tell the
            // strengths apart (the usual case with few labels).
            Err(_) => opts.l2 = DEFAULT_L2_GRID.iter().copied().fold(0.0, f64::max),
        }
    }
    let mut model = train(&docs, &pairs, &opts, text, progress)?;
    // The labeled documents and pairs, not the synthetic copies and mined pairs (counted
    // on their own).
    model.training.documents = labeled;
    model.training.positive_pairs -= augmented.edited_positives;
    model.training.negative_pairs -= augmented.mined_negatives;
    model.training.mined_negatives = augmented.mined_negatives;
    model.training.edited_positives = augmented.edited_positives;
    model.training.l2_cv = o.l2_cv;
    Ok(Fitted {
        model,
        augmented,
        l2_scores,
    })
}

/// Training-side cross-validation of a whole fit (augmentation, α choice and training)
/// on labeled pairs: documents are dealt to folds by component of the positives (seeded),
/// so no labeled cluster is on both sides; each fold's fit sees only the other folds'
/// pairs (and augments them), and is scored on its own fold's pairs (cross-fold pairs are
/// left out). Folds without both classes on either side are skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CvScore {
    /// Mean weighted Max-F1 over the scored folds.
    pub max_f1: f64,
    /// Mean weighted F1 at each fold model's own threshold.
    pub f1_at_threshold: f64,
    /// Folds scored.
    pub folds: usize,
}

/// See [`CvScore`].
pub fn cross_validate(
    terms: &[DocTerms],
    dfs: &DocFreqs,
    docs: &[DocFeatures],
    pairs: &[TrainPair],
    o: &FitOptions,
    folds: usize,
) -> Result<CvScore> {
    let folds = folds.max(2);
    let comp = components(docs.len(), pairs);
    let mut roots: Vec<u32> = labeled_documents(pairs).iter().map(|&d| comp[d]).collect();
    roots.sort_unstable();
    roots.dedup();
    let mut rng = SplitMix64::new(o.train.seed ^ 0xc0_55_fa_11);
    for i in (1..roots.len()).rev() {
        roots.swap(i, rng.below(i + 1));
    }
    let fold_of: HashMap<u32, usize> = roots
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, i % folds))
        .collect();
    let side = |d: usize| fold_of.get(&comp[d]).copied().unwrap_or(0);
    let mut out = CvScore::default();
    for f in 0..folds {
        let held: Vec<TrainPair> = pairs
            .iter()
            .filter(|p| side(p.a) == f && side(p.b) == f)
            .copied()
            .collect();
        let fit_pairs: Vec<TrainPair> = pairs
            .iter()
            .filter(|p| side(p.a) != f && side(p.b) != f)
            .copied()
            .collect();
        if check_label_counts(&fit_pairs).is_err()
            || !held.iter().any(|p| p.same)
            || !held.iter().any(|p| !p.same)
        {
            continue;
        }
        let Ok(fitted) = fit(terms, dfs, docs.to_vec(), fit_pairs, o, "", |_, _| {}) else {
            continue;
        };
        let m = &fitted.model;
        let sims = Objective::new(docs, &held, &o.train).similarities(&m.lambda);
        let scored: Vec<(f64, bool, f64)> = sims
            .iter()
            .zip(&held)
            .map(|(&s, p)| (s, p.same, p.weight))
            .collect();
        out.max_f1 += best_threshold(&scored).3;
        out.f1_at_threshold += f1_at(&scored, m.threshold);
        out.folds += 1;
    }
    if out.folds > 0 {
        out.max_f1 /= out.folds as f64;
        out.f1_at_threshold /= out.folds as f64;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sig::andd::{doc_terms, DocInput};

    fn terms_of(text: &str, k: usize) -> DocTerms {
        doc_terms(
            &DocInput {
                text,
                title: "",
                url: "",
            },
            k,
        )
    }

    fn story(n: usize, words: usize) -> String {
        (0..words)
            .map(|w| format!("s{n}w{} ", w % (words / 2 + 1)))
            .collect()
    }

    #[test]
    fn edited_copies_stay_close_to_their_original() {
        let unique = |n: usize| -> String { (0..200).map(|w| format!("u{n}w{w} ")).collect() };
        let d = terms_of(&unique(1), 1);
        let donor = terms_of(&unique(2), 1);
        let df = DocFreqs::default();
        let l0 = prior(1);
        for (seed, edit) in EDITS.iter().enumerate() {
            let mut rng = SplitMix64::new(seed as u64);
            let c = edited_copy(&d, &donor, *edit, &mut rng);
            assert!(c.terms.windows(2).all(|w| w[0].hash < w[1].hash));
            let (a, b) = (
                weigh(&features(&d, &df), &l0),
                weigh(&features(&c, &df), &l0),
            );
            let cos = crate::sig::andd::dot(&a, &b) / (a.norm2() * b.norm2()).sqrt();
            assert!(cos > 0.75 && cos < 1.0, "{edit:?}: cosine {cos}");
            match edit {
                Edit::Truncate => assert!(c.tokens < d.tokens),
                Edit::Insert => assert!(c.tokens > d.tokens),
                Edit::Substitute => assert_eq!(c.tokens, d.tokens),
            }
        }
        // Same seed, same copy.
        let a = edited_copy(&d, &donor, Edit::Insert, &mut SplitMix64::new(5));
        let b = edited_copy(&d, &donor, Edit::Insert, &mut SplitMix64::new(5));
        assert_eq!(a, b);
    }

    /// Three clusters of two copies; all share a template, clusters 0 and 1 a long topic
    /// passage too.
    fn collection() -> (Vec<DocTerms>, DocFreqs) {
        let template = "menu home about search index footer copyright ";
        let texts = [
            format!("{template} {} alpha beta", story(0, 40)),
            format!("{template} {} alpha gamma", story(0, 40)),
            format!("{template} {} {} delta", story(0, 30), story(1, 12)),
            format!("{template} {} {} eps", story(0, 30), story(1, 12)),
            format!("{template} {}", story(5, 40)),
            format!("{template} {} zeta", story(5, 40)),
        ];
        let terms: Vec<DocTerms> = texts.iter().map(|t| terms_of(t, 1)).collect();
        let mut df = DocFreqs::default();
        terms.iter().for_each(|t| df.add(t));
        (terms, df)
    }

    #[test]
    fn mined_negatives_are_the_closest_cross_cluster_pairs() {
        let (terms, df) = collection();
        let docs: Vec<DocFeatures> = terms.iter().map(|t| features(t, &df)).collect();
        let pairs = vec![
            TrainPair::new(0, 1, true),
            TrainPair::new(2, 3, true),
            TrainPair::new(4, 5, true),
            TrainPair::new(1, 4, false),
        ];
        let mined = mine_hard_negatives(&docs, &pairs, 2, 0.1);
        assert_eq!(mined.len(), 2);
        for p in &mined {
            assert!(!p.same);
            // Never inside a cluster, never a pair already labeled.
            assert_ne!(p.a / 2, p.b / 2);
            assert!(!(p.a == 1 && p.b == 4));
            // The look-alike clusters 0 and 1 share a passage: they come first.
            assert!(p.a < 2 && (2..4).contains(&p.b), "{p:?}");
        }
        assert!(mine_hard_negatives(&docs, &pairs, 0, 0.1).is_empty());
        // A floor above every cross-cluster cosine mines nothing.
        assert!(mine_hard_negatives(&docs, &pairs, 10, 0.999).is_empty());
    }

    #[test]
    fn augment_adds_weightless_copies_and_mined_negatives() {
        let (terms, df) = collection();
        let docs: Vec<DocFeatures> = terms.iter().map(|t| features(t, &df)).collect();
        let pairs = vec![
            TrainPair::new(0, 1, true),
            TrainPair::new(2, 3, true),
            TrainPair::new(4, 5, true),
            TrainPair::new(1, 4, false),
        ];
        let o = RobustOptions {
            mine_floor: 0.1,
            ..RobustOptions::default()
        };
        let (d2, p2, n) = augment(&terms, &df, docs.clone(), pairs.clone(), &o);
        assert_eq!(n.mined_negatives, 3);
        assert_eq!(n.edited_positives, 6);
        assert_eq!(d2.len(), 12);
        assert_eq!(p2.len(), 4 + 3 + 6);
        assert!(p2[7..]
            .iter()
            .all(|p| p.same && p.weight == 0.0 && p.b >= 6));
        let again = augment(&terms, &df, docs.clone(), pairs.clone(), &o);
        assert_eq!(again.1, p2);
        let (d3, p3, n3) = augment(&terms, &df, docs, pairs.clone(), &RobustOptions::off());
        assert_eq!((d3.len(), p3, n3), (6, pairs, Augmented::default()));
    }
    #[test]
    fn cross_validation_scores_folds_of_whole_clusters() {
        // Nine stories in two copies each (the second one word longer), one template.
        let texts: Vec<String> = (0..18)
            .map(|i| {
                let extra = if i % 2 == 1 { " extra" } else { "" };
                format!("menu home about {}{extra}", story(i / 2 + 10, 30))
            })
            .collect();
        let terms: Vec<DocTerms> = texts.iter().map(|t| terms_of(t, 1)).collect();
        let mut df = DocFreqs::default();
        terms.iter().for_each(|t| df.add(t));
        let docs: Vec<DocFeatures> = terms.iter().map(|t| features(t, &df)).collect();
        let mut pairs: Vec<TrainPair> = (0..9)
            .map(|c| TrainPair::new(2 * c, 2 * c + 1, true))
            .collect();
        for c in 0..9 {
            pairs.extend((c + 1..9).map(|d| TrainPair::new(2 * c, 2 * d + 1, false)));
        }
        let o = FitOptions {
            train: TrainOptions {
                max_iters: 10,
                ..TrainOptions::default()
            },
            ..FitOptions::default()
        };
        let cv = cross_validate(&terms, &df, &docs, &pairs, &o, 3).unwrap();
        assert!(cv.folds >= 1, "{cv:?}");
        // Copies are near 1, different stories near 0: every scored fold is separated.
        assert!((cv.max_f1 - 1.0).abs() < 1e-12, "{cv:?}");
        assert!(cv.f1_at_threshold > 0.0 && cv.f1_at_threshold <= 1.0);
        // Too few labels for any fold: nothing scored, no error.
        let few = cross_validate(&terms, &df, &docs, &pairs[..12], &o, 3).unwrap();
        assert_eq!(few.folds, 0);
    }
}
