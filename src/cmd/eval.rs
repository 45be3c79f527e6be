//! `spotcheck eval`: pairwise precision, recall and F1 of every finished detector run
//! against a gold clustering (`url<TAB>cluster`, `#` comments), counting only documents
//! present in both; for scored methods also the best threshold and its Max-F1.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::cli::EvalArgs;
use crate::learn::metrics::{Gold, PairScores};
use crate::store::Store;

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

pub fn run(a: &EvalArgs) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db.db)?;
    let rows = read_gold_file(&a.gold)?;
    let (gold, missing) = gold_for_store(&store, &rows)?;
    if gold.is_empty() {
        bail!(
            "no URL of gold file {} names a document of {}",
            a.gold.display(),
            a.db.db.display()
        );
    }
    let evals = evaluate_runs(&store, &gold)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        for e in &evals {
            super::write_json_line(&mut out, e)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "gold: {} documents in this database ({} gold URLs not found), {} gold pairs",
        gold.len(),
        missing,
        gold.pair_count()
    )?;
    writeln!(
        out,
        "{:<5} {:<9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  {:>17}",
        "run", "method", "pairs P", "R", "F1", "clust P", "R", "F1", "Max-F1 @ threshold"
    )?;
    for e in &evals {
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
    Ok(ExitCode::SUCCESS)
}
