//! `spotcheck detect`: signs every document, matches, clusters, and stores the run (its
//! parameters, pairs, clusters with their weakest bridge, and the signatures each document
//! was matched on). A rerun is a new run; older runs and coder labels stay.
//!
//! Texts are streamed from the store in chunks and signed in parallel; only signatures are
//! kept in memory.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use crate::cli::{DetectArgs, LexiconBuildArgs, MethodArg, TextArg};
use crate::cluster::buckets::{cluster_signatures, BucketOptions};
use crate::cluster::components::clusters_with_bridges;
use crate::cluster::spotsigs_matcher::{match_pairs, MatchMode};
use crate::sig::cooper::{self, CooperParams};
use crate::sig::imatch::{count_rules, extended_signature, to_hex, BaggedLexicon, IMatchParams};
use crate::sig::lexicon::{unique_terms, DocFreqs, Lexicon, LexiconParams, TermOptions};
use crate::sig::spotsigs::{self, build_vectors, SiteBoilerplate, SpotSigParams, VectorOptions};
use crate::store::{ClusterRow, Store, TextKind};
use crate::text::WordList;

/// Documents per chunk streamed from the store and signed in parallel.
const CHUNK: usize = 2048;

/// Default cap of the site rule: a signature on more than 50 pages of one site is the
/// site's boilerplate even when that is under 2% of it (see `SiteBoilerplate`; measured
/// in BENCHMARKS.md).
pub const DEFAULT_SITE_BOILERPLATE_PAGES: usize = 50;

/// SpotSigs settings of one run.
#[derive(Debug, Clone, Serialize)]
pub struct SpotSigsSettings {
    pub tau: f64,
    pub idf_min: f64,
    /// `None`: keep every signature found in at least two documents (see README).
    pub idf_max: Option<f64>,
    pub distance: usize,
    pub chain: usize,
    pub antecedents: Option<PathBuf>,
    pub text: TextKind,
    pub min_sigs: usize,
    /// Per-site boilerplate removal: (min pages of a site, max fraction of its pages).
    pub site_boilerplate: Option<(usize, f64)>,
    /// With the site rule: a signature on more than this many pages of one site is its
    /// boilerplate whatever the fraction (`None`: no cap).
    pub site_boilerplate_pages: Option<usize>,
}

impl Default for SpotSigsSettings {
    fn default() -> Self {
        SpotSigsSettings {
            tau: 0.9,
            idf_min: 0.2,
            idf_max: None,
            distance: spotsigs::DEFAULT_DISTANCE,
            chain: spotsigs::DEFAULT_CHAIN,
            antecedents: None,
            text: TextKind::Visible,
            min_sigs: 2,
            site_boilerplate: Some((10, 0.02)),
            site_boilerplate_pages: Some(DEFAULT_SITE_BOILERPLATE_PAGES),
        }
    }
}

impl SpotSigsSettings {
    /// The paper's exact setting: visible text, idf window [0.2, 0.85], no boilerplate rule.
    pub fn paper() -> Self {
        SpotSigsSettings {
            idf_max: Some(0.85),
            text: TextKind::Visible,
            min_sigs: 1,
            site_boilerplate: None,
            site_boilerplate_pages: None,
            ..Self::default()
        }
    }
}

/// Default of `--bag-max-idf` (see `IMatchParams::bag_max_idf`).
pub const DEFAULT_BAG_MAX_IDF: f64 = 0.3;

/// I-Match settings of one run.
#[derive(Debug, Clone, Serialize)]
pub struct IMatchSettings {
    pub lexicon_file: Option<PathBuf>,
    pub idf_min: f64,
    pub idf_max: f64,
    pub bags: usize,
    pub seed: u64,
    pub min_terms: usize,
    pub min_coverage: f64,
    pub text: TextKind,
    pub max_pair_bucket: usize,
    /// A pair needs this many equal coordinates (1 = any, the papers' rule).
    pub min_agree: usize,
    /// Bags sample only terms with normalized idf ≤ this; rarer ones are in every bag
    /// (1.0 = the papers' bootstrap of the whole lexicon).
    pub bag_max_idf: f64,
}

