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
//!
//! The files between stages are Parquet with `spotcheck.*` key-value metadata (the stage
//! that wrote it, the method, its parameters): counts and stats one row per term, signed
//! files one row per document (URL, content hash, length, date, locator and the method's
//! own typed signature columns, [`Staged::sig_columns`]), runs one row per pair then one
//! per cluster member. The Spark job `examples/spark/match.py` reads the signed files and
//! writes a run directory [`read_run`] reads.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use arrow_array::RecordBatch;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::driver::{cluster_rows, CHUNK};
use super::imatch::collection_dfs;
use super::method::{settings_from_stored, validate, Detector, RunContext};
use crate::columnar::{
    batch_floats, batch_ints, batch_texts, read_parquet_batches, Column, ParquetSink, Table,
};
use crate::sig::lexicon::{DocFreqs, TermOptions};
use crate::store::{DocText, Store, TextKind};

/// The key-value metadata every stage file carries: which stage wrote it.
pub const META_STAGE: &str = "spotcheck.stage";
const META_METHOD: &str = "spotcheck.method";
const META_PARAMS: &str = "spotcheck.params";
const META_DOCUMENTS: &str = "spotcheck.documents";
const META_SECONDS: &str = "spotcheck.seconds";
/// A counts or stats file's number of documents (absent: the method needs no statistics).
const META_N_DOCS: &str = "spotcheck.n_docs";

/// A method that runs in stages.
pub trait Staged: Detector {
    /// The text whose term document frequencies `prepare` needs (`None`: none).
    fn counted_text(settings: &Self::Settings) -> Option<TextKind>;
    /// `prepare` from the collection's statistics instead of a store.
    fn prepare_from(settings: &Self::Settings, dfs: Option<&DocFreqs>) -> Result<Self::Prepared>;
    /// The signature columns of the sign stage's Parquet rows (typed, named after the
    /// method, so Spark or pandas read them as lists of strings and integers).
    fn sig_columns(sigs: Vec<Self::Sig>) -> Vec<(&'static str, Column)>;
    /// The signatures back from those columns of one batch.
    fn sigs_from_batch(batch: &RecordBatch) -> Result<Vec<Self::Sig>>;
    /// Metadata the sign stage's files carry beside the rows, for a match stage that is not
    /// this program (the Spark job): what it needs of `prepared` to match as `detect` does.
    fn sign_meta(
        _prepared: &Self::Prepared,
        _settings: &Self::Settings,
    ) -> Vec<(&'static str, String)> {
        Vec::new()
    }
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

/// What the match stage found. `clusters: None` (a run file with pair rows only, as the
/// Spark job writes for SpotSigs and Cooper): the connected components of the pairs with
/// their weakest bridge, what `detect` stores for a method without clusters of its own.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StagedRun {
    pub method: String,
    pub params: Value,
    pub documents: usize,
    pub pairs: Vec<StagedPair>,
    pub clusters: Option<Vec<StagedCluster>>,
    pub seconds: f64,
}

/// An exact-duplicate group key from a content hash (the same on every shard).
pub fn dup_key(text_hash: &str) -> i64 {
    let head = text_hash.get(..16).unwrap_or(text_hash);
    u64::from_str_radix(head, 16).unwrap_or(0) as i64
}

/// The settings a stage runs with: the given `--params` over today's defaults, as `detect`
/// takes its flags. (A stored run's settings are read with [`settings_from_stored`] alone,
/// where a key the run predates means that setting was off; given params are not a stored
/// run, and a key left out must mean the default, or the stages would differ from `detect`.)
fn settings_of<D: Staged>(params: &Value) -> Result<D::Settings> {
    let mut merged = serde_json::to_value(D::Settings::default())?;
    if let (Some(m), Some(given)) = (merged.as_object_mut(), params.as_object()) {
        for (k, v) in given {
            m.insert(k.clone(), v.clone());
        }
    }
    let settings: D::Settings = settings_from_stored(&merged);
    validate::<D>(&settings).map_err(|e| anyhow::anyhow!("{}: {e}", D::NAME))?;
    Ok(settings)
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::new(File::create(path).with_context(|| {
        format!("cannot create {}", path.display())
    })?))
}

