//! Query: which stored documents a method would pair an outside document with. The answer
//! is defined as what `detect` would propose if the outside documents were part of the
//! collection: the latest run's stored parameters, the method's own `prepare`, `signer` and
//! `find_pairs` over the stored documents plus the outside ones, keeping the pairs of one
//! outside and one stored document. No second implementation of any method, and nothing is
//! written: the store is only read.
//!
//! The stored documents' signatures are read from the run's signature index
//! (`run_signatures`, written by `detect`) when it covers every stored document, so only
//! the outside documents are signed; the matching (`find_pairs`) runs once per query
//! invocation over the stored signatures plus the outside ones, so a query of many outside
//! documents at once costs little more than one. Runs stored before the index (or
//! documents added since) are signed again.

use std::collections::BTreeSet;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::driver::CHUNK;
use super::method::{settings_from_stored, Detector, RunContext};
use crate::store::{DocText, Store};

/// One stored document a method pairs an outside document with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryHit {
    /// Index of the outside document (in the order they were given).
    pub outside: usize,
    /// The stored document's id.
    pub stored: i64,
    pub score: f64,
    /// The method's detail of the pair (as `pairs` shows it), if it has one.
    pub detail: Option<String>,
    /// The signatures both documents share (SpotSigs signatures, I-Match signatures, Cooper
    /// terms), as `sigs` shows them.
    pub shared: Vec<String>,
}

/// Runs method `D` under a run's stored parameters over `store`'s documents and the
/// `outside` texts (each given the text kind the method reads, see [`query_texts`]), and
/// returns the pairs between an outside and a stored document, by outside document then
/// score (highest first).
pub fn query_with<D: Detector>(
    run: i64,
    stored_params: &serde_json::Value,
    store: &Store,
    outside: &dyn Fn(crate::store::TextKind) -> Result<Vec<DocText>>,
) -> Result<Vec<QueryHit>> {
    let started = Instant::now();
    let settings: D::Settings = settings_from_stored(stored_params);
    let prepared = D::prepare(&settings, store, &super::shared::Shared::default())?;
    let kind = D::reads(&prepared);
    let outside_docs = outside(kind)?;
    let mut ids: Vec<i64> = Vec::new();
    let mut sigs: Vec<D::Sig> = Vec::new();
    {
        let sign = D::signer(&prepared);
        // The run's signature index when it covers the documents stored now; otherwise
        // (a run stored before the index, or a method without one) sign them again.
        let indexed: Option<Vec<(i64, D::Sig)>> = store.run_signatures(run)?.and_then(|rows| {
            if !D::load_index(&prepared, rows.iter().map(|(_, b)| b.as_slice())) {
                return None;
            }
            rows.into_par_iter()
                .map(|(id, b)| D::sig_from_bytes(&prepared, &b).map(|s| (id, s)))
                .collect()
        });
        match indexed {
            Some(rows) => {
                for (id, sig) in rows {
                    ids.push(id);
                    sigs.push(sig);
                }
            }
            None => store.for_each_text_chunk(kind, CHUNK, |chunk| {
                let signed: Vec<D::Sig> = chunk.par_iter().map(&sign).collect();
                ids.extend(chunk.iter().map(|d| d.id));
                sigs.extend(signed);
                Ok(())
            })?,
        }
        // Outside documents have negative ids and no exact-duplicate group of this store.
        let signed: Vec<D::Sig> = outside_docs
            .par_iter()
            .map(|d| {
                sign(&DocText {
                    dup_group: None,
                    ..d.clone()
                })
            })
            .collect();
        ids.extend((0..outside_docs.len()).map(|k| -(k as i64) - 1));
        sigs.extend(signed);
    }
    let n_stored = ids.len() - outside_docs.len();
    // The stored pages' families: an outside page on a site of one joins it.
    let sites = if D::READS_SITES {
        store.site_families()?
    } else {
        Default::default()
    };
    let found = D::find_pairs(
        prepared,
        sigs,
        &RunContext {
            store,
            ids: &ids,
            started,
            sites: &sites,
        },
    )?;
    let sig_keys = |i: usize| -> BTreeSet<String> {
        match (found.doc_sig)(i) {
            Some(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
            _ => BTreeSet::new(),
        }
    };
    let mut hits = Vec::new();
    for (p, &(a, b, score)) in found.pairs.iter().enumerate() {
        let (a, b) = (a as usize, b as usize);
        let (out, stored) = match (a >= n_stored, b >= n_stored) {
            (true, false) => (a, b),
            (false, true) => (b, a),
            _ => continue,
        };
        let shared: Vec<String> = sig_keys(out)
            .intersection(&sig_keys(stored))
            .cloned()
            .collect();
        hits.push(QueryHit {
            outside: out - n_stored,
            stored: ids[stored],
            score,
            detail: found.detail.as_ref().and_then(|d| d(p)),
            shared,
        });
    }
    hits.sort_by(|x, y| {
        x.outside
            .cmp(&y.outside)
            .then(y.score.total_cmp(&x.score))
            .then(x.stored.cmp(&y.stored))
    });
    Ok(hits)
}