impl Default for IMatchSettings {
    fn default() -> Self {
        let p = IMatchParams::default();
        let l = LexiconParams::default();
        IMatchSettings {
            lexicon_file: None,
            idf_min: l.idf_min,
            idf_max: l.idf_max,
            bags: p.bags,
            seed: p.seed,
            min_terms: p.min_terms,
            // Measured on debian-docs: 0.2 separates template pages that share their
            // mid-frequency terms (the papers' long-document rule, tightened).
            min_coverage: 0.2,
            text: TextKind::Visible,
            max_pair_bucket: BucketOptions::default().max_pair_bucket,
            min_agree: 1,
            // Measured on debian-docs (BENCHMARKS.md): bags that never drop terms rarer
            // than 0.3 keep most of the recall gain at under 0.02 precision.
            bag_max_idf: DEFAULT_BAG_MAX_IDF,
        }
    }
}

/// Cooper settings of one run.
#[derive(Debug, Clone, Serialize)]
pub struct CooperSettings {
    pub size_pct: u32,
    pub delta_pct: u32,
    pub min_idf: f64,
    pub text: TextKind,
}

impl Default for CooperSettings {
    fn default() -> Self {
        let p = CooperParams::default();
        CooperSettings {
            size_pct: p.size_tolerance_pct,
            delta_pct: p.delta_pct,
            min_idf: p.min_idf,
            text: TextKind::Main,
        }
    }
}

/// ANDD settings of one run: the model file and how candidates are found.
#[derive(Debug, Clone, Serialize)]
pub struct AnddSettings {
    pub model: PathBuf,
    /// Similarity threshold; `None`: the one chosen on the model's training pairs.
    pub threshold: Option<f64>,
    /// Candidates from LSH signatures of this many bits instead of the exact k-gram index.
    pub lsh_bits: Option<usize>,
    /// LSH bands (default: chosen from the threshold, see `andd_matcher::auto_bands`).
    pub lsh_bands: Option<usize>,
    /// Documents with fewer non-zero k-grams are not matched (default
    /// `sig::andd::DEFAULT_MIN_KGRAMS`).
    pub min_kgrams: Option<usize>,
}

/// What one run did.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub run: i64,
    pub method: String,
    pub summary: serde_json::Value,
}

impl RunReport {
    pub fn line(&self) -> String {
        let s = &self.summary;
        format!(
            "{} run {}: {} documents, {} matched on, {} pairs, {} clusters (sizes {}), largest {}; {:.1}s",
            self.method,
            self.run,
            s["documents"],
            s["matchable"],
            s["pairs"],
            s["clusters"],
            s["cluster_sizes"],
            s["largest_cluster"],
            s["seconds"].as_f64().unwrap_or(0.0)
        )
    }
}

fn text_kind(t: TextArg) -> TextKind {
    match t {
        TextArg::Visible => TextKind::Visible,
        TextArg::Main => TextKind::Main,
        TextArg::Content => TextKind::Content,
    }
}

