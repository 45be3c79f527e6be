//! ANDD (Hajishirzi, Yih, Kolcz, SIGIR 2010) as a row of the method table: k-gram vectors
//! weighed by a model trained on the coders' labels (`spotcheck train`), candidates from an
//! exact index or banded random-hyperplane LSH, exact similarity ≥ a threshold. Each pair's
//! detail names the k-grams that weigh most in it, and those are what explain the pair.
//! Before weighing, the model's λ is checked against the collection (`learn::shrink`): if
//! it would leave more documents with fewer positive weights than the stub minimum than
//! TF·IDF does, it is moved toward TF·IDF until it does not (`--model-lambda`: as trained).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::driver::{merge, CHUNK};
use super::explain::{Highlight, HighlightKind};
use super::method::{Detector, Found, InAll, PairText, RunContext};
use super::params::{Kind, Param, Value};
use super::shared::Shared;
use crate::cluster::andd_matcher::{auto_bands, match_pairs, Candidates};
use crate::learn::andd::{prior, AnddModel};
use crate::learn::corpus::{collection_terms, load_model, text_kind_of};
use crate::learn::shrink::{shrink_to_collection, Shrunk};
use crate::learn::threshold::{
    collection_threshold, fit_subset, COLLECTION_FLOOR, FIT_DOCUMENTS, FIT_SEED,
};
use crate::sig::andd::{
    doc_terms, features, gram_names, signature_hex, top_shared, weigh, DocFeatures, DocFreqs,
    DocInput, Lsh, SparseVec, DEFAULT_LSH_SEED, DEFAULT_MIN_KGRAMS,
};
use crate::store::{DocText, Store, TextKind};
use crate::text::tokenize;

/// ANDD settings of one run: the model file and how candidates are found. (The run stores
/// the resolved values with the model's own settings; see `stored_params`.)
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AnddSettings {
    pub model: PathBuf,
    /// Similarity threshold; `None`: chosen on this collection's pair scores
    /// (`learn::threshold`), or the model's with `model_threshold`.
    pub threshold: Option<f64>,
    /// Without `threshold`: the one chosen on the model's training pairs instead of the
    /// collection's own.
    pub model_threshold: bool,
    /// Candidates from LSH signatures of this many bits instead of the exact k-gram index
    /// (`None` or 0: the index).
    pub lsh_bits: Option<usize>,
    /// LSH bands (default: chosen from the threshold, see `andd_matcher::auto_bands`).
    pub lsh_bands: Option<usize>,
    /// Documents whose text has fewer distinct k-grams are not matched (`None`:
    /// `sig::andd::DEFAULT_MIN_KGRAMS`).
    pub min_kgrams: Option<usize>,
    /// Weigh with the model's λ as trained, not shrunk toward TF·IDF for this collection
    /// (`learn::shrink`).
    pub model_lambda: bool,
}

/// The ANDD row of the method table.
pub struct Andd;

type S = AnddSettings;

/// Most LSH bits (the paper's setting is 384).
const MAX_LSH_BITS: u64 = 8192;

