//! `spotcheck eval`: pairwise precision, recall and F1 of every finished detector run
//! against a gold clustering (`url<TAB>cluster`, `#` comments, or `labels`: the clustering
//! the coders' labels imply), counting only documents present in both; for scored methods
//! also the best threshold and its Max-F1.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::sample::sample_labels;
use crate::learn::estimate::{
    estimate, EstimateInput, Interval, LabeledPair, RunEstimate, StratumCounts,
};
use crate::learn::labels::{label_gold, merge_labels, LabelGold};
use crate::learn::metrics::{Gold, PairScores};
use crate::model::adjudication::Consensus;
use crate::model::sample::{Stratum, RANDOM_STRATUM};
use crate::model::PairLabel;
use crate::review::sanitize_line;
use crate::store::{SampleInfo, Store};

/// Scores of one run.
#[derive(Debug, Clone, Serialize)]
pub struct RunEval {
    pub run: i64,
    pub method: String,
    pub params: serde_json::Value,
    /// The run's own pairs.
    pub pairs: PairScores,
    /// All pairs inside the run's clusters (transitive closure).
    pub clusters: PairScores,
    /// Best score threshold over the run's pairs and the scores there.
    pub max_f1_threshold: Option<f64>,
    pub max_f1: Option<PairScores>,
}

/// Reads a gold file into (url, cluster) rows; names the file and line on errors.
pub fn read_gold_file(path: &Path) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read gold file {}", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((url, cluster)) = line.split_once('\t') else {
            bail!("{}:{}: expected url<TAB>cluster", path.display(), i + 1);
        };
        rows.push((url.to_string(), cluster.trim().to_string()));
    }
    Ok(rows)
}

/// Builds the gold over this database's documents. Returns it with the number of gold URLs
/// that matched no document.
pub fn gold_for_store(store: &Store, rows: &[(String, String)]) -> Result<(Gold, usize)> {
    let mut ids: HashMap<String, Vec<i64>> = HashMap::new();
    for (url, id) in store.url_ids()? {
        ids.entry(url).or_default().push(id);
    }
    let mut missing = 0;
    let mut assignments = Vec::new();
    for (url, cluster) in rows {
        match ids.get(url) {
            Some(v) => assignments.extend(v.iter().map(|&id| (id, cluster.as_str()))),
            None => missing += 1,
        }
    }
    Ok((Gold::new(assignments), missing))
}

/// Evaluates every finished run of the store against `gold`.
pub fn evaluate_runs(store: &Store, gold: &Gold) -> Result<Vec<RunEval>> {
    let mut out = Vec::new();
    for run in store.runs()?.into_iter().filter(|r| r.finished) {
        let pairs = store.run_pairs(run.id)?;
        let clusters = store.run_clusters(run.id)?;
        let best = gold.max_f1(&pairs);
        out.push(RunEval {
            run: run.id,
            method: run.method.clone(),
            params: run.params.clone(),
            pairs: gold.score_pairs(pairs.iter().map(|&(a, b, _)| (a, b))),
            clusters: gold.score_clusters(&clusters),
            max_f1_threshold: best.map(|b| b.0),
            max_f1: best.map(|b| b.1),
        });
    }
    Ok(out)
}

/// `--gold labels` names the coders' own labels rather than a file (write `./labels` for a
/// file of that name).
pub fn is_labels(gold: &Path) -> bool {
    gold.as_os_str() == "labels"
}

/// The gold clustering the coders' labels imply (of one coder, or of all of them with
/// conflicting pairs left out). An unknown coder is an error that lists the known ones.
pub fn label_gold_for_store(store: &Store, coder: Option<&str>) -> Result<LabelGold> {
    check_coder(store, coder)?;
    let sets = store.label_sets(coder)?;
    Ok(label_gold(&merge_labels(&sets)))
}