pub fn run(a: &DetectArgs) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db.db)?;
    let mut sp = if a.paper {
        SpotSigsSettings::paper()
    } else {
        SpotSigsSettings::default()
    };
    if let Some(t) = a.tau {
        sp.tau = t;
    }
    if let Some((lo, hi)) = &a.idf {
        sp.idf_min = *lo;
        sp.idf_max = *hi;
    }
    if let Some(d) = a.spot_distance {
        sp.distance = d;
    }
    if let Some(c) = a.chain {
        sp.chain = c;
    }
    sp.antecedents = a.antecedents.clone();
    if let Some(t) = a.text {
        sp.text = text_kind(t);
    }
    if let Some(m) = a.min_sigs {
        sp.min_sigs = m;
    }
    if let Some(f) = a.site_boilerplate {
        sp.site_boilerplate = (f > 0.0).then_some((10, f));
    }
    if let Some(n) = a.site_boilerplate_pages {
        sp.site_boilerplate_pages = (n > 0).then_some(n);
    }
    let mut im = IMatchSettings {
        lexicon_file: a.lexicon.clone(),
        ..IMatchSettings::default()
    };
    if let Some((lo, hi)) = a.lexicon_idf {
        im.idf_min = lo;
        im.idf_max = hi;
    }
    if let Some(k) = a.bags {
        im.bags = k;
    }
    if let Some(s) = a.seed {
        im.seed = s;
    }
    if let Some(m) = a.min_terms {
        im.min_terms = m;
    }
    if let Some(c) = a.min_coverage {
        im.min_coverage = c;
    }
    if let Some(m) = a.min_agree {
        im.min_agree = m.max(1);
    }
    if let Some(f) = a.bag_max_idf {
        im.bag_max_idf = f;
    }
    if let Some(t) = a.text {
        im.text = text_kind(t);
    }
    let mut co = CooperSettings::default();
    if a.cooper_inserted {
        let p = CooperParams::inserted_material();
        co.size_pct = p.size_tolerance_pct;
        co.delta_pct = p.delta_pct;
    }
    if let Some(s) = a.cooper_size {
        co.size_pct = s;
    }
    if let Some(d) = a.cooper_delta {
        co.delta_pct = d;
    }
    if let Some(t) = a.text {
        co.text = text_kind(t);
    }
    let andd = a.model.as_ref().map(|m| AnddSettings {
        model: m.clone(),
        threshold: a.threshold,
        lsh_bits: a.lsh_bits,
        lsh_bands: a.lsh_bands,
        min_kgrams: a.min_kgrams,
    });
    let methods: Vec<MethodArg> = match a.method {
        // `all` adds ANDD only when a model is given.
        MethodArg::All => [MethodArg::Spotsigs, MethodArg::Imatch, MethodArg::Cooper]
            .into_iter()
            .chain(andd.is_some().then_some(MethodArg::Andd))
            .collect(),
        MethodArg::Andd if andd.is_none() => bail!(
            "`detect --method andd` needs a model: train one with `spotcheck train --db {} \
             --out MODEL`, then pass `--model MODEL`",
            a.db.db.display()
        ),
        m => vec![m],
    };
    for m in &methods {
        let report = match (m, &andd) {
            (MethodArg::Spotsigs, _) => detect_spotsigs(&mut store, &sp)?,
            (MethodArg::Imatch, _) => detect_imatch(&mut store, &im)?,
            (MethodArg::Andd, Some(s)) => detect_andd(&mut store, s)?,
            _ => detect_cooper(&mut store, &co)?,
        };
        if a.json {
            crate::cmd::write_json_line(&mut std::io::stdout().lock(), &report)?;
        } else {
            println!("{}", report.line());
        }
    }
    // Build the review queue now, while the coder waits for detection anyway, so the
    // workbench's first frame never pays for it.
    store.refresh_review_queue()?;
    Ok(ExitCode::SUCCESS)
}

/// The site of a URL: its host, or for a relative path (a folder ingest) its first segment.
pub fn site_of(url: &str) -> &str {
    match url.split_once("://") {
        Some((_, rest)) => rest.split(['/', '?', '#']).next().unwrap_or(rest),
        None => url.split('/').next().unwrap_or(url),
    }
}

/// Cluster size histogram: "2:120 3-5:40 ...".
fn size_histogram(sizes: &[usize]) -> BTreeMap<&'static str, usize> {
    let mut h = BTreeMap::new();
    for &s in sizes {
        let k = match s {
            0..=2 => "2",
            3..=5 => "3-5",
            6..=10 => "6-10",
            11..=50 => "11-50",
            51..=100 => "51-100",
            _ => ">100",
        };
        *h.entry(k).or_insert(0) += 1;
    }
    h
}

/// Stores clusters (largest first) and returns the summary fields about them.
fn store_clusters(
    store: &mut Store,
    run: i64,
    mut rows: Vec<ClusterRow>,
) -> Result<serde_json::Value> {
    rows.sort_by(|x, y| {
        y.members
            .len()
            .cmp(&x.members.len())
            .then(x.members.cmp(&y.members))
    });
    let sizes: Vec<usize> = rows.iter().map(|c| c.members.len()).collect();
    store.write_run_clusters(run, &rows)?;
    Ok(json!({
        "clusters": rows.len(),
        "cluster_sizes": size_histogram(&sizes),
        "largest_cluster": sizes.first().copied().unwrap_or(0),
        "clustered_documents": sizes.iter().sum::<usize>(),
    }))
}

