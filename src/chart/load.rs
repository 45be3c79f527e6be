//! The figures of one database, read through the store: the latest finished run of each
//! detector with its pairs, the coders' pair labels, the entry sizes and the decision times.
//! Everything else in `chart` is pure; this is the one place it reads.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;

use super::{
    progress_by, run_threshold, score_bins, size_distribution, what_if, LabeledPair, Period,
    ProgressPoint, ScoreHistogram, SizeBin, WhatIfPoint, SCORE_BINS,
};
use crate::store::Store;

/// Which figures to read.
#[derive(Debug, Clone)]
pub struct FigureRequest {
    /// Only this detector's latest run (and its clusters for the sizes); None: every detector
    /// (and the merged queue's entries for the sizes).
    pub method: Option<String>,
    /// Whose labels and decisions; None: every coder's (a pair the coders disagree on counts
    /// as unlabeled).
    pub coder: Option<String>,
    pub period: Period,
    pub bins: usize,
}

impl Default for FigureRequest {
    fn default() -> Self {
        FigureRequest {
            method: None,
            coder: None,
            period: Period::Day,
            bins: SCORE_BINS,
        }
    }
}

/// One run's scores, with its pairs kept for the what-if.
#[derive(Debug, Clone)]
pub struct RunFigure {
    pub histogram: ScoreHistogram,
    /// Shared, so the what-if of a run can be computed off the UI thread without a copy.
    pub pairs: Arc<Vec<(i64, i64, f64)>>,
}

impl RunFigure {
    /// What the run would propose at `threshold`, given `labels`.
    pub fn what_if_at(&self, labels: &[LabeledPair], threshold: f64) -> WhatIfPoint {
        what_if(&self.pairs, labels, &[threshold])
            .pop()
            .unwrap_or(WhatIfPoint {
                threshold,
                pairs: 0,
                entries: 0,
                labeled_same: 0,
                labeled_different: 0,
                precision: None,
                recall: None,
            })
    }

    /// The threshold the what-if starts from: the run's own, else its lowest score.
    pub fn start_threshold(&self) -> f64 {
        self.histogram.threshold.unwrap_or_else(|| {
            self.pairs
                .iter()
                .map(|p| p.2)
                .filter(|s| s.is_finite())
                .fold(f64::INFINITY, f64::min)
                .min(1.0)
        })
    }
}

/// Every figure of a database.
#[derive(Debug, Clone)]
pub struct Figures {
    pub runs: Vec<RunFigure>,
    /// Shared, so the what-if of a run can be computed off the UI thread without a copy.
    pub labels: Arc<Vec<LabeledPair>>,
    /// What the sizes describe: "merged queue" or "spotsigs run 3".
    pub sizes_of: String,
    pub sizes: Vec<SizeBin>,
    pub progress: Vec<ProgressPoint>,
    pub period: Period,
}

/// Reads the figures `req` asks for.
pub fn load_figures(store: &Store, req: &FigureRequest) -> Result<Figures> {
    let mut latest: BTreeMap<String, crate::store::RunInfo> = BTreeMap::new();
    for r in store.runs()?.into_iter().filter(|r| r.finished) {
        if req.method.as_ref().is_none_or(|m| *m == r.method) {
            latest.insert(r.method.clone(), r);
        }
    }
    if let Some(m) = &req.method {
        if !latest.contains_key(m) {
            // The store's own message names the database and the command to run.
            store.resolve_run(m, None)?;
        }
    }
    let mut runs = Vec::new();
    for r in latest.values() {
        let pairs = store.run_pairs(r.id)?;
        let scores: Vec<f64> = pairs.iter().map(|p| p.2).collect();
        runs.push(RunFigure {
            histogram: ScoreHistogram {
                method: r.method.clone(),
                run: r.id,
                bins: score_bins(&scores, req.bins),
                threshold: run_threshold(&r.params, r.summary.as_ref()),
                pairs: pairs.len() as u64,
            },
            pairs: Arc::new(pairs),
        });
    }
    let labels = Arc::new(agreed_labels(store.pair_label_rows(req.coder.as_deref())?));
    let (sizes_of, sizes) = match runs.first().filter(|_| req.method.is_some()) {
        Some(run) => {
            let sizes: Vec<usize> = store
                .run_clusters(run.histogram.run)?
                .iter()
                .map(Vec::len)
                .collect();
            (
                format!("{} run {}", run.histogram.method, run.histogram.run),
                sizes,
            )
        }
        None => ("merged queue".to_string(), store.queue_entry_sizes(false)?),
    };
    let times = store.decision_times(req.coder.as_deref())?;
    let times: Vec<&str> = times.iter().map(String::as_str).collect();
    Ok(Figures {
        runs,
        labels,
        sizes_of,
        sizes: size_distribution(&sizes),
        progress: progress_by(&times, req.period),
        period: req.period,
    })
}

/// Same/different labels per pair; a pair whose coders disagree (or say unsure) is left out.
fn agreed_labels(rows: Vec<(i64, i64, String, String)>) -> Vec<LabeledPair> {
    let mut by_pair: BTreeMap<(i64, i64), Option<bool>> = BTreeMap::new();
    for (a, b, label, _coder) in rows {
        let this = match label.as_str() {
            "same" => Some(true),
            "different" => Some(false),
            _ => None,
        };
        by_pair
            .entry((a, b))
            .and_modify(|v| {
                if *v != this {
                    *v = None;
                }
            })
            .or_insert(this);
    }
    by_pair
        .into_iter()
        .filter_map(|((a, b), same)| same.map(|same| LabeledPair { a, b, same }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coders_who_disagree_leave_a_pair_unlabeled() {
        let row = |a, b, l: &str, c: &str| (a, b, l.to_string(), c.to_string());
        let got = agreed_labels(vec![
            row(1, 2, "same", "ann"),
            row(1, 2, "same", "bob"),
            row(1, 3, "same", "ann"),
            row(1, 3, "different", "bob"),
            row(2, 3, "unsure", "ann"),
            row(4, 5, "different", "ann"),
        ]);
        assert_eq!(
            got,
            vec![
                LabeledPair {
                    a: 1,
                    b: 2,
                    same: true
                },
                LabeledPair {
                    a: 4,
                    b: 5,
                    same: false
                }
            ]
        );
    }
}