/// A coder named on the command line must have decisions in the store; the error lists
/// the coders who do.
pub fn check_coder(store: &Store, coder: Option<&str>) -> Result<()> {
    let coders = store.coders()?;
    if let Some(c) = coder {
        if !coders.iter().any(|k| k == c) {
            bail!(
                "no decisions by coder {:?} in {} (coders: {})",
                sanitize_line(c),
                store.path().display(),
                if coders.is_empty() {
                    "none yet".to_string()
                } else {
                    sanitize_line(&coders.join(", "))
                }
            );
        }
    }
    Ok(())
}

/// A gold clustering over this database's documents with a line saying where it comes from.
pub struct LoadedGold {
    pub gold: Gold,
    pub description: String,
}

/// Reads the gold named on the command line: a `url<TAB>cluster` file, or `labels`.
pub fn load_gold(store: &Store, gold: &Path, coder: Option<&str>) -> Result<LoadedGold> {
    if is_labels(gold) {
        let lg = label_gold_for_store(store, coder)?;
        let g = Gold::new(lg.assignments().iter().map(|(d, c)| (*d, c.as_str())));
        let mut description = format!(
            "gold: the labels of {}: {} labeled documents in {} clusters, {} gold pairs",
            match lg.coders.as_slice() {
                [] => "no coder yet".to_string(),
                [one] => format!("coder {}", sanitize_line(one)),
                many => format!("coders {}", sanitize_line(&many.join(", "))),
            },
            g.len(),
            lg.clusters.len(),
            g.pair_count()
        );
        if !lg.conflicts.is_empty() {
            description.push_str(&format!(
                "; {} pairs the coders disagree on left out",
                lg.conflicts.len()
            ));
        }
        if !lg.inconsistent.is_empty() {
            description.push_str(&format!(
                "; {} pairs labeled different end up in one cluster through other labels",
                lg.inconsistent.len()
            ));
        }
        return Ok(LoadedGold {
            gold: g,
            description,
        });
    }
    let rows = read_gold_file(gold)?;
    let (g, missing) = gold_for_store(store, &rows)?;
    let description = format!(
        "gold: {} documents in this database ({} gold URLs not found), {} gold pairs",
        g.len(),
        missing,
        g.pair_count()
    );
    Ok(LoadedGold {
        gold: g,
        description,
    })
}

/// The evaluation table, one line per run.
pub fn write_table(out: &mut impl Write, evals: &[RunEval]) -> Result<()> {
    writeln!(
        out,
        "{:<5} {:<9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  {:>17}",
        "run", "method", "pairs P", "R", "F1", "clust P", "R", "F1", "Max-F1 @ threshold"
    )?;
    for e in evals {
        let maxf = match (e.max_f1, e.max_f1_threshold) {
            (Some(s), Some(t)) => format!("{:.4} @ {t:.4}", s.f1),
            _ => "-".into(),
        };
        writeln!(
            out,
            "{:<5} {:<9} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>9.4}  {:>17}",
            e.run,
            e.method,
            e.pairs.precision,
            e.pairs.recall,
            e.pairs.f1,
            e.clusters.precision,
            e.clusters.recall,
            e.clusters.f1,
            maxf
        )?;
    }
    Ok(())
}

/// What `eval` scores against what.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    pub db: PathBuf,
    /// A gold file, or `labels` (the clustering the coders' labels imply).
    pub gold: PathBuf,
    /// With `labels`: only this coder's.
    pub coder: Option<String>,
    pub json: bool,
}

/// `eval --sample`: estimates from a labeled sample.
#[derive(Debug, Clone)]
pub struct SampleEvalConfig {
    pub db: PathBuf,
    /// The sample (None: the newest).
    pub sample: Option<i64>,
    pub json: bool,
}

/// One run's estimates from a sample.
#[derive(Debug, Clone, Serialize)]
pub struct RunSampleEval {
    pub run: i64,
    pub method: String,
    pub params: serde_json::Value,
    #[serde(flatten)]
    pub estimate: RunEstimate,
}

