//! Staged detection for more than one machine: the same methods cut at their seams into
//! stages that exchange files, each stage runnable on one shard anywhere.
//!
//! count (per shard: the term document frequencies `prepare` needs) → stats (sum the
//! shards' counts) → sign (per shard: one row per document with the method's own signature,
//! made by the method's own `signer` under the collection's statistics) → match (all the
//! shards' rows: the method's own `find_pairs`, so the pairs and clusters are exactly those
//! of a single-process `detect` with the same parameters) → import (the pairs and clusters
//! as a run of a review database holding the documents).
//!
//! The seams: a method's `prepare` may read collection statistics only through
//! [`Staged::prepare_from`]; everything else it needs from the collection (SpotSigs' idf
//! window and site rule) is computed by `find_pairs` from the signatures themselves, so it
//! is global in the match stage. A document's exact-duplicate group, a database row id in
//! `detect`, is a key derived from its content hash here (the same classes across shards).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::driver::{cluster_rows, CHUNK};
use super::imatch::collection_dfs;
use super::method::{settings_from_stored, validate, Detector, RunContext};
use crate::sig::lexicon::{DocFreqs, TermOptions};
use crate::store::{DocText, Store, TextKind};

/// A method that runs in stages.
pub trait Staged: Detector<Sig: Serialize + DeserializeOwned> {
    /// The text whose term document frequencies `prepare` needs (`None`: none).
    fn counted_text(settings: &Self::Settings) -> Option<TextKind>;
    /// `prepare` from the collection's statistics instead of a store.
    fn prepare_from(settings: &Self::Settings, dfs: Option<&DocFreqs>) -> Result<Self::Prepared>;
}

/// One row of the sign stage's output.
#[derive(Debug, Serialize, Deserialize)]
pub struct SignedDoc<S> {
    pub url: String,
    /// SHA-1 of the visible text (the content hash `merge` and exact duplicates use).
    pub text_hash: String,
    pub sig: S,
}

/// One pair of the match stage's output (URLs in the order of the signed rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StagedPair {
    pub a: String,
    pub b: String,
    pub score: f64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub detail: Option<String>,
}

/// One cluster of the match stage's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StagedCluster {
    pub urls: Vec<String>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    /// The weakest edge whose removal splits it: (url, url, score).
    pub bridge: Option<(String, String, f64)>,
}

/// What the match stage found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StagedRun {
    pub method: String,
    pub params: Value,
    pub documents: usize,
    pub pairs: Vec<StagedPair>,
    pub clusters: Vec<StagedCluster>,
    pub seconds: f64,
}

/// An exact-duplicate group key from a content hash (the same on every shard).
fn dup_key(text_hash: &str) -> i64 {
    let head = text_hash.get(..16).unwrap_or(text_hash);
    u64::from_str_radix(head, 16).unwrap_or(0) as i64
}

fn settings_of<D: Staged>(params: &Value) -> Result<D::Settings> {
    let settings: D::Settings = settings_from_stored(params);
    validate::<D>(&settings).map_err(|e| anyhow::anyhow!("{}: {e}", D::NAME))?;
    Ok(settings)
}

/// A method of the table as the stage commands see it (no settings type).
pub trait StagedMethod: Sync {
    fn name(&self) -> &'static str;
    /// The count stage on one shard: `None` when the method needs no statistics.
    fn count(&self, params: &Value, shard: &Store) -> Result<Option<DocFreqs>>;
    /// The sign stage on one shard: JSON lines of [`SignedDoc`]; returns the rows written.
    fn sign(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        shard: &Store,
        out: &mut dyn Write,
    ) -> Result<usize>;
    /// The match stage over every shard's signed rows.
    fn match_rows(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        inputs: &mut dyn Iterator<Item = Result<Box<dyn BufRead>>>,
        scratch: &Store,
    ) -> Result<StagedRun>;
}

