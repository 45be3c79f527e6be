//! `spotcheck detect` and `spotcheck lexicon build`: thin commands over the `detect` layer.
//! `detect` takes a validated plan (made at the edge from the method table's declarations),
//! runs each planned method through the one driver, draws its progress, prints each run's
//! summary (one line, or one JSON object with `--json`) and brings the review queue up to
//! date. A rerun is a new run; older runs and coder labels stay.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::detect::imatch::{lexicon_for, IMatchSettings};
use crate::detect::{DetectConfig, Progress};
use crate::store::{Store, TextKind};

/// `spotcheck detect`, validated.
#[derive(Debug)]
pub struct DetectRequest {
    pub db: PathBuf,
    pub config: DetectConfig,
    /// Print each run's report as one JSON object.
    pub json: bool,
}

pub fn run(req: &DetectRequest) -> Result<ExitCode> {
    let mut store = Store::open_existing(&req.db)?;
    // Ingest's page cache for the runs' writes (pairs, clusters, signatures: millions of
    // rows at a million pages) rather than SQLite's default 2 MiB.
    store.tune_for_bulk_load()?;
    // Drawn on stderr, and only on a terminal (indicatif hides it otherwise).
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    // Ticks on its own thread, so a long stage (a million pages' matching, the queue build)
    // still shows its elapsed time moving.
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    let method = std::cell::Cell::new("");
    let progress = |p: Progress| match p {
        Progress::Started { method: m } => {
            method.set(m);
            bar.set_message(format!("{m}: reading"));
            bar.tick();
        }
        Progress::Signed { documents } => {
            bar.set_message(format!("{}: signed {documents} documents", method.get()));
            bar.tick();
        }
        Progress::Matching => {
            bar.set_message(format!("{}: finding and storing pairs", method.get()));
            bar.tick();
        }
        Progress::Finished => bar.set_message(""),
    };
    let shared = crate::detect::Shared::default();
    let runs = req.config.runs();
    for (i, planned) in runs.iter().enumerate() {
        shared.set_later_readers(runs[i + 1..].iter().filter_map(|r| r.memo_key()).collect());
        let report = planned.run(&mut store, &shared, &progress)?;
        bar.suspend(|| -> Result<()> {
            if req.json {
                crate::cmd::write_json_line(&mut std::io::stdout().lock(), &report)?;
            } else {
                crate::cmd::outln!("{}", report.line())?;
            }
            Ok(())
        })?;
    }
    // Build the review queue now, while the coder waits for detection anyway, so the
    // workbench's first frame never pays for it.
    bar.set_message("building the review queue");
    store.refresh_review_queue()?;
    bar.finish_and_clear();
    Ok(ExitCode::SUCCESS)
}

/// `spotcheck lexicon build`, validated.
#[derive(Debug, Clone)]
pub struct LexiconBuild {
    pub db: PathBuf,
    pub out: PathBuf,
    /// Normalized-idf window; `None`: I-Match's default.
    pub idf: Option<(f64, f64)>,
    pub text: TextKind,
}

/// `spotcheck lexicon build`: this collection's lexicon, saved for use on another.
pub fn lexicon_build(a: &LexiconBuild) -> Result<ExitCode> {
    let store = Store::open_existing(&a.db)?;
    let mut s = IMatchSettings {
        text: a.text,
        ..IMatchSettings::default()
    };
    if let Some((lo, hi)) = a.idf {
        s.idf_min = lo;
        s.idf_max = hi;
    }
    let lexicon = lexicon_for(&store, &s)?;
    std::fs::write(&a.out, lexicon.to_text())
        .with_context(|| format!("cannot write lexicon {}", a.out.display()))?;
    crate::cmd::outln!(
        "wrote {}: {} lexicon terms, {} secondary terms, from {} documents",
        a.out.display(),
        lexicon.primary().len(),
        lexicon.secondary().len(),
        lexicon.n_docs
    )?;
    Ok(ExitCode::SUCCESS)
}
