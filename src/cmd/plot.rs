//! `spotcheck plot`: a figure of the database as an SVG file, for a methods section — the
//! score histograms of the detector runs with their thresholds (and a what-if threshold),
//! the group-size distribution, or the review's progress over time. The numbers come from
//! `chart` (the same the workbench's chart screen draws); `chart::svg` draws them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::chart::{load_figures, svg, FigureRequest, Period};
use crate::store::Store;

/// Which figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlotWhat {
    Scores,
    Sizes,
    Progress,
}

/// What `plot` draws, from which database, into which file.
#[derive(Debug, Clone)]
pub struct PlotConfig {
    pub db: PathBuf,
    pub what: PlotWhat,
    /// Only this detector's latest run (scores; sizes: its clusters instead of the queue).
    pub method: Option<String>,
    /// Whose labels (precision/recall of the what-if) and decisions (progress); None: all.
    pub coder: Option<String>,
    /// A what-if threshold drawn on every score histogram, with its pairs, groups, P and R.
    pub threshold: Option<f64>,
    pub period: Period,
    pub out: PathBuf,
}

pub fn run(a: &PlotConfig) -> Result<ExitCode> {
    let mut store = Store::open_existing(&a.db)?;
    store.materialize_pending()?;
    store.refresh_review_queue()?;
    let figures = load_figures(
        &store,
        &FigureRequest {
            method: a.method.clone(),
            coder: a.coder.clone(),
            period: a.period,
            ..FigureRequest::default()
        },
    )?;
    let text = match a.what {
        PlotWhat::Scores => {
            if figures.runs.is_empty() {
                bail!(
                    "no finished detector run in {}: run `spotcheck detect --db {}` first",
                    a.db.display(),
                    a.db.display()
                );
            }
            let what_if: Vec<_> = figures
                .runs
                .iter()
                .map(|r| a.threshold.map(|t| r.what_if_at(&figures.labels, t)))
                .collect();
            let hists: Vec<_> = figures.runs.iter().map(|r| r.histogram.clone()).collect();
            svg::scores_svg(&hists, &what_if)?
        }
        PlotWhat::Sizes => svg::sizes_svg(&figures.sizes, &figures.sizes_of)?,
        PlotWhat::Progress => svg::progress_svg(&figures.progress, figures.period)?,
    };
    std::fs::write(&a.out, text).with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}
