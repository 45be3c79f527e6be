//! `spotcheck train`: the ANDD similarity learned from the coders' labels. Reads the labeled
//! pairs (`learn::pairs`), the collection's document frequencies and the labeled
//! documents' k-gram features from the store, trains λ (`learn::andd`), and writes the model
//! file. The model file and the collection pass live in `learn::corpus` (ANDD detection
//! shares them); they are re-exported here for existing callers.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde_json::json;

use crate::learn::andd::{self, AnddModel, TrainOptions, TrainPair};
pub use crate::learn::corpus::{collection_terms, load_model, save_model, text_kind_of, text_name};
use crate::learn::pairs::{training_pairs, PairCounts, PairOptions, Provenance, TrainingSet};
use crate::learn::robust::{fit, FitOptions, RobustOptions, CV_FOLDS};
use crate::sig::andd::{features, DocFeatures, DocFreqs, DocTerms};
use crate::store::{Store, TextKind, NO_MAIN_TEXT};

/// The default model path: the database's path with the extension `.andd.json`.
pub fn default_model_path(db: &Path) -> PathBuf {
    db.with_extension("andd.json")
}

/// What `train` learns from, with which options, and where the model goes.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub db: PathBuf,
    /// `None`: [`default_model_path`] of the database.
    pub out: Option<PathBuf>,
    pub options: TrainOptions,
    /// The stored text the model reads.
    pub text: TextKind,
    /// Only this coder's labels.
    pub coder: Option<String>,
    /// Choose α by cross-validation on the labels instead of `options.l2`.
    pub l2_cv: bool,
    /// Mined hard negatives and edited-copy positives.
    pub robust: RobustOptions,
    pub json: bool,
}