impl<D: Staged> StagedMethod for D {
    fn name(&self) -> &'static str {
        D::NAME
    }

    fn count(&self, params: &Value, shard: &Store) -> Result<Option<DocFreqs>> {
        let settings = settings_of::<D>(params)?;
        match D::counted_text(&settings) {
            Some(kind) => Ok(Some(collection_dfs(shard, kind, &TermOptions::default())?)),
            None => Ok(None),
        }
    }

    fn sign(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        shard: &Store,
        out: &mut dyn Write,
    ) -> Result<usize> {
        let settings = settings_of::<D>(params)?;
        let prepared = D::prepare_from(&settings, dfs)?;
        let hashes = shard.text_hashes()?;
        let sign = D::signer(&prepared);
        let mut n = 0;
        shard.for_each_text_chunk(D::reads(&prepared), CHUNK, |chunk| {
            let lines: Vec<Result<String>> = chunk
                .par_iter()
                .map(|d| {
                    let hash = hashes.get(&d.id).cloned().unwrap_or_default();
                    let sig = sign(&DocText {
                        dup_group: d.dup_group.map(|_| dup_key(&hash)),
                        ..d.clone()
                    });
                    Ok(serde_json::to_string(&SignedDoc {
                        url: d.url.clone(),
                        text_hash: hash,
                        sig,
                    })?)
                })
                .collect();
            for l in lines {
                out.write_all(l?.as_bytes())?;
                out.write_all(b"\n")?;
                n += 1;
            }
            Ok(())
        })?;
        Ok(n)
    }

    fn match_rows(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        inputs: &mut dyn Iterator<Item = Result<Box<dyn BufRead>>>,
        scratch: &Store,
    ) -> Result<StagedRun> {
        let started = Instant::now();
        let settings = settings_of::<D>(params)?;
        let prepared = D::prepare_from(&settings, dfs)?;
        let mut urls: Vec<String> = Vec::new();
        let mut sigs: Vec<D::Sig> = Vec::new();
        for input in inputs {
            for (i, line) in input?.lines().enumerate() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                let row: SignedDoc<D::Sig> = serde_json::from_str(&line)
                    .with_context(|| format!("signed row {}: not a {} row", i + 1, D::NAME))?;
                urls.push(row.url);
                sigs.push(row.sig);
            }
        }
        let ids: Vec<i64> = (0..urls.len() as i64).collect();
        let found = D::find_pairs(
            prepared,
            sigs,
            &RunContext {
                store: scratch,
                ids: &ids,
                started,
            },
        )?;
        let url = |i: i64| urls[i as usize].clone();
        let pairs: Vec<StagedPair> = found
            .pairs
            .iter()
            .enumerate()
            .map(|(p, &(a, b, score))| StagedPair {
                a: url(a as i64),
                b: url(b as i64),
                score,
                detail: found.detail.as_ref().and_then(|d| d(p)),
            })
            .collect();
        let clusters = found
            .clusters
            .unwrap_or_else(|| cluster_rows(&ids, &found.pairs))
            .into_iter()
            .map(|c| StagedCluster {
                urls: c.members.iter().map(|&m| url(m)).collect(),
                min_score: c.min_score,
                max_score: c.max_score,
                bridge: c.weakest_bridge.map(|(a, b, s)| (url(a), url(b), s)),
            })
            .collect();
        Ok(StagedRun {
            method: D::NAME.to_string(),
            params: serde_json::to_value(&settings)?,
            documents: urls.len(),
            pairs,
            clusters,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The methods that run in stages.
pub static STAGED: &[&dyn StagedMethod] = &[
    &super::spotsigs::SpotSigs,
    &super::imatch::IMatch,
    &super::cooper::Cooper,
];

/// The staged method called `name`.
pub fn staged_method(name: &str) -> Result<&'static dyn StagedMethod> {
    match STAGED.iter().find(|m| m.name() == name) {
        Some(m) => Ok(*m),
        None => bail!(
            "method {name} does not run in stages (staged: {})",
            STAGED
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Imports a match stage's run into a review database whose documents include every URL
/// of it: stored as a finished run of the method, as `detect` stores one.
pub fn import(store: &mut Store, run: &StagedRun) -> Result<i64> {
    let ids: HashMap<String, i64> = store.url_ids()?.into_iter().collect();
    let id = |u: &str| -> Result<i64> {
        match ids.get(u) {
            Some(&i) => Ok(i),
            None => bail!(
                "{}: the staged run names {} which is not a document here",
                store.path().display(),
                crate::review::sanitize_line(u)
            ),
        }
    };
    let mut params = run.params.clone();
    if let Some(o) = params.as_object_mut() {
        o.insert("staged".into(), Value::Bool(true));
    }
    let mut pairs = Vec::with_capacity(run.pairs.len());
    for p in &run.pairs {
        let (a, b) = (id(&p.a)?, id(&p.b)?);
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        pairs.push((a, b, p.score, p.detail.clone()));
    }
    let mut clusters = Vec::with_capacity(run.clusters.len());
    for c in &run.clusters {
        let mut members = c.urls.iter().map(|u| id(u)).collect::<Result<Vec<i64>>>()?;
        members.sort_unstable();
        let weakest_bridge = match &c.bridge {
            Some((a, b, s)) => Some((id(a)?, id(b)?, *s)),
            None => None,
        };
        clusters.push(crate::store::ClusterRow {
            members,
            min_score: c.min_score,
            max_score: c.max_score,
            weakest_bridge,
        });
    }
    clusters.sort_by(|x, y| {
        y.members
            .len()
            .cmp(&x.members.len())
            .then(x.members.cmp(&y.members))
    });
    let run_id = store.create_run(&run.method, &params)?;
    store.write_run_pairs(run_id, pairs)?;
    store.write_run_clusters(run_id, &clusters)?;
    store.finish_run(
        run_id,
        &serde_json::json!({
            "documents": run.documents,
            "matchable": run.documents,
            "pairs": run.pairs.len(),
            "clusters": run.clusters.len(),
            "staged": true,
            "seconds": run.seconds,
        }),
    )?;
    Ok(run_id)
}