fn expect_stage(path: &Path, meta: &HashMap<String, String>, stage: &str) -> Result<()> {
    match meta.get(META_STAGE) {
        Some(s) if s == stage => Ok(()),
        Some(s) => bail!(
            "{}: a {s} file, where a {stage} file was expected",
            path.display()
        ),
        None => bail!(
            "{}: not a spotcheck stage file (no {META_STAGE} metadata)",
            path.display()
        ),
    }
}

// ----------------------------------------------------------------- counts and stats

/// Writes a count or stats file: one row per term (`term`, `df`), the document count in
/// the metadata (`None`: the method needs no statistics, a file with no rows).
pub fn write_counts(path: &Path, stage: &str, counts: Option<&DocFreqs>) -> Result<()> {
    let mut meta = vec![(META_STAGE, stage.to_string())];
    let mut table = Table::default();
    match counts {
        Some(c) => {
            meta.push((META_N_DOCS, c.n_docs.to_string()));
            let mut terms: Vec<(&String, &u32)> = c.df.iter().collect();
            terms.sort_unstable();
            table.push(
                "term",
                Column::Text(terms.iter().map(|(t, _)| Some((*t).clone())).collect()),
            );
            table.push(
                "df",
                Column::Int(terms.iter().map(|(_, &d)| Some(i64::from(d))).collect()),
            );
        }
        None => {
            table.push("term", Column::Text(Vec::new()));
            table.push("df", Column::Int(Vec::new()));
        }
    }
    let empty = table.clone();
    let mut sink = ParquetSink::new(create(path)?, &meta);
    sink.write(&table)?;
    sink.close(&empty)
}

/// Reads a count (`stage` "counts") or stats ("stats") file.
pub fn read_counts(path: &Path, stage: &str) -> Result<Option<DocFreqs>> {
    let (batches, meta) = read_parquet_batches(path)?;
    expect_stage(path, &meta, stage)?;
    let Some(n) = meta.get(META_N_DOCS) else {
        return Ok(None);
    };
    let mut out = DocFreqs {
        n_docs: n
            .parse()
            .with_context(|| format!("{}: bad {META_N_DOCS}", path.display()))?,
        ..DocFreqs::default()
    };
    for b in &batches {
        let mut read = || -> Result<()> {
            for (t, d) in batch_texts(b, "term")?
                .into_iter()
                .zip(batch_ints(b, "df")?)
            {
                if let (Some(t), Some(d)) = (t, d) {
                    out.df
                        .insert(t, u32::try_from(d).context("df out of range")?);
                }
            }
            Ok(())
        };
        read().with_context(|| format!("{}: not a {stage} file", path.display()))?;
    }
    Ok(Some(out))
}

// ----------------------------------------------------------------- run files