/// `spotcheck train`.
pub fn run(a: &TrainConfig) -> Result<ExitCode> {
    let started = Instant::now();
    let store = Store::open_existing(&a.db)?;
    let opts = a.options.clone();
    let text = a.text;
    let out = a.out.clone().unwrap_or_else(|| default_model_path(&a.db));
    // Every labeled pair trains the model (no held-out side); sampled negatives balance
    // the classes, seeded.
    let set = training_pairs(
        &store,
        &PairOptions {
            coder: a.coder.clone(),
            seed: opts.seed,
            test_fraction: 0.0,
            ..PairOptions::default()
        },
    )?;
    let c = &set.counts;
    eprintln!(
        "training pairs from {}: {} near-duplicate, {} not ({} labeled look-alikes, {} sampled) \
         over {} documents{}",
        if set.coders.is_empty() {
            "no coder".to_string()
        } else {
            set.coders.join(", ")
        },
        c.positives,
        c.negatives,
        c.hard_negatives,
        c.sampled,
        c.documents,
        if c.conflicts > 0 {
            format!("; {} pairs the coders disagree on left out", c.conflicts)
        } else {
            String::new()
        }
    );
    let pairs = weighted_pairs(&set);
    if text == TextKind::Main && !store.has_main_texts()? {
        eprintln!("note: {NO_MAIN_TEXT}");
    }
    eprintln!(
        "reading {} text of the collection (document frequencies, k = {})",
        text_name(text),
        opts.k
    );
    let labeled = labeled_terms(&store, &pairs, &opts, text)?;
    let fit_options = FitOptions {
        train: opts,
        robust: a.robust.clone(),
        l2_cv: a.l2_cv,
    };
    let fitted = fit(
        &labeled.terms,
        &labeled.dfs,
        labeled.docs,
        labeled.pairs,
        &fit_options,
        text_name(text),
        |i, loss| {
            eprintln!("iteration {i:>3}: objective {loss:.6}");
        },
    )?;
    eprintln!(
        "added {} mined hard negatives and {} edited-copy positives",
        fitted.augmented.mined_negatives, fitted.augmented.edited_positives
    );
    for (l2, f1) in &fitted.l2_scores {
        eprintln!("α {l2}: held-out F1 at the fold models' thresholds {f1:.4}");
    }
    if a.l2_cv && fitted.l2_scores.is_empty() {
        eprintln!(
            "too few labels for {CV_FOLDS}-fold cross-validation: α = {} (nearest TF·IDF)",
            fitted.model.l2
        );
    } else if a.l2_cv {
        eprintln!(
            "chose α = {} by {CV_FOLDS}-fold cross-validation",
            fitted.model.l2
        );
    }
    let mut model = fitted.model;
    model.training.coders = set.coders.clone();
    save_model(&model, &out)?;
    let t = &model.training;
    let summary = json!({
        "model": out,
        "k": model.k,
        "similarity": model.similarity,
        "text": model.text,
        "threshold": model.threshold,
        "lambda": model.lambda,
        "documents": t.documents,
        "positive_pairs": t.positive_pairs,
        "negative_pairs": t.negative_pairs,
        "iterations": t.iterations,
        "loss_initial": t.loss_initial,
        "loss_final": t.loss_final,
        "stopped": t.stopped,
        "train_f1": t.train_f1,
        "l2": model.l2,
        "mined_negatives": t.mined_negatives,
        "edited_positives": t.edited_positives,
        "seconds": started.elapsed().as_secs_f64(),
    });
    if a.json {
        super::write_json_line(&mut std::io::stdout().lock(), &summary)?;
    } else {
        crate::cmd::outln!(
            "wrote {}: k = {}, {}, {} iterations ({}), objective {:.4} → {:.4}; threshold {:.4} \
             (F1 {:.3} on the training pairs); {:.1}s",
            out.display(),
            model.k,
            model.similarity.name(),
            t.iterations,
            t.stopped,
            t.loss_initial,
            t.loss_final,
            model.threshold,
            t.train_f1,
            started.elapsed().as_secs_f64()
        )?;
        let weights: Vec<String> = model
            .features
            .iter()
            .zip(&model.lambda)
            .map(|(f, l)| format!("{f} {l:+.3}"))
            .collect();
        crate::cmd::outln!("λ: {}", weights.join(", "))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The weight of a sampled negative when the threshold is chosen: every unlabeled pair of
/// labeled documents from different clusters is a negative in the collection, and the
/// sampled ones are a sample of them, so each stands for
/// `(C(documents, 2) − positives − labeled negatives) / sampled` pairs (at least 1). Without
/// it the threshold is fitted to balanced classes and set far too low for a collection,
/// where negatives outnumber positives by orders of magnitude.
pub fn sampled_negative_weight(c: &PairCounts) -> f64 {
    if c.sampled == 0 {
        return 1.0;
    }
    let d = c.documents as f64;
    let implied = d * (d - 1.0) / 2.0 - c.positives as f64 - c.hard_negatives as f64;
    (implied / c.sampled as f64).max(1.0)
}

/// The training pairs of a labeled set as `(a, b, same, weight)` with document ids.
pub fn weighted_pairs(set: &TrainingSet) -> Vec<(i64, i64, bool, f64)> {
    let w = sampled_negative_weight(&set.counts);
    set.pairs
        .iter()
        .map(|p| {
            let weight = if p.provenance == Provenance::Sampled {
                w
            } else {
                1.0
            };
            (p.a, p.b, p.label, weight)
        })
        .collect()
}

/// Trains a model on labeled pairs of document ids `(a, b, same)` of `store` (each of
/// weight 1).
pub fn train_on_pairs(
    store: &Store,
    pairs: &[(i64, i64, bool)],
    opts: &TrainOptions,
    text: TextKind,
    progress: impl FnMut(u64, f64) + Send + 'static,
) -> Result<AnddModel> {
    let weighted: Vec<(i64, i64, bool, f64)> =
        pairs.iter().map(|&(a, b, s)| (a, b, s, 1.0)).collect();
    train_on_weighted(store, &weighted, opts, text, progress)
}

/// Trains a model on weighted labeled pairs `(a, b, same, weight)` of document ids of
/// `store` (see [`TrainPair::weight`]).
pub fn train_on_weighted(
    store: &Store,
    pairs: &[(i64, i64, bool, f64)],
    opts: &TrainOptions,
    text: TextKind,
    progress: impl FnMut(u64, f64) + Send + 'static,
) -> Result<AnddModel> {
    let (docs, indexed) = weighted_features(store, pairs, opts, text)?;
    andd::train(&docs, &indexed, opts, text_name(text), progress)
}

/// The feature rows of the labeled documents and the pairs as indices into them.
pub fn weighted_features(
    store: &Store,
    pairs: &[(i64, i64, bool, f64)],
    opts: &TrainOptions,
    text: TextKind,
) -> Result<(Vec<DocFeatures>, Vec<TrainPair>)> {
    let l = labeled_terms(store, pairs, opts, text)?;
    Ok((l.docs, l.pairs))
}

/// The labeled documents as training reads them: the collection's document frequencies,
/// each labeled document's k-gram statistics and feature rows (same order), and the
/// pairs as indices into them.
pub struct LabeledTerms {
    pub dfs: DocFreqs,
    pub terms: Vec<DocTerms>,
    pub docs: Vec<DocFeatures>,
    pub pairs: Vec<TrainPair>,
}

/// Reads [`LabeledTerms`] for weighted pairs `(a, b, same, weight)` of document ids.
pub fn labeled_terms(
    store: &Store,
    pairs: &[(i64, i64, bool, f64)],
    opts: &TrainOptions,
    text: TextKind,
) -> Result<LabeledTerms> {
    let as_train: Vec<TrainPair> = pairs
        .iter()
        .map(|&(a, b, same, _)| TrainPair::new(a as usize, b as usize, same))
        .collect();
    // Refuse before reading the collection.
    andd::check_label_counts(&as_train)?;
    let ids: HashSet<i64> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    let (dfs, mut by_id) = collection_terms(store, text, opts.k, &ids)?;
    let mut order: Vec<i64> = by_id.keys().copied().collect();
    order.sort_unstable();
    let slot: HashMap<i64, usize> = order.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    let terms: Vec<DocTerms> = order.iter().filter_map(|id| by_id.remove(id)).collect();
    let docs: Vec<DocFeatures> = terms.par_iter().map(|t| features(t, &dfs)).collect();
    let indexed: Vec<TrainPair> = pairs
        .iter()
        .filter_map(|&(a, b, same, weight)| {
            Some(TrainPair {
                a: *slot.get(&a)?,
                b: *slot.get(&b)?,
                same,
                weight,
            })
        })
        .collect();
    Ok(LabeledTerms {
        dfs,
        terms,
        docs,
        pairs: indexed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampled_negative_stands_for_the_unlabeled_cross_cluster_pairs() {
        let c = PairCounts {
            documents: 10,
            positives: 5,
            hard_negatives: 3,
            sampled: 2,
            ..PairCounts::default()
        };
        // C(10,2) = 45 pairs; 5 positive and 3 labeled negative: 37 implied negatives for
        // 2 sampled ones.
        assert!((sampled_negative_weight(&c) - 18.5).abs() < 1e-12);
        let none = PairCounts {
            sampled: 0,
            ..c.clone()
        };
        assert_eq!(sampled_negative_weight(&none), 1.0);
        let dense = PairCounts {
            documents: 3,
            positives: 1,
            hard_negatives: 0,
            sampled: 5,
            ..PairCounts::default()
        };
        assert_eq!(sampled_negative_weight(&dense), 1.0, "never below 1");
        assert_eq!(
            default_model_path(Path::new("/x/crawl.db")),
            Path::new("/x/crawl.andd.json")
        );
    }
}