/// Records the run's total time in its summary, marks it finished, and reports it.
fn finish(
    store: &Store,
    run: i64,
    method: &str,
    mut summary: serde_json::Value,
    started: Instant,
) -> Result<RunReport> {
    merge(
        &mut summary,
        json!({"seconds": started.elapsed().as_secs_f64()}),
    );
    store.finish_run(run, &summary)?;
    Ok(RunReport {
        run,
        method: method.into(),
        summary,
    })
}

fn merge(a: &mut serde_json::Value, b: serde_json::Value) {
    if let (Some(a), serde_json::Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
}

/// SpotSigs: extract, filter by idf, match exactly, cluster with bridges.
pub fn detect_spotsigs(store: &mut Store, s: &SpotSigsSettings) -> Result<RunReport> {
    let started = Instant::now();
    let antecedents = match &s.antecedents {
        Some(p) => WordList::load(p)?,
        None => spotsigs::default_antecedents(),
    };
    let params = SpotSigParams {
        antecedents,
        stopwords: WordList::default_stopwords(),
        distance: s.distance,
        chain: s.chain,
    };
    let run = store.create_run("spotsigs", &serde_json::to_value(s)?)?;
    let mut ids = Vec::new();
    let mut sites: Vec<String> = Vec::new();
    let mut sig_lists: Vec<Vec<String>> = Vec::new();
    // Exact duplicates (identical visible text) are pairs at similarity 1 whatever their
    // signatures: the content hash settles them without the matcher.
    let mut dup_groups: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    store.for_each_text_chunk(s.text, CHUNK, |chunk| {
        let signed: Vec<Vec<String>> = chunk
            .par_iter()
            .map(|d| {
                spotsigs::extract_text(&d.text, &params)
                    .into_iter()
                    .map(|x| x.sig)
                    .collect()
            })
            .collect();
        for (d, sigs) in chunk.into_iter().zip(signed) {
            if let (Some(g), false) = (d.dup_group, d.text.trim().is_empty()) {
                dup_groups.entry(g).or_default().push(ids.len());
            }
            ids.push(d.id);
            sites.push(site_of(&d.url).to_string());
            sig_lists.push(sigs);
        }
        Ok(())
    })?;
    let n = ids.len();
    // Keep every signature that occurs in two or more documents unless told otherwise:
    // the largest idf a shared signature can have is log(N/2)/log(N).
    let idf_max = s
        .idf_max
        .unwrap_or_else(|| spotsigs::normalized_idf(n.max(2), 2) + 1e-12);
    let opts = VectorOptions {
        idf_min: s.idf_min,
        idf_max,
        min_sigs: s.min_sigs,
        site_boilerplate: s
            .site_boilerplate
            .map(|(min_site_docs, max_site_fraction)| SiteBoilerplate {
                min_site_docs,
                max_site_fraction,
                max_site_pages: s.site_boilerplate_pages,
            }),
    };
    let site_refs: Vec<&str> = sites.iter().map(String::as_str).collect();
    let collection = build_vectors(&sig_lists, Some(&site_refs), &opts);
    drop(sig_lists);
    let signed_at = started.elapsed().as_secs_f64();

    let (index, vectors): (Vec<usize>, Vec<_>) =
        collection.matchable().map(|(i, v)| (i, v.clone())).unzip();
    let (pairs, stats) = match_pairs(&vectors, s.tau, MatchMode::Full);
    let matched_at = started.elapsed().as_secs_f64();
    let mut doc_pairs: Vec<(u32, u32, f64)> = pairs
        .iter()
        .map(|&(a, b, sim)| (index[a as usize] as u32, index[b as usize] as u32, sim))
        .collect();
    let matched = doc_pairs.len();
    doc_pairs.extend(exact_duplicate_pairs(dup_groups.values()));
    doc_pairs.sort_by_key(|p| (p.0, p.1));
    doc_pairs.dedup_by(|x, y| (x.0, x.1) == (y.0, y.1));
    let exact_pairs_added = doc_pairs.len() - matched;
    store.write_run_pairs(
        run,
        doc_pairs
            .iter()
            .map(|&(a, b, sim)| (ids[a as usize], ids[b as usize], sim, None)),
    )?;
    let clusters = cluster_rows(&ids, &doc_pairs);
    let mut summary = json!({
        "documents": n,
        "matchable": vectors.len(),
        "too_few_signatures": collection.too_few_sigs,
        "signatures_outside_idf_window": collection.sigs_outside_idf,
        "boilerplate_occurrences_dropped": collection.boilerplate_occurrences,
        "idf_max_used": idf_max,
        "pairs": doc_pairs.len(),
        "exact_duplicate_pairs_added": exact_pairs_added,
        "match_stats": format!("{stats:?}"),
        "sign_seconds": signed_at,
        "match_seconds": matched_at - signed_at,
    });
    merge(&mut summary, store_clusters(store, run, clusters)?);
    store.write_run_doc_sigs(
        run,
        collection.vectors.iter().enumerate().filter_map(|(i, v)| {
            let v = v.as_ref()?;
            let m: serde_json::Map<String, serde_json::Value> = v
                .entries()
                .iter()
                .filter_map(|&(id, f)| Some((collection.vocab.name(id)?.to_string(), f.into())))
                .collect();
            Some((ids[i], serde_json::Value::Object(m)))
        }),
    )?;
    finish(store, run, "spotsigs", summary, started)
}

/// Clusters (connected components with their weakest bridge) of a pair graph over document
/// indices, as store rows.
fn cluster_rows(ids: &[i64], edges: &[(u32, u32, f64)]) -> Vec<ClusterRow> {
    clusters_with_bridges(ids.len(), edges)
        .into_iter()
        .map(|c| ClusterRow {
            members: c.members.iter().map(|&m| ids[m as usize]).collect(),
            min_score: Some(c.min_sim),
            max_score: Some(c.max_sim),
            weakest_bridge: c
                .weakest_bridge
                .map(|(a, b, w)| (ids[a as usize], ids[b as usize], w)),
        })
        .collect()
}

/// Pairs at similarity 1 inside each exact-duplicate group (members are indices, in
/// order). A group larger than [`MAX_EXACT_GROUP_PAIRS`] members is linked as a star to its
/// first member, which keeps the cluster and bounds the pair count.
fn exact_duplicate_pairs<'a>(groups: impl Iterator<Item = &'a Vec<usize>>) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    for g in groups.filter(|g| g.len() > 1) {
        if g.len() > MAX_EXACT_GROUP_PAIRS {
            out.extend(g[1..].iter().map(|&m| (g[0] as u32, m as u32, 1.0)));
            continue;
        }
        for (i, &a) in g.iter().enumerate() {
            out.extend(g[i + 1..].iter().map(|&b| (a as u32, b as u32, 1.0)));
        }
    }
    out
}