/// Writes a match stage's run: one row per pair (`a`, `b`, `score`, `detail`, `cluster`
/// null), then one row per cluster member (`a` the member's URL, `cluster` its cluster
/// number, the cluster's `min_score`/`max_score` and weakest bridge `bridge_a`,
/// `bridge_b`, `bridge_score` on each of its rows).
pub fn write_run(path: &Path, run: &StagedRun) -> Result<()> {
    let meta = [
        (META_STAGE, "run".to_string()),
        (META_METHOD, run.method.clone()),
        (META_PARAMS, run.params.to_string()),
        (META_DOCUMENTS, run.documents.to_string()),
        (META_SECONDS, run.seconds.to_string()),
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut score = Vec::new();
    let mut detail = Vec::new();
    let mut cluster = Vec::new();
    let (mut lo, mut hi, mut ba, mut bb, mut bs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for p in &run.pairs {
        a.push(Some(p.a.clone()));
        b.push(Some(p.b.clone()));
        score.push(Some(p.score));
        detail.push(p.detail.clone());
        cluster.push(None);
        lo.push(None);
        hi.push(None);
        ba.push(None);
        bb.push(None);
        bs.push(None);
    }
    for (k, c) in run.clusters.iter().flatten().enumerate() {
        for u in &c.urls {
            a.push(Some(u.clone()));
            b.push(None);
            score.push(None);
            detail.push(None);
            cluster.push(Some(k as i64));
            lo.push(c.min_score);
            hi.push(c.max_score);
            ba.push(c.bridge.as_ref().map(|x| x.0.clone()));
            bb.push(c.bridge.as_ref().map(|x| x.1.clone()));
            bs.push(c.bridge.as_ref().map(|x| x.2));
        }
    }
    let mut t = Table::default();
    t.push("a", Column::Text(a));
    t.push("b", Column::Text(b));
    t.push("score", Column::Float(score));
    t.push("detail", Column::Text(detail));
    t.push("cluster", Column::Int(cluster));
    t.push("min_score", Column::Float(lo));
    t.push("max_score", Column::Float(hi));
    t.push("bridge_a", Column::Text(ba));
    t.push("bridge_b", Column::Text(bb));
    t.push("bridge_score", Column::Float(bs));
    let mut sink = ParquetSink::new(create(path)?, &meta);
    sink.write(&t)?;
    sink.close(&t)
}

/// Reads a run file (the match stage's, or the Spark job's: the same columns, where
/// `cluster` and the cluster columns may be absent, and the `spotcheck.*` metadata may
/// instead be given as the method and parameters of `stage import`).
pub fn read_run(path: &Path) -> Result<StagedRun> {
    let (batches, meta) = if path.is_dir() {
        read_run_dir(path)?
    } else {
        read_parquet_batches(path)?
    };
    expect_stage(path, &meta, "run")?;
    let get = |k: &str| {
        meta.get(k)
            .with_context(|| format!("{}: no {k} metadata", path.display()))
    };
    let bad = |k: &str| format!("{}: bad {k} metadata", path.display());
    let mut run = StagedRun {
        method: get(META_METHOD)?.clone(),
        params: serde_json::from_str(get(META_PARAMS)?).with_context(|| bad(META_PARAMS))?,
        documents: get(META_DOCUMENTS)?
            .parse()
            .with_context(|| bad(META_DOCUMENTS))?,
        pairs: Vec::new(),
        clusters: None,
        seconds: meta
            .get(META_SECONDS)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0),
    };
    let mut clusters: std::collections::BTreeMap<i64, StagedCluster> = Default::default();
    for batch in &batches {
        let mut read = || -> Result<()> {
            let a = batch_texts(batch, "a")?;
            let b = batch_texts(batch, "b")?;
            let score = batch_floats(batch, "score")?;
            // The cluster columns are optional (a run of pairs only has none).
            let has = |n: &str| batch.column_by_name(n).is_some();
            let rows = batch.num_rows();
            let cluster = if has("cluster") {
                batch_ints(batch, "cluster")?
            } else {
                vec![None; rows]
            };
            let cols = |n: &str| -> Result<Vec<Option<f64>>> {
                if has(n) {
                    batch_floats(batch, n)
                } else {
                    Ok(vec![None; rows])
                }
            };
            let texts = |n: &str| -> Result<Vec<Option<String>>> {
                if has(n) {
                    batch_texts(batch, n)
                } else {
                    Ok(vec![None; rows])
                }
            };
            let detail = texts("detail")?;
            let (lo, hi, bs) = (
                cols("min_score")?,
                cols("max_score")?,
                cols("bridge_score")?,
            );
            let (ba, bb) = (texts("bridge_a")?, texts("bridge_b")?);
            for i in 0..batch.num_rows() {
                match (cluster[i], &a[i], &b[i], score[i]) {
                    (Some(k), Some(u), _, _) => {
                        let c = clusters.entry(k).or_insert_with(|| StagedCluster {
                            urls: Vec::new(),
                            min_score: lo[i],
                            max_score: hi[i],
                            bridge: match (&ba[i], &bb[i], bs[i]) {
                                (Some(x), Some(y), Some(s)) => Some((x.clone(), y.clone(), s)),
                                _ => None,
                            },
                        });
                        c.urls.push(u.clone());
                    }
                    (None, Some(x), Some(y), Some(s)) => run.pairs.push(StagedPair {
                        a: x.clone(),
                        b: y.clone(),
                        score: s,
                        detail: detail[i].clone(),
                    }),
                    _ => bail!("row {i}: neither a pair (a, b, score) nor a cluster member"),
                }
            }
            Ok(())
        };
        read().with_context(|| format!("{}: not a run file", path.display()))?;
    }
    if !clusters.is_empty() {
        run.clusters = Some(clusters.into_values().collect());
    }
    Ok(run)
}

/// A run written as a directory (the Spark job's): every `*.parquet` file in it, the
/// metadata from the one that has it (`_run.parquet`).
fn read_run_dir(dir: &Path) -> Result<(Vec<RecordBatch>, HashMap<String, String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "parquet")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    let mut batches = Vec::new();
    let mut meta = HashMap::new();
    for f in &files {
        let (b, m) = read_parquet_batches(f)?;
        batches.extend(b);
        if m.contains_key(META_STAGE) {
            meta = m;
        }
    }
    Ok((batches, meta))
}