static PARAMS: &[Param<S>] = &[
    Param {
        flag: "model",
        value_name: "MODEL",
        kind: Kind::File,
        help: "ANDD: the model file from `spotcheck train` (k, similarity, text, λ, threshold); \
               needed by `--method andd`, and with `--method all` ANDD runs too when it is given.",
        paper: None,
        get: |s| (!s.model.as_os_str().is_empty()).then(|| Value::File(s.model.clone())),
        unset: "none",
        set: |s, v| s.model = v.path(),
    },
    Param {
        flag: "threshold",
        value_name: "F",
        kind: Kind::open_closed(0.0, 1.0),
        help: "ANDD similarity threshold.",
        paper: None,
        get: |s| s.threshold.map(Value::Float),
        unset: "chosen on this collection's pair scores (a two-component mixture fitted to the \
                scores ≥ 0.3, the cut of highest expected F1; the model's when no copies show)",
        set: |s, v| s.threshold = Some(v.float()),
    },
    Param {
        flag: "model-threshold",
        value_name: "",
        kind: Kind::Switch,
        help: "ANDD without --threshold: use the threshold chosen on the model's training \
               pairs instead of one chosen on this collection's pair scores.",
        paper: None,
        get: |s| Some(Value::Switch(s.model_threshold)),
        unset: "",
        set: |s, v| s.model_threshold = v.on(),
    },
    Param {
        flag: "lsh-bits",
        value_name: "N",
        kind: Kind::Int {
            min: 0,
            max: MAX_LSH_BITS,
        },
        help: "ANDD: find candidates with N-bit random-hyperplane LSH signatures (banded, N \
               rounded up to a multiple of 64) instead of the exact k-gram index; 0 = the index.",
        paper: Some("384"),
        get: |s| s.lsh_bits.map(|b| Value::Int(b as u64)),
        unset: "the exact index",
        set: |s, v| s.lsh_bits = Some(v.int() as usize),
    },
    Param {
        flag: "lsh-bands",
        value_name: "B",
        kind: Kind::Int {
            min: 1,
            max: MAX_LSH_BITS,
        },
        help: "ANDD: LSH bands (needs --lsh-bits; at most its bits).",
        paper: None,
        get: |s| s.lsh_bands.map(|b| Value::Int(b as u64)),
        unset: "from the threshold, for ≥ 99% recall of pairs at it",
        set: |s, v| s.lsh_bands = Some(v.int() as usize),
    },
    Param {
        flag: "model-lambda",
        value_name: "",
        kind: Kind::Switch,
        help: "ANDD: weigh with the model's λ as trained. Without it λ is moved toward TF·IDF \
               (λ₀ + t(λ − λ₀), t halved from 1) when it would leave more of this collection's \
               documents with fewer positive k-gram weights than --min-kgrams than TF·IDF does \
               (a model trained on long pages that empties short ones); the run's summary \
               records t.",
        paper: None,
        get: |s| Some(Value::Switch(s.model_lambda)),
        unset: "",
        set: |s, v| s.model_lambda = v.on(),
    },
    Param {
        flag: "min-kgrams",
        value_name: "N",
        kind: Kind::at_least(1),
        help: "ANDD: documents whose text has fewer distinct k-grams are not matched.",
        paper: None,
        get: |s| Some(Value::Int(s.min_kgrams.unwrap_or(DEFAULT_MIN_KGRAMS) as u64)),
        unset: "",
        set: |s, v| s.min_kgrams = Some(v.int() as usize),
    },
];

/// What a run records of λ's shrinking (`learn::shrink`).
fn shrink_json(s: &Shrunk) -> serde_json::Value {
    json!({
        "t": s.t,
        "checked": s.checked,
        "emptied_trained": s.emptied,
        "emptied_tfidf": s.emptied_prior,
        "emptied_used": s.emptied_chosen,
    })
}

/// Where a run's threshold comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ThresholdFrom {
    /// `--threshold`.
    Flag(f64),
    /// The model's (`--model-threshold`).
    Model(f64),
    /// This collection's pair scores: pairs are matched down to the floor, then cut.
    Collection { floor: f64, model: f64 },
}

impl ThresholdFrom {
    /// The lowest similarity matched.
    fn matched(self) -> f64 {
        match self {
            ThresholdFrom::Flag(t) | ThresholdFrom::Model(t) => t,
            ThresholdFrom::Collection { floor, .. } => floor,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ThresholdFrom::Flag(_) => "flag",
            ThresholdFrom::Model(_) => "model",
            ThresholdFrom::Collection { .. } => "collection",
        }
    }
}

/// What signing needs: the model, the collection's document frequencies and titles.
pub struct Prepared {
    model: AnddModel,
    model_path: PathBuf,
    text: TextKind,
    threshold: ThresholdFrom,
    candidates: Candidates,
    min_kgrams: usize,
    /// λ shrunk for this collection (None with `--model-lambda`); `model.lambda` holds the
    /// weights used, `trained_lambda` the model's own.
    shrunk: Option<Shrunk>,
    trained_lambda: Vec<f64>,
    dfs: DocFreqs,
    titles: HashMap<i64, String>,
    /// When the collection pass ended (the summary's `df_seconds`).
    dfs_done: Instant,
}

impl Detector for Andd {
    type Settings = AnddSettings;
    type Prepared = Prepared;
    type Sig = SparseVec;