/// The estimates of every run from one labeled sample.
#[derive(Debug, Clone, Serialize)]
pub struct SampleEval {
    pub sample: SampleInfo,
    pub strata: Vec<Stratum>,
    pub pairs: usize,
    /// Sample pairs with a same/different label (agreed or adjudicated).
    pub labeled: usize,
    pub unlabeled: usize,
    /// Pairs the coders disagree on with no adjudication (left out).
    pub disagreed: usize,
    pub true_pairs: Interval,
    pub unfound: Interval,
    pub stratum_counts: Vec<StratumCounts>,
    pub runs: Vec<RunSampleEval>,
    pub method: &'static str,
    /// Finished runs made after the sample was drawn (not estimable from it).
    pub newer_runs: Vec<i64>,
}

/// Estimates every run the sample knows from the sample's labels (see `learn::estimate`).
pub fn evaluate_sample(store: &Store, sample: Option<i64>) -> Result<SampleEval> {
    let info = match sample {
        Some(id) => store.sample(id)?,
        None => match store.latest_sample()? {
            Some(s) => s,
            None => bail!(
                "no sample in {}: draw one with `spotcheck sample --db {}`",
                store.path().display(),
                store.path().display()
            ),
        },
    };
    let strata = store.sample_strata(info.id)?;
    let pairs = store.sample_pairs(info.id)?;
    let labels = sample_labels(store, &pairs)?;
    let counts = store.sample_run_counts(info.id)?;
    let run_info: HashMap<i64, crate::store::RunInfo> =
        store.runs()?.into_iter().map(|r| (r.id, r)).collect();
    let runs: Vec<(i64, Vec<u64>)> = counts.iter().filter(|c| c.0 != 0).cloned().collect();
    let any_counts = counts
        .iter()
        .find(|c| c.0 == 0)
        .map(|c| c.1.clone())
        .unwrap_or_default();
    let mut member: Vec<std::collections::HashSet<(i64, i64)>> = Vec::new();
    for (run, _) in &runs {
        member.push(
            store
                .run_pairs(*run)?
                .into_iter()
                .map(|(a, b, _)| (a.min(b), a.max(b)))
                .collect(),
        );
    }
    let mut labeled = Vec::new();
    let (mut unlabeled, mut disagreed) = (0, 0);
    for (p, c) in pairs.iter().zip(&labels) {
        match c.label() {
            Some(l @ (PairLabel::Same | PairLabel::Different)) => {
                let in_run: Vec<bool> = member.iter().map(|m| m.contains(&(p.a, p.b))).collect();
                labeled.push(LabeledPair {
                    stratum: p.stratum,
                    same: l == PairLabel::Same,
                    in_any: in_run.iter().any(|&x| x),
                    in_run,
                });
            }
            _ if *c == Consensus::Disagreed => disagreed += 1,
            _ => unlabeled += 1,
        }
    }
    let input = EstimateInput {
        populations: strata.iter().map(|s| s.population).collect(),
        run_counts: runs.iter().map(|r| r.1.clone()).collect(),
        any_counts,
        labeled,
        // Jeffreys' prior on the candidate strata, none on the random one (see
        // learn::estimate).
        prior: strata
            .iter()
            .map(|s| if s.index == RANDOM_STRATUM { 0.0 } else { 0.5 })
            .collect(),
    };
    let n_labeled = input.labeled.len();
    let est = estimate(&input);
    let known: std::collections::HashSet<i64> = runs.iter().map(|r| r.0).collect();
    let newer_runs = run_info
        .values()
        .filter(|r| r.finished && !known.contains(&r.id))
        .map(|r| r.id)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(SampleEval {
        runs: runs
            .iter()
            .zip(est.runs)
            .map(|((run, _), estimate)| RunSampleEval {
                run: *run,
                method: run_info
                    .get(run)
                    .map(|r| r.method.clone())
                    .unwrap_or_default(),
                params: run_info
                    .get(run)
                    .map(|r| r.params.clone())
                    .unwrap_or_default(),
                estimate,
            })
            .collect(),
        sample: info,
        strata,
        pairs: pairs.len(),
        labeled: n_labeled,
        unlabeled,
        disagreed,
        true_pairs: est.true_pairs,
        unfound: est.unfound,
        stratum_counts: est.strata,
        method: est.method,
        newer_runs,
    })
}