// ----------------------------------------------------------------- the stages

/// A method of the table as the stage commands see it (no settings type).
pub trait StagedMethod: Sync {
    fn name(&self) -> &'static str;
    /// The count stage on one shard: `None` when the method needs no statistics.
    fn count(&self, params: &Value, shard: &Store) -> Result<Option<DocFreqs>>;
    /// The sign stage on one shard: one Parquet row per document (URL, content hash,
    /// text length, capture date, locator and the method's signature columns), a row group
    /// per chunk; returns the rows written.
    fn sign(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        shard: &Store,
        out: &Path,
    ) -> Result<usize>;
    /// The match stage over every shard's signed rows.
    fn match_rows(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        inputs: &[PathBuf],
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
        out: &Path,
    ) -> Result<usize> {
        let settings = settings_of::<D>(params)?;
        let prepared = D::prepare_from(&settings, dfs)?;
        let hashes = shard.text_hashes()?;
        let located = shard.doc_locators()?;
        let sign = D::signer(&prepared);
        let mut meta = vec![
            (META_STAGE, "signed".to_string()),
            (META_METHOD, D::NAME.to_string()),
            (META_PARAMS, serde_json::to_value(&settings)?.to_string()),
        ];
        meta.extend(D::sign_meta(&prepared, &settings));
        let mut sink = ParquetSink::new(create(out)?, &meta);
        let table_of = |first: usize, docs: &[DocText], sigs: Vec<D::Sig>| -> Table {
            let mut t = Table::default();
            // The row's place in the shard: with the shard's place in the match stage's
            // list, a document's index there (what "first member" means).
            t.push(
                "row",
                Column::Int(
                    (first..first + docs.len())
                        .map(|r| Some(r as i64))
                        .collect(),
                ),
            );
            t.push(
                "url",
                Column::Text(docs.iter().map(|d| Some(d.url.clone())).collect()),
            );
            t.push(
                "text_hash",
                Column::Text(docs.iter().map(|d| hashes.get(&d.id).cloned()).collect()),
            );
            t.push(
                "length",
                Column::Int(
                    docs.iter()
                        .map(|d| Some(d.text.chars().count() as i64))
                        .collect(),
                ),
            );
            t.push(
                "date",
                Column::Text(
                    docs.iter()
                        .map(|d| located.get(&d.id).and_then(|l| l.0.clone()))
                        .collect(),
                ),
            );
            t.push(
                "locator",
                Column::Text(
                    docs.iter()
                        .map(|d| located.get(&d.id).map(|l| l.1.clone()))
                        .collect(),
                ),
            );
            for (name, c) in D::sig_columns(sigs) {
                t.push(name, c);
            }
            t
        };
        let mut n = 0;
        shard.for_each_text_chunk(D::reads(&prepared), CHUNK, |chunk| {
            let sigs: Vec<D::Sig> = chunk
                .par_iter()
                .map(|d| {
                    let hash = hashes.get(&d.id).map_or("", String::as_str);
                    sign(&DocText {
                        dup_group: d.dup_group.map(|_| dup_key(hash)),
                        ..d.clone()
                    })
                })
                .collect();
            let table = table_of(n, &chunk, sigs);
            n += chunk.len();
            sink.write(&table)
        })?;
        sink.close(&table_of(0, &[], Vec::new()))?;
        Ok(n)
    }