/// Largest exact-duplicate group whose pairs are all listed.
const MAX_EXACT_GROUP_PAIRS: usize = 200;

/// Document frequencies of the collection's terms (one streaming pass).
fn collection_dfs(store: &Store, text: TextKind, terms: &TermOptions) -> Result<DocFreqs> {
    let mut dfs = DocFreqs::default();
    store.for_each_text_chunk(text, CHUNK, |chunk| {
        let sets: Vec<BTreeSet<String>> = chunk
            .par_iter()
            .map(|d| unique_terms(&d.text, terms))
            .collect();
        for s in &sets {
            dfs.add_document(s);
        }
        Ok(())
    })?;
    Ok(dfs)
}

/// The lexicon of a run: loaded from a file, or built from this collection.
pub fn lexicon_for(store: &Store, s: &IMatchSettings) -> Result<Lexicon> {
    match &s.lexicon_file {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read lexicon {}", p.display()))?;
            Lexicon::from_text(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
        }
        None => {
            let params = LexiconParams {
                idf_min: s.idf_min,
                idf_max: s.idf_max,
                terms: TermOptions::default(),
            };
            let dfs = collection_dfs(store, s.text, &params.terms)?;
            Ok(Lexicon::build(&dfs, params))
        }
    }
}

/// I-Match with K bags: sign, bucket, cluster by union-find over coordinate collisions.
pub fn detect_imatch(store: &mut Store, s: &IMatchSettings) -> Result<RunReport> {
    let started = Instant::now();
    let lexicon = lexicon_for(store, s)?;
    let params = IMatchParams {
        min_terms: s.min_terms,
        min_coverage: s.min_coverage,
        bags: s.bags,
        seed: s.seed,
        bag_max_idf: s.bag_max_idf,
    };
    let bagged = BaggedLexicon::new(&lexicon, params);
    let run = store.create_run("imatch", &serde_json::to_value(s)?)?;
    let mut ids = Vec::new();
    let mut outcomes = Vec::new();
    let terms = lexicon.params.terms;
    store.for_each_text_chunk(s.text, CHUNK, |chunk| {
        let signed: Vec<_> = chunk
            .par_iter()
            .map(|d| bagged.sign(&unique_terms(&d.text, &terms)))
            .collect();
        ids.extend(chunk.iter().map(|d| d.id));
        outcomes.extend(signed);
        Ok(())
    })?;
    let rules = count_rules(outcomes.iter().map(Vec::as_slice));
    let sigs: Vec<Vec<Option<[u8; 20]>>> = outcomes.iter().map(|o| extended_signature(o)).collect();
    let signed_at = started.elapsed().as_secs_f64();
    let result = cluster_signatures(
        &sigs,
        &BucketOptions {
            max_pair_bucket: s.max_pair_bucket,
        },
    );
    let k1 = result.coordinates.max(1);
    // The papers match on any equal coordinate; `min_agree` > 1 asks for more of them.
    let kept: Vec<_> = result
        .pairs
        .iter()
        .filter(|p| p.agreeing as usize >= s.min_agree)
        .collect();
    store.write_run_pairs(
        run,
        kept.iter().map(|p| {
            (
                ids[p.a as usize],
                ids[p.b as usize],
                p.score(k1),
                Some(format!("{} of {} lexicons agree", p.agreeing, k1)),
            )
        }),
    )?;
    let clusters = if s.min_agree <= 1 {
        // Union-find over every coordinate collision, oversized buckets included.
        result
            .clusters
            .iter()
            .map(|c| ClusterRow {
                members: c.members.iter().map(|&m| ids[m as usize]).collect(),
                min_score: c.min_agreeing.map(|x| f64::from(x) / k1 as f64),
                max_score: c.max_agreeing.map(|x| f64::from(x) / k1 as f64),
                weakest_bridge: None,
            })
            .collect()
    } else {
        let edges: Vec<(u32, u32, f64)> = kept.iter().map(|p| (p.a, p.b, p.score(k1))).collect();
        cluster_rows(&ids, &edges)
    };
    let signed_docs = sigs
        .iter()
        .filter(|s| s.iter().any(Option::is_some))
        .count();
    let mut summary = json!({
        "documents": ids.len(),
        "matchable": signed_docs,
        "lexicon_terms": lexicon.primary().len(),
        "secondary_terms": lexicon.secondary().len(),
        "coordinates": k1,
        "pairs_below_min_agree": result.pairs.len() - kept.len(),
        "full_lexicon_rules": rules.first().map(|r| json!({
            "signed": r.signed, "extended_by_secondary": r.extended,
            "too_few_terms": r.too_few_terms, "unreliable": r.unreliable})),
        "pairs": kept.len(),
        "oversized_buckets": result.oversized.len(),
        "sign_seconds": signed_at,
    });
    merge(&mut summary, store_clusters(store, run, clusters)?);
    store.write_run_doc_sigs(
        run,
        sigs.iter()
            .enumerate()
            .filter(|(_, s)| s.iter().any(Option::is_some))
            .map(|(i, s)| {
                let v: Vec<serde_json::Value> = s
                    .iter()
                    .map(|c| {
                        c.as_ref()
                            .map_or(serde_json::Value::Null, |x| to_hex(x).into())
                    })
                    .collect();
                (ids[i], serde_json::Value::Array(v))
            }),
    )?;
    finish(store, run, "imatch", summary, started)
}

