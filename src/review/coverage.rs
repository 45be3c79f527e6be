//! The interval-coverage study of `eval --sample`: on a detected database with a gold
//! clustering, for each seed a sample is drawn and stored as `spotcheck sample` stores it,
//! the scripted coder ([`super::oracle`]) labels its pairs from the gold through the store
//! calls the workbench makes, the sample is estimated as `eval --sample` estimates it, and
//! each run's true precision and recall (computed from the gold) are checked against the
//! 95% intervals. Used by `examples/coverage_study.rs` and the real-corpus test.

use anyhow::Result;
use serde::Serialize;

use super::oracle::{Oracle, OracleOptions};
use crate::cmd::eval::{evaluate_sample, gold_for_store};
use crate::cmd::sample::{candidates, draw_and_store, Draw, Pilot};
use crate::learn::estimate::{Interval, RunEstimate};
use crate::model::sample::PILOT_WIDTH;
use crate::store::Store;

/// One run under one seed.
#[derive(Debug, Clone, Serialize)]
pub struct RunCheck {
    pub run: i64,
    pub method: String,
    pub true_precision: f64,
    pub true_recall: f64,
    pub estimate: RunEstimate,
    pub precision_covered: bool,
    pub recall_covered: bool,
}

/// One seed's sample and checks.
#[derive(Debug, Clone, Serialize)]
pub struct SeedCheck {
    pub seed: u64,
    pub sample: i64,
    pub pairs: usize,
    pub labeled: usize,
    pub true_pairs: u64,
    pub true_pairs_estimate: Interval,
    pub runs: Vec<RunCheck>,
}

impl SeedCheck {
    /// Whether every run's precision and recall intervals cover the true values.
    pub fn all_covered(&self) -> bool {
        self.runs
            .iter()
            .all(|r| r.precision_covered && r.recall_covered)
    }
}

/// How the study's samples are allocated over the strata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// Each stratum sized for the width (or the total spread evenly): `spotcheck sample`.
    Width,
    /// A pilot sized for `model::sample::PILOT_WIDTH`, labeled, then the same total
    /// allocated by Neyman allocation from its labels: `spotcheck sample --pilot ID`.
    Neyman,
}

/// The collection's documents, best candidate scores and runs' pairs (`cmd::sample`).
type Candidates = (Vec<i64>, Vec<(i64, i64, f64)>, Vec<(i64, Vec<(i64, i64)>)>);

/// Draws `draw` from `candidates`, stores it and labels it as the scripted coder `coder`
/// answers from the gold; the sample's id.
fn draw_and_label(
    store: &mut Store,
    gold_rows: &[(String, String)],
    coder: &str,
    (docs, best, runs): &Candidates,
    draw: &Draw,
) -> Result<i64> {
    let drawn = draw_and_store(store, docs, best, runs, draw)?;
    let mut oracle = Oracle::new(store, gold_rows, coder)?;
    let pairs: Vec<(i64, i64)> = drawn.pairs.iter().map(|p| (p.a, p.b)).collect();
    oracle.label_pairs(store, &pairs, &OracleOptions::default())?;
    Ok(drawn.id)
}

/// Runs the study for `seeds` on `store` (which holds finished detector runs) with gold rows
/// `(url, cluster)`; each seed's sample is sized by `size` (total) or `width`, and
/// allocated as `allocation` says.
pub fn coverage_study(
    store: &mut Store,
    gold_rows: &[(String, String)],
    seeds: &[u64],
    size: Option<u64>,
    width: f64,
    allocation: Allocation,
) -> Result<Vec<SeedCheck>> {
    let (gold, _) = gold_for_store(store, gold_rows)?;
    let docs = store.document_ids()?;
    let (best, runs) = candidates(store)?;
    let truth: Vec<(i64, f64, f64)> = runs
        .iter()
        .map(|(run, pairs)| {
            let s = gold.score_pairs(pairs.iter().copied());
            (*run, s.precision, s.recall)
        })
        .collect();
    let candidates = (docs, best, runs);
    let mut out = Vec::new();
    for &seed in seeds {
        let coder = format!("oracle-{seed}");
        let pilot = match allocation {
            Allocation::Width => None,
            Allocation::Neyman => {
                let pilot = Draw {
                    size: None,
                    width: PILOT_WIDTH,
                    seed,
                    coder: None,
                    blind: true,
                    pilot: None,
                };
                let id = draw_and_label(store, gold_rows, &coder, &candidates, &pilot)?;
                Some(Pilot::read(store, id)?)
            }
        };
        let drawn = draw_and_label(
            store,
            gold_rows,
            &coder,
            &candidates,
            &Draw {
                size,
                width,
                seed,
                coder: None,
                blind: true,
                pilot: pilot.as_ref(),
            },
        )?;
        let e = evaluate_sample(store, Some(drawn))?;
        let checks = e
            .runs
            .iter()
            .filter_map(|r| {
                let &(_, p, rec) = truth.iter().find(|t| t.0 == r.run)?;
                let est = r.estimate.clone();
                Some(RunCheck {
                    run: r.run,
                    method: r.method.clone(),
                    true_precision: p,
                    true_recall: rec,
                    precision_covered: est.precision.is_some_and(|i| i.contains(p)),
                    recall_covered: est.recall.is_some_and(|i| i.contains(rec)),
                    estimate: est,
                })
            })
            .collect();
        out.push(SeedCheck {
            seed,
            sample: drawn,
            pairs: e.pairs,
            labeled: e.labeled,
            true_pairs: gold.pair_count(),
            true_pairs_estimate: e.true_pairs,
            runs: checks,
        });
    }
    Ok(out)
}