    fn match_rows(
        &self,
        params: &Value,
        dfs: Option<&DocFreqs>,
        inputs: &[PathBuf],
        scratch: &Store,
    ) -> Result<StagedRun> {
        let started = Instant::now();
        let settings = settings_of::<D>(params)?;
        let prepared = D::prepare_from(&settings, dfs)?;
        let mut urls: Vec<String> = Vec::new();
        let mut sigs: Vec<D::Sig> = Vec::new();
        for path in inputs {
            let (batches, meta) = read_parquet_batches(path)?;
            expect_stage(path, &meta, "signed")?;
            if meta.get(META_METHOD).map(String::as_str) != Some(D::NAME) {
                bail!(
                    "{}: signed by {}, not {}",
                    path.display(),
                    meta.get(META_METHOD).map_or("?", String::as_str),
                    D::NAME
                );
            }
            for b in &batches {
                let mut read = || -> Result<()> {
                    let u = batch_texts(b, "url")?;
                    let s = D::sigs_from_batch(b)?;
                    urls.extend(u.into_iter().map(Option::unwrap_or_default));
                    sigs.extend(s);
                    Ok(())
                };
                read().with_context(|| {
                    format!("{}: not a {} signature file", path.display(), D::NAME)
                })?;
            }
        }
        let ids: Vec<i64> = (0..urls.len() as i64).collect();
        let sites = if D::READS_SITES {
            crate::extract::sites::SiteFamilies::of(urls.iter().map(String::as_str))
        } else {
            Default::default()
        };
        let found = D::find_pairs(
            prepared,
            sigs,
            &RunContext {
                store: scratch,
                ids: &ids,
                started,
                sites: &sites,
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
            clusters: Some(clusters),
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
pub fn import(store: &mut Store, run: &StagedRun) -> Result<(i64, usize)> {
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
    let mut clusters = Vec::new();
    match &run.clusters {
        Some(cs) => {
            for c in cs {
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
        }
        None => {
            // A run of pairs only: their connected components, as `detect` makes them.
            let mut docs: Vec<i64> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
            docs.sort_unstable();
            docs.dedup();
            let index: HashMap<i64, u32> = docs
                .iter()
                .enumerate()
                .map(|(i, &d)| (d, i as u32))
                .collect();
            let edges: Vec<(u32, u32, f64)> = pairs
                .iter()
                .map(|p| (index[&p.0], index[&p.1], p.2))
                .collect();
            clusters = cluster_rows(&docs, &edges);
            for c in &mut clusters {
                c.members.sort_unstable();
            }
        }
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
            "clusters": clusters.len(),
            "staged": true,
            "seconds": run.seconds,
        }),
    )?;
    Ok((run_id, clusters.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key left out of `--params` takes today's default, as in `detect`: Cooper's
    /// containment (a field a stored run may predate, read there as off) stays on.
    #[test]
    fn params_left_out_take_the_defaults() {
        let given = serde_json::json!({ "text": "Visible" });
        let s = settings_of::<super::super::cooper::Cooper>(&given).unwrap();
        assert_eq!(s.contained_pct, super::super::cooper::DEFAULT_CONTAINED_PCT);
        assert_eq!(s.text, TextKind::Visible);
        let off = serde_json::json!({ "contained_pct": 0 });
        let s = settings_of::<super::super::cooper::Cooper>(&off).unwrap();
        assert_eq!(s.contained_pct, 0);
    }
}