/// Cooper, Coden, Brown: salient terms, size-ratio candidates, term-delta test.
pub fn detect_cooper(store: &mut Store, s: &CooperSettings) -> Result<RunReport> {
    let started = Instant::now();
    let terms = TermOptions::default();
    let dfs = collection_dfs(store, s.text, &terms)?;
    let params = CooperParams {
        size_tolerance_pct: s.size_pct,
        delta_pct: s.delta_pct,
        min_idf: s.min_idf,
    };
    let run = store.create_run("cooper", &serde_json::to_value(s)?)?;
    let mut ids = Vec::new();
    let mut salient: Vec<BTreeSet<String>> = Vec::new();
    store.for_each_text_chunk(s.text, CHUNK, |chunk| {
        let sets: Vec<_> = chunk
            .par_iter()
            .map(|d| cooper::salient_terms(&unique_terms(&d.text, &terms), &dfs, &params))
            .collect();
        ids.extend(chunk.iter().map(|d| d.id));
        salient.extend(sets);
        Ok(())
    })?;
    let pairs = cooper::detect(&salient, &params);
    store.write_run_pairs(
        run,
        pairs.iter().map(|p| {
            (
                ids[p.a as usize],
                ids[p.b as usize],
                p.score,
                Some(p.explanation()),
            )
        }),
    )?;
    let edges: Vec<(u32, u32, f64)> = pairs.iter().map(|p| (p.a, p.b, p.score)).collect();
    let clusters = cluster_rows(&ids, &edges);
    let mut summary = json!({
        "documents": ids.len(),
        "matchable": salient.iter().filter(|s| !s.is_empty()).count(),
        "pairs": pairs.len(),
    });
    merge(&mut summary, store_clusters(store, run, clusters)?);
    store.write_run_doc_sigs(
        run,
        salient.iter().enumerate().filter(|(_, s)| !s.is_empty()).map(|(i, s)| {
            (
                ids[i],
                json!({"sum_signature": cooper::sum_signature(s) as i64, "salient_terms": s.len()}),
            )
        }),
    )?;
    finish(store, run, "cooper", summary, started)
}