/// "0.8123 [0.7712, 0.8501]" (or "-" when undefined).
pub fn fmt_interval(i: Option<Interval>) -> String {
    match i {
        Some(i) => format!("{:.4} [{:.4}, {:.4}]", i.estimate, i.low, i.high),
        None => "-".into(),
    }
}

/// The sample evaluation as text: the sample, one line per run, the true pairs and the strata.
pub fn write_sample_table(out: &mut impl Write, e: &SampleEval) -> Result<()> {
    writeln!(
        out,
        "sample {} (seed {}, {} documents): {} pairs, {} labeled, {} unlabeled or unsure, {} disagreed without adjudication",
        e.sample.id, e.sample.seed, e.sample.documents, e.pairs, e.labeled, e.unlabeled, e.disagreed
    )?;
    writeln!(out, "method: {}", e.method)?;
    writeln!(
        out,
        "{:<5} {:<9} {:>9}  {:<26} {:<26} {:<26}",
        "run", "method", "pairs", "precision [95% CI]", "recall [95% CI]", "F1 [95% CI]"
    )?;
    for r in &e.runs {
        writeln!(
            out,
            "{:<5} {:<9} {:>9}  {:<26} {:<26} {:<26}",
            r.run,
            r.method,
            r.estimate.predicted,
            fmt_interval(r.estimate.precision),
            fmt_interval(r.estimate.recall),
            fmt_interval(r.estimate.f1)
        )?;
    }
    let i = e.true_pairs;
    writeln!(
        out,
        "true pairs in the collection: {:.0} [{:.0}, {:.0}]; found by no run: {:.0} [{:.0}, {:.0}]",
        i.estimate, i.low, i.high, e.unfound.estimate, e.unfound.low, e.unfound.high
    )?;
    writeln!(
        out,
        "{:<24} {:>14} {:>7} {:>7} {:>6}  upper bound if none",
        "stratum", "population", "drawn", "labeled", "same"
    )?;
    for (s, c) in e.strata.iter().zip(&e.stratum_counts) {
        writeln!(
            out,
            "{:<24} {:>14} {:>7} {:>7} {:>6}  {}",
            s.name,
            s.population,
            s.drawn,
            c.labeled,
            c.same,
            c.upper_if_none
                .map(|u| format!("{u:.0}"))
                .unwrap_or_else(|| "-".into())
        )?;
    }
    if !e.newer_runs.is_empty() {
        writeln!(
            out,
            "runs {:?} finished after this sample was drawn: draw a new sample to estimate them",
            e.newer_runs
        )?;
    }
    Ok(())
}

/// `eval --sample`.
pub fn run_sample(a: &SampleEvalConfig) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let e = evaluate_sample(&store, a.sample)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        super::write_json_line(&mut out, &e)?;
    } else {
        write_sample_table(&mut out, &e)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(a: &EvalConfig) -> Result<ExitCode> {
    if a.coder.is_some() && !is_labels(&a.gold) {
        return super::usage_error("--coder applies to --gold labels only");
    }
    let store = Store::open_existing(&a.db)?;
    let loaded = load_gold(&store, &a.gold, a.coder.as_deref())?;
    if loaded.gold.is_empty() {
        if is_labels(&a.gold) {
            bail!(
                "no labels to evaluate against in {}: confirm, split or reject clusters with \
                 `spotcheck review` first",
                a.db.display()
            );
        }
        bail!(
            "no URL of gold file {} names a document of {}",
            a.gold.display(),
            a.db.display()
        );
    }
    let evals = evaluate_runs(&store, &loaded.gold)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        for e in &evals {
            super::write_json_line(&mut out, e)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}", loaded.description)?;
    write_table(&mut out, &evals)?;
    Ok(ExitCode::SUCCESS)
}
