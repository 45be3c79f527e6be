//! `spotcheck train`: the ANDD similarity learned from the coders' labels. Reads the labeled
//! pairs (`learn::pairs`), the collection's document frequencies and the labeled
//! documents' k-gram features from the store, trains λ (`learn::andd`), and writes the model
//! file. Also the store-reading helpers `detect --method andd` shares.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::learn::andd::{self, AnddModel, TrainOptions, TrainPair};
use crate::sig::andd::{doc_terms, features, DocFeatures, DocFreqs, DocInput, DocTerms};
use crate::store::{Store, TextKind};

/// Documents per chunk streamed from the store.
const CHUNK: usize = 2048;

/// The stored text a model reads.
pub fn text_kind_of(name: &str) -> TextKind {
    if name == "visible" {
        TextKind::Visible
    } else {
        TextKind::Main
    }
}

pub fn text_name(kind: TextKind) -> &'static str {
    match kind {
        TextKind::Visible => "visible",
        TextKind::Main => "main",
    }
}

/// One pass over the collection: the document frequencies of its k-grams (and words), and
/// the k-gram statistics of the documents in `keep`.
pub fn collection_terms(
    store: &Store,
    text: TextKind,
    k: usize,
    keep: &HashSet<i64>,
) -> Result<(DocFreqs, HashMap<i64, DocTerms>)> {
    let titles = store.doc_titles()?;
    let mut dfs = DocFreqs::default();
    let mut kept = HashMap::new();
    store.for_each_text_chunk(text, CHUNK, |chunk| {
        let terms: Vec<DocTerms> = chunk
            .par_iter()
            .map(|d| {
                let title = titles.get(&d.id).map_or("", String::as_str);
                doc_terms(
                    &DocInput {
                        text: &d.text,
                        title,
                        url: &d.url,
                    },
                    k,
                )
            })
            .collect();
        for (d, t) in chunk.iter().zip(terms) {
            dfs.add(&t);
            if keep.contains(&d.id) {
                kept.insert(d.id, t);
            }
        }
        Ok(())
    })?;
    Ok((dfs, kept))
}

/// Trains a model on labeled pairs of document ids `(a, b, same)` of `store`.
pub fn train_on_pairs(
    store: &Store,
    pairs: &[(i64, i64, bool)],
    opts: &TrainOptions,
    text: TextKind,
    progress: impl FnMut(u64, f64) + Send + 'static,
) -> Result<AnddModel> {
    let as_train: Vec<TrainPair> = pairs
        .iter()
        .map(|&(a, b, same)| TrainPair {
            a: a as usize,
            b: b as usize,
            same,
        })
        .collect();
    // Refuse before reading the collection.
    andd::check_label_counts(&as_train)?;
    let ids: HashSet<i64> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    let (dfs, terms) = collection_terms(store, text, opts.k, &ids)?;
    let mut order: Vec<i64> = terms.keys().copied().collect();
    order.sort_unstable();
    let slot: HashMap<i64, usize> = order.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    let docs: Vec<DocFeatures> = order
        .par_iter()
        .map(|id| features(&terms[id], &dfs))
        .collect();
    let indexed: Vec<TrainPair> = pairs
        .iter()
        .filter_map(|&(a, b, same)| {
            Some(TrainPair {
                a: *slot.get(&a)?,
                b: *slot.get(&b)?,
                same,
            })
        })
        .collect();
    andd::train(&docs, &indexed, opts, text_name(text), progress)
}

/// Reads a model file.
pub fn load_model(path: &Path) -> Result<AnddModel> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read ANDD model {}", path.display()))?;
    AnddModel::from_json(&text, &path.display().to_string())
}

/// Writes a model file.
pub fn save_model(model: &AnddModel, path: &Path) -> Result<()> {
    std::fs::write(path, model.to_json() + "\n")
        .with_context(|| format!("cannot write ANDD model {}", path.display()))
}