/// ANDD (learned k-gram weights): vectors from the model, exact index or LSH candidates,
/// exact similarity ≥ threshold, clusters. Each pair's detail names the k-grams that weigh
/// most in it (`top k-grams: a, b, c`), which the review shows as evidence.
pub fn detect_andd(store: &mut Store, s: &AnddSettings) -> Result<RunReport> {
    use crate::cluster::andd_matcher::{auto_bands, match_pairs, Candidates};
    use crate::sig::andd::{
        doc_terms, features, gram_names, signature_hex, top_shared, weigh, DocInput, Lsh,
        SparseVec, DEFAULT_LSH_SEED, DEFAULT_MIN_KGRAMS,
    };
    let started = Instant::now();
    let model = super::train::load_model(&s.model)?;
    let threshold = s.threshold.unwrap_or(model.threshold);
    if !(threshold > 0.0 && threshold <= 1.0) {
        bail!("ANDD threshold must be in (0, 1], got {threshold}");
    }
    let text = super::train::text_kind_of(&model.text);
    let min_kgrams = s.min_kgrams.unwrap_or(DEFAULT_MIN_KGRAMS);
    let candidates = match s.lsh_bits {
        Some(bits) if bits > 0 => {
            let lsh = Lsh::new(bits, DEFAULT_LSH_SEED);
            let bands = s
                .lsh_bands
                .unwrap_or_else(|| auto_bands(lsh.bits, model.similarity, threshold));
            Candidates::Lsh { lsh, bands }
        }
        _ => Candidates::Index,
    };
    let params = json!({
        "model": s.model,
        "threshold": threshold,
        "candidates": candidates,
        "min_kgrams": min_kgrams,
        "k": model.k,
        "similarity": model.similarity,
        "text": model.text,
        "lambda": model.lambda,
        "features": model.features,
    });
    let run = store.create_run("andd", &params)?;
    let (dfs, _) = super::train::collection_terms(store, text, model.k, &Default::default())?;
    let df_at = started.elapsed().as_secs_f64();
    let titles = store.doc_titles()?;
    let mut ids = Vec::new();
    let mut vecs: Vec<SparseVec> = Vec::new();
    store.for_each_text_chunk(text, CHUNK, |chunk| {
        let v: Vec<SparseVec> = chunk
            .par_iter()
            .map(|d| {
                let title = titles.get(&d.id).map_or("", String::as_str);
                let input = DocInput {
                    text: &d.text,
                    title,
                    url: &d.url,
                };
                let v = weigh(&features(&doc_terms(&input, model.k), &dfs), &model.lambda);
                if v.len() < min_kgrams {
                    SparseVec::default()
                } else {
                    v
                }
            })
            .collect();
        ids.extend(chunk.iter().map(|d| d.id));
        vecs.extend(v);
        Ok(())
    })?;
    drop(dfs);
    let weighed_at = started.elapsed().as_secs_f64();
    let (pairs, stats) = match_pairs(&vecs, model.similarity, threshold, candidates);
    let matched_at = started.elapsed().as_secs_f64();
    // Evidence: the k-grams with the largest share of each pair's dot product, named from
    // the texts of the paired documents.
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
    store.for_each_text_chunk(text, CHUNK, |chunk| {
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
    let named_at = started.elapsed().as_secs_f64();
    store.write_run_pairs(
        run,
        pairs.iter().zip(&tops).map(|(&(a, b, sim), top)| {
            let grams: Vec<&str> = top
                .iter()
                .filter_map(|(h, _)| names.get(h).map(String::as_str))
                .collect();
            let detail = (!grams.is_empty()).then(|| format!("top k-grams: {}", grams.join(", ")));
            (ids[a as usize], ids[b as usize], sim, detail)
        }),
    )?;
    let clusters = cluster_rows(&ids, &pairs);
    let mut summary = json!({
        "documents": ids.len(),
        "matchable": vecs.len() - stats.empty,
        "too_few_kgrams": stats.empty,
        "pairs": pairs.len(),
        "candidates": stats.candidates,
        "indexed": stats.indexed,
        "threshold": threshold,
        "df_seconds": df_at,
        "weigh_seconds": weighed_at - df_at,
        "match_seconds": matched_at - weighed_at,
        "evidence_seconds": named_at - matched_at,
    });
    merge(&mut summary, store_clusters(store, run, clusters)?);
    let lsh = match candidates {
        Candidates::Lsh { lsh, .. } => Some(lsh),
        Candidates::Index => None,
    };
    store.write_run_doc_sigs(
        run,
        vecs.iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(i, v)| {
                let mut sig = json!({"kgrams": v.len()});
                if let Some(l) = &lsh {
                    merge(&mut sig, json!({"lsh": signature_hex(&l.signature(v))}));
                }
                (ids[i], sig)
            }),
    )?;
    finish(store, run, "andd", summary, started)
}

/// `spotcheck lexicon build`: this collection's lexicon, saved for use on another.
pub fn lexicon_build(a: &LexiconBuildArgs) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db.db)?;
    let mut s = IMatchSettings {
        text: text_kind(a.text),
        ..IMatchSettings::default()
    };
    if let Some((lo, hi)) = a.idf {
        s.idf_min = lo;
        s.idf_max = hi;
    }
    let lexicon = lexicon_for(&store, &s)?;
    std::fs::write(&a.out, lexicon.to_text())
        .with_context(|| format!("cannot write lexicon {}", a.out.display()))?;
    println!(
        "wrote {}: {} lexicon terms, {} secondary terms, from {} documents",
        a.out.display(),
        lexicon.primary().len(),
        lexicon.secondary().len(),
        lexicon.n_docs
    );
    Ok(ExitCode::SUCCESS)
}
