//! The ANDD model file and the collection pass its vectors need: reading and writing a
//! model, which stored text it reads, and one streamed pass over the collection's k-grams
//! (document frequencies, and the k-gram statistics of chosen documents). Shared by
//! `train` and ANDD detection.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::andd::AnddModel;
use crate::sig::andd::{doc_terms, DocFreqs, DocInput, DocTerms};
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

/// `visible` / `main`.
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