    const NAME: &'static str = "andd";
    const TITLE: &'static str = "ANDD";
    const IN_ALL: InAll = InAll::WhenGiven("model");

    fn params() -> &'static [Param<S>] {
        PARAMS
    }

    /// The text the model was trained on; `--text` does not change it.
    fn text(_s: &mut S) -> Option<&mut TextKind> {
        None
    }

    fn text_unset() -> &'static str {
        "the model's"
    }

    fn check(s: &S) -> Result<(), String> {
        if s.model.as_os_str().is_empty() {
            return Err(
                "--model: `detect --method andd` needs a model: train one with \
                        `spotcheck train --db DB --out MODEL`, then pass `--model MODEL`"
                    .into(),
            );
        }
        match (s.lsh_bits.filter(|&b| b > 0), s.lsh_bands) {
            (None, Some(_)) => Err("--lsh-bands: needs --lsh-bits N (N > 0)".into()),
            (Some(bits), Some(bands)) if bands > Lsh::new(bits, DEFAULT_LSH_SEED).bits => Err(
                format!("--lsh-bands: expected at most the signature's bits, got {bands}"),
            ),
            _ => Ok(()),
        }
    }

    fn prepare(s: &S, store: &Store, _shared: &Shared) -> Result<Prepared> {
        let mut model = load_model(&s.model)?;
        let threshold = match s.threshold {
            Some(t) => ThresholdFrom::Flag(t),
            None if s.model_threshold => ThresholdFrom::Model(model.threshold),
            // A model threshold below the floor lowers it: its own cut stays reachable.
            None => ThresholdFrom::Collection {
                floor: COLLECTION_FLOOR.min(model.threshold),
                model: model.threshold,
            },
        };
        let t = threshold.matched();
        if !(t > 0.0 && t <= 1.0) {
            bail!("ANDD threshold must be in (0, 1], got {t}");
        }
        let text = text_kind_of(&model.text);
        let candidates = match s.lsh_bits {
            Some(bits) if bits > 0 => {
                let lsh = Lsh::new(bits, DEFAULT_LSH_SEED);
                let bands = s
                    .lsh_bands
                    .unwrap_or_else(|| auto_bands(lsh.bits, model.similarity, t));
                Candidates::Lsh { lsh, bands }
            }
            _ => Candidates::Index,
        };
        let titles = store.doc_titles()?;
        let min_kgrams = s.min_kgrams.unwrap_or(DEFAULT_MIN_KGRAMS);
        // λ is checked on the documents of at most FIT_DOCUMENTS (a seeded subset of a larger
        // collection, as the collection threshold's fit), whose k-grams the DF pass keeps.
        let checked: HashSet<i64> = if s.model_lambda {
            HashSet::new()
        } else {
            let mut ids: Vec<i64> = titles.keys().copied().collect();
            ids.sort_unstable();
            let all: Vec<usize> = (0..ids.len()).collect();
            fit_subset(&all, FIT_DOCUMENTS, FIT_SEED)
                .into_iter()
                .map(|i| ids[i])
                .collect()
        };
        let (dfs, terms) = collection_terms(store, text, model.k, &checked)?;
        let trained_lambda = model.lambda.clone();
        let shrunk = (!s.model_lambda).then(|| {
            let feats: Vec<DocFeatures> = terms.values().map(|t| features(t, &dfs)).collect();
            shrink_to_collection(&feats, &model.lambda, &prior(model.k), min_kgrams)
        });
        drop(terms);
        if let Some(sh) = &shrunk {
            model.lambda = sh.lambda.clone();
        }
        let dfs_done = Instant::now();
        Ok(Prepared {
            titles,
            shrunk,
            trained_lambda,
            model_path: s.model.clone(),
            text,
            threshold,
            candidates,
            min_kgrams,
            dfs,
            model,
            dfs_done,
        })
    }

    fn reads(p: &Prepared) -> TextKind {
        p.text
    }

    /// The resolved threshold, candidates and minimum, with the model's own settings.
    fn stored_params(_s: &S, p: &Prepared) -> Result<serde_json::Value> {
        let m = &p.model;
        // A collection threshold is known once the pairs are scored: the run's summary
        // holds it (`threshold`, `collection_fit`).
        let threshold = match p.threshold {
            ThresholdFrom::Flag(t) | ThresholdFrom::Model(t) => Some(t),
            ThresholdFrom::Collection { .. } => None,
        };
        Ok(json!({
            "model": p.model_path,
            "threshold": threshold,
            "threshold_from": p.threshold.name(),
            "matched_from": p.threshold.matched(),
            "model_threshold": m.threshold,
            "candidates": p.candidates,
            "min_kgrams": p.min_kgrams,
            "k": m.k,
            "similarity": m.similarity,
            "text": m.text,
            "lambda": m.lambda,
            "trained_lambda": p.trained_lambda,
            "lambda_shrink": p.shrunk.as_ref().map(shrink_json),
            "features": m.features,
        }))
    }

    fn signer(p: &Prepared) -> impl Fn(&DocText) -> SparseVec + Sync + '_ {
        move |d| {
            let title = p.titles.get(&d.id).map_or("", String::as_str);
            let input = DocInput {
                text: &d.text,
                title,
                url: &d.url,
            };
            // The stub rule counts the text's distinct k-grams, not those the weights
            // keep: a rule on the weighted vector is a knife edge in λ (issue 20).
            let f = features(&doc_terms(&input, p.model.k), &p.dfs);
            if f.len() < p.min_kgrams {
                SparseVec::default()
            } else {
                weigh(&f, &p.model.lambda)
            }
        }
    }

    fn find_pairs(p: Prepared, vecs: Vec<SparseVec>, ctx: &RunContext) -> Result<Found> {
        let Prepared {
            model,
            text,
            threshold,
            candidates,
            dfs,
            dfs_done,
            shrunk,
            ..
        } = p;
        drop(dfs);
        let ids = ctx.ids;
        let df_at = dfs_done.duration_since(ctx.started).as_secs_f64();
        let weighed_at = ctx.started.elapsed().as_secs_f64();
        // A collection threshold is fitted on the pairs ≥ the floor among at most
        // FIT_DOCUMENTS matchable documents (all of them in a small collection, whose
        // pairs are then cut instead of matched again).
        let mut fit = None;
        let mut fit_documents = None;
        let mut scored_for_fit = None;
        let mut matched_all = None;
        let cut = match threshold {
            ThresholdFrom::Flag(t) | ThresholdFrom::Model(t) => t,
            ThresholdFrom::Collection {
                floor,
                model: fallback,
            } => {
                let matchable: Vec<usize> =
                    (0..vecs.len()).filter(|&i| !vecs[i].is_empty()).collect();
                let subset = fit_subset(&matchable, FIT_DOCUMENTS, FIT_SEED);
                let scores: Vec<f64> = if subset.len() == matchable.len() {
                    let found = match_pairs(&vecs, model.similarity, floor, candidates);
                    let s = found.0.iter().map(|p| p.2).collect();
                    matched_all = Some(found);
                    s
                } else {
                    let sub: Vec<SparseVec> = subset.iter().map(|&i| vecs[i].clone()).collect();
                    let (found, _) = match_pairs(&sub, model.similarity, floor, candidates);
                    found.iter().map(|p| p.2).collect()
                };
                fit_documents = Some(subset.len());
                scored_for_fit = Some(scores.len());
                fit = collection_threshold(&scores, floor);
                fit.map_or(fallback, |f| f.threshold)
            }
        };
        let (mut pairs, stats) = match matched_all {
            Some(found) => found,
            None => match_pairs(&vecs, model.similarity, cut, candidates),
        };
        let candidates_scored = scored_for_fit.unwrap_or(pairs.len());
        pairs.retain(|p| p.2 >= cut);
        let matched_at = ctx.started.elapsed().as_secs_f64();
        // Evidence: the k-grams with the largest share of each pair's dot product, named
        // from the texts of the paired documents.
        const TOP: usize = 5;
        let tops: Vec<Vec<(u64, f64)>> = pairs
            .par_iter()
            .map(|&(a, b, _)| top_shared(&vecs[a as usize], &vecs[b as usize], TOP))
            .collect();
        let wanted: HashSet<u64> = tops.iter().flatten().map(|t| t.0).collect();
        let paired: HashSet<i64> = pairs
            .iter()
            .flat_map(|&(a, b, _)| [ids[a as usize], ids[b as usize]])
            .collect();
        let mut names: HashMap<u64, String> = HashMap::new();
        ctx.store.for_each_text_chunk(text, CHUNK, |chunk| {
            let found: Vec<Vec<(u64, String)>> = chunk
                .par_iter()
                .filter(|d| paired.contains(&d.id))
                .map(|d| gram_names(&d.text, model.k, |h| wanted.contains(&h)))
                .collect();
            for (h, n) in found.into_iter().flatten() {
                names.entry(h).or_insert(n);
            }
            Ok(())
        })?;
        let named_at = ctx.started.elapsed().as_secs_f64();
        let details: Vec<Option<String>> = tops
            .iter()
            .map(|top| {
                let grams: Vec<&str> = top
                    .iter()
                    .filter_map(|(h, _)| names.get(h).map(String::as_str))
                    .collect();
                (!grams.is_empty()).then(|| format!("top k-grams: {}", grams.join(", ")))
            })
            .collect();
        let summary = json!({
            "documents": ids.len(),
            "matchable": vecs.len() - stats.empty,
            "too_few_kgrams": stats.empty,
            "pairs": pairs.len(),
            "candidates": stats.candidates,
            "indexed": stats.indexed,
            "threshold": cut,
            "threshold_from": threshold.name(),
            "scored_pairs": candidates_scored,
            "fit_documents": fit_documents,
            "lambda_shrink": shrunk.as_ref().map(shrink_json),
            "collection_fit": fit.map(|f| json!({
                "copies": f.copies,
                "copy_scale": f.copy_scale,
                "other_scale": f.other_scale,
                "expected_f1": f.expected_f1,
                "iterations": f.iterations,
            })),
            "df_seconds": df_at,
            "weigh_seconds": weighed_at - df_at,
            "match_seconds": matched_at - weighed_at,
            "evidence_seconds": named_at - matched_at,
        });
        let lsh = match candidates {
            Candidates::Lsh { lsh, .. } => Some(lsh),
            Candidates::Index => None,
        };
        Ok(Found {
            pairs,
            detail: Some(Box::new(move |i| details.get(i).cloned().flatten())),
            clusters: None,
            doc_sig: Box::new(move |i| {
                let v = vecs.get(i).filter(|v| !v.is_empty())?;
                let mut sig = json!({"kgrams": v.len()});
                if let Some(l) = &lsh {
                    merge(&mut sig, json!({"lsh": signature_hex(&l.signature(v))}));
                }
                Some(sig)
            }),
            summary,
        })
    }

    /// The k-grams the run named in the pair's detail, wherever they occur in each text.
    fn explain(_s: &S, pair: &PairText) -> (Vec<Highlight>, Vec<Highlight>) {
        let grams = pair.detail.map(andd_grams).unwrap_or_default();
        if grams.is_empty() {
            return (Vec::new(), Vec::new());
        }
        (
            kgram_highlights(pair.left, &grams),
            kgram_highlights(pair.right, &grams),
        )
    }
}

/// The k-grams an ANDD run named as the pair's evidence: its pair detail reads
/// `top k-grams: a, b c, d` (words of a k-gram joined by spaces, k-grams by ", ").
pub fn andd_grams(detail: &str) -> Vec<String> {
    detail
        .strip_prefix("top k-grams: ")
        .map(|list| {
            list.split(", ")
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Every occurrence in `text` of the given k-grams (lowercased words joined by one space)
/// as an `AnddGram` span from its first word to its last.
pub fn kgram_highlights(text: &str, grams: &[String]) -> Vec<Highlight> {
    let wanted: HashSet<Vec<&str>> = grams.iter().map(|g| g.split(' ').collect()).collect();
    let mut sizes: Vec<usize> = wanted.iter().map(Vec::len).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let tokens = tokenize(text);
    let mut out = Vec::new();
    for k in sizes.into_iter().filter(|&k| k > 0) {
        for w in tokens.windows(k) {
            let words: Vec<&str> = w.iter().map(|t| t.norm.as_str()).collect();
            if wanted.contains(&words) {
                out.push(Highlight {
                    start: w[0].start,
                    end: w[k - 1].end,
                    kind: HighlightKind::AnddGram,
                });
            }
        }
    }
    out
}
